"""The position of a Strategic Initiative game: the board, the nations, the
cities and the units, the standing orders, the tick and the seed.

The values are plain mutable dataclasses: a tick copies the state once
(:meth:`State.copy`) and changes the copy, so the state it was given stays
valid (the engine is pure: same state, orders and seed, same result).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

from adjudicator.base import Outcome
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.rules import GAME_TICKS


@dataclass(frozen=True)
class Board:
    """The grid and which squares are land (the rest is water). Cities are
    land; where they stand and what they are named is in ``State.cities``."""

    grid: Grid
    land: frozenset[int]

    def is_land(self, square: int) -> bool:
        return square in self.land

    def coastal(self, square: int) -> bool:
        """Adjacent to water."""
        return any(n not in self.land for n in self.grid.neighbours(square))


@dataclass(slots=True)
class Unit:
    id: str  # the type's short name and a number unique in the game: inf7, tr12
    owner: str  # the nation
    kind: str  # a key of the unit table (data/units.yaml)
    square: int
    hp: int
    ammo: int
    mobility: int
    fuel: int = 0  # air units (part 2)
    built: int = 0  # when it appeared, in the game's order of builds: higher is more recent
    carried_by: str | None = None  # the unit carrying it (part 2)


@dataclass(slots=True)
class City:
    name: str  # what players type: unique in the game
    square: int
    owner: str | None  # None: neutral
    designation: str  # fort, port, airport, tech, base
    build: str | None  # the unit type being built (None: nothing can be, e.g. a base)
    next_build: str | None = None
    progress: int = 0  # game-minutes spent on the current build


@dataclass(frozen=True)
class Pending:
    """A declared relation that takes effect later (a downgrade from
    Friendly or Allied: 96 ticks after it was declared)."""

    due: int  # the tick it takes effect
    toward: str
    level: str


@dataclass(slots=True)
class Sighting:
    """A unit as a nation last saw it (the fog of war's memory)."""

    unit: str
    owner: str
    kind: str
    square: int
    hp: int
    tick: int


@dataclass
class Nation:
    name: str  # the player who plays it
    colour: str
    command: int
    tech: Fraction
    # what this nation has declared toward each other nation, and the level
    # in effect (RULINGS.md: directed, starting Neutral; downgrades and notice)
    declared: dict[str, str] = field(default_factory=dict)
    relations: dict[str, str] = field(default_factory=dict)
    pending: list[Pending] = field(default_factory=list)
    memory: dict[str, Sighting] = field(default_factory=dict)  # by unit id
    status: str = "active"
    # technology leaked to it each tick of the current day: fixed at the
    # day's first tick (ticks 1, 97, 193, ...) from the levels then
    leak: Fraction = Fraction(0)


@dataclass(frozen=True)
class Satellite:
    """A launched spy satellite (part 2): its owner's permanent view of
    the squares around ``square``; no other nation sees or attacks it."""

    id: str  # the id it had on the ground (sat3)
    owner: str
    kind: str  # its unit type (the table's sight is its radius)
    square: int  # the target it was launched to
    tick: int  # the tick it was launched


@dataclass(frozen=True)
class Blast:
    """Where an ICBM came down (part 2): every square within ``radius`` of
    ``square`` is devastated (the map shows it)."""

    nation: str  # who launched it
    square: int
    radius: int
    tick: int
    hit: tuple[str, ...] = ()  # the nations whose cities it devastated (by name)


@dataclass
class Standing:
    """A move or attack given earlier that goes on as mobility allows (step
    3 of a tick), in the order given, until done, blocked or replaced."""

    nation: str
    units: tuple[str, ...]
    target: int
    action: str  # "move" or "attack"
    seq: int  # the order's received sequence number: their order
    line: int = 0


@dataclass
class State:
    board: Board
    nations: dict[str, Nation]  # by player
    cities: dict[int, City]  # by square
    units: dict[str, Unit]  # by id
    tick: int = 0  # ticks done (the first tick after the start is tick 1)
    seed: int = 0
    length: int = GAME_TICKS
    counter: int = 0  # builds so far: the next unit's number and ``built``
    standing: list[Standing] = field(default_factory=list)
    outcome: Outcome | None = None
    options: dict[str, Any] = field(default_factory=dict)
    satellites: dict[str, Satellite] = field(default_factory=dict)  # launched, by id (part 2)
    blasts: list[Blast] = field(default_factory=list)  # ICBMs come down, in order (part 2)
    # what the tick that made this state worked out of it and may be read
    # again (sight: what each nation sees): never written, never compared,
    # dropped by copy(); a state is not changed once a tick has returned it
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def grid(self) -> Grid:
        """The board's grid, read once and kept on the state (a tick asks
        it thousands of times): a state's grid never changes (a board
        replaced by a change of terrain keeps its grid)."""
        return self.board.grid

    def copy(self) -> State:
        """A copy to change: every unit, city and nation its own object (a
        nation's memory its own dict of the same sightings: they are
        replaced, never changed)."""
        new = copy.copy(self)
        new.nations = {k: _nation_copy(n) for k, n in self.nations.items()}
        new.cities = {k: _city_copy(c) for k, c in self.cities.items()}
        new.units = _units_copy(self.units)
        new.standing = list(self.standing)
        new.options = dict(self.options)
        new.satellites = dict(self.satellites)  # their values never change
        new.blasts = list(self.blasts)
        new.cache = {}
        return new

    def units_at(self, square: int) -> list[Unit]:
        """The units in a square, most recently built first."""
        found = [u for u in self.units.values() if u.square == square]
        return sorted(found, key=lambda u: -u.built)

    def devastated(self) -> frozenset[int]:
        """Every square an ICBM has devastated (within a blast's radius)."""
        grid = self.grid
        return frozenset(q for b in self.blasts for q in grid.within(b.square, b.radius))

    def city_named(self, name: str) -> City | None:
        word = name.strip().lower()
        for c in self.cities.values():
            if c.name.lower() == word:
                return c
        return None


# A unit's and a city's copy, field by field (what copy.copy does for them,
# without its general machinery: a big game copies thousands a tick): the
# object made bare and each field set, as the dataclass's own __init__ does
# (it does nothing else), twice as fast as calling it. A field left out here
# is unset in the copy, and reading it raises at once.


def _units_copy(units: dict[str, Unit]) -> dict[str, Unit]:
    """Each unit copied, by the same keys (in one loop, not a call a unit:
    a big game copies thousands a tick)."""
    bare = object.__new__
    out = {}
    for key, u in units.items():
        new = bare(Unit)
        new.id = u.id
        new.owner = u.owner
        new.kind = u.kind
        new.square = u.square
        new.hp = u.hp
        new.ammo = u.ammo
        new.mobility = u.mobility
        new.fuel = u.fuel
        new.built = u.built
        new.carried_by = u.carried_by
        out[key] = new
    return out


def _city_copy(c: City) -> City:
    new = object.__new__(City)
    new.name = c.name
    new.square = c.square
    new.owner = c.owner
    new.designation = c.designation
    new.build = c.build
    new.next_build = c.next_build
    new.progress = c.progress
    return new


def _nation_copy(n: Nation) -> Nation:
    new = copy.copy(n)
    new.declared = dict(n.declared)
    new.relations = dict(n.relations)
    new.pending = list(n.pending)
    new.memory = dict(n.memory)  # a sighting is replaced, never changed: shared
    return new


@lru_cache(maxsize=1024)
def only(nation: str) -> frozenset[str]:
    """``frozenset({nation})``, one value shared by everything only
    ``nation`` may see (a tick makes thousands: results, moves)."""
    return frozenset({nation})


def relation(state: State, a: str, b: str) -> str:
    """The level in effect from nation ``a`` toward nation ``b`` (a nation
    toward itself: allied)."""
    if a == b:
        return "allied"
    return state.nations[a].relations.get(b, "neutral")


def at_war(state: State, a: str, b: str) -> bool:
    """``a`` may attack ``b``'s units and cities (rules, section 15)."""
    return a != b and relation(state, a, b) == "war"
