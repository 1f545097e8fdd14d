"""Commands about the turn and its orders: STATUS, READY, CLEAR, HISTORY.
(The order lines themselves are read in pbem/mail/section.py.)"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Connection

from adjudicator.base import Game
from pbem import anonymous
from pbem.app import App
from pbem.commands import master_status
from pbem.commands.context import GameContext
from pbem.commands.parse import Section
from pbem.commands.registry import Family, Use, Who
from pbem.lifecycle.seats import with_seat
from pbem.mail.calendar import calendar_of
from pbem.reports import compact_options, report_mail
from pbem.store import GameRow
from pbem.words import plural, wrap

family = Family("orders")


def _status_game(arg: str) -> tuple[str, str] | None:
    """STATUS game: the status of that game, from any address."""
    return (arg.lower(), "") if arg else None


@family.command(
    "STATUS",
    who=(Who.PLAYER, Who.MASTER),
    args="[game]",
    help="the position and your current orders",
    game_in=_status_game,
    cli="`status`",
    master_doc="the deadline, who has sent orders or READY and who still owes them, missed turns",
)
def status(ctx: GameContext, use: Use) -> None:
    if ctx.who is Who.MASTER:
        ctx.reply.status = master_status.status(ctx.app, ctx.conn, ctx.game)
    else:
        hide = anonymous.hides(ctx.cfg, ctx.engine, ctx.state)
        ctx.reply.status = status_lines(ctx.engine, ctx.state, ctx.me.name, hide)


@family.command(
    "READY",
    who=Who.PLAYER,
    help="your orders are final for this turn",
    doc="your orders are final for this turn; in a game with `early: true` the turn runs "
    "once every player still in the game is READY",
    on_time=True,
)
def ready(ctx: GameContext, use: Use) -> None:
    ctx.app.store.set_ready(ctx.conn, ctx.game, ctx.turn, ctx.me.name)
    ctx.say(f"line {use.line}: READY noted for {ctx.phase}")
    if ctx.cfg.early:
        ctx.worker.turn_requests.add(ctx.game)  # the worker checks once this commits
    ctx.changed = True


@family.command(
    "CLEAR",
    who=Who.PLAYER,
    help="withdraw your orders of this turn sent before it: in earlier mails, and above it "
    "in this one",
    before_orders=True,
)
def clear(ctx: GameContext, use: Use) -> None:
    if ctx.previous:
        ctx.app.store.add_submission(
            ctx.conn, ctx.game, ctx.turn, ctx.me.name, ctx.row.id, "", ctx.arrival.at
        )
        ctx.say(f"line {use.line}: your earlier orders for {ctx.phase} are withdrawn")
        ctx.changed = True
    else:
        ctx.say(f"line {use.line}: there were no orders from earlier mails to withdraw")
    ctx.previous, ctx.standing, ctx.standing_orders = [], [], ()


def _history_game(arg: str) -> tuple[str, str] | None:
    """HISTORY game [phase]: a word that is no number names the game."""
    if not arg or arg.split()[0].isdigit():
        return None
    game, _, phase = arg.lower().partition(" ")
    return game, phase.strip()


@family.command(
    "HISTORY",
    who=(Who.PLAYER, Who.OBSERVER, Who.MASTER),
    args="[game] [phase]",
    help="mail back a phase's report (tick 3, S1901M; the last by default)",
    doc="mail back a phase's report, as you got it, the phase named as the game does "
    "(`HISTORY tick 3`, `HISTORY dip S1901M`; the last by default); observers too",
    game_in=_history_game,
    cli="`pbem report GAME [--turn N]`",
    master_doc="your full copy of a report",
)
def history(ctx: GameContext, use: Use) -> None:
    """HISTORY [phase]: the reader's own copy of a kept report, mailed
    again. The phase is named as the game names it (``tick 3``,
    ``S1901M``, ``turn 2``) or by its number; none: the last."""
    if ctx.who is Who.MASTER:
        ctx.say(mail_report(ctx, use, "", ctx.cfg.master_email or "", None))
        return
    if ctx.who is Who.OBSERVER:
        ctx.say(mail_report(ctx, use, ctx.sender.lower(), ctx.sender, None))
    else:
        ctx.say(mail_report(ctx, use, ctx.me.name, ctx.me.email, ctx.app.reply_address(ctx.me)))
    ctx.changed = True


def mail_report(ctx: GameContext, use: Use, reader: str, email: str, reply_to: str | None) -> str:
    """Queue the reader's copy of the report HISTORY names; what was done."""
    app, conn, game, now = ctx.app, ctx.conn, ctx.game, ctx.now
    row = app.store.game(conn, game)
    if row is not None and row.finished_at is not None and now - row.finished_at > ctx.cfg.keep:
        return f"line {use.line}: {game} ended more than {plural(ctx.cfg.keep.days, 'day')} ago"
    phases = kept_phases(app, conn, game, row, reader)
    turn = None
    if use.arg.strip():
        turn = phase_turn(use.arg, phases)
        taken = {r.turn: r for r in app.store.rollbacks_of(conn, game)}
        back = phase_turn(use.arg, {t: r.phase for t, r in taken.items() if t not in phases})
        if turn is None and back is not None:
            return (
                f"line {use.line}: the report of {taken[back].phase} was withdrawn: the game "
                f"master rolled the phase back at {taken[back].at:%Y-%m-%d %H:%M} UTC, and it "
                "is being played again"
            )
        if turn is None:
            kept = f"reports kept: {', '.join(phases.values())}" if phases else ""
            return (
                f"line {use.line}: {game} has no report of a phase called {use.arg.strip()!r}"
                + (f" ({kept})" if phases else " (no report is kept yet)")
            )
    found = app.store.report(conn, game, reader, turn)
    if found is None:
        return (
            f"line {use.line}: no report"
            + (f" of {phases.get(turn, turn)}" if turn else "")
            + (" for you" if turn and phases else "")
            + (" yet" if not phases else "")
        )
    # the deadlines as they stand now, as a report of a game on a clock has none
    ics = None if ctx.engine.clock_ticks else calendar_of(app, conn, email, now)
    message_id, raw = report_mail(
        app,
        email,
        found.subject + " (again)",
        found.text,
        found.html,
        found.svg,
        found.png,
        ics,
        now,
        reply_to,
        found.turn,
        game=game,
        observer=ctx.who is Who.OBSERVER,
        again=True,
        file=ctx.engine.map_file(found.turn, phases.get(found.turn, "")),
    )
    app.store.queue_mail(conn, "history", email, message_id, raw, now, None)
    said = f"line {use.line}: the report of {phases.get(found.turn, found.turn)} is on its way"
    if any(r.turn == found.turn for r in app.store.rollbacks_of(conn, game)):
        said += " (the report that stands: an earlier one was withdrawn when the game master "
        said += "rolled the phase back)"
    return said


def kept_phases(
    app: App, conn: Connection, game: str, row: GameRow | None, reader: str
) -> dict[int, str]:
    """The phases of ``game`` with a report kept for ``reader``: turn -> the
    game's name for the phase (``tick 3``, ``S1901M``). Only the reader's
    own: in a game that mails only those a tick concerns, which ticks
    mailed others is not theirs to know."""
    if row is None:
        return {}
    kept = set(app.store.report_turns(conn, game, reader))
    phases = app.store.turn_phases(conn, game)
    return {turn: phase for turn, phase in phases.items() if turn in kept}


def _phase_words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def phase_turn(wanted: str, phases: dict[int, str]) -> int | None:
    """The turn a HISTORY argument names: the phase as the game names it
    (any case and spacing; ``turn 2`` for Implosion's ``turn 2 of 10``), or
    its number."""
    words = _phase_words(wanted)
    if not words:
        return None
    if len(words) == 1 and words[0].isdigit() and int(words[0]) in phases:
        return int(words[0])
    for turn, name in phases.items():
        have = _phase_words(name)
        if "".join(words) == "".join(have) or have[: len(words)] == words:
            return turn
    return None


def fold_history(sections: dict[str | None, Section], default: str | None, is_game: Any) -> None:
    """``HISTORY tick 3`` or ``HISTORY S1901M`` in a mail to a game's
    address names a phase of that game, not a game called "tick": such a
    section (HISTORY lines only, under a word that is no game) goes back to
    the game the mail was addressed to, with its word as the phase."""
    if default is None or default not in sections:
        return
    for key in [k for k in sections if k is not None and k != default and not is_game(k)]:
        section = sections[key]
        if section.orders or section.press or section.line == 0:
            continue
        if not section.commands or any(c != "HISTORY" for _, c, _ in section.commands):
            continue
        for number, command, arg in section.commands:
            sections[default].commands.append((number, command, f"{key} {arg}".strip()))
        del sections[key]


def status_lines(engine: Game, state: Any, player: str, hide: bool = False) -> list[str]:
    """STATUS for a player: the standings, the player's units and what
    each may do (in a gunboat game, the others by their seats alone)."""
    view = anonymous.view_of(engine, state, player, hide)
    lines = [f"{view.phase}: you play {with_seat(engine, state, player)}"]
    shown = engine.masked(state) if hide else state
    for row in view.standings:
        measures = ", ".join(f"{k} {v}" for k, v in row.measures)
        lines.append(
            f"  {with_seat(engine, shown, row.player):<20} {measures}"
            + ("" if row.status == "active" else f" ({row.status})")
        )
    units = sorted(view.options)
    if units:
        lines.append(f"Your {engine.pieces}: {', '.join(units)}")
    for unit, options in view.options.items():  # what each may do: its connections
        lines.append(wrap(f"  {unit}: {compact_options(unit, options)}", hang="      "))
    return lines + engine.status_lines(state, player)
