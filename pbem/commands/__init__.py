"""Mail commands: one a line, case-insensitive, the game's orders between
them. Each is declared once, in the module of its family, with its name
and aliases, who may use it, what it takes, its one-line help and its
handler (pbem/commands/registry.py says what a declaration holds).

To add a command: write its handler in the module of its family, under
``@family.command(NAME, who=..., help=...)``. HELP, the parser, the
master-only list, the refusal for someone who may not use it and the
tables of docs/mail.md (``python -m pbem.commands`` prints them) follow.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.commands import (
    account,
    calendar,
    confirm,
    lobby,
    master,
    orders,
    preference,
    press,
    rollback,  # noqa: F401  (declares ROLLBACK in the master's family)
    signin,
    syntax,
)
from pbem.commands.context import Context, GameContext, GameReply, Worker
from pbem.commands.parse import MAX_PASSWORDS, PASSWORDS_CAP, ReadMail, Section, subject_password
from pbem.commands.parse import read_commands as _read_commands
from pbem.commands.registry import Command, Registry, Use, Where, Who

# The families, in the order HELP lists them.
REGISTRY = Registry(
    (
        syntax.family,
        lobby.family,
        confirm.family,
        preference.family,
        orders.family,
        account.family,
        calendar.family,
        signin.family,
        press.family,
        master.family,
    )
)


def read_commands(
    lines: list[tuple[int, str]],
    default_game: str | None,
    is_game: Callable[[str], bool] = lambda name: True,
) -> ReadMail:
    """Sort a mail's kept lines into sections, commands and order lines."""
    return _read_commands(REGISTRY, lines, default_game, is_game)


__all__ = [
    "MAX_PASSWORDS",
    "PASSWORDS_CAP",
    "REGISTRY",
    "Command",
    "Context",
    "GameContext",
    "GameReply",
    "ReadMail",
    "Registry",
    "Section",
    "Use",
    "Where",
    "Who",
    "Worker",
    "read_commands",
    "subject_password",
]
