"""Territory commands.

    Lyon -> Paris          all troops of Lyon but one go to Paris
    send Lyon to Paris     the same
    Lyon to Paris          the same
    away                   I am away: the absence timer starts now

Any state of the map may be the target (RULINGS.md). Names may be given in
any case, or shortened to a prefix only one state has. A command is
checked again when it runs: the origin must still be the player's, with at
least two troops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from adjudicator.base import Order, OrderSheet, Problem, ProblemKind
from adjudicator.territory.state import REMOVED, State


@dataclass(frozen=True, kw_only=True, slots=True)
class Send(Order):
    origin: str
    target: str

    def canonical(self) -> str:
        return f"{self.origin} -> {self.target}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "send", "player": self.player, "from": self.origin, "to": self.target}


@dataclass(frozen=True, kw_only=True, slots=True)
class Away(Order):
    def canonical(self) -> str:
        return "away"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "away", "player": self.player}


_SEND = [
    re.compile(r"^(?:send|attack|move)\s+(?:from\s+)?(.+?)\s+(?:to|->|=>|>)\s+(.+)$"),
    re.compile(r"^(.+?)\s*(?:->|=>|>)\s*(.+)$"),
    re.compile(r"^(.+?)\s+to\s+(.+)$"),
]


def read_orders(state: State, player: str, text: str, seq: int = 0) -> OrderSheet:
    orders: list[Order] = []
    problems: list[Problem] = []

    def refuse(n: int, line: str, reason: str, kind: ProblemKind, **facts: Any) -> None:
        suggestions = tuple(facts.pop("suggest", ()))
        problems.append(Problem(n, line.strip(), kind, reason, facts, suggestions))

    for n, line in enumerate(text.splitlines(), 1):
        words = " ".join(line.strip().split())
        if not words or words.startswith("#"):
            continue
        if state.outcome is not None:
            refuse(n, line, "game_over", ProblemKind.NOT_ALLOWED)
            continue
        p = state.player.get(player)
        if p is None or p.status == REMOVED:
            refuse(n, line, "not_in_game", ProblemKind.NOT_ALLOWED)
            continue
        if words.lower() in ("away", "i am away", "i'm away"):
            orders.append(Away(player=player, seq=seq, line=n))
            continue
        m = next((f.match(words.lower()) for f in _SEND if f.match(words.lower())), None)
        if m is None:
            refuse(n, line, "not_an_order", ProblemKind.NOT_UNDERSTOOD)
            continue
        found = []
        for word in (m[1], m[2]):
            name, candidates = state.map.lookup(word)
            if name is None:
                kind = ProblemKind.AMBIGUOUS if candidates else ProblemKind.NOT_UNDERSTOOD
                refuse(
                    n,
                    line,
                    "ambiguous_state" if candidates else "no_such_state",
                    kind,
                    name=word,
                    suggest=candidates[:5],
                )
                break
            found.append(name)
        if len(found) < 2:
            continue
        origin, target = found
        if origin == target:
            refuse(n, line, "same_state", ProblemKind.NOT_ALLOWED, state=origin)
            continue
        if state.owners.get(origin) != player:
            refuse(
                n, line, "not_yours", ProblemKind.NOT_ALLOWED, state=origin,
                owner=state.owners.get(origin),
            )  # fmt: skip
            continue
        orders.append(Send(player=player, seq=seq, line=n, origin=origin, target=target))
    return OrderSheet(player, tuple(orders), tuple(problems))
