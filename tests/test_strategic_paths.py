"""Strategic Initiative: the ways units take (rules, section 4; RULINGS.md).

The search that finds them is built for big boards (it refuses what cannot
be reached before searching, asks whether a square may be entered only when
it takes it, and floods back from a walled-in target instead of searching a
whole ocean). These cases check that none of this changes a single way: on
seeded random positions it gives exactly the way of a plain search that
asks every square, and a target no unit can reach is found out by looking
at the squares around it, not at the whole board.
"""

from __future__ import annotations

import heapq

from adjudicator.base import Rng
from adjudicator.strategic.movement import move
from adjudicator.strategic.paths import find_path
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Reason
from adjudicator.strategic.rules import tables
from adjudicator.strategic.sight import visible
from adjudicator.strategic.state import State, Unit
from adjudicator.strategic.units import enterable, terrain_allows
from tests.si_war_boards import position, relate, sq, unit

NATIONS = ("red", "blue", "green")
LEVELS = ("war", "neutral", "friendly", "allied")
KINDS = (
    "infantry",
    "tank",
    "destroyer",
    "cruiser",
    "supply_ship",
    "patrol_boat",
    "fighter",
    "engineer",
)


def plain_path(
    state: State, places: Places, mover: Unit, target: int, near: int, units_matter: bool
) -> list[int] | None:
    """The rule written plainly: a shortest way over squares the unit may
    enter as its nation knows them (in sight: as they are; out of sight:
    the terrain, a city closed), the target itself (near 0) need only suit
    the terrain; ties to
    the deeper square, then the lower square number; every square met is
    asked."""
    kind = tables().unit(mover.kind)
    grid = state.grid
    seen = visible(state, mover.owner)

    def may_step(square: int) -> bool:
        if square == target:
            return near == 0 and terrain_allows(state, kind, square)
        if units_matter and square in seen:
            return enterable(state, places, mover, kind, square)
        if units_matter and square in state.cities:  # out of sight: none of its own
            return False
        return terrain_allows(state, kind, square)

    def arrived(square: int) -> bool:
        return square == target if near == 0 else grid.distance(square, target) == near

    start = mover.square
    best, came = {start: 0}, {}
    heap = [(max(0, grid.distance(start, target) - near), 0, start)]
    while heap:
        _, negative, square = heapq.heappop(heap)
        depth = -negative
        if depth > best[square]:
            continue
        if arrived(square):
            path = [square]
            while path[-1] != start:
                path.append(came[path[-1]])
            return path[-2::-1]
        for n in grid.neighbours(square):
            if depth + 1 < best.get(n, depth + 2) and may_step(n):
                best[n], came[n] = depth + 1, square
                estimate = depth + 1 + max(0, grid.distance(n, target) - near)
                heapq.heappush(heap, (estimate, -(depth + 1), n))
    return None


def random_position(rng: Rng) -> State:
    """A small board of land blobs and water, a few cities, three nations
    at random levels toward each other, and units of each on their terrain
    (one ship a sea square)."""
    width, height = 8 + rng.below(8), 6 + rng.below(6)
    rows = [["."] * width for _ in range(height)]
    for _ in range(3 + rng.below(5)):  # blobs of land
        column, row = rng.below(width), rng.below(height)
        for _ in range(4 + rng.below(16)):
            rows[row][column] = "#"
            column, row = (column + rng.below(3) - 1) % width, (row + rng.below(3) - 1) % height
    land = [(c, r) for r in range(height) for c in range(width) if rows[r][c] == "#"]
    owners = {}
    for _ in range(min(len(land), rng.below(5))):
        column, row = rng.choice(land)
        rows[row][column] = rng.choice("PPFT")
        owners[f"{chr(ord('A') + column)}{row + 1}"] = rng.choice([*NATIONS, None])
    state = position(["".join(r) for r in rows], NATIONS, **{k: v for k, v in owners.items() if v})
    for i, a in enumerate(NATIONS):
        for b in NATIONS[i + 1 :]:
            relate(state, a, b, rng.choice(LEVELS))
    ships: set[int] = set()
    for _ in range(6 + rng.below(30)):
        kind = rng.choice(KINDS)
        square = rng.below(state.grid.size)
        ship = tables().unit(kind).ship
        if (square in state.board.land) == ship or (ship and square in ships):
            continue
        ships |= {square} if ship else set()
        unit(state, rng.choice(NATIONS), kind, state.grid.name(square))
    return state


def test_the_way_found_is_the_plain_shortest_way():
    """ "A group takes shortest paths on the wrapping grid"; adjudication is
    deterministic: on 300 seeded random positions, every way the search
    finds (to a square or next to it, with or without other units in the
    way) is exactly the plain search's, and where there is none, neither
    finds one."""
    rng = Rng(17)
    compared = found = 0
    for _ in range(300):
        state = random_position(rng)
        places = Places(state)
        movers = sorted(state.units.values(), key=lambda u: u.id)
        for mover in movers[:6]:
            target = rng.below(state.grid.size)
            for near in (0, 1):
                for units_matter in (True, False):
                    got = find_path(state, places, mover, target, near, units_matter)
                    want = plain_path(state, places, mover, target, near, units_matter)
                    assert got == want, (mover, state.grid.name(target), near, units_matter)
                    compared += 1
                    found += got is not None
    assert compared > 3000 and 0.1 * compared < found < 0.9 * compared  # both kinds were met


class CountingPlaces(Places):
    """A square index that counts the squares whose units are asked."""

    asked = 0

    def ids_at(self, square: int) -> list[str]:
        self.asked += 1
        return super().ids_at(square)


def walled_in_ocean() -> tuple[State, Unit, int]:
    """A 200 x 200 ocean with an island; a blue destroyer far from a square
    that red's ships wall in on every side (red shares its sight with blue,
    Friendly: a way is planned from what the nation sees)."""
    rows = ["." * 200 for _ in range(200)]
    rows[50] = "." * 90 + "#" * 20 + "." * 90
    state = position(rows)
    target = sq(state, "K10")
    for n in state.grid.neighbours(target):
        unit(state, "red", "patrol_boat", state.grid.name(n))
    dd = unit(state, "blue", "destroyer", "CV100")
    relate(state, "red", "blue", "friendly")
    return state, dd, target


def test_a_walled_in_target_is_found_out_without_searching_the_ocean():
    """ "only one ship may occupy a sea square": a square ringed by other
    ships cannot be reached; the order is refused as blocked (the water
    way exists, the ships hold it), and finding that out looks at the
    squares around the target, not the 40,000 of the ocean."""
    state, dd, target = walled_in_ocean()
    places = CountingPlaces(state)
    assert find_path(state, places, dd, target) is None
    assert places.asked < 100
    assert find_path(state, places, dd, target, units_matter=False) is not None
    reason, facts = move(state, "blue", [dd.id], target, 1, 1, [], places)
    assert reason == Reason.BLOCKED and dd.square == sq(state, "CV100")
    assert state.nations["blue"].command == 512  # refused: costs nothing


def test_a_way_round_a_wall_is_still_found():
    """The flood back from the target only ever says no when there is no
    way: open one ship's square of the ring and the destroyer's way goes
    through it."""
    state, dd, target = walled_in_ocean()
    gap = state.grid.neighbours(target)[0]  # the square above left
    del state.units[next(u.id for u in state.units.values() if u.square == gap)]
    path = find_path(state, Places(state), dd, target)
    assert path is not None and path[-2:] == [gap, target]
    assert path == plain_path(state, Places(state), dd, target, 0, True)
