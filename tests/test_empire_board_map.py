"""The Empire board of areas, checked as data and as colour: every province
one area of its kind; neighbours touch and nothing else overlaps; names,
supply centres and units inside their province, no name over another;
the powers' colours and the white of a free centre told apart in normal
vision and in deuteranopia and protanopia (tests/colour_vision.py)."""

from __future__ import annotations

from itertools import combinations
from math import hypot

import pytest

from adjudicator.drawing import fit
from adjudicator.empire.areas import NAME_SIZE, shipped_areas, spots
from adjudicator.empire.board import shipped_board
from adjudicator.empire.game import COLOURS
from adjudicator.empire.picture import U
from pbem.pictures.measure import text_width
from tests.colour_vision import VISIONS, ciede2000, difference

BOARD = shipped_board("standard")
AREAS = shipped_areas("standard")
NEAR = 1.0  # map units: two areas this close touch
LEAST_DIFFERENCE = 20.0  # CIEDE2000; about 2.3 is the least anyone notices


def neighbours() -> set[frozenset[str]]:
    pairs = {frozenset(p) for p in BOARD.army_links}
    pairs |= {frozenset(x.split("/")[0] for x in p) for p in BOARD.fleet_links}
    return pairs


def inside(point, polygon) -> bool:
    """Whether a point lies inside a polygon (even-odd rule)."""
    x, y = point
    hit = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


def to_segment(p, a, b) -> float:
    (x, y), (x1, y1), (x2, y2) = p, a, b
    dx, dy = x2 - x1, y2 - y1
    t = max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy or 1e-12)))
    return hypot(x - x1 - t * dx, y - y1 - t * dy)


def edges(polygon):
    return list(zip(polygon, polygon[1:] + polygon[:1], strict=True))


def along(polygon, step=0.5):
    """Points along a polygon's border, ``step`` map units apart."""
    for a, b in edges(polygon):
        n = max(1, round(hypot(b[0] - a[0], b[1] - a[1]) / step))
        for i in range(n):
            yield (a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n)


def shared(one, two) -> float:
    """How much of one's border runs along two's (within NEAR / 4), in map units."""
    found = 0
    for p in along(one):
        if min(to_segment(p, a, b) for a, b in edges(two)) < NEAR / 4:
            found += 1
    return found * 0.5


def box(polygon):
    xs, ys = [p[0] for p in polygon], [p[1] for p in polygon]
    return min(xs), min(ys), max(xs), max(ys)


def apart(a, b, by: float) -> bool:
    return a[2] + by < b[0] or b[2] + by < a[0] or a[3] + by < b[1] or b[3] + by < a[1]


OUTLINES = {abbr: list(a.outline) for abbr, a in AREAS.areas.items()}
CLOSE = [(a, b) for a, b in combinations(sorted(OUTLINES), 2)
         if not apart(box(OUTLINES[a]), box(OUTLINES[b]), NEAR)]  # fmt: skip
BORDERS = {frozenset((a, b)): shared(OUTLINES[a], OUTLINES[b]) for a, b in CLOSE}


def test_every_province_is_one_area_of_its_kind():
    provinces = {p.abbr for p in BOARD.provinces}
    assert provinces <= set(AREAS.areas)
    assert all(AREAS.areas[a].impassable for a in set(AREAS.areas) - provinces)
    for p in BOARD.provinces:
        area = AREAS.areas[p.abbr]
        assert len(area.outline) >= 4 and not area.impassable, p.abbr
        for x, y in area.outline:
            assert 0 <= x <= AREAS.width and 0 <= y <= AREAS.height, p.abbr
        seas = {o for o in BOARD.province if BOARD.province[o].kind == "sea"
                and BORDERS.get(frozenset((p.abbr, o)), 0) > NEAR}  # fmt: skip
        if p.kind == "land":  # inland: no sea on its border
            assert not seas, (p.abbr, seas)
        elif p.kind == "coast":
            assert seas, f"{p.abbr} is a coast on no sea"


@pytest.mark.parametrize("pair", sorted(sorted(p) for p in neighbours()))
def test_neighbours_share_a_border(pair):
    a, b = pair
    assert BORDERS.get(frozenset(pair), 0) > NEAR, f"{a} and {b} are neighbours, not touching"


def test_provinces_that_are_not_neighbours_share_no_border_and_do_not_overlap():
    near = neighbours()
    provinces = {p.abbr for p in BOARD.provinces}
    for a, b in CLOSE:
        pair = frozenset((a, b))
        if pair in near:
            continue
        if {a, b} <= provinces:  # a corner in common at most
            assert BORDERS[pair] <= NEAR, f"{a} and {b} share a border but are not neighbours"
        for one, two in ((a, b), (b, a)):
            deep = [
                p
                for p in OUTLINES[one]
                if inside(p, OUTLINES[two])
                and min(to_segment(p, x, y) for x, y in edges(OUTLINES[two])) > 0.05
            ]
            assert not deep, f"{one} reaches into {two} at {deep[:3]}"  # fmt: skip


def test_names_centres_units_and_coasts_lie_in_their_province_and_names_apart():
    to_px, _ = fit([(0.0, 0.0), (AREAS.width, AREAS.height)])
    boxes = []
    for p in BOARD.provinces:
        area = AREAS.areas[p.abbr]
        outline = OUTLINES[p.abbr]
        assert inside(area.unit, outline), f"{p.abbr}: its unit stands outside it"
        assert set(area.coasts) == set(p.coasts), p.abbr
        for coast, c in area.coasts.items():
            assert inside(c.unit, outline), f"{p.abbr}/{coast}: its fleet stands outside it"
        assert (area.dot is not None) == p.supply, p.abbr
        if area.dot:
            assert inside(area.dot, outline), f"{p.abbr}: its supply centre lies outside it"
        assert inside(area.name, outline), f"{p.abbr}: its name's middle lies outside it"
        x, y = to_px(*area.name)
        w, h = text_width(p.abbr.upper(), NAME_SIZE) + 4, NAME_SIZE + 3
        boxes.append((p.abbr, (x - w / 2, y - h / 2, x + w / 2, y + h / 2)))
        ux, uy = to_px(*area.unit)
        unit = (ux - U, uy - U, ux + U, uy + U)
        assert apart(boxes[-1][1], unit, 0), f"{p.abbr}: its unit stands on its name"
    for (a, one), (b, two) in combinations(boxes, 2):
        assert apart(one, two, 0), f"the names {a} and {b} overlap"


def test_every_location_has_a_spot_for_its_unit():
    to_px, _ = fit([(0.0, 0.0), (AREAS.width, AREAS.height)])
    at = spots(AREAS, to_px)
    for p in BOARD.provinces:
        for loc in BOARD.locations(p.abbr):
            assert loc in at or p.abbr in at, loc


@pytest.mark.parametrize("vision", sorted(VISIONS))
def test_every_two_powers_and_a_free_centre_are_told_apart(vision):
    colours = {**COLOURS, "nobody": "#ffffff"}
    for (a, one), (b, two) in combinations(colours.items(), 2):
        d = difference(one, two, vision)
        assert d > LEAST_DIFFERENCE, f"{a} and {b} are {d:.1f} apart in {vision}"


def test_colour_difference_matches_the_published_pairs():
    """CIEDE2000 on pairs of Sharma, Wu and Dalal's table (2005)."""
    pairs = [((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
             ((50, 0, 0), (50, -1, 2), 2.3669),
             ((50, 2.5, 0), (73, 25, -18), 27.1492),
             ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
             ((90.8027, -2.0831, 1.441), (91.1528, -1.6435, 0.0447), 1.4441),
             ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082)]  # fmt: skip
    for one, two, expected in pairs:
        assert ciede2000(one, two) == pytest.approx(expected, abs=1e-4)
    # the simulation keeps white white and greys grey, and loses red from green
    assert difference("#ffffff", "#ffffff", "deuteranopia") < 1e-6
    assert difference("#808080", "#808080", "protanopia") < 1e-6
    assert difference("#d62728", "#2ca02c", "normal") > 50
    assert difference("#d62728", "#2ca02c", "deuteranopia") < 25
