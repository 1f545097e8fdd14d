"""Where the map picture cuts the wrapping grid open (picture.py).

The board wraps on both edges (RULINGS.md), so a picture of it must cut it
somewhere: a column drawn first and a row drawn first. The cut is put where
it splits the least land: in an all-water band of columns (and of rows)
where there is one, in its middle, so no island is drawn in two pieces;
else where it cuts the fewest squares of land. Among cuts alike, the
grid's own edge (A and 1 drawn first) is kept, else the first.

The choice is made from the terrain alone, which is public (sight.py: the
board's land and water is every nation's to know from the start): so the
window tells nothing of the fog, it is the same for every nation, observer
and the game master, and it stays put from tick to tick (units moving,
cities taken: nothing of that moves it). Only an engineer's change of
terrain can move it, as that changes the board everyone sees.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

NEAR = 3  # a cut through land goes where the fewest squares of land are this close


@lru_cache(maxsize=16)
def window(land: frozenset[int], width: int, height: int) -> tuple[int, int]:
    """The column and the row drawn first for a board of ``width`` x
    ``height`` whose land is ``land`` (squares: row * width + column)."""
    coords = [divmod(sq, width) for sq in land]  # (row, column)
    column = best_cut(width, height, ((c, r) for r, c in coords))
    row = best_cut(height, width, coords)
    return column, row


def best_cut(n: int, m: int, land: Iterable[tuple[int, int]]) -> int:
    """The best place to cut an axis of ``n`` positions open (the position
    drawn first), ``land`` the squares of land as (along, across) on a
    board ``m`` across. A cut before position ``a`` splits the squares of
    land at ``a - 1`` that touch land at ``a`` (across included, wrapping);
    fewest first, then the one deepest in water (the most all-water
    positions on its nearer side), or with no water there the one with
    the least land within NEAR positions (clear of the coasts), then
    position 0, then the lowest."""
    if n < 3:
        return 0
    squares = set(land)
    split = [0] * n  # land squares cut by a cut before each position
    count = [0] * n  # land squares at each position
    for a, b in squares:
        count[a] += 1
        nxt = (a + 1) % n
        if any((nxt, (b + d) % m) in squares for d in (-1, 0, 1)):
            split[nxt] += 1
    before, after = _water_runs(count)

    def key(a: int) -> tuple[int, int, int, bool, int]:
        clear = min(before[a], after[a])
        near = 0 if clear else sum(count[(a + d) % n] for d in range(-NEAR, NEAR))
        return split[a], -clear, near, a != 0, a

    return min(range(n), key=key)


def _water_runs(count: list[int]) -> tuple[list[int], list[int]]:
    """For each position: how many all-water positions run back from the
    one before it, and forward from it (round the wrapping axis)."""
    n = len(count)
    if not any(count):
        return [n] * n, [n] * n
    before, after = [0] * n, [0] * n
    start = next(a for a in range(n) if count[a])  # a position of land: the runs start there
    run = 0
    for k in range(1, n + 1):
        a = (start + k) % n
        before[a] = run
        run = run + 1 if not count[a] else 0
    run = 0
    for k in range(n):
        a = (start - k) % n
        run = run + 1 if not count[a] else 0
        after[a] = run
    return before, after
