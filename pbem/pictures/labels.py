"""Where each name goes: beside its mark, never over another label or mark.

Each label tries places around its anchor, nearest first (below, above,
right, left, the corners, then farther out). A place is taken only if its
box stays inside the picture and covers no placed label and no mark
(province, node, unit); among those, the one crossing the fewest arrows and
links wins. A label with no free place is left out and counted, never
drawn over something.

A strict name (``Want.strict``) is placed by :mod:`pbem.pictures.strict`:
only where it covers no line at all and is nearer its own mark than any
other, or (``Want.pointer``) farther off with a dotted pointer to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from adjudicator.drawing import (
    ALWAYS,
    NONE_LEFT_OUT,
    POINTED,
    SOME_LEFT_OUT,
    Circle,
    Item,
    Line,
    Scene,
    Text,
    Want,
    clip,
)
from pbem.pictures.measure import bounds, text_size
from pbem.pictures.strict import Strict

CELL = 40.0
# (dx, dy) unit offsets, in order of preference: below, above, right, left, corners
DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))


class Grid:
    """Boxes and segments bucketed by cell, for quick overlap tests."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[str, tuple[float, ...]]]] = {}

    def _keys(self, box: Sequence[float]) -> Iterable[tuple[int, int]]:
        for i in range(int(box[0] // CELL), int(box[2] // CELL) + 1):
            for j in range(int(box[1] // CELL), int(box[3] // CELL) + 1):
                yield i, j

    def add(self, what: str, box: tuple[float, ...], shape: tuple[float, ...] = ()) -> None:
        for key in self._keys(box):
            self.cells.setdefault(key, []).append((what, shape or box))

    def near(self, box: Sequence[float]) -> set[tuple[str, tuple[float, ...]]]:
        found = set()
        for key in self._keys(box):
            found.update(self.cells.get(key, ()))
        return found


def place_names(scene: Scene) -> int:
    """Place the scene's wanted names last, around everything drawn, and
    keep the legend entries that say whether some were left out only where
    that is so; returns how many names found no free place."""
    labels, missing = place(scene.names, scene.items, scene.width, scene.height)
    scene.add(*labels)
    scene.names = []
    shown = {ALWAYS, SOME_LEFT_OUT if missing else NONE_LEFT_OUT}
    if any(item.role == "pointer" for item in labels):
        shown.add(POINTED)
    scene.legend = [(head, [e for e in entries if e.when in shown])
                    for head, entries in scene.legend]  # fmt: skip
    return len(missing)


def place(wants: Sequence[Want], items: Sequence[Item], width: float, height: float,
          ) -> tuple[list[Item], list[Want]]:  # fmt: skip
    """Labels for ``wants`` among ``items``: (placed labels and the
    pointers to some of them, left out). Strict names look at the
    picture's pixels (:class:`Strict`); the others at its items by cell
    (a :class:`Grid`, made only if some name is not strict)."""
    grid = _grid(items) if not all(w.strict for w in wants) else None
    placed: list[Item] = []
    missing: list[Want] = []
    strict = Strict(items, width, height) if any(w.strict for w in wants) else None
    for want in wants:
        pointer = None
        if strict is not None and want.strict:
            found = strict.place(want)
            best, pointer = found if found else (None, None)
        else:
            assert grid is not None  # made: this name is not strict
            best = _best(want, grid, width, height)
        if best is None:
            missing.append(want)
            continue
        placed.append(best)
        if grid is not None:
            grid.add("label", bounds(best))
        if strict is not None:
            strict.add(bounds(best))
        if pointer is not None and strict is not None:
            placed.append(pointer)
            strict.add_line(pointer)
            if grid is not None:
                a, b = pointer.points
                grid.add("pointer", (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]),
                                     max(a[1], b[1])), (a[0], a[1], b[0], b[1]))  # fmt: skip
    return placed, missing


def _grid(items: Sequence[Item]) -> Grid:
    """The items drawn, by cell: lines by segment, marks and labels by box."""
    grid = Grid()
    for item in items:
        if isinstance(item, Line):
            for a, b in zip(item.points, item.points[1:], strict=False):
                seg = (a[0], a[1], b[0], b[1])
                box = (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))
                grid.add(item.role, box, seg)
        elif isinstance(item, Circle) and item.role == "mark":
            grid.add("circle", item.box(), (item.x, item.y, item.r))
        elif item.role in ("mark", "label"):
            grid.add(item.role, bounds(item))
    return grid


def _best(want: Want, grid: Grid, width: float, height: float) -> Text | None:
    w, h = text_size(Text(0, 0, want.text, want.size))
    best: tuple[float, Text] | None = None
    for ring, gap in enumerate((2.0, 7.0, 14.0)):
        for rank, (dx, dy) in enumerate(DIRECTIONS):
            d = want.clear + gap
            k = 0.72 if dx and dy else 1.0  # a corner comes as close as a side
            x = want.x + dx * (d * k + w / 2)
            y = want.y + dy * (d * k + h / 2)
            label = Text(x, y, want.text, want.size)
            box = bounds(label)
            if box[0] < 1 or box[1] < 1 or box[2] > width - 1 or box[3] > height - 1:
                continue
            penalty, clash = 0.0, False
            own = (x - want.x) ** 2 + (y - want.y) ** 2
            for what, shape in grid.near(_grown(box, 12)):
                if what == "circle":
                    if circle_meets(shape, box, 1.0):
                        clash = True
                        break
                    square = (shape[0] - shape[2], shape[1] - shape[2], shape[0] + shape[2],
                              shape[1] + shape[2])  # fmt: skip
                    if _closer(square, x, y, own, want):
                        penalty += 8.0  # nearer another mark than its own: misread
                elif what in ("mark", "label"):
                    if overlaps(box, shape, 1.0):
                        clash = True
                        break
                    if what == "mark" and _closer(shape, x, y, own, want):
                        penalty += 8.0
                elif _crosses(shape, box):
                    penalty += 12.0 if what == "order" else 1.0
            if clash:
                continue
            score = ring * 6 + rank * 0.6 + penalty
            if best is None or score < best[0]:
                best = (score, label)
        if best is not None and best[0] < (ring + 1) * 6:
            break
    return best[1] if best else None


def overlaps(a: tuple[float, ...], b: tuple[float, ...], pad: float = 0.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def circle_meets(circle: tuple[float, ...], box: tuple[float, ...], pad: float = 0.0) -> bool:
    """Whether a circle (x, y, r) and a box touch, within ``pad`` pixels."""
    x, y, r = circle
    nx, ny = min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])
    return (x - nx) ** 2 + (y - ny) ** 2 < (r + pad) ** 2


def _grown(box: tuple[float, ...], by: float) -> tuple[float, ...]:
    return (box[0] - by, box[1] - by, box[2] + by, box[3] + by)


def _closer(mark: tuple[float, ...], x: float, y: float, own: float, want: Want) -> bool:
    """Whether another mark's centre is nearer the label than its own."""
    cx, cy = (mark[0] + mark[2]) / 2, (mark[1] + mark[3]) / 2
    if abs(cx - want.x) < 1 and abs(cy - want.y) < 1:
        return False
    return (x - cx) ** 2 + (y - cy) ** 2 < own


def _crosses(seg: tuple[float, ...], box: tuple[float, ...]) -> bool:
    """Whether segment (x1, y1, x2, y2) meets the box."""
    x1, y1, x2, y2 = seg
    if max(x1, x2) < box[0] or min(x1, x2) > box[2] or max(y1, y2) < box[1] or min(y1, y2) > box[3]:
        return False  # not even near: the segment's own box is apart
    return clip((x1, y1), (x2, y2), (box[0], box[1], box[2], box[3])) is not None
