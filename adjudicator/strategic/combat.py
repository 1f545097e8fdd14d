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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adjudicator.base import Event, Rng
from adjudicator.strategic import carrying
from adjudicator.strategic.movement import (
    DONE,
    Going,
    allied,
    anything_happened,
    capturable,
    charge,
    move,
    own_units,
    release,
    run_group,
    step_cost,
    summary,
)
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.rules import MINIMAL_ATTACK, UnitType, tables
from adjudicator.strategic.sight import sees_square
from adjudicator.strategic.state import City, Standing, State, Unit, at_war
from adjudicator.strategic.supply import top_up

# -- who may attack whom -----------------------------------------------------------


def exposure(state: State, unit: Unit) -> frozenset[str]:
    """What an attacker's ``attacks`` must include to hit ``unit``: air
    units "air"; in a city "land", and "coast" if the city is coastal (any
    ship may attack units in a coastal city); on other land "land" (of the
    ships only battleships); at sea "sea" (of the land units only tanks).
    A carried unit: nothing (it is never attacked)."""
    if unit.carried_by is not None:
        return frozenset()
    if tables().unit(unit.kind).domain == "air":
        return frozenset({"air"})
    if unit.square in state.cities:
        coast = state.board.coastal(unit.square)
        return frozenset({"land", "coast"} if coast else {"land"})
    return frozenset({"land"} if state.board.is_land(unit.square) else {"sea"})


def may_attack(state: State, kind: UnitType, defender: Unit) -> bool:
    return bool(kind.attacks & exposure(state, defender))


def enemies_at(state: State, places: Places, nation: str, square: int) -> list[Unit]:
    """The units in ``square`` of nations ``nation`` is at war with."""
    return [u for u in places.units_at(square) if at_war(state, nation, u.owner)]


def choose_target(
    state: State, places: Places, attacker: Unit, kind: UnitType, square: int
) -> Unit | None:
    """RULINGS.md: the most recently built unit among those with the
    highest attack multiplier against the attacker, then the lowest id."""
    multiplier = tables().multiplier
    found = [
        u for u in enemies_at(state, places, attacker.owner, square) if may_attack(state, kind, u)
    ]
    if not found:
        return None
    return min(found, key=lambda u: (-multiplier(u.kind, attacker.kind), -u.built, u.id))


# -- damage ------------------------------------------------------------------------


def draw(rng: Rng, attack: int) -> int:
    """An integer drawn uniformly from ceil(A/2) to A."""
    low = (attack + 1) // 2
    return low + rng.below(attack - low + 1)


def damage(state: State, rng: Rng, attack: int, shooter: str | None, victim: Unit) -> int:
    """The damage of one attack of strength ``attack`` by a unit of type
    ``shooter`` (None: a city's cannon) on ``victim``."""
    t = tables()
    kind = t.unit(victim.kind)
    hit = draw(rng, attack)
    if shooter is not None:
        hit *= t.multiplier(shooter, victim.kind)
    city = state.cities.get(victim.square)
    if city is not None and kind.ship:
        hit *= 3  # ships in port
    if city is not None and kind.land and t.cities[city.designation].halves_land_damage:
        hit = max(1, hit // 2)
    return hit


def _hurt(
    state: State,
    places: Places,
    victim: Unit,
    hit: int,
    by: tuple[str, str | None, int],
) -> Event | None:
    """Take ``hit`` HP from ``victim``; at 0 it is destroyed (and leaves
    its standing order): the event of its loss, or None. ``by``: the unit
    or city that fired, its nation and the square it fired from."""
    victim.hp = max(0, victim.hp - hit)
    if victim.hp > 0:
        return None
    del state.units[victim.id]
    places.removed(victim)
    release(state, [victim.id])
    facts = {
        "unit": victim.id,
        "unit_type": victim.kind,
        "nation": victim.owner,
        "by": by[0],
        "by_nation": by[1],
        "square": state.grid.name(victim.square),
        "from": state.grid.name(by[2]),
    }
    seen = {victim.owner} | ({by[1]} if by[1] else set())
    return Event(Happened.DESTROYED, facts, frozenset(seen))


def fire(
    state: State,
    places: Places,
    rng: Rng,
    shooter: Unit,
    attack: int,
    victim: Unit,
    events: list[Event],
    counter: bool = False,
) -> None:
    """One attack of ``shooter`` on ``victim`` with strength ``attack``."""
    hit = damage(state, rng, attack, shooter.kind, victim)
    facts = {
        "unit": shooter.id,
        "unit_type": shooter.kind,
        "nation": shooter.owner,
        "target": victim.id,
        "target_type": victim.kind,
        "target_nation": victim.owner,
        "damage": hit,
        "hp": max(0, victim.hp - hit),
        "from": state.grid.name(shooter.square),
        "square": state.grid.name(victim.square),
        "counter": counter,
    }
    events.append(Event(Happened.ATTACK, facts, frozenset({shooter.owner, victim.owner})))
    by = (shooter.id, shooter.owner, shooter.square)
    lost = _hurt(state, places, victim, hit, by)
    if lost:
        events.append(lost)
        events += carrying.lost_with(state, places, victim, by)  # what it carried goes down


def cannon(
    state: State, places: Places, rng: Rng, city: City, ship: Unit, events: list[Event]
) -> None:
    """A city's cannon fires first at a ship attacking it (A = cannon)."""
    strength = tables().cities[city.designation].cannon
    if strength <= 0 or city.owner is None or not at_war(state, ship.owner, city.owner):
        return
    hit = damage(state, rng, strength, None, ship)
    facts = {
        "city": city.name,
        "nation": city.owner,
        "target": ship.id,
        "target_type": ship.kind,
        "target_nation": ship.owner,
        "damage": hit,
        "hp": max(0, ship.hp - hit),
        "square": state.grid.name(city.square),
        "at": state.grid.name(ship.square),
    }
    events.append(Event(Happened.CANNON, facts, frozenset({city.owner, ship.owner})))
    by = (city.name, city.owner, city.square)
    lost = _hurt(state, places, ship, hit, by)
    if lost:
        events.append(lost)
        events += carrying.lost_with(state, places, ship, by)  # what it carried goes down


def counter(
    state: State, places: Places, rng: Rng, defender: Unit, attacker: Unit, events: list[Event]
) -> None:
    """A counter-attack: it costs ammo, no mobility; only a unit without
    ammo (or without any attack) does not counter-attack. A ship fired on
    by a land unit counter-attacks only if it can hit land units. A ship
    that cannot see submarines counter-attacks one with the minimal attack."""
    if defender.id not in state.units or attacker.id not in state.units:
        return
    mine, theirs = tables().unit(defender.kind), tables().unit(attacker.kind)
    if defender.ammo < 1 or mine.attack <= 0 or not mine.attacks:
        return
    if mine.ship and theirs.land and "land" not in mine.attacks:
        return
    strength = mine.attack
    if mine.ship and "stealth" in theirs.flags and mine.sees_subs is None:
        strength = MINIMAL_ATTACK
    defender.ammo -= 1
    fire(state, places, rng, defender, strength, attacker, events, counter=True)
    if defender.id in state.units:
        top_up(state, defender, places)


# -- one unit's attack ---------------------------------------------------------------


def strike(
    state: State, places: Places, rng: Rng, attacker: Unit, square: int, events: list[Event]
) -> str:
    """One attack of ``attacker`` (next to ``square``): "attacked", or why
    not (no_target, no_mobility, no_ammo, not_adjacent)."""
    kind = tables().unit(attacker.kind)
    if state.grid.distance(attacker.square, square) != 1:
        return "not_adjacent"
    defender = choose_target(state, places, attacker, kind, square)
    if defender is None:
        return "no_target"
    cost = step_cost(state, places, attacker)
    if attacker.mobility < cost:
        return "no_mobility"
    if attacker.ammo < 1:
        return "no_ammo"
    attacker.mobility -= cost
    attacker.ammo -= 1
    city = state.cities.get(square)
    if kind.ship and city is not None:
        cannon(state, places, rng, city, attacker, events)
        if attacker.id not in state.units:
            return "attacked"
    fire(state, places, rng, attacker, kind.attack, defender, events)
    top_up(state, attacker, places)
    counter(state, places, rng, defender, attacker, events)
    if kind.ship and tables().unit(defender.kind).ship:
        for ship in _ships_next_to(state, places, attacker, defender):
            counter(state, places, rng, ship, attacker, events)
    return "attacked"


def _ships_next_to(state: State, places: Places, attacker: Unit, defender: Unit) -> list[Unit]:
    """In a naval battle, the enemy ships next to the attacker (the
    defender apart), by id."""
    kinds = tables().units
    found = [
        u
        for sq in state.grid.neighbours(attacker.square)
        for u in places.units_at(sq)
        if u.id != defender.id and kinds[u.kind].ship and at_war(state, u.owner, attacker.owner)
    ]
    return sorted(found, key=lambda u: u.id)


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
    if refusal:
        return refusal
    mark = len(events)
    goings, why = assault(state, places, able, target, rng, events)
    if not anything_happened(goings):
        blocked = any(g.status == "blocked" for g in goings)
        return (Reason.BLOCKED if blocked else Reason.NO_PATH), {"units": ids, "square": name}
    state.nations[nation].command -= tables().costs["attack"]
    release(state, ids)  # every unit it names: the new order replaces its standing one
    facts = {"units": ids, "square": name, "cost": tables().costs["attack"]}
    facts["left"] = state.nations[nation].command
    facts.update(summary(goings, left_out))
    facts.update(_tally(nation, events[mark:], why))
    if facts["going"]:
        state.standing.append(Standing(nation, tuple(facts["going"]), target, "attack", seq, line))
    return _attack_reason(state, places, nation, target, facts), facts


def _plan(
    state: State, places: Places, nation: str, units: list[Unit], target: int
) -> tuple[list[Unit], dict[str, str]] | tuple[Reason, dict[str, Any]] | None:
    """The units that may attack what is there and those left out; None
    for a capture; or why the order is refused."""
    name = state.grid.name(target)
    others = [u for u in places.units_at(target) if not allied(state, nation, u.owner)]
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
    goings = run_group(state, places, units, target, 1, events, rng)
    why: dict[str, str] = {}
    for g in goings:
        unit = state.units.get(g.unit)
        if g.status in DONE and unit is not None and not g.stopped_by:
            why[g.unit] = strike(state, places, rng, unit, target, events)
            if why[g.unit] == "no_mobility":
                g.status = "going"  # it attacks when mobility allows
    return goings, why


def _tally(nation: str, happened: Sequence[Event], why: dict[str, str]) -> dict[str, Any]:
    """How many attacks the order's units made (one sunk by a city's cannon
    counts: it spent its ammo), what they destroyed and lost, and why the
    others did not attack."""
    losses = [e.facts for e in happened if e.kind in (Happened.DESTROYED, Happened.LOST_ABOARD)]
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
