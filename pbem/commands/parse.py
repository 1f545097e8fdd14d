"""Reading a mail's lines into sections, commands and order lines.

A mail is read into sections: lines before any GAME line belong to the game
the mail was addressed to (or, to the server's own address, to no game);
``GAME name`` starts a section for that game. Lines that do not start with
a command's name are the game's orders.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pbem.commands.registry import Command, Registry, Where


@dataclass
class Section:
    """The lines of a mail for one game (or for none)."""

    game: str | None
    line: int = 0  # where the section starts (0: from the top)
    orders: list[tuple[int, str]] = field(default_factory=list)
    commands: list[tuple[int, str, str]] = field(default_factory=list)  # line, NAME, argument
    # line, command (PRESS, BROADCAST), to, text
    press: list[tuple[int, str, str, list[str]]] = field(default_factory=list)


# What one mail may hold; no player comes near. What lies beyond is not
# read, and the sender is told which lines and why (ReadMail.unread).
MAX_LINES = 200  # command and order lines (a PRESS and its text count one)
MAX_PASSWORDS = 3  # PASSWORD lines, and the subject's password if there is room
MAX_GAMES = 5  # games named (GAME lines, and commands that name a game)

LINES_CAP = f"a mail is read up to its {MAX_LINES}th command or order line"
PASSWORDS_CAP = f"at most {MAX_PASSWORDS} passwords are read from a mail (the subject's counts)"
GAMES_CAP = f"a mail may name at most {MAX_GAMES} games"


@dataclass
class ReadMail:
    sections: dict[str | None, Section]
    passwords: list[str]
    server_commands: list[tuple[int, str, str]]
    # lines not read, over a cap: (first, last, why)
    unread: list[tuple[int, int, str]] = field(default_factory=list)


_END_BODY = ("ENDPRESS", "END PRESS")


def read_commands(
    registry: Registry,
    lines: list[tuple[int, str]],
    default_game: str | None,
    is_game: Callable[[str], bool] = lambda name: True,
) -> ReadMail:
    """Sort a mail's kept lines into sections, commands and order lines,
    no further than the caps above (a name that ``is_game`` says is no game
    is not counted among the games: ``HISTORY S1901M`` names a phase)."""
    sections: dict[str | None, Section] = {default_game: Section(default_game)}
    current = sections[default_game]
    passwords: list[str] = []
    server_commands: list[tuple[int, str, str]] = []
    unread: list[tuple[int, int, str]] = []
    body: tuple[int, str, str, list[str]] | None = None
    read = 0
    for number, line in lines:
        if body is not None:
            if line.strip().upper() in _END_BODY:
                current.press.append(body)
                body = None
            else:
                body[3].append(line)
            continue
        if not line.strip() or line.strip().startswith("#"):
            continue
        read += 1
        found = registry.match(line)
        named = {g for g in _game_named(found, sections) if g in (None, default_game) or is_game(g)}
        why = LINES_CAP if read > MAX_LINES else GAMES_CAP if len(named) > MAX_GAMES + 1 else ""
        if why:
            last = next(n for n, text in reversed(lines) if text.strip())
            unread.append((number, last, why))
            break
        if found is None:
            current.orders.append((number, line))
            continue
        command, arg = found
        name = command.name
        if name == "GAME":
            key = arg.lower() or None
            current = sections.setdefault(key, Section(key, number))
        elif name == "PASSWORD":
            if len(passwords) >= MAX_PASSWORDS:
                unread.append((number, number, PASSWORDS_CAP))
            elif arg:
                passwords.append(arg.split()[0])
        elif command.where is Where.MAIL:
            continue  # ORDERS: the lines that follow are orders, as any line
        elif command.body:
            body = (number, name, arg, [])
        elif command.where is Where.SERVER:
            server_commands.append((number, name, arg))
        elif command.game_in is not None and (named := command.game_in(arg)) is not None:
            key, rest = named
            sections.setdefault(key, Section(key, number)).commands.append((number, name, rest))
        else:
            current.commands.append((number, name, arg))
    if body is not None:  # no ENDPRESS: the press runs to the end of the mail
        current.press.append(body)
    return ReadMail(sections, passwords, server_commands, unread)


def _game_named(
    found: tuple[Command, str] | None, sections: dict[str | None, Section]
) -> set[str | None]:
    """The games of the mail so far, with the one this line names."""
    if found is None:
        return set(sections)
    command, arg = found
    if command.name == "GAME":
        return {*sections, arg.lower() or None}
    if command.game_in is not None and (named := command.game_in(arg)) is not None:
        return {*sections, named[0]}
    return set(sections)


def subject_password(subject: str) -> str | None:
    m = re.search(r"\bpassword\s*[:=]?\s*(\S+)", subject, re.I)
    return m[1] if m else None
