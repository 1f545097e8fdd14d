"""Strategic Initiative's fog of war, at the size of the big tick: prints
its figures.

24 nations, 5,000 units and 288 cities on a 256 x 256 board (about 30%
land), technology spread over 0 to 16 (so tech centres and carriers see up
to 7 squares), a few Friendly and Allied pairs sharing their sight.
Measured: all_visible (the squares every nation sees, once a tick); the
memory update of every nation; the views of every nation; peak memory.

CPU time of this process (time.process_time), the best of the runs.

Target: all_visible well under 100 ms (the whole big tick, views
included, has 250 ms: issue 17).
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.base import Rng  # noqa: E402
from adjudicator.strategic.grid import Grid  # noqa: E402
from adjudicator.strategic.sight import Survey, all_visible, remember, views  # noqa: E402
from adjudicator.strategic.state import Board, City, Nation, State, Unit  # noqa: E402

SIZE = 256
NATIONS = [f"n{i:02d}" for i in range(24)]
KINDS = ["infantry", "tank", "transport", "supply_ship", "patrol_boat", "destroyer",
         "battleship", "submarine", "carrier", "cruiser", "engineer"]  # fmt: skip
DESIGNATIONS = ["fort", "port", "tech", "fort", "port", "airport"]


def position(seed: int, units: int = 5000) -> State:
    rng = Rng(seed)
    grid = Grid(SIZE, SIZE)
    land = frozenset(sq for sq in range(grid.size) if rng.below(10) < 3)
    nations = {
        name: Nation(name, f"c{i}", 512, Fraction(rng.below(16 * 96), 96))
        for i, name in enumerate(NATIONS)
    }
    for a, b in zip(NATIONS[::2], NATIONS[1::2], strict=True):  # pairs: allied, friendly
        level = "allied" if rng.coin() else "friendly"
        nations[a].relations[b] = nations[b].relations[a] = level
    cities: dict[int, City] = {}
    while len(cities) < 12 * len(NATIONS):
        sq = rng.below(grid.size)
        owner = NATIONS[len(cities) // 6] if len(cities) < 6 * len(NATIONS) else None
        cities[sq] = City(f"c{len(cities)}", sq, owner, DESIGNATIONS[len(cities) % 6], None)
    army = {}
    for i in range(units):
        kind = KINDS[rng.below(len(KINDS))]
        army[f"u{i}"] = Unit(f"u{i}", NATIONS[rng.below(24)], kind, rng.below(grid.size), 5, 1, 2)
    return State(Board(grid, land), nations, cities, army, tick=1, seed=seed)


def best_of(runs: int, work, setup=lambda: None) -> float:
    """The least CPU time of ``runs`` calls of ``work(setup())``, setup not
    counted."""
    best = float("inf")
    for _ in range(runs):
        given = setup()
        started = time.process_time()
        work(given)
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    state = position(1)
    seen = all_visible(state)
    seeing = best_of(5, lambda _: all_visible(state))
    surveying = best_of(5, lambda _: Survey(state))
    remembering = best_of(5, lambda copy: remember(copy, seen), state.copy)
    remember(state, seen)  # memories to show
    viewing = best_of(3, lambda _: views(state, seen))
    tracemalloc.start()
    seen = all_visible(state)
    remember(state, seen)
    views(state, seen)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    mean = sum(len(s) for s in seen.values()) / len(seen)
    print("Strategic Initiative sight: 24 nations, 5,000 units, 256 x 256")
    print(f"  all_visible: {seeing * 1000:.1f} ms ({mean:.0f} squares seen a nation)")
    print(f"  Survey (units by square, once a tick): {surveying * 1000:.1f} ms")
    print(f"  remember (every nation's memory): {remembering * 1000:.1f} ms")
    print(f"  views of all 24 nations: {viewing * 1000:.1f} ms")
    print(f"  peak memory (all_visible, remember, views): {peak / 1e6:.1f} MB")
    print(f"  target: all_visible < 100 ms: {'met' if seeing < 0.1 else 'NOT met'}")


if __name__ == "__main__":
    main()
