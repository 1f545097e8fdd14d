"""Office Wars (../shared/rules/officewars.html, with RULINGS.md).

The game object the host uses is :data:`GAME`; see docs/rules/officewars.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import yaml

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
    VoteInfo,
)
from adjudicator.drawing import Scene
from adjudicator.officewars import board as boards
from adjudicator.officewars import orders as notation
from adjudicator.officewars import resolve
from adjudicator.officewars import state as states
from adjudicator.officewars.picture import officewars_picture
from adjudicator.officewars.state import ACTIVE, REMOVED, State
from adjudicator.officewars.votes import surrender_vote


class OfficeWars(Game):
    name = "officewars"
    title = "Office Wars"
    order_mode = OrderMode.SIMULTANEOUS
    seats = Seats(minimum=2, maximum=len(states.COLOURS))
    codec = states
    generates_maps = True
    default_deadline = "50 0,12 * * *"  # officewars.html: ticks at 00:50 and 12:50

    def maps(self) -> tuple[str, ...]:
        return boards.shipped_maps()

    def load_map(self, source: str) -> boards.Board:
        if "\n" in source or ":" in source:
            return boards.load_board(source)
        return boards.shipped_board(source)

    def start(
        self,
        board: boards.Board,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
    ) -> State:
        """Each player gets the next home world of the map, with one unit on
        it; every other system is neutral and empty."""
        options = dict(options or {})
        if options:
            raise GameError(f"Office Wars has no game options (got: {', '.join(options)})")
        names = list(players)
        if len(set(names)) != len(names):
            raise GameError("a player is listed twice")
        most = min(len(board.homes), self.seats.maximum)  # a home world and a colour each
        if not self.seats.minimum <= len(names) <= most:
            raise GameError(
                f"map {board.name} takes {self.seats.minimum} to {most} players, not {len(names)}"
            )
        seated = tuple(
            states.Player(n, states.COLOURS[i], board.homes[i]) for i, n in enumerate(names)
        )
        homes = {p.home: p.name for p in seated}
        return State(
            board, seated, 0, dict(sorted(homes.items())), dict(sorted(homes.items())), seed
        )

    def describe_map(self, board: boards.Board) -> str:
        return f"{board.title}, {len(board.systems)} systems, {len(board.homes)} players"

    def map_players(self, board: boards.Board) -> int:
        return min(len(board.homes), self.seats.maximum)

    def generate_map(self, size: int, players: int, seed: int = 0) -> str:
        """A random connected map of ``size`` systems with ``players`` home
        worlds (:func:`~adjudicator.officewars.board.generate_board`), as
        the YAML of a map file."""
        board = boards.generate_board(size, players, seed)
        return yaml.safe_dump(board.to_dict(), sort_keys=False, width=100)

    def phase(self, state: State) -> tuple[int, str]:
        return state.turn + 1, f"tick {state.turn + 1}"

    def read_orders(self, state: State, player: str, text: str, seq: int = 0) -> OrderSheet:
        return notation.read_orders(state, player, text, seq)

    def default_orders(
        self, state: State, player: str, orders: Sequence[Order]
    ) -> tuple[Order, ...]:
        return notation.default_orders(state, player, tuple(orders))

    def adjudicate(self, state: State, sheets: Sequence[OrderSheet], seed: int = 0) -> TurnResult:
        return resolve.adjudicate(state, sheets, seed)

    def remove_player(self, state: State, player: str) -> State:
        """The player leaves: their units are disbanded and their systems
        become neutral (docs/rules/officewars.md, Leaving)."""
        if player not in state.player:
            raise GameError(f"no player {player!r} in this game")
        players = tuple(
            replace(p, status=REMOVED) if p.name == player else p for p in state.players
        )
        owners = {s: p for s, p in state.owners.items() if p != player}
        units = {s: p for s, p in state.units.items() if p != player}
        new = replace(state, players=players, owners=owners, units=units)
        if new.outcome is None and len(new.active) <= 1:
            left = new.active
            new = replace(
                new,
                outcome=Outcome(
                    "last_player" if left else "no_players",
                    left,
                    resolve._scores(players, owners, left),
                ),
            )
        return new

    def view(self, state: State, viewer: str | None) -> View:
        """Office Wars hides nothing: every viewer sees the whole board."""
        owners, units = state.owners, state.units
        home_of = {p.home: p.name for p in state.players}
        systems = [
            {
                "name": s.name,
                "x": s.x,
                "y": s.y,
                "owner": owners.get(s.name),
                "unit": units.get(s.name),
                "home_of": home_of.get(s.name),
            }
            for s in state.board.systems
        ]
        winners = set(state.outcome.winners) if state.outcome else set()
        standings = tuple(
            Standing(
                p.name,
                (("systems", state.system_count[p.name]), ("units", state.unit_count[p.name])),
                "winner" if p.name in winners else p.status,
            )
            for p in sorted(state.players, key=lambda p: (-state.system_count[p.name], p.name))
        )
        vote = surrender_vote(state)
        votes = (
            VoteInfo(
                "surrender",
                vote.open,
                {
                    "leader": vote.leader,
                    "leader_systems": vote.leader_systems,
                    "second_systems": vote.second_systems,
                    "weights": dict(vote.weights),
                    "needed": vote.total // 2 + 1,
                },
            ),
        )
        options: dict[str, tuple[str, ...]] = {}
        if viewer is not None and state.outcome is None:
            options = {
                s: self.unit_options(state, s) for s, who in sorted(units.items()) if who == viewer
            }
        board = {
            "name": state.board.name,
            "title": state.board.title,
            "systems": systems,
            "connections": [list(c) for c in state.board.connections],
            "colours": {p.name: p.colour for p in state.players},
        }
        return View(
            self.name, state.turn + 1, self.phase(state)[1], standings, votes, board, options
        )

    def picture(self, view: View, results: Sequence[OrderResult]) -> Scene:
        """Systems coloured by owner, units, this tick's moves and attacks."""
        return officewars_picture(view, results)

    def unit_options(self, state: State, system: str) -> tuple[str, ...]:
        """Every legal order of the unit at ``system``, canonical text."""
        who = state.units[system]
        adj = sorted(state.board.adjacency[system])
        moves = [s for s in state.chain(system) if s != system]
        out = [f"{system} holds"]
        out += [f"{system} moves to {s}" for s in moves]
        out += [f"{system} attacks {s}" for s in adj if state.owners.get(s) != who]
        out += [f"{system} supports {s}" for s in adj if s in state.units]
        return tuple(out)

    def order_forms(self, state: State, player: str) -> tuple[str, ...]:
        return notation.forms_for(state, player)

    def player_colour(self, state: State, player: str) -> str:
        return state.player[player].colour


GAME = OfficeWars()

__all__ = ["GAME", "ACTIVE", "OfficeWars"]
