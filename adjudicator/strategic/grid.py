"""The board's geometry: a grid that wraps on both edges (RULINGS.md).

A square is an int, ``row * width + column``. Players name squares by a
column in letters and a row in numbers, as in a spreadsheet: ``A1`` is the
top left, ``K12`` the eleventh column of the twelfth row, ``AA3`` the 27th
column. Squares are adjacent in 8 directions; "within N squares" is the
Chebyshev distance with wrapping.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property

_NAME = re.compile(r"\s*([A-Za-z]{1,3})\s*(\d{1,4})\s*")


@cache
def column_name(column: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA."""
    out = ""
    n = column + 1
    while n:
        n, rest = divmod(n - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


def column_number(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + (ord(ch) - ord("A") + 1)
    return n - 1


class _Names(dict[int, str]):
    """Squares' names by square, each made when first asked; ``squares``
    reads them back (the events name squares so, and the fog reads those
    names again)."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__()
        self.width, self.size = width, width * height
        self.squares: dict[str, int] = {}

    def __missing__(self, square: int) -> str:
        row, column = divmod(square, self.width)
        found = self[square] = f"{column_name(column)}{row + 1}"
        if 0 <= square < self.size:  # what Grid.parse would read back
            self.squares[found] = square
        return found


@dataclass(frozen=True)
class Grid:
    width: int
    height: int

    @property
    def size(self) -> int:
        return self.width * self.height

    def square(self, column: int, row: int) -> int:
        return (row % self.height) * self.width + (column % self.width)

    def at(self, square: int) -> tuple[int, int]:
        """(column, row) of a square."""
        row, column = divmod(square, self.width)
        return column, row

    @cached_property
    def name(self) -> Callable[[int], str]:
        """A square's name (``name(0)`` is ``A1``): a look-up in a table of
        the names asked so far, each made when first asked (a tick names
        the same squares thousands of times)."""
        return self._names.__getitem__

    @cached_property
    def _names(self) -> _Names:
        return _Names(self.width, self.height)

    def parse(self, text: str) -> int | None:
        """The square a player named (``k12``, ``K 12``), or None if the
        text is not a square of this board."""
        found = self._names.squares.get(text)
        if found is not None:  # a name this grid gave: no need to read it
            return found
        m = _NAME.fullmatch(text)
        if not m:
            return None
        column, row = column_number(m[1]), int(m[2]) - 1
        if not (0 <= column < self.width and 0 <= row < self.height):
            return None
        return row * self.width + column

    def distance(self, a: int, b: int) -> int:
        """Chebyshev distance with wrapping: the moves between a and b."""
        width, height = self.width, self.height
        ar, ac = divmod(a, width)
        br, bc = divmod(b, width)
        dc = ac - bc if ac > bc else bc - ac
        dr = ar - br if ar > br else br - ar
        if dc + dc > width:
            dc = width - dc
        if dr + dr > height:
            dr = height - dr
        return dc if dc > dr else dr

    def neighbours(self, square: int) -> tuple[int, ...]:
        """The 8 adjacent squares (fewer on a board under 3 wide or high),
        in a fixed order: row above left to right, the row, row below."""
        return self.adjacency[square]

    @cached_property
    def adjacency(self) -> tuple[tuple[int, ...], ...]:
        """:meth:`neighbours` of every square, by square (for loops that
        ask it of thousands)."""
        out = []
        for sq in range(self.size):
            column, row = self.at(sq)
            seen: list[int] = []
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if dr == dc == 0:
                        continue
                    n = self.square(column + dc, row + dr)
                    if n != sq and n not in seen:
                        seen.append(n)
            out.append(tuple(seen))
        return tuple(out)

    def within(self, square: int, radius: int) -> Iterator[int]:
        """Every square at distance ``radius`` or less (the square itself
        included), each once, row by row."""
        column, row = self.at(square)
        rows = range(row - radius, row + radius + 1)
        columns = range(column - radius, column + radius + 1)
        if 2 * radius + 1 >= self.height:
            rows = range(self.height)
        if 2 * radius + 1 >= self.width:
            columns = range(self.width)
        for r in rows:
            for c in columns:
                yield self.square(c, r)
