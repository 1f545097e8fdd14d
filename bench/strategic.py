"""Strategic Initiative benchmark: prints its figures; run by `make bench`.

1. A whole game: 960 ticks (ten game-days) of 6 scripted players on the
   default map (64 x 64), orders written as text and read as mail would be,
   every tick adjudicated and every player's view made. Target: under 30 s.
2. One big tick: 24 players on a 256 x 256 board with 5,000 units, 10
   orders a player, the views of every player included. Target: under
   250 ms.

Both print their peak memory (tracemalloc). The scripted players move
units toward random squares near them, build what their technology
allows, go to war with their neighbours on day 2 and attack what they see
next to their units.
"""

from __future__ import annotations

import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.base import OrderSheet, Rng, turn_seed  # noqa: E402
from adjudicator.strategic import sight  # noqa: E402
from adjudicator.strategic.board import generate, new_unit, start  # noqa: E402
from adjudicator.strategic.game import GAME  # noqa: E402
from adjudicator.strategic.rules import tables  # noqa: E402
from adjudicator.strategic.state import State  # noqa: E402

PLAYERS6 = ["ann", "bob", "cid", "dee", "eve", "fay"]


def script(state: State, player: str, rng: Rng, seen: frozenset[int]) -> str:
    """One player's orders for a tick, as the text of a mail."""
    grid = state.grid
    lines: list[str] = []
    mine = sorted((u for u in state.units.values() if u.owner == player), key=lambda u: u.id)
    if state.tick == 96:  # day 2: war on the next player
        names = sorted(state.nations)
        lines.append(f"declare war on {names[(names.index(player) + 1) % len(names)]}")
    enemies = {u.square for u in state.units.values() if u.owner != player and u.square in seen}
    for unit in mine:
        if unit.mobility == 0 or rng.below(4):
            continue
        near = [n for n in grid.neighbours(unit.square) if n in enemies]
        if near:
            lines.append(f"attack {grid.name(near[0])} with {unit.id}")
            continue
        column, row = grid.at(unit.square)
        target = grid.square(column + rng.below(7) - 3, row + rng.below(7) - 3)
        lines.append(f"move {unit.id} to {grid.name(target)}")
    if state.tick % 32 == 1:
        for city in sorted((c for c in state.cities.values() if c.owner == player),
                           key=lambda c: c.name)[:2]:  # fmt: skip
            kinds = [u for u in tables().buildable(city.designation)
                     if u.part == 1 and u.tech <= state.nations[player].tech]  # fmt: skip
            if kinds:
                lines.append(f"build {rng.choice(kinds).name} in {city.name}")
    return "\n".join(lines)


def whole_game(seed: int = 1) -> tuple[float, int, int, State]:
    """(seconds, orders, events, the last state)."""
    board = GAME.load_map("islands")
    state = GAME.start(board, PLAYERS6, {}, seed)
    rng = Rng(seed)
    orders = events = 0
    started = time.perf_counter()
    seen = sight.all_visible(state)
    while GAME.outcome(state) is None:
        sheets = []
        for p in PLAYERS6:
            sheet = GAME.read_orders(state, p, script(state, p, rng, seen[p]), state.tick + 1)
            orders += len(sheet.orders)
            sheets.append(sheet)
        result = GAME.adjudicate(state, sheets, turn_seed(seed, state.tick + 1))
        state = result.state
        events += len(result.events)
        seen = sight.all_visible(state)
        for p in PLAYERS6:
            GAME.view(state, p)  # every player's report view
    return time.perf_counter() - started, orders, events, state


def big_state(seed: int = 2) -> State:
    """24 players on 256 x 256 with 5,000 units around their cities."""
    names = [f"p{i:02d}" for i in range(24)]
    board, cities = generate(24, seed, 256, 256)
    state = start(board, cities, names, seed, {})
    for a in names:
        for b in names:
            if a != b:
                state.nations[a].relations[b] = state.nations[a].declared[b] = "war"
    rng = Rng(seed)
    own = sorted((c for c in state.cities.values() if c.owner), key=lambda c: c.square)
    grid = state.grid
    while len(state.units) < 5000:
        city = rng.choice(own)
        near = list(grid.within(city.square, 3))
        square = rng.choice(near)
        owner = city.owner
        assert owner is not None
        if square in state.board.land:
            new_unit(state, owner, rng.choice(["infantry", "tank", "anti_tank"]), square)
        elif not any(u.square == square for u in state.units.values() if tables().unit(
                u.kind).ship):  # fmt: skip
            new_unit(state, owner, rng.choice(["destroyer", "supply_ship", "cruiser"]), square)
    return state


def big_tick(state: State, seed: int = 3) -> tuple[float, int, tuple[float, float, float]]:
    """(seconds, orders, and the seconds of its parts: reading the orders,
    the tick, every player's view)."""
    rng = Rng(seed)
    seen = sight.all_visible(state)
    texts = {p: script(state, p, rng, seen[p]) for p in sorted(state.nations)}
    started = time.perf_counter()
    sheets: list[OrderSheet] = [GAME.read_orders(state, p, t, 1) for p, t in texts.items()]
    read = time.perf_counter()
    result = GAME.adjudicate(state, sheets, seed)
    ticked = time.perf_counter()
    after = result.state
    for player in sorted(after.nations):  # every player's view, as the reports ask for it
        GAME.view(after, player)
    done = time.perf_counter()
    parts = (read - started, ticked - read, done - ticked)
    return done - started, sum(len(s.orders) for s in sheets), parts


def main() -> None:
    tracemalloc.start()
    seconds, orders, events, last = whole_game()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    print("Strategic Initiative, 6 scripted players, default map "
          f"({last.grid.width} x {last.grid.height}), {last.tick} ticks")  # fmt: skip
    print(
        f"  whole game (orders read from text, ticks, every view): {seconds:.1f} s, "
        f"{last.tick / seconds:,.0f} ticks/s; {orders:,} orders, {events:,} events"
    )
    print(f"  peak memory (tracemalloc): {peak:.0f} MB")
    print(f"  target: the game < 30 s: {'met' if seconds < 30 else 'NOT met'}")
    state = big_state()
    times = []
    for round_ in range(3):
        tracemalloc.start()
        took, orders, _ = big_tick(state, 3 + round_)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        times.append(took)
    plain = sorted(big_tick(state, 3 + round_)[::2] for round_ in range(3))
    best = plain[1][0] * 1000  # the median of 3
    read, ticked, viewed = (part * 1000 for part in plain[1][1])
    print(
        f"One tick, 24 players, {state.grid.width} x {state.grid.height}, "
        f"{len(state.units):,} units, {orders} orders, every player's view:"
    )
    print(
        f"  {best:.0f} ms (median of 3; with tracemalloc on "
        f"{statistics.median(times) * 1000:.0f} ms); peak memory {peak:.0f} MB"
    )
    print(
        f"  of which reading the orders {read:.0f} ms, the tick {ticked:.0f} ms, "
        f"the {len(state.nations)} views {viewed:.0f} ms (fastest of 3: "
        f"{plain[0][0] * 1000:.0f} ms)"
    )
    print(f"  target: the big tick < 250 ms: {'met' if best < 250 else 'NOT met'}")


if __name__ == "__main__":
    main()
