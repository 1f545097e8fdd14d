"""Office Wars benchmark: prints its figures; run by `make bench`, not by the tests.

1. Turns per second on the shipped 6-player map, random legal orders for
   every unit, a game played on from the start (adjudication alone, and
   with reading the orders from text as a mail would be read).
2. Seconds per turn on generated maps of 1,000 to 100,000 systems, about
   one unit per two systems, every unit ordered; the cost of doubling the
   map; peak memory of a turn (tracemalloc, a separate run) and of the
   whole process (maximum resident set).

Times are CPU time of this process (time.process_time), the best of
several runs, so that other work on a shared machine does not count.

Targets (issue: foundation): >= 2,000 turns/s on the 6-player map; <= 1 s a
turn at 100,000 systems; doubling the map <= 2.3 times the time; < 500 MB
peak at 100,000 systems.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.base import OrderSheet, Rng  # noqa: E402
from adjudicator.officewars import GAME  # noqa: E402
from adjudicator.officewars.board import generate_board  # noqa: E402
from adjudicator.officewars.orders import Attack, Hold, Move, Support  # noqa: E402
from adjudicator.officewars.state import COLOURS, Player, State  # noqa: E402


def random_sheets(state: State, rng: Rng) -> list[OrderSheet]:
    """A random legal order for every unit: attack 40%, support 20%, move
    20% (to a random system of its chain), hold 20%."""
    adjacency = state.board.adjacency
    owners, units = state.owners, state.units
    per: dict[str, list] = {p: [] for p in state.active}
    for system, player in units.items():
        roll = rng.below(10)
        order = None
        if roll < 4:
            targets = [s for s in adjacency[system] if owners.get(s) != player]
            if targets:
                order = Attack(player=player, system=system, target=rng.choice(sorted(targets)))
        elif roll < 6:
            targets = [s for s in adjacency[system] if s in units]
            if targets:
                order = Support(player=player, system=system, target=rng.choice(sorted(targets)))
        elif roll < 8:
            group = state.chain(system)
            if len(group) > 1:
                to = rng.choice(group)
                if to != system:
                    order = Move(player=player, system=system, to=to)
        if order is None:
            order = Hold(player=player, system=system)
        per[player].append(order)
    return [OrderSheet(p, tuple(o)) for p, o in per.items()]


def six_player(turns: int) -> None:
    state = GAME.start(GAME.load_map("six"), [f"p{i}" for i in range(6)], {}, 1)
    rng = Rng(7)
    spent = spent_text = 0.0
    played = 0
    while played < turns:
        if state.outcome is not None:
            state = GAME.start(state.board, [p.name for p in state.players], {}, played)
        sheets = random_sheets(state, rng)
        texts = {s.player: "\n".join(o.canonical() for o in s.orders) for s in sheets}
        t0 = time.process_time()
        read = [GAME.read_orders(state, p, t) for p, t in texts.items()]
        t1 = time.process_time()
        result = GAME.adjudicate(state, read, 0)
        t2 = time.process_time()
        spent += t2 - t1
        spent_text += t2 - t0
        state = result.state
        played += 1
    print(
        f"6-player map: {turns} turns, {turns / spent:,.0f} turns/s adjudicating, "
        f"{turns / spent_text:,.0f} turns/s reading orders from text and adjudicating "
        f"(target >= 2,000)"
    )


def big_position(systems: int, seed: int = 1) -> State:
    """A generated map; every system owned by one of 20 players (a tenth
    neutral), a unit on about half of them."""
    players = 20
    board = generate_board(systems, players, seed)
    rng = Rng(seed)
    names = [f"p{i}" for i in range(players)]
    owners, units = {}, {}
    for i, home in enumerate(board.homes):
        owners[home] = names[i]
    for s in board.systems:
        if s.name not in owners and rng.below(10):
            owners[s.name] = names[rng.below(players)]
    for s, p in owners.items():
        if rng.below(100) < 55:
            units[s] = p
    seated = tuple(
        Player(n, COLOURS[i % len(COLOURS)], board.homes[i]) for i, n in enumerate(names)
    )
    return State(board, seated, 0, dict(sorted(owners.items())), dict(sorted(units.items())))


def one_big_turn(systems: int, repeat: int) -> tuple[float, int]:
    state = big_position(systems)
    sheets = random_sheets(state, Rng(systems))
    best = float("inf")
    for _ in range(repeat):
        fresh = State(state.board, state.players, 0, state.owners, state.units)
        gc.collect()
        t0 = time.process_time()
        GAME.adjudicate(fresh, sheets, 0)
        best = min(best, time.process_time() - t0)
    return best, len(state.units)


def peak_turn_memory(systems: int) -> float:
    state = big_position(systems)
    sheets = random_sheets(state, Rng(systems))
    gc.collect()
    tracemalloc.start()
    GAME.adjudicate(state, sheets, 0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=3000)
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    args = parser.parse_args()
    six_player(args.turns)
    sizes = (
        [1_000, 2_000, 10_000, 20_000]
        if args.quick
        else [1_000, 2_000, 10_000, 20_000, 50_000, 100_000]
    )
    times = {}
    for n in sizes:
        seconds, units = one_big_turn(n, 5 if n <= 20_000 else 3)
        times[n] = seconds
        print(f"{n:>7,} systems, {units:>6,} units ordered: {seconds:.3f} s/turn")
    for a in sizes:
        if 2 * a in times:
            print(f"doubling {a:,} -> {2 * a:,}: x{times[2 * a] / times[a]:.2f} (target <= 2.3)")
    # the whole range at once: time ~ size^k, so doubling costs 2^k
    import math

    lo, hi = sizes[0], sizes[-1]
    k = math.log(times[hi] / times[lo]) / math.log(hi / lo)
    print(
        f"from {lo:,} to {hi:,} systems: time grows as size^{k:.2f}, "
        f"so doubling costs x{2**k:.2f} on average (target <= 2.3)"
    )
    big = sizes[-1]
    print(
        f"peak memory of one turn at {big:,} systems (tracemalloc): {peak_turn_memory(big):.0f} MB"
    )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of this whole run: {rss:.0f} MB (target < 500 at 100,000)")
    if 100_000 in times:
        print(f"100,000 systems: {times[100_000]:.3f} s/turn (target <= 1 s)")


if __name__ == "__main__":
    main()
