"""Territory benchmark: prints its figures; run by `make bench`.

Six scripted players on the shipped 30-state map (France) for 500 ticks:
each tick every player sends about half of its states' troops to random
states, as mail would give them, in a random received order; the game
master's last tick is 500, so the game runs the whole way unless one
player takes everything first (then a new game starts, until 500 ticks
are played). Measured: the whole run, reading every command from text and
resolving every tick, and the ticks alone.

CPU time of this process (time.process_time), the best of the runs.

Target (issue: Territory): 500 ticks in under 2 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.base import Rng  # noqa: E402
from adjudicator.territory import GAME  # noqa: E402

PLAYERS = ["ann", "bob", "cid", "dee", "eve", "fay"]
TICKS = 500


def run(seed: int) -> tuple[float, float, int, int]:
    """(whole run s, ticks alone s, commands, games)."""
    board = GAME.load_map("france")
    names = [s.name for s in board.states]
    rng = Rng(seed)
    state = GAME.start(board, PLAYERS, {"last_tick": TICKS}, seed)
    whole = alone = 0.0
    commands = games = 0
    for _ in range(TICKS):
        if state.outcome is not None:
            games += 1
            state = GAME.start(board, PLAYERS, {"last_tick": TICKS}, rng.next64())
        texts = {
            p: "\n".join(
                f"{s} -> {rng.choice(names)}"
                for s, who in sorted(state.owners.items())
                if who == p and rng.coin()
            )
            for p in PLAYERS
        }
        started = time.process_time()
        sheets = [GAME.read_orders(state, p, texts[p], rng.below(1_000_000)) for p in PLAYERS]
        middle = time.process_time()
        result = GAME.adjudicate(state, sheets)
        ended = time.process_time()
        whole += ended - started
        alone += ended - middle
        commands += len(result.results)
        state = result.state
    return whole, alone, commands, games + 1


def main() -> None:
    whole, alone, commands, games = min(run(seed) for seed in (1, 2, 3))
    print("Territory, 6 players, France (30 states), 500 ticks, scripted random players")
    print(
        f"  whole run (commands read from text, ticks resolved): {whole:.3f} s, "
        f"{TICKS / whole:.0f} ticks/s"
    )
    print(f"  ticks alone: {alone:.3f} s, {TICKS / alone:.0f} ticks/s")
    print(f"  {commands} commands over {games} game(s)")
    print(f"  target: 500 ticks < 2 s: {'met' if whole < 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
