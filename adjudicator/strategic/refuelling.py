"""The refuel order (``refuel ftr1 nb2``): each air unit named flies to the
nearest place where it can refuel that it can reach with its fuel (a
shortest way; equal distances go to the lower square number) and is
refuelled there (air.py). One command point for the order, as a move; a
unit already in a refuelling place is refuelled where it is; beyond
today's mobility the rest of the way is a standing order. Refused, and
nothing paid, if a unit named is no air unit that burns fuel or has no
refuelling place within its fuel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adjudicator.base import Event, Rng
from adjudicator.strategic import air
from adjudicator.strategic.movement import Going, own_units, summary, walk
from adjudicator.strategic.paths import find_path, planned
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Reason
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import Standing, State, Unit
from adjudicator.strategic.units import charge, release

Plan = list[tuple[Unit, int]]


def refuel(
    state: State,
    nation: str,
    unit_ids: Sequence[str],
    seq: int,
    line: int,
    events: list[Event],
    places: Places | None = None,
    rng: Rng | None = None,
) -> tuple[Reason, dict[str, Any]]:
    """The order, at step 4 of the tick."""
    places = places or Places(state)
    units = own_units(state, nation, unit_ids)
    if not isinstance(units, list):
        return units
    plan = _plan(state, places, units)
    if not isinstance(plan, list):
        return plan
    cost = tables().costs["move"]
    refusal = charge(state, nation, cost)
    if refusal:
        return refusal
    goings = [_fly(state, places, unit, target, events, rng) for unit, target in plan]
    state.nations[nation].command -= cost
    ids = [u.id for u in units]
    release(state, ids)
    name = state.grid.name
    facts: dict[str, Any] = {"units": ids, "squares": [name(t) for _, t in plan], "cost": cost}
    facts["left"] = state.nations[nation].command
    facts.update(summary(goings, {}))
    for g, (_, target) in zip(goings, plan, strict=True):
        if g.status == "going":
            state.standing.append(Standing(nation, (g.unit,), target, "move", seq, line))
    return (Reason.CRASHED if facts["crashed"] else Reason.REFUELLING), facts


def _plan(state: State, places: Places, units: list[Unit]) -> Plan | tuple[Reason, dict]:
    """Each unit's refuelling place, or why the order is refused."""
    plan: Plan = []
    for unit in units:
        refusal = air.refuel_refusal(state, unit)
        if refusal:
            return refusal
        kind = tables().unit(unit.kind)
        found = air.nearest_place(state, places, unit, planned(state, places, unit, kind))
        if found is None:
            facts = {"unit": unit.id, "fuel": unit.fuel, "square": state.grid.name(unit.square)}
            return Reason.NO_REFUELLING_PLACE, facts
        plan.append((unit, found[0]))
    return plan


def _fly(
    state: State, places: Places, unit: Unit, target: int, events: list[Event], rng: Rng | None
) -> Going:
    """One unit to its refuelling place (refuelled at once if there)."""
    if unit.square == target:
        air.refuel(unit)
        return Going(unit.id, "arrived")
    path = find_path(state, places, unit, target)
    if path is None:  # the search found it: only an earlier unit's move could close it
        return Going(unit.id, "blocked")
    return walk(state, places, unit, path, target, events, rng)
