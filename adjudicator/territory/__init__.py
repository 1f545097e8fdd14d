"""Territory (../shared/rules/territory.md, with RULINGS.md).

The game object the host uses is :data:`GAME`; see docs/rules/territory.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from adjudicator.base import (
    Game,
    GameError,
    Order,
    OrderMode,
    OrderResult,
    OrderSheet,
    Outcome,
    Rng,
    Seats,
    Standing,
    TurnResult,
    View,
    counted,
)
from adjudicator.drawing import Scene
from adjudicator.territory import board as maps
from adjudicator.territory import orders as notation
from adjudicator.territory import resolve
from adjudicator.territory import state as states
from adjudicator.territory.picture import territory_picture
from adjudicator.territory.state import ABSENT, CONTINUE, HOLD, REMOVED, State

OPTIONS = {
    "absent_after": 3,  # ticks without a mail before a player is absent
    "absent_timer": 3,  # ticks an absent player has to come back
    "absence": CONTINUE,  # continue: the others play on; hold: no ticks while anyone is away
    "last_tick": 0,  # 0: no last tick
}


class Territory(Game):
    name = "territory"
    title = "Territory"
    order_mode = OrderMode.RECEIVED
    seats = Seats(minimum=6, maximum=6, exact=True)
    default_deadline = "0 * * * *"  # a tick an hour
    lobby = True  # players JOIN a lobby; the sixth starts the match
    tracks_presence = True  # the host passes a sheet for every player who mailed at all
    codec = states

    def maps(self) -> tuple[str, ...]:
        return maps.shipped_maps()

    def load_map(self, source: str) -> maps.Map:
        if "\n" in source or ":" in source:
            return maps.load_map(source)
        if source.startswith("generated-"):
            parts = source.split("-")
            if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
                return maps.generate(int(parts[1]), int(parts[2]))
        return maps.shipped_map(source)

    def describe_map(self, board: maps.Map) -> str:
        return f"{board.title}, {len(board.states)} states, {self.seats.takes()}"

    def picture(self, view: View, results: Sequence[OrderResult]) -> Scene:
        """States coloured by owner with their troops, this tick's armies."""
        return territory_picture(view, results)

    def start(
        self,
        board: maps.Map,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
    ) -> State:
        """Each player gets a random state and a unique colour, from the
        game's seed; every other state is neutral."""
        opts = dict(OPTIONS)
        for key, value in dict(options or {}).items():
            if key not in OPTIONS:
                raise GameError(f"Territory has no option {key!r} (options: {', '.join(OPTIONS)})")
            opts[key] = value
        if opts["absence"] not in (CONTINUE, HOLD):
            raise GameError("Territory option absence must be continue or hold")
        for key in ("absent_after", "absent_timer", "last_tick"):
            v = opts[key]
            if (
                not isinstance(v, int)
                or isinstance(v, bool)
                or v < (0 if key == "last_tick" else 1)
            ):
                raise GameError(f"Territory option {key} must be a whole number")
        names = list(players)
        if len(set(names)) != len(names):
            raise GameError("a player is listed twice")
        if not self.seats.can_start(len(names)):
            raise GameError(f"Territory takes exactly 6 players, not {len(names)}")
        rng = Rng(seed)
        places = rng.shuffled([s.name for s in board.states])[: len(names)]
        colours = rng.shuffled(list(states.COLOURS))
        seated = tuple(states.Player(n, colours[i]) for i, n in enumerate(names))
        owners = {places[i]: n for i, n in enumerate(names)}
        troops = {s.name: s.troops for s in board.states}
        return State(board, seated, 0, owners, troops, seed, opts)

    def phase(self, state: State) -> tuple[int, str]:
        return state.tick + 1, f"tick {state.tick + 1}"

    def read_orders(self, state: State, player: str, text: str, seq: int = 0) -> OrderSheet:
        return notation.read_orders(state, player, text, seq)

    def default_orders(
        self, state: State, player: str, orders: Sequence[Order]
    ) -> tuple[Order, ...]:
        return ()

    def adjudicate(self, state: State, sheets: Sequence[OrderSheet], seed: int = 0) -> TurnResult:
        if state.outcome is not None:
            raise GameError("the game is over")
        return resolve.adjudicate(state, sheets, seed)

    def remove_player(self, state: State, player: str) -> State:
        """The player leaves: their states become neutral with their troops."""
        if player not in state.player:
            raise GameError(f"no player {player!r} in this game")
        players = tuple(
            replace(p, status=REMOVED) if p.name == player else p for p in state.players
        )
        owners = {s: who for s, who in state.owners.items() if who != player}
        new = replace(state, players=players, owners=owners)
        holders = set(owners.values())
        if new.outcome is None and len(holders) <= 1:
            new = replace(
                new,
                outcome=Outcome(
                    "last_player" if holders else "no_states", tuple(holders), dict(new.state_count)
                ),
            )
        return new

    pieces = "states"
    without_orders = "States without orders keep their troops; each makes its production a tick."

    def status_lines(self, state: State, viewer: str | None) -> list[str]:
        """Every state: its owner (or neutral), troops and production a tick."""
        lines = ["Every state: owner, troops, production a tick"]
        for s in sorted(state.map.states, key=lambda s: s.name):
            who = state.owners.get(s.name) or "neutral"
            lines.append(
                f"  {s.name:<16} {who:<20} {state.troops[s.name]:>4} troops  +{s.production}"
            )
        return lines

    def view(self, state: State, viewer: str | None) -> View:
        """Territory hides nothing."""
        colours = {p.name: p.colour for p in state.players}
        board = {
            "name": state.map.name,
            "title": state.map.title,
            "states": [
                {
                    "name": s.name,
                    "x": s.x,
                    "y": s.y,
                    "owner": state.owners.get(s.name),
                    "troops": state.troops[s.name],
                    "production": s.production,
                    "start": s.troops,
                }
                for s in state.map.states
            ],
            "colours": colours,
        }
        winners = set(state.outcome.winners) if state.outcome else set()
        ordered = sorted(
            state.players,
            key=lambda p: (-state.state_count[p.name], -state.troop_count[p.name], p.name),
        )
        standings = tuple(
            Standing(
                p.name,
                (("states", state.state_count[p.name]), ("troops", state.troop_count[p.name])),
                "winner"
                if p.name in winners
                else p.status
                if p.status in (ABSENT, REMOVED) or state.state_count[p.name]
                else "out",
            )
            for p in ordered
        )
        options: dict[str, tuple[str, ...]] = {}
        if viewer is not None and state.outcome is None:
            for s in state.map.states:
                if state.owners.get(s.name) == viewer and state.troops[s.name] >= 2:
                    n = state.troops[s.name] - 1
                    go = f"{counted(n, 'troop')} {'goes' if n == 1 else 'go'}"
                    options[s.name] = (f"{s.name} -> any state ({go})",)
        return View(self.name, state.tick + 1, self.phase(state)[1], standings, (), board, options)


GAME = Territory()

__all__ = ["GAME", "Territory"]
