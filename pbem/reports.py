"""Turn reports: rendered for every reader after each turn, kept, and mailed.

Which readers get a mail after a turn, and what kind, is the game's to
say (:meth:`adjudicator.base.Game.report_for`): every reader, every turn,
for most games; in Strategic Initiative only the players a tick concerns,
and everyone's situation report every 16 ticks.

Readers are the players (each sees what the game lets them see), the
observers (games.yaml and WATCH; they see what every player may see) and
the game master (everything, with missed turns). Each report is a text part
that reads well in 72 columns and an HTML part with the same content and
the map picture (a PNG inline, cid:), with the map as SVG and the
reader's calendar attached: the deadlines of every game the reader sits in
(pbem/mail/calendar.py). templates/report/ holds the
shared layouts; templates/<game>/report.*.j2 the game's own parts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from adjudicator.base import Game, OrderMode, OrderSheet, TurnResult
from pbem import anonymous
from pbem.app import App
from pbem.config import GameConfig
from pbem.lifecycle.seats import with_seat
from pbem.mail import lists
from pbem.mail.calendar import FILENAME, MIME, Deadlines, merged, ran_early, shared_calendar
from pbem.mail.compose import compose_report
from pbem.mapdraw import rendered
from pbem.store import GameRow, PlayerRow, ReportRow
from pbem.turns.localtime import local
from pbem.words import say, templates

OBSERVER = "#observer"  # the viewer name observers are shown as: no player has it


@dataclass(frozen=True)
class Reader:
    key: str  # the report's key: a player's name, an observer's address, "" the master
    email: str
    viewer: str | None  # the name the game filters by; None: the master, sees all
    role: str  # player, observer, master
    timezone: str
    player: PlayerRow | None = None


def readers(
    app: App, conn: Connection, cfg: GameConfig, seated: Sequence[PlayerRow]
) -> list[Reader]:
    out = [
        Reader(p.name, p.email, p.name, "player", p.timezone or cfg.timezone, p)
        for p in seated
        if p.status == "active"
    ]
    watchers = lists.observers(app, conn, cfg.name)
    taken = {r.email.lower() for r in out}
    for email in watchers:
        if email.lower() not in taken:
            taken.add(email.lower())
            out.append(Reader(email.lower(), email, OBSERVER, "observer", cfg.timezone))
    if cfg.master_email:
        out.append(Reader("", cfg.master_email, None, "master", cfg.timezone))
    return out


def compact_options(unit: str, options: Sequence[str]) -> str:
    """A unit's legal orders in one line: "holds; moves to A, B; attacks C"."""
    groups: dict[str, list[str]] = {}
    for option in options:
        rest = option[len(unit) :].strip() if option.startswith(unit) else option
        words = rest.split()
        if not words:
            continue
        n = 2 if len(words) > 2 and words[1] in ("to", "from", "on", "with") else 1
        verb, target = " ".join(words[:n]), " ".join(words[n:])
        groups.setdefault(verb, [])
        if target:
            groups[verb].append(target)
    return "; ".join(f"{verb} {', '.join(t)}".strip() for verb, t in groups.items())


def calendar_for(
    app: App,
    deadlines: Deadlines,
    cfg: GameConfig,
    game: GameRow,
    reader: Reader,
    info: dict[str, Any],
) -> bytes | None:
    """The reader's calendar (pbem/mail/calendar.py): the deadline of every
    game the reader plays, watches or masters, with this turn's deadline
    cancelled if the turn ran before it. None for a reader with no
    deadline anywhere."""
    was, ran = info["deadline_was"], info["resolved_at"]
    early = []
    if info["why"] != "deadline" and was is not None and ran < was:
        early.append(ran_early(app, game, cfg, info["phase"], info["turn"], was, ran))
    events = merged(early, deadlines.of(reader.email))
    return shared_calendar(tuple(events), app.domain, ran) if events else None


def context(
    app: App,
    engine: Game,
    cfg: GameConfig,
    game: GameRow,
    reader: Reader,
    sheets: Sequence[OrderSheet],
    result: TurnResult,
    info: dict[str, Any],
    press: Sequence[tuple[str | None, str]],
) -> dict[str, Any]:
    """What a reader's report says, as plain data for the templates (in a
    gunboat game, with every player named by their seat: pbem/anonymous.py)."""
    hide = anonymous.hides(cfg, engine, result.state, reader.role == "master")
    seen, viewer = anonymous.for_reader(engine, result, reader.viewer, hide)
    if hide:
        info = _masked_info(engine, result.state, info)
    view = engine.view(seen.state, viewer)
    outcome = engine.outcome(seen.state)
    by_player = _results_by_player(engine, seen)
    players = _players(engine, seen.state, by_player, info, reader)
    ran = _ran(engine, seen) if engine.order_mode is OrderMode.RECEIVED else []
    measures = [m for m, _ in view.standings[0].measures] if view.standings else []
    standings = _standings(engine, view, seen.state)
    uses_chance = engine.uses_chance
    deadline = game.deadline
    return {
        "server": app.config.server,
        "game": cfg.name,
        "title": engine.title,
        "phase": info["phase"],
        "turn": info["turn"],
        "next_phase": view.phase,
        "resolved": local(info["resolved_at"], reader.timezone),
        "why": info["why"],
        "late": info["late"],
        "deadline_was": local(info["deadline_was"], reader.timezone),
        "players": players,
        "ran": ran,
        "board": view.board,
        "results_by_player": by_player,
        "events": [say(engine.name, "events", e.kind, dict(e.facts)) for e in seen.events],
        "measures": measures,
        "standings": standings,
        "votes": [
            {"name": v.name, "open": v.open, "facts": dict(v.facts)}
            for v in view.votes
            if v.open or v.facts.get("yes_weight")
        ],
        "press": [{"sender": s or "anonymous", "text": t} for s, t in press],
        "deadline": local(deadline, reader.timezone) if deadline else None,
        "options": [(unit, compact_options(unit, opts)) for unit, opts in view.options.items()],
        "reader": reader,
        # a player with nothing to order in the next phase (Empire: no
        # dislodged unit in a retreat phase) is told so, not asked for orders
        "idle": reader.role == "player"
        and outcome is None
        and viewer not in engine.to_order(seen.state),
        "address": app.game_address(cfg.name),
        "chance": uses_chance,
        "seed": info["seed"],
        "next_seed_hash": sealed_hash(str(info["next_seed"])) if uses_chance else None,
        "outcome": outcome,
        "final": outcome is not None,
        "keep_days": cfg.keep.days,
        "master": reader.role == "master",
        # an observer's report says how to stop it (the address of its List-Unsubscribe)
        "unsubscribe": (
            lists.unsubscribe_address(app, cfg.name, reader.email)
            if reader.role == "observer"
            else None
        ),
        "calendar": None,  # the attached calendar's file name, when one is
    }


def _masked_info(engine: Game, state: Any, info: dict[str, Any]) -> dict[str, Any]:
    """A turn's ``info`` with its players named by their seats."""
    mask = anonymous.names(engine, state)
    return {
        **info,
        "players": [replace(p, name=mask.get(p.name, p.name)) for p in info["players"]],
        "orders": {mask.get(k, k): v for k, v in info["orders"].items()},
        "missed": [mask.get(m, m) for m in info["missed"]],
    }


def _said(engine: Game, r: Any) -> str:
    """An order's result in the game's words."""
    return say(engine.name, "results", r.reason, dict(r.facts))


def _results_by_player(engine: Game, seen: Any) -> dict[str, list[dict[str, Any]]]:
    """The results of each player's orders, as the reader sees them."""
    by_player: dict[str, list[dict[str, Any]]] = {}
    for r in seen.results:
        by_player.setdefault(r.order.player, []).append(
            {
                "text": r.order.canonical(),
                "ok": r.succeeded,
                "given": bool(r.order.line),
                "why": _said(engine, r),
            }
        )
    return by_player


def _players(
    engine: Game,
    state: Any,
    by_player: dict[str, list[dict[str, Any]]],
    info: dict[str, Any],
    reader: Reader,
) -> list[dict[str, Any]]:
    """Each player still in the game: their results, whether they sent
    orders (the hash of what they sent, and when) or missed the deadline."""
    orders = info["orders"]
    missed = set(info["missed"])
    players = []
    for p in info["players"]:
        if p.name not in by_player and p.name not in orders and p.name not in missed:
            continue  # out of the game before this turn
        sub = orders.get(p.name)
        if sub is not None and not _has_orders(sub[1]):
            sub = None  # mail with no order in it (STATUS alone, refused lines): no orders
        players.append(
            {
                "name": p.name,
                "label": with_seat(engine, state, p.name),
                "results": by_player.get(p.name, []),
                "sent": sub is not None,
                "missed_now": p.name in missed,
                "missed": p.missed + (1 if p.name in missed else 0),
                "sha256": sealed_hash(sub[1]) if sub else None,
                "received": local(sub[2], reader.timezone) if sub else None,
            }
        )
    return players


def _ran(engine: Game, seen: Any) -> list[dict[str, Any]]:
    """Games that run orders as received: every order in the order it ran."""
    return [
        {
            "player": r.order.player,
            "text": r.order.canonical(),
            "ok": r.succeeded,
            "why": _said(engine, r),
        }
        for r in seen.results
    ]


def _standings(engine: Game, view: Any, state: Any) -> list[dict[str, Any]]:
    """The standings table: each player, with their power or colour."""
    return [
        {
            "player": s.player,
            "label": with_seat(engine, state, s.player),
            "cells": [v for _, v in s.measures],
            "status": s.status,
        }
        for s in view.standings
    ]


def _has_orders(text: str) -> bool:
    """Whether stored orders hold an order: not only blank lines and the
    comment a mail without orders leaves (the player was there)."""
    return any(line.strip() and not line.strip().startswith("#") for line in text.splitlines())


def sealed_hash(text: str) -> str:
    """The SHA-256 published in reports: of a player's orders as received,
    and of the next turn's seed."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def render(kind: str, data: dict[str, Any]) -> tuple[str, str]:
    """(text, html) of a report, from the game's templates."""
    env = templates()
    text = env.get_template(f"{kind}/report.txt.j2").render(**data)
    html = env.get_template(f"{kind}/report.html.j2").render(**data)
    return text, html


def write_reports(
    app: App,
    conn: Connection,
    cfg: GameConfig,
    game: GameRow,
    old_state: Any,
    sheets: Sequence[OrderSheet],
    result: TurnResult,
    info: dict[str, Any],
) -> int:
    """Render, keep and queue the reports of a resolved turn, in the turn's
    transaction. Returns how many were queued. What is read for every
    reader (their last reports, the press since, the map) is read once,
    and the reports and mails are written together at the end."""
    engine = app.engine(game.kind)
    now, turn = info["resolved_at"], info["turn"]
    pictures: dict[bytes, tuple[str, bytes]] = {}
    # every game's deadline, read once for the readers' calendars (none on a clock)
    deadlines = None if engine.clock_ticks else Deadlines(app, conn)
    press = PressSince(app, conn, cfg.name, turn)
    kept: list[ReportRow] = []
    mails: list[tuple[str, str, bytes]] = []
    everyone = readers(app, conn, cfg, info["players"])
    if deadlines is not None:
        deadlines.expect([r.email for r in everyone])
    for reader in everyone:
        kind = engine.report_for(old_state, result, reader.viewer)
        if kind is None:
            continue  # nothing this turn concerns the reader
        data = context(app, engine, cfg, game, reader, sheets, result, info, press.of(reader.key))
        data["report"] = kind
        ics = calendar_for(app, deadlines, cfg, game, reader, info) if deadlines else None
        data["calendar"] = FILENAME if ics else None
        hide = anonymous.hides(cfg, engine, result.state, reader.role == "master")
        seen, viewer = anonymous.for_reader(engine, result, reader.viewer, hide)
        view = engine.view(seen.state, viewer)
        svg, png = rendered(game.kind, view, seen.results, pictures)
        data["map_width"] = png_width(png)
        text, html = render(game.kind, data)
        subject = (
            f"[{cfg.name}] {info['phase']} "
            + ("results" if kind == "turn" else f"{kind} report")
            + (" (game over)" if data["final"] else "")
        )
        kept.append(ReportRow(cfg.name, turn, reader.key, subject, text, html, svg, png))
        reply_to = app.reply_address(reader.player) if reader.player else None
        message_id, raw = report_mail(
            app,
            reader.email,
            subject,
            text,
            html,
            svg,
            png,
            ics,
            now,
            reply_to,
            turn,
            game=cfg.name,
            observer=reader.role == "observer",
            file=engine.map_file(turn, info["phase"]),
        )
        mails.append((reader.email, message_id, raw))
    app.store.add_reports(conn, kept, now)
    app.store.queue_mails(conn, "report", mails, now)
    return len(mails)


def png_width(png: bytes) -> int:
    """A PNG's width in pixels, from its header (the first chunk, IHDR)."""
    return int.from_bytes(png[16:20], "big")


class PressSince:
    """The public press each reader's report shows: all of it since the
    last report kept for that reader, so one mailed only some turns (a
    clock game's observer) misses none. A reader of every turn gets this
    turn's; a new reader catches up on all of it. Read once for all the
    readers whose last report is of the same turn."""

    def __init__(self, app: App, conn: Connection, game: str, turn: int) -> None:
        self.app, self.conn, self.game, self.turn = app, conn, game, turn
        self._last = app.store.last_reports_before(conn, game, turn)
        self._press: dict[int, list[tuple[str | None, str]]] = {}

    def of(self, reader: str) -> list[tuple[str | None, str]]:
        since = self._last.get(reader, -1)
        if since not in self._press:
            self._press[since] = self.app.store.press_of(self.conn, self.game, self.turn, since)
        return self._press[since]


def report_mail(
    app: App,
    to: str,
    subject: str,
    text: str,
    html: str,
    svg: str,
    png: bytes,
    calendar: bytes | None,
    when: datetime,
    reply_to: str | None,
    turn: int,
    *,
    game: str,
    observer: bool = False,
    again: bool = False,
    file: str | None = None,
) -> tuple[str, bytes]:
    """multipart/mixed: multipart/alternative (text; HTML related to the
    inline PNG), then the map as SVG and the reader's deadlines as .ics.
    With the game's list headers; ``again``: a copy mailed back on request
    (HISTORY), an answer to that mail, not a post to the whole game. The
    map's files are named ``file`` (the game's :meth:`map_file`), by
    default ``map-<turn>``."""
    file = file or f"map-{turn}"
    files = [(svg.encode("utf-8"), "image/svg+xml", f"{file}.svg", {})]
    if calendar is not None:
        files.append((calendar, MIME, FILENAME, {"method": "PUBLISH"}))
    return compose_report(
        sender=app.config.server.address,
        to=to,
        subject=subject,
        domain=app.domain,
        when=when,
        reply_to=reply_to,
        text=text,
        html=html,
        inline=(png, "<map@pbem>", f"{file}.png"),
        files=files,
        auto="auto-replied" if again else "auto-generated",
        extra=lists.list_headers(app, game, to, observer=observer, precedence=not again),
        thread=lists.thread_root(app, game),
    )
