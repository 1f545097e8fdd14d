"""What carriers carry (rules, section 10; RULINGS.md "Carrying"; the
orders LOAD and UNLOAD are in carrying.py): what fits where, boarding and
getting off, what goes along with a carrier and what goes down with it,
helicopters picking up infantry. Moving, flying and fighting ask this
module; it moves nothing itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.base import Event
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.rules import UnitType, tables
from adjudicator.strategic.state import State, Unit, only, relation
from adjudicator.strategic.units import Refusal, remove

PICKUP_LEAST_HP = 3  # a helicopter leaves infantry in an allied city with less


# -- what fits where ---------------------------------------------------------------


def capacity(carrier: UnitType, cargo: UnitType) -> int:
    """How many units of ``cargo``'s kind ``carrier`` holds (0: none).
    A ``carries`` key is a domain group (land: land units, engineers too;
    missile: ICBMs), a flag (light: light planes) or a unit type."""
    for what, count in carrier.carries:
        if _fits(what, cargo):
            return count
    return 0


def _fits(what: str, cargo: UnitType) -> bool:
    if what == "land":
        return cargo.land
    if what == "missile":
        return cargo.domain == "missile"
    return what in cargo.flags or what == cargo.key


def aboard(state: State, places: Places, carrier: Unit) -> list[Unit]:
    """The units ``carrier`` carries (not what they carry), by id."""
    units = state.units
    found = [units[i] for i in places.at.get(carrier.square, ()) if i in units]
    return sorted((u for u in found if u.carried_by == carrier.id), key=lambda u: u.id)


def room(state: State, places: Places, carrier: Unit, cargo: UnitType) -> int:
    """How many more units of ``cargo``'s kind ``carrier`` can take."""
    most = capacity(tables().unit(carrier.kind), cargo)
    return max(0, most - len(aboard(state, places, carrier))) if most else 0


def ship_to_board(
    state: State, places: Places, unit: Unit, kind: UnitType, square: int
) -> Unit | None:
    """The ship of ``unit``'s nation that ``unit`` boards by ending a move
    on ``square``: a sea square only (in a port, ``load``), a land unit
    that cannot swim onto a transport, a light plane onto a carrier."""
    if square in state.board.land or kind.ship or kind.domain == "amphibious":
        return None
    if not (kind.land or kind.domain == "air"):
        return None
    units, kinds = state.units, tables().units
    for uid in places.at.get(square, ()):
        ship = units.get(uid)
        if ship is not None and ship.owner == unit.owner and ship.id != unit.id:
            if kinds[ship.kind].ship and capacity(kinds[ship.kind], kind):
                return ship
    return None


def full(state: State, places: Places, units: Sequence[Unit], target: int) -> Refusal | None:
    """A move onto a ship at sea that has no room left for the first unit
    that would board it: refused."""
    if target in state.board.land:
        return None  # the common case: no boarding on land
    kinds = tables().units
    for unit in units:
        kind = kinds[unit.kind]
        ship = ship_to_board(state, places, unit, kind, target)
        if ship is not None and unit.carried_by != ship.id:
            if room(state, places, ship, kind) == 0:
                return Reason.NO_ROOM, {"carrier": ship.id, "carrier_type": ship.kind,
                                        "room": 0, "units": [u.id for u in units]}  # fmt: skip
            return None
    return None


# -- getting on and off ------------------------------------------------------------


def board(state: State, unit: Unit, carrier: Unit, events: list[Event]) -> None:
    """``unit`` (in ``carrier``'s square) is aboard now."""
    unit.carried_by = carrier.id
    events.append(_event(state, Happened.BOARDED, unit, carrier))


def set_down(state: State, unit: Unit, carrier: Unit, events: list[Event]) -> None:
    """``unit`` leaves ``carrier`` and stands in its square."""
    unit.carried_by = None
    events.append(_event(state, Happened.SET_DOWN, unit, carrier))


def _event(state: State, kind: Happened, unit: Unit, carrier: Unit) -> Event:
    facts = {
        "unit": unit.id,
        "unit_type": unit.kind,
        "nation": unit.owner,
        "carrier": carrier.id,
        "carrier_type": carrier.kind,
        "square": state.grid.name(unit.square),
    }
    return Event(kind, facts, only(unit.owner))


def bring_along(state: State, places: Places, carrier: Unit, old: int) -> None:
    """``carrier`` has moved from ``old``: what it carries (and what that
    carries) comes with it."""
    units = state.units
    riders = [units[i] for i in places.at.get(old, ()) if i in units]
    for rider in riders:
        if rider.carried_by == carrier.id:
            rider.square = carrier.square
            places.moved(rider, old)
            if tables().unit(rider.kind).carries:
                bring_along(state, places, rider, old)


def lost_with(
    state: State, places: Places, carrier: Unit, by: tuple[str, str | None, int]
) -> list[Event]:
    """``carrier`` is destroyed: what it carries is lost with it (an event
    each, told to its nation and to the one that destroyed the carrier).
    ``by``: what destroyed it (its nation is told)."""
    units = state.units
    out: list[Event] = []
    riders = [units[i] for i in places.at.get(carrier.square, ()) if i in units]
    for rider in sorted(riders, key=lambda u: u.id):
        if rider.carried_by != carrier.id or rider.id not in units:
            continue
        remove(state, places, rider)
        facts = {
            "unit": rider.id,
            "unit_type": rider.kind,
            "nation": rider.owner,
            "carrier": carrier.id,
            "carrier_type": carrier.kind,
            "square": state.grid.name(rider.square),
        }
        seen = {rider.owner} | ({by[1]} if by[1] else set())
        out.append(Event(Happened.LOST_ABOARD, facts, frozenset(seen)))
        out += lost_with(state, places, rider, by)
    return out


# -- helicopters -------------------------------------------------------------------


def pick_up(state: State, places: Places, heli: Unit, kind: UnitType) -> list[Event]:
    """A helicopter about to leave its square takes its nation's infantry
    there aboard, the most recently built first, up to its room; not
    infantry in an allied city with 0 mobility or 1 or 2 HP. The events
    of their boarding (see :func:`picked`)."""
    if "picks_up" not in kind.flags:
        return []
    kinds = tables().units
    left = max(n for _, n in kind.carries) - len(aboard(state, places, heli))
    city = state.cities.get(heli.square)
    owner = city.owner if city is not None else None
    allied_city = owner is not None and relation(state, heli.owner, owner) == "allied"
    out: list[Event] = []
    for unit in places.units_at(heli.square):
        if len(out) >= left:
            break
        if unit.owner != heli.owner or unit.carried_by is not None or unit.id == heli.id:
            continue
        if not capacity(kind, kinds[unit.kind]):
            continue
        if allied_city and (unit.mobility <= 0 or unit.hp < PICKUP_LEAST_HP):
            continue
        unit.carried_by = heli.id
        out.append(_event(state, Happened.BOARDED, unit, heli))
    return out


def picked(state: State, boarded: list[Event], moved: bool, events: list[Event]) -> None:
    """After the helicopter's move: the infantry it picked up ride with it
    if it left its square; if it did not, they were never aboard."""
    if moved:
        events += boarded
        return
    for event in boarded:
        state.units[str(event.facts["unit"])].carried_by = None


def land_riders(
    state: State, places: Places, heli: Unit, kind: UnitType, events: list[Event]
) -> None:
    """A helicopter whose move ends on land, not aboard a carrier, sets
    down the infantry it picked up."""
    if "picks_up" not in kind.flags or heli.carried_by is not None:
        return
    if heli.square not in state.board.land:
        return
    for rider in aboard(state, places, heli):
        set_down(state, rider, heli, events)
