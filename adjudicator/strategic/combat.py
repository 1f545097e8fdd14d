"""Attacking (rules, section 5; RULINGS.md).

A group ordered against a square moves next to it (as moving does), then
each unit with the mobility and ammo attacks, one after another: 1 mobility
(2 out of supply) and 1 ammo an attack, topped up after if in supply. The
target in the square is the most recently built unit among those with the
highest attack multiplier against the attacker (then the lowest id).
Damage is drawn uniformly from ceil(A/2) to A, multiplied (the table's
multipliers; ships in port x3), then halved for land units in a fort or
base (rounded down, at least 1). A city's cannon fires first at a ship
attacking it; the defender counter-attacks if it survives and has ammo; in
a naval battle every enemy ship next to the attacker counter-attacks too.
War is needed. An attack on an empty enemy or neutral city is a capture.

Air units (part 2): planes in cities take double damage; a bomber against
a land square hits every enemy unit there by its percentage of that unit's
remaining HP (rounded up, at least 1), no draw; a city's flak (and a
defending ship's) fires first at a plane attacking it; the minimal attack
(A = 2) of section 5 in the cases data/units.yaml lists. Every shot's
event carries its draw and what multiplied or halved it, for players to
check.

This module holds the ATTACK order (moving next to the target, then each
unit's attack, what it cost and what came of it); the shots themselves,
which interception fires too, are in firing.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adjudicator.base import Event, Rng
from adjudicator.strategic import air, carrying
from adjudicator.strategic.firing import enemies_at, may_attack, strike
from adjudicator.strategic.movement import (
    DONE,
    Going,
    anything_happened,
    fuel_refusal,
    move,
    own_units,
    run_group,
    summary,
)
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.rules import tables
from adjudicator.strategic.sight import conceals, sees_square
from adjudicator.strategic.state import Standing, State, Unit, at_war
from adjudicator.strategic.units import allied, capturable, charge, release

# -- the order -----------------------------------------------------------------------


def attack(
    state: State,
    nation: str,
    unit_ids: Sequence[str],
    target: int,
    rng: Rng,
    seq: int,
    line: int,
    events: list[Event],
    places: Places | None = None,
) -> tuple[Reason, dict[str, Any]]:
    """An attack order (step 4): 2 command points however many units. An
    attack on an empty enemy or neutral city is a capture (a move). On a
    square out of the nation's sight (a ruling), the order tells nothing
    of what is there: the units close in, then attack what they find (at
    war), and capture nothing."""
    places = places or Places(state)
    units = own_units(state, nation, unit_ids)
    if not isinstance(units, list):
        return units
    able, left_out = units, {}  # out of sight: close in, then attack what is there
    if sees_square(state, nation, target, places, units):
        plan = _plan(state, places, nation, units, target)
        if plan is None:
            return move(state, nation, unit_ids, target, seq, line, events, places, rng)
        if isinstance(plan[0], Reason):
            return plan  # type: ignore[return-value]
        able, left_out = plan  # type: ignore[misc]
    aboard = carrying.attack_refusal(units)  # a capture from a transport was a move, above
    if aboard:
        return aboard
    name = state.grid.name(target)
    ids = [u.id for u in units]
    refusal = charge(state, nation, tables().costs["attack"])
    refusal = refusal or fuel_refusal(state, places, able, target, 1)
    if refusal:
        return refusal
    mark = len(events)
    starts = {u.id: state.grid.name(u.square) for u in able}  # where each set off
    goings, why = assault(state, places, able, target, rng, events)
    if not anything_happened(goings):
        blocked = any(g.status == "blocked" for g in goings)
        return (Reason.BLOCKED if blocked else Reason.NO_PATH), {"units": ids, "square": name}
    if _struck_nothing(goings, why):  # RULINGS.md: an order that can do nothing costs nothing
        return Reason.NO_AMMO, {"units": ids, "square": name, "why": dict(sorted(why.items()))}
    state.nations[nation].command -= tables().costs["attack"]
    release(state, ids)  # every unit it names: the new order replaces its standing one
    facts = {"units": ids, "square": name, "cost": tables().costs["attack"]}
    facts["left"] = state.nations[nation].command
    facts.update(summary(goings, left_out))
    facts.update(_tally(nation, events[mark:], why))
    facts["from"] = starts  # the player's own units: the map draws each attack from there
    if facts["going"]:
        state.standing.append(Standing(nation, tuple(facts["going"]), target, "attack", seq, line))
    return _attack_reason(state, places, nation, target, facts), facts


def _struck_nothing(goings: Sequence[Going], why: dict[str, str]) -> bool:
    """No unit moved, none goes on, and every one next to the target had
    no ammo: the order did nothing. (What stands there was seen, or the
    units would not be next to it: a unit sees the squares next to it.)"""
    if any(g.path or g.stopped_by or g.status in ("going", "crashed") for g in goings):
        return False
    return bool(why) and all(w == "no_ammo" for w in why.values())


def _plan(
    state: State, places: Places, nation: str, units: list[Unit], target: int
) -> tuple[list[Unit], dict[str, str]] | tuple[Reason, dict[str, Any]] | None:
    """The units that may attack what is there and those left out; None
    for a capture; or why the order is refused."""
    name = state.grid.name(target)
    others = [
        u
        for u in places.units_at(target)
        if not allied(state, nation, u.owner) and not conceals(state, nation, u, places)
    ]
    if not others:
        if capturable(state, places, nation, target):
            return None
        city = state.cities.get(target)
        if city is not None and city.owner is not None and not allied(state, nation, city.owner):
            return Reason.NOT_AT_WAR, {"square": name, "city": city.name, "nations": [city.owner]}
        return Reason.NOTHING_TO_ATTACK, {"square": name}
    enemies = [u for u in others if at_war(state, nation, u.owner)]
    if not enemies:
        return Reason.NOT_AT_WAR, {"square": name, "nations": sorted({u.owner for u in others})}
    kinds = tables().units
    able = [u for u in units if any(may_attack(state, kinds[u.kind], e) for e in enemies)]
    if not able:
        return Reason.CANNOT_ATTACK, {"units": [u.id for u in units], "square": name}
    return able, {u.id: "cannot_attack" for u in units if u not in able}


def assault(
    state: State, places: Places, units: Sequence[Unit], target: int, rng: Rng, events: list[Event]
) -> tuple[list[Going], dict[str, str]]:
    """The group moves next to ``target``, then those there attack one
    after another; what became of each move, and of each unit next to the
    target: "attacked" or why not. A unit next to the target without the
    mobility to attack stays on the order: it attacks when it has some."""
    goings = run_group(state, places, units, target, 1, events, rng, land=False)
    why: dict[str, str] = {}
    for g in goings:
        unit = state.units.get(g.unit)
        if g.status in DONE and unit is not None and not g.stopped_by:
            why[g.unit] = strike(state, places, rng, unit, target, events)
            if why[g.unit] == "no_mobility":
                g.status = "going"  # it attacks when mobility allows
    for g in goings:  # the move ends after the attack: planes refuel or crash
        unit = state.units.get(g.unit)
        if unit is not None and air.landed(state, places, unit, events):
            g.status = "crashed"
    return goings, why


def _tally(nation: str, happened: Sequence[Event], why: dict[str, str]) -> dict[str, Any]:
    """How many attacks the order's units made (one sunk by a city's cannon
    counts: it spent its ammo), what they destroyed and lost, and why the
    others did not attack."""
    lost_kinds = (Happened.DESTROYED, Happened.LOST_ABOARD, Happened.CRASHED)
    losses = [e.facts for e in happened if e.kind in lost_kinds]
    return {
        "attacks": sum(1 for w in why.values() if w == "attacked"),
        "destroyed": [f["unit"] for f in losses if f["nation"] != nation],
        "lost": [f["unit"] for f in losses if f["nation"] == nation],
        "why": {u: w for u, w in sorted(why.items()) if w != "attacked"},
    }


def _attack_reason(
    state: State, places: Places, nation: str, target: int, facts: dict[str, Any]
) -> Reason:
    if facts.get("stopped"):
        return Reason.ATTACK_STOPPED
    if facts["attacks"]:
        cleared = not enemies_at(state, places, nation, target)
        return Reason.DESTROYED if cleared else Reason.ATTACKED
    return Reason.STANDING if facts["going"] else Reason.NOT_ATTACKED
