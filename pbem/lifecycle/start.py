"""Starting a game: every seat is taken, the engine sets up the board, the
first deadline is set and every player is mailed the start mail."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from adjudicator.base import Game
from pbem import anonymous
from pbem.app import App
from pbem.config import GameConfig
from pbem.lifecycle.choosing import explain, fixed_seats
from pbem.lifecycle.seats import seat_of, with_seat
from pbem.mail.calendar import FILENAME, MIME, calendar_of
from pbem.mapdraw import picture, to_png
from pbem.paths import read_bytes, rules_root
from pbem.reports import compact_options
from pbem.store import GameRow, PlayerRow
from pbem.turns.deadlines import cron_after, first_deadline
from pbem.turns.localtime import local
from pbem.words import plural


def start_game(app: App, conn: Connection, cfg: GameConfig) -> None:
    """Every seat is taken: the game starts, players in the order they were
    seated, and each is mailed the start mail."""
    engine = app.engine(cfg.game)
    row = app.store.game(conn, cfg.name)
    assert row is not None
    seated = [p for p in app.store.players(conn, cfg.name) if p.status == "active"]
    wishes = {p.name: p.wishes for p in seated if p.wishes}
    state = first_state(engine, cfg, [p.name for p in seated], row.seed, wishes)
    text = engine.dump_state(state)
    now = app.clock.now()
    deadline = first_deadline(cfg, now, engine.phase_kind(state))
    app.store.set_game(
        conn,
        cfg.name,
        state=text,
        status="running",
        turn=engine.phase(state)[0],
        deadline=deadline,
        turn_started_at=now,
    )
    app.store.start_turn(conn, cfg.name, engine.phase(state)[0], text, now)
    seats = {p.name: engine.seat(state, p.name) or "" for p in seated}
    fixed = fixed_seats(cfg, seats)
    for p in seated:
        wish = explain(p.name, wishes, fixed, seats)
        start_mail(app, conn, cfg, engine, state, p, seated, deadline, wish)


def first_state(
    engine: Game,
    cfg: GameConfig,
    names: Sequence[str],
    seed: int,
    wishes: Mapping[str, Sequence[str]] | None = None,
) -> Any:
    """The game's first state: its scenario's position (``position`` in
    games.yaml, checked when the configuration was read), or the board
    set up on its map for ``names`` in seat order, with the seats the game
    master gave (``power:``) and the players' wishes (stored from
    PREFERENCE and games.yaml's ``preferences:``; by default games.yaml's)."""
    if cfg.position:
        return engine.load_position(Path(cfg.position).read_text(encoding="utf-8"))
    if wishes is None:
        wishes = {p.name: p.preferences for p in cfg.players if p.preferences}
    fixed = fixed_seats(cfg, names)
    wishes = {n: tuple(w) for n, w in wishes.items() if n in names and n not in fixed and w}
    board = board_of(engine, cfg)
    return engine.start_seated(board, list(names), cfg.options, seed, fixed, wishes)


def board_of(engine: Game, cfg: GameConfig) -> Any:
    """The game's map, loaded (a shipped one by name, else its file)."""
    source = cfg.map if cfg.map in engine.maps() else Path(cfg.map).read_text(encoding="utf-8")
    return engine.load_map(source)


def start_mail(
    app: App,
    conn: Connection,
    cfg: GameConfig,
    engine: Game,
    state: Any,
    p: PlayerRow,
    seated: Sequence[PlayerRow],
    deadline: Any,
    wish: str | None = None,
    *,
    taking_over: bool = False,
    paused: bool = False,
) -> None:
    """What a player needs on the first day: the game, the power or colour
    they play (and, if they ranked the powers, how the choice went), the
    first deadline in their own time zone, the orders their units may give
    with two examples, the rules guide and the map. The same for a player
    who takes over a seat in a game under way (the game master's REPLACE):
    the phase being played and its deadline (none while the game is
    paused)."""
    hide = anonymous.hides(cfg, engine, state)  # gunboat: the others by their seats alone
    view = anonymous.view_of(engine, state, p.name, hide)
    png = to_png(picture(engine.name, view, ()))
    attachments = [(png, "image/png", f"{engine.start_map_file(state)}.png")]
    guide = rules_guide(engine.name)
    if guide is not None:
        attachments.append((guide, "text/plain", f"rules-{engine.name}.txt"))
    # the deadlines of all the player's games, this one's first among them
    ics = None if engine.clock_ticks else calendar_of(app, conn, p.email, app.clock.now())
    if ics is not None:
        attachments.append((ics, MIME, FILENAME))
    app.queue(
        conn,
        "started",
        p.email,
        f"[{cfg.name}] "
        + ("you take over " if taking_over else "the game starts: you play ")
        + with_seat(engine, state, p.name),
        "started",
        {
            "game": cfg,
            "title": engine.title,
            "you": with_seat(engine, state, p.name),
            "seat": seat_of(engine, state, p.name),
            "wish": wish,
            "players": [
                (seat_of(engine, state, x.name) or x.name)
                if hide
                else with_seat(engine, state, x.name)
                for x in seated
            ],
            "address": app.game_address(cfg.name),
            "phase": engine.phase(state)[1],
            "deadline": local(deadline, p.timezone or cfg.timezone),
            "options": [(u, compact_options(u, o)) for u, o in view.options.items()],
            "board": view.board,  # what the player sees (for the game's own start lines)
            "examples": order_examples(
                view.options, lambda o: not engine.read_orders(state, p.name, o).problems
            ),
            "guide": guide is not None,
            "calendar": FILENAME if ics else None,
            "kind": engine.name,
            "pieces": engine.pieces,
            "forms": engine.order_forms(state, p.name),
            "without_orders": engine.without_orders,
            "ticks": engine.clock_ticks,
            "tick": tick_length(cfg, deadline),
            "taking_over": taking_over,
            "paused": paused,
        },
        reply_to=app.reply_address(p),
        auto="auto-generated",
        attachments=attachments,
        game=cfg.name,
    )


def take_over_mail(app: App, conn: Connection, cfg: GameConfig, row: GameRow, p: PlayerRow) -> bool:
    """The start mail of a seat, for the player who takes it over in a
    game under way (REPLACE); False if the game has not started."""
    if not row.state or row.status not in ("running", "paused"):
        return False
    engine = app.engine(cfg.game)
    state = engine.load_state(row.state)
    seated = [x for x in app.store.players(conn, cfg.name) if x.status == "active"]
    paused = row.status == "paused"
    start_mail(
        app, conn, cfg, engine, state, p, seated, row.deadline, taking_over=True, paused=paused
    )
    return True


def tick_length(cfg: GameConfig, deadline: Any) -> str:
    """The time between two deadlines, in words ("15 minutes", "2 hours"):
    a clock tick's length."""
    minutes = int((cron_after(cfg, deadline) - deadline).total_seconds()) // 60
    if minutes % 60 == 0:
        return plural(minutes // 60, "hour")
    return plural(minutes, "minute")


def order_examples(
    options: Mapping[str, Sequence[str]], valid: Any = lambda order: True
) -> list[str]:
    """Two orders the player's own units may give: preferably a unit doing
    something other than holding, with two different kinds of order. Only
    options the game reads as orders (``valid``): some games describe a
    unit's options ("-> any state") rather than list them."""
    flat = [o for opts in options.values() for o in opts if valid(o)]
    moving = [o for o in flat if not re.search(r"\bholds?$|^hold\b", o, re.I)]
    picked: list[str] = []
    for o in moving + flat:
        verb = o.split()[1:2] if len(o.split()) > 1 else o.split()[:1]
        if o in picked or any(x.split()[1:2] == verb for x in picked):
            continue
        picked.append(o)
        if len(picked) == 2:
            break
    for o in flat:  # one kind of order only: two of them
        if len(picked) < 2 and o not in picked:
            picked.append(o)
    return picked


def rules_guide(game: str) -> bytes | None:
    """docs/rules/<game>.md, the guide for players (installed as the
    package data of pbem.rules; None for a game with no guide)."""
    return read_bytes(rules_root(), f"{game}.md")
