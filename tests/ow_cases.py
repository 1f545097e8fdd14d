"""Build Office Wars positions from the compact form the rule cases use.

A case's map is written as connections, ``"A-B B-C C-D"``; players are the
keys of ``owners``; ``homes`` defaults to a neutral system "<player> Home"
joined to the first system, so no unit is deployed unless a case asks.
"""

from __future__ import annotations

from typing import Any

from adjudicator.officewars.board import board_from_data
from adjudicator.officewars.state import COLOURS, Player, State


def build_state(case: dict[str, Any]) -> State:
    pairs = [p.split("-") for p in str(case["map"]).split()]
    names: list[str] = []
    for a, b in pairs:
        for n in (a, b):
            if n not in names:
                names.append(n)
    owners_spec: dict[str, list[str]] = case.get("owners") or {}
    players = list(case.get("players") or owners_spec)
    homes = dict(case.get("homes") or {})
    for p in players:
        if p not in homes:
            home = f"{p.capitalize()} Home"
            homes[p] = home
            pairs.append([home, names[0]])
            names.append(home)
    board = board_from_data(
        {
            "name": case["id"],
            "systems": {n: {} for n in names},
            "connections": [f"{a} - {b}" for a, b in pairs],
            "homes": [homes[p] for p in players],
        },
        source=case["id"],
    )
    owners = {s: p for p, systems in owners_spec.items() for s in systems}
    units = {s: p for p, systems in (case.get("units") or {}).items() for s in systems}
    seated = tuple(
        Player(p, COLOURS[i], homes[p], (case.get("status") or {}).get(p, "active"))
        for i, p in enumerate(players)
    )
    return State(
        board,
        seated,
        int(case.get("turn", 0)),
        dict(sorted(owners.items())),
        dict(sorted(units.items())),
    )


def by_player(mapping: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for system, player in sorted(mapping.items()):
        out.setdefault(player, []).append(system)
    return out
