"""CALENDAR: the deadlines of one's games, mailed as a calendar file.

The calendar goes to the mail's From address, never elsewhere, and holds
the deadlines of the games that address plays, watches or masters (the
same calendar its turn reports carry; pbem/mail/calendar.py). A forged
From therefore shows nobody else's games to the forger: the mail goes to
the address's owner, and counts toward that address's daily cap on
replies like any answer.

``CALENDAR game ...`` asks for named games instead: any public game's
deadline is public (LIST shows the phase of each game, the deadline is the
game's cron), but a private game's only to those who sit in it or watch
it; to anyone else a private game is answered as a name no game has
(pbem/commands/observing.py).
"""

from __future__ import annotations

from pbem.commands.context import Context
from pbem.commands.observing import hidden, unknown
from pbem.commands.registry import Family, Use, Where, Who
from pbem.mail.calendar import FILENAME, MIME, Deadline, Deadlines, calendar
from pbem.turns.localtime import local
from pbem.words import plural

family = Family("calendar")


@family.command(
    "CALENDAR",
    who=Who.ANYONE,
    where=Where.SERVER,
    args="[game ...]",
    help="mail the deadlines of your games as a calendar file (.ics)",
    doc="mail the deadlines of every game you play, watch or master as a calendar file "
    f"(`{FILENAME}`, for any calendar program; a newer one updates the same events); "
    "`CALENDAR game ...`: those games' deadlines (a private game's: only for its "
    "players and observers)",
    usage="`CALENDAR [game ...]`",
)
def calendar_command(ctx: Context, use: Use) -> None:
    deadlines = Deadlines(ctx.app, ctx.conn)
    names = [w.lower() for w in use.arg.replace(",", " ").split()]
    if names:
        chosen, refused = _named(ctx, deadlines, names)
        ctx.say(*(f"line {use.line}: CALENDAR {why}" for why in refused))
    else:
        chosen = deadlines.of(ctx.sender)
        if not chosen:
            ctx.say(
                f"line {use.line}: CALENDAR: {ctx.sender} plays, watches or masters no game "
                "with a deadline running; CALENDAR <game> gives a public game's deadline"
            )
    if chosen:
        _mail(ctx, chosen)
        ctx.say(
            f"line {use.line}: CALENDAR: {FILENAME} with {plural(len(chosen), 'deadline')} "
            f"({', '.join(d.game for d in chosen)}) is on its way to {ctx.sender}"
        )
        ctx.changed = True


def _named(
    ctx: Context, deadlines: Deadlines, names: list[str]
) -> tuple[list[Deadline], list[str]]:
    """The deadlines of the games named, and why any is left out."""
    chosen: list[Deadline] = []
    refused: list[str] = []
    for name in dict.fromkeys(names):
        game = deadlines.named(name)
        if game is not None and not hidden(ctx, name):
            chosen.append(deadlines.deadline(game))
        else:
            refused.append(f"{name}: {_why_not(ctx, name)}")
    return chosen, refused


def _why_not(ctx: Context, name: str) -> str:
    """Why a named game has no deadline to give."""
    row = ctx.app.store.game(ctx.conn, name)
    cfg = ctx.app.game_config(name)
    if row is None or cfg is None or hidden(ctx, name):
        return unknown(name)
    if row.status == "forming":
        return "the game has not started: its first deadline comes when it does"
    if row.status == "finished":
        return "the game is over"
    return "the game runs on a clock: orders are never due, so it has no deadline"


def _mail(ctx: Context, chosen: list[Deadline]) -> None:
    """Queue the calendar to the sender, with its deadlines in words."""
    app = ctx.app
    zones = {p.game: p.timezone for p in app.store.players_by_email(ctx.conn, ctx.sender)}
    lines = []
    for d in sorted(chosen, key=lambda d: (d.at, d.game)):
        when = local(d.at, zones.get(d.game) or d.zone)
        lines.append(
            f"{d.game} ({d.title}): no deadline for {d.phase} now ({d.cancelled}; it was {when})"
            if d.cancelled
            else f"{d.game} ({d.title}): orders for {d.phase} due {when}"
        )
    ics = calendar(chosen, domain=app.domain, now=ctx.now)
    app.queue(
        ctx.conn,
        "calendar",
        ctx.sender,
        "[pbem] your deadlines",
        "calendar",
        {"deadlines": lines, "filename": FILENAME},
        attachments=[(ics, MIME, FILENAME)],
        auto="auto-replied",
        proven=ctx.proven,
        cause=len(ctx.row.raw),
    )
