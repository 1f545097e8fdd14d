"""The mail's own words: how a mail is laid out (GAME, PASSWORD, ORDERS,
END) and HELP. The parser (pbem/commands/__init__.py) reads GAME, PASSWORD
and ORDERS itself; mailparse stops reading a mail at a line END."""

from __future__ import annotations

from pbem.commands.context import Context
from pbem.commands.registry import Family, Use, Where, Who
from pbem.version import version

family = Family("mail")


@family.command(
    "HELP",
    who=Who.ANYONE,
    where=Where.SERVER,
    help="this list of commands",
    doc="the list of commands, and the version of pbem the server runs",
)
def help_(ctx: Context, use: Use) -> None:
    """The list of commands, once a mail (it fits the size of any reply,
    pbem/mail/replycap.py ALLOWANCE)."""
    if ("HELP", "") in ctx.asked:
        ctx.say(f"line {use.line}: HELP: the list of commands is above (once a mail)")
        return
    ctx.asked.add(("HELP", ""))
    ctx.say(*ctx.registry.help_lines(), "", f"This server runs pbem {version()}.")


family.declare(
    "GAME",
    who=Who.ANYONE,
    args="name",
    help="the lines that follow are for game NAME",
    doc="the lines that follow are for that game",
    where=Where.MAIL,
)
family.declare(
    "PASSWORD",
    who=Who.ANYONE,
    args="secret",
    help="your password (not needed in a reply to our mail)",
    doc="your password",
    where=Where.MAIL,
)
family.declare(
    "ORDERS",
    who=Who.ANYONE,
    help="the lines that follow are orders (the default)",
    where=Where.MAIL,
)
# a line END ends the mail's reading (mailparse); END with more words after
# it is no such line, and is answered as a command nobody may use here
family.declare(
    "END", who=(), help="ignore everything below this line", doc="ignore everything below"
)
