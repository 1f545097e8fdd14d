"""What games.yaml says, as values: the server, its outbound mail and
limits, and each game with its players."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cached_property
from pathlib import Path
from typing import Any

EMAIL = re.compile(r"^[^@\s<>\"]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
DOMAIN = re.compile(r"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
GAME_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
# The server's tagged addresses, <tag>+<token>@domain (pbem/app.py: recipient):
# a bounce's return path (VERP), a confirmation of a command by reply, an
# observer's unsubscribe. No game may take one of these names.
TAGGED = ("bounces", "confirm", "unsubscribe")
PRESS_KINDS = ("both", "signed", "anonymous", "none")
PLAYER_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")


class ConfigError(ValueError):
    """A bad games.yaml; ``problems`` lists every one, each with its line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Outbound:
    """Where mail goes: through an SMTP relay when ``host`` is set, else
    into the Maildir folder ``maildir`` (nothing else needs to run)."""

    host: str | None = None
    port: int = 25
    sender: str = ""
    username: str | None = None
    password: str | None = None
    starttls: bool = False
    tls: bool = False
    maildir: Path = Path("var/mail")


@dataclass(frozen=True)
class Limits:
    """What one SMTP client may do."""

    max_message_size: int = 10 * 2**20  # octets; more is refused with 552
    max_recipients: int = 20
    max_connections: int = 64
    idle_timeout: float = 120.0  # seconds without a command
    max_commands: int = 1000  # of one kind per session (NOOP floods end in 421 at 100)
    replies_per_day: int = 10  # to any one address: no mail loop runs away
    # replies to mail that proved who sent it (a password, a reply address),
    # counted apart: a forged From never spends them (never below replies_per_day)
    proven_replies_per_day: int = 200
    # JOIN, LEAVE, WATCH, UNWATCH wait this long for the sender to confirm them
    confirm_within: timedelta = timedelta(hours=48)
    # mails to one address that fail for good (bounces, relay refusals)
    # before it is marked unreachable and no longer mailed
    unreachable_after: int = 3


@dataclass(frozen=True)
class StorageTimeouts:
    """How long pbem waits on its database (seconds): to connect, for one
    statement of the worker's and the commands', and for the SMTP side's
    write of received mail (a session waits on it: past it, 451)."""

    connect: float = 10.0
    statement: float = 60.0
    spool: float = 5.0


@dataclass(frozen=True)
class WebConfig:
    """The HTTP server `pbem serve` also runs (off unless games.yaml has
    ``server.web``): where it listens, and the public address readers
    reach it by (the unsubscribe links in mail are made from it)."""

    host: str = "127.0.0.1"
    port: int = 8025
    url: str | None = None  # https://judge.example/ (a proxy in front); None: no links
    rate: int = 20  # requests a second from one address, on average (0: no limit)
    burst: int = 60  # requests at once from one address


@dataclass(frozen=True)
class Dkim:
    """DKIM (games.yaml's server ``dkim:``): verifying the mail received
    directly, and signing the mail sent (pbem/mail/dkim.py)."""

    require: bool = False  # orders in every game need a DKIM pass aligned with From
    nameservers: tuple[str, ...] = ()  # resolvers asked for DKIM keys; (): the system's
    timeout: float = 5.0  # seconds for one key look-up; then a temporary failure
    key: Path | None = None  # a PEM RSA private key: outgoing mail is signed with it
    selector: str | None = None  # the key's DNS name: <selector>._domainkey.<domain>
    domain: str = ""  # the signing domain (d=); the server's domain when not given


Network = ipaddress.IPv4Network | ipaddress.IPv6Network
# where a relay named only by its authserv-id may connect from: this machine
LOOPBACK: tuple[Network, ...] = (
    ipaddress.ip_network("127.0.0.0/8"),
    ipaddress.ip_network("::1/128"),
)


@dataclass(frozen=True)
class TrustedRelay:
    """The relay whose Authentication-Results count (games.yaml's server
    ``trusted_relay``): its authserv-id, and the connections its mail comes
    over. A header counts only on mail that came from one of ``addresses``
    (or over the LMTP socket, with ``socket``)."""

    authserv_id: str
    addresses: tuple[Network, ...] = LOOPBACK
    socket: bool = True  # mail over the local LMTP socket (server lmtp: a path)

    def __str__(self) -> str:
        return self.authserv_id

    def sent(self, peer: str | None) -> bool:
        """Whether a mail received from ``peer`` (an IP address, or
        ``unix:`` for the local socket) came from this relay."""
        if peer is None:
            return False  # received before peers were kept: from anyone
        if peer == "unix:":
            return self.socket
        try:
            ip = ipaddress.ip_address(peer)
        except ValueError:
            return False
        return any(ip in net for net in self.addresses)


# mail an MTA held (docs/deadlines.md): a turn whose deadline passed while
# the server took no mail waits this long once it takes mail again (Postfix
# tries a deferred mail again after 300 s at first); a trusted relay's
# Received time counts at most this long before ours (Postfix's
# maximal_queue_lifetime)
SETTLE_AFTER_OUTAGE = timedelta(minutes=5)
RELAY_QUEUE_LIFETIME = timedelta(days=5)


# -- watching the server: health, metrics, the operator's alerts --------------


@dataclass(frozen=True)
class MetricsConfig:
    """Where `pbem serve` answers /healthz, /readyz and /metrics (games.yaml's
    server ``metrics:``), and what /readyz counts as too much waiting."""

    host: str = "127.0.0.1"
    port: int = 9125
    max_backlog: int = 1000  # mails stored but not finished
    max_outbox_age: timedelta = timedelta(minutes=15)  # the oldest mail due to go out


@dataclass(frozen=True)
class ServerConfig:
    domain: str
    host: str = "127.0.0.1"
    port: int = 2525
    timezone: str = "UTC"
    # an SQLite file, or a database URL (postgresql://user@host/database)
    storage: Path | str = Path("var/pbem.sqlite")
    outbound: Outbound = field(default_factory=Outbound)
    limits: Limits = field(default_factory=Limits)
    lmtp_socket: Path | None = None
    lmtp_listen: tuple[str, int] | None = None  # LMTP over TCP: (host, port)
    # if set: orders count only from mail that came from this relay and whose
    # topmost Authentication-Results, written by it (its authserv-id), shows
    # DKIM or DMARC passing for the From: domain
    trusted_relay: TrustedRelay | None = None
    web: WebConfig | None = None  # the HTTP server; None: off
    dkim: Dkim = field(default_factory=Dkim)
    operator: str | None = None  # told when the server itself is in trouble (None: the masters)
    metrics: MetricsConfig | None = None  # health and metrics over HTTP; None: off
    storage_timeouts: StorageTimeouts = field(default_factory=StorageTimeouts)
    settle_after_outage: timedelta = SETTLE_AFTER_OUTAGE  # 0: resolve at once
    relay_queue_lifetime: timedelta = RELAY_QUEUE_LIFETIME

    @property
    def address(self) -> str:
        """The server's own address, for mail to no game in particular."""
        return self.outbound.sender or f"judge@{self.domain}"


@dataclass(frozen=True)
class PlayerConfig:
    name: str
    email: str
    timezone: str | None = None
    power: str | None = None  # the seat the game master gives (Game.seat_names)
    preferences: tuple[str, ...] = ()  # seats in order of wish, the first most wished


@dataclass(frozen=True)
class GameConfig:
    name: str
    game: str
    map: str  # a shipped map's name, or the absolute path of a map file
    deadline: str
    timezone: str
    players: tuple[PlayerConfig, ...]
    master_email: str | None = None
    master_password: str | None = None
    observers: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    line: int = 0
    seats: int = 0  # players the game waits for; more than listed: open to JOIN
    press: str = "both"  # signed, anonymous, both, none
    lobby: bool = False  # JOIN opens lobbies name-1, name-2, ... each a game of its own
    react_cooldown: timedelta = timedelta(minutes=5)  # between one spectator's reactions
    early: bool = False  # adjudicate at once when every active player is READY
    remind: timedelta | None = timedelta(hours=2)  # before the deadline; None: no reminder
    keep: timedelta = timedelta(days=7)  # a finished game stays readable this long
    # a phase that starts early (ADJUDICATE, every player READY) lasts at least
    # this long; None: the game's normal length (its cron period)
    min_phase: timedelta | None = None
    visibility: str = "public"  # private: WATCH only with the observer password
    observer_password: str | None = None
    # a scenario: the absolute path of a position as text the game starts
    # from instead of a map (games with positions only); ``map`` is then ""
    position: str | None = None
    # orders need a DKIM pass aligned with the From: domain (the server's
    # own check, or its trusted relay's verdict)
    require_dkim: bool = False
    # the kinds of phase (Game.phase_kinds) with a deadline of their own: a
    # cron expression, or a length after the phase opens; every other
    # phase's deadline is ``deadline``
    phase_deadlines: Mapping[str, str | timedelta] = field(default_factory=dict)
    # gunboat: players see powers only, never each other's names or
    # addresses, until the game ends (pbem/anonymous.py)
    anonymous: bool = False

    @property
    def open_seats(self) -> int:
        return max(0, self.seats - len(self.players))

    def address(self, server: ServerConfig) -> str:
        return f"{self.name}@{server.domain}"


@dataclass(frozen=True)
class Config:
    path: Path
    server: ServerConfig
    games: tuple[GameConfig, ...]

    @cached_property
    def by_name(self) -> Mapping[str, GameConfig]:
        """The games by name (a judge may list a thousand: every mail and
        every turn looks games up by name)."""
        found: dict[str, GameConfig] = {}
        for g in self.games:
            found.setdefault(g.name, g)
        return found

    def game(self, name: str) -> GameConfig:
        found = self.by_name.get(name)
        if found is None:
            raise KeyError(f"no game {name!r} in {self.path.name}")
        return found
