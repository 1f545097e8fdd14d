"""What a game master can do, by mail (from the master address in
games.yaml, with the master password) and from the command line
(`pbem master GAME ...`): pause, resume, extend, set the deadline, adjudicate, replace,
remove, end, status. Each function works in the caller's write transaction
and returns what it did, in words for the reply. Every player (and the
player the command is about) is mailed what the game master did, with the
deadline as it now is, in their own time zone. EXTEND on a paused game
does not move the deadline it gets back; ADJUDICATE by mail is run by the
worker right after the mail's transaction commits (the CLI runs it
itself). The mail commands of this family are declared at the end."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import Connection

from pbem import anonymous
from pbem.app import App
from pbem.commands import confirm
from pbem.commands.confirm import Verdict
from pbem.commands.context import Context, GameContext
from pbem.commands.registry import Family, Use, Who
from pbem.config import EMAIL, GameConfig, parse_duration
from pbem.lifecycle.ending import ENDED_BY_MASTER, finish
from pbem.lifecycle.seats import password_mail
from pbem.lifecycle.start import take_over_mail
from pbem.mail import auth
from pbem.store import GameRow
from pbem.turns.deadlines import next_deadline
from pbem.turns.localtime import local, read_time
from pbem.words import plural


class MasterError(ValueError):
    """A command the game master cannot give now; the message says why."""


def game_of(app: App, conn: Connection, name: str) -> tuple[GameRow, GameConfig]:
    row = app.store.game(conn, name)
    cfg = app.game_config(name)
    if row is None or cfg is None:
        raise MasterError(f"there is no game called {name!r}")
    if row.status == "finished":
        raise MasterError(f"{name} is over")
    return row, cfg


def pause(app: App, conn: Connection, name: str) -> str:
    row, _ = game_of(app, conn, name)
    if row.status != "running":
        raise MasterError(f"{name} is {row.status}, not running")
    app.store.set_game(conn, name, status="paused")
    tell_players(
        app,
        conn,
        name,
        "the game is paused",
        f"The game master has paused {name}. No deadline runs until the game resumes; "
        "you will be told the new deadline then. Orders you send meanwhile are recorded.",
        deadline=False,
    )
    return f"{name} is paused: no deadline runs until RESUME"


def resume(app: App, conn: Connection, name: str) -> str:
    row, cfg = game_of(app, conn, name)
    if row.status != "paused":
        raise MasterError(f"{name} is {row.status}, not paused")
    now = app.clock.now()
    deadline = row.deadline
    if deadline is None or deadline <= now:  # the phase's own length, or its cron
        engine = app.engine(row.kind)
        kind = engine.phase_kind(engine.load_state(row.state))
        deadline = next_deadline(cfg, now, deadline, kind=kind)
    app.store.set_game(conn, name, status="running", deadline=deadline, reminded_for=None)
    tell_players(app, conn, name, "the game runs again", f"The game master has resumed {name}.")
    return f"{name} runs again; the deadline is {_when(deadline, cfg)}"


def extend(app: App, conn: Connection, name: str, how_long: str) -> str:
    row, cfg = game_of(app, conn, name)
    if how_long.strip().startswith("-"):
        raise MasterError(
            "EXTEND only moves the deadline later; to bring it forward, set the time: "
            f"DEADLINE {_example(app)}"
        )
    delta = parse_duration(how_long)
    if not delta:
        raise MasterError(
            f"EXTEND needs a duration such as 12h or 2d, not {how_long!r}; "
            f"to set the deadline to a time: DEADLINE {_example(app)}"
        )
    if row.deadline is None:
        raise MasterError(f"{name} has no deadline to extend")
    deadline = max(row.deadline, app.clock.now()) + delta
    app.store.set_game(conn, name, deadline=deadline, reminded_for=None)
    tell_players(
        app,
        conn,
        name,
        "the deadline is extended",
        f"The game master has extended the deadline of {name} by {_duration(delta)}.",
    )
    return f"the deadline of {name} is now {_when(deadline, cfg)}"


def set_deadline(app: App, conn: Connection, name: str, text: str) -> str:
    """DEADLINE: the deadline is the time given (the game's time zone
    unless it names one), later or earlier than it was, never past."""
    row, cfg = game_of(app, conn, name)
    if row.deadline is None:
        raise MasterError(f"{name} has no deadline to set ({row.status})")
    try:
        deadline = read_time(text, cfg.timezone)
    except ValueError as exc:
        raise MasterError(str(exc)) from None
    now = app.clock.now()
    if deadline <= now:
        raise MasterError(
            f"{_when(deadline, cfg)} has passed: it is now {_when(now, cfg)}, and the "
            f"deadline is {_when(row.deadline, cfg)}. A deadline can be brought forward, "
            "never into the past"
        )
    if deadline == row.deadline:
        return f"the deadline of {name} is {_when(deadline, cfg)} already; nothing changed"
    earlier = deadline < row.deadline
    app.store.set_game(conn, name, deadline=deadline, reminded_for=None)
    tell_players(
        app,
        conn,
        name,
        "the deadline is earlier" if earlier else "the deadline is later",
        f"The game master has brought the deadline of {name} forward: orders are due "
        "earlier than you were told."
        if earlier
        else f"The game master has moved the deadline of {name} later.",
    )
    paused = (
        " (the game is paused: RESUME gives it this deadline)" if row.status == "paused" else ""
    )
    return f"the deadline of {name} is now {_when(deadline, cfg)}{paused}"


def _example(app: App) -> str:
    """A DEADLINE for tomorrow at 18:00, as an example."""
    return f"{app.clock.now() + timedelta(days=1):%Y-%m-%d} 18:00"


def _when(deadline: datetime, cfg: GameConfig) -> str:
    """A deadline as the game master reads it: the game's time zone, and UTC."""
    return f"{local(deadline, cfg.timezone)}, {deadline:%H:%M} UTC"


def check_adjudicate(app: App, conn: Connection, name: str) -> int:
    """The turn to resolve now (raises if the game cannot run one)."""
    row, _ = game_of(app, conn, name)
    if row.status != "running":
        raise MasterError(f"{name} is {row.status}: RESUME it first")
    return row.turn


def replace(app: App, conn: Connection, name: str, player: str, email: str) -> str:
    row, cfg = game_of(app, conn, name)
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
    who = anonymous.shown_in(app, cfg, row, seat.name)
    password_mail(app, conn, cfg, fresh, password, app.engine(cfg.game).title, 0)
    started = take_over_mail(app, conn, cfg, row, fresh)
    tell_players(
        app,
        conn,
        name,
        f"{who} has a new player",
        f"The game master has given the seat of {who} in {name} to a new player, "
        "who plays on under the same name.",
        skip=(seat.id,),
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
        game=name,
    )
    return f"{email} now plays {seat.name} in {name}; a password is on its way" + (
        ", and the start mail of the seat" if started else ""
    )


def remove(app: App, conn: Connection, name: str, player: str, resigned: bool = False) -> str:
    """The player leaves the game (the game master's REMOVE, or the
    player's own RESIGN); the others are told, and a removed player too."""
    row, cfg = game_of(app, conn, name)
    seat = _seat(app, conn, name, player)
    engine = app.engine(row.kind)
    state = engine.remove_player(engine.load_state(row.state), seat.name)
    app.store.set_player(conn, seat.id, status="removed")
    app.store.set_game_state(conn, name, engine.dump_state(state))
    how = "has resigned from" if resigned else "has been removed from"
    who = anonymous.shown_in(app, cfg, row, seat.name)
    if not resigned:
        app.queue(
            conn,
            "alert",
            seat.email,
            f"[{name}] you have been removed from the game",
            "alert",
            {
                "subject": f"You have been removed from {name}",
                "text": f"The game master has taken you ({seat.name}) out of {name}. "
                "Your password and reply addresses no longer count there. "
                "Thank you for playing.",
                "game": name,
            },
            auto="auto-generated",
            game=name,
        )
    if engine.outcome(state) is not None:
        finish(app, conn, name, "every other player has left")
    else:
        tell_players(
            app,
            conn,
            name,
            f"{who} {how} the game",
            f"{who} {how} {name}; the game goes on without them.",
        )
    return f"{seat.name} is out of {name}"


def end(app: App, conn: Connection, name: str, why: str = ENDED_BY_MASTER) -> str:
    game_of(app, conn, name)
    finish(app, conn, name, why)
    return f"{name} is over"


def tell_players(
    app: App,
    conn: Connection,
    name: str,
    subject: str,
    text: str,
    *,
    deadline: bool = True,
    skip: tuple[int, ...] = (),
) -> None:
    """Mail every active player of ``name`` what the game master did, with
    the deadline as it now is in the player's own time zone."""
    row = app.store.game(conn, name)
    cfg = app.game_config(name)
    assert row is not None and cfg is not None
    for p in app.store.players(conn, name):
        if p.status != "active" or p.id in skip:
            continue
        when = None
        if deadline and row.status == "running" and row.deadline is not None:
            when = local(row.deadline, p.timezone or cfg.timezone)
        app.queue(
            conn,
            "notice",
            p.email,
            f"[{name}] {subject}",
            "notice",
            {"game": name, "text": text, "deadline": when, "paused": row.status == "paused"},
            reply_to=app.reply_address(p),
            auto="auto-generated",
            game=name,
        )


def _duration(delta: timedelta) -> str:
    days, seconds = delta.days, delta.seconds
    parts = []
    if days:
        parts.append(plural(days, "day"))
    if seconds // 3600:
        parts.append(plural(seconds // 3600, "hour"))
    if seconds % 3600 // 60:
        parts.append(plural(seconds % 3600 // 60, "minute"))
    return " ".join(parts) or "no time"


def _seat(app: App, conn: Connection, name: str, player: str):  # noqa: ANN202
    for p in app.store.players(conn, name):
        if p.name.lower() == player.lower() and p.status == "active":
            return p
    raise MasterError(f"no active player called {player!r} in {name}")


# -- by mail -------------------------------------------------------------------------

family = Family("master")


def action(
    name: str, *, help: str, doc: str, cli: str, args: str = "", usage: str = ""
) -> Callable[[Callable[[GameContext, Use], str]], Callable[[GameContext, Use], str]]:
    """Declare a game master's command: a function that does it and says
    what it did, or raises MasterError to say why not."""

    def declare(act: Callable[[GameContext, Use], str]) -> Callable[[GameContext, Use], str]:
        def run(ctx: GameContext, use: Use) -> None:
            try:
                text = act(ctx, use)
            except MasterError as exc:
                ctx.say(f"line {use.line}: {use.name}: {exc}")
                return
            ctx.worker.forget()
            ctx.changed = True
            ctx.say(f"line {use.line}: {text}")

        family.declare(
            name,
            who=Who.MASTER,
            help="game master: " + help,
            doc=doc,
            cli=cli,
            args=args,
            usage=usage,
            handler=run,
        )
        return act

    return declare


@action(
    "PAUSE",
    help="stop the clock",
    cli="`pause`",
    doc="the clock stops: no deadline, no reminders, no turn",
)
def _pause(ctx: GameContext, use: Use) -> str:
    return pause(ctx.app, ctx.conn, ctx.game)


@action(
    "RESUME",
    help="start the clock again",
    cli="`resume`",
    doc="the clock runs again; if the deadline passed during the pause, the next cron time "
    "at least half a turn away",
)
def _resume(ctx: GameContext, use: Use) -> str:
    return resume(ctx.app, ctx.conn, ctx.game)


@action(
    "EXTEND",
    args="duration",
    help="move the deadline later (12h, 2d)",
    usage="`EXTEND 12h`",
    cli="`extend 12h`",
    doc="the deadline moves later (from now, if it has passed); DEADLINE sets a time",
)
def _extend(ctx: GameContext, use: Use) -> str:
    return extend(ctx.app, ctx.conn, ctx.game, use.arg)


@action(
    "DEADLINE",
    args="time",
    help="set the deadline to a time, later or earlier (2026-11-29 18:00)",
    usage="`DEADLINE 2026-11-29 18:00`",
    cli="`deadline 2026-11-29 18:00`",
    doc="the deadline is that time, in the game's time zone (or with one: `UTC`, "
    "`+01:00`, `America/New_York`; `2026-11-29T18:00` too); earlier than it was, too, "
    "never before now",
)
def _deadline(ctx: GameContext, use: Use) -> str:
    return set_deadline(ctx.app, ctx.conn, ctx.game, use.arg)


@action(
    "ADJUDICATE",
    help="resolve the turn now",
    cli="`adjudicate`",
    doc="the turn is resolved now, with the orders in so far",
)
def _adjudicate(ctx: GameContext, use: Use) -> str:
    turn = check_adjudicate(ctx.app, ctx.conn, ctx.game)
    ctx.worker.forced.append((ctx.game, turn))  # the worker runs it once this commits
    return f"the turn of {ctx.game} is resolved now; the reports follow"


@action(
    "REPLACE",
    args="name WITH email",
    help="give a seat to someone new",
    usage="`REPLACE ann WITH new@example.org`",
    cli="`replace ann new@example.org`",
    doc="someone new takes the seat (same name in the game): a new password goes out, then "
    "the start mail of the seat (what it plays, the position, the deadline, how to write "
    "orders, the map); the old address is told, old passwords and reply addresses stop "
    "working",
)
def _replace(ctx: GameContext, use: Use) -> str:
    m = re.fullmatch(r"(\S+)\s+(?:with|by|->)\s+(\S+)", use.arg, re.I)
    if m is None:
        raise MasterError("write REPLACE <player> WITH <email>")
    return replace(ctx.app, ctx.conn, ctx.game, m[1], m[2])


@action(
    "REMOVE",
    args="name",
    help="take a player out of the game",
    usage="`REMOVE ann`",
    cli="`remove ann`",
    doc="the player leaves, as by RESIGN",
)
def _remove(ctx: GameContext, use: Use) -> str:
    return remove(ctx.app, ctx.conn, ctx.game, use.arg.split()[0] if use.arg else "")


END_PLAN = (
    "end {game} at once, for everyone: no more turns; every player, every observer and "
    "you are mailed the final standings, and nobody wins (a game with a scoreboard is "
    "scored as it stands). This cannot be undone: a finished game never runs again, "
    "not even by RESUME, and its players cannot send orders in it."
)


def _end_check(ctx: Context, game: str) -> Verdict:
    """END GAME, asked: a game that can end waits for the game master to
    confirm it from the master address."""
    try:
        game_of(ctx.app, ctx.conn, game)
    except MasterError as exc:
        return Verdict(game, f"END GAME: {exc}")
    text = f"END GAME {game}"
    return Verdict(game, None, text, text, END_PLAN.format(game=game))


def _end_confirmed(ctx: Context, game: str) -> str:
    """END GAME, confirmed by a reply from the game's master address."""
    cfg = ctx.app.game_config(game)
    if cfg is None or (cfg.master_email or "").lower() != ctx.sender.lower():
        return f"END GAME {game}: only its game master ends a game; nothing was done"
    try:
        done = end(ctx.app, ctx.conn, game)
    except MasterError as exc:
        return f"END GAME {game}: {exc}; nothing was done"
    ctx.worker.forget()
    ctx.changed = True
    return f"END GAME {game}: {done}; everyone is mailed the final standings"


confirm.confirmable("END GAME", _end_check, _end_confirmed)


@family.command(
    "END GAME",
    who=Who.MASTER,
    help="game master: end the game now, once you confirm",
    cli="`end` (asks; `--yes` does not)",
    doc="the game ends now, once you confirm by replying to the mail that asks (it cannot "
    "be undone); everyone is mailed the final standings (a game with a scoreboard is "
    "scored as it stands)",
)
def _end(ctx: GameContext, use: Use) -> None:
    verdict = _end_check(ctx, ctx.game)
    if verdict.answer is not None:
        ctx.say(f"line {use.line}: {verdict.answer}")
        return
    ctx.say(*confirm.ask_by_mail(ctx, [confirm.Pending(use.line, verdict)]))
    ctx.changed = True
