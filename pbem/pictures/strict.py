"""Strict names (``Want.strict``): for a board of points and links, where a
name by the wrong point misleads. A strict name goes only where it covers
no line, mark or other name at all, and where it is nearer its own mark
than any other, by centre and by outline (by a pixel or two: no tie to
misread); failing that, a point smaller; failing that, if the name may
have a pointer, farther off (up to ``REACH``) where the name covers
nothing and comes near no other mark, with a dotted line from the mark's
outline to it that crosses links only (across them: it runs along none)
and keeps clear of every mark, arrow, name and other pointer; failing
that, it is left out.

What is drawn is kept as pixels (lines three pixels wide, marks a pixel
larger, each name placed added), so each place tried is one look at the
pixels under it: a link's pixels are 1, everything else's (marks, arrows,
names, pointers) 2, for a pointer may cross a link.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cache
from math import ceil, cos, floor, hypot, pi, sin, sqrt

from PIL import Image, ImageDraw

from adjudicator.drawing import INK, POINTER, Circle, Item, Line, Text, Want
from pbem.pictures.measure import bounds, text_size
from pbem.pictures.render import head_points

GAPS = (2.0, 4.0, 7.0, 11.0)  # pixels between a strict name and its mark's outline
TURNS = 24  # directions tried round the mark
SMALLEST = 9  # a name with no room is tried a point smaller, down to this
CELL = 40.0
CLEARLY = 0.84  # another mark's centre is at least 1 / CLEARLY farther than its own
REACH = 64  # pixels from its mark's outline a pointed-to name's middle may be
ACROSS = 12  # pixels: a pointer near a link for longer runs along it, not across
SHORTEST = 8  # pixels: a pointer is at least this long, to be seen
LINK, SOLID = 1, 2  # what is drawn, as pixels: a link, or anything else


class Strict:
    """The picture so far, for placing strict names one by one."""

    def __init__(self, items: Sequence[Item], width: float, height: float) -> None:
        self.width, self.height = width, height
        self.image = Image.new("L", (ceil(width) + 2, ceil(height) + 2), 0)
        self.draw = ImageDraw.Draw(self.image)
        self.marks: dict[tuple[int, int], list[tuple[float, float, float]]] = {}
        for item in items:
            if isinstance(item, Line):
                ink = LINK if item.role == "link" else SOLID
                self.draw.line(list(item.points), fill=ink, width=3)
                if item.head == "arrow":
                    self.draw.polygon(head_points(item), fill=ink, outline=ink)
            elif isinstance(item, Circle) and item.role == "mark":
                r = item.r + 0.5
                self.draw.ellipse((item.x - r, item.y - r, item.x + r, item.y + r), fill=SOLID)
                self._mark(item.x, item.y, item.r)
            elif item.role in ("mark", "label"):
                self.add(bounds(item))
                if item.role == "mark":
                    x0, y0, x1, y1 = bounds(item)
                    self._mark((x0 + x1) / 2, (y0 + y1) / 2, min(x1 - x0, y1 - y0) / 2)

    def _mark(self, x: float, y: float, r: float) -> None:
        self.marks.setdefault((int(x // CELL), int(y // CELL)), []).append((x, y, r))

    def add(self, box: tuple[float, ...]) -> None:
        """A box now covered (a name placed)."""
        self.draw.rectangle((box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1), fill=SOLID)

    def place(self, want: Want) -> tuple[Text, Line | None] | None:
        """The name, and the pointer from its mark to it if it has one."""
        found = self._place(want)
        if found is None and want.size > SMALLEST:
            found = self._place(replace(want, size=want.size - 1))
        if found is not None:
            return found, None
        return self._pointed(want) if want.pointer else None

    def _pointed(self, want: Want) -> tuple[Text, Line] | None:
        """The name farther off (up to ``REACH`` pixels from the mark's
        outline), nearest first, with a straight dotted line from the
        mark's outline toward the name's middle, ending two pixels short
        of its box: the name where it covers nothing and keeps ``GAPS[-1]``
        from any other mark's outline, the line two pixels clear of
        everything drawn but the links it crosses (its own mark aside)."""
        w, h = text_size(Text(0, 0, want.text, want.size))
        far = want.clear + REACH + w + h
        marks = self._near(want, far)
        left, top = floor(want.x - far), floor(want.y - far)
        size = ceil(2 * far) + 1
        pixels = self.image.crop((left, top, left + size, top + size)).tobytes()
        for d, dx, dy in _spots(want.clear, REACH):
            x, y = want.x + dx, want.y + dy
            box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
            if box[0] < 1 or box[1] < 1 or box[2] > self.width - 1 or box[3] > self.height - 1:
                continue
            if _covers(pixels, size, box, left, top) or _near_outline(marks, box, GAPS[-1]):
                continue
            c, s = dx / d, dy / d
            start = (want.x + (want.clear + 1) * c, want.y + (want.clear + 1) * s)
            end = _to_box(start, (want.x, want.y), box)
            if end is None or not self._clear_line(start, end):
                continue
            line = Line((start, end), INK, "pointer", 1.0, POINTER, "", "pointer")
            return Text(x, y, want.text, want.size), line
        return None

    def _near(self, want: Want, far: float) -> list[tuple[float, float, float]]:
        """The marks within ``far`` of the wanted name's mark, but its own."""
        return [m for i in range(int((want.x - far) // CELL), int((want.x + far) // CELL) + 1)
                for j in range(int((want.y - far) // CELL), int((want.y + far) // CELL) + 1)
                for m in self.marks.get((i, j), ())
                if abs(m[0] - want.x) >= 1 or abs(m[1] - want.y) >= 1]  # fmt: skip

    def _drawn(self, box: tuple[float, ...]) -> bool:
        """Whether anything is drawn under the box."""
        left, top = floor(box[0]), floor(box[1])
        region = self.image.crop((left, top, ceil(box[2]) + 1, ceil(box[3]) + 1))
        return _covers(region.tobytes(), region.width, box, left, top)

    def _clear_line(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Whether the segment a-b keeps two pixels from everything drawn
        but links, and crosses each link it meets (near it for no more than
        ``ACROSS`` pixels), leaving out its first two pixels (where it
        leaves its own mark)."""
        length = hypot(b[0] - a[0], b[1] - a[1])
        pixels = self.image.load()
        run = 0
        for i in range(2, int(length) + 1):
            t = i / length
            x, y = round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t)
            if not (2 <= x < self.image.width - 2 and 2 <= y < self.image.height - 2):
                return False
            near = max(pixels[x + dx, y + dy] for dx in range(-2, 3) for dy in range(-2, 3))
            if near == SOLID:
                return False
            run = run + 1 if near == LINK else 0
            if run > ACROSS:
                return False
        return True

    def add_line(self, line: Line) -> None:
        """A pointer now drawn: no other name comes within four pixels of
        it, to be read as the one it points to."""
        self.draw.line(list(line.points), fill=SOLID, width=9)

    def _place(self, want: Want) -> Text | None:
        w, h = text_size(Text(0, 0, want.text, want.size))
        far = 2 * (want.clear + GAPS[-1]) + w + h
        marks = [m for i in range(int((want.x - far) // CELL), int((want.x + far) // CELL) + 1)
                 for j in range(int((want.y - far) // CELL), int((want.y + far) // CELL) + 1)
                 for m in self.marks.get((i, j), ())
                 if abs(m[0] - want.x) >= 1 or abs(m[1] - want.y) >= 1]  # fmt: skip
        left, top = floor(want.x - far), floor(want.y - far)
        size = (ceil(2 * far) + 1, ceil(2 * far) + 1)
        pixels = self.image.crop((left, top, left + size[0], top + size[1])).tobytes()
        first = round(want.toward / (2 * pi) * TURNS)  # the turn nearest ``toward``
        for gap, reach in zip(GAPS, _reaches(w, h, want.clear), strict=True):
            for k in _turns(first):
                x, y = want.x + reach[k][0], want.y + reach[k][1]
                t = reach[k][2]
                box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
                if box[0] < 1 or box[1] < 1 or box[2] > self.width - 1 or box[3] > self.height - 1:
                    continue
                if _covers(pixels, size[0], box, left, top) or _misleads(marks, box, t, gap):
                    continue
                return Text(x, y, want.text, want.size)
        return None


def _covers(pixels: bytes, stride: int, box: tuple[float, ...], left: int, top: int) -> bool:
    """Whether anything is drawn under the box (to whole pixels), in
    the pixels of a region from (left, top), ``stride`` pixels wide."""
    x0, x1 = floor(box[0]) - left, ceil(box[2]) - left
    for y in range(floor(box[1]) - top, ceil(box[3]) - top):
        if pixels[y * stride + x0 : y * stride + x1].strip(b"\0"):
            return True
    return False


def _turns(first: int) -> Iterator[int]:
    """The turns to try (of ``TURNS`` round the mark), nearest ``first`` first."""
    yield first % TURNS
    for k in range(1, TURNS // 2):
        yield (first + k) % TURNS
        yield (first - k) % TURNS
    yield (first + TURNS // 2) % TURNS


@cache
def _reaches(w: float, h: float, clear: float) -> list[list[tuple[float, float, float]]]:
    """For each gap, for each turn round the mark: where a w x h name's
    middle goes (dx, dy from the mark) and how far that is."""
    out = []
    for gap in GAPS:
        row = []
        for k in range(TURNS):
            c, s = cos(2 * pi * k / TURNS), sin(2 * pi * k / TURNS)
            t = _reach(clear + gap, w / 2, h / 2, c, s)
            row.append((t * c, t * s, t))
        out.append(row)
    return out


def _reach(r: float, hw: float, hh: float, c: float, s: float) -> float:
    """How far along the direction (c, s) a box of half sizes (hw, hh) is
    centred so that its nearest point is ``r`` from the start."""
    c, s = abs(c), abs(s)
    best = float("inf")
    if c > 1e-9 and (r + hw) / c * s <= hh:
        best = (r + hw) / c  # its near side faces the mark
    if s > 1e-9 and (r + hh) / s * c <= hw:
        best = min(best, (r + hh) / s)
    b = c * hw + s * hh  # else its corner: (t c - hw)^2 + (t s - hh)^2 = r^2
    corner = b + sqrt(max(0.0, b * b - (hw * hw + hh * hh - r * r)))
    return min(best, corner)


@cache
def _spots(clear: float, reach: float) -> list[tuple[float, int, int]]:
    """Where a pointed-to name's middle may go, on a grid of two pixels:
    (distance, dx, dy) from the mark's centre, ten to ``reach`` pixels past
    its outline, nearest first."""
    out = []
    for dx in range(-ceil(clear + reach), ceil(clear + reach) + 1, 2):
        for dy in range(-ceil(clear + reach), ceil(clear + reach) + 1, 2):
            d = hypot(dx, dy)
            if clear + 10 <= d <= clear + reach:
                out.append((d, dx, dy))
    return sorted(out)


def _to_box(start: tuple[float, float], centre: tuple[float, float], box: tuple[float, ...],
            ) -> tuple[float, float] | None:  # fmt: skip
    """Where a pointer from ``start`` (going straight out from ``centre``)
    ends: two pixels short of the box, or None if that leaves it shorter
    than ``SHORTEST``."""
    dx, dy = start[0] - centre[0], start[1] - centre[1]
    norm = hypot(dx, dy)
    dx, dy = dx / norm, dy / norm
    t = 0.0
    while t < 200:
        x, y = start[0] + dx * (t + 2), start[1] + dy * (t + 2)
        if box[0] <= x <= box[2] and box[1] <= y <= box[3]:
            return (start[0] + dx * t, start[1] + dy * t) if t >= SHORTEST else None
        t += 0.5
    return None


def _near_outline(marks: list, box: tuple[float, ...], gap: float) -> bool:
    """Whether another mark's outline comes within ``gap`` of the box."""
    for cx, cy, r in marks:
        nx, ny = min(max(cx, box[0]), box[2]), min(max(cy, box[1]), box[3])
        if hypot(cx - nx, cy - ny) - r < gap:
            return True
    return False


def _misleads(marks: list, box: tuple[float, ...], own: float, gap: float) -> bool:
    """Whether another mark is near the name as its own: its centre not
    clearly farther from the name's middle, or its outline within two
    pixels as near the name's box."""
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for cx, cy, r in marks:
        if hypot(cx - x, cy - y) * CLEARLY < own:
            return True
        nx, ny = min(max(cx, box[0]), box[2]), min(max(cy, box[1]), box[3])
        if hypot(cx - nx, cy - ny) - r < gap + 2:
            return True
    return False
