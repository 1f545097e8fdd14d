"""Strategic Initiative as a game of the interface (adjudicator/base.py):
the board generated at the start, orders read from words, a tick a turn,
the fog of war in every view, positions as text.

A turn is a tick of the game's clock (``clock_ticks``): nobody owes orders,
and an order mailed at any time runs at the next tick. A tick mails only
the players it concerns; everyone gets a situation report every 16 ticks
(:meth:`Strategic.report_for`).
"""

from __future__ import annotations

import re
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
    Seats,
    TurnResult,
    View,
)
from adjudicator.drawing import Scene
from adjudicator.strategic import board as boards
from adjudicator.strategic import picture, position, reading, sight
from adjudicator.strategic.resolve import Reason
from adjudicator.strategic.rules import MINUTES_PER_TICK, MOBILITY_EVERY, TICKS_PER_DAY
from adjudicator.strategic.state import State
from adjudicator.strategic.tick import run_tick

MAX_PLAYERS = 24
SITUATION_EVERY = MOBILITY_EVERY  # ticks between everyone's situation reports


@dataclass(frozen=True)
class BoardSpec:
    """``map: islands`` in games.yaml: the board is generated at the start
    from the number of players, the game's seed and the options ``width``
    and ``height`` (by default a size for the number of players)."""

    name: str = "islands"
    title: str = "Islands, generated for the players"


CLOCK = re.compile(r"day (\d+), (\d\d):(\d\d)")  # the words of clock()


def clock(tick: int) -> str:
    """The game clock of a tick, in words: tick 0 is the start, "day 1,
    00:00"; every tick is 15 game-minutes."""
    day, rest = divmod(tick, TICKS_PER_DAY)
    minutes = rest * MINUTES_PER_TICK
    return f"day {day + 1}, {minutes // 60:02d}:{minutes % 60:02d}"


class Codec:
    """The state as text: the position format (position.py), canonical."""

    @staticmethod
    def dump(state: State) -> str:
        return position.dump(state)

    @staticmethod
    def load(text: str) -> State:
        return position.load(text)


class Strategic(Game):
    name = "strategic"
    title = "Strategic Initiative"
    order_mode = OrderMode.RECEIVED
    seats = Seats(minimum=2, maximum=MAX_PLAYERS)
    default_deadline = "*/15 * * * *"  # a tick every 15 minutes
    clock_ticks = True
    order_words = frozenset({"status"})  # an order: a situation report at the next tick
    uses_chance = True
    positions = True
    codec = Codec()

    def maps(self) -> tuple[str, ...]:
        return ("islands",)

    def load_map(self, source: str) -> BoardSpec:
        if source.strip() != "islands":
            raise GameError(
                "Strategic Initiative boards are generated from the players and the seed: "
                "map: islands (options width and height set the size)"
            )
        return BoardSpec()

    def start(self, board: Any, players: Sequence[str], options: Mapping[str, Any],
              seed: int) -> State:  # fmt: skip
        width, height = options.get("width"), options.get("height")
        grid, cities = boards.generate(len(players), seed, width, height)
        return boards.start(grid, cities, list(players), seed, options)

    def phase(self, state: State) -> tuple[int, str]:
        """The ticks run so far, and the clock of the tick to be played
        next: the orders mailed now run at it."""
        return state.tick, clock(state.tick + 1)

    def map_file(self, turn: int, phase: str) -> str:
        """The map of a tick report is named by the tick's clock, as its
        subject says it: "day 2, 00:15" gives map-day2-0015."""
        found = CLOCK.fullmatch(phase)
        if found is None:
            return super().map_file(turn, phase)
        return f"map-day{found[1]}-{found[2]}{found[3]}"

    def start_map_file(self, state: State) -> str:
        """The start mail's map is named by the clock of the position it
        shows, as a tick report's map is: map-day1-0000 at the start; a
        seat taken over after tick 5, map-day1-0115 (the map of the tick
        report of tick 5)."""
        return self.map_file(state.tick, clock(state.tick))

    def read_orders(self, state: State, player: str, text: str, seq: int = 0) -> OrderSheet:
        return reading.read_orders(state, player, text, seq)

    def default_orders(
        self, state: State, player: str, orders: Sequence[Order]
    ) -> tuple[Order, ...]:
        return ()  # units without orders wait; standing orders go on by themselves

    def adjudicate(self, state: State, sheets: Sequence[OrderSheet], seed: int = 0) -> TurnResult:
        return run_tick(state, sheets, seed)

    def to_order(self, state: State) -> frozenset[str]:
        """Nobody owes orders for a tick: units without orders wait."""
        return frozenset()

    def report_for(self, before: State, result: TurnResult, viewer: str | None) -> str | None:
        """Every 16 ticks (when mobility is added) and at the end, everyone's
        situation report; on the player's STATUS order, theirs. Otherwise a
        tick report to a player the tick concerns: an order of theirs ran,
        an event they may see (attacked, a build done or skipped, a
        relation changed, a fight in sight), or a unit came into sight.
        Observers and the game master get the situation reports only."""
        after = result.state
        if after.outcome is not None or after.tick % SITUATION_EVERY == 0:
            return "situation"
        if viewer is None or viewer not in after.nations:
            return None
        mine = result.for_viewer(viewer)
        if any(r.reason is Reason.STATUS for r in mine.results):
            return "situation"
        if mine.results or mine.events or came_into_sight(before, after, viewer):
            return "tick"
        return None

    def remove_player(self, state: State, player: str) -> State:
        """A nation whose player left stays on the board and does nothing:
        its units hold, its cities build on, and it may be conquered."""
        new = state.copy()
        if player in new.nations:
            new.nations[player].status = "removed"
            new.standing = [s for s in new.standing if s.nation != player]
        return new

    def view(self, state: State, viewer: str | None) -> View:
        """What ``viewer`` sees; after a tick, from the sight the tick
        worked out (the same as working it out again)."""
        seen, survey = state.cache.get("sight", (None, None))
        return replace(sight.view(state, viewer, seen, survey), phase=clock(state.tick + 1))

    def player_for(self, state: State, word: str) -> str | None:
        low = word.strip().lower()
        for n in state.nations.values():
            if low in (n.name.lower(), n.colour.lower()):
                return n.name
        return None

    def seat(self, state: State, player: str) -> str | None:
        nation = state.nations.get(player)
        return nation.colour if nation is not None else None

    def picture(self, view: View, results: Sequence[OrderResult]) -> Scene:
        """The board as the viewer sees it: fog, remembered units pale, the
        tick's moves and attacks (picture.py)."""
        return picture.draw(view, results)

    def describe_map(self, board: Any) -> str:
        return f"{board.title}, for {self.seats.takes()}"

    def load_position(self, text: str) -> State:
        return position.load(text)

    def dump_position(self, state: State) -> str:
        return position.dump(state)

    def phase_result(self, before: State, result: TurnResult) -> dict[str, Any]:
        """One tick as JSON-ready data: every order with its result, every
        event with who may see it, and the position after."""
        return {
            "tick": result.state.tick,
            "clock": clock(result.state.tick),
            "results": [
                {**r.to_dict(), "visible_to": sorted(r.visible_to or ())} for r in result.results
            ],  # fmt: skip
            "events": [
                {
                    **e.to_dict(),
                    "visible_to": None if e.visible_to is None else sorted(e.visible_to),
                }
                for e in result.events
            ],  # fmt: skip
            "position": position.dump(result.state),
        }


def came_into_sight(before: State, after: State, nation: str) -> bool:
    """Whether ``nation`` sees a unit now that it did not see at the end
    of the tick before (its memory holds what it saw, with the tick)."""
    now = after.nations[nation].memory
    was = before.nations[nation].memory if nation in before.nations else {}
    for unit, s in now.items():
        if s.tick == after.tick:
            old = was.get(unit)
            if old is None or old.tick != before.tick:
                return True
    return False


GAME = Strategic()
