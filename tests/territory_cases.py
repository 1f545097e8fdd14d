"""Build Territory positions from the compact form the rule cases use.

A case's map is its ``states``, each with its troops at the start of the
game (what a neutral state regenerates to) and its production a tick;
``owners`` gives each player's states and ``troops`` the troops standing at
the start of the tick (default: the map's). Players are ``players`` (a
list, or a mapping to each one's status, ticks of silence and the tick the
absence began), else the keys of ``owners``. ``orders`` are the lines in
the order the server received them, each ``player: text``, each its own
mail; every player in ``present`` (default: everyone) mailed this tick.
"""

from __future__ import annotations

from typing import Any

from adjudicator.base import OrderSheet
from adjudicator.territory import GAME, OPTIONS
from adjudicator.territory.board import Map, Place
from adjudicator.territory.state import COLOURS, Player, State


def build_state(case: dict[str, Any]) -> State:
    places = tuple(
        Place(name, float(i), 0.0, int(spec[0]), int(spec[1]))
        for i, (name, spec) in enumerate(case["states"].items())
    )
    owners_spec: dict[str, list[str]] = case.get("owners") or {}
    spec = case.get("players") or list(owners_spec)
    if isinstance(spec, list):
        spec = {p: {} for p in spec}
    players = tuple(
        Player(
            name,
            COLOURS[i],
            str(p.get("status", "active")),
            int(p.get("silent", 0)),
            int(p.get("absent_since", 0)),
        )  # fmt: skip
        for i, (name, p) in enumerate(spec.items())
    )
    troops = {p.name: p.troops for p in places}
    troops.update(case.get("troops") or {})
    owners = {s: p for p, states in owners_spec.items() for s in states}
    return State(
        Map(case["id"], case["id"], places),
        players,
        int(case.get("tick", 0)),
        dict(sorted(owners.items())),
        dict(sorted(troops.items())),
        0,
        {**OPTIONS, **(case.get("options") or {})},
    )


def sheets(case: dict[str, Any], state: State) -> tuple[list[OrderSheet], dict[str, list[Any]]]:
    """Each order line read as its own mail, in the order received, and an
    empty sheet for every present player with no orders; the refused lines."""
    out: list[OrderSheet] = []
    refused: dict[str, list[Any]] = {}
    for seq, line in enumerate(case.get("orders") or (), start=1):
        player, _, text = str(line).partition(":")
        sheet = GAME.read_orders(state, player.strip(), text.strip(), seq)
        out.append(sheet)
        refused.setdefault(sheet.player, []).extend(p.reason for p in sheet.problems)
    present = case.get("present", [p.name for p in state.players])
    mailed = {s.player for s in out}
    out += [OrderSheet(p) for p in present if p not in mailed]
    return out, {p: r for p, r in refused.items() if r}


def by_player(mapping: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for state, player in sorted(mapping.items()):
        out.setdefault(player, []).append(state)
    return out
