"""What a game master can do, by mail (from the master address in
games.yaml, with the master password) and from the command line
(`pbem master GAME ...`). Each function works in the caller's write
transaction and returns what it did, in words for the reply.

- pause: the clock stops; no deadline, no reminders, no turn.
- resume: the clock runs again; the deadline is the next cron time, at
  least half a turn away if the old deadline passed during the pause.
- extend DURATION: the deadline moves later (a paused game: the deadline
  it will get back is not affected; extend after resuming).
- adjudicate: the turn is resolved now (by the worker, right after the
  mail's transaction commits; the CLI resolves it itself).
- replace PLAYER WITH EMAIL: someone new takes the seat: same name in the
  game, new address, new password; the old address is told.
- remove PLAYER: the player leaves the game as by RESIGN.
- end: the game ends now, with the standings as they are.
"""

from __future__ import annotations

import re
from datetime import datetime

from sqlalchemy import Connection

from pbem import auth
from pbem.app import App
from pbem.config import EMAIL, GameConfig, parse_duration
from pbem.store import GameRow
from pbem.turns import next_deadline


class MasterError(ValueError):
    """A command the game master cannot give now; the message says why."""


def _game(app: App, conn: Connection, name: str) -> tuple[GameRow, GameConfig]:
    row = app.store.game(conn, name)
    cfg = app.game_config(name)
    if row is None or cfg is None:
        raise MasterError(f"there is no game called {name!r}")
    if row.status == "finished":
        raise MasterError(f"{name} is over")
    return row, cfg


def pause(app: App, conn: Connection, name: str) -> str:
    row, _ = _game(app, conn, name)
    if row.status != "running":
        raise MasterError(f"{name} is {row.status}, not running")
    app.store.set_game(conn, name, status="paused")
    return f"{name} is paused: no deadline runs until RESUME"


def resume(app: App, conn: Connection, name: str) -> str:
    row, cfg = _game(app, conn, name)
    if row.status != "paused":
        raise MasterError(f"{name} is {row.status}, not paused")
    now = app.clock.now()
    deadline = row.deadline
    if deadline is None or deadline <= now:
        deadline = next_deadline(cfg, now, deadline)
    app.store.set_game(conn, name, status="running", deadline=deadline, reminded_for=None)
    return f"{name} runs again; the deadline is {deadline:%Y-%m-%d %H:%M} UTC"


def extend(app: App, conn: Connection, name: str, how_long: str) -> str:
    row, _ = _game(app, conn, name)
    delta = parse_duration(how_long)
    if not delta:
        raise MasterError(f"EXTEND needs a duration such as 12h or 2d, not {how_long!r}")
    if row.deadline is None:
        raise MasterError(f"{name} has no deadline to extend")
    deadline = max(row.deadline, app.clock.now()) + delta
    app.store.set_game(conn, name, deadline=deadline, reminded_for=None)
    return f"the deadline of {name} is now {deadline:%Y-%m-%d %H:%M} UTC"


def check_adjudicate(app: App, conn: Connection, name: str) -> int:
    """The turn to resolve now (raises if the game cannot run one)."""
    row, _ = _game(app, conn, name)
    if row.status != "running":
        raise MasterError(f"{name} is {row.status}: RESUME it first")
    return row.turn


def replace(app: App, conn: Connection, name: str, player: str, email: str) -> str:
    _game(app, conn, name)
    if not EMAIL.match(email) or re.search(r"[\s<>]", email):
        raise MasterError(f"{email!r} is not an email address")
    seat = _seat(app, conn, name, player)
    if any(p.email.lower() == email.lower() for p in app.store.players(conn, name)):
        raise MasterError(f"{email} has a seat in {name} already")
    password = auth.new_password()
    app.store.set_player(
        conn,
        seat.id,
        email=email,
        password_hash=auth.hash_password(password),
        token_version=seat.token_version + 1,
        missed=0,
    )
    fresh = next(p for p in app.store.players(conn, name) if p.id == seat.id)
    cfg = app.game_config(name)
    assert cfg is not None
    engine = app.engine(cfg.game)
    app.queue(
        conn,
        "password",
        email,
        f"Your password for {name}",
        "password",
        {
            "game": cfg,
            "player": fresh,
            "password": password,
            "title": engine.title,
            "address": app.game_address(name),
            "reply_address": app.reply_address(fresh),
            "waiting": 0,
        },
        auto="auto-generated",
    )
    app.queue(
        conn,
        "alert",
        seat.email,
        f"You have been replaced in {name}",
        "alert",
        {
            "subject": f"You have been replaced in {name}",
            "text": f"The game master gave your seat ({seat.name}) to another player. "
            "Your password and reply addresses no longer work. Thank you for playing.",
            "game": name,
        },
        auto="auto-generated",
    )
    return f"{email} now plays {seat.name} in {name}; a password is on its way"


def remove(app: App, conn: Connection, name: str, player: str) -> str:
    row, cfg = _game(app, conn, name)
    seat = _seat(app, conn, name, player)
    engine = app.engine(row.kind)
    state = engine.remove_player(engine.load_state(row.state), seat.name)
    app.store.set_player(conn, seat.id, status="removed")
    app.store.set_game_state(conn, name, engine.dump_state(state))
    if engine.outcome(state) is not None:
        finish(app, conn, name, "every other player has left")
    return f"{seat.name} is out of {name}"


def end(app: App, conn: Connection, name: str, why: str = "ended by the game master") -> str:
    _game(app, conn, name)
    finish(app, conn, name, why)
    return f"{name} is over"


def finish(app: App, conn: Connection, name: str, why: str) -> None:
    """The game ends outside a turn: everyone is told, with the standings."""
    row = app.store.game(conn, name)
    cfg = app.game_config(name)
    assert row is not None and cfg is not None
    engine = app.engine(row.kind)
    state = engine.load_state(row.state)
    now: datetime = app.clock.now()
    if engine.outcome(state) is None and hasattr(engine, "end_now"):
        state = engine.end_now(state)  # a game that scores: the scores as they stand
        app.store.set_game_state(conn, name, engine.dump_state(state))
    outcome = engine.outcome(state)
    if outcome is not None and getattr(engine, "scoreboard", False):
        seated = app.store.players(conn, name)
        app.store.add_scores(
            conn, name, [(p.email, p.name, outcome.scores.get(p.name, 0)) for p in seated], now
        )
    app.store.set_game(conn, name, status="finished", finished_at=now, deadline=None)
    view = engine.view(state, None)
    lines = [f"{name} ({engine.title}) is over: {why}."]
    if outcome is not None:
        lines.append(f"Winners: {', '.join(outcome.winners) or 'nobody'}.")
    lines.append("")
    lines.append("Final standings:")
    for s in view.standings:
        measures = ", ".join(f"{k} {v}" for k, v in s.measures)
        lines.append(
            f"  {s.player:<14} {measures}" + ("" if s.status == "active" else f" ({s.status})")
        )
    lines.append("")
    lines.append(
        f"The game stays readable for {cfg.keep.days} days: HISTORY {name} [turn] mails "
        "back any report."
    )
    to = [p.email for p in app.store.players(conn, name) if p.status == "active"]
    to += list(cfg.observers) + app.store.watchers(conn, name)
    if cfg.master_email:
        to.append(cfg.master_email)
    for email in sorted(set(to), key=str.lower):
        app.queue(
            conn,
            "report",
            email,
            f"[{name}] game over",
            "alert",
            {"subject": f"{name} is over", "text": "\n".join(lines), "game": name},
            auto="auto-generated",
        )


def _seat(app: App, conn: Connection, name: str, player: str):  # noqa: ANN202
    for p in app.store.players(conn, name):
        if p.name.lower() == player.lower() and p.status == "active":
            return p
    raise MasterError(f"no active player called {player!r} in {name}")


def status(app: App, conn: Connection, name: str) -> list[str]:
    """The game as the master sees it: deadline, who has sent orders, READY,
    missed turns."""
    row = app.store.game(conn, name)
    if row is None:
        raise MasterError(f"there is no game called {name!r}")
    sent = app.store.submissions_for(conn, name, row.turn, None)
    ready = app.store.ready_players(conn, name, row.turn)
    engine = app.engine(row.kind)
    phase = engine.phase(engine.load_state(row.state))[1] if row.state else "not started"
    deadline = f"{row.deadline:%Y-%m-%d %H:%M} UTC" if row.deadline else "none"
    out = [f"{name}: {phase}, {row.status}, deadline {deadline}"]
    for p in app.store.players(conn, name):
        flags = []
        if p.name in sent:
            flags.append("orders in")
        if p.name in ready:
            flags.append("READY")
        out.append(
            f"  {p.name:<14} {p.email:<28} {p.status:<8} missed {p.missed}"
            + (f"  ({', '.join(flags)})" if flags else "")
        )
    return out
