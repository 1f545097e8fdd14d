"""A game's section of a mail: first who writes it (a player, the game
master, an observer, or someone else), then that sender's steps, in the
order they run (``STEPS``). A step that settles the section returns
``Done`` with the game's part of the receipt (None: no receipt for it) and
whether anything was stored; the steps after it do not run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from adjudicator.base import OrderMode
from pbem.app import App
from pbem.commands import REGISTRY, Command, GameContext, GameReply, Section, Use, Who, Worker
from pbem.commands.observing import no_such_game
from pbem.mail import bounces, credentials, lists
from pbem.mail.credentials import Credentials
from pbem.mail.ontime import counted_early, overdue, too_late
from pbem.mail.parse import ParsedMail
from pbem.store import InboxRow
from pbem.turns.deadlines import dated
from pbem.turns.localtime import local
from pbem.words import say

PRESENT = "# a mail came"  # a submission without orders: the player was there


@dataclass(frozen=True)
class Done:
    """The section is settled."""

    reply: GameReply | None
    changed: bool = False


@dataclass
class Part:
    """A section on its way: the game's context for its commands, the
    lines, and the credentials the mail carries."""

    ctx: GameContext
    section: Section
    creds: Credentials


Step = Callable[[Part], "Done | None"]


def run(
    app: App,
    conn: Connection,
    worker: Worker,
    row: InboxRow,
    mail: ParsedMail,
    now: datetime,
    section: Section,
    creds: Credentials,
) -> tuple[GameReply | None, bool]:
    """The section's part of the receipt, and whether anything was stored."""
    name = section.game or ""
    game_row = worker.game(conn, name)
    cfg = app.game_config(name)
    if game_row is None or cfg is None:
        return no_such_game(app.config.server.address, name), False
    engine = app.engine(game_row.kind)
    ctx = GameContext(
        app,
        conn,
        worker,
        REGISTRY,
        mail,
        row,
        now,
        game=name,
        cfg=cfg,
        game_row=game_row,
        engine=engine,
        reply=GameReply(name, title=engine.title),
    )
    part = Part(ctx, section, creds)
    ctx.who = who_writes(part)
    for step in STEPS[ctx.who]:
        done = step(part)
        if done is not None:
            return done.reply, done.changed
    return ctx.reply, ctx.changed


def who_writes(p: Part) -> Who:
    """A player of the game; else its master, from the master's address;
    else an observer, if the section holds only what observers may ask;
    else anyone (a stranger, or someone using a player's credentials)."""
    ctx, cfg = p.ctx, p.ctx.cfg
    seats = p.creds.players
    ctx.player = next((s for s in seats if s.game == ctx.game and s.status == "active"), None)
    if ctx.player is not None:
        return Who.PLAYER
    if cfg.master_email and ctx.sender.lower() == cfg.master_email.lower():
        return Who.MASTER
    commands = p.section.commands
    if commands and all(_command(c).allows(Who.OBSERVER) for _, c, _ in commands):
        watching = {e.lower() for e in lists.observers(ctx.app, ctx.conn, ctx.game)}
        if ctx.sender.lower() in watching:
            return Who.OBSERVER
    return Who.ANYONE


def _command(name: str) -> Command:
    command = REGISTRY.get(name)
    assert command is not None, name  # the parser finds only registered commands
    return command


def in_time(p: Part, line: int) -> bool:
    """Whether the mail has time left for ``line``; else it is not read,
    and the sender is told (pbem/mail/budget.py)."""
    if p.creds.budget.over():
        p.creds.budget.skip(line)
        return False
    return True


def refused(p: Part, why: str) -> Done:
    p.ctx.reply.error = why
    return Done(p.ctx.reply)


# -- someone who is no player, master or observer of the game -----------------------------


def credentials_elsewhere(p: Part) -> Done | None:
    """Right credentials, wrong address: the owner is told, nothing is
    applied and the sender gets no receipt for the game. Else: not a player."""
    ctx = p.ctx
    everyone = ctx.app.store.players(ctx.conn, ctx.game)
    owner = next(
        (s for s in everyone if credentials.token_ok(ctx, p.creds, s)), None
    ) or credentials.password_owner(ctx, p.creds, everyone)
    if owner is None and ctx.cfg.visibility == "private":  # to a stranger, no such game
        return Done(no_such_game(ctx.app.config.server.address, ctx.game))
    if owner is None:
        return refused(
            p, f"{ctx.sender} is not a player of {ctx.game}. Observers can write WATCH {ctx.game}."
        )
    ctx.app.queue(
        ctx.conn,
        "alert",
        owner.email,
        f"Your credentials for {ctx.game} were used",
        "credentials_elsewhere",
        {"game": ctx.game, "player": owner, "sender": ctx.sender, "received": ctx.now.isoformat()},
        auto="auto-generated",
        game=ctx.game,
        proven=False,  # caused by a mail from another address: never the owner's own replies
    )
    return Done(None)


# -- the game master -------------------------------------------------------------------------


def master_relay_verified(p: Part) -> Done | None:
    """The sender's domain signed the mail, where that is required."""
    why = credentials.sender_refused(p.ctx, p.creds)
    return None if why is None else refused(p, why)


def master_password(p: Part) -> Done | None:
    """The master password, from the master's address (always checked:
    the check is a comparison, not a slow hash)."""
    if credentials.master_password_ok(p.ctx, p.creds):
        p.ctx.reply.proven = True
        return None
    return refused(
        p,
        "nothing was applied: the game master's password is missing or wrong "
        "(a line PASSWORD <password>, as in games.yaml)",
    )


def orders_are_for_players(p: Part) -> Done | None:
    if p.section.orders:
        p.ctx.say(
            "order lines are for players; the game master's commands are: "
            + ", ".join(REGISTRY.for_master())
        )
    return None


def no_commands(p: Part) -> Done | None:
    if not p.section.commands:
        p.ctx.say("no commands found (send HELP for the list)")
    return None


# -- a player ----------------------------------------------------------------------------------


def relay_verified(p: Part) -> Done | None:
    """The sender's domain signed the mail, where that is required (the
    trusted relay's verdict, or our own DKIM check)."""
    why = credentials.sender_refused(p.ctx, p.creds)
    return None if why is None else refused(p, why)


def player_credentials(p: Part) -> Done | None:
    """A reply address of the player's, or the player's password."""
    ctx, seat, unchecked = p.ctx, p.ctx.me, p.creds.budget.unchecked
    if credentials.token_ok(ctx, p.creds, seat) or credentials.password_ok(ctx, p.creds, seat):
        ctx.reply.proven = True
        return None
    if p.creds.budget.unchecked > unchecked:  # not wrong: not checked, for want of budget
        return refused(p, credentials.UNCHECKED)
    credentials.count_failure(ctx, seat)
    return refused(
        p,
        "nothing was applied: the password is missing or wrong. Put a "
        "line PASSWORD <your password> in the mail, or reply to a mail "
        "from this server.",
    )


def game_is_on(p: Part) -> Done | None:
    """The game has started and is not over; its position, read."""
    ctx = p.ctx
    if ctx.game_row.status == "forming":
        seated = len(ctx.app.store.players(ctx.conn, ctx.game))
        waiting = (
            f"{ctx.game} has not started yet: {seated} of {ctx.cfg.seats} players have joined, "
            "and it starts when every seat is taken."
        )
        return before_the_start(p, waiting)
    ctx.state = ctx.worker.state(ctx.engine, ctx.game, ctx.game_row.state)
    ctx.turn, ctx.phase = ctx.engine.phase(ctx.state)
    ctx.reply.phase = ctx.phase
    if ctx.game_row.status == "finished" or ctx.engine.outcome(ctx.state) is not None:
        return refused(p, "the game is over")
    return None


def before_the_start(p: Part, waiting: str) -> Done:
    """A game still waiting for its players: only the commands that count
    before the start (PREFERENCE) run; without one the section is refused."""
    ctx, section = p.ctx, p.section
    early = [c for c in section.commands if _command(c[1]).forming]
    if not early:
        return refused(p, waiting)
    for number, name, arg in early:
        handler = _command(name).handler
        if handler is not None and in_time(p, number):
            handler(ctx, Use(number, name, arg))
    if section.orders or section.press or len(early) < len(section.commands):
        names = sorted({name for _, name, _ in early})
        ctx.say(f"{waiting} Until then only {', '.join(names)} counts: the rest was not read.")
    return Done(ctx.reply, ctx.changed)


def master_words_are_orders(p: Part) -> Done | None:
    """The game master's commands, from a player, are order lines after
    all (a game's own orders may start with such a word: "remove F Kiel").
    A word the game declares its own (``order_words``) is an order of the
    game too, and the host's command runs as well (STATUS answers at once;
    the order asks the game for its situation report at the next tick)."""
    section, master_only = p.section, REGISTRY.master_only
    words = master_only | {w.upper() for w in p.ctx.engine.order_words}
    for number, command, arg in [c for c in section.commands if c[1] in words]:
        section.orders.append((number, f"{command} {arg}".strip()))
    section.orders.sort()
    section.commands = [c for c in section.commands if c[1] not in master_only]
    return None


def on_time(p: Part) -> Done | None:
    """Orders (and READY) count only from mail received during the turn;
    in a game that runs on a clock, nothing is too late: orders run at the
    next tick."""
    ctx = p.ctx
    if ctx.engine.clock_ticks:
        return None
    late = too_late(ctx.game_row, ctx.arrival, ctx.phase, ctx.worker.settled_at(ctx.game_row))
    counts = p.section.orders or any(_command(c).on_time for _, c, _ in p.section.commands)
    if late and counts:
        return refused(p, late)
    early = counted_early(ctx.game_row, ctx.arrival, ctx.phase)
    if early and counts:
        ctx.reply.notices.append(early)
    return None


def standing_orders(p: Part) -> Done | None:
    """The player's orders of the turn before this mail."""
    ctx, store = p.ctx, p.ctx.app.store
    received = ctx.engine.order_mode is OrderMode.RECEIVED
    ctx.reply.received = received
    ctx.reply.ticks = ctx.engine.clock_ticks
    if received:  # each mail adds orders; the stored texts are canonical
        queue = store.submission_queue(ctx.conn, ctx.game, ctx.turn, ctx.me.name)
        texts = [text for _, text, _ in queue.get(ctx.me.name, [])]
        ctx.previous = [t for text in texts for t in text.splitlines() if not t.startswith("#")]
        ctx.standing_orders = ()
    else:
        previous = store.current_submission(ctx.conn, ctx.game, ctx.turn, ctx.me.name)
        sheet = (
            ctx.worker.read_previous(ctx.engine, ctx.state, ctx.game, ctx.me.name, previous[1])
            if previous and previous[1]
            else None
        )
        ctx.standing_orders = sheet.orders if sheet else ()
        ctx.previous = [o.canonical() for o in ctx.standing_orders]
    ctx.standing = ctx.previous
    return None


def commands_before_orders(p: Part) -> Done | None:
    """Commands that act before the mail's orders (CLEAR), once each."""
    done: set[str] = set()
    for number, name, arg in p.section.commands:
        command = _command(name)
        if command.before_orders and not in_time(p, number):
            continue
        if command.before_orders and command.allows(Who.PLAYER) and name not in done:
            done.add(name)
            assert command.handler is not None
            command.handler(p.ctx, Use(number, name, arg))
    return None


def read_orders(p: Part) -> Done | None:
    """The mail's order lines, read by the game: accepted, refused and
    noticed; what is read is stored."""
    ctx, orders = p.ctx, p.section.orders
    cleared = [n for n, name, _ in p.section.commands if name == "CLEAR" and in_time(p, n)]
    if cleared and ctx.who is Who.PLAYER:  # CLEAR withdraws the lines above it too
        above = [n for n, _ in orders if n < max(cleared)]
        if above:
            shown = f"line {above[0]}" if len(above) == 1 else f"lines {above[0]} to {above[-1]}"
            ctx.say(f"{shown}: withdrawn by the CLEAR on line {max(cleared)}")
        orders = [(n, text) for n, text in orders if n > max(cleared)]
    if not orders or not [n for n, _ in orders if in_time(p, n)]:  # each noted if not read
        return None
    text_lines = [""] * max(n for n, _ in orders)
    for n, text in orders:
        text_lines[n - 1] = text
    sheet = ctx.engine.read_orders(ctx.state, ctx.me.name, "\n".join(text_lines), seq=ctx.row.id)
    answer(ctx, sheet)
    new_lines = [o.canonical() for o in sheet.orders]
    if not new_lines:
        ctx.reply.kept_previous = bool(ctx.previous)
        return None
    ctx.app.store.add_submission(
        ctx.conn,
        ctx.game,
        ctx.turn,
        ctx.me.name,
        ctx.row.id,
        "\n".join(new_lines),
        ctx.arrival.at,
    )
    ctx.changed = True
    if ctx.reply.received:  # added after the earlier ones
        ctx.reply.added = new_lines
        ctx.standing = ctx.previous + new_lines
    else:  # instead of the earlier ones
        ctx.reply.replaced = True
        ctx.reply.added = [t for t in new_lines if t not in ctx.previous]
        ctx.reply.removed = [t for t in ctx.previous if t not in new_lines]
        ctx.standing = new_lines
        ctx.standing_orders = sheet.orders
    return None


def answer(ctx: GameContext, sheet: Any) -> None:
    """Each order line's answer: understood (canonical), refused (why,
    with suggestions), or understood with a notice."""
    game, reply = ctx.engine.name, ctx.reply
    for o in sheet.orders:
        reply.accepted.append({"line": o.line, "text": o.canonical()})
    for problem in sheet.problems:
        reply.refused.append(
            {
                "line": problem.line,
                "text": problem.text,
                "why": say(game, "problems", problem.reason, dict(problem.facts)),
                "suggestions": list(problem.suggestions),
            }
        )
    zone = ctx.me.timezone or ctx.cfg.timezone
    for n in sheet.warnings:
        said = say(game, "notices", n.reason, dated(n.facts, ctx.game_row, ctx.cfg, zone))
        reply.notices.append(f"line {n.line}: {said}")


def presence(p: Part) -> Done | None:
    """In a game with absence rules, any mail from a player counts as
    being there."""
    ctx = p.ctx
    if ctx.reply.received and ctx.engine.tracks_presence and not ctx.reply.added:
        ctx.app.store.add_submission(
            ctx.conn, ctx.game, ctx.turn, ctx.me.name, ctx.row.id, PRESENT, ctx.arrival.at
        )
        ctx.changed = True
    return None


def holding(p: Part) -> Done | None:
    """The orders in force after this mail, and the units that will hold."""
    ctx = p.ctx
    ctx.reply.standing = ctx.standing
    defaults = ctx.engine.default_orders(ctx.state, ctx.me.name, ctx.standing_orders)
    ctx.reply.holding = [o.canonical() for o in defaults]
    return None


def run_commands(p: Part) -> Done | None:
    """The section's commands, in order, for whoever writes; a command
    this sender may not use is answered so."""
    ctx = p.ctx
    for number, name, arg in p.section.commands:
        command = _command(name)
        if command.handler is None or not command.allows(ctx.who):
            ctx.say(f"line {number}: {name} is not available here")
        elif not command.before_orders and in_time(p, number):  # those ran before the orders
            command.handler(ctx, Use(number, name, arg))
    return None


def run_press(p: Part) -> Done | None:
    """The section's press, after its commands."""
    for number, name, to, body in p.section.press:
        press = _command(name)
        assert press.handler is not None
        if in_time(p, number):
            press.handler(p.ctx, Use(number, press.name, to, tuple(body)))
    return None


def deadline(p: Part) -> Done | None:
    """The deadline, in the player's time zone; once passed, when the turn
    resolves and whether this mail counts for it (ontime.overdue)."""
    ctx, row, zone = p.ctx, p.ctx.game_row, p.ctx.me.timezone or p.ctx.cfg.timezone
    if row.deadline is not None and row.status == "running":
        ctx.reply.deadline = local(row.deadline, zone)
        if row.deadline <= ctx.now:
            came, settled = ctx.arrival, ctx.worker.settled_at(row)
            ticks, orders = ctx.engine.clock_ticks, bool(ctx.reply.accepted)
            ctx.reply.deadline = overdue(row, came, ctx.phase, settled, zone, ticks, orders)
    elif row.status == "paused":
        ctx.reply.deadline = "none while the game is paused"
    return None


STEPS: dict[Who, tuple[Step, ...]] = {
    Who.ANYONE: (credentials_elsewhere,),
    Who.OBSERVER: (run_commands,),
    Who.MASTER: (
        master_relay_verified,
        master_password,
        bounces.back_in_reach,
        orders_are_for_players,
        run_commands,
        no_commands,
    ),
    Who.PLAYER: (
        relay_verified,
        player_credentials,
        bounces.back_in_reach,
        game_is_on,
        master_words_are_orders,
        on_time,
        standing_orders,
        commands_before_orders,
        read_orders,
        presence,
        holding,
        run_commands,
        run_press,
        deadline,
    ),
}
