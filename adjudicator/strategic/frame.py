"""The grid of a Strategic Initiative map in pixels (picture.py draws on
it, arrows.py draws its arrows on it)."""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.drawing import Point


@dataclass(frozen=True)
class Frame:
    """The grid in pixels: its size in squares, a square's side, its top
    left corner, and the column and row drawn first (where the wrapping
    grid is cut open: window.py)."""

    columns: int
    rows: int
    cell: float
    left: float
    top: float
    first_column: int = 0
    first_row: int = 0

    def x(self, i: int) -> float:
        """The left edge of the i-th column drawn, on a whole pixel (runs of
        squares meet without a seam)."""
        return float(round(self.left + i * self.cell))

    def y(self, j: int) -> float:
        return float(round(self.top + j * self.cell))

    @property
    def right(self) -> float:
        return self.x(self.columns)

    @property
    def bottom(self) -> float:
        return self.y(self.rows)

    def slot(self, square: int) -> tuple[int, int]:
        """The column and row a square is drawn in."""
        row, column = divmod(square, self.columns)
        return (column - self.first_column) % self.columns, (row - self.first_row) % self.rows

    def centre(self, square: int) -> Point:
        i, j = self.slot(square)
        return (self.x(i) + self.x(i + 1)) / 2, (self.y(j) + self.y(j + 1)) / 2
