"""Territory commands.

    Lyon -> Paris          all troops of Lyon but one go to Paris
    send Lyon to Paris     the same
    Lyon to Paris          the same
    away                   I am away: the absence timer starts at the next tick
    back                   I am back (any mail brings a player back, too)

Any state of the map may be the target (RULINGS.md). Names may be given in
any case, or shortened to a prefix only one state has. A command is
checked again when it runs: the origin must still be the player's, with at
least two troops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from adjudicator.base import Notice, Order, OrderSheet, Problem, ProblemKind, closest_names
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


@dataclass(frozen=True, kw_only=True, slots=True)
class Back(Order):
    def canonical(self) -> str:
        return "back"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "back", "player": self.player}


AWAY_WORDS = ("away", "i am away", "i'm away")
BACK_WORDS = ("back", "i am back", "i'm back")

_SEND = [
    re.compile(r"^(?:send|attack|move)\s+(?:from\s+)?(.+?)\s+(?:to|->|=>|>)\s+(.+)$"),
    re.compile(r"^(.+?)\s*(?:->|=>|>)\s*(.+)$"),
    re.compile(r"^(.+?)\s+to\s+(.+)$"),
]


def read_orders(state: State, player: str, text: str, seq: int = 0) -> OrderSheet:
    orders: list[Order] = []
    problems: list[Problem] = []
    notices: list[Notice] = []

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
        if words.lower() in AWAY_WORDS + BACK_WORDS:
            away = words.lower() in AWAY_WORDS
            orders.append((Away if away else Back)(player=player, seq=seq, line=n))
            notices.append(_presence_notice(state, n, away))
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
                    count=len(candidates),
                    suggest=candidates[:5] or closest_names(word, state.map.names),
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
            mine = sorted(s for s, who in state.owners.items() if who == player and s != target)
            owner = state.owners.get(origin)
            refuse(
                n, line, "not_yours" if owner else "neutral_origin", ProblemKind.NOT_ALLOWED,
                state=origin, owner=owner,
                suggest=[f"{s} -> {target}" for s in closest_names(m[1], mine) or mine[:3]],
            )  # fmt: skip
            continue
        orders.append(Send(player=player, seq=seq, line=n, origin=origin, target=target))
    return OrderSheet(player, tuple(orders), tuple(problems), tuple(notices))


def _presence_notice(state: State, line: int, away: bool) -> Notice:
    """What AWAY or BACK means, with its deadlines (``{"deadline": k}``: the
    k-th deadline from now, 1 the coming one; the host writes it as a date
    in the player's time zone)."""
    if not away:
        return Notice(line, "back", {"from": {"deadline": 1}})
    timer = state.options["absent_timer"]
    reason = "away_hold" if state.options["absence"] == "hold" else "away"
    return Notice(
        line,
        reason,
        {"from": {"deadline": 1}, "until": {"deadline": 1 + timer}, "ticks": timer},
    )
