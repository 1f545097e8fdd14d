"""Implosion benchmark: prints its figures; run by `make bench`.

A 24-player game of 168 turns (the standard week of hourly turns) with
scripted random players: each turn every player moves the units of about
two thirds of its nodes to a random neighbour ("all" or a random number),
as mail would give them, in a random received order. Measured: the whole
game, reading every order from text and adjudicating every turn (with its
battles and the start-of-turn production), and adjudication alone.

CPU time of this process (time.process_time), the best of the runs.

Target (issue: Implosion): the whole game in under 5 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.base import Rng  # noqa: E402
from adjudicator.implosion import GAME  # noqa: E402

PLAYERS = [f"p{i:02d}" for i in range(24)]


def orders_text(state, player: str, rng: Rng) -> str:
    lines = []
    for node, (who, _) in sorted(state.units.items()):
        if who != player or rng.below(3) == 0:
            continue
        target = rng.choice(state.board.adjacency[node])
        count = "all" if rng.coin() else str(1 + rng.below(12))
        lines.append(f"move {count} from {node} to {target}")
    return "\n".join(lines)


def play(seed: int) -> tuple[float, float, int, int, int]:
    """(whole game s, adjudication alone s, turns, orders, battles)."""
    state = GAME.start(GAME.load_map("ring"), PLAYERS, {}, seed)
    rng = Rng(seed)
    total = adjudicating = 0.0
    orders = battles = 0
    while state.outcome is None:
        texts = {p: orders_text(state, p, rng) for p in PLAYERS}  # the players' mails
        started = time.process_time()
        sheets = [GAME.read_orders(state, p, texts[p], seq=rng.below(1_000_000)) for p in PLAYERS]
        middle = time.process_time()
        result = GAME.adjudicate(state, sheets, rng.next64())
        ended = time.process_time()
        total += ended - started
        adjudicating += ended - middle
        orders += len(result.results)
        battles += sum(1 for r in result.results if r.reason in ("conquered", "repelled"))
        state = result.state
    return total, adjudicating, state.turn, orders, battles


def main() -> None:
    runs = [play(seed) for seed in (1, 2, 3)]
    best = min(runs)
    whole, alone, turns, orders, battles = best
    print("Implosion, 24 players, 168 turns, scripted random players")
    print(
        f"  whole game (orders read from text, adjudicated): {whole:.2f} s, "
        f"{turns / whole:.0f} turns/s"
    )
    print(f"  adjudication alone: {alone:.2f} s, {turns / alone:.0f} turns/s")
    print(f"  {turns} turns, {orders} orders, {battles} battles")
    print(f"  target: the whole game < 5 s: {'met' if whole < 5 else 'NOT met'}")


if __name__ == "__main__":
    main()
