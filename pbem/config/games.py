"""games.yaml's games: each game checked part by part (its kind and
deadline, its seats and players, its master and observers, its options,
its timing and visibility), and its map tried on paper."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from adjudicator import GAMES
from adjudicator.base import Game, GameError
from pbem.config.checker import Checker, _duration, _without
from pbem.config.deadline import deadlines
from pbem.config.model import (
    EMAIL,
    GAME_NAME,
    PLAYER_NAME,
    PRESS_KINDS,
    TAGGED,
    GameConfig,
    PlayerConfig,
    ServerConfig,
)
from pbem.config.wishes import no_seats_given, seats_given, wished

GAME_KEYS = (
    "name",
    "game",
    "map",
    "position",
    "deadline",
    "tick",
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
    "require_dkim",
    "anonymous",
)


def games_section(
    c: Checker, data: dict, path: Path, server: ServerConfig | None
) -> list[GameConfig]:
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


def _game(c: Checker, raw: dict, path: Path, default_tz: str) -> GameConfig | None:
    """One game, its parts checked in the order of the guide (docs/games-yaml.md)."""
    c.keys(raw, GAME_KEYS, "game")
    name = c.string(
        raw,
        "name",
        "game name",
        required=True,
        pattern=GAME_NAME,
        hint=" (lower-case letters, digits and -, up to 40)",
    )
    if name in TAGGED:
        c.add(raw, "name", f"game name {name!r} is the server's own address; choose another")
    label = f"game {name}" if name else "game"
    kind, engine = _kind(c, raw, label)
    tz = c.timezone(raw, "timezone", f"{label}: timezone") or default_tz
    deadline, phase_deadlines = _deadline(c, raw, label, engine, tz)
    press = _choice(c, raw, "press", label, PRESS_KINDS, "both")
    seats = _seats(c, raw, label)
    lobby = engine is not None and engine.lobby
    if lobby:  # players JOIN lobbies, each a game of its own (name-1, name-2, ...)
        if raw.get("players"):
            c.add(raw, "players", f"{label}: {engine.title} players JOIN a lobby: list none")
        raw = _without(raw, "players")
        seats = engine.seats.maximum
    players = _players(c, raw, label, seats)
    master_email, master_password = _master(c, raw, label)
    observers = _observers(c, raw, label)
    options, seed = _options_and_seed(c, raw, label)
    early, remind, keep, react_cooldown, min_phase = _timing(c, raw, label)
    visibility, observer_password = _visibility(c, raw, label)
    position = _position(c, raw, label, engine, path, players, seats, lobby)
    if position is not None:
        no_seats_given(c, raw, label, "a game from a position has its powers in the position")
    # a game given a position needs no map, even when the position is bad
    # (that is said once, above)
    from_position = raw.get("position") is not None
    map_ref = c.string(
        raw, "map", f"{label}: map", required=engine is not None and not from_position
    )
    if position is not None and map_ref is not None:
        c.add(raw, "map", f"{label}: give a map or a position to start from, not both")
    if position is not None:
        map_ref = ""
    elif engine is not None and map_ref is not None:
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
        position,
        require_dkim=_flag(c, raw, "require_dkim", label),
        phase_deadlines=phase_deadlines,
        anonymous=_anonymous(c, raw, label, engine),
    )


def _anonymous(c: Checker, raw: dict, label: str, engine: Any) -> bool:
    """Gunboat: only a game whose players can be named by what they play."""
    anonymous = _flag(c, raw, "anonymous", label)
    if anonymous and type(engine).masked is Game.masked:
        c.add(raw, "anonymous", f"{label}: {engine.title} cannot be played anonymously")
        return False
    return anonymous


def _flag(c: Checker, raw: dict, key: str, label: str) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        c.add(raw, key, f"{label}: {key} must be true or false")
        return False
    return value


def _kind(c: Checker, raw: dict, label: str) -> tuple[str | None, Any]:
    """The game played (``game:``) and its engine; None for an unknown one."""
    kind = c.string(raw, "game", f"{label}: game", required=True)
    engine = None
    if kind is not None:
        engine = GAMES.get(kind)
        if engine is None:
            c.add(raw, "game", f"{label}: unknown game {kind!r} (games: {', '.join(GAMES)})")
    return kind, engine


def _deadline(
    c: Checker, raw: dict, label: str, engine: Any, tz: str
) -> tuple[str | None, dict[str, Any]]:
    """The cron expression of the deadlines (the game's own by default; a
    game that runs on a clock may give ``tick`` instead), and the kinds of
    phase with a deadline of their own (pbem/config/deadline.py)."""
    if "tick" in raw:
        tick = _tick(c, raw, label, engine)
        if raw.get("deadline") is not None and tick is not None:
            c.add(raw, "tick", f"{label}: give tick or deadline, not both")
        elif tick is not None:
            return tick, {}
    return deadlines(c, raw, label, engine, tz)


def _choice(
    c: Checker, raw: dict, key: str, label: str, allowed: tuple[str, ...], default: str
) -> str:
    value = raw.get(key, default)
    if value not in allowed:
        c.add(raw, key, f"{label}: {key} must be one of {', '.join(allowed)}")
        return default
    return value


def _seats(c: Checker, raw: dict, label: str) -> int | None:
    seats = raw.get("seats")
    if seats is not None and (not isinstance(seats, int) or isinstance(seats, bool) or seats < 1):
        c.add(raw, "seats", f"{label}: seats must be a whole number, 1 or more")
        return None
    return seats


def _players(c: Checker, raw: dict, label: str, seats: int | None) -> list[PlayerConfig]:
    """The listed players, none twice (by name or by address)."""
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
        c.keys(rp, ("name", "email", "timezone", "power", "preferences"), f"{label}: player")
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
            players.append(PlayerConfig(pname, email, ptz, *wished(c, rp, f"{label}: {pname}")))
    return players


def _master(c: Checker, raw: dict, label: str) -> tuple[str | None, str | None]:
    """The game master's address and password: both or neither."""
    master = c.mapping(raw, "master", f"{label}: master")
    c.keys(master, ("email", "password"), f"{label}: master")
    master_email = c.string(master, "email", f"{label}: master email", pattern=EMAIL)
    master_password = c.string(master, "password", f"{label}: master password")
    if master and (master_email is None) != (master_password is None):
        c.add(raw, "master", f"{label}: master needs both email and password")
    return master_email, master_password


def _observers(c: Checker, raw: dict, label: str) -> list[str]:
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
    return observers


TICK_MINUTES = (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30)  # divide an hour
TICK_HOURS = (1, 2, 3, 4, 6, 8, 12, 24)  # divide a day


def _tick(c: Checker, raw: dict, label: str, engine: Any) -> str | None:
    """``tick: 15m``, the length of a clock tick, as the cron expression of
    the deadlines: a number of minutes that divides an hour, or of hours
    that divides a day, so every tick is as long as the others."""
    if engine is not None and not engine.clock_ticks:
        c.add(raw, "tick", f"{label}: {engine.title} has turns, not ticks: give a deadline")
        return None
    length = _duration(c, raw, "tick", label, None)
    if length is None:
        return None
    minutes, rest = divmod(int(length.total_seconds()), 60)
    if rest == 0 and minutes in TICK_MINUTES:
        return f"*/{minutes} * * * *" if minutes > 1 else "* * * * *"
    if rest == 0 and minutes % 60 == 0 and minutes // 60 in TICK_HOURS:
        hours = minutes // 60
        return "0 0 * * *" if hours == 24 else f"0 */{hours} * * *" if hours > 1 else "0 * * * *"
    c.add(
        raw,
        "tick",
        f"{label}: a tick of {raw['tick']} does not divide the day evenly: give minutes "
        f"that divide an hour ({', '.join(map(str, TICK_MINUTES))}) or hours that divide "
        f"a day ({', '.join(map(str, TICK_HOURS))})",
    )
    return None


def _options_and_seed(c: Checker, raw: dict, label: str) -> tuple[dict, int | None]:
    """The game's own options, and its random seed if the master fixed one."""
    options = raw.get("options") or {}
    if not isinstance(options, dict):
        c.add(raw, "options", f"{label}: options must be a mapping")
        options = {}
    seed = raw.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        c.add(raw, "seed", f"{label}: seed must be a whole number, 0 or more")
        seed = None
    return options, seed


def _timing(c: Checker, raw: dict, label: str) -> tuple[bool, Any, timedelta, Any, Any]:
    """Early turns, the reminder, how long a finished game is kept, the
    reactions' cooldown and the shortest phase."""
    early = raw.get("early", False)
    if not isinstance(early, bool):
        c.add(raw, "early", f"{label}: early must be true or false")
        early = False
    remind = _duration(c, raw, "remind", label, timedelta(hours=2))
    keep = _duration(c, raw, "keep", label, timedelta(days=7)) or timedelta(0)
    react_cooldown = _duration(c, raw, "react_cooldown", label, timedelta(minutes=5))
    min_phase = _duration(c, raw, "min_phase", label, None)
    return early, remind, keep, react_cooldown, min_phase


def _visibility(c: Checker, raw: dict, label: str) -> tuple[str, str | None]:
    """Public or private, and a private game's observer password."""
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
    return visibility, observer_password


def _check_map(
    c: Checker,
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
    players[:] = seats_given(c, raw, label, engine, board, players)
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
        fixed = {p.name: p.power for p in players if p.power}
        wishes = {p.name: p.preferences for p in players if p.preferences}
        try:
            engine.start_seated(board, names, options, 0, fixed, wishes)
        except GameError as exc:
            c.add(raw, "options" if "options" in str(exc) else "players", f"{label}: {exc}")
    return resolved


def _position(
    c: Checker,
    raw: dict,
    label: str,
    engine: Any,
    path: Path,
    players: list[PlayerConfig],
    seats: int | None,
    lobby: bool,
) -> str | None:
    """A scenario: the game starts from a position as text (a file relative
    to games.yaml) instead of a map. It reads without a problem, and its
    nations are the game's players, every one listed by name."""
    ref = c.string(raw, "position", f"{label}: position")
    if ref is None or engine is None:
        return None
    if not engine.positions:
        c.add(raw, "position", f"{label}: {engine.title} has no positions as text: give a map")
        return None
    if lobby:
        c.add(raw, "position", f"{label}: a lobby game starts from its map, not a position")
        return None
    file = Path(ref) if Path(ref).is_absolute() else path.resolve().parent / ref
    try:
        state = engine.load_position(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        c.add(raw, "position", f"{label}: the position file {ref!r} is missing (no {file})")
        return None
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        c.add(raw, "position", f"{label}: cannot read the position file {ref!r} ({why})")
        return None
    except GameError as exc:
        for line in str(exc).splitlines():
            c.add(raw, "position", f"{label}: {ref}: {line}")
        return None
    nations = [row.player for row in engine.view(state, None).standings]
    listed = [p.name for p in players]
    if sorted(listed) != sorted(nations) or (seats is not None and seats != len(nations)):
        c.add(
            raw,
            "players",
            f"{label}: the position {ref} is played by {', '.join(sorted(nations))}: "
            "list exactly these players (and no open seats)",
        )
    return str(file)
