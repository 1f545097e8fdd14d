"""The Territory state: who owns which state and how many troops stand in
each; the players and their presence. Plain frozen data; ``dump``/``load``
give canonical JSON with a format version, and ``load(dump(s)) == s``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from adjudicator.base import (
    GameError,
    Outcome,
    canonical_json,
    outcome_from_dict,
    outcome_to_dict,
)
from adjudicator.territory.board import Map

FORMAT = 1
GAME = "territory"
COLOURS = ("red", "blue", "green", "yellow", "purple", "orange")
ACTIVE, ABSENT, REMOVED = "active", "absent", "removed"
CONTINUE, HOLD = "continue", "hold"


@dataclass(frozen=True)
class Player:
    name: str
    colour: str
    status: str = ACTIVE  # active, absent (the timer runs), removed
    silent: int = 0  # ticks in a row without a mail
    absent_since: int = 0  # the tick the player became absent


@dataclass(frozen=True)
class State:
    """``troops`` holds every state's troops (never negative); ``owners``
    the owned states (neutral ones are absent). ``tick`` counts ticks done."""

    map: Map
    players: tuple[Player, ...]
    tick: int
    owners: Mapping[str, str]
    troops: Mapping[str, int]
    seed: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    outcome: Outcome | None = None

    @cached_property
    def player(self) -> dict[str, Player]:
        return {p.name: p for p in self.players}

    @cached_property
    def state_count(self) -> dict[str, int]:
        counts = {p.name: 0 for p in self.players}
        for who in self.owners.values():
            counts[who] += 1
        return counts

    @cached_property
    def troop_count(self) -> dict[str, int]:
        counts = {p.name: 0 for p in self.players}
        for s, who in self.owners.items():
            counts[who] += self.troops[s]
        return counts


def dump(state: State) -> str:
    return canonical_json(
        {
            "format": FORMAT,
            "game": GAME,
            "map": state.map.to_dict(),
            "players": [
                [p.name, p.colour, p.status, p.silent, p.absent_since] for p in state.players
            ],
            "tick": state.tick,
            "owners": dict(sorted(state.owners.items())),
            "troops": dict(sorted(state.troops.items())),
            "seed": state.seed,
            "options": dict(sorted(state.options.items())),
            "outcome": outcome_to_dict(state.outcome),
        }
    )


def load(text: str) -> State:
    data = json.loads(text)
    if data.get("game") != GAME or data.get("format") != FORMAT:
        raise GameError(f"not a Territory state of format {FORMAT}")
    return State(
        Map.from_dict(data["map"]),
        tuple(Player(*p) for p in data["players"]),
        data["tick"],
        dict(data["owners"]),
        dict(data["troops"]),
        data["seed"],
        dict(data["options"]),
        outcome_from_dict(data["outcome"]),
    )
