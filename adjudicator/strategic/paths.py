"""Shortest paths (rules, section 4): what a step costs, and the way a unit
takes over the board as its nation knows it, below the modules that move
and fight (moving walks these paths; interception finds its interdictors'
way with them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from heapq import heappop, heappush

from adjudicator.strategic import air, cargo
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.known import as_known
from adjudicator.strategic.places import Places
from adjudicator.strategic.rules import UnitType, tables
from adjudicator.strategic.state import Board, City, State, Unit
from adjudicator.strategic.supply import in_supply
from adjudicator.strategic.units import _enterable, _terrain

# -- what a step costs ---------------------------------------------------------


def step_cost(state: State, places: Places, unit: Unit) -> int:
    """Mobility to enter a square: 1, or 2 out of supply (where the unit
    stands before the step). Air units have no supply: 1 (and 1 fuel)."""
    if air.flies(unit.kind):
        return 1
    return 1 if in_supply(state, unit, places) else 2


# -- shortest paths ------------------------------------------------------------


def find_path(
    state: State, places: Places, unit: Unit, target: int, near: int = 0, units_matter: bool = True
) -> list[int] | None:
    """The squares ``unit`` enters on a shortest way to ``target`` (near 0)
    or to a square next to it (near 1), or None if there is none, over
    the board as the unit's nation knows it (:func:`planned`: what it does
    not see is the terrain alone). With ``units_matter`` False only the
    terrain counts (to tell "no way there" from "the way is held"). The
    target itself (near 0) need only suit the terrain: whether it can be
    entered is settled on arrival."""
    kind = tables().unit(unit.kind)
    grid = state.grid
    start = unit.square
    if (start == target) if near == 0 else grid.distance(start, target) == near:
        return []
    terrain = _terrain(state, kind)
    boarding = near == 0 and not terrain(target) and _boards(state, places, unit, kind, target)
    if boarding:
        terrain = _or_square(terrain, target)  # onto its transport at sea
    ends = [target] if near == 0 else list(grid.neighbours(target))
    if not (terrain(target) if near == 0 else any(map(terrain, ends))):
        return None  # no way to end there: spare the search of a whole ocean
    if not boarding and not _same_region(state, places, kind, start, ends):
        return None  # another island, a lake: no search either
    may_step = _asker(state, places, unit, kind, terrain, target, near, units_matter)
    ends = list(filter(may_step, ends))
    if not ends:
        return None  # every end held by others
    line = _line(grid.width, grid.height, start, target, near)
    if line is not None and line[-1] in ends:
        ground = None if kind.domain in ("amphibious", "air") else terrain  # None: anywhere
        if _straight(line, may_step, ground, places.at, state.cities, target):
            return list(line)
    return _search(grid, start, target, near, may_step, ends)


def _asker(
    state: State,
    places: Places,
    unit: Unit,
    kind: UnitType,
    terrain: Callable[[int], bool],
    target: int,
    near: int,
    units_matter: bool,
) -> Callable[[int], bool]:
    """Whether ``unit`` may step into a square on its way to ``target``, as
    its nation knows the board (:func:`planned`; only the terrain if not
    ``units_matter``); the target itself (near 0) by the terrain alone."""
    at, cities, units, nation = places.at, state.cities, state.units, unit.owner
    # what the nation knows of the squares that hold another nation's unit
    # or a city, made when the search first meets one (most ways cross none)
    passable: Callable[[int], bool] | None = None if units_matter else terrain
    known: dict[int, bool] = {}  # each such square asked once per search
    shares = not kind.ship  # only a ship is kept out by its own nation's (ships)

    def may_step(sq: int) -> bool:
        nonlocal passable
        if sq not in cities and sq != target:
            ids = at.get(sq)
            if not ids or (shares and all(units[i].owner == nation for i in ids if i in units)):
                return terrain(sq)  # nothing there, or its own: the terrain alone, as planned()
        answer = known.get(sq)
        if answer is None:
            if sq == target:
                answer = near == 0 and terrain(sq)
            else:
                if passable is None:
                    passable = planned(state, places, unit, kind, terrain)
                answer = passable(sq)
            known[sq] = answer
        return answer

    return may_step


def _boards(state: State, places: Places, unit: Unit, kind: UnitType, target: int) -> bool:
    return cargo.ship_to_board(state, places, unit, kind, target) is not None


def _or_square(allows: Callable[[int], bool], square: int) -> Callable[[int], bool]:
    """``allows``, and ``square`` too (a transport to board there)."""
    return lambda sq: sq == square or allows(sq)


def planned(
    state: State,
    places: Places,
    unit: Unit,
    kind: UnitType,
    terrain: Callable[[int], bool] | None = None,
) -> Callable[[int], bool]:
    """Whether ``unit`` may step into a square as its nation knows the
    board (known.as_known): what it does not see is planned as the terrain
    alone, a submarine it does not see as an open square; the unit finds
    what is there when it tries to enter (``movement._step``; sight.bumped)."""
    terrain = terrain or _terrain(state, kind)
    return as_known(state, places, unit, terrain, _enterable(state, places, unit, kind, terrain))


def _same_region(
    state: State, places: Places, kind: UnitType, start: int, ends: Sequence[int]
) -> bool:
    """Whether one of ``ends`` is in the same region as ``start`` for the
    unit's kind (land: land squares joined; ships: water and coastal cities
    joined; engineers: everywhere), a quick no before a long search."""
    if kind.domain in ("amphibious", "air"):
        return True
    regions = places.regions.get(kind.ship)
    if regions is None:
        regions = places.regions[kind.ship] = _regions(state.board, places.city_squares, kind.ship)
    mine = regions.get(start)
    if mine is None:
        return True
    if len(ends) == 1:
        return regions.get(ends[0]) == mine
    return any(regions.get(sq) == mine for sq in ends)


@lru_cache(maxsize=16)
def _regions(board: Board, cities: frozenset[int], ships: bool) -> dict[int, int]:
    """Each square a kind may cross (ships: water and every coastal city,
    more than it may ever use) numbered by the connected region it is in."""
    grid = board.grid
    if ships:
        open_ = {sq for sq in range(grid.size) if not board.is_land(sq)}
        open_ |= {sq for sq in cities if board.coastal(sq)}
    else:
        open_ = set(board.land)
    regions: dict[int, int] = {}
    for first in sorted(open_):
        if first in regions:
            continue
        regions[first] = first
        todo = [first]
        while todo:
            sq = todo.pop()
            for n in grid.neighbours(sq):
                if n in open_ and n not in regions:
                    regions[n] = first
                    todo.append(n)
    return regions


class _Flood:
    """The squares from which one of ``ends`` can be reached, found
    backwards from them one square at a time, until the flood meets
    ``start`` (then there is a way, and the flood stops) or runs dry (then
    there is none)."""

    def __init__(
        self, grid: Grid, start: int, ends: list[int], may_step: Callable[[int], bool]
    ) -> None:
        self.grid, self.start, self.may_step = grid, start, may_step
        self.todo = list(ends)
        self.seen = set(ends)
        self.met = start in self.seen

    def dry(self) -> bool:
        """Take one more square: True once no way to ``start`` is left."""
        if self.met:
            return False
        if not self.todo:
            return True
        seen = self.seen
        for n in self.grid.adjacency[self.todo.pop()]:
            if n == self.start:
                self.met = True
                return False
            if n not in seen and self.may_step(n):
                seen.add(n)
                self.todo.append(n)
        return False


FLOOD_AFTER = 16  # squares a search takes before the flood back starts


def _search(
    grid: Grid,
    start: int,
    target: int,
    near: int,
    may_step: Callable[[int], bool],
    ends: list[int],
) -> list[int] | None:
    """A* over the 8-neighbour wrapping grid to one of ``ends`` (at least
    one), every step costing 1; the heuristic is the Chebyshev distance
    (exact on open water). Ties go to the deeper square, then the lower
    square number: the same board gives the same path. Whether a square
    may be entered is asked when the search takes it, not when it meets
    it: a short way asks few squares, and the squares taken are the same.
    Once the search has taken FLOOD_AFTER squares, a flood back from the
    ends takes one for each it takes: a target walled in (by other ships,
    say) is known to be out of reach in a few squares, not after a whole
    ocean; the path found is the same either way."""
    width = grid.width
    target_row, target_column = divmod(target, width)
    columns = _axis(width, target_column, near)  # the estimate, a column and a row apart
    rows = _axis(grid.height, target_row, near)
    neighbours = grid.adjacency
    goals = set(ends)
    best = {start: 0}
    came: dict[int, int] = {}
    start_row, start_column = divmod(start, width)
    heap = [(max(columns[start_column], rows[start_row]), 0, start)]
    back: _Flood | None = None
    taken = 0
    depth_of = best.get
    while heap:
        taken += 1
        if taken > FLOOD_AFTER:
            if back is None:
                back = _Flood(grid, start, ends, may_step)
            if back.dry():
                return None
        _, negative, sq = heappop(heap)
        depth = 1 - negative  # of the squares next to it
        if depth - 1 > best[sq] or (sq != start and not may_step(sq)):
            continue  # a shorter way came first, or the square is closed
        if sq in goals:
            return _trace(came, start, sq)
        for n in neighbours[sq]:
            met = depth_of(n)
            if met is not None and met <= depth:
                continue
            best[n] = depth
            came[n] = sq
            by_column, by_row = columns[n % width], rows[n // width]
            heappush(heap, (depth + (by_column if by_column > by_row else by_row), -depth, n))
    return None


def _straight(
    line: tuple[int, ...],
    may_step: Callable[[int], bool],
    terrain: Callable[[int], bool] | None,
    at: dict[int, tuple[str, ...]],
    cities: dict[int, City],
    target: int,
) -> bool:
    """Whether :func:`_search` would take ``line`` (:func:`_line`, ending
    on one of its ends): whether every square on it may be entered (most
    moves: planes over anything, ships over open water), found without its
    queue. Only the squares that hold a unit or a city (and the target)
    are asked of ``may_step``; the others are open if the ``terrain``
    allows (None: a unit that goes anywhere, air and engineers)."""
    for sq in line:
        if sq in at or sq in cities or sq == target:
            if not may_step(sq):
                return False
        elif terrain is not None and not terrain(sq):
            return False
    return True


@lru_cache(maxsize=4096)
def _line(width: int, height: int, start: int, target: int, near: int) -> tuple[int, ...] | None:
    """The squares :func:`_search` takes from ``start`` where every square
    may be entered: its estimate is exact there, so it goes deeper at every
    step, to the lowest numbered square next to the last whose estimate is
    one less. The board alone decides it (the planes of one order share it).
    None if ``start`` is already as near as the estimate sees."""
    columns = _axis(width, target % width, near)
    rows = _axis(height, target // width, near)
    row, column = divmod(start, width)
    left = max(columns[column], rows[row])
    if left == 0:
        return None
    line: list[int] = []
    while left:
        left -= 1
        step = -1
        for r in {(row + d) % height for d in (-1, 0, 1)}:
            for c in {(column + d) % width for d in (-1, 0, 1)}:
                by_column, by_row = columns[c], rows[r]
                sq = r * width + c
                estimate = by_column if by_column > by_row else by_row
                if estimate == left and (step < 0 or sq < step):
                    step = sq
        if step < 0:
            return None
        line.append(step)
        row, column = divmod(step, width)
    return tuple(line)


@lru_cache(maxsize=1024)
def _axis(length: int, at: int, near: int) -> tuple[int, ...]:
    """For each coordinate along an edge of ``length`` (wrapping), the
    steps along it to within ``near`` of ``at`` (never below 0): the
    estimate of a square is the larger of its column's and its row's, which
    is :meth:`Grid.distance` to the target less ``near``, at least 0."""
    out = []
    for x in range(length):
        d = abs(x - at)
        out.append(max(0, min(d, length - d) - near))
    return tuple(out)


def _trace(came: dict[int, int], start: int, end: int) -> list[int]:
    path = [end]
    while path[-1] != start:
        path.append(came[path[-1]])
    path.pop()
    return path[::-1]
