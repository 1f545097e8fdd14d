"""The Implosion state: the board, whose units stand where, centre points.

Plain frozen data; ``dump``/``load`` give canonical JSON with a format
version, and ``load(dump(s)) == s``. The generated board is kept inside the
state, so the game always has the board it started on.
"""

from __future__ import annotations

import colorsys
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from adjudicator.base import (
    GameError,
    Outcome,
    canonical_json,
    outcome_from_dict,
    outcome_to_dict,
)
from adjudicator.implosion.board import Board

FORMAT = 1
GAME = "implosion"
ACTIVE, REMOVED = "active", "removed"


def colour(i: int, count: int) -> str:
    """Player i's colour: evenly spread hues, two brightnesses alternating,
    as #rrggbb (the same on every machine: integer rounding of fixed math)."""
    r, g, b = colorsys.hsv_to_rgb(i / count, 0.75, 0.95 if i % 2 == 0 else 0.7)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


@dataclass(frozen=True)
class Player:
    name: str
    colour: str
    start: str  # the player's starting node
    status: str = ACTIVE


@dataclass(frozen=True)
class State:
    """``units`` maps each occupied node to (player, count); ``points`` the
    centre points of every player. ``turn`` counts turns done, from 0; the
    production at the start of turn ``turn + 1`` is already in ``units``."""

    board: Board
    players: tuple[Player, ...]
    turn: int
    units: Mapping[str, tuple[str, int]]
    points: Mapping[str, int]
    seed: int = 0
    max_turns: int = 168
    outcome: Outcome | None = None

    @cached_property
    def player(self) -> dict[str, Player]:
        return {p.name: p for p in self.players}

    @cached_property
    def unit_count(self) -> dict[str, int]:
        counts = {p.name: 0 for p in self.players}
        for who, n in self.units.values():
            counts[who] += n
        return counts

    @cached_property
    def node_count(self) -> dict[str, int]:
        counts = {p.name: 0 for p in self.players}
        for who, _ in self.units.values():
            counts[who] += 1
        return counts

    @property
    def active(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players if p.status == ACTIVE)


def dump(state: State) -> str:
    data: dict[str, Any] = {
        "format": FORMAT,
        "game": GAME,
        "board": state.board.to_dict(),
        "players": [[p.name, p.colour, p.start, p.status] for p in state.players],
        "turn": state.turn,
        "units": {k: list(v) for k, v in sorted(state.units.items())},
        "points": dict(sorted(state.points.items())),
        "seed": state.seed,
        "max_turns": state.max_turns,
        "outcome": outcome_to_dict(state.outcome),
    }
    return canonical_json(data)


def load(text: str) -> State:
    data = json.loads(text)
    if data.get("game") != GAME or data.get("format") != FORMAT:
        raise GameError(f"not an Implosion state of format {FORMAT}")
    return State(
        Board.from_dict(data["board"]),
        tuple(Player(*p) for p in data["players"]),
        data["turn"],
        {k: (v[0], v[1]) for k, v in data["units"].items()},
        dict(data["points"]),
        data["seed"],
        data["max_turns"],
        outcome_from_dict(data["outcome"]),
    )


def units_of(state: State, player: str) -> Mapping[str, int]:
    return {n: c for n, (who, c) in state.units.items() if who == player}
