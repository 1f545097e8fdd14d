"""Implosion (../shared/rules/implosion.txt, with RULINGS.md).

The game object the host uses is :data:`GAME`; see docs/rules/implosion.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from adjudicator.base import (
    Game,
    GameError,
    Order,
    OrderMode,
    OrderResult,
    OrderSheet,
    Outcome,
    Seats,
    Standing,
    TurnResult,
    View,
    counted,
)
from adjudicator.drawing import Scene
from adjudicator.implosion import board as boards
from adjudicator.implosion import orders as notation
from adjudicator.implosion import resolve
from adjudicator.implosion import state as states
from adjudicator.implosion.picture import implosion_picture
from adjudicator.implosion.state import ACTIVE, REMOVED, State

MAX_PLAYERS = 64


@dataclass(frozen=True)
class BoardSpec:
    """``map: ring`` in games.yaml: the board is generated at the start from
    the number of players and the game's seed."""

    name: str = "ring"


class Implosion(Game):
    name = "implosion"
    title = "Implosion"
    order_mode = OrderMode.RECEIVED
    seats = Seats(minimum=2, maximum=MAX_PLAYERS)
    default_deadline = "0 * * * *"  # a turn an hour: 168 turns, one week
    uses_chance = True
    codec = states

    def maps(self) -> tuple[str, ...]:
        return ("ring",)

    def load_map(self, source: str) -> BoardSpec:
        if source.strip() != "ring":
            raise GameError(
                "Implosion boards are generated from the players and the seed: map: ring"
            )
        return BoardSpec()

    def describe_map(self, board: BoardSpec) -> str:
        return f"made for each game from its players and seed, {self.seats.takes()}"

    def start(
        self,
        board: BoardSpec,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
    ) -> State:
        """The board for this many players, each with 12 units on their
        starting node; option ``turns`` (default 168)."""
        options = dict(options or {})
        turns = options.pop("turns", 168)
        if options:
            raise GameError(f"Implosion has one option, turns (got: {', '.join(options)})")
        if not isinstance(turns, int) or isinstance(turns, bool) or not 1 <= turns <= 10_000:
            raise GameError("Implosion option turns must be a whole number from 1 to 10000")
        names = list(players)
        if len(set(names)) != len(names):
            raise GameError("a player is listed twice")
        if not self.seats.minimum <= len(names) <= self.seats.maximum:
            raise GameError(f"Implosion takes 2 to {MAX_PLAYERS} players, not {len(names)}")
        grid = boards.generate(len(names), seed)
        seated = tuple(
            states.Player(n, states.colour(i, len(names)), grid.starts[i])
            for i, n in enumerate(names)
        )
        units = {p.start: (p.name, 12) for p in seated}
        state = State(grid, seated, 0, units, {n: 0 for n in names}, seed, turns)
        return resolve.start_of_turn(state)[0]

    def phase(self, state: State) -> tuple[int, str]:
        return state.turn + 1, f"turn {state.turn + 1} of {state.max_turns}"

    def read_orders(self, state: State, player: str, text: str, seq: int = 0) -> OrderSheet:
        return notation.read_orders(state, player, text, seq)

    def default_orders(
        self, state: State, player: str, orders: Sequence[Order]
    ) -> tuple[Order, ...]:
        return ()  # units without orders stay where they are

    def adjudicate(self, state: State, sheets: Sequence[OrderSheet], seed: int = 0) -> TurnResult:
        if state.outcome is not None:
            raise GameError("the game is over")
        return resolve.adjudicate(state, sheets, seed)

    def remove_player(self, state: State, player: str) -> State:
        """The player leaves: their units go, their starting node makes no
        more units."""
        if player not in state.player:
            raise GameError(f"no player {player!r} in this game")
        players = tuple(
            replace(p, status=REMOVED) if p.name == player else p for p in state.players
        )
        units = {k: v for k, v in state.units.items() if v[0] != player}
        new = replace(state, players=players, units=units)
        holders = {who for who, _ in units.values()}
        if new.outcome is None and len(holders) <= 1:
            new = replace(
                new,
                outcome=Outcome(
                    "last_player" if holders else "no_units", tuple(holders), dict(new.points)
                ),
            )
        return new

    def view(self, state: State, viewer: str | None) -> View:
        """Implosion hides nothing."""
        start_of = {p.start: p.name for p in state.players}
        nodes = [
            {
                "name": n.name,
                "x": n.x,
                "y": n.y,
                "ring": n.ring,
                "capacity": n.capacity,
                "kind": n.kind,
                "occupant": state.units.get(n.name, (None, 0))[0],
                "count": state.units.get(n.name, (None, 0))[1],
                "start_of": start_of.get(n.name),
            }
            for n in state.board.nodes
        ]
        winners = set(state.outcome.winners) if state.outcome else set()
        order = sorted(state.players, key=lambda p: resolve.rank_key(state, p.name), reverse=True)
        standings = tuple(
            Standing(
                p.name,
                (
                    ("points", state.points.get(p.name, 0)),
                    ("units", state.unit_count[p.name]),
                    ("nodes", state.node_count[p.name]),
                ),
                "winner"
                if p.name in winners
                else p.status
                if p.status != ACTIVE or state.unit_count[p.name]
                else "out",
            )
            for p in order
        )
        options: dict[str, tuple[str, ...]] = {}
        if viewer is not None and state.outcome is None:
            for node, (who, _) in sorted(
                state.units.items(), key=lambda kv: state.board.order(kv[0])
            ):
                if who == viewer:
                    options[node] = self._unit_options(state, node)
        board = {
            "name": "ring",
            "title": f"Implosion, {state.board.players} players",
            "nodes": nodes,
            "connections": [list(c) for c in state.board.connections],
            "colours": {p.name: p.colour for p in state.players},
        }
        return View(self.name, state.turn + 1, self.phase(state)[1], standings, (), board, options)

    def picture(self, view: View, results: Sequence[OrderResult]) -> Scene:
        """The rings round the centre, units counted, this turn's moves."""
        return implosion_picture(view, results)

    def _unit_options(self, state: State, node: str) -> tuple[str, ...]:
        """The viewer's units at ``node`` and where they may go: every
        connection, with what stands there now."""
        who, count = state.units[node]

        def there(t: str) -> str:
            occupant, n = state.units.get(t, (None, 0))
            if occupant is None:
                return f"{t} (empty)"
            return f"{t} ({'yours' if occupant == who else occupant}: {n})"

        return (f"{node} has {counted(count, 'unit')}",) + tuple(
            f"{node} connects to {there(t)}" for t in state.board.adjacency[node]
        )


GAME = Implosion()

__all__ = ["GAME", "Implosion"]
