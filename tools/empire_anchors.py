"""Where each province's name, supply centre, unit (and a split coast's
fleet) are drawn: inside the province's cells, the boxes clear of each
other, near its middle. Chosen from every half cell; a few by hand."""

from __future__ import annotations

from itertools import product
from math import hypot

from pbem.pictures.measure import text_width

K = 7.52  # pixels per map unit: 100 units across the 752 pixels of the map
NAME_SIZE = 16
COAST_SIZE = 11
UNIT = 17 / K  # a unit's square, and a little room
DOT = 12 / K  # a supply centre's dot, and a little room
GAP = 2 / K
IMPASSABLE = ("ire", "swi", "afr")

# where a fleet on each coast of a split province stands, and where the
# coast's name is written (map units)
COASTS = {
    "stp": {"nc": ((81.0, 8.5), (85.5, 8.5)), "sc": ((77.5, 21.5), (77.5, 18.5))},
    "spa": {"nc": ((14.0, 64.0), (18.5, 64.0)), "sc": ((23.0, 74.0), (23.0, 77.0))},
    "bul": {"ec": ((74.0, 67.0), (78.5, 67.5)), "sc": ((70.0, 72.5), (71.0, 76.5))},
}
# a few names and units placed by hand: (name, unit, dot) or None to choose
BY_HAND: dict[str, tuple] = {}

Box = tuple[float, float, float, float]


def anchors(cells: list[list[str]], size: float, board) -> dict[str, dict]:
    where: dict[str, list[tuple[int, int]]] = {}
    for r, row in enumerate(cells):
        for c, code in enumerate(row):
            where.setdefault(code, []).append((r, c))
    out = {}
    # taken: the boxes of names, units and coast names placed so far (the
    # coasts' first, then the smallest provinces' first, having least room)
    taken = [name_box(c, *n, COAST_SIZE) for coasts in COASTS.values()
             for _, n in coasts.values() for c in ("nc",)]  # fmt: skip
    taken += [square(*u, UNIT) for coasts in COASTS.values() for u, _ in coasts.values()]
    for abbr, spots in sorted(where.items(), key=lambda kv: len(kv[1])):
        if abbr in IMPASSABLE:
            continue
        province = board.province[abbr]
        out[abbr] = _spots(abbr, set(spots), size, province.supply, taken)
        if abbr in COASTS:
            out[abbr]["coasts"] = COASTS[abbr]
    return out


def name_box(abbr: str, x: float, y: float, size: float = NAME_SIZE) -> Box:
    w = (text_width(abbr.upper() if size == NAME_SIZE else abbr, size) + 4) / K
    h = (size + 3) / K
    return (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


def square(x: float, y: float, side: float) -> Box:
    return (x - side / 2, y - side / 2, x + side / 2, y + side / 2)


def _spots(abbr: str, cells: set[tuple[int, int]], size: float, supply: bool,
           taken: list[Box]) -> dict:  # fmt: skip
    def inside(x: float, y: float) -> bool:
        return (int(y // size), int(x // size)) in cells

    def cover(box: Box) -> float:
        xs = [box[0] + (box[2] - box[0]) * i / 4 for i in range(5)]
        ys = [box[1] + (box[3] - box[1]) * i / 2 for i in range(3)]
        return sum(inside(x, y) for x, y in product(xs, ys)) / 15

    cy = sum(r + 0.5 for r, _ in cells) / len(cells) * size
    cx = sum(c + 0.5 for _, c in cells) / len(cells) * size
    points = sorted({((c + dc) * size, (r + dr) * size) for r, c in cells
                     for dc, dr in product((0.25, 0.5, 0.75), repeat=2)})  # fmt: skip
    names = [(p, name_box(abbr, *p)) for p in points]
    names = [(p, b, cover(b)) for p, b in names if not any(_meets(b, t, GAP) for t in taken)]
    units = [(p, square(*p, UNIT)) for p in points]
    units = [(p, b, cover(b)) for p, b in units if not any(_meets(b, t, 0) for t in taken)]
    best = None
    for least in (0.8, 0.6, 0.4, 0.2):
        best = _pair(names, units, least, (cx, cy))
        if best is not None:
            break
    if best is None:
        raise SystemExit(f"{abbr}: no room for its name and unit")
    _, name, unit, nb, ub = best
    taken += [nb, ub]
    out = {"name": _r(name), "unit": _r(unit)}
    if supply:
        dots = []
        for p in points:
            b = square(*p, DOT)
            if _meets(b, nb, 0) or _meets(b, ub, 0) or any(_meets(b, t, 0) for t in taken):
                continue
            dots.append(((1 - cover(b)) * 40 + hypot(p[0] - name[0], p[1] - name[1]), p))
        if not dots:
            raise SystemExit(f"{abbr}: no room for its supply centre")
        out["dot"] = _r(min(dots)[1])
        taken.append(square(*out["dot"], DOT))
    return out


def _pair(names, units, least, middle):
    cx, cy = middle
    best = None
    for np_, nb, nc in names:
        if nc < least:
            continue
        for up, ub, uc in units:
            if uc < least or _meets(nb, ub, GAP):
                continue
            score = (
                (1 - nc) * 40
                + (1 - uc) * 40
                + hypot(np_[0] - cx, np_[1] - cy) * 0.5
                + hypot(up[0] - cx, up[1] - cy) * 0.4
                + hypot(up[0] - np_[0], up[1] - np_[1]) * 0.3
            )
            if best is None or score < best[0]:
                best = (score, np_, up, nb, ub)
    return best


def _meets(a: Box, b: Box, gap: float) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _r(p: tuple[float, float]) -> tuple[float, float]:
    return (round(p[0], 2), round(p[1], 2))
