"""Drawing primitives: what a map picture is made of, in pixels.

A game turns its view into a :class:`Scene` (circles, boxes, lines with
arrow heads, text, the names it wants placed, a legend) with
:meth:`~adjudicator.base.Game.picture`; the host places the names where
they cover nothing (that needs the font's measures) and writes the scene
as SVG and PNG (``pbem/pictures/``). Nothing here knows a game or draws.

Every item has a ``role`` (``mark``: a province, node or unit that no
label may cover; ``label``; ``link``; ``order``: an arrow of this turn;
``glyph``: text on a mark; ``area``: a province's shape on a board of
areas) and a ``kind``, the name the legend explains it
by: a scene's legend has an entry for every kind drawn. The second half of
this module is what the games' pictures share: colours, fitting map
coordinates to pixels, arrows, legend samples.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import hypot

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
    """A rectangle, (x, y) its top-left corner; with ``diamond`` the
    rhombus whose corners are the middles of its sides."""

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
    diamond: bool = False

    def corners(self) -> list[Point]:
        """The diamond's corners, top first, clockwise."""
        x, y, w, h = self.x, self.y, self.w, self.h
        return [(x + w / 2, y), (x + w, y + h / 2), (x + w / 2, y + h), (x, y + h / 2)]

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
    """Text centred on (x, y) (on a white halo box when ``halo`` is set, so
    it reads over lines); its size on the page is the renderer's to measure."""

    x: float
    y: float
    text: str
    size: float
    kind: str = "label"
    fill: str = INK
    halo: str | None = "#ffffff"
    role: str = "label"


@dataclass(frozen=True)
class Shape:
    """A closed polygon: a province's area on a board of areas (role
    ``area``: the ground the marks stand on, which names may cover)."""

    points: tuple[Point, ...]
    fill: str
    kind: str
    stroke: str = INK
    width: float = 1.0
    role: str = "area"
    title: str = ""

    def box(self) -> tuple[float, float, float, float]:
        xs, ys = [p[0] for p in self.points], [p[1] for p in self.points]
        return (min(xs), min(ys), max(xs), max(ys))


Item = Circle | Box | Line | Text | Shape


@dataclass(frozen=True)
class Want:
    """A name wanted beside a mark at (x, y): ``clear`` pixels from its
    centre are the mark's own (the name goes outside them).

    ``strict``, for a board of points and links where a name by the wrong
    point misleads: the name is placed only where it covers no line at all
    and lies nearer its own mark than any other (by centre and by outline),
    trying places all round, first toward ``toward`` (an angle in radians,
    y down), then a point smaller; with no such place it is left out, or,
    with ``pointer``, put farther off where it covers nothing, with a
    dotted line (``POINTER``) from its mark's outline to it."""

    x: float
    y: float
    clear: float
    text: str
    size: float = 11.0
    strict: bool = False
    toward: float = 0.0
    pointer: bool = False


POINTER = (2.0, 2.0)  # the dots of a line from a mark to its name, set apart from it


# when a legend entry is shown: always, or only if some wanted names found
# no free place, or only if every wanted name was placed, or only if some
# name was placed farther off with a pointer
ALWAYS, SOME_LEFT_OUT, NONE_LEFT_OUT = "", "some-left-out", "none-left-out"
POINTED = "pointed"


@dataclass(frozen=True)
class LegendEntry:
    """One line of the legend: a sample drawn in a 30 x 16 box at (0, 0),
    the words after it, the kinds of item it explains, and ``when`` it is
    shown (a note that names were left out: only if some were)."""

    text: str
    sample: tuple[Item, ...]
    kinds: frozenset[str]
    when: str = ALWAYS


@dataclass
class Scene:
    """A picture: the map area's items, the names to place beside the
    marks (``names``, placed last, around everything drawn; one that finds
    no free place is left out, never drawn over a mark), and the legend's
    headed groups, drawn under the map."""

    title: str
    height: float  # of the map area; the legend goes below it
    items: list[Item] = field(default_factory=list)
    legend: list[tuple[str, list[LegendEntry]]] = field(default_factory=list)
    width: float = WIDTH
    names: list[Want] = field(default_factory=list)

    def add(self, *items: Item) -> None:
        self.items.extend(items)

    def kinds(self) -> set[str]:
        return {i.kind for i in self.items if i.role in ("mark", "link", "order")}

    def legend_kinds(self) -> set[str]:
        return {k for _, entries in self.legend for e in entries for k in e.kinds}


def clip(a: Point, b: Point, box: tuple[float, float, float, float]) -> tuple[Point, Point] | None:
    """The part of segment a-b inside ``box`` (left, top, right, bottom),
    or None if it misses the box (Liang-Barsky)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, a[0] - box[0]), (dx, box[2] - a[0]), (-dy, a[1] - box[1]),
                 (dy, box[3] - a[1])):  # fmt: skip
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
    if t0 > t1:
        return None
    return (a[0] + t0 * dx, a[1] + t0 * dy), (a[0] + t1 * dx, a[1] + t1 * dy)


def shorten(a: Point, b: Point, start: float, end: float) -> tuple[Point, Point]:
    """The segment a-b with ``start`` pixels cut off at a and ``end`` at b."""
    length = hypot(b[0] - a[0], b[1] - a[1])
    if length <= start + end + 4:
        return a, b
    dx, dy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    return (a[0] + dx * start, a[1] + dy * start), (b[0] - dx * end, b[1] - dy * end)


# -- what the games' pictures share ------------------------------------------------

# the players' colour names, as the games give them, drawn in these
COLOURS = {
    "red": "#d62728",
    "blue": "#1f77b4",
    "green": "#2ca02c",
    "yellow": "#e6c700",
    "purple": "#9467bd",
    "orange": "#ff7f0e",
    "cyan": "#17becf",
    "magenta": "#e377c2",
    "brown": "#8c564b",
    "pink": "#f7a1c4",
    "grey": "#7f7f7f",
    "olive": "#bcbd22",
    "navy": "#1a237e",
    "teal": "#00897b",
    "maroon": "#800000",
    "lime": "#7cb342",
    "gold": "#ffb300",
    "silver": "#b0bec5",
}
NEUTRAL = "#eeeeee"
EDGE = "#bdbdbd"
DASH = (7.0, 4.0)  # a failed order


def colour(name: str | None) -> str:
    if name is None:
        return NEUTRAL
    return COLOURS.get(name, name if name.startswith("#") else "#999999")


def ink_on(fill: str) -> str:
    """Dark text on a light fill, white on a dark one."""
    if not (fill.startswith("#") and len(fill) == 7):
        return INK
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def fit(points: Iterable[Point], pad: float = 0.0,
        ) -> tuple[Callable[[float, float], Point], float]:  # fmt: skip
    """Map coordinates to pixels across the picture's width (aspect kept),
    and the map area's height; ``pad`` more pixels kept free on each side."""
    pts = list(points) or [(0.0, 0.0)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    inner = WIDTH - 2 * (MARGIN + pad)
    span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
    k = inner / max(span_x, span_y * 0.9, 1e-9)  # a tall map may be a bit taller than wide
    x0, y0 = min(xs), min(ys)
    left = MARGIN + pad + (inner - span_x * k) / 2
    height = 2 * (MARGIN + pad) + span_y * k
    return (lambda x, y: (left + (x - x0) * k, MARGIN + pad + (y - y0) * k)), height


def arrow(a: Point, b: Point, fill: str, ok: bool, kind: str, clear: tuple[float, float],
          width: float = 2.5, head: str = "arrow") -> Line:  # fmt: skip
    """An order's arrow from a to b, its ends ``clear`` pixels off the
    marks; dashed (and kind ``<kind>-failed``) when it failed."""
    s, e = shorten(a, b, *clear)
    return Line((s, e), fill, kind if ok else f"{kind}-failed", width,
                () if ok else DASH, head, "order")  # fmt: skip


def trim(points: Sequence[Point], start: float, end: float) -> tuple[Point, ...]:
    """A polyline with ``start`` pixels cut off its first end and ``end``
    off its last (so an arrow along a curved link ends at the node's rim)."""
    pts = list(points)
    for cut, forward in ((start, True), (end, False)):
        if not forward:
            pts.reverse()
        while len(pts) > 2 and hypot(pts[1][0] - pts[0][0], pts[1][1] - pts[0][1]) <= cut:
            cut -= hypot(pts[1][0] - pts[0][0], pts[1][1] - pts[0][1])
            pts.pop(0)
        (x0, y0), (x1, y1) = pts[0], pts[1]
        length = hypot(x1 - x0, y1 - y0)
        if length > cut:
            pts[0] = (x0 + (x1 - x0) * cut / length, y0 + (y1 - y0) * cut / length)
        if not forward:
            pts.reverse()
    return tuple(pts)


def player_entries(colours: Mapping[str, str], label: Callable[[str], str] = str,
                   ) -> list[LegendEntry]:  # fmt: skip
    return [
        LegendEntry(label(p), (Box(6, 0, 16, 16, c, "player", width=0.8),), frozenset())
        for p, c in colours.items()
    ]


def sample_node(fill: str, kind: str, *, stroke: str = INK, width: float = 1.0,
                ring: bool = False, text: str = "") -> LegendEntry | tuple:  # fmt: skip
    items: list = [Circle(14, 8, 7.5, fill, kind, stroke, width)]
    if ring:
        items.append(Circle(14, 8, 10.5, "none", kind, INK, 1.0))
        items.reverse()
    if text:
        items.append(Text(14, 8, text, 9, kind, ink_on(fill), None, "glyph"))
    return tuple(items)


def sample_line(kind: str, stroke: str = INK, *, width: float = 2.5, dash: tuple = (),
                head: str = "arrow") -> tuple:  # fmt: skip
    return (Line(((1, 8), (29, 8)), stroke, kind, width, dash, head),)


def failed_entry(scene: Scene, what: str = "dashed: the order failed") -> list[LegendEntry]:
    failed = {k for k in scene.kinds() if k.endswith("-failed")}
    if not failed:
        return []
    return [LegendEntry(what, sample_line("failed", INK, dash=DASH), frozenset(failed))]


def used(entries: Sequence[LegendEntry], scene: Scene) -> list[LegendEntry]:
    """The entries explaining something drawn (swatches always stay); a
    failed order's kind counts for its own entry too (a dashed move is a move)."""
    kinds = {k.removesuffix("-failed") for k in scene.kinds()} | scene.kinds()
    return [e for e in entries if not e.kinds or e.kinds & kinds]


def pointer_entry(what: str = "dotted: from a node to its name, set farther off",
                  ) -> list[LegendEntry]:  # fmt: skip
    """The legend's line for a pointer to a name, shown only if one is drawn."""
    sample = (Line(((1, 8), (29, 8)), INK, "pointer", 1.0, POINTER, "", "legend"),)
    return [LegendEntry(what, sample, frozenset(), POINTED)]


def left_out_entries(text: str, what: str = "", otherwise: str | None = None,
                     ) -> list[LegendEntry]:  # fmt: skip
    """The legend's note that names were left out for room: ``text`` with
    ``what`` in its ``{}``, shown only if the host could not place some of
    the wanted names; with ``otherwise``, a map that names only some places
    at all always has the note, with ``otherwise`` in its ``{}`` when every
    wanted name was placed."""
    out = [LegendEntry(text.format(what), (), frozenset(), SOME_LEFT_OUT)]
    if otherwise is not None:
        out.append(LegendEntry(text.format(otherwise), (), frozenset(), NONE_LEFT_OUT))
    return out
