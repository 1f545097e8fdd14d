"""The cycle collector held off while a turn is adjudicated (pbem/collector.py,
the turn runner): safe only because no engine leaves cycles behind. Each
game is played by the benchmarks' scripted players with the collector off,
and after every turn a collection finds nothing to free."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from adjudicator.base import Rng
from pbem.collector import held_off

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))


def _officewars(turns: int) -> Iterator[Callable[[], Any]]:
    import officewars as bench  # bench/officewars.py

    from adjudicator.officewars import GAME

    rng = Rng(1)
    state = GAME.start(GAME.load_map("six"), ["ann", "bob", "cid", "dee", "eve", "fay"], {}, 1)
    for number in range(turns):
        sheets = bench.random_sheets(state, rng)
        result = yield lambda s=state, sh=sheets, n=number: GAME.adjudicate(s, sh, n)
        state = result.state


def _played(kind: str, turns: int) -> Iterator[Callable[[], Any]]:
    """Thunks adjudicating one turn each; the caller sends back each result."""
    rng = Rng(2)
    if kind == "officewars":
        yield from _officewars(turns)
        return
    if kind == "empire":
        import empire as bench

        game, players = bench.GAME, bench.PLAYERS
        state = game.start(bench.BOARD, players, {}, 2)
        texts = lambda s: bench.random_orders(s, rng) if s.kind == "M" else {}  # noqa: E731
    elif kind == "implosion":
        import implosion as bench

        game, players = bench.GAME, bench.PLAYERS
        state = game.start(game.load_map("ring"), players, {}, 2)
        texts = lambda s: {p: bench.orders_text(s, p, rng) for p in players}  # noqa: E731
    elif kind == "territory":
        import territory as bench

        game, players = bench.GAME, bench.PLAYERS
        board = game.load_map("france")
        state = game.start(board, players, {}, 2)
        names = [s.name for s in board.states]
        texts = lambda s: {  # noqa: E731
            p: "\n".join(
                f"{n} -> {rng.choice(names)}" for n, who in sorted(s.owners.items()) if who == p
            )
            for p in players
        }
    else:
        import strategic as bench

        game, players = bench.GAME, bench.PLAYERS6
        state = game.start(game.load_map("islands"), players, {}, 2)

        def texts(s: Any) -> dict[str, str]:
            from adjudicator.strategic import sight

            seen = sight.all_visible(s)
            return {p: bench.script(s, p, rng, seen[p]) for p in players}

    for number in range(turns):
        if game.outcome(state) is not None:
            return
        written = texts(state)
        sheets = [game.read_orders(state, p, written.get(p, ""), number) for p in players]
        result = yield lambda s=state, sh=sheets, n=number: game.adjudicate(s, sh, n)
        state = result.state


TURNS = {"officewars": 12, "empire": 12, "implosion": 12, "territory": 12, "strategic": 200}


@pytest.mark.parametrize("kind", sorted(TURNS))
def test_a_turn_leaves_no_cycles_for_the_collector(kind):
    gc.collect()
    played = _played(kind, TURNS[kind])
    thunk = next(played)
    turns = 0
    with held_off():
        while True:
            result = thunk()
            turns += 1
            freed = gc.collect()  # what the collector, held off, would have had to free
            assert freed == 0, f"{kind}: turn {turns} left {freed} objects in cycles"
            try:
                thunk = played.send(result)
            except StopIteration:
                break
    assert turns >= 5, turns


def test_held_off_puts_the_collector_back_as_it_found_it():
    assert gc.isenabled()
    with held_off():
        assert not gc.isenabled()
        with held_off():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block found it off: it stays off
    assert gc.isenabled()
    gc.disable()
    try:
        with held_off():
            pass
        assert not gc.isenabled()  # found off, left off
    finally:
        gc.enable()
    with pytest.raises(KeyError), held_off():
        raise KeyError("work that fails")
    assert gc.isenabled()
