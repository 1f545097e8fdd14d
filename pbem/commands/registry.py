"""What a mail command is: its name and aliases, who may use it, what it
takes, its one-line help and its handler. Each family module (orders,
account, press, lobby, master, the mail's own words) declares its commands
with ``@family.command(...)`` on the handler; pbem/commands/__init__.py lists
the families, and everything else (HELP, the parser, the master-only list,
the refusal of a command someone may not use, the guide's tables) is read
from that list.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Who(StrEnum):
    """Who may use a command."""

    ANYONE = "anyone"  # any sender; no game or password needed
    PLAYER = "player"  # a player of the game, with a password or a reply address
    OBSERVER = "observer"  # who watches the game (games.yaml's observers, WATCH)
    MASTER = "master"  # the game's master, from its address, with the master password


class Where(StrEnum):
    """Where a command is read and run."""

    MAIL = "mail"  # the mail's own structure, read by the parser (GAME, PASSWORD, ORDERS)
    SERVER = "server"  # needs no game: answered once for the whole mail
    GAME = "game"  # in a game's section, for its player, observer or master


@dataclass(frozen=True)
class Use:
    """One command line of a mail: where it is, the name, what follows it
    (and, for a command with a body such as PRESS, the lines of its body)."""

    line: int
    name: str
    arg: str = ""
    body: tuple[str, ...] = ()


Handler = Callable[[Any, Use], None]
GameIn = Callable[[str], "tuple[str, str] | None"]


@dataclass(frozen=True)
class Command:
    name: str
    who: frozenset[Who]
    help: str  # HELP's line
    handler: Handler | None = None
    args: str = ""  # what follows the name, for HELP
    where: Where = Where.GAME
    family: str = ""
    aliases: tuple[str, ...] = ()
    # the mail guide (docs/mail.md): the usage and the text, when they say more
    usage: str = ""
    doc: str = ""
    cli: str = ""  # the game master's command line that does the same
    master_doc: str = ""  # what the command does for a game master, if not the same
    before_orders: bool = False  # runs before the mail's orders (once, however often given)
    on_time: bool = False  # refused with its section when the mail came after the deadline
    body: bool = False  # the lines that follow, up to ENDPRESS, are its body
    game_in: GameIn | None = None  # names a game in its argument: (game, the rest)
    forming: bool = False  # runs in a game still waiting for its players (the rest waits)

    @property
    def master_only(self) -> bool:
        return self.who == {Who.MASTER}

    def allows(self, who: Who) -> bool:
        return who in self.who

    def words(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def guide_usage(self) -> str:
        return self.usage or f"`{(self.name + ' ' + self.args).strip()}`"


class Family:
    """The commands of one family, in the order they are declared."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.commands: list[Command] = []

    def command(
        self, name: str, *, who: Iterable[Who] | Who, help: str, args: str = "", **more: Any
    ) -> Callable[[Handler], Handler]:
        """Declare the decorated function as the handler of command NAME."""
        roles = frozenset([who] if isinstance(who, Who) else who)

        def declare(handler: Handler) -> Handler:
            self.declare(name, who=roles, help=help, args=args, handler=handler, **more)
            return handler

        return declare

    def declare(self, name: str, **fields: Any) -> Command:
        """A command without a handler of its own (the mail's structure)."""
        fields.setdefault("handler", None)
        who = fields.pop("who")
        command = Command(
            name, frozenset([who] if isinstance(who, Who) else who), family=self.name, **fields
        )
        self.commands.append(command)
        return command


class Registry:
    """Every command of every family, looked up by name or alias."""

    def __init__(self, families: Iterable[Family]) -> None:
        self.families = tuple(families)
        self._read: tuple[tuple[int, ...], dict[str, Command], re.Pattern[str]] | None = None
        self._master: tuple[tuple[int, ...], frozenset[str]] | None = None

    @property
    def commands(self) -> list[Command]:
        return [c for f in self.families for c in f.commands]

    def _lookup(self) -> tuple[dict[str, Command], re.Pattern[str]]:
        """Every name and alias, and a line that starts with one (any case,
        any spacing inside a name of two words); made again only when a
        family has a new command."""
        sizes = tuple(len(f.commands) for f in self.families)
        if self._read is None or self._read[0] != sizes:
            words: dict[str, Command] = {}
            for c in self.commands:
                for w in c.words():
                    if w in words:
                        raise ValueError(f"{w} is a command of {words[w].family} and {c.family}")
                    words[w] = c
            longest = sorted(words, key=len, reverse=True)
            alternatives = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in longest)
            pattern = re.compile(r"^\s*(" + alternatives + r")\b\s*(.*)$", re.I)
            self._read = (sizes, words, pattern)
        return self._read[1], self._read[2]

    def get(self, name: str) -> Command | None:
        return self._lookup()[0].get(" ".join(name.upper().split()))

    def match(self, line: str) -> tuple[Command, str] | None:
        """The command a line starts with, and the rest of the line."""
        m = self._lookup()[1].match(line)
        if m is None:
            return None
        return self._lookup()[0][" ".join(m[1].upper().split())], m[2].strip()

    @property
    def master_only(self) -> frozenset[str]:
        """The game master's commands: from a player, order lines after all
        (a game's own orders may start with such a word: ``remove F Kiel``).
        Made again only when a family has a new command, like the lookup."""
        sizes = tuple(len(f.commands) for f in self.families)
        if self._master is None or self._master[0] != sizes:
            self._master = (sizes, frozenset(c.name for c in self.commands if c.master_only))
        return self._master[1]

    def for_master(self) -> list[str]:
        return sorted(c.name for c in self.commands if Who.MASTER in c.who)

    def help_lines(self) -> list[str]:
        out = ["Commands (one a line, any case; the game's orders between them):"]
        for c in self.commands:
            usage = (c.name + " " + c.args).strip()
            if len(usage) > 24:  # a long one: its description on a line of its own
                out.append(f"  {usage}")
                usage = ""
            out.append(f"  {usage:<24} {c.help}")
        return out

    def player_table(self) -> list[str]:
        """docs/mail.md's table of commands (all but the game master's)."""
        out = ["| command | what it does |", "|---------|--------------|"]
        for c in self.commands:
            if not c.master_only:
                out.append(f"| {c.guide_usage()} | {c.doc or c.help} |")
        return out

    def master_table(self) -> list[str]:
        """docs/mail.md's table of the game master's commands, by mail and
        on the command line."""
        out = ["| by mail | command line | what it does |"]
        out.append("|---------|--------------|--------------|")
        mine = [c for c in self.commands if Who.MASTER in c.who]
        for c in sorted(mine, key=lambda c: not c.master_only):  # the master's own first
            out.append(f"| {c.guide_usage()} | {c.cli} | {c.master_doc or c.doc or c.help} |")
        return out

    def write_tables(self, guide: str) -> str:
        """The mail guide with its command tables as the registry makes
        them (each between its marker lines)."""
        for name, table in (("commands", self.player_table()), ("master", self.master_table())):
            begin, end = f"<!-- {name} table: python -m pbem.commands -->", "<!-- end -->"
            start = guide.index(begin) + len(begin)
            stop = guide.index(end, start)
            guide = guide[:start] + "\n" + "\n".join(table) + "\n" + guide[stop:]
        return guide
