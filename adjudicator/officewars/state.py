"""The Office Wars state: who owns which system, where the units stand.

Plain frozen data. ``dump``/``load`` give canonical JSON with a format
version, and ``load(dump(s)) == s``. The board is kept inside the state so
a running game never changes under its players when a map file is edited.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from adjudicator.base import GameError, Outcome, canonical_json
from adjudicator.officewars.board import Board, board_from_state

FORMAT = 1
GAME = "officewars"

COLOURS = (
    "red", "blue", "green", "yellow", "purple", "orange",
    "cyan", "magenta", "brown", "pink", "grey", "olive",
    "navy", "teal", "maroon", "lime", "gold", "silver",
)  # fmt: skip

ACTIVE, OUT, REMOVED = "active", "out", "removed"


@dataclass(frozen=True)
class Player:
    name: str
    colour: str
    home: str
    status: str = ACTIVE  # active, out (no systems left), removed (left the game)


@dataclass(frozen=True)
class State:
    """``owners`` maps each owned system to its player (neutral systems are
    absent); ``units`` maps each system with a unit to the unit's player.
    ``turn`` counts ticks done, from 0. ``outcome`` is set once it is over."""

    board: Board
    players: tuple[Player, ...]
    turn: int
    owners: Mapping[str, str]
    units: Mapping[str, str]
    seed: int = 0
    outcome: Outcome | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    # -- derived, computed once per state --------------------------------------

    @cached_property
    def player(self) -> dict[str, Player]:
        return {p.name: p for p in self.players}

    @cached_property
    def active(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players if p.status == ACTIVE)

    @cached_property
    def system_count(self) -> Counter[str]:
        return Counter(self.owners.values())

    @cached_property
    def unit_count(self) -> Counter[str]:
        return Counter(self.units.values())

    @cached_property
    def _chains(self) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
        """Chain groups found so far: each explored system's group (named by
        the system it was found from) and each group's systems, sorted."""
        return {}, {}

    def group_of(self, system: str) -> str | None:
        """The chain group of an owned system: two systems of one player
        share a group exactly when an unbroken chain of that player's
        systems joins them (RULINGS.md, Office Wars, MOVE). A group is
        explored the first time one of its systems is asked about, so a
        turn pays only for the groups its moves use. None if neutral."""
        group_of, members = self._chains
        label = group_of.get(system)
        if label is not None or system not in self.owners:
            return label
        adjacency, owners = self.board.adjacency, self.owners
        who = owners[system]
        group_of[system] = system
        found = [system]
        stack = [system]
        while stack:
            for there in adjacency[stack.pop()]:
                if there not in group_of and owners.get(there) == who:
                    group_of[there] = system
                    found.append(there)
                    stack.append(there)
        members[system] = tuple(sorted(found))
        return system

    def chain(self, system: str) -> tuple[str, ...]:
        """Every system in the chain group of ``system``, sorted."""
        group = self.group_of(system)
        return () if group is None else self._chains[1][group]

    def chained(self, a: str, b: str) -> bool:
        group = self.group_of(a)
        return group is not None and group == self.group_of(b)


# ----------------------------------------------------------------------------
# JSON


def to_data(state: State) -> dict[str, Any]:
    outcome = None
    if state.outcome is not None:
        outcome = {
            "reason": state.outcome.reason,
            "winners": list(state.outcome.winners),
            "scores": dict(state.outcome.scores),
        }
    return {
        "format": FORMAT,
        "game": GAME,
        "turn": state.turn,
        "seed": state.seed,
        "board": state.board.to_dict(),
        "players": [
            {"name": p.name, "colour": p.colour, "home": p.home, "status": p.status}
            for p in state.players
        ],
        "owners": dict(state.owners),
        "units": dict(state.units),
        "outcome": outcome,
        "options": dict(state.options),
    }


def dump(state: State) -> str:
    return canonical_json(to_data(state))


def load(text: str) -> State:
    """A state from its JSON. Raises GameError naming what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GameError(f"state: not JSON (line {exc.lineno}: {exc.msg})") from None
    return from_data(data)


def from_data(data: Any) -> State:
    if not isinstance(data, dict):
        raise GameError("state: expected a JSON object")
    if data.get("game") != GAME:
        raise GameError(f"state: this is a state of {data.get('game')!r}, not of {GAME!r}")
    if data.get("format") != FORMAT:
        raise GameError(
            f"state: format {data.get('format')!r} is not known "
            f"(this version reads format {FORMAT})"
        )
    try:
        board = board_from_state(data["board"])
        players = tuple(
            Player(str(p["name"]), str(p["colour"]), str(p["home"]), str(p["status"]))
            for p in data["players"]
        )
        owners = {str(k): str(v) for k, v in sorted(data["owners"].items())}
        units = {str(k): str(v) for k, v in sorted(data["units"].items())}
        outcome = None
        if data.get("outcome") is not None:
            o = data["outcome"]
            outcome = Outcome(
                str(o["reason"]),
                tuple(o["winners"]),
                {str(k): int(v) for k, v in sorted(o["scores"].items())},
            )
        state = State(
            board,
            players,
            int(data["turn"]),
            owners,
            units,
            int(data["seed"]),
            outcome,
            dict(data.get("options") or {}),
        )
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        if isinstance(exc, GameError):
            raise
        raise GameError(f"state: malformed ({type(exc).__name__}: {exc})") from None
    check(state)
    return state


def check(state: State) -> None:
    """Refuse a state that breaks the game's invariants."""
    names = state.board.names
    known = {p.name for p in state.players}
    problems = []
    if len(known) != len(state.players):
        problems.append("a player is listed twice")
    for p in state.players:
        if p.home not in names:
            problems.append(f"home world {p.home!r} of {p.name} is not on the map")
        if p.status not in (ACTIVE, OUT, REMOVED):
            problems.append(f"player {p.name}: unknown status {p.status!r}")
    for label, mapping in (("owners", state.owners), ("units", state.units)):
        for system, who in mapping.items():
            if system not in names:
                problems.append(f"{label}: {system!r} is not a system of the map")
            if who not in known:
                problems.append(f"{label}: {system} belongs to unknown player {who!r}")
    for system, who in state.units.items():
        if state.owners.get(system) != who:
            problems.append(f"unit of {who} at {system}, which {who} does not own")
    if problems:
        raise GameError("state: " + "; ".join(problems))
