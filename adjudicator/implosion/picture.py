"""The Implosion picture: the rings drawn as circles round the centre,
each node coloured by its occupant with the unit count inside, starting
nodes and the centre ringed, spawn nodes with a thick outline, this turn's
moves as arrows (dashed where the attack was repelled).

The board's links are drawn in polar coordinates: a link along a ring is
an arc of that ring, a link between rings goes outward with radius and
angle changing together. The generator joins each node to the inner node
nearest its angle, so these never cross: the picture is untangled (a
straight chord between two nodes of a small ring would cut across the
rings inside it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import atan2, cos, pi, sin, tau
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
    sample_line,
    sample_node,
    trim,
    used,
)

RINGS = 12
LINK = "#b0b0b0"
LABELS_UP_TO = 160  # nodes; a bigger board is drawn without names


class Polar:
    """Pixels of the board's rings: ring r at radius (r - 1) steps."""

    def __init__(self, nodes: Sequence[Mapping[str, Any]]) -> None:
        self.centre = WIDTH / 2
        self.step = (WIDTH / 2 - MARGIN - 30) / (RINGS - 1)
        self.angle = {n["name"]: atan2(n["y"] - 50.0, n["x"] - 50.0) for n in nodes}
        self.ring = {n["name"]: n["ring"] for n in nodes}

    def at(self, radius: float, angle: float) -> Point:
        return (self.centre + radius * cos(angle), self.centre + radius * sin(angle))

    def node(self, name: str) -> Point:
        return self.at((self.ring[name] - 1) * self.step, self.angle[name])

    def link(self, a: str, b: str) -> tuple[Point, ...]:
        """The link a-b as a polyline: an arc, or an outward curve."""
        ra, rb = (self.ring[a] - 1) * self.step, (self.ring[b] - 1) * self.step
        ta, tb = self.angle[a], self.angle[b]
        if ra == 0 or rb == 0:
            return (self.node(a), self.node(b))
        turn = (tb - ta + pi) % tau - pi  # the short way round
        steps = max(2, int(abs(turn) * max(ra, rb) / 6))
        return tuple(
            self.at(ra + (rb - ra) * i / steps, ta + turn * i / steps) for i in range(steps + 1)
        )


def node_radius(nodes: Sequence[Mapping[str, Any]], polar: Polar) -> float:
    """As big as the crowded rim allows."""
    rim = sum(1 for n in nodes if n["ring"] == RINGS)
    room = tau * (RINGS - 1) * polar.step / max(rim, 1)
    return max(3.0, min(10.0, room * 0.3, polar.step * 0.3))


def implosion_picture(view: View, results: Sequence[OrderResult]) -> Scene:
    board: Mapping[str, Any] = view.board
    colours = {p: colour(c) for p, c in board["colours"].items()}
    polar = Polar(board["nodes"])
    r = node_radius(board["nodes"], polar)
    scene = Scene(f"{board['title']}, {view.phase}", WIDTH)
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
    big = len(board["nodes"]) > LABELS_UP_TO  # then only the occupied nodes are named
    wants = [Want(*polar.node(n["name"]), r + 1, n["name"], 10) for n in board["nodes"]
             if not big or n["occupant"]]  # fmt: skip
    scene.names.extend(wants)
    marks = [
        LegendEntry("node: its occupant's colour and unit count (capacity: its ring number)",
                    sample_node(NEUTRAL, "node", text="3"), frozenset({"node"})),
        LegendEntry("starting node, and the centre C", sample_node(NEUTRAL, "start", ring=True),
                    frozenset({"start"})),
        LegendEntry("spawn node", sample_node(NEUTRAL, "spawn", width=2.5), frozenset({"spawn"})),
        LegendEntry("link", sample_line("link", LINK, width=1, head=""), frozenset({"link"})),
        LegendEntry("move", sample_line("move"), frozenset({"move"})),
    ]  # fmt: skip
    marks += left_out_entries("names of {} left out for room: see STATUS", "nodes",
                              "empty nodes" if big else None)  # fmt: skip
    scene.legend = [
        ("Players", player_entries(colours)),
        ("Map", used(marks, scene) + failed_entry(scene, "dashed: repelled")),
    ]
    return scene


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
        out.append(Text(x, y, str(n["count"]), 9 if r >= 8 else 7, "node", ink_on(fill), None,
                        "glyph"))  # fmt: skip
    return out
