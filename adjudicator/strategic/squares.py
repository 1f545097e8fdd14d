"""Where the marks in one square of the map picture go (picture.py), so
that none is drawn over another: a city's letter, the marks of the units
there (one for each owner's units, seen now or remembered) and a
satellite's star over it.

One of them alone stands in the middle of the square at full size. More
share the square's four corners at half size: the city's letter top left,
the star top right, the units' marks in the corners left (bottom right
first). Where half a square is too small for letters (``roomy`` false),
no two marks would fit in it with their letters: a unit stands in the
middle of its city (the city a frame round it, its letter given after
its name, picture.py), several owners' marks in the corners, and a star
over a square holding anything else is left out of the square (the
legend says where the satellite is; the edge of its sight is drawn).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

Point = tuple[float, float]

TOP_LEFT, BOTTOM_RIGHT, TOP_RIGHT, BOTTOM_LEFT = (-1, -1), (1, 1), (1, -1), (-1, 1)
UNIT_CORNERS = (BOTTOM_RIGHT, BOTTOM_LEFT, TOP_RIGHT, TOP_LEFT)  # beside a city or a star
CROWD = (TOP_LEFT, BOTTOM_RIGHT, TOP_RIGHT, BOTTOM_LEFT)  # several owners' marks, nothing else


@dataclass(frozen=True)
class Spot:
    """Where a mark goes: its middle and its scale (1: a whole square)."""

    x: float
    y: float
    scale: float


class Layout:
    """The spots of every square's marks: ``centre`` gives a square's
    middle in pixels, ``cell`` a square's side; ``cities`` and ``stars``
    the squares holding a city and a satellite's target, ``groups`` how
    many marks of units each square holds."""

    def __init__(self, centre: Callable[[int], Point], cell: float, roomy: bool,
                 cities: set[int], stars: set[int], groups: Mapping[int, int]) -> None:  # fmt: skip
        self.centre, self.cell, self.roomy = centre, cell, roomy
        self.cities, self.stars, self.counts = cities, stars, groups

    def _spot(self, square: int, corner: tuple[int, int] | None) -> Spot:
        x, y = self.centre(square)
        if corner is None:
            return Spot(x, y, 1.0)
        q = self.cell / 4
        return Spot(x + corner[0] * q, y + corner[1] * q, 0.5)

    def _shared(self, square: int) -> bool:
        """Whether more than one mark stands in the square."""
        n = (square in self.cities) + (square in self.stars) + self.counts.get(square, 0)
        return n > 1

    def city(self, square: int) -> Spot:
        """Where the city's letter goes."""
        shared = self.roomy and self._shared(square)
        return self._spot(square, TOP_LEFT if shared else None)

    def star(self, square: int) -> Spot | None:
        """Where a satellite's star over the square goes (None: nowhere in
        it, a small square holding something else)."""
        shared = self._shared(square)
        if not self.roomy and shared:
            return None
        return self._spot(square, TOP_RIGHT if shared else None)

    def letter_in_name(self, square: int) -> bool:
        """Whether the city's letter goes after its name: a small square
        whose city holds units (their mark has the square's middle)."""
        return not self.roomy and square in self.cities and self.counts.get(square, 0) > 0

    def groups(self, square: int) -> list[Spot]:
        """The spots of the square's marks of units, in order (fewer than
        the marks where they do not fit: the last stands for the rest)."""
        n = self.counts.get(square, 0)
        if n == 0:
            return []
        if not self._shared(square):
            return [self._spot(square, None)]
        beside = self.roomy and (square in self.cities or square in self.stars)
        if not beside:
            if n == 1:  # not roomy: the unit in the middle of its city, or under the star
                return [self._spot(square, None)]
            return [self._spot(square, c) for c in CROWD[:n]]
        taken = {TOP_LEFT if square in self.cities else None,
                 TOP_RIGHT if square in self.stars else None}  # fmt: skip
        free = [c for c in UNIT_CORNERS if c not in taken]
        return [self._spot(square, c) for c in free[:n]]
