"""The map picture of a turn report, as SVG and as PNG.

A game's view is turned into a :class:`Picture` (nodes at the map file's
coordinates, the connections, this turn's arrows), which is then drawn
twice: as SVG text for the HTML part, and as a PNG (with Pillow, a wheel
from PyPI) attached inline for mail clients that do not show SVG. Each game
has a function here that makes its picture from its view; nothing else
about drawing is game-specific.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from math import atan2, cos, hypot, sin
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from adjudicator.base import OrderResult, View

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
INK = "#333333"
EDGE = "#c8c8c8"
SIZE = 640  # the picture's width and height in pixels
MARGIN = 28


def ink_on(fill: str) -> str:
    """Dark text on a light fill, white on a dark one."""
    if not (fill.startswith("#") and len(fill) == 7):
        return INK
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def colour(name: str | None) -> str:
    if name is None:
        return NEUTRAL
    return COLOURS.get(name, name if name.startswith("#") else "#999999")


@dataclass(frozen=True)
class Node:
    name: str
    x: float
    y: float
    fill: str
    label: str
    mark: str | None = None  # a unit's colour, drawn as a square on the node
    home: bool = False  # drawn with a double ring
    text: str = ""  # written inside the node (a unit count)
    bold: bool = False  # a thick outline (spawn nodes)


@dataclass(frozen=True)
class Arrow:
    start: tuple[float, float]
    end: tuple[float, float]
    colour: str
    succeeded: bool


@dataclass
class Picture:
    title: str
    nodes: list[Node]
    edges: list[tuple[tuple[float, float], tuple[float, float]]]
    arrows: list[Arrow] = field(default_factory=list)
    legend: list[tuple[str, str]] = field(default_factory=list)  # (text, colour)
    node_radius: float | None = None  # pixels; by default from the number of nodes

    def scale(self) -> Callable[[float, float], tuple[float, float]]:
        """Map coordinates to pixels, keeping the aspect ratio."""
        xs = [n.x for n in self.nodes] or [0.0]
        ys = [n.y for n in self.nodes] or [0.0]
        span = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
        k = (SIZE - 2 * MARGIN) / span
        x0, y0 = min(xs), min(ys)
        return lambda x, y: (MARGIN + (x - x0) * k, MARGIN + (y - y0) * k)

    def legend_slots(self) -> list[tuple[float, float]]:
        """Where each legend entry goes: one column, three for many players."""
        columns = 1 if len(self.legend) <= 8 else 3
        return [
            (MARGIN + (i % columns) * (SIZE - MARGIN) / columns, SIZE + 18 * (i // columns) + 4)
            for i in range(len(self.legend))
        ]

    @property
    def height(self) -> int:
        slots = self.legend_slots()
        return SIZE + (int(slots[-1][1]) + 18 - SIZE if slots else 0)

    def radius(self) -> float:
        if self.node_radius is not None:
            return self.node_radius
        return max(2.0, min(11.0, 180.0 / max(len(self.nodes), 1) ** 0.5))


def to_svg(picture: Picture) -> str:
    at = picture.scale()
    r = picture.radius()
    height = picture.height
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{height}" '
        f'viewBox="0 0 {SIZE} {height}" role="img" aria-label="{escape(picture.title)}">',
        f'<rect width="{SIZE}" height="{height}" fill="#ffffff"/>',
        "<defs>"
        '<marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
        'markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/>'
        "</marker></defs>",
    ]
    for a, b in picture.edges:
        (x1, y1), (x2, y2) = at(*a), at(*b)
        out.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{EDGE}"/>'
        )
    for n in picture.nodes:
        x, y = at(n.x, n.y)
        width = ' stroke-width="2.5"' if n.bold else ""
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{n.fill}" stroke="{INK}"{width}>'
            f"<title>{escape(n.label)}</title></circle>"
        )
        if n.text:
            out.append(
                f'<text x="{x:.1f}" y="{y + 3.5:.1f}" font-size="9" text-anchor="middle" '
                f'font-family="sans-serif" fill="{ink_on(n.fill)}">{escape(n.text)}</text>'
            )
        if n.home:
            out.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r + 3:.1f}" fill="none" stroke="{INK}"/>'
            )
        if n.mark:
            s = r * 0.55
            out.append(
                f'<rect x="{x - s:.1f}" y="{y - s:.1f}" width="{2 * s:.1f}" height="{2 * s:.1f}" '
                f'fill="{n.mark}" stroke="#000000"/>'
            )
        if len(picture.nodes) <= 200:
            out.append(
                f'<text x="{x:.1f}" y="{y + r + 11:.1f}" font-size="10" text-anchor="middle" '
                f'font-family="sans-serif" fill="{INK}">{escape(n.name)}</text>'
            )
    for a in picture.arrows:
        (x1, y1), (x2, y2) = _shorten(at(*a.start), at(*a.end), r + 2)
        dash = "" if a.succeeded else ' stroke-dasharray="5,3"'
        out.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{a.colour}" '
            f'stroke-width="2.5" marker-end="url(#head)"{dash}/>'
        )
    for (text, fill), (x, y) in zip(picture.legend, picture.legend_slots(), strict=True):
        out.append(f'<rect x="{x:.0f}" y="{y:.0f}" width="12" height="12" fill="{fill}"/>')
        out.append(
            f'<text x="{x + 18:.0f}" y="{y + 10:.0f}" font-size="12" font-family="sans-serif" '
            f'fill="{INK}">{escape(text)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def to_png(picture: Picture) -> bytes:
    at = picture.scale()
    r = picture.radius()
    height = picture.height
    image = Image.new("RGB", (SIZE, height), "#ffffff")
    draw = ImageDraw.Draw(image)
    font = _font()
    for a, b in picture.edges:
        draw.line([at(*a), at(*b)], fill=EDGE, width=1)
    for n in picture.nodes:
        x, y = at(n.x, n.y)
        draw.ellipse(
            [x - r, y - r, x + r, y + r], fill=n.fill, outline=INK, width=3 if n.bold else 1
        )
        if n.text:
            draw.text((x, y), n.text, fill=ink_on(n.fill), font=font, anchor="mm")
        if n.home:
            draw.ellipse([x - r - 3, y - r - 3, x + r + 3, y + r + 3], outline=INK)
        if n.mark:
            s = r * 0.55
            draw.rectangle([x - s, y - s, x + s, y + s], fill=n.mark, outline="#000000")
        if len(picture.nodes) <= 200:
            draw.text((x, y + r + 6), n.name, fill=INK, font=font, anchor="mt")
    for a in picture.arrows:
        start, end = _shorten(at(*a.start), at(*a.end), r + 2)
        if a.succeeded:
            draw.line([start, end], fill=a.colour, width=3)
        else:
            _dashed(draw, start, end, a.colour)
        angle = atan2(end[1] - start[1], end[0] - start[0])
        head = [
            end,
            (end[0] - 9 * cos(angle - 0.45), end[1] - 9 * sin(angle - 0.45)),
            (end[0] - 9 * cos(angle + 0.45), end[1] - 9 * sin(angle + 0.45)),
        ]
        draw.polygon(head, fill=a.colour)
    for (text, fill), (x, y) in zip(picture.legend, picture.legend_slots(), strict=True):
        draw.rectangle([x, y, x + 12, y + 12], fill=fill)
        draw.text((x + 18, y + 1), text, fill=INK, font=font)
    buffer = io.BytesIO()
    # a few dozen colours are drawn: a palette image is a third of the size
    image.quantize(64, method=Image.Quantize.FASTOCTREE).save(buffer, "PNG", compress_level=6)
    return buffer.getvalue()


_FONT: Any = None


def _font() -> Any:
    global _FONT
    if _FONT is None:
        _FONT = ImageFont.load_default()
    return _FONT


def _shorten(
    a: tuple[float, float], b: tuple[float, float], by: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The segment a-b with ``by`` pixels cut off each end (so arrows end
    at a node's rim, not its centre)."""
    length = hypot(b[0] - a[0], b[1] - a[1])
    if length <= 2 * by:
        return a, b
    dx, dy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    return (a[0] + dx * by, a[1] + dy * by), (b[0] - dx * by, b[1] - dy * by)


def _dashed(draw: Any, a: tuple[float, float], b: tuple[float, float], fill: str) -> None:
    length = hypot(b[0] - a[0], b[1] - a[1])
    steps = max(1, int(length // 8))
    for i in range(0, steps, 2):
        t0, t1 = i / steps, min(1.0, (i + 1) / steps)
        draw.line(
            [
                (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0),
                (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1),
            ],
            fill=fill,
            width=3,
        )


# -- the games' pictures ------------------------------------------------------------


def officewars_picture(view: View, results: Sequence[OrderResult]) -> Picture:
    """Systems coloured by owner, units as squares in their owner's
    colour, home worlds ringed, this tick's moves and attacks as arrows
    (dashed where they failed)."""
    board: Mapping[str, Any] = view.board
    colours = board["colours"]
    where = {s["name"]: (s["x"], s["y"]) for s in board["systems"]}
    nodes = [
        Node(
            s["name"],
            s["x"],
            s["y"],
            colour(colours.get(s["owner"])) if s["owner"] else NEUTRAL,
            s["name"]
            + (f", {s['owner']}" if s["owner"] else ", neutral")
            + (f", unit of {s['unit']}" if s["unit"] else ""),
            colour(colours.get(s["unit"])) if s["unit"] else None,
            s["home_of"] is not None,
        )
        for s in board["systems"]
    ]
    edges = [(where[a], where[b]) for a, b in board["connections"]]
    arrows = []
    for r in results:
        d = r.order.to_dict()
        to = d.get("to") or (d.get("target") if d.get("kind") == "attack" else None)
        if to is None or d.get("system") not in where or to not in where:
            continue
        arrows.append(
            Arrow(where[d["system"]], where[to], colour(colours.get(r.order.player)), r.succeeded)
        )
    legend = [(f"{p} ({c})", colour(c)) for p, c in colours.items()]
    return Picture(f"{board['title']}, {view.phase}", nodes, edges, arrows, legend)


def implosion_picture(view: View, results: Sequence[OrderResult]) -> Picture:
    """Nodes coloured by occupant with the unit count inside, starting
    nodes and the centre ringed, spawn nodes with a thick outline, this
    turn's moves as arrows (dashed where the attack was repelled)."""
    board: Mapping[str, Any] = view.board
    colours = board["colours"]
    where = {n["name"]: (n["x"], n["y"]) for n in board["nodes"]}
    nodes = [
        Node(
            n["name"],
            n["x"],
            n["y"],
            colour(colours.get(n["occupant"])) if n["occupant"] else NEUTRAL,
            f"{n['name']} (capacity {n['capacity']}, {n['kind']})"
            + (f": {n['count']} of {n['occupant']}" if n["occupant"] else ""),
            home=n["kind"] in ("start", "centre"),
            text=str(n["count"]) if n["count"] else "",
            bold=n["kind"] == "spawn",
        )
        for n in board["nodes"]
    ]
    edges = [(where[a], where[b]) for a, b in board["connections"]]
    arrows = [
        Arrow(
            where[r.order.to_dict()["from"]],
            where[r.order.to_dict()["to"]],
            colour(colours.get(r.order.player)),
            r.succeeded,
        )
        for r in results
        if r.reason not in ("nothing_to_move", "no_room")
    ]
    legend = [(p, colour(c)) for p, c in colours.items()]
    return Picture(board["title"] + f", {view.phase}", nodes, edges, arrows, legend, 8.0)


def territory_picture(view: View, results: Sequence[OrderResult]) -> Picture:
    """States coloured by owner with their troops at the centre, this
    tick's armies as arrows (dashed where they did not get through)."""
    board: Mapping[str, Any] = view.board
    colours = board["colours"]
    where = {s["name"]: (s["x"], s["y"]) for s in board["states"]}
    nodes = [
        Node(
            s["name"],
            s["x"],
            s["y"],
            colour(colours.get(s["owner"])) if s["owner"] else NEUTRAL,
            f"{s['name']}: {s['troops']} troops, "
            + (s["owner"] or f"neutral (back up to {s['start']})")
            + f", +{s['production']} a tick",
            text=str(s["troops"]),
        )
        for s in board["states"]
    ]
    arrows = [
        Arrow(
            where[r.order.to_dict()["from"]],
            where[r.order.to_dict()["to"]],
            colour(colours.get(r.order.player)),
            r.reason in ("transferred", "conquered", "met_won"),
        )
        for r in results
        if r.order.to_dict().get("kind") == "send" and r.reason not in ("too_few", "not_yours")
    ]
    legend = [(f"{p} ({c})", colour(c)) for p, c in colours.items()]
    return Picture(f"{board['title']}, {view.phase}", nodes, [], arrows, legend, 13.0)


def empire_picture(view: View, results: Sequence[OrderResult]) -> Picture:
    """Provinces at their centres: supply centres in their owner's colour
    (ringed), seas blue, units as their power's square with A or F, this
    phase's moves as arrows (dashed where they failed)."""
    board: Mapping[str, Any] = view.board
    colours = board["colours"]
    where = {p["abbr"]: (p["x"], p["y"]) for p in board["provinces"]}
    nodes = []
    for p in board["provinces"]:
        unit = p["unit"]
        if p["kind"] == "sea":
            fill = "#d6e6f5"
        elif p["supply"] and p["owner"]:
            fill = colour(colours.get(p["owner"]))
        else:
            fill = "#f3efe0"
        nodes.append(
            Node(
                p["abbr"].upper(),
                p["x"],
                p["y"],
                fill,
                p["name"]
                + (f", centre of {p['owner']}" if p["owner"] else "")
                + (f", {unit[1]} of {unit[0]}" if unit else ""),
                colour(colours.get(unit[0])) if unit else None,
                home=p["supply"],
                text=unit[1] if unit else "",
            )
        )
    edges = [(where[a], where[b]) for a, b in board["links"]]
    arrows = []
    for r in results:
        d = r.order.to_dict()
        if d.get("kind") not in ("move", "retreat") or not d.get("to"):
            continue
        origin, target = d["unit"].split()[-1].lower().split("/")[0], d["to"].split("/")[0]
        if origin in where and target in where:
            power = board["powers"].get(r.order.player, r.order.player)
            arrows.append(
                Arrow(where[origin], where[target], colour(colours.get(power)), r.succeeded)
            )
    legend = [(f"{power} ({player})", colour(colours.get(power)))
              for player, power in board["powers"].items()]  # fmt: skip
    return Picture(f"{board['title']}, {view.phase}", nodes, edges, arrows, legend, 9.0)


PICTURES: dict[str, Callable[[View, Sequence[OrderResult]], Picture]] = {
    "officewars": officewars_picture,
    "implosion": implosion_picture,
    "territory": territory_picture,
    "empire": empire_picture,
}


def picture(kind: str, view: View, results: Sequence[OrderResult]) -> Picture:
    return PICTURES[kind](view, results)
