"""What a command's handler is given: the mail, the transaction, the worker
that reads it, and, in a game's section, the game, who writes and the part
of the receipt to fill in."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, Protocol

from sqlalchemy import Connection

from adjudicator.base import Game
from pbem.app import App
from pbem.commands.registry import Registry, Who
from pbem.config import GameConfig
from pbem.mail.ontime import Arrival, arrival
from pbem.mail.parse import ParsedMail
from pbem.store import GameRow, InboxRow, PlayerRow


class Worker(Protocol):
    """The mail worker, as the pipeline and the commands see it: reads it
    remembers for one transaction, and what it does once that commits."""

    app: App
    holder: str  # whose claims on mail are this worker's
    turn_requests: set[str]  # games to check for an early turn
    forced: list[tuple[str, int]]  # turns the game master resolves now

    def forget(self) -> None:
        """Our own writes changed what was read: read it again."""

    def game(self, conn: Connection, name: str) -> GameRow | None: ...

    def players_by_email(self, conn: Connection, email: str) -> list[PlayerRow]: ...

    def settled_at(self, game: GameRow) -> datetime | None:
        """When a turn whose deadline passed while this server took no mail
        resolves (the end of the settling time); None: as soon as it is
        looked at."""

    def earlier_copy(self, conn: Connection, message_id: str, before: int) -> int | None:
        """The first finished mail before number ``before`` with this Message-ID."""

    def finished(self, number: int, message_id: str | None) -> None:
        """A mail was finished in this transaction (it counts as an earlier copy)."""

    def state(self, engine: Game, game: str, text: str) -> Any: ...

    def read_previous(self, engine: Game, state: Any, game: str, player: str, text: str) -> Any:
        """A player's standing orders, read (remembered while unchanged)."""


@dataclass
class GameReply:
    """One game's part of a receipt."""

    game: str
    title: str = ""
    phase: str = ""
    accepted: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    holding: list[str] = field(default_factory=list)
    standing: list[str] = field(default_factory=list)  # orders in force after this mail
    replaced: bool = False
    received: bool = False  # orders run as received: a mail adds to the earlier ones
    ticks: bool = False  # the game runs on a clock: orders run at the next tick
    kept_previous: bool = False
    messages: list[str] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    deadline: str = ""
    error: str = ""  # the whole section was refused
    new_token: bool = False  # NEW TOKEN: the receipt's Reply-To is read again
    proven: bool = False  # the sender's credentials for the game passed


@dataclass
class Context:
    """A mail's commands that need no game (HELP, LIST, JOIN...): their
    lines of the receipt go to ``out``."""

    app: App
    conn: Connection
    worker: Worker
    registry: Registry
    mail: ParsedMail
    row: InboxRow
    now: datetime
    out: list[str] = field(default_factory=list)
    addressed: str | None = None  # the game the mail was sent to, if one
    changed: bool = False  # something was stored: the mail is applied
    # commands waiting for the sender's confirmation (pbem/commands/confirm.py)
    pending: list[Any] = field(default_factory=list)
    proven: bool = False  # the mail proved who sent it (credentials passed in a game)
    asked: set[tuple[str, str]] = field(default_factory=set)  # (command, game) this mail

    @property
    def sender(self) -> str:
        return self.mail.from_addr or ""

    @cached_property
    def arrival(self) -> Arrival:
        """When the mail counts as received, for deadlines (pbem/mail/ontime.py)."""
        return arrival(self.app.config.server, self.row)

    def say(self, *lines: str) -> None:
        self.out.extend(lines)


@dataclass
class GameContext(Context):
    """A game's section of a mail, once the sender is known: its commands'
    lines go to the game's part of the receipt."""

    game: str = ""
    cfg: GameConfig = None  # type: ignore[assignment]
    game_row: GameRow = None  # type: ignore[assignment]
    engine: Game = None  # type: ignore[assignment]
    reply: GameReply = None  # type: ignore[assignment]
    who: Who = Who.ANYONE
    player: PlayerRow | None = None
    state: Any = None
    turn: int = 0
    phase: str = ""
    previous: list[str] = field(default_factory=list)  # the turn's orders before this mail
    standing: list[str] = field(default_factory=list)  # in force after it
    standing_orders: tuple[Any, ...] = ()  # the same, read (orders taken together)

    def __post_init__(self) -> None:
        self.out = self.reply.messages

    @property
    def me(self) -> PlayerRow:
        """The player writing (a command only players may use)."""
        assert self.player is not None
        return self.player
