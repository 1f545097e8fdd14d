"""The economy of a tick: what accrues (step 1 of RULINGS.md's tick), the
builds that complete (step 2), and the orders that set a city's builds.

Every function takes a :class:`State` the tick has already copied and
changes it in place; what happens is appended to ``events`` as
:class:`Event` values whose ``visible_to`` names the nations concerned.
``state.tick`` is the number of the tick being run (ticks count from 1).

Rule text: strategic-initiative.html, sections 3 (cities), 4 (mobility),
8 (healing), 13 (technology) and 14 (command points and the power limit);
RULINGS.md, Strategic Initiative.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from math import floor
from operator import attrgetter
from typing import Any

from adjudicator.base import Event
from adjudicator.strategic.board import new_unit
from adjudicator.strategic.rules import (
    HEAL_IN_CITY,
    HEAL_IN_SUPPLY,
    MINUTES_PER_TICK,
    MOBILITY_EVERY,
    MOBILITY_MOST,
    TICKS_PER_DAY,
    UnitType,
    tables,
)
from adjudicator.strategic.state import City, Nation, State, Unit, relation

PART = 2  # the rules built so far: every unit type of the table is buildable
POWER_PER_CITY = 5  # a nation's power may not pass 5 x its cities (section 14)
MINUTES_PER_HOUR = 60

InSupply = Callable[[State, Unit], bool]


class BuildRefused(enum.StrEnum):
    """Why a BUILD or NEXT BUILD order is refused; the facts say the rest."""

    NO_SUCH_CITY = "no_such_city"  # city
    NOT_YOUR_CITY = "not_your_city"  # city
    NO_SUCH_UNIT_TYPE = "no_such_unit_type"  # kind
    TECH_TOO_LOW = "tech_too_low"  # kind, needed, tech
    NEXT_TECH_TOO_HIGH = "next_tech_too_high"  # kind, needed, most (tech + 2)
    PORT_NEEDS_COAST = "port_needs_coast"  # city, kind
    NEXT_NOT_BUILT_THERE = "next_not_built_there"  # city, kind, built_in, designation
    NAME_A_UNIT = "name_a_unit"  # city, designation, units: a designation comes with a unit
    BASE_IS_NOT_NEXT = "base_is_not_next"  # city: a base is a designation, not a next build


@dataclass(frozen=True, slots=True)
class Refusal:
    """An order refused, as a code and the facts a template words."""

    reason: enum.StrEnum
    facts: Mapping[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------
# What each nation holds, counted once a step


@dataclass
class Holdings:
    cities: int = 0
    command: int = 0  # command points its cities yield a tick (a base 2, others 1)
    centres: int = 0  # tech centres and bases
    units: int = 0
    capital: int = 0  # capital ships
    power: int = 0  # the cost of its units, zeppelins excluded


def holdings(state: State) -> dict[str, Holdings]:
    """Every nation's cities, units and power, in one pass over each."""
    t = tables()
    out = {name: Holdings() for name in state.nations}
    for city in state.cities.values():
        if city.owner in out:
            h = out[city.owner]
            ct = t.cities[city.designation]
            h.cities += 1
            h.command += ct.command
            h.centres += ct.technology
    for (owner, kind), n in Counter(map(_owner_kind, state.units.values())).items():
        if owner in out:  # counted by nation and type first: 5,000 units a tick
            h = out[owner]
            ut = t.unit(kind)
            h.units += n
            h.capital += n * ut.capital
            h.power += n * ut.power
    return out


_owner_kind = attrgetter("owner", "kind")


# --------------------------------------------------------------------------
# Step 1: accruals


def accrue(state: State, events: list[Event], in_supply: InSupply) -> None:
    """Step 1 of a tick: command points, technology, build progress; on
    every 16th tick mobility and healing. ``in_supply`` tells whether a unit
    is in supply (supply.py); ammo is topped up there, not here."""
    held = holdings(state)
    accrue_command(state, held)
    accrue_technology(state, held, events)
    accrue_progress(state)
    if state.tick % MOBILITY_EVERY == 0:
        add_mobility(state)
        heal(state, in_supply)


def command_gain(h: Holdings) -> int:
    """Section 14, RULINGS.md: (cities that are not bases) + 2 x bases +
    capital ships, then at least 2 and at most 15. A nation that holds no
    city and no unit gains nothing: it is out of the game."""
    if not h.cities and not h.units:
        return 0
    t = tables()
    return max(t.per_tick_least, min(t.per_tick_most, h.command + h.capital))


def accrue_command(state: State, held: Mapping[str, Holdings]) -> None:
    """Command points of the tick; the total never above 1024."""
    most = tables().command_most
    for name, nation in state.nations.items():
        if nation.status == "active":
            nation.command = min(most, max(0, nation.command) + command_gain(held[name]))


def accrue_technology(state: State, held: Mapping[str, Holdings], events: list[Event]) -> None:
    """Technology of the tick: the table's gain for the nation's tech
    centres (bases count), spread over the 96 ticks of a day, plus the
    day's leak; at most 16. A nation whose level passes a whole number is
    told (new unit types may be built)."""
    t = tables()
    if (state.tick - 1) % TICKS_PER_DAY == 0:  # a day starts: fix its leak
        for name in state.nations:
            state.nations[name].leak = leak_per_day(state, name) / TICKS_PER_DAY
    for name in sorted(state.nations):
        nation = state.nations[name]
        if nation.status != "active":
            continue
        gain = t.technology_gain(held[name].centres) / TICKS_PER_DAY + nation.leak
        was = nation.tech
        nation.tech = min(Fraction(t.technology_most), was + gain)
        if floor(nation.tech) > floor(was):
            facts = {"nation": name, "tech": floor(nation.tech), "was": floor(was)}
            events.append(Event("technology", facts, frozenset({name})))


def leak_per_day(state: State, name: str) -> Fraction:
    """Section 13: the larger of the ally leak, (best ally's tech - mine) /
    2, and the other leak, (top tech - mine) / 4, a day; never negative.
    Allies are the nations Allied with this one (both ways, in effect)."""
    mine = state.nations[name].tech
    active = [n for n in state.nations.values() if n.status == "active"]
    top = max((n.tech for n in active), default=mine)
    best = max((n.tech for n in active if _allies(state, name, n.name)), default=mine)
    return max((best - mine) / 2, (top - mine) / 4, Fraction(0))


def _allies(state: State, a: str, b: str) -> bool:
    return a != b and relation(state, a, b) == "allied" and relation(state, b, a) == "allied"


def accrue_progress(state: State) -> None:
    """Each city's current build gains 15 minutes a tick (section 3). A
    neutral city builds nothing; a build beyond the owner's technology
    (a city just captured) or of a later part makes no progress."""
    for city in state.cities.values():
        if city.owner is None or city.build is None:
            continue
        if buildable_now(state.nations[city.owner], tables().unit(city.build)):
            city.progress += MINUTES_PER_TICK


def buildable_now(nation: Nation, ut: UnitType) -> bool:
    """The nation may build ``ut`` now: its technology suffices and the
    type belongs to the rules built so far."""
    return ut.part <= PART and nation.tech >= ut.tech


def add_mobility(state: State) -> None:
    """Section 4: every 16 ticks each unit gains its table mobility, to at
    most 3 times it (a unit already above keeps what it has)."""
    t = tables()
    for unit in state.units.values():
        ut = t.unit(unit.kind)
        most = MOBILITY_MOST * ut.mobility
        unit.mobility = max(unit.mobility, min(most, unit.mobility + ut.mobility))


def heal(state: State, in_supply: InSupply) -> None:
    """Every 16 ticks: 40% of full HP in a city of its own nation or an
    ally (a ship in port too), 20% in supply elsewhere, nothing out of
    supply; rounded down, never above full (section 3, 8; RULINGS.md)."""
    t = tables()
    for uid in sorted(state.units):
        unit = state.units[uid]
        full = t.unit(unit.kind).hp
        if unit.hp < full:
            share = heal_share(state, unit, in_supply)
            unit.hp = min(full, unit.hp + full * share.numerator // share.denominator)


def heal_share(state: State, unit: Unit, in_supply: InSupply) -> Fraction:
    city = state.cities.get(unit.square)
    if city is not None and city.owner is not None and _friendly_city(state, unit, city):
        return HEAL_IN_CITY
    return HEAL_IN_SUPPLY if in_supply(state, unit) else Fraction(0)


def _friendly_city(state: State, unit: Unit, city: City) -> bool:
    assert city.owner is not None
    return city.owner == unit.owner or _allies(state, unit.owner, city.owner)


# --------------------------------------------------------------------------
# Step 2: builds that completed


def complete_builds(state: State, events: list[Event]) -> None:
    """Step 2 of a tick, city by city in board order: a build whose
    progress reached its cost in hours appears, unless it would take the
    nation's power past 5 x its cities (then it is skipped and its owner
    told); either way the city starts its next build. A city that builds
    nothing for want of technology starts the cheapest unit its designation
    allows once one is within reach."""
    held = holdings(state)
    for square in sorted(state.cities):
        city = state.cities[square]
        if city.owner is None:
            continue
        if city.build is None:
            _start_first(state, city, events)
            continue
        ut = tables().unit(city.build)
        if city.progress < ut.cost * MINUTES_PER_HOUR or not buildable_now(
            state.nations[city.owner], ut
        ):
            continue
        city.progress -= ut.cost * MINUTES_PER_HOUR
        _finish(state, city, ut, held[city.owner], events)


def _finish(state: State, city: City, ut: UnitType, h: Holdings, events: list[Event]) -> None:
    owner = city.owner
    assert owner is not None
    limit = POWER_PER_CITY * h.cities
    if ut.power and h.power + ut.power > limit:
        _start_next(state, city)
        facts = {"city": city.name, "kind": ut.key, "power": h.power, "cost": ut.power,
                 "limit": limit, "building": city.build}  # fmt: skip
        events.append(Event("build_skipped", facts, frozenset({owner})))
        return
    unit = appear(state, city, ut)
    h.power += ut.power
    h.units += 1
    h.capital += ut.capital
    _start_next(state, city)
    facts = {"city": city.name, "unit": unit.id, "kind": ut.key,
             "square": state.grid.name(city.square), "building": city.build}  # fmt: skip
    events.append(Event("built", facts, frozenset({owner})))


def appear(state: State, city: City, ut: UnitType) -> Unit:
    """A new unit of ``ut`` in ``city``, as built (board.new_unit: full HP
    and ammo, mobility the table's value, fuel the same for air units; its
    id the type's short name and the game's build count, ``inf7``)."""
    assert city.owner is not None
    return new_unit(state, city.owner, ut.key, city.square)


def _start_next(state: State, city: City) -> None:
    """Section 3: the next build starts if the nation's technology allows
    it now; else the city keeps building the current type (the next build
    waits)."""
    assert city.owner is not None
    if city.next_build is None:
        return
    nt = tables().unit(city.next_build)
    if nt.built_in == city.designation and buildable_now(state.nations[city.owner], nt):
        city.build = nt.key
        city.next_build = None


def _start_first(state: State, city: City, events: list[Event]) -> None:
    assert city.owner is not None
    first = cheapest(state.nations[city.owner], city.designation)
    if first is None:
        return
    city.build = first.key
    city.progress = 0
    facts = {"city": city.name, "kind": first.key}
    events.append(Event("build_started", facts, frozenset({city.owner})))


def cheapest(nation: Nation, designation: str) -> UnitType | None:
    """The cheapest unit type a city of ``designation`` can build for
    ``nation`` now (None: none; an airport before technology allows)."""
    for ut in tables().buildable(designation):
        if buildable_now(nation, ut):
            return ut
    return None


# --------------------------------------------------------------------------
# BUILD and NEXT BUILD orders


def set_build(
    state: State,
    nation: str,
    city_name: str,
    kind: str | None,
    next: bool = False,
    events: list[Event] | None = None,
) -> Refusal | None:
    """Set a city's current build (``next`` False) or its next build.

    The current build must be within the nation's technology; changing it
    changes the city's designation to where the unit is built (a port
    needs a coastal city) and loses the progress. ``kind`` ``base`` makes
    the city a base, which builds nothing. The next build may be up to 2
    above the nation's technology and must be built in the designation the
    city has; ``kind`` None clears it. Only the nation's own cities.
    A next build that the new designation cannot build is dropped (an
    event tells the owner). Returns None when done."""
    city = state.city_named(city_name)
    if city is None:
        return Refusal(BuildRefused.NO_SUCH_CITY, {"city": city_name})
    if city.owner != nation:
        return Refusal(BuildRefused.NOT_YOUR_CITY, {"city": city.name})
    if next and kind is None:
        city.next_build = None
        return None
    found = _kind(city, kind or "", next)
    if isinstance(found, Refusal):
        return found
    if next:
        return _set_next(state.nations[nation], city, found)
    return _set_current(state, city, found, events if events is not None else [])


def _kind(city: City, kind: str, next: bool) -> UnitType | str | Refusal:
    """The unit type ``kind`` names, or a designation that builds nothing
    (``base``), or why neither."""
    t = tables()
    word = _designation(kind)
    if word is not None:
        if not t.cities[word].builds_nothing:
            units = [u.key for u in t.buildable(word) if u.part <= PART]
            facts = {"city": city.name, "designation": word, "units": units}
            return Refusal(BuildRefused.NAME_A_UNIT, facts)
        if next:
            return Refusal(BuildRefused.BASE_IS_NOT_NEXT, {"city": city.name})
        return word
    ut = t.units.get(kind) or t.by_name(kind)
    if ut is None:
        return Refusal(BuildRefused.NO_SUCH_UNIT_TYPE, {"kind": kind})
    return ut


def _designation(kind: str) -> str | None:
    """The city designation ``kind`` names (its key or name, any case or
    spacing: "tech centre", "Base"), or None."""

    def norm(text: str) -> str:
        return "".join(ch for ch in text.lower() if ch.isalnum())

    for key, ct in tables().cities.items():
        if norm(kind) in (norm(key), norm(ct.name)):
            return key
    return None


def _set_next(nation: Nation, city: City, ut: UnitType | str) -> Refusal | None:
    assert isinstance(ut, UnitType)
    if ut.tech > nation.tech + 2:
        facts = {"kind": ut.key, "needed": ut.tech, "most": floor(nation.tech) + 2}
        return Refusal(BuildRefused.NEXT_TECH_TOO_HIGH, facts)
    if ut.built_in != city.designation:
        facts = {"city": city.name, "kind": ut.key, "built_in": ut.built_in,
                 "designation": city.designation}  # fmt: skip
        return Refusal(BuildRefused.NEXT_NOT_BUILT_THERE, facts)
    city.next_build = ut.key
    return None


def _set_current(
    state: State, city: City, ut: UnitType | str, events: list[Event]
) -> Refusal | None:
    designation = ut if isinstance(ut, str) else ut.built_in
    if isinstance(ut, UnitType):
        nation = state.nations[city.owner or ""]
        if nation.tech < ut.tech:
            facts = {"kind": ut.key, "needed": ut.tech, "tech": floor(nation.tech)}
            return Refusal(BuildRefused.TECH_TOO_LOW, facts)
        if tables().cities[designation].needs_coast and not state.board.coastal(city.square):
            return Refusal(BuildRefused.PORT_NEEDS_COAST, {"city": city.name, "kind": ut.key})
        if city.build == ut.key:
            return None  # the same build: nothing changes, the progress stays
    elif city.designation == designation:
        return None
    city.designation = designation
    city.build = ut.key if isinstance(ut, UnitType) else None
    city.progress = 0
    _drop_next(city, events)
    return None


def _drop_next(city: City, events: list[Event]) -> None:
    """A next build the city's new designation cannot build is dropped."""
    if city.next_build is None or city.owner is None:
        return
    if tables().unit(city.next_build).built_in != city.designation:
        facts = {"city": city.name, "kind": city.next_build, "designation": city.designation}
        events.append(Event("next_build_dropped", facts, frozenset({city.owner})))
        city.next_build = None


def power(state: State, nation: str) -> int:
    """A nation's power: the cost of its units, zeppelins excluded."""
    return holdings(state)[nation].power


def power_limit(state: State, nation: str) -> int:
    return POWER_PER_CITY * holdings(state)[nation].cities
