"""Implosion orders: moving units from a node to a connected node.

    move 5 from 7.3 to 6.2      five units (fewer if fewer are there then)
    move all from 7.3 to 6.2    every unit there that may still move
    7.3 -> 6.2                  the same as "all"
    7.3 -> 6.2 5                five
    5 from 7.3 to 6.2           five
    send 5 from 7.3 to 6.2      five

The centre is ``C`` (or ``centre``). Orders run in the order the server
received them (each order carries its mail's number, ``seq``, and its line):
there is no replacing one order by another, and several orders may move
units from the same node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from adjudicator.base import (
    Order,
    OrderSheet,
    Problem,
    ProblemKind,
    closest_names,
    is_absence_line,
)
from adjudicator.implosion.state import ACTIVE, State

MAX_COUNT = 1_000


@dataclass(frozen=True, kw_only=True, slots=True)
class Transfer(Order):
    origin: str
    target: str
    count: int | None  # None: all that may move

    def canonical(self) -> str:
        many = "all" if self.count is None else str(self.count)
        return f"move {many} from {self.origin} to {self.target}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "move",
            "player": self.player,
            "from": self.origin,
            "to": self.target,
            "count": self.count,
        }


_NODE = r"([a-z]+|\d+\.\d+|c)"
_COUNT = r"(\d+|all)"
_FORMS = [
    re.compile(
        rf"^(?:move|send)\s+{_COUNT}\s+(?:units?\s+)?from\s+{_NODE}\s+(?:to|->|=>|>)\s+{_NODE}$"
    ),
    re.compile(rf"^{_COUNT}\s+(?:units?\s+)?from\s+{_NODE}\s+(?:to|->|=>|>)\s+{_NODE}$"),
    re.compile(rf"^(?:move\s+|send\s+)?{_NODE}\s*(?:->|=>|>|\s+to\s+)\s*{_NODE}(?:\s+{_COUNT})?$"),
]


def parse_line(text: str) -> tuple[str | None, str, str] | None:
    """(count word or None for all, origin word, target word), or None."""
    line = " ".join(text.strip().lower().split()).rstrip(".")
    for i, form in enumerate(_FORMS):
        m = form.match(line)
        if m is None:
            continue
        if i < 2:
            return m[1], m[2], m[3]
        return m[3], m[1], m[2]
    return None


def read_orders(state: State, player: str, text: str, seq: int = 0) -> OrderSheet:
    orders: list[Order] = []
    problems: list[Problem] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.strip().startswith("#"):
            continue
        read = _read_line(state, player, n, line, seq)
        (orders if isinstance(read, Transfer) else problems).append(read)
    return OrderSheet(player, tuple(orders), tuple(problems))


def _refuse(n: int, line: str, reason: str, kind: ProblemKind, **facts: Any) -> Problem:
    suggestions = tuple(facts.pop("suggest", ()))
    return Problem(n, line.strip(), kind, reason, facts, suggestions)


def _read_line(state: State, player: str, n: int, line: str, seq: int) -> Transfer | Problem:
    """One order line: the transfer it gives, or why it is refused."""
    if state.outcome is not None:
        return _refuse(n, line, "game_over", ProblemKind.NOT_ALLOWED)
    p = state.player.get(player)
    if p is None or p.status != ACTIVE:
        return _refuse(n, line, "not_in_game", ProblemKind.NOT_ALLOWED)
    parsed = parse_line(line)
    if parsed is None and is_absence_line(line):
        return _refuse(n, line, "no_absence", ProblemKind.NOT_ALLOWED)
    if parsed is None:
        return _refuse(n, line, "not_an_order", ProblemKind.NOT_UNDERSTOOD)
    many, a, b = parsed
    origin, target = state.board.lookup(a), state.board.lookup(b)
    bad = next((w for w, node in ((a, origin), (b, target)) if node is None), None)
    if bad is not None:
        near = _yours(state, player) if bad == a else state.board.adjacency.get(origin or "", ())
        return _refuse(
            n, line, "no_such_node", ProblemKind.NOT_UNDERSTOOD, name=bad,
            suggest=closest_names(bad, near) or closest_names(bad, state.board.node),
            **_hint(state, bad),
        )  # fmt: skip
    assert origin is not None and target is not None
    count = None if many in (None, "all") else int(many)
    if count is not None and not 1 <= count <= MAX_COUNT:
        return _refuse(n, line, "bad_count", ProblemKind.NOT_ALLOWED, count=count)
    return _refuse_move(state, player, n, line, origin, target, b) or Transfer(
        player=player, seq=seq, line=n, origin=origin, target=target, count=count
    )


def _refuse_move(state: State, player: str, n: int, line: str, origin: str, target: str,
                 typed: str) -> Problem | None:  # fmt: skip
    """Why a transfer between two known nodes cannot be: not connected, or
    no units of the player's at its origin; None if it can."""
    adjacency = state.board.adjacency
    if target not in adjacency[origin]:
        return _refuse(
            n, line, "not_connected", ProblemKind.NOT_ALLOWED, origin=origin, target=target,
            neighbours=list(adjacency[origin]),
            suggest=[f"{origin} -> {t}" for t in closest_names(typed, adjacency[origin])],
        )  # fmt: skip
    who = state.units.get(origin)
    if who is None or who[0] != player:
        return _refuse(
            n, line, "no_units_there", ProblemKind.NOT_ALLOWED, origin=origin,
            owner=who[0] if who else None,
            suggest=[f"{o} -> {target}" for o in _yours(state, player)
                     if target in adjacency[o]][:3],
        )  # fmt: skip
    return None


def _yours(state: State, player: str) -> list[str]:
    """The nodes where the player has units, ring by ring."""
    return sorted(
        (n for n, (who, _) in state.units.items() if who == player), key=state.board.order
    )


def _hint(state: State, word: str) -> dict[str, Any]:
    """What a wrong node name could have meant: the ring's positions."""
    m = re.fullmatch(r"(\d+)\.(\d+)", word)
    if m is None:
        return {"hint": "nodes are named ring.position, such as 7.3, and C for the centre"}
    ring = int(m[1])
    size = state.board.ring_sizes.get(ring)
    if size is None:
        return {
            "hint": f"the rings are numbered 1 (the centre, C) to {max(state.board.ring_sizes)}"
        }
    return {"hint": f"ring {ring} has positions 1 to {size}"}
