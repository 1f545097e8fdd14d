"""The Office Wars picture: systems coloured by owner, home worlds
ringed, units as squares in their owner's colour, this tick's moves and
attacks as arrows (dashed where they failed), every system named."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.base import OrderResult, View
from adjudicator.drawing import (
    EDGE,
    INK,
    NEUTRAL,
    Box,
    Circle,
    LegendEntry,
    Line,
    Scene,
    Want,
    arrow,
    colour,
    failed_entry,
    fit,
    left_out_entries,
    player_entries,
    sample_line,
    sample_node,
    used,
)

LABELS_UP_TO = 200  # systems; a bigger map is drawn without names


def node_radius(points: Sequence[tuple[float, float]], most: float = 11.0) -> float:
    """As big as the closest two nodes allow."""
    if len(points) < 2:
        return most
    if len(points) > 400:
        return 3.0
    gap = min(
        ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5
        for i, a in enumerate(points)
        for b in points[i + 1 :]
    )
    return max(3.0, min(most, gap * 0.3))


def officewars_picture(view: View, results: Sequence[OrderResult]) -> Scene:
    board: Mapping[str, Any] = view.board
    colours = {p: colour(c) for p, c in board["colours"].items()}
    at, height = fit([(s["x"], s["y"]) for s in board["systems"]], pad=8)
    where = {s["name"]: at(s["x"], s["y"]) for s in board["systems"]}
    r = node_radius(list(where.values()))
    scene = Scene(f"{board['title']}, {view.phase}", height)
    for a, b in board["connections"]:
        scene.add(Line((where[a], where[b]), EDGE, "connection"))
    for res in results:
        d = res.order.to_dict()
        to = d.get("to") or (d.get("target") if d.get("kind") == "attack" else None)
        if to in where and d.get("system") in where:
            kind = "attack" if d.get("kind") == "attack" else "move"
            scene.add(arrow(where[d["system"]], where[to], colours.get(res.order.player, INK),
                            res.succeeded, kind, (r + 2, r + 4), 3.0 if kind == "attack" else 2.0,
                            ))  # fmt: skip
    for s in board["systems"]:
        scene.add(*_system(s, where[s["name"]], r, colours))
    big = len(where) > LABELS_UP_TO  # then only home worlds and systems with a unit are named
    wants = [Want(*where[s["name"]], r + (3 if s["home_of"] else 0), s["name"])
             for s in board["systems"] if not big or s["unit"] or s["home_of"]]  # fmt: skip
    scene.names.extend(wants)
    marks = [
        LegendEntry("system (its owner's colour; grey: nobody's)",
                    sample_node(NEUTRAL, "system"), frozenset({"system"})),
        LegendEntry("home world", sample_node(NEUTRAL, "home", ring=True), frozenset({"home"})),
        LegendEntry("unit (its owner's colour)", (Box(8, 1, 12, 12, "#999999", "unit"),),
                    frozenset({"unit"})),
        LegendEntry("connection", sample_line("connection", EDGE, width=1, head=""),
                    frozenset({"connection"})),
        LegendEntry("move", sample_line("move", width=2.0), frozenset({"move"})),
        LegendEntry("attack", sample_line("attack", width=3.0), frozenset({"attack"})),
    ]  # fmt: skip
    marks += left_out_entries("names of {} left out for room: see STATUS", "systems",
                              "other systems" if big else None)  # fmt: skip
    scene.legend = [("Players", player_entries(colours)),
                    ("Map", used(marks, scene) + failed_entry(scene))]  # fmt: skip
    return scene


def _system(s: Mapping[str, Any], xy: tuple[float, float], r: float,
            colours: Mapping[str, str]) -> list:  # fmt: skip
    x, y = xy
    title = (s["name"] + (f", {s['owner']}" if s["owner"] else ", neutral")
             + (f", unit of {s['unit']}" if s["unit"] else ""))  # fmt: skip
    out: list = []
    if s["home_of"]:
        out.append(Circle(x, y, r + 3, "#ffffff", "home", INK, 1.0, title=title))
    out.append(Circle(x, y, r, colours.get(s["owner"], NEUTRAL), "system", INK, 1.0,
                      title=title))  # fmt: skip
    if s["unit"]:
        u = r * 0.55
        out.append(Box(x - u, y - u, 2 * u, 2 * u, colours.get(s["unit"], "#999999"), "unit",
                       "#000000", 1.0, title=title))  # fmt: skip
    return out
