"""Air units (rules, sections 4, 6 and 9; RULINGS.md): fuel, the places
where planes refuel, crashes, and the refuel order.

An air unit's fuel is its table mobility when refuelled; every square flown
costs 1 fuel and 1 mobility (movement._step). It is refuelled, and its ammo
topped up, at the end of any move that ends in a refuelling place and at
each tick's accruals while it is in one. A plane with no fuel at the end of
a move outside a refuelling place crashes; so does one found so at the end
of a tick (its carrier sailed off, an alliance ended). Between ticks a plane
loses no fuel: only flying costs it (a ruling: one that ends its move over
the sea with fuel left stays there, aloft). Zeppelins need no fuel.

Refuelling places: an allied airport; for light planes (fighters, naval
bombers, helicopters) also an allied base and an allied carrier in the
square; for helicopters also any allied city and any allied capital ship.
"Allied" includes the plane's own nation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from adjudicator.base import Event
from adjudicator.strategic import cargo
from adjudicator.strategic.board import full_fuel
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.rules import UnitType, tables
from adjudicator.strategic.state import State, Unit, only, relation
from adjudicator.strategic.units import remove

Refusal = tuple[Reason, dict[str, Any]]


@cache
def flies(key: str) -> bool:
    """Whether units of the type ``key`` are air units."""
    return tables().unit(key).domain == "air"


@cache
def needs_fuel(key: str) -> bool:
    """Whether units of the type ``key`` burn fuel (air units but zeppelins)."""
    return full_fuel(tables().unit(key)) > 0


def _allied(state: State, nation: str, owner: str | None) -> bool:
    return owner is not None and relation(state, nation, owner) == "allied"


def refuels_in_city(state: State, unit: Unit, kind: UnitType, square: int) -> bool:
    """An allied city there refuels the plane: an airport any plane, a base
    light planes, any city a helicopter."""
    city = state.cities.get(square)
    if city is None or not _allied(state, unit.owner, city.owner):
        return False
    if "refuels_anywhere" in kind.flags:
        return True
    refuels = tables().cities[city.designation].refuels
    return refuels == "all" or (refuels == "light" and "light" in kind.flags)


def refuels_on(state: State, unit: Unit, kind: UnitType, ship: Unit) -> bool:
    """An allied ship refuels the plane: a carrier (it carries light planes)
    a light plane, any capital ship a helicopter."""
    if ship.id == unit.id or not _allied(state, unit.owner, ship.owner):
        return False
    other = tables().unit(ship.kind)
    if "refuels_anywhere" in kind.flags and other.capital:
        return True
    return "light" in kind.flags and dict(other.carries).get("light", 0) > 0


def refuelling_place(
    state: State, unit: Unit, square: int, others: Iterable[Unit] | None = None
) -> bool:
    """Whether ``square`` refuels ``unit`` (``others``: the units there, if
    known; read from the state if not)."""
    kind = tables().unit(unit.kind)
    if refuels_in_city(state, unit, kind, square):
        return True
    there = others if others is not None else state.units_at(square)
    ships = _refuellers(unit.kind)  # the others asked only if their type may refuel it
    return any(u.kind in ships and refuels_on(state, unit, kind, u) for u in there)


@cache
def _refuellers(key: str) -> frozenset[str]:
    """The unit types of which an allied unit may refuel a plane of the
    type ``key`` (:func:`refuels_on`): none for a type that flies alone."""
    kind, units = tables().unit(key), tables().units
    return frozenset(
        k
        for k, other in units.items()
        if ("refuels_anywhere" in kind.flags and other.capital)
        or ("light" in kind.flags and dict(other.carries).get("light", 0) > 0)
    )


def refuels_here(state: State, places: Places, unit: Unit, square: int | None = None) -> bool:
    """:func:`refuelling_place` with the units read from the index (in no
    order: any one that refuels will do)."""
    where = unit.square if square is None else square
    kind = tables().unit(unit.kind)
    if refuels_in_city(state, unit, kind, where):
        return True
    ships, units = _refuellers(unit.kind), state.units  # refuelling_place's look, inline
    if ships:
        for uid in places.at.get(where, ()):
            u = units.get(uid)
            if u is not None and u.kind in ships and refuels_on(state, unit, kind, u):
                return True
    return False


def refuel(unit: Unit) -> None:
    """Fuel to the table mobility, ammo to full."""
    kind = tables().unit(unit.kind)
    unit.fuel = full_fuel(kind)
    unit.ammo = max(unit.ammo, kind.ammo)


# -- the end of a move, the accruals, the end of a tick ----------------------------


def landed(state: State, places: Places, unit: Unit, events: list[Event]) -> bool:
    """The end of a move of ``unit``: an air unit in a refuelling place is
    refuelled; one with no fuel outside one crashes. True if it crashed."""
    if unit.id not in state.units or not flies(unit.kind):
        return False
    if refuels_here(state, places, unit):
        refuel(unit)
        return False
    if unit.fuel > 0 or not needs_fuel(unit.kind):
        return False
    crash(state, places, unit, events)
    return True


def crash(state: State, places: Places, unit: Unit, events: list[Event]) -> None:
    """The plane is lost where it is (its standing order with it)."""
    remove(state, places, unit)
    facts = {
        "unit": unit.id,
        "unit_type": unit.kind,
        "nation": unit.owner,
        "square": state.grid.name(unit.square),
    }
    events.append(Event(Happened.CRASHED, facts, only(unit.owner)))
    events += cargo.lost_with(state, places, unit, (unit.id, None, unit.square))


@cache
def _kinds() -> tuple[frozenset[str], frozenset[str]]:
    """The keys of the air unit types, and of those that burn fuel."""
    units = tables().units
    return frozenset(k for k in units if flies(k)), frozenset(k for k in units if needs_fuel(k))


def _air_units(state: State) -> list[Unit]:
    planes = _kinds()[0]
    return [u for u in state.units.values() if u.kind in planes]


def refuel_all(state: State, places: Places) -> None:
    """Step 1 of a tick: every air unit in a refuelling place is refuelled
    and its ammo topped up."""
    for unit in _air_units(state):
        if refuels_here(state, places, unit):
            refuel(unit)


def crash_dry(state: State, places: Places, events: list[Event]) -> None:
    """The end of a tick: every plane with no fuel outside a refuelling
    place crashes, by unit id."""
    burning = _kinds()[1]
    dry = [u for u in state.units.values() if u.fuel <= 0 and u.kind in burning]
    for unit in sorted(dry, key=lambda u: u.id):
        if not refuels_here(state, places, unit):
            crash(state, places, unit, events)


# -- the refuel order --------------------------------------------------------------


def nearest_place(
    state: State, places: Places, unit: Unit, may_enter: Callable[[int], bool]
) -> tuple[int, int] | None:
    """The nearest refuelling place ``unit`` can reach with its fuel (a
    breadth-first search over the squares it may enter; ties go to the
    lower square number) and its distance, or None."""
    grid: Grid = state.grid
    reach = unit.fuel if needs_fuel(unit.kind) else 3 * tables().unit(unit.kind).mobility
    frontier, seen, depth = [unit.square], {unit.square}, 0
    while frontier:
        found = sorted(sq for sq in frontier if refuels_here(state, places, unit, sq))
        if found:
            return found[0], depth
        if depth >= reach:
            return None
        depth += 1
        nxt = []
        for sq in frontier:
            for n in grid.adjacency[sq]:
                if n not in seen:
                    seen.add(n)
                    if may_enter(n):
                        nxt.append(n)
        frontier = nxt
    return None


def refuel_refusal(state: State, unit: Unit) -> Refusal | None:
    """Why ``unit`` cannot be sent to refuel: it is no air unit, or needs
    no fuel."""
    if needs_fuel(unit.kind):
        return None
    return Reason.CANNOT_REFUEL, {"unit": unit.id, "unit_type": unit.kind}


def fuel_warning(state: State, unit: Unit, target: int) -> dict[str, Any] | None:
    """What a receipt warns of a move of ``unit`` to ``target`` read now:
    it has not the fuel to get there (the move will be refused unless it
    refuels first), or it would get there with none left, away from any
    refuelling place (it would crash). None if neither, or if it flies
    through squares it cannot enter (the shortest way may be longer)."""
    if not needs_fuel(unit.kind):
        return None
    distance = state.grid.distance(unit.square, target)
    facts = {
        "unit": unit.id,
        "fuel": unit.fuel,
        "distance": distance,
        "square": state.grid.name(target),
    }
    if distance > unit.fuel:
        return {"code": "beyond_fuel"} | facts
    if distance == unit.fuel and not refuelling_place(state, unit, target):
        return {"code": "runs_dry"} | facts
    return None
