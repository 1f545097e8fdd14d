"""Carrying (rules, section 10; RULINGS.md "Carrying"): transports carry 6
land units, carriers 8 light planes, helicopters 2 infantry, engineers and
submarines 1 ICBM (the table's ``carries``: what, and how many).

A carried unit stands in its carrier's square with ``carried_by`` naming
the carrier; it moves with it (:func:`bring_along`), is never attacked and
never attacks (combat), sees nothing of its own (sight), and goes down with
its carrier (:func:`lost_with`). It leaves by moving off: a land unit from
a transport at sea steps onto land next to it, or takes an empty port
there.

Boarding:
- a land unit whose move ends on a sea square holding its nation's
  transport boards it (:func:`ship_to_board`); a light plane whose move
  ends on a sea square holding its nation's carrier lands on it; in a port
  the ``load`` order boards (a unit moving into a port only stands there);
- the ``load`` order boards units in the carrier's square, or next to it
  (they step in), and puts an ICBM aboard an engineer or submarine in its
  square; ``unload`` sets carried units down in the carrier's square, or
  moves them to a square (a move from the carrier's square);
- a helicopter leaving a square picks up its nation's infantry there, the
  most recently built first, except infantry in an allied city with 0
  mobility or 1 or 2 HP (:func:`pick_up`); it sets them down where its
  move ends on land, and keeps them aboard at sea and on a carrier (the
  carrier then carries them with the helicopter).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adjudicator.base import Event, Rng
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.rules import UnitType, tables
from adjudicator.strategic.state import State, Unit, only, relation

PICKUP_LEAST_HP = 3  # a helicopter leaves infantry in an allied city with less
Refusal = tuple[Reason, dict[str, Any]]


# -- what fits where -------------------------------------------------------------


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
    from adjudicator.strategic.movement import remove  # movement asks this module

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


# -- the orders ----------------------------------------------------------------------


def load(
    state: State,
    nation: str,
    unit_ids: Sequence[str],
    carrier_id: str | None,
    events: list[Event],
    places: Places,
    rng: Rng | None = None,
) -> Refusal:
    """The LOAD order: the units board the carrier (named, or the one unit
    of the nation in their square that can carry them); units next to it
    step in first (a move). One command point (a move's)."""
    from adjudicator.strategic import movement  # movement asks this module: imported late

    units = _own(state, nation, unit_ids)
    if isinstance(units, tuple):
        return units
    carrier = _carrier(state, places, nation, units, carrier_id)
    if isinstance(carrier, tuple):
        return carrier
    refused = _load_refusal(state, places, units, carrier)
    if refused is not None:
        return refused
    cost = tables().costs["move"]
    refused = movement.charge(state, nation, cost)
    if refused is not None:
        return refused
    failed: dict[str, str] = {}
    for unit in units:
        if unit.square != carrier.square:
            going = movement.walk(
                state, places, unit, [carrier.square], carrier.square, events, rng
            )
            if unit.square != carrier.square:
                failed[unit.id] = going.status
                continue
        if unit.carried_by != carrier.id:
            board(state, unit, carrier, events)
    boarded = [u.id for u in units if u.id not in failed]
    if not boarded:
        return Reason.NOT_LOADED, {"units": [u.id for u in units], "carrier": carrier.id,
                                   "failed": failed, "stayed": sorted(failed)}  # fmt: skip
    movement.release(state, boarded)
    state.nations[nation].command -= cost
    facts = {"units": boarded, "carrier": carrier.id, "square": state.grid.name(carrier.square),
             "failed": failed, "stayed": sorted(failed), "cost": cost,
             "left": state.nations[nation].command}  # fmt: skip
    return (Reason.LOADED_PART if failed else Reason.LOADED), facts


def _own(state: State, nation: str, unit_ids: Sequence[str]) -> list[Unit] | Refusal:
    units = []
    for uid in dict.fromkeys(unit_ids):
        unit = state.units.get(uid)
        if unit is None or unit.owner != nation:
            return Reason.NOT_YOUR_UNIT, {"unit": uid}
        units.append(unit)
    if not units:
        return Reason.NOT_YOUR_UNIT, {"unit": ""}
    return units


def _carrier(
    state: State, places: Places, nation: str, units: list[Unit], carrier_id: str | None
) -> Unit | Refusal:
    """The carrier a LOAD order names, or the only one that can take the
    first unit in its square."""
    if carrier_id is not None:
        carrier = state.units.get(carrier_id)
        if carrier is None or carrier.owner != nation:
            return Reason.NOT_YOUR_UNIT, {"unit": carrier_id}
        return carrier
    kinds = tables().units
    first = units[0]
    found = [
        u for u in places.units_at(first.square)
        if u.owner == nation and u.id != first.id and capacity(kinds[u.kind], kinds[first.kind])
    ]  # fmt: skip
    if len(found) != 1:
        square = state.grid.name(first.square)
        return Reason.NAME_THE_CARRIER, {"unit": first.id, "square": square,
                                         "carriers": sorted(u.id for u in found)}  # fmt: skip
    return found[0]


def _load_refusal(state: State, places: Places, units: list[Unit], carrier: Unit) -> Refusal | None:
    kinds = tables().units
    ck = kinds[carrier.kind]
    for unit in units:
        facts = {"unit": unit.id, "unit_type": unit.kind, "carrier": carrier.id,
                 "carrier_type": carrier.kind}  # fmt: skip
        if unit.id == carrier.id or not capacity(ck, kinds[unit.kind]):
            return Reason.CANNOT_CARRY, facts
        if unit.carried_by == carrier.id:
            return Reason.ALREADY_ABOARD, facts
        distance = state.grid.distance(unit.square, carrier.square)
        if distance > 1 or (distance == 1 and kinds[unit.kind].domain == "missile"):
            return Reason.NOT_BESIDE, facts | {"square": state.grid.name(carrier.square)}
    left = room(state, places, carrier, kinds[units[0].kind])
    if len(units) > left:
        return Reason.NO_ROOM, {"carrier": carrier.id, "carrier_type": carrier.kind,
                                "room": left, "units": [u.id for u in units]}  # fmt: skip
    return None


def unload(
    state: State,
    nation: str,
    unit_ids: Sequence[str],
    target: int | None,
    events: list[Event],
    places: Places,
    move: Any,
) -> Refusal:
    """The UNLOAD order: the units named (a carrier: everything it
    carries) leave their carrier. Without a square they are set down in
    the carrier's square, which must be land (one command point); with
    one, they move there (``move``: the move order, which says what
    became of them)."""
    riders = _riders(state, nation, unit_ids, places)
    if isinstance(riders, tuple):
        return riders
    if target is not None:
        return move([u.id for u in riders], target)  # type: ignore[no-any-return]
    square = riders[0].square
    if square not in state.board.land:
        return Reason.SAY_WHERE, {"units": [u.id for u in riders],
                                  "square": state.grid.name(square)}  # fmt: skip
    from adjudicator.strategic.movement import charge, release

    cost = tables().costs["move"]
    refused = charge(state, nation, cost)
    if refused is not None:
        return refused
    for rider in riders:
        set_down(state, rider, state.units[rider.carried_by or ""], events)
    release(state, [u.id for u in riders])
    state.nations[nation].command -= cost
    return Reason.UNLOADED, {"units": [u.id for u in riders], "square": state.grid.name(square),
                             "cost": cost, "left": state.nations[nation].command}  # fmt: skip


def _riders(
    state: State, nation: str, unit_ids: Sequence[str], places: Places
) -> list[Unit] | Refusal:
    """The carried units an UNLOAD order names: a carrier stands for all it
    carries."""
    units = _own(state, nation, unit_ids)
    if isinstance(units, tuple):
        return units
    riders: list[Unit] = []
    for unit in units:
        if unit.carried_by is not None:
            riders.append(unit)
            continue
        cargo = aboard(state, places, unit)
        if not cargo:
            return Reason.NOT_ABOARD, {"unit": unit.id}
        riders += cargo
    return list({u.id: u for u in riders}.values())


def attack_refusal(units: Sequence[Unit]) -> Refusal | None:
    """Carried units never attack (a land unit taking an empty port from a
    transport moves: a capture, not an attack)."""
    carried = [u.id for u in units if u.carried_by is not None]
    if carried:
        return Reason.CARRIED_CANNOT_ATTACK, {"units": carried}
    return None
