"""The Territory picture: states coloured by owner with their troops
inside, this tick's armies as arrows (dashed where they did not get
through), every state named."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def territory_picture(view: View, results: Sequence[OrderResult]) -> Scene:
    board: Mapping[str, Any] = view.board
    colours = {p: colour(c) for p, c in board["colours"].items()}
    at, height = fit([(s["x"], s["y"]) for s in board["states"]], pad=30)
    where = {s["name"]: at(s["x"], s["y"]) for s in board["states"]}
    scene = Scene(f"{board['title']}, {view.phase}", height)
    for res in results:
        d = res.order.to_dict()
        if d.get("kind") != "send" or res.reason in ("too_few", "not_yours"):
            continue
        if d["from"] in where and d["to"] in where:
            scene.add(arrow(where[d["from"]], where[d["to"]],
                            colours.get(res.order.player, INK), res.reason in GOT_THROUGH,
                            "send", (R + 2, R + 3)))  # fmt: skip
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
