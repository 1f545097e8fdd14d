"""Engineers' work (rules, section 3; RULINGS.md part 2), on the
engineer's own square:

- switching terrain (6 mobility, 16 command points): land to water or
  water to land; the square holds no unit but the engineer (and what it
  carries) and no city, and is next to at least one square of the kind it
  becomes;
- a new city (9 mobility, 64 command points): no unit of another nation in
  the square, no other nation's city next to it, on water only next to
  land (the square becomes land), no ship in it. The city is the
  engineer's nation's, a fort building the cheapest unit a fort builds at
  that nation's technology, named as the order says or, if it names none,
  with a made-up name no other city has.

The board is frozen: a change makes a new one, and the tick's index of
places is built again (movement's regions with it).
"""

from __future__ import annotations

import re
from typing import Any

from adjudicator.base import Event, Rng
from adjudicator.strategic import economy
from adjudicator.strategic.board import _reserved, _word
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import Board, City, State, Unit, only
from adjudicator.strategic.units import charge

TERRAIN_MOBILITY = 6
CITY_MOBILITY = 9
DESIGNATION = "fort"  # a new city's: the player changes it with a build order
NAME = re.compile(r"[A-Za-z][A-Za-z' \-]{1,23}")
Refusal = tuple[Reason, dict[str, Any]]


def switch_terrain(
    state: State, nation: str, unit_id: str, to: str, events: list[Event], places: Places
) -> Refusal:
    """The TERRAIN order: ``to`` "land", "water" or "" (the other kind)."""
    unit = _engineer(state, nation, unit_id, TERRAIN_MOBILITY)
    if isinstance(unit, tuple):
        return unit
    square, name = unit.square, state.grid.name(unit.square)
    becomes = "water" if square in state.board.land else "land"
    facts = {"unit": unit.id, "square": name, "terrain": becomes}
    refused = _terrain_refusal(state, places, unit, becomes, to, facts)
    if refused is not None:
        return refused
    cost = tables().costs["terrain"]
    refused = charge(state, nation, cost)
    if refused is not None:
        return refused
    land = state.board.land
    state.board = Board(state.grid, land | {square} if becomes == "land" else land - {square})
    places.rebuilt()
    unit.mobility -= TERRAIN_MOBILITY
    state.nations[nation].command -= cost
    events.append(_event(state, Happened.TERRAIN_CHANGED, unit, terrain=becomes))
    return Reason.TERRAIN_CHANGED, facts | {"cost": cost, "left": state.nations[nation].command}


def _terrain_refusal(
    state: State, places: Places, unit: Unit, becomes: str, to: str, facts: dict[str, Any]
) -> Refusal | None:
    square = unit.square
    if to and to != becomes:
        return Reason.ALREADY_TERRAIN, facts | {"terrain": to}
    city = state.cities.get(square)
    if city is not None:
        return Reason.CITY_THERE, {"unit": unit.id, "square": facts["square"], "city": city.name}
    others = [u.id for u in places.units_at(square) if u.id != unit.id and u.carried_by != unit.id]
    if others:
        return Reason.NOT_ALONE, {"unit": unit.id, "square": facts["square"],
                                  "units": sorted(others)}  # fmt: skip
    land = state.board.land
    alike = [n for n in state.grid.neighbours(square) if (n in land) == (becomes == "land")]
    if not alike:
        return Reason.NOTHING_ALIKE_NEAR, facts
    return None


def found_city(
    state: State, nation: str, unit_id: str, name: str, events: list[Event], places: Places
) -> Refusal:
    """The NEW CITY order (``name`` "": one is made up)."""
    unit = _engineer(state, nation, unit_id, CITY_MOBILITY)
    if isinstance(unit, tuple):
        return unit
    refused = _city_refusal(state, places, unit, name)
    if refused is not None:
        return refused
    cost = tables().costs["city"]
    refused = charge(state, nation, cost)
    if refused is not None:
        return refused
    square = unit.square
    name = name or fresh_name(state, square)
    first = economy.cheapest(state.nations[nation], DESIGNATION)
    city = City(name, square, nation, DESIGNATION, first.key if first else None)
    state.cities[square] = city
    if square not in state.board.land:
        state.board = Board(state.grid, state.board.land | {square})
    places.rebuilt()
    unit.mobility -= CITY_MOBILITY
    state.nations[nation].command -= cost
    events.append(_event(state, Happened.CITY_FOUNDED, unit, city=name))
    return Reason.CITY_FOUNDED, {
        "unit": unit.id, "square": state.grid.name(square), "city": name,
        "designation": DESIGNATION, "kind": city.build, "cost": cost,
        "left": state.nations[nation].command,
    }  # fmt: skip


def _city_refusal(state: State, places: Places, unit: Unit, name: str) -> Refusal | None:
    square, where = unit.square, state.grid.name(unit.square)
    city = state.cities.get(square)
    if city is not None:
        return Reason.CITY_THERE, {"unit": unit.id, "square": where, "city": city.name}
    here = places.units_at(square)
    foreign = sorted({u.owner for u in here if u.owner != unit.owner})
    if foreign:
        return Reason.FOREIGN_UNITS, {"unit": unit.id, "square": where, "nations": foreign}
    near = _foreign_city_near(state, unit)
    if near is not None:
        return Reason.NEXT_TO_CITY, {"unit": unit.id, "square": where, "city": near.name,
                                     "nation": near.owner}  # fmt: skip
    land = state.board.land
    if square not in land:
        if not any(n in land for n in state.grid.neighbours(square)):
            return Reason.NO_LAND_NEAR, {"unit": unit.id, "square": where}
        ships = [u.id for u in here if tables().unit(u.kind).ship]
        if ships:
            return Reason.NOT_ALONE, {"unit": unit.id, "square": where, "units": ships}
    if name and not name_free(state, name):
        return Reason.NAME_TAKEN, {"name": name}
    return None


def _foreign_city_near(state: State, unit: Unit) -> City | None:
    for n in state.grid.neighbours(unit.square):
        city = state.cities.get(n)
        if city is not None and city.owner is not None and city.owner != unit.owner:
            return city
    return None


def _engineer(state: State, nation: str, unit_id: str, needed: int) -> Unit | Refusal:
    unit = state.units.get(unit_id)
    if unit is None or unit.owner != nation:
        return Reason.NOT_YOUR_UNIT, {"unit": unit_id}
    if "engineering" not in tables().unit(unit.kind).flags:
        return Reason.NOT_AN_ENGINEER, {"unit": unit.id, "unit_type": unit.kind}
    if unit.mobility < needed:
        return Reason.NO_MOBILITY, {"unit": unit.id, "needed": needed, "mobility": unit.mobility}
    return unit


def _event(state: State, kind: Happened, unit: Unit, **more: str) -> Event:
    facts = {"unit": unit.id, "unit_type": unit.kind, "nation": unit.owner,
             "square": state.grid.name(unit.square), **more}  # fmt: skip
    return Event(kind, facts, only(unit.owner))


# -- names ---------------------------------------------------------------------------


def good_name(state: State, name: str) -> bool:
    """A name players can write: letters (spaces, hyphens, apostrophes
    inside), 2 to 24 of them, not a square's name nor an order's word."""
    return (
        NAME.fullmatch(name) is not None
        and state.grid.parse(name) is None
        and _key(name) not in _reserved()
    )


def name_free(state: State, name: str) -> bool:
    """No city is called ``name``, ignoring case and spacing."""
    key = _key(name)
    return all(_key(c.name) != key for c in state.cities.values())


def fresh_name(state: State, square: int) -> str:
    """A made-up name no city has, the same for the same game, tick and
    square."""
    rng = Rng((state.seed * 1_000_003 + state.tick) * 1_000_003 + square)
    while True:
        word = _word(rng)
        if 4 <= len(word) <= 9 and good_name(state, word) and name_free(state, word):
            return word.capitalize()


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())
