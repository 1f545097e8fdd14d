"""Where the map picture cuts the wrapping grid open (picture.py).

The board wraps on both edges (RULINGS.md), so a picture of it must cut it
somewhere: a column drawn first and a row drawn first. The cut is put where
it splits the least land: in an all-water band of columns (and of rows)
where there is one, in its middle, so no island is drawn in two pieces;
else where it cuts the fewest squares of land. Among cuts that split as
little, the one deepest in water: in the middle of a band; with none,
the one with the most water next to the land on both sides of it,
square by square along it (no island drawn against the picture's edge,
its coast on the far side, where another cut as good leaves sea round
it); then the least land near it, the grid's own edge (A and 1 drawn
first), the first.

The choice is made from the terrain alone, which is public (sight.py: the
board's land and water is every nation's to know from the start): so the
window tells nothing of the fog, it is the same for every nation, observer
and the game master, and it stays put from tick to tick (units moving,
cities taken: nothing of that moves it). Only an engineer's change of
terrain can move it, as that changes the board everyone sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

NEAR = 3  # a cut through land goes where the fewest squares of land are this close


@lru_cache(maxsize=16)
def window(land: frozenset[int], width: int, height: int) -> tuple[int, int]:
    """The column and the row drawn first for a board of ``width`` x
    ``height`` whose land is ``land`` (squares: row * width + column)."""
    columns, rows = [0] * width, [0] * height  # each a bit for each square of land across it
    for sq in land:
        row, column = divmod(sq, width)
        columns[column] |= 1 << row
        rows[row] |= 1 << column
    return best_cut(columns, height), best_cut(rows, width)


def best_cut(lines: Sequence[int], m: int) -> int:
    """The best place to cut an axis open (the position drawn first): each
    of ``lines`` the land at one position along it, a bit for each of the
    ``m`` squares across. A cut before position ``a`` splits the squares of
    land at ``a - 1`` that touch land at ``a`` (across included, wrapping);
    fewest first, then the one deepest in water (the most all-water
    positions on its nearer side), or with no water there the one with
    the most water next to the land on both sides (each square across:
    the water between the cut and the nearest land, on the nearer side, up
    to NEAR), then the least land within NEAR positions (clear of the
    coasts); then position 0, then the lowest."""
    n = len(lines)
    if n < 3:
        return 0
    full = (1 << m) - 1

    def spread(bits: int) -> int:  # the squares next to these across, wrapping, and these
        return bits | ((bits << 1) & full) | (bits >> (m - 1)) | (bits >> 1) | (
            (bits & 1) << (m - 1))  # fmt: skip

    split = [(lines[a - 1] & spread(lines[a])).bit_count() for a in range(n)]
    count = [bits.bit_count() for bits in lines]
    before, after = _water_runs(count)

    def key(a: int) -> tuple[int, int, int, int, bool, int]:
        clear = min(before[a], after[a])
        near = 0 if clear else sum(count[(a + d) % n] for d in range(-NEAR, NEAR))
        water = 0 if clear else _water_beside(lines, a, m)  # a band: its middle, as deep
        return split[a], -clear, -water, near, a != 0, a

    return min(range(n), key=key)


def _water_beside(lines: Sequence[int], a: int, m: int) -> int:
    """For a cut before position ``a``: for each of the ``m`` squares
    across, how many squares of water lie between the cut and the nearest
    land along the axis on either side (up to NEAR), summed."""
    n = len(lines)
    total, open_ = 0, (1 << m) - 1  # the squares across with no land found yet
    for k in range(min(NEAR, n // 2)):
        open_ &= ~(lines[(a + k) % n] | lines[(a - 1 - k) % n])
        total += open_.bit_count()
    return total


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
