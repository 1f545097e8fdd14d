"""The Implosion picture: the rings drawn as circles round the centre,
each node coloured by its occupant with the unit count inside, starting
nodes and the centre ringed, spawn nodes with a thick outline, this turn's
moves as arrows (dashed where the attack was repelled).

A link along a ring is an arc of that ring (a straight chord between two
nodes of a small ring would cut across the rings inside it); a link
between rings is straight, the shortest clear path, unless straight would
leave a node running along its ring's line (a few on small boards): then
it is a curve that leaves each end turned just far enough off the ring.
The generator joins each node to the inner node nearest its angle, so no
two links cross and none passes a node not its own.

Every node's name is wanted strict (see pbem/pictures/strict.py): placed
only clear of every line, and nearer its own node than any other. A big
board's picture is wider (``picture_width``): its rim's many nodes and the
crowded rings inside it keep room for the name of every occupied node and
for unit counts in 9 pixels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import atan2, cos, hypot, pi, sin, tau
from typing import Any

from adjudicator.base import OrderResult, View
from adjudicator.drawing import (
    DASH,
    INK,
    MARGIN,
    NEUTRAL,
    WIDTH,
    Circle,
    LegendEntry,
    Line,
    Point,
    Scene,
    Text,
    Want,
    colour,
    failed_entry,
    ink_on,
    left_out_entries,
    player_entries,
    pointer_entry,
    sample_line,
    sample_node,
    trim,
    used,
)

RINGS = 12
LINK = "#b0b0b0"
MOST_WIDTH = 1800  # pixels: the widest picture (a rim of 135 nodes, 67 players), still fit to mail
LEAVE = 0.26  # a link between rings leaves each node at least 15 degrees off its ring


class Polar:
    """Pixels of the board's rings: ring r at radius (r - 1) steps."""

    def __init__(self, nodes: Sequence[Mapping[str, Any]], width: float = WIDTH) -> None:
        self.centre = width / 2
        self.step = (width / 2 - MARGIN - 30) / (RINGS - 1)
        self.angle = {n["name"]: atan2(n["y"] - 50.0, n["x"] - 50.0) for n in nodes}
        self.ring = {n["name"]: n["ring"] for n in nodes}

    def at(self, radius: float, angle: float) -> Point:
        return (self.centre + radius * cos(angle), self.centre + radius * sin(angle))

    def node(self, name: str) -> Point:
        return self.at((self.ring[name] - 1) * self.step, self.angle[name])

    def link(self, a: str, b: str) -> tuple[Point, ...]:
        """The link a-b as a polyline from a to b: along the ring (an arc of
        it) between neighbours on a ring, else straight, or bowed outward
        just enough to leave the inner node away from its ring."""
        ra, rb = (self.ring[a] - 1) * self.step, (self.ring[b] - 1) * self.step
        ta, tb = self.angle[a], self.angle[b]
        if ra == rb:
            turn = (tb - ta + pi) % tau - pi  # the short way round
            steps = max(2, int(abs(turn) * ra / 6))
            return tuple(self.at(ra, ta + turn * i / steps) for i in range(steps + 1))
        if ra == 0 or rb == 0:
            return (self.node(a), self.node(b))
        inner, outer = (a, b) if ra < rb else (b, a)
        path = self.bowed(inner, outer)
        return path if inner == a else path[::-1]

    def bowed(self, inner: str, outer: str) -> tuple[Point, ...]:
        """From the inner node to the outer one: straight if that leaves the
        inner node clearly outward (at least ``LEAVE`` off its ring's line)
        and the outer one clearly inward; else a curve (cubic) that leaves
        each end turned just that far, and runs straight on between."""
        a, b = self.node(inner), self.node(outer)
        length = hypot(b[0] - a[0], b[1] - a[1])
        da = self._leaving(a, b, 1.0)
        db = self._leaving(b, a, -1.0)
        if da is None and db is None:
            return (a, b)
        da = da or ((b[0] - a[0]) / length, (b[1] - a[1]) / length)
        db = db or ((a[0] - b[0]) / length, (a[1] - b[1]) / length)
        p = (a[0] + da[0] * length / 3, a[1] + da[1] * length / 3)
        q = (b[0] + db[0] * length / 3, b[1] + db[1] * length / 3)
        return tuple(
            tuple((1 - t) ** 3 * a[i] + 3 * t * (1 - t) ** 2 * p[i] + 3 * t * t * (1 - t) * q[i]
                  + t**3 * b[i] for i in (0, 1))
            for t in (k / 12 for k in range(13))
        )  # type: ignore[return-value]  # fmt: skip

    def _leaving(self, at: Point, to: Point, out: float) -> Point | None:
        """The direction to leave ``at`` for ``to`` when the straight way
        runs too near along its ring (within ``LEAVE`` of the ring's line,
        or on the wrong side: inward for ``out`` 1, outward for -1): turned
        to just ``LEAVE`` off the ring's line; None if straight will do."""
        ux, uy = at[0] - self.centre, at[1] - self.centre
        radius = hypot(ux, uy)
        ux, uy = ux / radius, uy / radius  # outward
        dx, dy = to[0] - at[0], to[1] - at[1]
        length = hypot(dx, dy)
        if out * (ux * dx + uy * dy) / length >= LEAVE:
            return None
        tx, ty = -uy, ux  # along the ring, toward ``to``
        if tx * dx + ty * dy < 0:
            tx, ty = -tx, -ty
        along = (1 - LEAVE * LEAVE) ** 0.5
        return (tx * along + out * ux * LEAVE, ty * along + out * uy * LEAVE)


def picture_width(nodes: Sequence[Mapping[str, Any]]) -> float:
    """The picture's width (and the map's height): ``WIDTH`` up to a rim of
    ten nodes (five players), 8 pixels more for each rim node past that,
    so a big board's crowded outer rings keep room for the names of its
    occupied nodes; at most ``MOST_WIDTH``."""
    rim = sum(1 for n in nodes if n["ring"] == RINGS)
    return float(min(MOST_WIDTH, WIDTH + 8 * max(0, rim - 10)))


def node_radius(nodes: Sequence[Mapping[str, Any]], polar: Polar) -> float:
    """As big as the crowded rim allows, and small enough beside the ring's
    step to leave names room between the rings."""
    rim = sum(1 for n in nodes if n["ring"] == RINGS)
    room = tau * (RINGS - 1) * polar.step / max(rim, 1)
    return max(3.0, min(10.0, room * 0.3, polar.step * 0.26))


def implosion_picture(view: View, results: Sequence[OrderResult]) -> Scene:
    board: Mapping[str, Any] = view.board
    colours = {p: colour(c) for p, c in board["colours"].items()}
    width = picture_width(board["nodes"])
    polar = Polar(board["nodes"], width)
    r = node_radius(board["nodes"], polar)
    scene = Scene(f"{board['title']}, {view.phase}", width, width=width)
    for a, b in board["connections"]:
        scene.add(Line(polar.link(a, b), LINK, "link"))
    for res in results:
        if res.reason in ("nothing_to_move", "no_room"):
            continue
        d = res.order.to_dict()
        path = trim(polar.link(d["from"], d["to"]), r + 2, r + 3)
        scene.add(Line(path, colours.get(res.order.player, INK),
                       "move" if res.succeeded else "move-failed", 2.5,
                       () if res.succeeded else DASH, "arrow", "order"))  # fmt: skip
    for n in board["nodes"]:
        scene.add(*_node(n, polar.node(n["name"]), r, colours))
    scene.names.extend(_wants(board["nodes"], polar, r))
    marks = [
        LegendEntry("node: its occupant's colour and unit count (capacity: its ring number)",
                    sample_node(NEUTRAL, "node", text="3"), frozenset({"node"})),
        LegendEntry("starting node, and the centre C", sample_node(NEUTRAL, "start", ring=True),
                    frozenset({"start"})),
        LegendEntry("spawn node", sample_node(NEUTRAL, "spawn", width=2.5), frozenset({"spawn"})),
        LegendEntry("link", sample_line("link", LINK, width=1, head=""), frozenset({"link"})),
        LegendEntry("move", sample_line("move"), frozenset({"move"})),
    ]  # fmt: skip
    marks += pointer_entry()
    marks += left_out_entries("names of {} left out for room: see STATUS", "some nodes")
    scene.legend = [
        ("Players", player_entries(colours)),
        ("Map", used(marks, scene) + failed_entry(scene, "dashed: repelled")),
    ]
    return scene


def _wants(nodes: Sequence[Mapping[str, Any]], polar: Polar, r: float) -> list[Want]:
    """Every node's name, strictly placed (clear of every line, nearer its
    own node than any other), outward first (straight out to the side, or
    above or below); the nodes with units first,
    then the starting nodes, then the rest, each from the rim inward: where
    the rim is crowded, a name left out is an empty node's."""

    def rank(n: Mapping[str, Any]) -> tuple[bool, bool, int, str]:
        return (not n["occupant"], n["kind"] != "start", -n["ring"], n["name"])

    out = []
    for n in sorted(nodes, key=rank):
        outline = r + {"start": 3.5, "centre": 3.5, "spawn": 1.25}.get(n["kind"], 0.5)
        # outward, to the side or above or below: level with its node, a
        # name is not read as the next one's
        toward = round(polar.angle[n["name"]] / (pi / 2)) * pi / 2 if n["ring"] > 1 else pi / 2
        # an occupied node's name, with no room beside it, goes farther off
        # with a pointer: a player finds every unit's node
        out.append(Want(*polar.node(n["name"]), outline, n["name"], 10, True, toward,
                        bool(n["occupant"])))  # fmt: skip
    return out


def _node(n: Mapping[str, Any], xy: Point, r: float, colours: Mapping[str, str]) -> list:
    x, y = xy
    fill = colours.get(n["occupant"], NEUTRAL) if n["occupant"] else NEUTRAL
    title = (f"{n['name']} (capacity {n['capacity']}, {n['kind']})"
             + (f": {n['count']} of {n['occupant']}" if n["occupant"] else ""))  # fmt: skip
    kind = {"start": "start", "centre": "start", "spawn": "spawn"}.get(n["kind"], "node")
    out: list = []
    if kind == "start":
        out.append(Circle(x, y, r + 3, "#ffffff", "start", INK, 1.0, title=title))
    out.append(Circle(x, y, r, fill, "node" if kind == "start" else kind, INK,
                      2.5 if kind == "spawn" else 1.0, title=title))  # fmt: skip
    if n["count"]:
        out.append(Text(x, y, str(n["count"]), 9 if r >= 7 else 7, "node", ink_on(fill), None,
                        "glyph"))  # fmt: skip
    return out
