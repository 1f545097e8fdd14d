"""What moving, flying, carrying, fighting and intercepting all ask of a
unit and a square, below the modules that move and fight (they import this
one, never the other way): whether nations share squares, whether a unit
may enter a square or capture a city there, whether a nation can pay an
order, and taking a unit off the board or out of its standing order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from operator import attrgetter
from typing import Any

from adjudicator.strategic.diplomacy import may_attack
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Reason
from adjudicator.strategic.rules import CAPTURE_HP, UnitType, tables
from adjudicator.strategic.state import Standing, State, Unit, relation

Refusal = tuple[Reason, dict[str, Any]]


# -- where a unit may go -------------------------------------------------------


def allied(state: State, nation: str, owner: str) -> bool:
    """Units of allied nations (and a nation's own) may share a square."""
    return relation(state, nation, owner) == "allied"


def harbour(state: State, square: int) -> bool:
    """A port or a coastal base: a city whose type supplies ships, next to
    water (ships may enter it; it holds any number)."""
    city = state.cities.get(square)
    if city is None or "sea" not in tables().cities[city.designation].supplies:
        return False
    return state.board.coastal(square)


def terrain_allows(state: State, kind: UnitType, square: int) -> bool:
    """Land units over land (a city is land), ships over water and
    harbours, engineers and air units anywhere."""
    return _terrain(state, kind)(square)


def _terrain(state: State, kind: UnitType) -> Callable[[int], bool]:
    """:func:`terrain_allows` for one kind, as a function of the square
    (a search asks it of many squares)."""
    land = state.board.land
    if kind.domain in ("amphibious", "air"):
        return lambda sq: True
    if kind.ship:
        return lambda sq: sq not in land or harbour(state, sq)
    if kind.land:
        return land.__contains__
    return lambda sq: False


def enterable(state: State, places: Places, unit: Unit, kind: UnitType, square: int) -> bool:
    """Whether ``unit`` may step into ``square`` now: the terrain allows it,
    a city there is its nation's or an ally's, no unit there belongs to a
    nation not allied, and a sea square holds no other ship."""
    return _enterable(state, places, unit, kind)(square)


def _enterable(
    state: State,
    places: Places,
    unit: Unit,
    kind: UnitType,
    terrain: Callable[[int], bool] | None = None,
) -> Callable[[int], bool]:
    """:func:`enterable` for one unit, as a function of the square; whether
    a nation is allied is asked once a nation (``terrain``: the kind's
    :func:`_terrain`, if made already)."""
    terrain = terrain or _terrain(state, kind)
    cities, units, kinds, ship = state.cities, state.units, tables().units, kind.ship
    friends: dict[str, bool] = {}

    def friend(owner: str) -> bool:
        known = friends.get(owner)
        if known is None:
            known = friends[owner] = allied(state, unit.owner, owner)
        return known

    at = places.at  # units by square, read directly: asked of every square a search takes
    me = unit.id

    def may_enter(square: int) -> bool:
        if not terrain(square):
            return False
        city = cities.get(square)
        if city is not None and (city.owner is None or not friend(city.owner)):
            return False
        for uid in at.get(square, ()):
            other = units.get(uid)
            if other is None or uid == me:
                continue
            if not friend(other.owner) or (ship and city is None and kinds[other.kind].ship):
                return False
        return True

    return may_enter


def capturable(state: State, places: Places, nation: str, square: int) -> bool:
    """An empty city, neutral or of a nation at war with ``nation``."""
    city = state.cities.get(square)
    if city is None or places.ids_at(square):
        return False
    return may_attack(state, nation, city.owner)


def can_capture(kind: UnitType, unit: Unit) -> bool:
    """Only land units capture, and only with more than 4 HP (a capture
    costs 4)."""
    return kind.land and unit.hp > CAPTURE_HP


# -- paying for an order, leaving the board ------------------------------------


def charge(state: State, nation: str, cost: int) -> Refusal | None:
    """Refused if the nation cannot pay ``cost`` command points."""
    left = state.nations[nation].command
    if left < cost:
        return Reason.CANNOT_PAY, {"cost": cost, "left": left}
    return None


def remove(state: State, places: Places, unit: Unit) -> None:
    """``unit`` leaves the board (destroyed, launched): out of the state,
    the tick's index and its standing order."""
    del state.units[unit.id]
    places.removed(unit)
    release(state, [unit.id])


def release(state: State, unit_ids: Sequence[str]) -> None:
    """A new order for a unit replaces its standing order."""
    gone = set(unit_ids)
    if gone.isdisjoint(chain.from_iterable(map(_units_of, state.standing))):
        return  # the common case, asked in one pass: none of them has one
    kept = []
    for s in state.standing:
        if gone.isdisjoint(s.units):
            kept.append(s)
            continue
        rest = tuple(u for u in s.units if u not in gone)
        if rest:
            kept.append(Standing(s.nation, rest, s.target, s.action, s.seq, s.line))
    state.standing = kept


_units_of = attrgetter("units")
