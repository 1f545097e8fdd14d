"""Where Strategic Initiative's map cuts the wrapping grid open, on a board
with no all-water band: among the cuts that split the least land, the one
that leaves the most water next to the land on both sides (window.py),
worked out here square by square from the terrain."""

from __future__ import annotations

import pytest

from adjudicator.base import Rng
from adjudicator.strategic.grid import Grid
from tests.test_strategic_map_window import _frame, boards_to_try, isles

NEAR = 3


def _land_at(land: frozenset[int], grid: Grid, along: int, across: int, rows: bool) -> bool:
    """Whether the square at ``along`` on the axis cut (a row, or a column)
    and ``across`` on the other is land."""
    if rows:
        return grid.square(across % grid.width, along % grid.height) in land
    return grid.square(along % grid.width, across % grid.height) in land


def split(land: frozenset[int], grid: Grid, at: int, rows: bool) -> int:
    """The squares of land just before the cut at ``at`` next to land just
    after it (across included)."""
    n = grid.width if rows else grid.height
    return sum(1 for x in range(n) if _land_at(land, grid, at - 1, x, rows)
               and any(_land_at(land, grid, at, x + d, rows) for d in (-1, 0, 1)))  # fmt: skip


def water_beside(land: frozenset[int], grid: Grid, at: int, rows: bool) -> int:
    """Each square across: the water between the cut and the nearest land
    on either side (up to NEAR), summed."""
    n = grid.width if rows else grid.height
    total = 0
    for x in range(n):
        k = 0
        while k < NEAR and not (_land_at(land, grid, at + k, x, rows)
                                or _land_at(land, grid, at - 1 - k, x, rows)):  # fmt: skip
            k += 1
        total += k
    return total


def no_band(land: frozenset[int], grid: Grid, rows: bool) -> bool:
    n = grid.height if rows else grid.width
    return len({grid.at(sq)[1 if rows else 0] for sq in land}) == n


def scattered(seed: int) -> tuple[str, Grid, frozenset[int]]:
    """A 24 x 18 board with a tenth of its squares land, scattered at
    random: no all-water band, many cuts splitting as little."""
    rng = Rng(seed)
    return f"scattered {seed}", Grid(24, 18), frozenset(
        sq for sq in range(24 * 18) if rng.below(100) < 10)  # fmt: skip


BOARDS = boards_to_try() + [scattered(seed) for seed in (0, 19, 22, 29, 31)]


@pytest.mark.parametrize("name, grid, land", BOARDS, ids=lambda v: str(v)[:14])
def test_among_cuts_splitting_as_little_the_most_water_beside_the_land_wins(name, grid, land):
    frame = _frame(grid, land)
    tried = 0
    for rows, chosen, n in ((True, frame.first_row, grid.height),
                            (False, frame.first_column, grid.width)):  # fmt: skip
        if not no_band(land, grid, rows):
            continue
        tried += 1
        splits = {at: split(land, grid, at, rows) for at in range(n)}
        least = min(splits.values())
        assert splits[chosen] == least, name
        best = max(water_beside(land, grid, at, rows) for at in range(n) if splits[at] == least)
        assert water_beside(land, grid, chosen, rows) == best, (name, rows)
    if name.startswith("isles of 6"):
        assert tried == 2


def test_six_player_isles_is_cut_where_the_least_land_is_split():
    """The cut above row 51 splits 2 squares of land (the next best, 3),
    and it leaves the fewest squares of land on the picture's edge rows:
    a home island stands against the top edge, the least bad place."""
    state = isles(6)
    frame = _frame(state.grid, state.board.land)
    assert frame.first_row == 50
    splits = sorted(split(state.board.land, state.grid, at, True) for at in range(64))
    assert splits[:2] == [2, 3]
