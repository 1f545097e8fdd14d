"""What the games' pictures share: colours, fitting map coordinates to
pixels, arrows, legend samples, and placing the labels last."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from math import hypot

from pbem.pictures.labels import Want, place
from pbem.pictures.scene import (
    INK,
    MARGIN,
    WIDTH,
    Box,
    Circle,
    LegendEntry,
    Line,
    Point,
    Scene,
    Text,
    shorten,
)

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


def label_all(scene: Scene, wants: Sequence[Want]) -> int:
    """Place the labels last, around everything drawn; returns how many
    found no free place (left out, never drawn over another mark)."""
    labels, missing = place(wants, scene.items, scene.width, scene.height)
    scene.add(*labels)
    return len(missing)
