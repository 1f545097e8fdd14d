"""The Territory picture: states coloured by owner with their troops
inside, this tick's armies as arrows (dashed where they did not get
through), every state named."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from math import hypot
from typing import Any

from adjudicator.base import OrderResult, View
from adjudicator.drawing import (
    INK,
    NEUTRAL,
    Circle,
    LegendEntry,
    Scene,
    Text,
    Want,
    arrow,
    colour,
    failed_entry,
    fit,
    ink_on,
    left_out_entries,
    player_entries,
    sample_line,
    sample_node,
    used,
)

R = 13.0
GOT_THROUGH = ("transferred", "conquered", "met_won")


def _bowed(a: tuple[float, float], b: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """An arrow from a to b bowed to its left: out of the rims of both
    states, through a point beside the middle, so that the arrow from b to
    a bows the other way and a short one stays long enough to read."""
    (x0, y0), (x1, y1) = a, b
    length = hypot(x1 - x0, y1 - y0) or 1.0
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    nx, ny = uy, -ux  # the left of the way from a to b
    side = R * 2.6
    start = (x0 + (ux * 0.5 + nx * 0.85) * (R + 2), y0 + (uy * 0.5 + ny * 0.85) * (R + 2))
    end = (x1 + (-ux * 0.5 + nx * 0.85) * (R + 3), y1 + (-uy * 0.5 + ny * 0.85) * (R + 3))
    middle = ((x0 + x1) / 2 + nx * side, (y0 + y1) / 2 + ny * side)
    return (start, middle, end)


def territory_picture(view: View, results: Sequence[OrderResult]) -> Scene:
    board: Mapping[str, Any] = view.board
    colours = {p: colour(c) for p, c in board["colours"].items()}
    at, height = fit([(s["x"], s["y"]) for s in board["states"]], pad=30)
    where = {s["name"]: at(s["x"], s["y"]) for s in board["states"]}
    scene = Scene(f"{board['title']}, {view.phase}", height)
    sends = [
        (res, res.order.to_dict())
        for res in results
        if res.order.to_dict().get("kind") == "send" and res.reason not in ("too_few", "not_yours")
    ]
    pairs = {(d["from"], d["to"]) for _, d in sends}
    for res, d in sends:
        if d["from"] in where and d["to"] in where:
            a, b = where[d["from"]], where[d["to"]]
            line = arrow(a, b, colours.get(res.order.player, INK), res.reason in GOT_THROUGH,
                         "send", (R + 2, R + 3))  # fmt: skip
            if (d["to"], d["from"]) in pairs or hypot(b[0] - a[0], b[1] - a[1]) < 4 * R:
                # two states sending at each other, or touching: each arrow bows to
                # its own side, long enough to be seen, the two never on one line
                line = replace(line, points=_bowed(a, b))
            scene.add(line)
    for s in board["states"]:
        x, y = where[s["name"]]
        fill = colours.get(s["owner"], NEUTRAL)
        title = (f"{s['name']}: {s['troops']} troops, "
                 + (s["owner"] or f"neutral (back up to {s['start']})")
                 + f", +{s['production']} a tick")  # fmt: skip
        scene.add(
            Circle(x, y, R, fill, "state", INK, 1.0, title=title),
            Text(x, y, str(s["troops"]), 10, "state", ink_on(fill), None, "glyph"),
        )
    # each name with what the state makes a tick: "Paris +3"
    scene.names.extend(
        Want(*where[s["name"]], R, f"{s['name']} +{s['production']}") for s in board["states"]
    )
    marks = [
        LegendEntry("state: its owner's colour (grey: neutral), its troops; by its name "
                    "(Paris +3) the troops it makes a tick",
                    sample_node(NEUTRAL, "state", text="12"), frozenset({"state"})),
        LegendEntry("troops sent", sample_line("send"), frozenset({"send"})),
    ]  # fmt: skip
    marks += left_out_entries("names left out for room: see STATUS")
    scene.legend = [("Players", player_entries(colours)),
                    ("Map", used(marks, scene) + failed_entry(scene, "dashed: did not get through"))
                    ]  # fmt: skip
    return scene
