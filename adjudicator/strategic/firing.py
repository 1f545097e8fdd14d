"""Firing (rules, section 5; RULINGS.md; the attack order is in combat.py):
who may attack whom, the damage of a shot, one unit's attack, a city's
cannon and flak, a counter-attack, a bomber's strike. Attacking and
intercepting both fire with these.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from adjudicator.base import Event, Rng
from adjudicator.strategic import air, cargo
from adjudicator.strategic.paths import step_cost
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened
from adjudicator.strategic.rules import MINIMAL_ATTACK, Minimal, UnitType, tables
from adjudicator.strategic.sight import conceals
from adjudicator.strategic.state import City, State, Unit, at_war
from adjudicator.strategic.supply import top_up
from adjudicator.strategic.units import remove

# -- who may attack whom -----------------------------------------------------------


_AIR = frozenset({"air"})
_AIR_AT_SEA = frozenset({"air", "air_at_sea"})
_AIR_IN_A_COASTAL_CITY = frozenset({"air", "coast"})
_LAND, _SEA = frozenset({"land"}), frozenset({"sea"})
_COASTAL_CITY = frozenset({"land", "coast"})


def exposure(state: State, unit: Unit) -> frozenset[str]:
    """What an attacker's ``attacks`` must include to hit ``unit``: air
    units "air" (and "air_at_sea" over water: submarines and naval bombers
    hit those; "coast" in a coastal city: ships hit those, a ruling); in a
    city "land", and "coast" if the city is coastal (any ship may attack
    units in a coastal city); on other land "land" (of the ships only
    battleships); at sea "sea" (of the land units only tanks).
    A carried unit: nothing (it is never attacked)."""
    if unit.carried_by is not None:
        return frozenset()
    if air.flies(unit.kind):
        if unit.square in state.cities and state.board.coastal(unit.square):
            return _AIR_IN_A_COASTAL_CITY  # "Any ship can attack units in a coastal city"
        return _AIR if _on_land(state, unit.square) else _AIR_AT_SEA
    if unit.square in state.cities:
        return _COASTAL_CITY if state.board.coastal(unit.square) else _LAND
    return _LAND if state.board.is_land(unit.square) else _SEA


def _on_land(state: State, square: int) -> bool:
    return square in state.board.land or square in state.cities


def may_attack(state: State, kind: UnitType, defender: Unit) -> bool:
    """Whether a unit of ``kind`` may hit ``defender``: its ``attacks``
    meet the defender's exposure, or it is a bomber and the defender stands
    on a land square (a bomber hits every unit there)."""
    if kind.bombs and _on_land(state, defender.square):
        return True
    return bool(kind.attacks & exposure(state, defender))


def enemies_at(state: State, places: Places, nation: str, square: int) -> list[Unit]:
    """The units in ``square`` of nations ``nation`` is at war with (and
    sees: a submarine it does not see is not there for it)."""
    return [
        u
        for u in places.units_at(square)
        if at_war(state, nation, u.owner) and not conceals(state, nation, u, places)
    ]


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


def roll(
    state: State,
    rng: Rng,
    attack: int,
    shooter: str | None,
    victim: Unit,
    facts: dict[str, Any],
    minimal: str | None = None,
) -> int:
    """The damage of one attack of strength ``attack`` by a unit of type
    ``shooter`` (None: a city's cannon or flak) on ``victim``: drawn,
    multiplied (the table; planes in cities x2; ships in port x3), halved
    for land units in a fort or base (at least 1). How it came about is
    added to ``facts``, the event's: the draw from ``low`` to ``high``, the
    factors that multiplied it, whether a fort halved it, why the attack
    was minimal (None if it was not), and all that in words, ``roll``
    ("drew 3 of 2-4, x2 plane in a city")."""
    t = tables()
    kind = t.unit(victim.kind)
    low = (attack + 1) // 2
    drawn = draw(rng, attack)
    hit, factors = drawn, []
    multiplier = t.multiplier(shooter, victim.kind) if shooter is not None else 1
    if multiplier > 1:
        hit *= multiplier
        factors.append(f"x{multiplier} attack multiplier")
    city = state.cities.get(victim.square)
    if city is not None:
        if kind.domain == "air":
            hit *= 2
            factors.append("x2 plane in a city")
        if kind.ship:
            hit *= 3
            factors.append("x3 ship in port")
    halved = bool(city is not None and kind.land and t.cities[city.designation].halves_land_damage)
    if halved:
        hit = max(1, hit // 2)
    words = f"drew {drawn} of {low}-{attack}"
    if factors:
        words = ", ".join([words, *factors])
    if minimal:
        words = "minimal attack 2, " + words
    if halved:
        words = f"{words}, halved in a fort: {hit}"
    facts["draw"] = drawn
    facts["low"] = low
    facts["high"] = attack
    facts["factors"] = factors
    facts["halved"] = halved
    facts["minimal"] = minimal
    facts["roll"] = words
    return hit


def damage(state: State, rng: Rng, attack: int, shooter: str | None, victim: Unit) -> int:
    """The damage of one attack of strength ``attack`` by a unit of type
    ``shooter`` (None: a city's cannon) on ``victim`` (:func:`roll`)."""
    return roll(state, rng, attack, shooter, victim, {})


def minimal_case(state: State, shooter: Unit, victim: Unit, counter: bool) -> Minimal | None:
    """The first case of the minimal attack that applies to ``shooter``
    firing on ``victim`` (data/units.yaml's minimal_attacks), or None."""
    return _minimal(shooter.kind, victim.kind, counter, _on_land(state, victim.square))


@cache
def _minimal(shooter: str, victim: str, counter: bool, on_land: bool) -> Minimal | None:
    """:func:`minimal_case` by the types, whether it is a counter-attack
    and whether the victim is on land (a few hundred shots a tick ask)."""
    t = tables()
    mine = t.unit(shooter)
    for case in t.minimal:
        if shooter not in case.attackers or (case.counter and not counter):
            continue
        if case.defenders is not None and victim not in case.defenders:
            continue
        if case.at_sea and on_land:
            continue
        if case.blind and mine.sees_subs is not None:
            continue
        return case
    return None


def strength(state: State, shooter: Unit, victim: Unit, counter: bool) -> tuple[int, str | None]:
    """A (the most damage of one shot) of ``shooter`` on ``victim``: the
    table's attack, or the minimal attack 2 (and why)."""
    case = minimal_case(state, shooter, victim, counter)
    if case is not None:
        return MINIMAL_ATTACK, case.why
    return tables().unit(shooter.kind).attack, None


def _hurt(
    state: State,
    places: Places,
    victim: Unit,
    hit: int,
    by: tuple[str, str | None, int],
    events: list[Event],
) -> None:
    """Take ``hit`` HP from ``victim``; at 0 it is destroyed (and leaves
    its standing order), and what it carried goes down with it: the events
    of those losses added to ``events``. ``by``: the unit or city that
    fired, its nation and the square it fired from."""
    victim.hp = max(0, victim.hp - hit)
    if victim.hp > 0:
        return
    remove(state, places, victim)
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
    events.append(Event(Happened.DESTROYED, facts, frozenset(seen)))
    events += cargo.lost_with(state, places, victim, by)


def fire(
    state: State,
    places: Places,
    rng: Rng,
    shooter: Unit,
    attack: int | None,
    victim: Unit,
    events: list[Event],
    counter: bool = False,
) -> None:
    """One attack of ``shooter`` on ``victim`` with strength ``attack``
    (None: the shooter's own against the victim, :func:`strength`)."""
    why = None
    if attack is None:
        attack, why = strength(state, shooter, victim, counter)
    facts = {
        "unit": shooter.id,
        "unit_type": shooter.kind,
        "nation": shooter.owner,
        "target": victim.id,
        "target_type": victim.kind,
        "target_nation": victim.owner,
        "damage": 0,  # below, once rolled (the facts keep this order)
        "hp": 0,
        "from": state.grid.name(shooter.square),
        "square": state.grid.name(victim.square),
        "counter": counter,
    }
    hit = facts["damage"] = roll(state, rng, attack, shooter.kind, victim, facts, why)
    facts["hp"] = max(0, victim.hp - hit)
    events.append(Event(Happened.ATTACK, facts, frozenset({shooter.owner, victim.owner})))
    by = (shooter.id, shooter.owner, shooter.square)
    _hurt(state, places, victim, hit, by, events)


def cannon(
    state: State, places: Places, rng: Rng, city: City, ship: Unit, events: list[Event]
) -> None:
    """A city's cannon fires first at a ship attacking it (A = cannon)."""
    strength = tables().cities[city.designation].cannon
    if strength <= 0 or city.owner is None or not at_war(state, ship.owner, city.owner):
        return
    facts = {
        "city": city.name,
        "nation": city.owner,
        "target": ship.id,
        "target_type": ship.kind,
        "target_nation": ship.owner,
        "damage": 0,  # below, once rolled
        "hp": 0,
        "square": state.grid.name(city.square),
        "at": state.grid.name(ship.square),
    }
    hit = facts["damage"] = roll(state, rng, strength, None, ship, facts)
    facts["hp"] = max(0, ship.hp - hit)
    events.append(Event(Happened.CANNON, facts, frozenset({city.owner, ship.owner})))
    by = (city.name, city.owner, city.square)
    _hurt(state, places, ship, hit, by, events)


def counter(
    state: State, places: Places, rng: Rng, defender: Unit, attacker: Unit, events: list[Event]
) -> None:
    """A counter-attack: it costs ammo, no mobility; only a unit without
    ammo (or without any attack) does not counter-attack. A ship fired on
    by a land unit counter-attacks only if it can hit land units. The
    minimal attack where section 5 says (a bomber's counter-attack, a
    ship's on a plane, one that cannot see submarines on a submarine)."""
    if defender.id not in state.units or attacker.id not in state.units:
        return
    mine, theirs = tables().unit(defender.kind), tables().unit(attacker.kind)
    if defender.ammo < 1 or not (mine.attack > 0 or mine.bombs > 0) or not mine.attacks:
        return
    if mine.ship and theirs.land and "land" not in mine.attacks:
        return
    defender.ammo -= 1
    fire(state, places, rng, defender, None, attacker, events, counter=True)
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
    if kind.bombs and _on_land(state, square):
        bomb(state, places, rng, attacker, square, events)
        return "attacked"
    city = state.cities.get(square)
    if kind.ship and city is not None:
        cannon(state, places, rng, city, attacker, events)
        if attacker.id not in state.units:
            return "attacked"
    if air.flies(attacker.kind):
        flak(state, places, rng, attacker, square, [defender], events)
        if attacker.id not in state.units:
            return "attacked"
    fire(state, places, rng, attacker, None, defender, events)
    top_up(state, attacker, places)
    counter(state, places, rng, defender, attacker, events)
    if kind.ship and tables().unit(defender.kind).ship:
        for ship in _ships_next_to(state, places, attacker, defender):
            counter(state, places, rng, ship, attacker, events)
    return "attacked"


def flak(
    state: State,
    places: Places,
    rng: Rng,
    plane: Unit,
    square: int,
    attacked: Sequence[Unit],
    events: list[Event],
) -> None:
    """Before a plane attacks ``square``: the flak of a city there (of a
    nation at war with the plane's), then of each ship it attacks that has
    flak, by id; each fires once with A = its flak. Flak needs no ammo."""
    city = state.cities.get(square)
    if city is not None and city.owner is not None and at_war(state, plane.owner, city.owner):
        value = tables().cities[city.designation].flak
        if value > 0:
            by = (city.name, city.designation, city.owner, city.square)
            _flak_shot(state, places, rng, by, value, plane, events)
    kinds = tables().units
    for ship in sorted(attacked, key=lambda u: u.id):
        value = kinds[ship.kind].flak
        if plane.id not in state.units:
            return
        if value > 0 and kinds[ship.kind].ship and ship.id in state.units:
            _flak_shot(state, places, rng, (ship.id, ship.kind, ship.owner, ship.square), value,
                       plane, events)  # fmt: skip


def _flak_shot(
    state: State,
    places: Places,
    rng: Rng,
    by: tuple[str, str, str, int],
    value: int,
    plane: Unit,
    events: list[Event],
) -> None:
    """One flak shot at ``plane``; ``by``: who fires (name or id, its
    designation or type, its nation, its square)."""
    name, by_type, nation, square = by
    facts = {
        "by": name,
        "by_type": by_type,
        "nation": nation,
        "target": plane.id,
        "target_type": plane.kind,
        "target_nation": plane.owner,
        "damage": 0,  # below, once rolled
        "hp": 0,
        "square": state.grid.name(square),
        "at": state.grid.name(plane.square),
    }
    hit = facts["damage"] = roll(state, rng, value, None, plane, facts)
    facts["hp"] = max(0, plane.hp - hit)
    events.append(Event(Happened.FLAK, facts, frozenset({nation, plane.owner})))
    _hurt(state, places, plane, hit, (name, nation, square), events)


def bomb(
    state: State, places: Places, rng: Rng, bomber: Unit, square: int, events: list[Event]
) -> None:
    """A bomber's attack on a land square (section 6): the flak there fires
    first; then every enemy unit in the square not carried (most recently
    built first) loses the bomber's percentage of its remaining HP, rounded
    up, at least 1; then the unit it would have attacked counter-attacks."""
    percent = tables().unit(bomber.kind).bombs
    found = [u for u in enemies_at(state, places, bomber.owner, square) if u.carried_by is None]
    victims = sorted(found, key=lambda u: (-u.built, u.id))
    flak(state, places, rng, bomber, square, victims, events)
    if bomber.id not in state.units:
        return
    for victim in victims:
        before = victim.hp
        hit = max(1, -(-before * percent // 100))
        facts = {
            "unit": bomber.id,
            "unit_type": bomber.kind,
            "nation": bomber.owner,
            "target": victim.id,
            "target_type": victim.kind,
            "target_nation": victim.owner,
            "percent": percent,
            "damage": hit,
            "hp": max(0, before - hit),
            "from": state.grid.name(bomber.square),
            "square": state.grid.name(square),
            "roll": f"{percent}% of {before} HP, rounded up",
        }
        events.append(Event(Happened.BOMBED, facts, frozenset({bomber.owner, victim.owner})))
        by = (bomber.id, bomber.owner, bomber.square)
        _hurt(state, places, victim, hit, by, events)
    kind = tables().unit(bomber.kind)
    answer = choose_target(state, places, bomber, kind, square)
    if answer is not None:
        counter(state, places, rng, answer, bomber, events)


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
