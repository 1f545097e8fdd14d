"""Strategic Initiative: the index of where things are (places.py), kept up
to date by moving and fighting, answers as one built afresh from the state
would, and finds every supply source in range (rules, section 8: "within 5
squares")."""

from __future__ import annotations

from adjudicator.base import Rng
from adjudicator.strategic.combat import attack
from adjudicator.strategic.movement import move
from adjudicator.strategic.places import Places
from adjudicator.strategic.rules import SUPPLY_RANGE, tables
from adjudicator.strategic.state import State
from tests.si_war_boards import ISLANDS, position, relate, scatter

DOMAINS = ("land", "sea")


def _war(seed: int) -> State:
    """Three nations at war on an island board (24 x 12: cells of supply
    range wrap at both edges), 36 units in random places."""
    owners = {"C2": "red", "L4": "blue", "H7": "gold", "E4": "red", "T2": "blue",
              "S6": "gold", "S8": "blue", "D10": "gold", "N11": "red"}  # fmt: skip
    state = position(ISLANDS, ("red", "blue", "gold"), **owners)
    for a in ("red", "blue", "gold"):
        for b in ("red", "blue", "gold"):
            if a != b:
                relate(state, a, b, "war")
    kinds = ["infantry", "tank", "destroyer", "supply_ship", "engineer", "transport"]
    scatter(state, kinds, 36, Rng(seed), ("red", "blue", "gold"))
    return state


def _answers(places: Places, state: State) -> list[object]:
    """Everything the index answers, square by square, as sets (the order
    within a square is nobody's business: readers sort or ask "any")."""
    out: list[object] = []
    for square in range(state.grid.size):
        cities, units = places.candidates("land", square)
        _, ships = places.candidates("sea", square)
        out.append((sorted(places.ids_at(square)), sorted(cities), sorted(units), sorted(ships)))
    return out


def _in_range(places: Places, state: State, square: int) -> None:
    """Every city and every supplying unit within supply range of
    ``square`` is among the candidates the index gives for it."""
    grid = state.grid
    for domain in DOMAINS:
        cities, units = places.candidates(domain, square)
        for city_square in state.cities:
            if grid.distance(square, city_square) <= SUPPLY_RANGE:
                assert city_square in cities, (domain, square, city_square)
        for u in state.units.values():
            if grid.distance(square, u.square) <= SUPPLY_RANGE and domain in _supplies(u.kind):
                assert u.id in units, (domain, square, u.id)


def _supplies(kind: str) -> frozenset[str]:
    return tables().unit(kind).supplies


def test_the_index_kept_through_moves_and_attacks_is_the_index_made_afresh():
    """Bounded property: over seeded random wars (moves, attacks, units
    destroyed, cities captured), the index a tick keeps up to date answers
    exactly as one made again from the state, and never misses a source in
    range (the wrapping edges included)."""
    kinds: set[str] = set()
    for seed in range(4):
        state = _war(seed)
        places = Places(state)
        rng = Rng(seed)
        events: list = []
        for step in range(60):
            ids = sorted(state.units)
            mover = state.units[rng.choice(ids)]
            group = [u.id for u in state.units.values() if u.owner == mover.owner][:3]
            for uid in group:
                state.units[uid].mobility = 4
            if rng.coin():
                column, row = state.grid.at(mover.square)
                target = state.grid.square(column + rng.below(9) - 4, row + rng.below(9) - 4)
                move(state, mover.owner, group, target, step, 1, events, places)
            else:  # the nearest foe (the first by square of the nearest)
                grid = state.grid
                foes = sorted(
                    (grid.distance(mover.square, u.square), u.square)
                    for u in state.units.values()
                    if u.owner != mover.owner
                )
                attack(state, mover.owner, group, foes[0][1], rng, step, 1, events, places)
            if step % 20 == 19:
                assert _answers(places, state) == _answers(Places(state), state)
        kinds |= {e.kind for e in events}
        for square in (0, state.grid.size - 1, *(rng.below(state.grid.size) for _ in range(30))):
            _in_range(places, state, square)
    assert {"moved", "attack", "destroyed"} <= kinds, kinds
