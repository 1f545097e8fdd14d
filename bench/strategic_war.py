"""Strategic Initiative's war steps on the big board: prints its figures.

A seeded 256 x 256 board (about 30% land in blobs), 24 nations, 5,000
units (land units on land, ships at sea, a supply ship or transport in
every tenth), 20 cities a nation. Printed: building the square index, the
supply question for every unit, a step-1 ammo top-up of every unit (a
third of them short of ammo), the regions of the board (reckoned once a
board: a move to another island or a lake is refused without a search),
240 move orders (10 a nation, some far
enough to become standing orders) and 120 attack orders, and the peak
memory (tracemalloc). The issue's target for a whole tick of this size
(with every player's view) is 250 ms; these steps are part of it.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.base import Rng  # noqa: E402
from adjudicator.strategic.combat import attack  # noqa: E402
from adjudicator.strategic.grid import Grid  # noqa: E402
from adjudicator.strategic.movement import move  # noqa: E402
from adjudicator.strategic.paths import _regions  # noqa: E402
from adjudicator.strategic.places import Places  # noqa: E402
from adjudicator.strategic.rules import tables  # noqa: E402
from adjudicator.strategic.state import Board, City, Nation, State, Unit  # noqa: E402
from adjudicator.strategic.supply import in_supply, top_up_all  # noqa: E402

SIZE = 256
NATIONS = [f"n{i}" for i in range(24)]
UNITS = 5000


def board(rng: Rng) -> Board:
    grid = Grid(SIZE, SIZE)
    land: set[int] = set()
    while len(land) < grid.size * 3 // 10:
        centre = rng.below(grid.size)
        land.update(grid.within(centre, 1 + rng.below(6)))
    return Board(grid, frozenset(land))


def game(seed: int = 1) -> State:
    rng = Rng(seed)
    b = board(rng)
    grid = b.grid
    nations = {n: Nation(n, n, 1024, Fraction(8)) for n in NATIONS}
    for a in NATIONS:
        for other in NATIONS:
            if a != other:
                nations[a].relations[other] = "war"
    land = sorted(b.land)
    sea = [sq for sq in range(grid.size) if sq not in b.land]
    cities: dict[int, City] = {}
    for i, n in enumerate(NATIONS * 20):
        sq = rng.choice(land)
        kind = "port" if b.coastal(sq) else "fort"
        cities[sq] = City(f"c{i}", sq, n, kind, None)
    state = State(b, nations, cities, {})
    kinds = ["infantry", "tank", "destroyer", "battleship", "supply_ship", "transport"]
    for i in range(UNITS):
        kind = tables().unit(kinds[i % 10] if i % 10 < 4 else kinds[4 + i % 2])
        if i % 10 >= 6:
            kind = tables().unit(kinds[i % 4])
        square = rng.choice(land if kind.land else sea)
        uid = f"{kind.short}{i}"
        ammo = kind.ammo if i % 3 else 0
        state.units[uid] = Unit(uid, NATIONS[i % 24], kind.key, square, kind.hp, ammo,
                                kind.mobility * 3, built=i)  # fmt: skip
    return state


def timed(label: str, fn) -> None:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    print(f"{label}: {(time.perf_counter() - start) * 1000:.1f} ms")


def main() -> None:
    state = game()
    units = sorted(state.units.values(), key=lambda u: u.id)
    places = Places(state)
    timed("index of 5,000 units by square", lambda: Places(state))
    timed("in supply, every unit", lambda: [in_supply(state, u, places) for u in units])
    timed("ammo top-up, every unit (a third short)", lambda: top_up_all(state, places))
    rng = Rng(2)
    events: list = []

    def moves() -> None:
        for i, u in enumerate(units[:240]):
            target = state.grid.square(*[c + 3 + rng.below(20) for c in state.grid.at(u.square)])
            move(state, u.owner, [u.id], target, i, 1, events, places)

    def attacks() -> None:
        for i, u in enumerate(units[240:360]):
            near = [v for v in places.units_at(u.square + 1) if v.owner != u.owner]
            target = near[0].square if near else u.square + 2
            attack(state, u.owner, [u.id], target, rng, i, 1, events, places)

    timed(
        "regions of the board for ships and land units (once a board)",
        lambda: [_regions(state.board, places.city_squares, ships) for ships in (True, False)],
    )
    timed("240 move orders", moves)
    timed("120 attack orders", attacks)
    tracemalloc.start()
    game(3)
    top_up_all(state)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"peak memory, a board and its war steps: {peak / 1e6:.1f} MB")
    print(f"events: {len(events)}, standing orders: {len(state.standing)}")


if __name__ == "__main__":
    main()
