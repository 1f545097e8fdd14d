"""Build Implosion positions from the compact form the rule cases use.

A case's board is its ``nodes``, each named as on a real board (``C`` the
centre, ``r.p`` position p of ring r: its capacity is r) with its kind
(``normal``, ``spawn``, ``start``), and its ``links``, ``"C-2.1 2.1-3.1"``.
Players are the keys of ``starts`` (each one's starting node), in seat
order. ``units`` gives each occupied node's ``[player, count]`` at the
start of the turn (its production already in), ``points`` the centre
points; ``turn`` the turns done and ``max_turns`` the last. ``orders`` are
the lines in the order the server received them, each ``player: text``,
each its own mail; ``seed`` is the turn's seed (the battles' rolls).
"""

from __future__ import annotations

from typing import Any

from adjudicator.base import OrderSheet
from adjudicator.implosion import GAME
from adjudicator.implosion.board import CENTRE, Board, Node
from adjudicator.implosion.state import Player, State, colour


def _node(name: str, kind: str) -> Node:
    ring, pos = (1, 1) if name == CENTRE else (int(p) for p in name.split("."))
    return Node(name, ring, pos, float(ring), float(pos), "centre" if name == CENTRE else kind)


def build_state(case: dict[str, Any]) -> State:
    nodes = tuple(_node(str(name), kind) for name, kind in case["nodes"].items())
    pairs = tuple(sorted(tuple(sorted(p.split("-"))) for p in str(case["links"]).split()))
    starts: dict[str, str] = {p: str(n) for p, n in case["starts"].items()}
    board = Board(len(starts), 0, nodes, pairs, tuple(starts.values()))  # type: ignore[arg-type]
    players = tuple(
        Player(p, colour(i, len(starts)), node, (case.get("status") or {}).get(p, "active"))
        for i, (p, node) in enumerate(starts.items())
    )
    units = {str(n): (str(u[0]), int(u[1])) for n, u in (case.get("units") or {}).items()}
    points = {p: 0 for p in starts} | dict(case.get("points") or {})
    return State(board, players, int(case.get("turn", 0)), dict(sorted(units.items())), points,
                 0, int(case.get("max_turns", 168)))  # fmt: skip


def sheets(case: dict[str, Any], state: State) -> tuple[list[OrderSheet], dict[str, list[Any]]]:
    """Each order line read as its own mail, in the order received; the
    refused lines' reasons by player."""
    out: list[OrderSheet] = []
    refused: dict[str, list[Any]] = {}
    for seq, line in enumerate(case.get("orders") or (), start=1):
        player, _, text = str(line).partition(":")
        sheet = GAME.read_orders(state, player.strip(), text.strip(), seq)
        out.append(sheet)
        refused.setdefault(sheet.player, []).extend(p.reason for p in sheet.problems)
    return out, {p: r for p, r in refused.items() if r}
