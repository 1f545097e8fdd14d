"""Mail commands: one a line, case-insensitive, the game's orders between
them. The table below is the whole list; HELP is written from it.

A mail is read into sections: lines before any GAME line belong to the game
the mail was addressed to (or, to the server's own address, to no game);
``GAME name`` starts a section for that game. Lines that are not commands
are the game's orders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Command:
    name: str
    args: str  # what follows the name, for HELP
    scope: str  # "mail" (any section), "game" (a game section), "server" (no game needed)
    description: str


COMMANDS: tuple[Command, ...] = (
    Command("HELP", "", "server", "this list of commands"),
    Command("LIST", "", "server", "the games on this server and their state"),
    Command("RANK", "", "server", "the scoreboard: players with points, best first"),
    Command("GAME", "name", "mail", "the lines that follow are for game NAME"),
    Command("PASSWORD", "secret", "mail", "your password (not needed in a reply to our mail)"),
    Command("ORDERS", "", "game", "the lines that follow are orders (the default)"),
    Command("STATUS", "[game]", "game", "the position and your current orders"),
    Command("READY", "", "game", "your orders are final for this turn"),
    Command("RESIGN", "", "game", "leave the game for good"),
    Command("CLEAR", "", "game", "withdraw your orders of this turn (before this mail's own)"),
    Command(
        "PRESS",
        "ALL | name,name [ANON]",
        "game",
        "the lines that follow, up to ENDPRESS, go to those players (ANON: unsigned)",
    ),
    Command("NEW TOKEN", "", "game", "a new reply address; older ones stop working"),
    Command("SET TIMEZONE", "Area/City", "game", "show deadlines in this time zone"),
    Command(
        "HISTORY",
        "[game] [phase]",
        "game",
        "mail back a phase's report (tick 3, S1901M; the last by default)",
    ),
    Command("PAUSE", "", "game", "game master: stop the clock"),
    Command("RESUME", "", "game", "game master: start the clock again"),
    Command("EXTEND", "duration", "game", "game master: move the deadline later (12h, 2d)"),
    Command("ADJUDICATE", "", "game", "game master: resolve the turn now"),
    Command("REPLACE", "name WITH email", "game", "game master: give a seat to someone new"),
    Command("REMOVE", "name", "game", "game master: take a player out of the game"),
    Command("END GAME", "", "game", "game master: end the game now"),
    Command("JOIN", "game", "server", "join a game that is open for players"),
    Command("LEAVE", "game", "server", "give up your seat in a game that has not started"),
    Command("REACT", "game text", "server", "spectators: a short reaction to everyone in it"),
    Command("WATCH", "game", "server", "receive the game's turn reports as an observer"),
    Command("UNWATCH", "game", "server", "stop receiving them"),
    Command("END", "", "mail", "ignore everything below this line"),
)

_NAMES = sorted((c.name for c in COMMANDS), key=len, reverse=True)
_COMMAND = re.compile(
    r"^\s*(" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in _NAMES) + r")\b\s*(.*)$",
    re.I,
)


@dataclass
class Section:
    """The lines of a mail for one game (or for none)."""

    game: str | None
    line: int = 0  # where the section starts (0: from the top)
    orders: list[tuple[int, str]] = field(default_factory=list)
    commands: list[tuple[int, str, str]] = field(default_factory=list)  # line, NAME, argument
    press: list[tuple[int, str, list[str]]] = field(default_factory=list)  # line, to, text


@dataclass
class ReadMail:
    sections: dict[str | None, Section]
    passwords: list[str]
    server_commands: list[tuple[int, str, str]]


def read_commands(lines: list[tuple[int, str]], default_game: str | None) -> ReadMail:
    """Sort a mail's kept lines into sections, commands and order lines."""
    sections: dict[str | None, Section] = {default_game: Section(default_game)}
    current = sections[default_game]
    passwords: list[str] = []
    server_commands: list[tuple[int, str, str]] = []
    press: tuple[int, str, list[str]] | None = None
    for number, line in lines:
        if press is not None:
            if line.strip().upper() in ("ENDPRESS", "END PRESS"):
                current.press.append(press)
                press = None
            else:
                press[2].append(line)
            continue
        if not line.strip() or line.strip().startswith("#"):
            continue
        m = _COMMAND.match(line)
        if m is None:
            current.orders.append((number, line))
            continue
        name = " ".join(m[1].upper().split())
        arg = m[2].strip()
        if name == "GAME":
            key = arg.lower() or None
            current = sections.setdefault(key, Section(key, number))
        elif name == "PASSWORD":
            if arg:
                passwords.append(arg.split()[0])
        elif name == "PRESS":
            press = (number, arg, [])
        elif name in ("HELP", "LIST", "RANK", "JOIN", "LEAVE", "WATCH", "UNWATCH", "REACT"):
            server_commands.append((number, name, arg))
        elif name == "STATUS" and arg:
            key = arg.lower()
            sections.setdefault(key, Section(key, number)).commands.append((number, name, ""))
        elif name == "HISTORY" and arg and not arg.split()[0].isdigit():
            key, _, turn = arg.lower().partition(" ")
            sections.setdefault(key, Section(key, number)).commands.append(
                (number, name, turn.strip())
            )
        elif name == "ORDERS":
            continue
        else:
            current.commands.append((number, name, arg))
    if press is not None:  # no ENDPRESS: the press runs to the end of the mail
        current.press.append(press)
    return ReadMail(sections, passwords, server_commands)


def subject_password(subject: str) -> str | None:
    m = re.search(r"\bpassword\s*[:=]?\s*(\S+)", subject, re.I)
    return m[1] if m else None
