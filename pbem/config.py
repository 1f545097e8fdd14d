"""games.yaml: the game master's file.

::

    server:
      domain: judge.example          # games are mailed at <game>@<domain>
      listen: {host: 127.0.0.1, port: 2525}
      timezone: Europe/Oslo
      storage: var/pbem.sqlite       # relative to this file
      outbound: {host: 127.0.0.1, port: 25, from: judge@judge.example}
    games:
      - name: alpha
        game: officewars
        map: six                     # a shipped map, or a path to a map file
        deadline: "50 0,12 * * *"    # cron, in the game's time zone
        timezone: Europe/Oslo        # optional, default the server's
        players:
          - {name: ann, email: ann@example.org, timezone: America/New_York}
        master: {email: gm@example.org, password: secret}
        observers: [watcher@example.org]
        options: {}                  # the game's own options
        seed: 1                      # optional: the game's random seed

:func:`load_config` refuses a bad file with every problem listed, each with
its line number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from adjudicator import GAMES, yamltext
from adjudicator.base import GameError
from pbem.turns.cron import cron_trigger

EMAIL = re.compile(r"^[^@\s<>\"]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
DOMAIN = re.compile(r"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
GAME_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
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


@dataclass(frozen=True)
class ServerConfig:
    domain: str
    host: str = "127.0.0.1"
    port: int = 2525
    timezone: str = "UTC"
    storage: Path = Path("var/pbem.sqlite")
    outbound: Outbound = field(default_factory=Outbound)
    limits: Limits = field(default_factory=Limits)
    lmtp_socket: Path | None = None
    # if set: orders count only from mail whose topmost Authentication-Results,
    # written by this relay (its authserv-id), shows DKIM or DMARC passing
    trusted_relay: str | None = None

    @property
    def address(self) -> str:
        """The server's own address, for mail to no game in particular."""
        return self.outbound.sender or f"judge@{self.domain}"


@dataclass(frozen=True)
class PlayerConfig:
    name: str
    email: str
    timezone: str | None = None


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

    def game(self, name: str) -> GameConfig:
        for g in self.games:
            if g.name == name:
                return g
        raise KeyError(f"no game {name!r} in {self.path.name}")


# ----------------------------------------------------------------------------


class _Checker:
    """Collects problems as 'FILE, line N: message'."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._found: list[tuple[int, str]] = []

    def add(self, where: Any, key: Any, message: str) -> None:
        line = yamltext.line_of(where, key)
        prefix = f"{self.source}, line {line}" if line else self.source
        self._found.append((line, f"{prefix}: {message}"))

    @property
    def problems(self) -> list[str]:
        """Every problem, in the order of the file."""
        return [text for _, text in sorted(self._found, key=lambda item: item[0])]

    def keys(self, where: dict, allowed: tuple[str, ...], what: str) -> None:
        for key in where:
            if key not in allowed:
                self.add(where, key, f"{what}: unknown key {key!r} (known: {', '.join(allowed)})")

    def mapping(self, where: Any, key: str, what: str, required: bool = False) -> dict:
        value = where.get(key) if isinstance(where, dict) else None
        if value is None:
            if required:
                self.add(
                    where,
                    key if isinstance(where, dict) and key in where else None,
                    f"{what} is missing",
                )
            return yamltext.LineDict()
        if not isinstance(value, dict):
            self.add(where, key, f"{what} must be a mapping")
            return yamltext.LineDict()
        return value

    def string(
        self,
        where: dict,
        key: str,
        what: str,
        required: bool = False,
        pattern: re.Pattern[str] | None = None,
        hint: str = "",
    ) -> str | None:
        if key not in where or where[key] is None:
            if required:
                self.add(where, None, f"{what} is missing")
            return None
        value = where[key]
        if not isinstance(value, str | int) or isinstance(value, bool):
            self.add(where, key, f"{what} must be text")
            return None
        value = str(value)
        if pattern is not None and not pattern.match(value):
            self.add(where, key, f"{what} {value!r} is not valid{hint}")
            return None
        return value

    def integer(self, where: dict, key: str, what: str, default: int, low: int, high: int) -> int:
        value = where.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            self.add(where, key, f"{what} must be a whole number from {low} to {high}")
            return default
        return value

    def timezone(self, where: dict, key: str, what: str) -> str | None:
        value = self.string(where, key, what)
        if value is None:
            return None
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            self.add(
                where,
                key,
                f"{what} {value!r} is not a time zone (use Area/City, for example Europe/Oslo)",
            )
            return None
        return value


def load_config(path: str | Path) -> Config:
    """Read and check games.yaml. Raises ConfigError with every problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([f"{path}: cannot read: {exc.strerror}"]) from None
    return parse_config(text, path)


def parse_config(text: str, path: Path) -> Config:
    c = _Checker(path.name)
    try:
        data = yamltext.load(text)
    except yamltext.YamlError as exc:
        raise ConfigError(
            [f"{path.name}, line {exc.line}: not valid YAML: {exc.message}"]
        ) from None
    if not isinstance(data, dict):
        raise ConfigError([f"{path.name}: expected a mapping with 'server' and 'games'"])
    c.keys(data, ("server", "games"), "top level")
    server = _server(c, data, path)
    games = _games(c, data, path, server)
    if c.problems:
        raise ConfigError(c.problems)
    assert server is not None
    return Config(path, server, tuple(games))


def _server(c: _Checker, data: dict, path: Path) -> ServerConfig | None:
    raw = c.mapping(data, "server", "server section", required=True)
    c.keys(
        raw,
        ("domain", "listen", "timezone", "storage", "outbound", "limits", "lmtp", "trusted_relay"),
        "server",
    )
    domain = c.string(
        raw,
        "domain",
        "server domain",
        required=bool(raw) or "server" in data,
        pattern=DOMAIN,
        hint=" (for example judge.example)",
    )
    listen = c.mapping(raw, "listen", "server listen")
    c.keys(listen, ("host", "port"), "server listen")
    host = c.string(listen, "host", "listen host") or "127.0.0.1"
    port = c.integer(listen, "port", "listen port (0: any free port)", 2525, 0, 65535)
    tz = c.timezone(raw, "timezone", "server timezone") or "UTC"
    storage = c.string(raw, "storage", "server storage") or "var/pbem.sqlite"
    out = c.mapping(raw, "outbound", "server outbound")
    c.keys(
        out,
        ("host", "port", "from", "username", "password", "starttls", "tls", "maildir"),
        "outbound",
    )
    sender = c.string(out, "from", "outbound from", pattern=EMAIL) or (
        f"judge@{domain}" if domain else ""
    )
    flags = {}
    for key in ("starttls", "tls"):
        flags[key] = out.get(key, False)
        if not isinstance(flags[key], bool):
            c.add(out, key, f"outbound {key} must be true or false")
            flags[key] = False
    if flags["starttls"] and flags["tls"]:
        c.add(out, "tls", "outbound: choose tls (port 465) or starttls (port 587), not both")
    base = path.resolve().parent

    def place(value: str) -> Path:
        p = Path(value)
        return p if p.is_absolute() else base / p

    outbound = Outbound(
        host=c.string(out, "host", "outbound host"),
        port=c.integer(out, "port", "outbound port", 25, 1, 65535),
        sender=sender,
        username=c.string(out, "username", "outbound username"),
        password=c.string(out, "password", "outbound password"),
        starttls=flags["starttls"],
        tls=flags["tls"],
        maildir=place(c.string(out, "maildir", "outbound maildir") or "var/mail"),
    )
    lim = c.mapping(raw, "limits", "server limits")
    c.keys(
        lim,
        (
            "max_message_size",
            "max_recipients",
            "max_connections",
            "idle_timeout",
            "max_commands",
            "replies_per_day",
        ),
        "server limits",
    )
    limits = Limits(
        max_message_size=c.integer(
            lim, "max_message_size", "max_message_size", 10 * 2**20, 10_000, 2**30
        ),
        max_recipients=c.integer(lim, "max_recipients", "max_recipients", 20, 1, 1000),
        max_connections=c.integer(lim, "max_connections", "max_connections", 64, 1, 10_000),
        idle_timeout=c.integer(lim, "idle_timeout", "idle_timeout", 120, 1, 3600),
        max_commands=c.integer(lim, "max_commands", "max_commands", 1000, 10, 100_000),
        replies_per_day=c.integer(lim, "replies_per_day", "replies_per_day", 10, 1, 10**6),
    )
    lmtp = c.string(raw, "lmtp", "server lmtp (a unix socket path)")
    relay = c.string(
        raw,
        "trusted_relay",
        "server trusted_relay",
        pattern=DOMAIN,
        hint=" (the authserv-id of your relay's Authentication-Results)",
    )
    if domain is None:
        return None
    return ServerConfig(
        domain,
        host,
        port,
        tz,
        place(storage),
        outbound,
        limits,
        place(lmtp) if lmtp else None,
        relay,
    )


def _games(c: _Checker, data: dict, path: Path, server: ServerConfig | None) -> list[GameConfig]:
    raw_games = data.get("games")
    if raw_games is None:
        return []
    if not isinstance(raw_games, list):
        c.add(data, "games", "games must be a list")
        return []
    out: list[GameConfig] = []
    names: set[str] = set()
    default_tz = server.timezone if server else "UTC"
    for i, raw in enumerate(raw_games):
        if not isinstance(raw, dict):
            c.add(raw_games, i, "each game is a mapping (name, game, map, players, deadline)")
            continue
        g = _game(c, raw, path, default_tz)
        if g is None:
            continue
        if g.name in names:
            c.add(raw, "name", f"game {g.name!r} is listed twice")
        names.add(g.name)
        out.append(g)
    return out


def _game(c: _Checker, raw: dict, path: Path, default_tz: str) -> GameConfig | None:
    c.keys(
        raw,
        (
            "name",
            "game",
            "map",
            "deadline",
            "timezone",
            "players",
            "master",
            "observers",
            "options",
            "seed",
            "seats",
            "press",
            "early",
            "remind",
            "keep",
            "react_cooldown",
            "min_phase",
            "visibility",
            "observer_password",
        ),
        "game",
    )
    name = c.string(
        raw,
        "name",
        "game name",
        required=True,
        pattern=GAME_NAME,
        hint=" (lower-case letters, digits and -, up to 40)",
    )
    label = f"game {name}" if name else "game"
    kind = c.string(raw, "game", f"{label}: game", required=True)
    engine = None
    if kind is not None:
        engine = GAMES.get(kind)
        if engine is None:
            c.add(raw, "game", f"{label}: unknown game {kind!r} (games: {', '.join(GAMES)})")
    tz = c.timezone(raw, "timezone", f"{label}: timezone") or default_tz
    deadline = c.string(raw, "deadline", f"{label}: deadline")
    if deadline is None and engine is not None:
        deadline = engine.default_deadline
        if deadline is None:
            c.add(raw, None, f"{label}: deadline is missing (a cron expression)")
    if deadline is not None:
        try:
            cron_trigger(deadline, ZoneInfo(tz))
        except ValueError as exc:
            c.add(raw, "deadline", f"{label}: deadline {deadline!r}: {exc}")

    press = raw.get("press", "both")
    if press not in PRESS_KINDS:
        c.add(raw, "press", f"{label}: press must be one of {', '.join(PRESS_KINDS)}")
        press = "both"
    seats = raw.get("seats")
    if seats is not None and (not isinstance(seats, int) or isinstance(seats, bool) or seats < 1):
        c.add(raw, "seats", f"{label}: seats must be a whole number, 1 or more")
        seats = None
    lobby = engine is not None and engine.lobby
    if lobby:  # players JOIN lobbies, each a game of its own (name-1, name-2, ...)
        if raw.get("players"):
            c.add(raw, "players", f"{label}: {engine.title} players JOIN a lobby: list none")
        raw = _without(raw, "players")
        seats = engine.seats.maximum
    players: list[PlayerConfig] = []
    raw_players = raw.get("players", [] if seats else None)
    if not isinstance(raw_players, list) or (not raw_players and not seats):
        c.add(
            raw,
            "players" if "players" in raw else None,
            f"{label}: players: a list of {{name, email}} is needed (or seats, for a game "
            "that players JOIN)",
        )
        raw_players = []
    seen_names: set[str] = set()
    seen_emails: set[str] = set()
    for j, rp in enumerate(raw_players):
        if not isinstance(rp, dict):
            c.add(raw_players, j, f"{label}: each player is a mapping {{name, email}}")
            continue
        c.keys(rp, ("name", "email", "timezone"), f"{label}: player")
        pname = c.string(
            rp,
            "name",
            f"{label}: player name",
            required=True,
            pattern=PLAYER_NAME,
            hint=" (a letter, then letters, digits, _ or -)",
        )
        email = c.string(rp, "email", f"{label}: player email", required=True, pattern=EMAIL)
        ptz = c.timezone(rp, "timezone", f"{label}: player timezone")
        twice_name = bool(pname) and pname.lower() in seen_names
        twice_email = bool(email) and email.lower() in seen_emails
        if twice_name and twice_email:  # the same player twice: one problem
            c.add(rp, "name", f"{label}: player {pname!r} ({email}) is listed twice")
        elif twice_name:
            c.add(rp, "name", f"{label}: player {pname!r} is listed twice")
        elif twice_email:
            c.add(rp, "email", f"{label}: email {email!r} is listed twice")
        if pname and email and not (twice_name or twice_email):
            seen_names.add(pname.lower())
            seen_emails.add(email.lower())
            players.append(PlayerConfig(pname, email, ptz))

    master = c.mapping(raw, "master", f"{label}: master")
    c.keys(master, ("email", "password"), f"{label}: master")
    master_email = c.string(master, "email", f"{label}: master email", pattern=EMAIL)
    master_password = c.string(master, "password", f"{label}: master password")
    if master and (master_email is None) != (master_password is None):
        c.add(raw, "master", f"{label}: master needs both email and password")

    observers: list[str] = []
    raw_obs = raw.get("observers") or []
    if not isinstance(raw_obs, list):
        c.add(raw, "observers", f"{label}: observers must be a list of email addresses")
        raw_obs = []
    for j, o in enumerate(raw_obs):
        if not isinstance(o, str) or not EMAIL.match(o):
            c.add(raw_obs, j, f"{label}: observer {o!r} is not an email address")
        else:
            observers.append(o)

    options = raw.get("options") or {}
    if not isinstance(options, dict):
        c.add(raw, "options", f"{label}: options must be a mapping")
        options = {}
    seed = raw.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        c.add(raw, "seed", f"{label}: seed must be a whole number, 0 or more")
        seed = None

    early = raw.get("early", False)
    if not isinstance(early, bool):
        c.add(raw, "early", f"{label}: early must be true or false")
        early = False
    remind = _duration(c, raw, "remind", label, timedelta(hours=2))
    keep = _duration(c, raw, "keep", label, timedelta(days=7)) or timedelta(0)
    react_cooldown = _duration(c, raw, "react_cooldown", label, timedelta(minutes=5))
    min_phase = _duration(c, raw, "min_phase", label, None)
    visibility = raw.get("visibility", "public")
    if visibility not in ("public", "private"):
        c.add(raw, "visibility", f"{label}: visibility must be public or private")
        visibility = "public"
    observer_password = c.string(raw, "observer_password", f"{label}: observer_password")
    if observer_password and visibility == "public":
        c.add(
            raw,
            "observer_password",
            f"{label}: observer_password is for a private game (visibility: private)",
        )

    map_ref = c.string(raw, "map", f"{label}: map", required=engine is not None)
    if engine is not None and map_ref is not None:
        if seats is not None and len(players) > seats:
            c.add(raw, "seats", f"{label}: {len(players)} players listed for {seats} seats")
        map_ref = _check_map(
            c, raw, label, engine, map_ref, path, players, options, seats or len(players)
        )
    if name is None or kind is None or engine is None or map_ref is None or deadline is None:
        return None
    return GameConfig(
        name,
        kind,
        map_ref,
        deadline,
        tz,
        tuple(players),
        master_email,
        master_password,
        tuple(observers),
        dict(options),
        seed,
        raw.line,
        seats or len(players),
        press,
        lobby,
        react_cooldown or timedelta(0),
        early,
        remind,
        keep,
        min_phase,
        visibility,
        observer_password,
    )


def _without(raw: Any, key: str) -> Any:
    """The mapping without ``key``, keeping its line numbers."""
    if key not in raw:
        return raw
    out = type(raw)({k: v for k, v in raw.items() if k != key})
    for attr in ("line", "lines"):
        if hasattr(raw, attr):
            setattr(out, attr, getattr(raw, attr))
    return out


DURATION = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "": "minutes"}


def parse_duration(text: str) -> timedelta | None:
    """'90m', '2h', '7d', '30s' (a bare number is minutes); None if unreadable."""
    m = DURATION.match(text.lower())
    if m is None:
        return None
    return timedelta(**{UNITS[m[2]]: int(m[1])})


def _duration(
    c: _Checker, raw: dict, key: str, label: str, default: timedelta | None
) -> timedelta | None:
    """A duration key; 0, false or none turn it off (None)."""
    value = raw.get(key, default)
    if isinstance(value, timedelta):
        return value
    if value in (0, False, None, "none", "off"):
        return None
    found = parse_duration(str(value)) if not isinstance(value, bool) else None
    if found is None:
        c.add(raw, key, f"{label}: {key} must be a duration such as 30m, 2h or 7d")
        return default
    return found or None


def _check_map(
    c: _Checker,
    raw: dict,
    label: str,
    engine: Any,
    map_ref: str,
    path: Path,
    players: list[PlayerConfig],
    options: dict,
    seats: int,
) -> str | None:
    """The map loads, takes this many players, and the game accepts the
    options: the game is started once, on paper, with every seat taken."""
    if map_ref in engine.maps():
        source = map_ref
        resolved = map_ref
    else:
        file = Path(map_ref)
        if not file.is_absolute():
            file = path.resolve().parent / file
        try:
            source = file.read_text(encoding="utf-8")
        except OSError:
            c.add(
                raw,
                "map",
                f"{label}: map {map_ref!r} is neither a shipped map "
                f"({', '.join(engine.maps())}) nor a readable file",
            )
            return None
        resolved = str(file)
    try:
        board = engine.load_map(source)
    except GameError as exc:
        for line in str(exc).splitlines():
            c.add(raw, "map", f"{label}: {line}")
        return None
    if seats:
        if not engine.seats.can_start(seats):
            c.add(
                raw,
                "seats" if "seats" in raw else "players",
                f"{label}: {engine.title} takes {engine.seats.minimum} to "
                f"{engine.seats.maximum} players, not {seats}",
            )
            return resolved
        names = [p.name for p in players]
        names += [f"seat{i}" for i in range(len(names), seats)]
        try:
            engine.start(board, names, options, 0)
        except GameError as exc:
            c.add(raw, "options" if "options" in str(exc) else "players", f"{label}: {exc}")
    return resolved
