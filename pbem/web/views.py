"""What the pages show, as plain data for templates/web/: the list of
games and a game's page, for one viewer. Storage is read here (in a
thread: the handlers call these through ``in_thread``), never written.

A viewer is the game's name for a reader (:class:`adjudicator.base.Game`'s
``view``): the observers' name by default, which every page of an
anonymous reader uses; a player's name for a player who signed in. A page
is built from the same view the turn reports use, so it shows what that
reader's report would and nothing more. The current phase's orders show
as "in" or "not yet" per seat; only a signed-in player sees their own.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Connection

from adjudicator.base import Game, OrderMode
from pbem import anonymous
from pbem.app import App
from pbem.config import GameConfig
from pbem.lifecycle.seats import seat_of
from pbem.reports import OBSERVER
from pbem.store import GameRow, PlayerRow
from pbem.turns.localtime import local
from pbem.turns.runner import orders_in


@dataclass(frozen=True)
class Seen:
    """A game as one viewer may see it: None from :func:`seen_game` when
    the viewer may not see it at all (no such game, or a private game the
    viewer does not sit in)."""

    row: GameRow
    cfg: GameConfig
    engine: Game
    viewer: str  # OBSERVER, or the name of a player seated in the game
    me: PlayerRow | None  # that player


def seen_game(app: App, conn: Connection, name: str, viewer: str = OBSERVER) -> Seen | None:
    """The game ``name`` for ``viewer``; None if there is none to show:
    unknown, or private and the viewer no player of it (a private game's
    pages answer exactly as a game that does not exist)."""
    row = app.store.game(conn, name)
    cfg = app.game_config(name)
    if row is None or cfg is None:
        return None
    me = None
    if viewer != OBSERVER:
        me = next((p for p in app.store.players(conn, name) if p.name == viewer), None)
        if me is None:
            return None  # a seat that is not in this game sees nothing of it
    if cfg.visibility == "private" and me is None:
        return None
    return Seen(row, cfg, app.engine(row.kind), viewer, me)


def join_word(app: App, cfg: GameConfig) -> str:
    """What a player JOINs to sit in a game: its name, or for a game a
    lobby opened (``terra-2``) the lobby's (``terra``), which seats them."""
    if cfg.lobby and cfg.name not in app.config.by_name:
        return cfg.name.rpartition("-")[0]
    return cfg.name


def listed(app: App, cfg: GameConfig | None, row: GameRow, now: datetime) -> bool:
    """Whether a game is on the public list: not private, and not over
    for longer than it stays readable."""
    if cfg is None or cfg.visibility == "private":
        return False
    return row.finished_at is None or now - row.finished_at <= cfg.keep


def when(at: datetime | None, zone: str) -> dict[str, Any] | None:
    """A moment as the pages print it: in UTC, in the game's zone, and as
    ISO 8601 for the countdown's script."""
    if at is None:
        return None
    return {
        "iso": at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "utc": f"{at.astimezone(UTC):%a %d %b %Y %H:%M} UTC",
        "local": local(at, zone),
        "zone": zone,
        "same": ZoneInfo(zone).utcoffset(at.replace(tzinfo=None)) == UTC.utcoffset(None),
    }


# -- the list of games ---------------------------------------------------------------


def game_list(app: App, conn: Connection) -> dict[str, Any]:
    """The list page: lobbies to join, then every public game."""
    now = app.clock.now()
    rows = app.store.all_games(conn)
    games = [
        _list_entry(app, conn, row, cfg)
        for row in rows
        if listed(app, cfg := app.game_config(row.name), row, now)  # type: ignore[arg-type]
    ]
    lobbies = [
        {
            "name": c.name,
            "title": app.engine(c.game).title,
            "seats": c.seats,
            "address": app.config.server.address,
        }
        for c in app.config.games
        if c.lobby and c.visibility != "private"
    ]
    return {"games": games, "lobbies": lobbies, "server": app.config.server.address}


def _list_entry(app: App, conn: Connection, row: GameRow, cfg: GameConfig) -> dict[str, Any]:
    engine = app.engine(row.kind)
    seated = [p for p in app.store.players(conn, row.name) if p.status == "active"]
    entry: dict[str, Any] = {
        "name": row.name,
        "title": engine.title,
        "status": row.status,
        "players": ["hidden (gunboat)"] if _hides(app, cfg, row) else [p.name for p in seated],
        "open": max(0, cfg.seats - len(seated)) if row.status == "forming" else 0,
        "join": join_word(app, cfg),
        "deadline": when(row.deadline, cfg.timezone) if row.status == "running" else None,
        "address": app.game_address(row.name),
        "phase": None,
    }
    if row.status != "forming":
        entry["phase"] = engine.phase_title(engine.phase(engine.load_state(row.state))[1])
    return entry


# -- a game's page -------------------------------------------------------------------


def game_page(app: App, conn: Connection, seen: Seen) -> dict[str, Any]:
    """A game's page for ``seen.viewer``: the phase, the deadline, the
    seats with whether their orders are in, the standings, the press of
    the phase, the history's phases."""
    row, cfg, engine = seen.row, seen.cfg, seen.engine
    data: dict[str, Any] = {
        "name": row.name,
        "title": engine.title,
        "status": row.status,
        "address": app.game_address(row.name),
        "server": app.config.server.address,
        "open": 0,
        "join": join_word(app, cfg),
        "me": seen.me.name if seen.me else None,
        "history": _history(app, conn, row, engine.phase_title),
        "turn": row.turn,
        "rollbacks": [
            {"phase": engine.phase_title(r.phase), "at": when(r.at, cfg.timezone), "turn": r.turn}
            for r in app.store.rollbacks_of(conn, row.name)
        ],
        "press": [{"sender": s or "anonymous", "text": t} for s, t in _press(app, conn, row)],
        "deadline": when(row.deadline, cfg.timezone) if row.status == "running" else None,
        "zone": cfg.timezone,
        "clock": engine.clock_ticks,
        "private": cfg.visibility == "private",
    }
    seated = app.store.players(conn, row.name)
    if row.status == "forming":
        forming = [] if cfg.anonymous else _forming_seats(seated)
        data.update(phase=None, seats=forming, open=max(0, cfg.seats - len(seated)))
        data.update(standings=[], measures=[], outcome=None, mine=None, alt="")
        return data
    state = engine.load_state(row.state)
    data["seats"] = _seats(app, conn, seen, state, seated)
    viewer = seen.viewer
    if anonymous.hides(cfg, engine, state):  # gunboat: every seat by its power alone
        viewer = anonymous.names(engine, state).get(viewer, viewer)
        state = engine.masked(state)
        for seat in data["seats"]:
            seat["name"] = seat["seat"] or "(a player who left)"
    view = engine.view(state, viewer)
    data["phase"] = seen.engine.phase_title(view.phase)
    data["measures"] = [m for m, _ in view.standings[0].measures] if view.standings else []
    data["standings"] = [
        {"label": _label(engine, state, s.player), "cells": [v for _, v in s.measures],
         "status": s.status}
        for s in view.standings
    ]  # fmt: skip
    data["outcome"] = _outcome(engine, state)
    data["mine"] = _my_orders(app, conn, seen) if seen.me else None
    return data


def _hides(app: App, cfg: GameConfig, row: GameRow) -> bool:
    """A gunboat game whose names are not revealed yet (its end reveals them)."""
    if not cfg.anonymous or row.status == "forming":
        return cfg.anonymous
    engine = app.engine(row.kind)
    return anonymous.hides(cfg, engine, engine.load_state(row.state))


def _label(engine: Game, state: Any, player: str) -> dict[str, str | None]:
    return {"name": player, "seat": seat_of(engine, state, player)}


def _forming_seats(seated: list[PlayerRow]) -> list[dict[str, Any]]:
    return [
        {"name": p.name, "seat": None, "owes": False, "in": False, "status": p.status}
        for p in seated
    ]


def _seats(
    app: App, conn: Connection, seen: Seen, state: Any, seated: list[PlayerRow]
) -> list[dict[str, Any]]:
    """Each seat: its player, power or colour, whether they owe orders in
    this phase and whether their orders are in (yes or no, never what)."""
    row, engine = seen.row, seen.engine
    owe = engine.to_order(state) if row.status == "running" else frozenset()
    sent = orders_in(app, conn, engine, row)
    ready = app.store.ready_players(conn, row.name, row.turn)
    return [
        {
            "name": p.name,
            "seat": seat_of(engine, state, p.name),
            "owes": p.name in owe,
            "in": p.name in sent or p.name in ready,
            "status": p.status,
        }
        for p in seated
    ]


def _my_orders(app: App, conn: Connection, seen: Seen) -> list[str]:
    """A signed-in player's own orders of the turn being played, as sent."""
    assert seen.me is not None
    row = seen.row
    if seen.engine.order_mode is OrderMode.RECEIVED:
        queue = app.store.submission_queue(conn, row.name, row.turn, seen.me.name)
        return [text for _, text, _ in queue.get(seen.me.name, [])]
    found = app.store.current_submission(conn, row.name, row.turn, seen.me.name)
    return [found[1]] if found and found[1] else []


def _press(app: App, conn: Connection, row: GameRow) -> list[tuple[str | None, str]]:
    """The public press sent during the turn being played."""
    return app.store.press_of(conn, row.name, row.turn)


def _outcome(engine: Game, state: Any) -> dict[str, Any] | None:
    outcome = engine.outcome(state)
    if outcome is None:
        return None
    return {
        "reason": outcome.reason.replace("_", " "),
        "winners": list(outcome.winners),
        "scores": sorted(outcome.scores.items(), key=lambda kv: (-kv[1], kv[0])),
    }


def _history(
    app: App, conn: Connection, row: GameRow, title: Callable[[str], str]
) -> list[dict[str, Any]]:
    """Every resolved phase, newest first: (turn, phase in ``title``'s words)."""
    done = resolved(app, conn, row)
    return [{"turn": t, "phase": title(done[t].phase)} for t in sorted(done, reverse=True)]


# -- the resolved turns, read once each ----------------------------------------------


@dataclass(frozen=True)
class Resolved:
    """What the pages need of a resolved turn's record, which never changes."""

    phase: str
    missed: tuple[str, ...]


# per store (a process may open several: the tests do), by game
_RESOLVED: weakref.WeakKeyDictionary[
    Any, dict[tuple[str, datetime | None, int], dict[int, Resolved]]
]
_RESOLVED = weakref.WeakKeyDictionary()
_RESOLVED_LOCK = threading.Lock()


def resolved(app: App, conn: Connection, row: GameRow) -> dict[int, Resolved]:
    """Every resolved turn of the game: turn -> its phase and who missed
    it. Each record is read from storage once per store (a game on a
    clock has hundreds of ticks, and a record never changes); a later game
    of the same name is another game (its creation time)."""
    # a rollback (ROLLBACK) takes back a record: another game to this cache
    key = (row.name, row.created_at, app.store.rollback_count(conn, row.name))
    with _RESOLVED_LOCK:
        games = _RESOLVED.setdefault(app.store, {})
        known = dict(games.get(key, {}))
    for turn, text, _ in app.store.turn_records(conn, row.name, max(known, default=-1)):
        record = json.loads(text)
        known[turn] = Resolved(record["phase"], tuple(record.get("missed", ())))
    with _RESOLVED_LOCK:
        if len(known) >= len(games.get(key, {})):
            games[key] = known
    return known
