"""Plans made from what a nation knows (docs/rules/strategic.md, Ruling:
ways through the fog). Way-finding for an order (the way a unit takes, the
square next to its target a group ends on, the nearest place to refuel)
asks of each square what the unit's nation knows of it, never the true
board: a square it sees now is as it is (but for a submarine it does not
see: sight.conceals); a square it does not see is the public board alone,
the terrain, and a city in it closed (a nation's own cities, and those of
the nations allied with it, which share their sight, are always seen).
Remembered units are not planned around: the map shows them greyed, as
they were, and the way is planned as if they had gone; the unit finds what
is there when it tries to enter (movement._step: it stops next to it, and
the nation sees what stopped it, as it sees a submarine it bumped into).

So two positions that give a nation the same view give it the same ways
and the same refusals; what differs in the fog is met on the way, by the
units that go there.
"""

from __future__ import annotations

from collections.abc import Callable

from adjudicator.strategic.places import Places
from adjudicator.strategic.sight import conceals, sees_square, subs_about
from adjudicator.strategic.state import State, Unit


def as_known(
    state: State,
    places: Places,
    unit: Unit,
    terrain: Callable[[int], bool],
    passable: Callable[[int], bool],
) -> Callable[[int], bool]:
    """``passable`` (the true board: units._enterable) as ``unit``'s
    nation knows it. The two differ only where other nations' units stand
    outside a city: such a square is open when the nation does not see it,
    or sees it but none of the units there (hidden submarines). Cities out
    of sight are closed: the nation's own and its allies' are in sight, so
    the true answer there (closed unless they are) tells nothing. Whether a
    square is seen is asked only of the squares the true board closes."""
    at, units, cities = places.at, state.units, state.cities
    nation, me, lookouts = unit.owner, unit.id, (unit,)
    subs = subs_about(state)

    def may_step(sq: int) -> bool:
        if passable(sq):
            return sq not in cities or _city_known(state, places, nation, sq, lookouts)
        ids = at.get(sq)
        if not ids or sq in cities or not terrain(sq):
            return False  # closed by what the public board shows
        others = [units[i] for i in ids if i in units and i != me]
        if not others:
            return False
        if any(u.owner == nation and u.carried_by is None for u in others):
            return False  # its own unit stands there (a ship at sea): it sees the square
        if subs and all(conceals(state, nation, u, places) for u in others):
            return True  # only submarines it does not see: it finds them there
        return not sees_square(state, nation, sq, places, lookouts)

    return may_step


def _city_known(
    state: State, places: Places, nation: str, square: int, lookouts: tuple[Unit, ...]
) -> bool:
    """A city the true board opens (the nation's or an ally's): its own is
    known; another's only while seen (an ally's always is, in play)."""
    city = state.cities[square]
    return city.owner == nation or sees_square(state, nation, square, places, lookouts)
