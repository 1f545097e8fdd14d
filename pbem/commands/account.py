"""A player's own seat: a new reply address, the time zone deadlines are
shown in, leaving the game for good."""

from __future__ import annotations

import re
from dataclasses import replace
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.commands import master
from pbem.commands.context import GameContext
from pbem.commands.registry import Family, Use, Who

family = Family("account")


@family.command("RESIGN", who=Who.PLAYER, help="leave the game for good")
def resign(ctx: GameContext, use: Use) -> None:
    master.remove(ctx.app, ctx.conn, ctx.game, ctx.me.name, resigned=True)
    ctx.worker.forget()
    ctx.say(f"line {use.line}: you have resigned from {ctx.game}")
    ctx.changed = True


@family.command("NEW TOKEN", who=Who.PLAYER, help="a new reply address; older ones stop working")
def new_token(ctx: GameContext, use: Use) -> None:
    ctx.app.store.bump_token(ctx.conn, ctx.me.id)
    ctx.worker.forget()
    ctx.say(f"line {use.line}: new reply address made; replies to older mail no longer work")
    ctx.reply.new_token = True  # the receipt's Reply-To: the new one
    ctx.changed = True


@family.command(
    "SET TIMEZONE",
    who=Who.PLAYER,
    args="Area/City",
    help="show deadlines in this time zone",
    doc="show deadlines in that time zone (receipts, reminders, reports)",
)
def set_timezone(ctx: GameContext, use: Use) -> None:
    zone = _zone(use.arg)
    if zone is None:
        ctx.say(
            f"line {use.line}: {use.arg!r} is not a time zone; write it as Area/City, "
            "for example SET TIMEZONE Europe/Oslo"
        )
        return
    ctx.app.store.set_player(ctx.conn, ctx.me.id, timezone=zone)
    ctx.worker.forget()
    ctx.player = replace(ctx.me, timezone=zone)  # the receipt's deadline: in the new zone
    ctx.say(f"line {use.line}: deadlines are shown in {zone} now")
    ctx.changed = True


def _zone(text: str) -> str | None:
    """A time zone's key, or None if it is not one."""
    name = text.strip().split()[0] if text.strip() else ""
    if not re.fullmatch(r"[A-Za-z_]+(/[A-Za-z0-9_+-]+)*", name):
        return None
    try:
        return ZoneInfo(name).key
    except (ZoneInfoNotFoundError, ValueError):
        return None
