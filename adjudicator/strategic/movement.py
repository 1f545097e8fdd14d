"""Moving (rules, section 4; RULINGS.md): land units over land, ships over
sea and into their own or allied ports and coastal bases, engineers over
both; one ship per sea square; no entering a square another nation holds;
a land unit entering an empty neutral city, or one of a nation at war with
its own, captures it. Each square entered costs 1 mobility (2 out of
supply). A group takes shortest paths on the wrapping grid, each unit in
the order given, as far as its mobility goes; the rest of the way becomes a
standing order that goes on at step 3 of later ticks.

Part 2 adds what happens on the way (interception, interdiction, carrying,
fuel): each square entered is one call of :func:`_step`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from adjudicator.base import Event, Rng
from adjudicator.strategic import air, cargo, intercept
from adjudicator.strategic.paths import _or_square, find_path, step_cost
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.rules import CAPTURE_HP, UnitType, tables
from adjudicator.strategic.sight import bumped, conceals, sees_square
from adjudicator.strategic.state import Standing, State, Unit, at_war, only
from adjudicator.strategic.units import (
    _enterable,
    allied,
    can_capture,
    capturable,
    charge,
    release,
    terrain_allows,
)

MOVES_BY_ORDER = ("land", "sea", "amphibious", "air")  # domains (satellites, ICBMs: launched)
DONE = ("arrived", "captured", "stopped")  # stopped: next to a sea square a ship holds
FAILED = ("no_path", "blocked", "cannot_capture", "occupied", "not_at_war", "no_room", "no_fuel")
# a plane that ran out of fuel away from any refuelling place: "crashed" (neither)

Refusal = tuple[Reason, dict[str, Any]]


@dataclass
class Going:
    """What became of one unit of a group: its status and the squares it
    entered."""

    unit: str
    status: str  # one of DONE, FAILED, or "going" (on its way)
    path: list[int] = field(default_factory=list)
    stopped_by: str = ""  # "intercepted" or "interdicted": fired on, it stopped there


# -- walking ---------------------------------------------------------------------


def walk(
    state: State,
    places: Places,
    unit: Unit,
    path: Sequence[int],
    target: int,
    events: list[Event],
    rng: Rng | None = None,
    land: bool = True,
) -> Going:
    """Step along ``path`` as far as mobility goes; the last step into an
    empty enemy or neutral city captures it. ``rng``: the tick's generator,
    for what happens on the way (a fixed one if not given). After each
    square entered the units watching near may intercept or interdict
    (intercept.watch): a unit fired on stops there, its move done.
    ``land``: the move ends here (an air unit refuels or crashes,
    air.landed); an attack lands its planes after it has attacked."""
    kind = tables().unit(unit.kind)
    start = unit.square
    going = Going(unit.id, "arrived")
    may_enter = _enterable(state, places, unit, kind)
    ship = cargo.ship_to_board(state, places, unit, kind, target) if path else None
    if ship is not None:
        if not cargo.room(state, places, ship, kind):
            return Going(unit.id, "no_room")
        may_enter = _or_square(may_enter, target)
    picked = cargo.pick_up(state, places, unit, kind) if path and kind.carries else []
    fights: list[Event] = []
    for sq in path:
        status = _step(state, places, unit, kind, sq, target, may_enter)
        if status != "entered":
            going.status = status
            break
        going.path.append(sq)
        why = intercept.watch(state, places, unit, sq, fights, rng or Rng(0))
        if why is not None:
            going.status, going.stopped_by = "stopped", why
            break
    if picked:
        cargo.picked(state, picked, bool(going.path), events)  # a helicopter's infantry
    if going.path:
        events.append(_moved_event(state, unit, kind, start, going.path))
    events += fights
    if going.status in ("blocked", "occupied"):  # a submarine there is found (part 2)
        events += _sighted(state, places, unit, path[len(going.path)])
    _arrive(state, places, unit, kind, ship, going, target, events)
    if land and air.landed(state, places, unit, events):
        going.status = "crashed"
    return going


def _arrive(
    state: State,
    places: Places,
    unit: Unit,
    kind: UnitType,
    ship: Unit | None,
    going: Going,
    target: int,
    events: list[Event],
) -> None:
    """At the end of a walk: a capture, boarding the ship at the target,
    a helicopter setting its infantry down on land (not for a unit stopped
    on the way: it is not there)."""
    there = going.status == "arrived" and unit.square == target
    if there and _owner_changes(state, unit):
        _capture(state, unit, events)
        going.status = "captured"
    elif there and ship is not None and ship.id in state.units:
        cargo.board(state, unit, ship, events)
    if kind.carries:
        cargo.land_riders(state, places, unit, kind, events)


def _step(
    state: State,
    places: Places,
    unit: Unit,
    kind: UnitType,
    sq: int,
    target: int,
    may_enter: Callable[[int], bool],
) -> str:
    """Enter one square, paying its mobility: "entered", or why not
    (``may_enter``: :func:`units.enterable` for this unit)."""
    capture = sq == target and capturable(state, places, unit.owner, sq)
    if capture and not can_capture(kind, unit):
        return "cannot_capture"
    if not capture and not may_enter(sq):
        return _why_not(state, places, unit, kind, sq, target)
    cost = step_cost(state, places, unit)
    if unit.mobility < cost:
        return "going"
    if unit.fuel < 1 and air.needs_fuel(unit.kind):
        return "no_fuel"
    unit.mobility -= cost
    if air.needs_fuel(unit.kind):
        unit.fuel -= 1
    old = unit.square
    unit.square = sq
    places.moved(unit, old)
    if unit.carried_by is not None:
        unit.carried_by = None  # it leaves its carrier
    if kind.carries:
        cargo.bring_along(state, places, unit, old)
    return "entered"


def _why_not(state: State, places: Places, unit: Unit, kind: UnitType, sq: int, target: int) -> str:
    if sq != target:
        return "blocked"
    owners = {state.units[i].owner for i in places.ids_at(sq)}
    if any(not allied(state, unit.owner, o) for o in owners):
        return "occupied"
    city = state.cities.get(sq)
    if city is not None and terrain_allows(state, kind, sq):
        return "not_at_war"
    return "stopped" if kind.ship else "no_path"


def _sighted(state: State, places: Places, unit: Unit, square: int) -> list[Event]:
    """The hidden submarines that stopped ``unit`` at ``square``, now seen
    by its nation (sight.bumped): an event for it and the sub's owner."""
    name = state.grid.name(square)
    return [
        Event(
            Happened.SIGHTED,
            {
                "unit": sub.id,
                "unit_type": sub.kind,
                "nation": sub.owner,
                "by": unit.id,
                "by_nation": unit.owner,
                "square": name,
            },
            frozenset({unit.owner, sub.owner}),
        )  # fmt: skip
        for sub in bumped(state, places, unit, square)
    ]


def _owner_changes(state: State, unit: Unit) -> bool:
    city = state.cities.get(unit.square)
    return city is not None and not (city.owner and allied(state, unit.owner, city.owner))


def _capture(state: State, unit: Unit, events: list[Event]) -> None:
    """The city becomes the unit's nation's; the unit loses 4 HP; the
    city's build starts over (it keeps its designation)."""
    city = state.cities[unit.square]
    before = city.owner
    city.owner = unit.owner
    city.progress = 0
    unit.hp -= CAPTURE_HP
    facts = {
        "city": city.name,
        "square": state.grid.name(city.square),
        "unit": unit.id,
        "nation": unit.owner,
        "from_nation": before,
        "hp": unit.hp,
    }
    seen = {unit.owner} | ({before} if before else set())
    events.append(Event(Happened.CAPTURED, facts, frozenset(seen)))


def _moved_event(state: State, unit: Unit, kind: UnitType, start: int, path: list[int]) -> Event:
    name = state.grid.name
    facts = {
        "unit": unit.id,
        "unit_type": kind.key,
        "nation": unit.owner,
        "from": name(start),
        "square": name(unit.square),
        "path": [name(sq) for sq in path],
    }
    return Event(Happened.MOVED, facts, only(unit.owner))


# -- a group ---------------------------------------------------------------------


def run_group(
    state: State,
    places: Places,
    units: Sequence[Unit],
    target: int,
    near: int,
    events: list[Event],
    rng: Rng | None = None,
    land: bool = True,
) -> list[Going]:
    """Move each unit in turn (those that can capture first when the target
    is a city to capture) by a shortest path as far as it can (``land``:
    as for :func:`walk`)."""
    if near == 0 and units and _may_capture(state, places, units[0], target):
        kinds = tables().units
        units = sorted(units, key=lambda u: not can_capture(kinds[u.kind], u))
    units = intercept.sortie(state, places, units)  # fighters first: they draw interceptors
    out = []
    for unit in units:
        if unit.id not in state.units:
            continue
        path = _way(state, places, unit, target, near)
        if path is None:
            terrain = find_path(state, places, unit, target, near, units_matter=False)
            out.append(Going(unit.id, "no_path" if terrain is None else "blocked"))
            continue
        out.append(walk(state, places, unit, path, target, events, rng, land))
        places.ways.clear()  # a walk may change what the nation knows without moving
    places.ways.clear()
    return out


_UNKNOWN: list[int] = []  # no way kept (an empty way is a way: already there)
_AIR_WAYS = "air ways of "  # kept by nation, not by unit (no unit id holds a space)


def _way(
    state: State, places: Places, unit: Unit, target: int, near: int, keep: bool = False
) -> list[int] | None:
    """find_path, or the way the order's fuel check found for ``unit`` while
    nothing has moved since (Places.ways; ``keep``: the fuel check keeps it).
    The air units of one nation on one square share that way: they fly over
    anything, and the squares closed to them are closed by what stands
    there, the same for each but on their own square, which no search asks
    (the planes of a group are checked once, not five times)."""
    flier = tables().units[unit.kind].domain == "air"
    key = (_AIR_WAYS + unit.owner if flier else unit.id, unit.square, target, near)
    path = places.ways.get(key, _UNKNOWN)
    if path is _UNKNOWN:
        path = find_path(state, places, unit, target, near)
        if keep:
            places.ways[key] = path
    return path


def _may_capture(state: State, places: Places, unit: Unit, target: int) -> bool:
    """Whether a move to ``target`` may capture it as ``unit``'s nation
    knows it: a city it sees empty and capturable, or one out of sight
    (its own and its allies' are in sight): those that can capture go
    first, whatever is there."""
    city = state.cities.get(target)
    if city is None or city.owner == unit.owner:
        return False
    if capturable(state, places, unit.owner, target):
        return True
    return not sees_square(state, unit.owner, target, places, (unit,))


def anything_happened(goings: Sequence[Going]) -> bool:
    """A unit moved, arrived, is on its way, or crashed at the end of its
    move (an attack made from where it stood, then out of fuel)."""
    return any(g.path or g.status in DONE or g.status in ("going", "crashed") for g in goings)


def summary(goings: Sequence[Going], left_out: dict[str, str]) -> dict[str, Any]:
    """The facts of a group's moves: who arrived, who goes on, who failed."""
    failed = dict(left_out)
    failed.update({g.unit: g.status for g in goings if g.status in FAILED})
    facts: dict[str, Any] = {
        "arrived": [g.unit for g in goings if g.status in DONE and not g.stopped_by],
        "going": [g.unit for g in goings if g.status == "going"],
        "failed": dict(sorted(failed.items())),
        "crashed": [g.unit for g in goings if g.status == "crashed"],
    }
    stopped = [g.unit for g in goings if g.stopped_by]
    if stopped:  # intercepted or interdicted on the way: the rest of their move dropped
        facts["stopped"] = stopped
    return facts


# -- the orders ------------------------------------------------------------------


def own_units(state: State, nation: str, unit_ids: Sequence[str]) -> list[Unit] | Refusal:
    """The units an order names, each once, in the order named; refused if
    one is not the nation's or cannot be moved by orders in this part."""
    units: list[Unit] = []
    for uid in dict.fromkeys(unit_ids):
        unit = state.units.get(uid)
        if unit is None or unit.owner != nation:
            return Reason.NOT_YOUR_UNIT, {"unit": uid}
        if tables().unit(unit.kind).domain not in MOVES_BY_ORDER:
            return Reason.CANNOT_MOVE, {"unit": uid, "unit_type": unit.kind}
        units.append(unit)
    if not units:
        return Reason.NOT_YOUR_UNIT, {"unit": ""}
    return units


def target_refusal(state: State, places: Places, nation: str, target: int) -> Refusal | None:
    """Why no unit of ``nation`` may enter ``target``, or None: a square
    another nation holds ("attack it instead"), or a city of a nation it is
    not at war with."""
    if target not in state.cities and not places.at.get(target):
        return None  # an empty square: most moves go to one
    name = state.grid.name(target)
    owners = {u.owner for u in places.units_at(target) if not conceals(state, nation, u, places)}
    holders = sorted(o for o in owners if not allied(state, nation, o))
    if holders:
        war = any(at_war(state, nation, h) for h in holders)
        return Reason.OCCUPIED, {"square": name, "nations": holders, "at_war": war}
    city = state.cities.get(target)
    if city is not None and city.owner is not None:
        if not allied(state, nation, city.owner) and not at_war(state, nation, city.owner):
            return Reason.NOT_AT_WAR, {"square": name, "city": city.name, "nations": [city.owner]}
    return None


def move(
    state: State,
    nation: str,
    unit_ids: Sequence[str],
    target: int,
    seq: int,
    line: int,
    events: list[Event],
    places: Places | None = None,
    rng: Rng | None = None,
) -> tuple[Reason, dict[str, Any]]:
    """A move order (step 4): 1 command point however many units, 4 if it
    captures a city; beyond today's mobility the rest becomes a standing
    order. Refused orders change nothing and cost nothing."""
    places = places or Places(state)
    units = own_units(state, nation, unit_ids)
    if not isinstance(units, list):
        return units
    plan = _plan(state, places, nation, units, target)
    if isinstance(plan[0], Reason):
        return plan  # type: ignore[return-value]
    movers, left_out, cost = plan  # type: ignore[misc]
    refusal = fuel_refusal(state, places, movers, target, 0)
    if refusal:
        return refusal
    starts = {u.id: state.grid.name(u.square) for u in movers}  # where each set off
    goings = run_group(state, places, movers, target, 0, events, rng)
    name = state.grid.name(target)
    ids = [u.id for u in units]
    if not anything_happened(goings):
        if any(g.status == "occupied" for g in goings):  # found there: a submarine (part 2)
            return target_refusal(state, places, nation, target) or (Reason.BLOCKED, {
                "units": ids, "square": name})  # fmt: skip
        why = Reason.BLOCKED if any(g.status == "blocked" for g in goings) else Reason.NO_PATH
        return why, {"units": ids, "square": name}
    if _as_near_as_can_be(goings):  # RULINGS.md: an order that can do nothing costs nothing
        return Reason.AS_NEAR_AS_CAN_BE, {"units": ids, "square": name}
    state.nations[nation].command -= cost
    release(state, ids)  # every unit it names: the new order replaces its standing one
    facts = {"units": ids, "square": name, "cost": cost, "left": state.nations[nation].command}
    facts.update(summary(goings, left_out))
    facts["from"] = starts  # the player's own units: the map draws each move from there
    if facts["going"]:
        state.standing.append(Standing(nation, tuple(facts["going"]), target, "move", seq, line))
    return _move_reason(state, goings, facts), facts


def _as_near_as_can_be(goings: Sequence[Going]) -> bool:
    """No unit moved, and a ship next to its target stopped there: a ship
    of its own side holds that sea square (the others were there)."""
    if any(g.path or g.status not in ("arrived", "stopped") for g in goings):
        return False
    return any(g.status == "stopped" for g in goings)


def _plan(
    state: State, places: Places, nation: str, units: list[Unit], target: int
) -> tuple[list[Unit], dict[str, str], int] | Refusal:
    """Who goes, who is left out (cannot capture), and the cost; or why the
    order is refused."""
    name = state.grid.name(target)
    if all(u.square == target for u in units):
        return Reason.ALREADY_THERE, {"units": [u.id for u in units], "square": name}
    refusal = target_refusal(state, places, nation, target)
    if refusal and sees_square(state, nation, target, places, units):
        return refusal  # out of sight, the units set off and find out there
    costs = tables().costs
    movers, left_out, cost = units, {}, costs["move"]
    if capturable(state, places, nation, target) and sees_square(
        state, nation, target, places, units
    ):
        kinds = tables().units
        movers = [u for u in units if can_capture(kinds[u.kind], u)]
        left_out = {u.id: "cannot_capture" for u in units if u not in movers}
        cost = costs["capture"]
        if not movers:
            city = state.cities[target].name
            facts = {"units": [u.id for u in units], "square": name, "city": city}
            return Reason.CANNOT_CAPTURE, facts | {"hp_needed": CAPTURE_HP + 1}
    refusal = cargo.full(state, places, movers, target) or charge(state, nation, cost)
    return refusal if refusal else (movers, left_out, cost)


def fuel_refusal(
    state: State, places: Places, units: Sequence[Unit], target: int, near: int
) -> Refusal | None:
    """RULINGS.md: an air unit moves only as far as its fuel allows; an
    order that takes one beyond its fuel (by the shortest way it may fly)
    is refused with the reach it has."""
    for unit in units:
        if not air.needs_fuel(unit.kind):
            continue
        path = _way(state, places, unit, target, near, keep=True)
        if path is not None and len(path) > unit.fuel:
            name = state.grid.name(target)
            facts = {"unit": unit.id, "fuel": unit.fuel, "distance": len(path), "square": name}
            return Reason.BEYOND_FUEL, facts
    return None


def _move_reason(state: State, goings: Sequence[Going], facts: dict[str, Any]) -> Reason:
    if facts["crashed"]:
        return Reason.CRASHED
    captured = [g for g in goings if g.status == "captured"]
    if captured:
        unit = state.units[captured[0].unit]
        facts.update(city=state.cities[unit.square].name, by=unit.id, hp=unit.hp)
        return Reason.CAPTURED
    if facts.get("stopped"):
        return Reason.STOPPED
    if facts["failed"]:
        return Reason.MOVED_PART
    return Reason.STANDING if facts["going"] else Reason.MOVED


def cancel(state: State, nation: str, unit_id: str) -> tuple[Reason, dict[str, Any]]:
    """Drop a unit's standing order (the rest of its group goes on). Free."""
    unit = state.units.get(unit_id)
    if unit is None or unit.owner != nation:
        return Reason.NOT_YOUR_UNIT, {"unit": unit_id}
    for s in state.standing:
        if unit_id in s.units:
            release(state, [unit_id])
            return Reason.CANCELLED, {"unit": unit_id, "square": state.grid.name(s.target)}
    return Reason.NO_STANDING, {"unit": unit_id}
