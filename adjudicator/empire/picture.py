"""The Empire picture: provinces at their centres (land, sea), supply
centres ringed and filled with their owner's colour, units as their
power's square with A or F on it, the orders of the phase just played as
arrows (moves, supports, convoys, retreats; dashed where they failed),
dislodged units where they stand with arrows to where they may retreat,
this Winter's builds and removals, and a legend of every mark drawn."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from math import atan2, pi, tau
from typing import Any

from adjudicator.base import OrderResult, View
from adjudicator.drawing import (
    DASH,
    INK,
    Box,
    Circle,
    LegendEntry,
    Line,
    Point,
    Scene,
    Text,
    Want,
    arrow,
    failed_entry,
    fit,
    ink_on,
    left_out_entries,
    player_entries,
    sample_line,
    shorten,
    used,
)
from adjudicator.empire.board import shipped_board

R = 13.0  # a province
U = 8.0  # half a unit's square
SEA, SEA_EDGE = "#d3e5f5", "#7ea6cc"
LAND, LAND_EDGE = "#f3eedf", "#a39672"
ARMY_LINK, FLEET_LINK = "#cdbf9c", "#a3c4e4"
DISLODGED = "#c0392b"
RETREAT_DASH = (2.0, 3.0)


@dataclass
class Place:
    """Where things are drawn: provinces, and the units on them."""

    at: dict[str, Point]
    units: dict[str, Point]  # province -> its unit's centre
    dislodged: dict[str, Point]  # province -> the dislodged unit's centre
    above: list = field(default_factory=list)  # marks drawn over the units
    end: float = R + 4  # how far short of a province's point an arrow ends
    cross: float = R * 0.8  # half a removed unit's cross

    def corner(self, x: float, y: float) -> Point:
        """Where a built unit's mark goes, beside its square at (x, y)."""
        return x + U + 3, y - U - 3

    def of(self, location: str) -> Point:
        """Where a location is drawn: its coast's own point if it has one."""
        location = location.lower()
        return self.at.get(location) or self.at[location.split("/")[0]]


def empire_picture(view: View, results: Sequence[OrderResult]) -> Scene:
    board: Mapping[str, Any] = view.board
    colours = dict(board["colours"])
    power_of: Mapping[str, str] = board["powers"]
    to_px, height = fit([(p["x"], p["y"]) for p in board["provinces"]], pad=12)
    at = {p["abbr"]: to_px(p["x"], p["y"]) for p in board["provinces"]}
    scene = Scene(f"{board['title']}, {view.phase}", height)
    _links(scene, board, at)
    for p in board["provinces"]:
        scene.add(*_province(p, at[p["abbr"]], colours))
    place = Place(at, {p["abbr"]: at[p["abbr"]] for p in board["provinces"] if p["unit"]}, {})
    dislodged = _dislodged(board, results)
    for prov, d in dislodged.items():
        place.dislodged[prov] = _aside(at, prov, d.by)
    for res in results:  # the orders under the units, so every A and F stays readable
        _order(scene, res, place, lambda player: colours.get(power_of.get(player, player), INK))
    for prov, d in dislodged.items():
        for option in d.options:
            a, b = shorten(place.dislodged[prov], at[option.split("/")[0]], U + 2, R + 3)
            scene.add(Line((a, b), DISLODGED, "retreat-option", 1.6, RETREAT_DASH, "open",
                           "order"))  # fmt: skip
    for p in board["provinces"]:
        if p["unit"]:
            power, kind, loc = p["unit"]
            scene.add(*_unit(at[p["abbr"]], kind, colours.get(power, "#999999"), "",
                             f"{kind} {loc.upper()} ({power})"))  # fmt: skip
    for prov, d in dislodged.items():
        scene.add(*_unit(place.dislodged[prov], d.kind, colours.get(d.power, "#999999"),
                         "dislodged", f"{d.kind} {d.loc.upper()} ({d.power}), dislodged: "
                         + (", ".join(o.upper() for o in d.options) or "disbands")))  # fmt: skip
    scene.add(*place.above)
    wants = [Want(*at[p["abbr"]], R + (3 if p["supply"] else 0), _name(p), 11)
             for p in board["provinces"]]  # fmt: skip
    scene.names.extend(wants)
    scene.legend = _legend(scene, board, colours)
    return scene


def _aside(at: Mapping[str, Point], prov: str, by: str | None) -> Point:
    """Where a dislodged unit is drawn: beside its province's own unit,
    not on the side its attacker came from, on the side with the most room
    (away from the other provinces)."""
    x, y = at[prov]
    others = [xy for name, xy in at.items() if name != prov]
    came = atan2(at[by][1] - y, at[by][0] - x) if by in at else None
    best, room = (x + 19, y + 19), -1.0
    for dx, dy in ((1, 1), (-1, 1), (1, -1), (-1, -1), (1.4, 0), (-1.4, 0), (0, 1.4), (0, -1.4)):
        if came is not None and abs((atan2(dy, dx) - came + pi) % tau - pi) < 1.1:
            continue
        spot = (x + dx * 19, y + dy * 19)
        near = min((spot[0] - a) ** 2 + (spot[1] - b) ** 2 for a, b in others) if others else 1e9
        if near > room:
            best, room = spot, near
    return best


def _name(p: Mapping[str, Any]) -> str:
    unit = p["unit"]
    coast = unit[2].split("/")[1] if unit and "/" in unit[2] else ""
    return p["abbr"].upper() + (f" ({coast})" if coast else "")


def _links(scene: Scene, board: Mapping[str, Any], at: Mapping[str, Point]) -> None:
    army = {frozenset(pair) for pair in board["links"]}
    fleet = {frozenset(p.split("/")[0] for p in pair) for pair in _fleet_links(board)}
    for pair in sorted(army | fleet, key=sorted):
        a, b = sorted(pair)
        if pair in army and pair in fleet:  # a coast: both kinds, side by side
            (x1, y1), (x2, y2) = at[a], at[b]
            length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1e-9)
            nx, ny = -(y2 - y1) / length * 1.3, (x2 - x1) / length * 1.3
            scene.add(Line(((x1 + nx, y1 + ny), (x2 + nx, y2 + ny)), ARMY_LINK, "both-link",
                           1.3),
                      Line(((x1 - nx, y1 - ny), (x2 - nx, y2 - ny)), FLEET_LINK, "both-link",
                           1.3))  # fmt: skip
        else:
            kind = "army-link" if pair in army else "fleet-link"
            scene.add(Line((at[a], at[b]), ARMY_LINK if pair in army else FLEET_LINK, kind, 1.3))


def _fleet_links(board: Mapping[str, Any]) -> Sequence[Sequence[str]]:
    if "fleet_links" in board:
        return board["fleet_links"]
    return shipped_board(board["name"]).fleet_links


def _province(p: Mapping[str, Any], xy: Point, colours: Mapping[str, str]) -> list:
    x, y = xy
    sea = p["kind"] == "sea"
    owner = p["owner"] if p["supply"] else None
    fill = SEA if sea else colours.get(owner, LAND) if owner else LAND
    title = p["name"] + (f", supply centre of {owner}" if owner else "")
    out: list = []
    if p["supply"]:
        kind = "centre" if owner else "free-centre"
        out.append(Circle(x, y, R + 3, "#ffffff", kind, INK, 1.6, title=title))
    kind = "sea" if sea else ("centre" if owner else "free-centre" if p["supply"] else "land")
    out.append(Circle(x, y, R, fill, kind, SEA_EDGE if sea else LAND_EDGE, 1.0, title=title))
    return out


def _unit(xy: Point, kind: str, fill: str, how: str, title: str) -> list:
    x, y = xy
    what = "army" if kind == "A" else "fleet"
    stroke, width = (DISLODGED, 2.4) if how else ("#000000", 1.0)
    return [
        Box(x - U, y - U, 2 * U, 2 * U, fill, how or what, stroke, width, title=title),
        Text(x, y, kind, 11, what, ink_on(fill), None, "glyph"),
    ]


@dataclass(frozen=True)
class Dislodged:
    power: str
    kind: str
    loc: str
    options: tuple[str, ...]
    by: str | None  # the province its attacker came from


def _dislodged(board: Mapping[str, Any], results: Sequence[OrderResult],
               ) -> dict[str, Dislodged]:  # fmt: skip
    """Each unit dislodged, by province: from the results of the movement
    just played (the retreat options are in their facts), or from the view
    of a retreat phase (its "retreats": power, unit, from, options)."""
    found: dict[str, Dislodged] = {}
    for res in results:
        if "retreats" not in res.facts:
            continue
        kind, loc = res.order.to_dict()["unit"].split()
        power = board["powers"].get(res.order.player, res.order.player)
        found[loc.lower().split("/")[0]] = Dislodged(power, kind, loc.lower(),
                                                     tuple(res.facts["retreats"]),
                                                     res.facts.get("by"))  # fmt: skip
    for prov, d in (board.get("retreats") or {}).items():  # a retreat phase's own view
        if prov not in found:
            kind, loc = d["unit"].split()
            found[prov] = Dislodged(d["power"], kind, loc.lower(), tuple(d["options"]),
                                    d.get("from"))  # fmt: skip
    return found


def _order(scene: Scene, res: OrderResult, place: Place, colour_of: Callable[[str], str]) -> None:
    d = res.order.to_dict()
    kind = d.get("kind")
    fill = colour_of(res.order.player)
    ok = res.succeeded
    if kind in ("move", "retreat"):
        origin = d["unit"].split()[-1]
        if d.get("to") is None:
            _cross(scene, place.of(origin), "disbanded", place.cross)
            return
        scene.add(arrow(place.of(origin), place.of(d["to"]), fill, ok, kind, (U + 1, place.end),
                        3.0))  # fmt: skip
    elif kind == "support":
        _support(scene, d, place, fill, ok)
    elif kind == "convoy":
        army, dest = place.of(d["army"]), place.of(d["dest"])
        mid = ((army[0] + dest[0]) / 2, (army[1] + dest[1]) / 2)
        start = place.of(d["unit"].split()[-1])
        scene.add(arrow(start, mid, fill, ok, "convoy", (U + 1, 5), 1.6, "open"))
    elif kind == "build" and res.reason == "built":
        place.above.extend(_plus(*place.corner(*place.of(d["unit"].split()[-1]))))
    elif kind == "remove" and res.reason == "removed":
        _cross(scene, place.of(d["unit"].split()[-1]), "removed", place.cross)


def _support(scene: Scene, d: Mapping[str, Any], place: Place, fill: str, ok: bool) -> None:
    """A thin line ending in a dot: to the middle of the supported move,
    or to the unit supported to hold."""
    start = place.of(d["unit"].split()[-1])
    target = place.of(d["target"])
    if d.get("dest"):
        dest = place.of(d["dest"])
        end, clear = (0.55 * target[0] + 0.45 * dest[0], 0.55 * target[1] + 0.45 * dest[1]), 3.0
    else:
        end, clear = target, place.end - 1
    scene.add(arrow(start, end, fill, ok, "support", (U + 1, clear), 1.6, "dot"))


def _plus(x: float, y: float) -> tuple:
    """The mark of a unit built this Winter, at its square's corner."""
    return (Circle(x, y, 5.5, "#ffffff", "built", INK, 1.2),
            Line(((x - 3, y), (x + 3, y)), INK, "built", 1.5, role="glyph"),
            Line(((x, y - 3), (x, y + 3)), INK, "built", 1.5, role="glyph"))  # fmt: skip


def _cross(scene: Scene, xy: Point, kind: str, s: float = R * 0.8) -> None:
    x, y = xy
    scene.add(
        Line(((x - s, y - s), (x + s, y + s)), DISLODGED, kind, 3.0, role="order"),
        Line(((x - s, y + s), (x + s, y - s)), DISLODGED, kind, 3.0, role="order"),
    )


def _legend(scene: Scene, board: Mapping[str, Any], colours: Mapping[str, str],
            ) -> list[tuple[str, list[LegendEntry]]]:  # fmt: skip
    player = {power: name for name, power in board["powers"].items()}
    powers = player_entries(  # a gunboat game's players are named by their powers
        colours, lambda p: p if player.get(p) == p else f"{p} ({player.get(p, 'neutral')})"
    )
    e = LegendEntry
    marks = [
        e("land", (Circle(14, 8, 7.5, LAND, "land", LAND_EDGE),), frozenset({"land"})),
        e("sea", (Circle(14, 8, 7.5, SEA, "sea", SEA_EDGE),), frozenset({"sea"})),
        e("supply centre, its owner's colour",
          (Circle(14, 8, 9, "#ffffff", "centre", INK, 1.6), Circle(14, 8, 6.5, "#888888", "centre",
                                                                   LAND_EDGE)),
          frozenset({"centre"})),
        e("supply centre nobody owns",
          (Circle(14, 8, 9, "#ffffff", "free-centre", INK, 1.6),
           Circle(14, 8, 6.5, LAND, "free-centre", LAND_EDGE)), frozenset({"free-centre"})),
        e("army", _unit((14, 8), "A", "#999999", "", ""), frozenset({"army"})),
        e("fleet", _unit((14, 8), "F", "#999999", "", ""), frozenset({"fleet"})),
        e("army link", sample_line("army-link", ARMY_LINK, width=1.3, head=""),
          frozenset({"army-link"})),
        e("fleet link", sample_line("fleet-link", FLEET_LINK, width=1.3, head=""),
          frozenset({"fleet-link"})),
        e("army and fleet link", (Line(((1, 6.7), (29, 6.7)), ARMY_LINK, "both-link", 1.3),
                                  Line(((1, 9.3), (29, 9.3)), FLEET_LINK, "both-link", 1.3)),
          frozenset({"both-link"})),
    ]  # fmt: skip
    marks += left_out_entries("names left out for room")
    groups = [("Powers", powers), ("Map", used(marks, scene))]
    shown = order_entries(scene)
    if shown:
        groups.append(("Orders", shown))
    return groups


def order_entries(scene: Scene) -> list[LegendEntry]:
    """The legend's orders: those drawn, and the dashed line if one failed."""
    e = LegendEntry
    orders = [
        e("move", sample_line("move", width=3.0), frozenset({"move", "move-failed"})),
        e("support", sample_line("support", width=1.6, head="dot"),
          frozenset({"support", "support-failed"})),
        e("convoy", sample_line("convoy", width=1.6, head="open"),
          frozenset({"convoy", "convoy-failed"})),
        e("retreat", sample_line("retreat", width=3.0), frozenset({"retreat", "retreat-failed"})),
        e("dislodged unit", _unit((14, 8), "A", "#999999", "dislodged", ""),
          frozenset({"dislodged"})),
        e("where it may retreat", sample_line("retreat-option", DISLODGED, width=1.6,
                                              dash=RETREAT_DASH, head="open"),
          frozenset({"retreat-option"})),
        e("built this Winter", (*_unit((12, 9), "A", "#999999", "", ""), *_plus(23, 1)),
          frozenset({"built"})),
        e("removed", _cross_sample("removed"), frozenset({"removed"})),
        e("disbanded", _cross_sample("disbanded"), frozenset({"disbanded"})),
    ]  # fmt: skip
    return used(orders, scene) + failed_entry(scene, "dashed: failed")


def _cross_sample(kind: str) -> tuple:
    return (Line(((8, 2), (20, 14)), DISLODGED, kind, 2.5),
            Line(((8, 14), (20, 2)), DISLODGED, kind, 2.5))  # fmt: skip


__all__ = ["DASH", "empire_picture"]
