"""The maps, and the pages of phases already played.

A played phase is shown as its turn report showed it to the same reader
(the observers, or a signed-in player): the turn is replayed from what
storage keeps (the state it started from, the orders received by its
cutoff, its seed: adjudication is pure, so the same result), and the
result is checked against the turn's record before anything is shown. The
report's context and the game's report template then make the page
(render.py puts it in the web's layout), filtered for the reader exactly
as the mail was: nothing a reader could not see in their report is on it.
A turn whose replay does not match its record shows no orders or results.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from adjudicator.base import Game, OrderMode, OrderSheet, TurnResult, turn_seed
from pbem import anonymous
from pbem.app import App
from pbem.reports import OBSERVER, Reader, context
from pbem.store import GameRow
from pbem.store.pages import PlayedTurn
from pbem.turns.runner import combined
from pbem.web import render, views
from pbem.web.cache import Rendered

SVG = "image/svg+xml; charset=utf-8"
_MAPS: OrderedDict[tuple[str, str, str], tuple[str, str]] = OrderedDict()
_MAPS_LOCK = threading.Lock()
MAPS_KEPT = 256


def current_map(app: App, seen: views.Seen) -> tuple[str, str]:
    """(SVG, words) of the map as it stands, for the viewer: drawn once
    per state and viewer (the page and the picture both need it)."""
    state_hash = hashlib.sha256(seen.row.state.encode("utf-8")).hexdigest()
    key = (seen.row.kind, seen.viewer, state_hash)
    with _MAPS_LOCK:
        if key in _MAPS:
            _MAPS.move_to_end(key)
            return _MAPS[key]
    engine = seen.engine
    state = engine.load_state(seen.row.state)
    view = anonymous.view_of(engine, state, seen.viewer, anonymous.hides(seen.cfg, engine, state))
    scene = render.map_scene(seen.row.kind, view, [])
    made = (render.svg_of(scene), render.described(scene))
    with _MAPS_LOCK:
        _MAPS[key] = made
        while len(_MAPS) > MAPS_KEPT:
            _MAPS.popitem(last=False)
    return made


# -- replaying a turn ----------------------------------------------------------------


def _cutoff(engine: Game, record: dict[str, Any], ran: datetime) -> datetime:
    """The moment up to which the turn's orders counted (the runner's)."""
    if engine.clock_ticks or record.get("why") != "deadline" or not record.get("deadline"):
        return ran
    return datetime.fromisoformat(record["deadline"])


def _orders(
    app: App, conn: Connection, engine: Game, state: Any, name: str, turn: int, cutoff: datetime
) -> tuple[dict[str, Any], dict[str, OrderSheet]]:
    """The orders that counted: {player: (seq, text, received)} as the
    record keeps them, and each player's order sheet."""
    store = app.store
    if engine.order_mode is OrderMode.RECEIVED:
        queue = store.submission_queue(conn, name, turn, None, cutoff)
        subs = {p: (q[0][0], "\n".join(t for _, t, _ in q), q[-1][2]) for p, q in queue.items()}
        sheets = {p: combined(engine, state, p, q) for p, q in queue.items()}
        return subs, sheets
    found = store.submissions_for(conn, name, turn, cutoff)
    sheets = {p: engine.read_orders(state, p, s[1], s[0]) for p, s in found.items()}
    return found, sheets


def _as_then(app: App, conn: Connection, row: GameRow, turn: int) -> list[Any]:
    """The game's players with the turns they had missed before ``turn``
    (what its report counted), from the turns' records."""
    missed: dict[str, int] = {}
    for number, done in views.resolved(app, conn, row).items():
        if number < turn:
            for who in done.missed:
                missed[who] = missed.get(who, 0) + 1
    return [replace(p, missed=missed.get(p.name, 0)) for p in app.store.players(conn, row.name)]


def phases_of(app: App, conn: Connection, row: GameRow) -> dict[int, str]:
    """turn -> phase of every resolved turn, in the game's words for pages
    ("Spring 1902, movement (S1902M)")."""
    title = app.engine(row.kind).phase_title
    return {turn: title(done.phase) for turn, done in views.resolved(app, conn, row).items()}


def _moment(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _as_recorded(result: TurnResult) -> list[Any]:
    return json.loads(json.dumps([r.to_dict() for r in result.results], sort_keys=True))


def replay(
    app: App, conn: Connection, seen: views.Seen, turn: int, played: PlayedTurn
) -> tuple[Any, TurnResult, dict[str, Any]] | None:
    """(the state before, the result, the report's ``info``) of a played
    turn; None if replaying it does not give what its record says."""
    engine, name = seen.engine, seen.row.name
    record = json.loads(played.result or "{}")
    ran = played.adjudicated_at
    if not record or ran is None:
        return None
    before = engine.load_state(played.state)
    subs, sheets = _orders(app, conn, engine, before, name, turn, _cutoff(engine, record, ran))
    seated = _as_then(app, conn, seen.row, turn)
    wanted = json.loads(json.dumps(record.get("results", []), sort_keys=True))
    # the sheets of those seated then: every sender, or (one left since) the active
    for who in ({p.name for p in seated}, {p.name for p in seated if p.status == "active"}):
        chosen = [sheets[p.name] for p in seated if p.name in sheets and p.name in who]
        result = engine.adjudicate(before, chosen, record["seed"])
        if _as_recorded(result) == wanted:
            break
    else:
        return None
    number, phase = engine.phase(before)
    new_number, new_phase = engine.phase(result.state)
    info = {
        "turn": number,
        "phase": record.get("phase", phase),
        "why": record.get("why", "deadline"),
        "late": record.get("late", False),
        "deadline_was": datetime.fromisoformat(record["deadline"])
        if record.get("deadline")
        else None,
        "resolved_at": ran,
        "seed": record["seed"],
        "next_seed": turn_seed(seen.row.seed, new_number, new_phase),
        "orders": {p: s for p, s in subs.items() if p in record.get("orders", {})},
        "missed": record.get("missed", []),
        "players": seated,
    }
    return before, result, info


# -- the page of a played phase ------------------------------------------------------


@dataclass(frozen=True)
class Phase:
    """A played phase, replayed for a viewer: what its report is made of."""

    seen: views.Seen
    before: Any
    result: TurnResult
    info: dict[str, Any]
    press: list[tuple[str | None, str]]
    next_deadline: datetime | None


def phase(app: App, conn: Connection, seen: views.Seen, turn: int) -> Phase | None | PlayedTurn:
    """The played turn ``turn`` replayed; None if it was not played; the
    stored turn itself if its replay does not match its record."""
    stored = app.store.played_turn(conn, seen.row.name, turn)
    if stored is None or stored.result is None:
        return None
    replayed = replay(app, conn, seen, turn, stored)
    if replayed is None:
        return stored
    before, result, info = replayed
    press = app.store.press_of(conn, seen.row.name, turn)
    phases = phases_of(app, conn, seen.row)
    return Phase(seen, before, result, info, press, _next_deadline(app, conn, seen, turn, phases))


def report_data(app: App, p: Phase) -> dict[str, Any]:
    """The turn report's data of a phase for its viewer (pbem/reports.py)."""
    return _report_data(app, p.seen, p.before, p.result, p.info, p.press, p.next_deadline)


def played(
    app: App, name: str, turn: int, viewer: str, what: str, site: dict[str, Any], policy: str
) -> Rendered | None:
    """The page (``what`` "page") or map ("map") of the played turn
    ``turn`` for ``viewer``; None when there is none to show."""
    with app.store.tx(write=False) as conn:
        seen = views.seen_game(app, conn, name, viewer)
        if seen is None:
            return None
        found = phase(app, conn, seen, turn)
        phases = phases_of(app, conn, seen.row)
    if found is None:
        return None
    if isinstance(found, PlayedTurn):
        return _unreadable(app, seen, turn, found, site, policy) if what == "page" else None
    hide = anonymous.hides(seen.cfg, seen.engine, seen.engine.load_state(seen.row.state))
    shown, masked = anonymous.for_reader(seen.engine, found.result, viewer, hide)
    view = seen.engine.view(shown.state, masked)
    scene = render.map_scene(seen.row.kind, view, shown.results)
    if what == "map":
        return Rendered(render.svg_of(scene).encode("utf-8"), SVG, policy)
    data = report_data(app, found)
    data["phase"] = seen.engine.phase_title(data["phase"])
    data.update(site)
    data.update(_neighbours(phases, turn))
    data["web_alt"] = render.described(scene)
    data["web_map_width"] = round(scene.width)
    data["web_me"] = seen.me.name if seen.me else None
    return render.html(f"{seen.row.kind}/report.html.j2", data, policy)


def _report_data(
    app: App,
    seen: views.Seen,
    before: Any,
    result: TurnResult,
    info: dict[str, Any],
    press: list[tuple[str | None, str]],
    next_deadline: datetime | None,
) -> dict[str, Any]:
    """The turn report's own data for the viewer (pbem/reports.py)."""
    cfg, engine = seen.cfg, seen.engine
    me = seen.me
    reader = (
        Reader(me.name, "", me.name, "player", me.timezone or cfg.timezone, me)
        if me is not None
        else Reader(OBSERVER, "", OBSERVER, "observer", cfg.timezone)
    )
    row = replace(seen.row, deadline=next_deadline)
    sheets: list[OrderSheet] = []
    data = context(app, engine, cfg, row, reader, sheets, result, info, press)
    data["report"] = engine.report_for(before, result, reader.viewer) or "turn"
    data["unsubscribe"] = None
    return data


def _next_deadline(
    app: App, conn: Connection, seen: views.Seen, turn: int, phases: dict[int, str]
) -> datetime | None:
    """The deadline the turn after ``turn`` had (or has, being played)."""
    later = [t for t in phases if t > turn]
    if not later:
        return seen.row.deadline
    following = app.store.played_turn(conn, seen.row.name, min(later))
    record = json.loads(following.result or "{}") if following else {}
    return datetime.fromisoformat(record["deadline"]) if record.get("deadline") else None


def _neighbours(phases: dict[int, str], turn: int) -> dict[str, Any]:
    before = [t for t in phases if t < turn]
    after = [t for t in phases if t > turn]
    return {
        "web_before": {"turn": max(before), "phase": phases[max(before)]} if before else None,
        "web_after": {"turn": min(after), "phase": phases[min(after)]} if after else None,
    }


def _unreadable(
    app: App, seen: views.Seen, turn: int, stored: PlayedTurn, site: dict[str, Any], policy: str
) -> Rendered:
    """A played turn whose replay does not match its record: its phase,
    and no orders or results (nothing that might not be the reader's)."""
    record = json.loads(stored.result or "{}")
    return render.html(
        "web/error.html.j2",
        {
            **site,
            "heading": f"{seen.row.name}, {record.get('phase', turn)}",
            "text": "This phase was played, but its orders and results cannot be shown here. "
            f"Players and observers may mail HISTORY {seen.row.name} for its report.",
        },
        policy,
    )
