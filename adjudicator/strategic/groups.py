"""A group order does what it can (RULINGS.md: "an order that can do
nothing when it runs costs no command points").

Before a move, an attack, a refuel, a load or an unload runs, each unit it
names is checked alone for what would refuse the whole order because of
that one unit: a satellite in a move, a plane beyond its fuel, a carried
unit ordered to attack, a plane with no refuelling place in reach, a unit
that cannot board the carrier or finds no room, a unit set down far from
its transport. Those units are left out, each with its reason (a code and
its facts, worded in templates/strategic/phrases.yaml, ``refused``); the
others carry out the order, which is paid as usual. If every unit is left
out the order is refused and nothing is paid: with one unit named, with
that unit's reason; with several, REFUSED_EACH names each.

What is checked here is what the nation knows: its own units and the ways
it plans (movement.find_path, from what it sees), never what stands in
the fog.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from adjudicator.strategic import air, carrying, refuelling
from adjudicator.strategic.movement import MOVES_BY_ORDER, capturable, find_path, fuel_refusal
from adjudicator.strategic.orders import Attack, Load, Move, Refuel, Unload
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Reason
from adjudicator.strategic.rules import tables
from adjudicator.strategic.sight import sees_square
from adjudicator.strategic.state import State, Unit

Refusal = tuple[Reason, dict[str, Any]]
Sifted = tuple[list[str], list[Refusal]]


def sift(state: State, places: Places, order: Any) -> Sifted:
    """The ids of the units that go on with ``order``, in the order named,
    and the refusal of each one left out."""
    check = _CHECKS[type(order)]
    kept: list[str] = []
    refused: list[Refusal] = []
    for uid in dict.fromkeys(order.units):
        unit = state.units.get(uid)
        why = (
            (Reason.NOT_YOUR_UNIT, {"unit": uid})
            if unit is None or unit.owner != order.player
            else check(state, places, order, unit)
        )
        if why is None:
            kept.append(uid)
        else:
            refused.append(why)
    if isinstance(order, Load) and kept:
        kept, refused = _room(state, places, order, kept, refused)
    return kept, refused


def run(state: State, places: Places, order: Any, go: Callable[[list[str]], Refusal]) -> Refusal:
    """``order`` run by ``go`` with the units that may carry it out; the
    others named in its facts (``refused``: each one's code and facts)."""
    kept, refused = sift(state, places, order)
    if not refused:
        return go(list(order.units))
    if not kept:
        if len(refused) == 1 and len(set(order.units)) == 1:
            return refused[0]
        return Reason.REFUSED_EACH, {"units": list(dict.fromkeys(order.units)),
                                     "refused": said(refused)}  # fmt: skip
    reason, facts = go(kept)
    return reason, dict(facts) | {"refused": said(refused)}


def said(refused: Sequence[Refusal]) -> list[dict[str, Any]]:
    """Each refusal as a fact: its code and its facts."""
    return [{"code": str(reason), **facts} for reason, facts in refused]


# -- one unit at a time ------------------------------------------------------------


def _moving(state: State, places: Places, order: Any, unit: Unit) -> Refusal | None:
    kind = tables().unit(unit.kind)
    if kind.domain not in MOVES_BY_ORDER:
        return Reason.CANNOT_MOVE, {"unit": unit.id, "unit_type": unit.kind}
    if len(order.units) == 1:
        return None  # alone, the order itself says so (a way searched once, not twice)
    near = 1 if isinstance(order, Attack) else 0
    return fuel_refusal(state, places, [unit], order.target, near)


def _attacking(state: State, places: Places, order: Any, unit: Unit) -> Refusal | None:
    refusal = _moving(state, places, order, unit)
    if refusal is not None or unit.carried_by is None:
        return refusal
    carrier = state.units[unit.carried_by]
    facts = {"unit": unit.id, "unit_type": unit.kind, "carrier": carrier.id,
             "carrier_type": carrier.kind, "square": state.grid.name(order.target),
             "at": state.grid.name(carrier.square)}  # fmt: skip
    if not air.flies(unit.kind):
        if capturable(state, places, unit.owner, order.target) and sees_square(
            state, unit.owner, order.target, places, [unit]
        ):
            return None  # a land unit taking an empty port from a transport: a capture
        return Reason.CARRIED_CANNOT_ATTACK, facts | {"units": [unit.id]}
    takeoff = _takeoff(state, places, unit, order.target)
    return Reason.TAKE_OFF_FIRST, facts | {"takeoff": state.grid.name(takeoff)}


def _takeoff(state: State, places: Places, plane: Unit, target: int) -> int:
    """Where a carried plane may fly to, off its carrier, to attack
    ``target`` from: the end of its planned way next to it (as the nation
    knows the board), or else the square next to the target nearest the
    carrier, then the lowest."""
    way = find_path(state, places, plane, target, 1)
    if way:
        return way[-1]
    grid = state.grid
    around = [sq for sq in grid.neighbours(target) if sq != plane.square]
    open_ = [sq for sq in around if way is not None and find_path(state, places, plane, sq)]
    return min(open_ or around, key=lambda sq: (grid.distance(plane.square, sq), sq))


def _refuelling(state: State, places: Places, order: Any, unit: Unit) -> Refusal | None:
    plan = refuelling._plan(state, places, [unit])
    return None if isinstance(plan, list) else plan


def _loading(state: State, places: Places, order: Any, unit: Unit) -> Refusal | None:
    carrier = _carrier_of(state, places, order)
    if carrier is None:
        return None  # the order names none the engine can find: it says why, whole
    return carrying._load_refusal(state, places, [unit], carrier)


def _carrier_of(state: State, places: Places, order: Any) -> Unit | None:
    units = [state.units[u] for u in order.units if u in state.units]
    units = [u for u in units if u.owner == order.player]
    if not units:
        return None
    found = carrying._carrier(state, places, order.player, units, order.carrier or None)
    return found if isinstance(found, Unit) else None


def _room(
    state: State, places: Places, order: Any, kept: list[str], refused: list[Refusal]
) -> Sifted:
    """Units beyond the carrier's room are left out, the last named first."""
    carrier = _carrier_of(state, places, order)
    if carrier is None:
        return kept, refused
    units = [state.units[u] for u in kept]
    left = carrying.room(state, places, carrier, tables().unit(units[0].kind))
    over = [u.id for u in units[left:]]
    for uid in over:
        refused.append((Reason.NO_ROOM, {"carrier": carrier.id, "carrier_type": carrier.kind,
                                         "room": left, "units": [uid], "unit": uid}))  # fmt: skip
    return kept[:left], refused


def _unloading(state: State, places: Places, order: Any, unit: Unit) -> Refusal | None:
    if unit.carried_by is not None:
        riders, carrier = [unit], state.units[unit.carried_by]
    else:
        riders, carrier = carrying.aboard(state, places, unit), unit
        if not riders:
            return Reason.NOT_ABOARD, {"unit": unit.id}
    if not order.target_name or carrier.square in state.board.land:
        return None  # set down where it stands, or off a ship in port: a move over land
    if state.grid.distance(carrier.square, order.target) <= 1:
        return None
    walkers = [r for r in riders if not air.flies(r.kind)]  # planes fly off: a move
    if all(find_path(state, places, r, order.target, 0, False) is not None for r in walkers):
        return None  # ashore next to it, then on over land: a move from its square
    way = find_path(state, places, carrier, order.target, 1)
    if not way:
        return None  # no way by sea: the move says so (no way leads there)
    name = state.grid.name
    return Reason.UNLOAD_BESIDE, {"unit": unit.id, "carrier": carrier.id,
                                  "carrier_type": carrier.kind, "square": name(order.target),
                                  "at": name(carrier.square), "beside": name(way[-1]),
                                  "distance": state.grid.distance(carrier.square, order.target),
                                  "units": [r.id for r in riders]}  # fmt: skip


_CHECKS: dict[type, Callable[[State, Places, Any, Unit], Refusal | None]] = {
    Move: _moving,
    Attack: _attacking,
    Refuel: _refuelling,
    Load: _loading,
    Unload: _unloading,
}
