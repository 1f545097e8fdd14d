"""The Empire board as Diplomacy players know it: land and sea provinces
as areas with their coasts (from maps/<map>-areas.yaml), each named inside
it, the coasts of Spain, St Petersburg and Bulgaria named where a fleet on
each stands, supply centres as dots in their owner's colour (and their
province tinted with it), units as their power's square in their
province, the phase's orders as arrows, dislodged units beside their
province with arrows to where they may retreat, builds and removals, and a
legend. A map without areas is drawn as its diagram (picture.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from math import atan2, hypot, pi, tau
from typing import Any

from adjudicator.base import OrderResult, View
from adjudicator.drawing import (
    INK,
    Circle,
    LegendEntry,
    Line,
    Point,
    Scene,
    Shape,
    Text,
    fit,
    left_out_entries,
    player_entries,
    shorten,
)
from adjudicator.empire.areas import NAME_SIZE, Areas, shipped_areas, spots
from adjudicator.empire.picture import (
    DISLODGED,
    RETREAT_DASH,
    Place,
    U,
    _dislodged,
    _order,
    _unit,
    empire_picture,
    order_entries,
)

SEA, SEA_EDGE = "#bcd7ee", "#6f98bf"
LAND, LAND_EDGE = "#f4efdf", "#8c7f5c"
IMPASSABLE = "#d9d4c7"
FREE = "#ffffff"  # a supply centre nobody owns
COAST_SIZE = 11
DOT = 4.5
TINT = 0.3  # how much of its owner's colour an owned centre's province takes


def board_picture(view: View, results: Sequence[OrderResult]) -> Scene:
    board: Mapping[str, Any] = view.board
    areas = shipped_areas(board["name"])
    if areas is None:
        return empire_picture(view, results)
    colours = dict(board["colours"])
    power_of: Mapping[str, str] = board["powers"]
    to_px, height = fit([(0.0, 0.0), (areas.width, areas.height)])
    scene = Scene(f"{board['title']}, {view.phase}", height)
    provinces = {p["abbr"]: p for p in board["provinces"]}
    _ground(scene, areas, provinces, colours, to_px)
    at = spots(areas, to_px)
    names = [_name_box(to_px(*a.name), abbr.upper(), NAME_SIZE)
             for abbr, a in areas.areas.items() if a.name]  # fmt: skip
    place = BoardPlace(at, {}, {}, end=U + 3, cross=U + 2, names=names)
    for abbr, p in provinces.items():
        if p["unit"]:
            place.units[abbr] = place.of(p["unit"][2])
    dislodged = _dislodged(board, results)
    taken = [*place.units.values(), *(to_px(*a.name) for a in areas.areas.values() if a.name)]
    for prov, d in dislodged.items():
        place.dislodged[prov] = _beside(place.of(d.loc), place.of(d.by) if d.by else None, taken)
        taken.append(place.dislodged[prov])
    for res in results:  # under the units, so every A and F stays readable
        _order(scene, res, place, lambda player: colours.get(power_of.get(player, player), INK))
    for prov, d in dislodged.items():
        for option in d.options:
            a, b = shorten(place.dislodged[prov], place.of(option), U + 2, U + 3)
            scene.add(Line((a, b), DISLODGED, "retreat-option", 1.6, RETREAT_DASH, "open",
                           "order"))  # fmt: skip
    for abbr, p in provinces.items():
        if p["unit"]:
            power, kind, loc = p["unit"]
            scene.add(*_unit(place.units[abbr], kind, colours.get(power, "#999999"), "",
                             f"{kind} {loc.upper()} ({power})"))  # fmt: skip
    for prov, d in dislodged.items():
        scene.add(*_unit(place.dislodged[prov], d.kind, colours.get(d.power, "#999999"),
                         "dislodged", f"{d.kind} {d.loc.upper()} ({d.power}), dislodged: "
                         + (", ".join(o.upper() for o in d.options) or "disbands")))  # fmt: skip
    scene.add(*place.above)
    scene.legend = _legend(board, colours, scene)
    return scene


@dataclass
class BoardPlace(Place):
    names: list[tuple[float, float, float, float]] = field(default_factory=list)

    def corner(self, x: float, y: float) -> Point:
        """The first corner of the unit's square whose mark covers no name."""
        for dx, dy in ((1, -1), (1, 1), (-1, -1), (-1, 1)):
            cx, cy = x + dx * (U + 3), y + dy * (U + 3)
            if not any(b[0] - 6 < cx < b[2] + 6 and b[1] - 6 < cy < b[3] + 6 for b in self.names):
                return cx, cy
        return x + U + 3, y - U - 3


def _name_box(xy: Point, text: str, size: float) -> tuple[float, float, float, float]:
    """About the box a name is drawn in (the host measures it exactly)."""
    w, h = len(text) * size * 0.72 + 4, size + 3
    return xy[0] - w / 2, xy[1] - h / 2, xy[0] + w / 2, xy[1] + h / 2


def _ground(scene: Scene, areas: Areas, provinces: Mapping[str, Mapping[str, Any]],
            colours: Mapping[str, str], to_px) -> None:  # noqa: ANN001  # fmt: skip
    """The areas, then their names, coasts and supply centres."""
    for abbr, area in areas.areas.items():
        pts = tuple(to_px(x, y) for x, y in area.outline)
        p = provinces.get(abbr)
        if area.impassable or p is None:
            scene.add(Shape(pts, IMPASSABLE, "impassable", LAND_EDGE, 0.8))
            continue
        sea = p["kind"] == "sea"
        owner = p["owner"] if p["supply"] else None
        fill = SEA if sea else _tint(colours.get(owner, LAND), TINT) if owner else LAND
        scene.add(Shape(pts, fill, "sea" if sea else "land", SEA_EDGE if sea else LAND_EDGE,
                        0.9, title=p["name"]))  # fmt: skip
    for abbr, area in areas.areas.items():
        p = provinces.get(abbr)
        if p is None or area.name is None:
            continue
        x, y = to_px(*area.name)
        scene.add(Text(x, y, abbr.upper(), NAME_SIZE, "name", "#1f3f66" if p["kind"] == "sea"
                       else INK, None))  # fmt: skip
        for coast, c in sorted(area.coasts.items()):
            cx, cy = to_px(*c.name)
            scene.add(Text(cx, cy, coast, COAST_SIZE, "coast", "#1f3f66", "#ffffff"))
        if p["supply"] and area.dot:
            owner = p["owner"]
            title = p["name"] + (f", supply centre of {owner}" if owner else ", supply centre")
            dx, dy = to_px(*area.dot)
            fill = colours.get(owner, FREE) if owner else FREE
            kind = "centre" if owner else "free-centre"
            scene.add(Circle(dx, dy, DOT, fill, kind, INK, 1.4, title=title))


def _tint(colour: str, amount: float) -> str:
    """``colour`` mixed into the land's, ``amount`` of it."""
    mix = [round(int(LAND[i : i + 2], 16) * (1 - amount) + int(colour[i : i + 2], 16) * amount)
           for i in (1, 3, 5)]  # fmt: skip
    return "#" + "".join(f"{v:02x}" for v in mix)


def _beside(xy: Point, attacker: Point | None, taken: Sequence[Point]) -> Point:
    """Where a dislodged unit is drawn: beside its province's unit, not on
    the side its attacker came from, where the most room is."""
    x, y = xy
    came = atan2(attacker[1] - y, attacker[0] - x) if attacker else None
    best, room = (x + 2.2 * U, y + 2.2 * U), -1.0
    d = 2.4 * U
    for dx, dy in ((1, 1), (-1, 1), (1, -1), (-1, -1), (1.4, 0), (-1.4, 0), (0, 1.4), (0, -1.4)):
        if came is not None and abs((atan2(dy, dx) - came + pi) % tau - pi) < 1.1:
            continue
        spot = (x + dx * d, y + dy * d)
        near = min((hypot(spot[0] - a, spot[1] - b) for a, b in taken if (a, b) != xy),
                   default=1e9)  # fmt: skip
        if near > room:
            best, room = spot, near
    return best


def _legend(board: Mapping[str, Any], colours: Mapping[str, str], scene: Scene,
            ) -> list[tuple[str, list[LegendEntry]]]:  # fmt: skip
    player = {power: name for name, power in board["powers"].items()}
    powers = player_entries(colours, lambda p: f"{p} ({player.get(p, 'neutral')})")
    square = ((4, 1), (26, 1), (26, 15), (4, 15))
    e = LegendEntry
    marks = [
        e("land", (Shape(square, LAND, "land", LAND_EDGE),), frozenset()),
        e("sea", (Shape(square, SEA, "sea", SEA_EDGE),), frozenset()),
        e("supply centre, in its owner's colour",
          (Shape(square, _tint("#888888", TINT), "land", LAND_EDGE),
           Circle(15, 8, DOT, "#888888", "centre", INK, 1.4)), frozenset({"centre"})),
        e("supply centre nobody owns", (Shape(square, LAND, "land", LAND_EDGE),
                                        Circle(15, 8, DOT, FREE, "free-centre", INK, 1.4)),
          frozenset({"free-centre"})),
        e("army", _unit((15, 8), "A", "#999999", "", ""), frozenset({"army"})),
        e("fleet", _unit((15, 8), "F", "#999999", "", ""), frozenset({"fleet"})),
        e("nc, sc, ec: the coasts of SPA, STP and BUL", (), frozenset()),
    ]  # fmt: skip
    kinds = scene.kinds()
    marks = [m for m in marks if not m.kinds or m.kinds & kinds]
    marks += left_out_entries("names left out for room")
    groups = [("Powers", powers), ("Map", marks)]
    shown = order_entries(scene)
    if shown:
        groups.append(("Orders", shown))
    return groups


__all__ = ["board_picture"]
