"""Reading a map picture's SVG back, for the picture tests: the boxes of
its labels and marks, the kinds drawn and the kinds its legend explains."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from PIL import Image

NS = "{http://www.w3.org/2000/svg}"
Box = tuple[float, float, float, float]


@dataclass
class Drawn:
    width: float
    labels: dict[str, Box]  # text -> box
    marks: list[tuple[str, Box]]  # (kind, box) of squares
    circles: list[tuple[str, tuple[float, float, float]]]  # (kind, (x, y, r))
    kinds: set[str]  # of marks, links and orders
    legend: set[str]  # kinds of the legend's samples
    order: list[tuple[str, str]]  # (role, kind) of every element, in drawing order
    lines: list[tuple[str, list[tuple[float, float]], bool]]  # (kind, points, dashed)


def read_svg(svg: str) -> Drawn:
    root = ET.fromstring(svg)
    drawn = Drawn(float(root.get("width")), {}, [], [], set(), set(), [], [])
    for el in root:
        role, _, kind = (el.get("class") or " ").partition(" ")
        if not role.strip():
            continue
        drawn.order.append((role, kind))
        if role == "legend":
            drawn.legend.add(kind)
            continue
        if role in ("mark", "link", "order"):
            drawn.kinds.add(kind)
        if role == "label":
            box = tuple(float(v) for v in el.get("data-box").split())
            drawn.labels["".join(el.itertext())] = box
        elif role == "mark" and el.tag == NS + "circle":
            x, y, r = (float(el.get(a)) for a in ("cx", "cy", "r"))
            drawn.circles.append((kind, (x, y, r)))
        elif role == "mark" and el.tag == NS + "rect":
            x, y, w, h = (float(el.get(a)) for a in ("x", "y", "width", "height"))
            drawn.marks.append((kind, (x, y, x + w, y + h)))
        if el.tag == NS + "g" and role in ("order", "link"):
            line = el.find(NS + "polyline")
            pts = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
            drawn.lines.append((kind, pts, line.get("stroke-dasharray") is not None))
    return drawn


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def meets(circle: tuple[float, float, float], box: Box) -> bool:
    """Whether a circle and a box share any point (not merely touch)."""
    x, y, r = circle
    nx, ny = min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])
    return (x - nx) ** 2 + (y - ny) ** 2 < r * r - 0.5


def assert_readable(svg: str, png: bytes, width: float = 800) -> Drawn:
    """What every map must be: ``width`` px wide (800 unless a game's
    picture grows with its board); no label over another label or
    over a mark; a legend sample for every kind of mark, link and order
    drawn (a failed order: its own kind, and the dashed "failed" sample)."""
    drawn = read_svg(svg)
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size[0] == width == drawn.width
    labels = list(drawn.labels.items())
    for i, (text, box) in enumerate(labels):
        for other, box2 in labels[i + 1 :]:
            assert not overlap(box, box2), f"label {text} overlaps label {other}"
        for kind, mark in drawn.marks:
            assert not overlap(box, mark), f"label {text} lies over a mark ({kind})"
        for kind, circle in drawn.circles:
            assert not meets(circle, box), f"label {text} lies over a mark ({kind})"
    for kind in drawn.kinds:
        assert kind.removesuffix("-failed") in drawn.legend, f"no legend entry for {kind}"
        if kind.endswith("-failed"):
            assert "failed" in drawn.legend
    return drawn


def crossings(polylines):
    """Pairs of polylines (by index) that cross, not counting a shared end."""
    cells = {}  # segments bucketed by 20-pixel cells: only neighbours are compared
    for i, pts in enumerate(polylines):
        for a, b in zip(pts, pts[1:], strict=False):
            for x in range(int(min(a[0], b[0]) // 20), int(max(a[0], b[0]) // 20) + 1):
                for y in range(int(min(a[1], b[1]) // 20), int(max(a[1], b[1]) // 20) + 1):
                    cells.setdefault((x, y), []).append((i, a, b))
    found = set()
    for segments in cells.values():
        for n, (i, a, b) in enumerate(segments):
            for j, c, d in segments[n + 1 :]:
                if i != j and cross(a, b, c, d):
                    found.add((min(i, j), max(i, j)))
    return found


def cross(a, b, c, d):
    def side(p, q, r):
        v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
        return 0 if abs(v) < 1e-6 else (1 if v > 0 else -1)

    if max(a[0], b[0]) < min(c[0], d[0]) or max(c[0], d[0]) < min(a[0], b[0]):
        return False
    if max(a[1], b[1]) < min(c[1], d[1]) or max(c[1], d[1]) < min(a[1], b[1]):
        return False
    s1, s2, s3, s4 = side(a, b, c), side(a, b, d), side(c, d, a), side(c, d, b)
    return s1 * s2 < 0 and s3 * s4 < 0  # a proper crossing; touching at a node is no crossing
