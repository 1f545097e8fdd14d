"""The game interface every rule set implements, and the values it passes.

The host (``pbem``) only ever talks to a game through a :class:`Game`
object, so it never knows which game it runs. Everything here is pure:
no mail, no disk, no clock, no global random state. A game's state is
plain data that round-trips through JSON exactly, with a format version.

What the five rule sets need of this interface, and where it lives:

* simultaneous orders (Office Wars, Empire) and orders executed in the
  order the server received them (Implosion, Territory's bilateral
  attacks): every :class:`Order` carries ``seq``, the host's received
  sequence number; :attr:`Game.order_mode` says which the game uses.
* chance: :meth:`Game.adjudicate` takes a seed; the host derives it from
  the seed stored with the game (:func:`turn_seed`) and games draw from
  :class:`Rng`, never from :mod:`random`.
* several phases a year (Empire): :meth:`Game.phase` names the phase the
  state is in; a turn moves the state to its next phase.
* start conditions and leaving: :attr:`Game.seats` (Territory starts at
  exactly 6), :meth:`Game.remove_player`.
* hidden information: :meth:`Game.view` is per viewer, and results and
  events carry ``visible_to``; :meth:`TurnResult.for_viewer` filters them.
* votes and scores: votes are orders (``VOTE ...``), their state is in
  :attr:`View.votes`, and :meth:`Game.outcome` gives the winners and scores.
"""

from __future__ import annotations

import difflib
import enum
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from adjudicator.drawing import Scene

# --------------------------------------------------------------------------
# Orders and the three ways an order line fails


class OrderMode(enum.Enum):
    """How a game's orders relate in time."""

    SIMULTANEOUS = "simultaneous"  # all orders of a turn take effect together
    RECEIVED = "received"  # orders run one by one in received order (seq)


@dataclass(frozen=True, slots=True)
class Order:
    """One understood, allowed order. Games subclass this with their fields.

    ``player`` gave it; ``seq`` is the host's received sequence number of
    the mail it came in (0 offline); ``line`` its line number in that mail.
    """

    player: str
    seq: int = 0
    line: int = 0

    @property
    def unit(self) -> str | None:
        """The unit this order commands, or None for orders such as votes.

        Two orders with the same unit key in one sheet: the later replaces
        the earlier, with a warning.
        """
        return None

    def canonical(self) -> str:  # pragma: no cover - every game overrides
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - every game overrides
        raise NotImplementedError


class ProblemKind(enum.Enum):
    NOT_UNDERSTOOD = "not_understood"  # the line is not an order of this game
    NOT_ALLOWED = "not_allowed"  # understood, but not legal in this position
    AMBIGUOUS = "ambiguous"  # a name matches more than one thing


@dataclass(frozen=True, slots=True)
class Problem:
    """A refused order line, returned as a value so the other lines count.

    ``reason`` is a stable code (``"no_such_system"``); ``facts`` hold what
    a template needs to say it in words; ``suggestions`` are the closest
    names or a correct form of the order.
    """

    line: int
    text: str
    kind: ProblemKind
    reason: str
    facts: Mapping[str, Any] = field(default_factory=dict)
    suggestions: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "text": self.text,
            "kind": self.kind.value,
            "reason": self.reason,
            "facts": dict(self.facts),
            "suggestions": list(self.suggestions),
        }


@dataclass(frozen=True, slots=True)
class Notice:
    """Something accepted but worth telling the player (an order replaced)."""

    line: int
    reason: str
    facts: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "reason": self.reason, "facts": dict(self.facts)}


@dataclass(frozen=True, slots=True)
class OrderSheet:
    """What one player's order text came to: the orders that stand (one per
    unit, later lines replacing earlier ones), the refused lines, warnings."""

    player: str
    orders: tuple[Order, ...] = ()
    problems: tuple[Problem, ...] = ()
    warnings: tuple[Notice, ...] = ()


# --------------------------------------------------------------------------
# Results of a turn


@dataclass(frozen=True, slots=True)
class OrderResult:
    """Exactly one per order executed (including the holds of units left
    without orders). ``reason`` is a stable code from the game's reason enum;
    ``succeeded`` follows from it. ``visible_to`` is None (everyone) or the
    players who may see it."""

    order: Order
    succeeded: bool
    reason: str
    facts: Mapping[str, Any] = field(default_factory=dict)
    visible_to: frozenset[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "order": self.order.to_dict(),
            "text": self.order.canonical(),
            "player": self.order.player,
            "succeeded": self.succeeded,
            "reason": self.reason,
            "facts": dict(self.facts),
        }


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in a turn: a conquest, a loss, a deployment,
    an elimination, the end of the game. ``kind`` is a stable code."""

    kind: str
    facts: Mapping[str, Any] = field(default_factory=dict)
    visible_to: frozenset[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **dict(self.facts)}


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What :meth:`Game.adjudicate` returns. The old state stays valid."""

    state: Any
    results: tuple[OrderResult, ...]
    events: tuple[Event, ...]

    def for_viewer(self, viewer: str | None) -> TurnResult:
        """The same result with what ``viewer`` may not see left out.
        ``viewer`` None is the game master, who sees everything."""
        if viewer is None:
            return self

        def visible(item: OrderResult | Event) -> bool:
            return item.visible_to is None or viewer in item.visible_to

        return TurnResult(
            self.state,
            tuple(r for r in self.results if visible(r)),
            tuple(e for e in self.events if visible(e)),
        )


# --------------------------------------------------------------------------
# Views, votes, outcome


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of the standings table. ``measures`` are the game's own
    (systems, units; supply centres; centre points), in display order."""

    player: str
    measures: tuple[tuple[str, int], ...]
    status: str = "active"  # "active", "out", "removed", "winner"


@dataclass(frozen=True, slots=True)
class VoteInfo:
    """The state of one vote: whether it is open, who may vote and the
    weights, who has voted for it, and what it needs to carry."""

    name: str
    open: bool
    facts: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer may see of a state; the report templates' input.

    ``board`` is game-specific data for the map picture and the report (for
    Office Wars: systems, owners, units), already filtered for the viewer.
    ``options`` maps each of the viewer's units to the orders it may give.
    """

    game: str
    turn: int
    phase: str
    standings: tuple[Standing, ...]
    votes: tuple[VoteInfo, ...]
    board: Mapping[str, Any]
    options: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished game: why it ended, the winners, and each player's score."""

    reason: str
    winners: tuple[str, ...]
    scores: Mapping[str, int] = field(default_factory=dict)


def outcome_to_dict(outcome: Outcome | None) -> dict[str, Any] | None:
    """An outcome as the games' saved states keep it."""
    if outcome is None:
        return None
    return {
        "reason": outcome.reason,
        "winners": list(outcome.winners),
        "scores": dict(sorted(outcome.scores.items())),
    }


def outcome_from_dict(data: Mapping[str, Any] | None) -> Outcome | None:
    if data is None:
        return None
    return Outcome(data["reason"], tuple(data["winners"]), dict(data["scores"]))


def player_by_name_or_colour(players: Any, word: str) -> str | None:
    """The player a name or colour means (orders files use either); players
    have ``name`` and ``colour``."""
    low = word.strip().lower()
    for p in players:
        if low in (p.name.lower(), p.colour.lower()):
            return p.name
    return None


def closest_names(word: str, names: Sequence[str], n: int = 3) -> tuple[str, ...]:
    """The names most like a mistyped ``word``, best first, for "did you
    mean" suggestions: close spellings (any case), then names that start
    with or contain it. Every game suggests with this."""
    low = " ".join(word.lower().split())
    if not low:
        return ()
    by_key: dict[str, str] = {}
    for name in names:
        by_key.setdefault(name.lower(), name)
    hits = difflib.get_close_matches(low, list(by_key), n=n, cutoff=0.6)
    hits += sorted(k for k in by_key if k.startswith(low) and k not in hits)
    hits += sorted(k for k in by_key if low in k and k not in hits)
    return tuple(by_key[k] for k in hits[:n])


def is_absence_line(text: str) -> bool:
    """Whether an order line speaks of the player's absence (``AWAY``,
    ``BACK``, ``I am away until ...``): games whose rules have no absence
    refuse it with their own reason instead of "not an order"."""
    words = text.lower().replace("'m", " am").split()
    if words[:2] == ["i", "am"]:
        words = words[2:]
    return bool(words) and words[0] in ("away", "back", "absent", "absence")


def counted(count: int, noun: str, many: str | None = None) -> str:
    """A count in good English for view text: "1 unit", "3 units"."""
    return f"{count} {noun if count == 1 else (many or noun + 's')}"


@dataclass(frozen=True, slots=True)
class Seats:
    """How many players a game takes. ``exact`` games start only when
    exactly ``maximum`` have joined (Territory: 6)."""

    minimum: int
    maximum: int
    exact: bool = False

    def takes(self) -> str:
        """How many players, in words: "6 players", "2 to 64 players"."""
        if self.exact:
            return f"{self.maximum} players"
        return f"{self.minimum} to {self.maximum} players"

    def can_start(self, count: int) -> bool:
        if self.exact:
            return count == self.maximum
        return self.minimum <= count <= self.maximum


class GameError(ValueError):
    """Bad input to a game that is not an order line: a malformed map, an
    unknown option, a state file of another game or format. The message
    names the problem."""


# --------------------------------------------------------------------------
# The interface


class StateCodec(Protocol):
    """What writes a game's state as text and reads it back: a game's
    ``state`` module (``dump(state)``, ``load(text)``)."""

    def dump(self, state: Any) -> str: ...

    def load(self, text: str) -> Any: ...


class Game:
    """One rule set: every game subclasses this. Every method is pure and
    deterministic.

    The first group of methods every game implements. The optional
    capabilities below them have a default here that is right for a game
    without the capability; a game overrides only what it has. The host
    reads every capability as a plain attribute or method of the game
    (docs/interface.md lists them), never by probing.
    """

    name: str  # the key in games.yaml ("officewars")
    title: str  # for people ("Office Wars")
    order_mode: OrderMode
    seats: Seats
    codec: StateCodec  # the default dump_state and load_state use it

    # -- what every game implements ------------------------------------------

    def maps(self) -> tuple[str, ...]:
        """The names of the maps shipped with the game."""
        raise NotImplementedError

    def load_map(self, source: str) -> Any:
        """A shipped map by name, or a map file's YAML text. Raises
        :class:`GameError` naming every problem of a malformed map."""
        raise NotImplementedError

    def start(
        self, board: Any, players: Sequence[str], options: Mapping[str, Any], seed: int
    ) -> Any:
        """The state of a new game for ``players`` (in seat order)."""
        raise NotImplementedError

    def phase(self, state: Any) -> tuple[int, str]:
        """The turn number and a name for the phase the state is in."""
        raise NotImplementedError

    def phase_title(self, phase: str) -> str:
        """A phase's name (as ``phase`` gives it) for people reading a
        page: the name itself, unless the game has words for its codes."""
        return phase

    def map_file(self, turn: int, phase: str) -> str:
        """The name, without its extension, of the map attached to a
        turn's report mail (PNG and SVG): ``turn`` and ``phase`` as
        :meth:`phase` gave them for the turn played. By default
        ``map-<turn>``."""
        return f"map-{turn}"

    def start_map_file(self, state: Any) -> str:
        """The name, without its extension, of the map attached to the
        start mail (and to a player's who takes over a seat): the position
        ``state`` before the turn to be played. By default ``map``."""
        return "map"

    def read_orders(self, state: Any, player: str, text: str, seq: int = 0) -> OrderSheet:
        """Parse and validate one player's order text against ``state``."""
        raise NotImplementedError

    def default_orders(self, state: Any, player: str, orders: Sequence[Order]) -> tuple[Order, ...]:
        """The orders the player's units get for lack of one (holds)."""
        raise NotImplementedError

    def adjudicate(self, state: Any, sheets: Sequence[OrderSheet], seed: int = 0) -> TurnResult:
        """Resolve one turn. Units without orders get their defaults."""
        raise NotImplementedError

    def remove_player(self, state: Any, player: str) -> Any:
        """The state after ``player`` has left the game."""
        raise NotImplementedError

    def view(self, state: Any, viewer: str | None) -> View:
        """What ``viewer`` may see (None: the game master, everything)."""
        raise NotImplementedError

    # -- the same for most games: the state keeps its players and outcome ----

    def outcome(self, state: Any) -> Outcome | None:
        """None while the game goes on; by default the state's ``outcome``."""
        return state.outcome  # type: ignore[no-any-return]

    def dump_state(self, state: Any) -> str:
        """Canonical JSON: sorted keys, a format version; exact round trip.
        By default the game's :attr:`codec` writes it."""
        return self.codec.dump(state)

    def load_state(self, text: str) -> Any:
        """The inverse of :meth:`dump_state`; :class:`GameError` if not ours."""
        return self.codec.load(text)

    def player_for(self, state: Any, word: str) -> str | None:
        """The player that a name (or the game's colour, faction or power
        name) means in ``state``; None if nobody. By default a player's
        name or colour (the state's ``players`` have ``name`` and
        ``colour``)."""
        return player_by_name_or_colour(state.players, word)

    def masked(self, state: Any) -> Any | None:
        """The state with every player named by what they play (a game
        played anonymously, games.yaml ``anonymous: true``: its readers see
        powers, never names); None: the game cannot be played so. Empire:
        each player renamed to its power."""
        return None

    def press_signature(self, state: Any, player: str) -> str:
        """How press from ``player`` is signed: the player's name, unless
        the game's players are known by what they play (Empire: "England
        (ann)")."""
        return player

    def seat(self, state: Any, player: str) -> str | None:
        """What ``player`` plays in ``state`` as the game names it: a
        colour (a colour name, or a code such as ``#f23d3d`` that the host
        puts in words), a power or a faction; None if the player is not in
        the game. By default the ``colour`` of the state's player."""
        for p in state.players:
            if p.name == player:
                return p.colour or None  # type: ignore[no-any-return]
        return None

    # -- optional capabilities, with the default of a game without them -------

    default_deadline: str | None = None
    """The cron expression of the game's turns when games.yaml gives no
    ``deadline`` (None: games.yaml must give one)."""

    lobby: bool = False
    """Players JOIN a lobby rather than being listed in games.yaml; the
    game starts when :attr:`seats` are filled (Territory)."""

    tracks_presence: bool = False
    """Any mail from a player counts as being there: the host passes a
    sheet for every player who mailed at all in the turn (the game's
    absence rules; Territory)."""

    uses_chance: bool = False
    """The game draws from its seed in adjudication (Implosion): reports
    say so and name the seed."""

    scoreboard: bool = False
    """A finished game's scores go onto the server's scoreboard (Empire)."""

    positions: bool = False
    """The game reads and writes positions as text (:meth:`load_position`,
    :meth:`dump_position`, :meth:`phase_result`; Empire)."""

    generates_maps: bool = False
    """The game makes random maps (:meth:`generate_map`; Office Wars)."""

    clock_ticks: bool = False
    """A turn is a tick of the game's clock (Strategic Initiative): orders
    are never too late. A mail that arrives after a tick's deadline, or is
    read after the tick ran, counts for the next tick, in the order
    received; a tick runs with every order read by then. Such a game says
    in :meth:`to_order` that nobody owes orders, so there are no
    reminders, no READY and no missed turns."""

    pieces: str = "units"
    """What a player's pieces are called in the host's mail ("Your units",
    "Units without orders hold"): Territory's are "states"."""

    without_orders: str = "Units without orders hold."
    """What becomes of pieces given no orders, in the start mail's words."""

    def order_forms(self, state: Any, player: str) -> tuple[str, ...]:
        """The forms of the game's orders written with ``player``'s own
        pieces and places they can reach now, for the start mail (default
        none: the mail shows the forms in general words)."""
        return ()

    def status_lines(self, state: Any, viewer: str | None) -> list[str]:
        """Lines STATUS adds for a reader of the game (default none):
        Territory lists every state with its owner, troops and production."""
        return []

    order_words: frozenset[str] = frozenset()
    """Words that begin one of the game's orders although the host has a
    command of that name (Strategic Initiative's ``status``, a situation
    report at the next tick): in a player's section of a mail such a line
    is an order of the game, and the host's command runs as well."""

    phase_kinds: tuple[str, ...] = ("movement",)
    """The kinds of phase the game has, the first its main one: games.yaml
    may give each kind its own deadline (a cron, or a length after the
    phase opens). Empire: movement, retreat, adjustment."""

    def phase_kind(self, state: Any) -> str:
        """Which of :attr:`phase_kinds` the phase to be played in ``state``
        is: its deadline is the one games.yaml gives that kind. The
        default: every phase is a movement phase."""
        return "movement"

    def to_order(self, state: Any) -> frozenset[str]:
        """The players who have something to order in ``state``: the host
        reminds them, waits for their READY, and charges a missed phase only
        to them. The default is every player :meth:`view` lists as active,
        which is right for games where an active player always holds
        something to order (Office Wars, Implosion, Territory); Empire's
        retreat phase concerns only the powers with a dislodged unit."""
        return frozenset(s.player for s in self.view(state, None).standings if s.status == "active")

    def end_now(self, state: Any, reason: str = "ended_by_the_game_master") -> Any | None:
        """The state of the game ended by the game master now, with an
        outcome that scores the position as it stands (Empire); None (the
        default) for a game that has no scores before its own end."""
        return None

    def describe_map(self, board: Any) -> str:
        """One line about a map (its title and size), for ``pbem maps``."""
        return f"{board.title}, for {self.seats.takes()}"

    def map_players(self, board: Any) -> int:
        """How many players a map is made for (its home worlds, its
        powers); by default the most an exact game takes, else at least six
        within :attr:`seats`."""
        seats = self.seats
        return seats.maximum if seats.exact else max(seats.minimum, 6)

    def picture(self, view: View, results: Sequence[OrderResult]) -> Scene:
        """The map of ``view`` with the orders of ``results`` drawn on it, as
        neutral drawing primitives (:mod:`adjudicator.drawing`): the host
        places the wanted names and renders it as SVG and PNG. The default
        is an empty picture titled with the phase."""
        return Scene(f"{self.title}, {view.phase}", 40.0)

    def generate_map(self, size: int, players: int, seed: int = 0) -> str:
        """A random map as the YAML text :meth:`load_map` reads: ``size``
        places and home worlds for ``players``, the same for the same
        arguments (only if :attr:`generates_maps`)."""
        raise GameError(f"{self.title} makes no random maps")

    def seat_names(self, board: Any) -> tuple[str, ...]:
        """The seats a game master may give a player and players may rank
        in order of wish (Empire: the powers). Empty (the default): what a
        player plays is the game's to deal, nobody chooses it."""
        return ()

    def read_seat(self, board: Any, word: str) -> str | None:
        """The seat of :meth:`seat_names` a player's word names (any case,
        the game's short forms); None if it names none."""
        return None

    def start_seated(
        self,
        board: Any,
        players: Sequence[str],
        options: Mapping[str, Any],
        seed: int,
        fixed: Mapping[str, str],
        preferences: Mapping[str, Sequence[str]],
    ) -> Any:
        """:meth:`start`, with seats of :meth:`seat_names` given by the game
        master (``fixed``: player to seat) and players' lists of wishes
        (``preferences``: player to seats, the most wished first); the
        default, for a game without seats to choose, takes neither."""
        if fixed or preferences:
            raise GameError(f"{self.title} players do not choose what they play")
        return self.start(board, players, options, seed)

    def load_position(self, text: str) -> Any:
        """A state from a position as text (only if :attr:`positions`);
        :class:`GameError` names every problem."""
        raise GameError(f"{self.title} has no positions as text")

    def dump_position(self, state: Any) -> str:
        """The position of ``state`` as text (only if :attr:`positions`)."""
        raise GameError(f"{self.title} has no positions as text")

    def report_for(self, before: Any, result: TurnResult, viewer: str | None) -> str | None:
        """What a reader's mail after a turn is (``viewer`` as in
        :meth:`view`: a player, the observers' name, or None for the game
        master): None for no mail this turn, or a word the game's report
        templates read as ``report``. The default, "turn", mails every
        reader every turn's report; Strategic Initiative mails a "tick"
        report only to a player the tick concerns, and a "situation" report
        every 16 ticks and on request."""
        return "turn"

    def phase_result(self, before: Any, result: TurnResult) -> dict[str, Any]:
        """One phase as JSON-ready data: the orders with their results and
        both positions (only if :attr:`positions`)."""
        raise GameError(f"{self.title} has no positions as text")


# --------------------------------------------------------------------------
# Chance: a seeded generator of our own, stable across Python versions


def turn_seed(game_seed: int, turn: int, phase: str = "") -> int:
    """The seed of one turn, derived from the seed stored with the game, so
    a turn redone after a crash draws exactly the same numbers."""
    digest = hashlib.sha256(f"{game_seed}:{turn}:{phase}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class Rng:
    """SplitMix64: small, fast, and the same numbers on every platform and
    Python version (the standard library promises that only for random())."""

    _MASK = (1 << 64) - 1

    def __init__(self, seed: int) -> None:
        self._state = seed & self._MASK

    def next64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & self._MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self._MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self._MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), without modulo bias."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def coin(self) -> bool:
        """A fair coin: True half the time."""
        return bool(self.next64() >> 63)

    def choice(self, items: Sequence[Any]) -> Any:
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[Any]) -> list[Any]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def canonical_json(data: Any) -> str:
    """The one JSON form of game data: sorted keys, no spaces, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
