"""Where things are, indexed by square, for the war steps of a tick (moving,
attacking, supply): which units stand in a square and which supply sources
stand near one, without scanning every unit for every question.

A tick builds one :class:`Places` after its builds (step 2) and hands it to
every standing order and order it runs; moving and combat keep it up to date
(:meth:`Places.moved`, :meth:`Places.removed`). Built from a state, it holds
unit ids only: what it answers is always read back from the state, so a
unit's HP, ammo or owner need no bookkeeping here.
"""

from __future__ import annotations

from functools import cache, lru_cache
from operator import attrgetter
from typing import Any

from adjudicator.strategic.rules import SUPPLY_RANGE, tables
from adjudicator.strategic.state import State, Unit

CELL = 2 * SUPPLY_RANGE + 1  # sources are kept in cells this wide: a range touches 4 at most


class Places:
    """Units by square; cities, and the units that supply each domain
    (``"land"``, ``"sea"``: the data's ``supplies`` fields), by cells of the
    board, so "which sources are within 5 squares" looks at 4 cells. Code
    that moves, adds or removes units while a Places is in use tells it
    (:meth:`moved`, :meth:`added`, :meth:`removed`)."""

    def __init__(self, state: State) -> None:
        self.state = state
        grid = state.grid
        self._width, self._across = grid.width, cells_across(grid.width)
        self._columns, self._rows = window(grid.width), window(grid.height)
        # the cells near each square, and the cities in them, worked out
        # once a board and set of cities (shared by the places of every
        # tick and view of a game: cities seldom change)
        self._near = kept("cells near", grid.width, grid.height)
        # unit ids by square (those no longer in the state skipped by
        # readers); tuples of strings, which the garbage collector soon
        # stops following: a big game has thousands
        self.at: dict[int, tuple[str, ...]] = {}
        self._unit_cells: dict[str, dict[int, tuple[str, ...]]] = {"land": {}, "sea": {}}
        self._city_cells: dict[int, tuple[int, ...]] = {}
        at, cells, width, across = self.at, self._unit_cells, self._width, self._across
        kinds: dict[str, tuple[str, ...]] = {}  # the domains each type supplies
        for unit in sorted(state.units.values(), key=_id):  # added(), written out: 5,000 a tick
            square = unit.square
            at[square] = at.get(square, ()) + (unit.id,)
            domains = kinds.get(unit.kind)
            if domains is None:
                domains = kinds[unit.kind] = _domains(unit.kind)
            if domains:
                row, column = divmod(square, width)
                cell = (row // CELL) * across + column // CELL  # _cell(), inline
                for domain in domains:
                    _put(cells[domain], unit.id, cell)
        self.city_squares = frozenset(state.cities)
        self._cities_near = kept("cities near", grid.width, grid.height, self.city_squares)
        # the board's regions for ships (True) and land units (False), asked
        # of movement once a Places, not once a search
        self.regions: dict[bool, dict[int, int]] = {}
        for sq in sorted(state.cities):
            _put(self._city_cells, sq, self._cell(sq))
        # another index kept up to date with this one (the watchers of
        # interception and interdiction, made when a move first asks:
        # intercept.watchers), told of every unit moved, added or removed
        self.watch: Any = None
        # the ways an order's fuel check found, by (unit id, square, target,
        # near), for the move that follows it to take again: good only while
        # nothing moves (emptied when a unit moves, appears or goes, and by
        # movement between orders and after each walk)
        self.ways: dict[tuple[str, int, int, int], list[int] | None] = {}

    def rebuilt(self) -> None:
        """The board or the cities have changed (an engineer's work, seldom):
        everything indexed again, the regions of movement with it."""
        self.__init__(self.state)  # type: ignore[misc]

    def next_order(self) -> None:
        """An order begins: what earlier orders may have changed without
        moving a unit (relations, builds) is asked again."""
        self.ways.clear()
        if self.watch is not None:
            self.watch.next_order()

    def added(self, unit: Unit) -> None:
        """``unit`` has appeared (a build)."""
        self.ways.clear()
        _put(self.at, unit.id, unit.square)
        for domain in _domains(unit.kind):
            _put(self._unit_cells[domain], unit.id, self._cell(unit.square))
        if self.watch is not None:
            self.watch.added(unit)

    def _cell(self, square: int) -> int:
        row, column = divmod(square, self._width)
        return (row // CELL) * self._across + column // CELL

    def near(self, square: int) -> tuple[int, ...]:
        """The cells that squares within supply range of ``square`` fall in
        (at most 4), worked out once a square."""
        cells = self._near.get(square)
        if cells is None:
            row, column = divmod(square, self._width)
            columns, across = self._columns[column], self._across
            cells = self._near[square] = tuple(
                [r * across + c for r in self._rows[row] for c in columns]
            )
        return cells

    def candidates(self, domain: str, square: int) -> tuple[list[int], list[str]]:
        """Every city square, and the ids of the units that supply
        ``domain``, in the cells around ``square``: every one within supply
        range of it is among them (the caller measures, and looks at the
        city's designation, which BUILD orders change, owners and ammo)."""
        return list(self.cities_near(square)), self.suppliers_near(domain, square)

    def cities_near(self, square: int) -> tuple[int, ...]:
        """The squares of the cities in the cells around ``square`` (every
        city within supply range of it among them), cell by cell; worked
        out once a square (cities stay where they are)."""
        found = self._cities_near.get(square)
        if found is None:
            cities = self._city_cells
            found = tuple([sq for cell in self.near(square) for sq in cities.get(cell, ())])
            self._cities_near[square] = found
        return found

    def suppliers_near(self, domain: str, square: int) -> list[str]:
        """The ids of the units that supply ``domain`` in the cells around
        ``square`` (every one within supply range of it among them)."""
        units = self._unit_cells[domain]
        return [uid for cell in self.near(square) for uid in units.get(cell, ())]

    def ids_at(self, square: int) -> list[str]:
        """The ids of the units in a square."""
        ids = self.at.get(square)
        if not ids:
            return []
        units = self.state.units
        return [i for i in ids if i in units]

    def units_at(self, square: int) -> list[Unit]:
        """The units in a square, most recently built first (then lowest id)."""
        units = self.state.units
        found = [units[i] for i in self.at.get(square, ()) if i in units]
        return sorted(found, key=lambda u: (-u.built, u.id))

    def moved(self, unit: Unit, old: int) -> None:
        """``unit`` has gone from ``old`` to ``unit.square``."""
        if self.ways:
            self.ways.clear()
        _take(self.at, unit.id, old)
        _put(self.at, unit.id, unit.square)
        for domain in _domains(unit.kind):
            by_cell = self._unit_cells[domain]
            _take(by_cell, unit.id, self._cell(old))
            _put(by_cell, unit.id, self._cell(unit.square))
        if self.watch is not None:
            self.watch.moved(unit, old)

    def removed(self, unit: Unit) -> None:
        """``unit`` has left the board (destroyed)."""
        self.ways.clear()
        _take(self.at, unit.id, unit.square)
        for domain in _domains(unit.kind):
            _take(self._unit_cells[domain], unit.id, self._cell(unit.square))
        if self.watch is not None:
            self.watch.removed(unit)


def _put(by_key: dict[int, tuple[Any, ...]], item: Any, key: int) -> None:
    """``item`` added last under ``key``."""
    by_key[key] = by_key.get(key, ()) + (item,)


def _take(by_key: dict[int, tuple[Any, ...]], item: Any, key: int) -> None:
    """The first ``item`` under ``key`` taken out (the key gone with the last)."""
    items = by_key.get(key)
    if items and item in items:
        i = items.index(item)
        rest = items[:i] + items[i + 1 :]
        if rest:
            by_key[key] = rest
        else:
            del by_key[key]


_id = attrgetter("id")


@cache
def _domains(kind: str) -> tuple[str, ...]:
    """The domains a unit type supplies, in a fixed order."""
    return tuple(sorted(tables().unit(kind).supplies))


def cells_across(length: int) -> int:
    return -(-length // CELL)


@lru_cache(maxsize=16)
def kept(
    purpose: str, width: int, height: int, cities: frozenset[int] | None = None
) -> dict[int, Any]:
    """A dict kept for one ``purpose`` and a board's size (and a set of
    city squares), shared by the places of every tick and view of a game:
    what is worked out once a square and which the board and the cities
    alone decide (:meth:`Places.near`, :meth:`Places.cities_near`, the
    cities that may see a square in intercept.py)."""
    return {}


@cache
def window(length: int) -> tuple[tuple[int, ...], ...]:
    """For each coordinate along an edge of ``length`` (wrapping), the
    cells that squares within supply range of it fall in."""
    out = []
    for x in range(length):
        cells = dict.fromkeys(
            (y % length) // CELL for y in range(x - SUPPLY_RANGE, x + SUPPLY_RANGE + 1)
        )
        out.append(tuple(cells))
    return tuple(out)
