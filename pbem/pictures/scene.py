"""Drawing primitives: what a map picture is made of, in pixels.

A game turns its view into a :class:`Scene` (circles, boxes, lines with
arrow heads, labels, a legend); :mod:`pbem.pictures.render` writes a scene
as SVG and as PNG. Nothing here knows a game. Every item has a ``role``
(``mark``: a province, node or unit that no label may cover; ``label``;
``link``; ``order``: an arrow of this turn) and a ``kind``, the name the
legend explains it by: a scene's legend has an entry for every kind drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from math import atan2, cos, hypot, sin
from typing import Any

from PIL import ImageFont

INK = "#333333"
WIDTH = 800  # every picture is this many pixels wide
MARGIN = 24
Point = tuple[float, float]


@dataclass(frozen=True)
class Circle:
    x: float
    y: float
    r: float
    fill: str
    kind: str
    stroke: str = INK
    width: float = 1.0
    role: str = "mark"
    title: str = ""

    def box(self) -> tuple[float, float, float, float]:
        return (self.x - self.r, self.y - self.r, self.x + self.r, self.y + self.r)


@dataclass(frozen=True)
class Box:
    """A rectangle, (x, y) its top-left corner."""

    x: float
    y: float
    w: float
    h: float
    fill: str
    kind: str
    stroke: str = INK
    width: float = 1.0
    role: str = "mark"
    title: str = ""

    def box(self) -> tuple[float, float, float, float]:
        return (self.x, self.y, self.x + self.w, self.y + self.h)


@dataclass(frozen=True)
class Line:
    """A polyline; ``dash`` a dash pattern (empty: solid); ``head`` what its
    end carries: ``arrow`` (filled triangle), ``open`` (open chevron),
    ``dot`` (a small filled circle) or nothing."""

    points: tuple[Point, ...]
    stroke: str
    kind: str
    width: float = 1.0
    dash: tuple[float, ...] = ()
    head: str = ""
    role: str = "link"


@dataclass(frozen=True)
class Text:
    """Text centred on (x, y), in a box of w x h (a white halo box when
    ``halo`` is set, so it reads over lines)."""

    x: float
    y: float
    text: str
    size: float
    kind: str = "label"
    fill: str = INK
    halo: str | None = "#ffffff"
    role: str = "label"

    @property
    def w(self) -> float:
        return text_width(self.text, self.size) + 4

    @property
    def h(self) -> float:
        return self.size + 3

    def box(self) -> tuple[float, float, float, float]:
        return (self.x - self.w / 2, self.y - self.h / 2, self.x + self.w / 2, self.y + self.h / 2)


Item = Circle | Box | Line | Text


@dataclass(frozen=True)
class LegendEntry:
    """One line of the legend: a sample drawn in a 30 x 16 box at (0, 0),
    the words after it, and the kinds of item it explains."""

    text: str
    sample: tuple[Item, ...]
    kinds: frozenset[str]


@dataclass
class Scene:
    title: str
    height: float  # of the map area; the legend goes below it
    items: list[Item] = field(default_factory=list)
    legend: list[tuple[str, list[LegendEntry]]] = field(default_factory=list)  # headed groups
    width: float = WIDTH

    def add(self, *items: Item) -> None:
        self.items.extend(items)

    def kinds(self) -> set[str]:
        return {i.kind for i in self.items if i.role in ("mark", "link", "order")}

    def legend_kinds(self) -> set[str]:
        return {k for _, entries in self.legend for e in entries for k in e.kinds}

    def laid_out(self) -> tuple[list[Item], float]:
        """Every item to draw, the legend placed under the map, and the
        picture's whole height."""
        out = list(self.items)
        y = self.height + 8
        out.append(Line(((MARGIN, y), (self.width - MARGIN, y)), "#bbbbbb", "rule", role="legend"))
        y += 10
        for heading, entries in self.legend:
            if not entries:
                continue
            out.append(_legend_text(MARGIN, y + 8, heading + ":", left=True))
            x = MARGIN + text_width(heading + ":", 12) + 14
            for entry in entries:
                need = 36 + text_width(entry.text, 12) + 18
                if x + need > self.width - MARGIN and x > MARGIN + 100:
                    x, y = MARGIN + 24, y + 22
                out.extend(shifted(item, x, y) for item in entry.sample)
                out.append(_legend_text(x + 36, y + 8, entry.text, left=True))
                x += need
            y += 24
        return out, y + 4


def _legend_text(x: float, y: float, text: str, left: bool) -> Text:
    w = text_width(text, 12) + 4
    return Text(x + w / 2 if left else x, y, text, 12, "legend-text", halo=None, role="legend")


def shifted(item: Item, dx: float, dy: float) -> Item:
    """A legend sample moved to its place; drawn as legend, not as map."""
    if isinstance(item, Line):
        pts = tuple((x + dx, y + dy) for x, y in item.points)
        return Line(pts, item.stroke, item.kind, item.width, item.dash, item.head, "legend")
    if isinstance(item, Circle):
        return Circle(item.x + dx, item.y + dy, item.r, item.fill, item.kind, item.stroke,
                      item.width, "legend")  # fmt: skip
    if isinstance(item, Box):
        return Box(item.x + dx, item.y + dy, item.w, item.h, item.fill, item.kind, item.stroke,
                   item.width, "legend")  # fmt: skip
    return Text(item.x + dx, item.y + dy, item.text, item.size, item.kind, item.fill,
                item.halo, "legend")  # fmt: skip


@cache
def font(size: float) -> Any:
    return ImageFont.load_default(size=size)


@cache
def text_width(text: str, size: float) -> float:
    return float(font(size).getlength(text))


# -- geometry the games share ------------------------------------------------------


def shorten(a: Point, b: Point, start: float, end: float) -> tuple[Point, Point]:
    """The segment a-b with ``start`` pixels cut off at a and ``end`` at b."""
    length = hypot(b[0] - a[0], b[1] - a[1])
    if length <= start + end + 4:
        return a, b
    dx, dy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    return (a[0] + dx * start, a[1] + dy * start), (b[0] - dx * end, b[1] - dy * end)


def head_points(line: Line, scale: float = 1.0) -> list[Point]:
    """The arrow head polygon at a line's end (scaled for the PNG)."""
    (x1, y1), (x2, y2) = line.points[-2], line.points[-1]
    angle = atan2(y2 - y1, x2 - x1)
    size = (7 + 2 * line.width) * scale
    return [
        (x2, y2),
        (x2 - size * cos(angle - 0.42), y2 - size * sin(angle - 0.42)),
        (x2 - size * cos(angle + 0.42), y2 - size * sin(angle + 0.42)),
    ]


def overlaps(a: tuple[float, ...], b: tuple[float, ...], pad: float = 0.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad
