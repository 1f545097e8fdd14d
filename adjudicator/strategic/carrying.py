"""Carrying (rules, section 10; RULINGS.md "Carrying"): transports carry 6
land units, carriers 8 light planes, helicopters 2 infantry, engineers and
submarines 1 ICBM (the table's ``carries``: what, and how many).

A carried unit stands in its carrier's square with ``carried_by`` naming
the carrier; it moves with it (:func:`cargo.bring_along`), is never attacked and
never attacks (combat), sees nothing of its own (sight), and goes down with
its carrier (:func:`cargo.lost_with`). It leaves by moving off: a land unit from
a transport at sea steps onto land next to it, or takes an empty port
there.

Boarding:
- a land unit whose move ends on a sea square holding its nation's
  transport boards it (:func:`cargo.ship_to_board`); a light plane whose move
  ends on a sea square holding its nation's carrier lands on it; in a port
  the ``load`` order boards (a unit moving into a port only stands there);
- the ``load`` order boards units in the carrier's square, or next to it
  (they step in), and puts an ICBM aboard an engineer or submarine in its
  square; ``unload`` sets carried units down in the carrier's square, or
  moves them to a square (a move from the carrier's square);
- a helicopter leaving a square picks up its nation's infantry there, the
  most recently built first, except infantry in an allied city with 0
  mobility or 1 or 2 HP (:func:`cargo.pick_up`); it sets them down where its
  move ends on land, and keeps them aboard at sea and on a carrier (the
  carrier then carries them with the helicopter).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adjudicator.base import Event, Rng
from adjudicator.strategic import movement
from adjudicator.strategic.cargo import aboard, board, capacity, room, set_down
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Reason
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import State, Unit
from adjudicator.strategic.units import charge, release

Refusal = tuple[Reason, dict[str, Any]]


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
    refused = charge(state, nation, cost)
    if refused is not None:
        return refused
    failed: dict[str, str] = {}
    starts = {u.id: state.grid.name(u.square) for u in units}  # the map draws each from there
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
                                   "square": state.grid.name(carrier.square),
                                   "failed": failed, "stayed": sorted(failed),
                                   "from": starts}  # fmt: skip
    release(state, boarded)
    state.nations[nation].command -= cost
    facts = {"units": boarded, "carrier": carrier.id, "square": state.grid.name(carrier.square),
             "failed": failed, "stayed": sorted(failed), "cost": cost,
             "left": state.nations[nation].command, "from": starts}  # fmt: skip
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
