"""Empire: the phases of a Diplomacy game, and the Empire endgame
(../shared/rules/empire-endgame.txt; docs/rules/empire.md).

Phases: Spring and Fall movement from 1901 (S1901M, F1901M), a retreat
phase after a movement that dislodges (S1901R, F1901R), and the Winter
adjustments (W1901A) when some power has builds or removals to make.
Supply centres change owner at the end of Fall, after its retreats.

The endgame: after the Winter adjustments an empire owning no supply
centre has lost (its player may watch, not order). The game ends when
only one empire owns supply centres, after the Winter of the last year
(1945: "Christmas Eve 1945"), or by truce: once three or fewer empires
remain, at the end of a season in which every remaining empire declares
it (VOTE TRUCE; VOTE NO TRUCE withdraws). Neutral empires (powers nobody
plays; at most two) hold every turn, never build, and always declare a
truce. At the end each surviving empire's player scores its supply
centres; a player whose empire lost scores -3 (the host's scoreboard never
goes below 0).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from adjudicator.base import (
    Event,
    Game,
    GameError,
    Order,
    OrderMode,
    OrderResult,
    OrderSheet,
    Outcome,
    Problem,
    ProblemKind,
    Seats,
    Standing,
    TurnResult,
    View,
    canonical_json,
    outcome_from_dict,
    outcome_to_dict,
)
from adjudicator.drawing import Scene
from adjudicator.empire import position, seating
from adjudicator.empire.board import Board, province_of, shipped_board
from adjudicator.empire.boardmap import board_picture
from adjudicator.empire.orders import Convoy, Hold, Move, Support, read
from adjudicator.empire.phases import (
    Build,
    Dislodged,
    Remove,
    Retreat,
    Waive,
    adjust,
    centre_counts,
    read_adjustments,
    read_retreats,
    resolve_retreats,
    retreat_options,
)
from adjudicator.empire.resolve import Reason, Resolver, after_movement

FORMAT = 1
SEASONS = {"S": "Spring", "F": "Fall", "W": "Winter"}
KINDS = {"M": "movement", "R": "retreats", "A": "adjustments"}
# every two of them, and the white of a centre nobody owns, told apart also
# in deuteranopia and protanopia (tests/test_empire_board_map.py)
COLOURS = {
    "Austria": "#c62a0c", "England": "#0d1a6e", "France": "#80b5ff", "Germany": "#1e201a",
    "Italy": "#2fa37c", "Russia": "#8b3fce", "Turkey": "#f7e81c",
}  # fmt: skip


@dataclass(frozen=True)
class Player:
    name: str
    power: str
    status: str = "active"  # active, lost, removed


@dataclass(frozen=True, kw_only=True, slots=True)
class Vote(Order):
    """VOTE TRUCE / VOTE NO TRUCE, an order of any phase."""

    truce: bool

    @property
    def unit(self) -> str:
        return "vote"

    def canonical(self) -> str:
        return "VOTE TRUCE" if self.truce else "VOTE NO TRUCE"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "vote", "player": self.player, "truce": self.truce}


@dataclass(frozen=True)
class State:
    board: Board
    players: tuple[Player, ...]
    year: int
    season: str  # S, F, W
    kind: str  # M, R, A
    units: Mapping[str, tuple[str, str, str]]
    owners: Mapping[str, str]  # supply centre -> power
    turn: int = 0
    dislodged: Mapping[str, Dislodged] = field(default_factory=dict)
    contested: frozenset[str] = frozenset()
    truce: frozenset[str] = frozenset()  # powers declaring a truce
    lost: frozenset[str] = frozenset()
    last_year: int = 1945
    seed: int = 0
    outcome: Outcome | None = None

    @property
    def code(self) -> str:
        return f"{self.season}{self.year}{self.kind}"

    @property
    def power_of(self) -> dict[str, str]:
        return {p.name: p.power for p in self.players if p.status == "active"}

    @property
    def player_of(self) -> dict[str, str]:
        return {p.power: p.name for p in self.players}

    @property
    def neutral(self) -> tuple[str, ...]:
        played = {p.power for p in self.players}
        return tuple(p.name for p in self.board.powers if p.name not in played)

    @property
    def remaining(self) -> tuple[str, ...]:
        """Empires not lost (neutral ones included)."""
        return tuple(p.name for p in self.board.powers if p.name not in self.lost)


class Empire(Game):
    name = "empire"
    title = "Empire"
    order_mode = OrderMode.SIMULTANEOUS
    seats = Seats(minimum=5, maximum=7)
    default_deadline = "0 20 * * *"  # a phase a day, at 20:00
    scoreboard = True
    positions = True  # load_position, dump_position, phase_result
    phase_kinds = ("movement", "retreat", "adjustment")  # each may have its own deadline

    def maps(self) -> tuple[str, ...]:
        return ("standard",)

    def load_map(self, source: str) -> Board:
        if source.strip() != "standard":
            raise GameError("Empire is played on the standard map: map: standard")
        return shipped_board("standard")

    def describe_map(self, board: Board) -> str:
        centres = sum(1 for p in board.provinces if p.supply)
        return (f"{board.title}, {len(board.provinces)} provinces, {centres} supply centres, "
                f"{len(board.powers)} powers, {self.seats.takes()}")  # fmt: skip

    def map_players(self, board: Board) -> int:
        return len(board.powers)

    def start(self, board: Board, players: Sequence[str], options: Mapping[str, Any] | None = None,
              seed: int = 0) -> State:  # fmt: skip
        """The standard opening, Spring 1901. Players get powers at random
        from the game's seed; powers nobody plays are neutral (at most two).
        Option ``last_year`` (default 1945)."""
        return self.start_seated(board, players, options, seed, {}, {})

    def seat_names(self, board: Board) -> tuple[str, ...]:
        """The seven powers: games.yaml may give a player one (``power:``)
        and players may rank them (``preferences:``, PREFERENCE)."""
        return tuple(p.name for p in board.powers)

    def read_seat(self, board: Board, word: str) -> str | None:
        """A power by its name in any case, its three letters (Eng, Fra,
        Ger, Ita, Aus, Rus, Tur) or a longer start of its name."""
        return seating.read_power(self.seat_names(board), word)

    def start_seated(self, board: Board, players: Sequence[str],
                     options: Mapping[str, Any] | None, seed: int,
                     fixed: Mapping[str, str],
                     preferences: Mapping[str, Sequence[str]]) -> State:  # fmt: skip
        """The opening with the game master's fixed powers and the players'
        lists of wishes (adjudicator/empire/seating.py: the lowest total of
        the ranks, ties settled by the seed; without either, the seed's deal)."""
        opts = dict(options or {})
        last_year = opts.pop("last_year", 1945)
        if opts:
            raise GameError(f"Empire has one option, last_year (got: {', '.join(opts)})")
        if not isinstance(last_year, int) or not 1901 <= last_year <= 2100:
            raise GameError("Empire option last_year must be a year from 1901")
        names = list(players)
        if len(set(names)) != len(names):
            raise GameError("a player is listed twice")
        if not 5 <= len(names) <= 7:
            raise GameError(
                f"Empire takes 5 to 7 players (at most 2 neutral empires), not {len(names)}"
            )
        powers = seating.assign(self.seat_names(board), names, fixed, preferences, seed)
        seated = tuple(Player(n, powers[n]) for n in names)
        units = {
            province_of(loc): (p.name, kind, loc) for p in board.powers for kind, loc in p.units
        }
        owners = {h: p.name for p in board.powers for h in p.homes}
        return State(board, seated, 1901, "S", "M", units, owners, 0, last_year=last_year,
                     seed=seed)  # fmt: skip

    def phase(self, state: State) -> tuple[int, str]:
        return state.turn + 1, state.code

    def phase_title(self, phase: str) -> str:
        """ "S1902M" as "Spring 1902, movement (S1902M)"."""
        try:
            return f"{phase_words(phase)} ({phase})"
        except (KeyError, IndexError):
            return phase

    def read_orders(self, state: State, player: str, text: str, seq: int = 0) -> OrderSheet:
        power = state.power_of.get(player)
        lines = text.splitlines()
        votes: list[Any] = []
        kept = []
        for n, line in enumerate(lines, 1):
            rest = []
            for part in re.split(r"[,;]", line):  # a vote may share a line with orders
                m = re.fullmatch(r"\s*vote\s+(no\s+)?truce\s*", part, re.I)
                if m:
                    votes.append(Vote(player=player, seq=seq, line=n, truce=m[1] is None))
                else:
                    rest.append(part)
            kept.append(",".join(rest))
        problems: list[Problem] = []
        if state.outcome is not None or power is None:
            reason = "game_over" if state.outcome is not None else "not_in_game"
            for n, line in enumerate(lines, 1):
                if line.strip() and not line.strip().startswith("#"):
                    problems.append(Problem(n, line.strip(), ProblemKind.NOT_ALLOWED, reason, {}))
            return OrderSheet(player, (), tuple(problems))
        text = "\n".join(kept)
        if state.kind == "M":
            sheet = read(state.board, dict(state.units), power, text, seq)
        elif state.kind == "R":
            sheet = read_retreats(state.board, state.units, state.dislodged, state.contested,
                                  power, text, seq)  # fmt: skip
        else:
            sheet = read_adjustments(state.board, state.units, power, text, seq, state.owners)
        orders = tuple(replace(o, player=player) for o in sheet.orders)
        return OrderSheet(player, (*orders, *votes), sheet.problems, sheet.warnings)

    def default_orders(
        self, state: State, player: str, orders: Sequence[Order]
    ) -> tuple[Order, ...]:
        power = state.power_of.get(player)
        if power is None or state.kind != "M":
            return ()
        given = {o.unit for o in orders}
        return tuple(
            Hold(player=player, kind=k, loc=loc)
            for p, (pw, k, loc) in sorted(state.units.items())
            if pw == power and p not in given
        )

    # -- adjudication ------------------------------------------------------------------

    def adjudicate(self, state: State, sheets: Sequence[OrderSheet], seed: int = 0) -> TurnResult:
        if state.outcome is not None:
            raise GameError("the game is over")
        power_of = state.power_of
        truce = set(state.truce)
        for s in sheets:
            for o in s.orders:
                if isinstance(o, Vote) and s.player in power_of:
                    (truce.add if o.truce else truce.discard)(power_of[s.player])
        orders = [o for s in sheets if s.player in power_of for o in s.orders
                  if not isinstance(o, Vote)]  # fmt: skip
        state = replace(state, truce=frozenset(truce))
        if state.kind == "M":
            return self._movement(state, orders)
        if state.kind == "R":
            return self._retreats(state, orders)
        return self._adjustments(state, orders)

    def _power(self, state: State, o: Order) -> str:
        return state.power_of.get(o.player, o.player)

    def _movement(self, state: State, given: list[Order]) -> TurnResult:
        by_unit: dict[str, Order] = {}
        for o in given:
            if isinstance(o, (Hold, Move, Support, Convoy)):
                unit = state.units.get(o.unit)
                if unit is not None and unit[0] == self._power(state, o):
                    by_unit[o.unit] = o
        player_of = state.player_of
        for p, (power, kind, loc) in state.units.items():
            if p not in by_unit:  # no order (neutral empires never order): hold
                by_unit[p] = Hold(player=player_of.get(power, power), kind=kind, loc=loc)
        resolver = Resolver(state.board, state.units, by_unit)
        outcome = resolver.run()
        after, dislodged = after_movement(state.board, state.units, by_unit, outcome)
        results = []
        for p, o in sorted(by_unit.items()):
            reason = result_code(resolver, p)
            if p in dislodged:
                reason = reason.dislodged()
            facts: dict[str, Any] = {"unit": o.canonical()}
            if p in dislodged:
                d = dislodged[p]
                options = retreat_options(state.board, after, d, outcome.bounced)
                facts["retreats"] = list(options)
                facts["by"] = d.attacker
                facts["shown_by"] = d.attacker.upper()  # the report's words
                facts["shown_retreats"] = [o.upper() for o in options] or ["nowhere"]
            results.append(OrderResult(o, reason.succeeded, reason, facts))
        events = [
            Event(
                "dislodged",
                {
                    "power": d.power,
                    "unit": f"{d.kind} {d.loc.upper()}",
                    "retreats": [
                        o.upper() for o in retreat_options(state.board, after, d, outcome.bounced)
                    ]
                    or ["nowhere"],
                },
            )  # fmt: skip
            for d in dislodged.values()
        ]
        new = replace(state, units=after, turn=state.turn + 1, dislodged=dislodged,
                      contested=outcome.bounced)  # fmt: skip
        truce_end = self._truce(new)
        if truce_end is not None:
            events.append(Event("game_over", {"reason": "truce", "winners": truce_end.winners}))
            return TurnResult(replace(new, outcome=truce_end, dislodged={}), tuple(results),
                              tuple(events))  # fmt: skip
        # retreats whenever a unit must retreat (even with nowhere to go: it is disbanded then)
        if dislodged:
            return TurnResult(replace(new, kind="R"), tuple(results), tuple(events))
        nxt, more = self._after_season(new)
        return TurnResult(nxt, tuple(results), tuple(events + more))

    def _retreats(self, state: State, given: list[Order]) -> TurnResult:
        orders: dict[str, Retreat] = {}
        for o in given:
            if isinstance(o, Retreat):
                d = state.dislodged.get(o.unit)
                if d is not None and d.power == self._power(state, o):
                    orders[o.unit] = o
        after, what = resolve_retreats(state.board, state.units, state.dislodged,
                                       state.contested, orders)  # fmt: skip
        player_of = state.player_of
        results = []
        for p, d in sorted(state.dislodged.items()):
            o = orders.get(p) or Retreat(player=player_of.get(d.power, d.power), kind=d.kind,
                                         loc=d.loc, to=None)  # fmt: skip
            words = what[p]  # "retreated to X", "disbanded", "bounced"
            reason = Reason.RETREATED if words.startswith("retreated") else Reason(words)
            results.append(OrderResult(o, reason.succeeded, reason, {"unit": o.canonical()}))
        new = replace(state, units=after, dislodged={}, contested=frozenset(), turn=state.turn + 1)
        nxt, events = self._after_season(new)
        return TurnResult(nxt, tuple(results), tuple(events))

    def _after_season(self, state: State) -> tuple[State, list[Event]]:
        """After Spring: Fall. After Fall: the centres change owner, then
        Winter adjustments if anyone has some to make, else the year ends."""
        if state.season == "S":
            return replace(state, season="F", kind="M"), []
        owners = dict(state.owners)
        events = []
        for prov, (power, _, _) in state.units.items():
            if state.board.province[prov].supply and owners.get(prov) != power:
                events.append(Event("centre_taken", {"power": power, "centre": prov.upper(),
                                                     "from": owners.get(prov)}))  # fmt: skip
                owners[prov] = power
        state = replace(state, owners=owners)
        acting = self._adjusting(state)
        if acting & set(state.power_of.values()):
            return replace(state, season="W", kind="A"), events
        if acting:  # only empires nobody plays remove: at once, no phase to wait for
            after, report = adjust(state.board, state.units, state.owners, {},
                                   set(state.power_of.values()))  # fmt: skip
            events += [Event("civil_disorder", {"power": power, "what": what})
                       for o, power, what in report if o is None]  # fmt: skip
            state = replace(state, units=after)
        end, more = self._year_end(state)
        return end, events + more

    def _adjusting(self, state: State) -> set[str]:
        """The powers with something to do in a Winter adjustment phase: a
        removal to make, or a build and a vacant home centre they own to
        make it in (neutral empires never build)."""
        builders = set(state.power_of.values())
        out = set()
        for power, n in centre_counts(state.board, state.units, state.owners).items():
            if power in state.lost and n >= 0:
                continue
            if n < 0:
                out.add(power)
            elif n > 0 and power in builders and self._vacant_homes(state, power):
                out.add(power)
        return out

    def _vacant_homes(self, state: State, power: str) -> list[str]:
        return [h for h in state.board.power[power].homes
                if state.owners.get(h) == power and h not in state.units]  # fmt: skip

    def phase_kind(self, state: State) -> str:
        """Movement (S, F), retreat (R) or adjustment (Winter), from the
        phase code: each may have its own deadline in games.yaml."""
        return {"M": "movement", "R": "retreat"}.get(state.kind, "adjustment")

    def to_order(self, state: State) -> frozenset[str]:
        """The players with something to order in ``state`` (the game
        interface's capability: the host charges a missed phase only to
        them, and runs a retreat or adjustment phase in which nobody has
        anything to order at once): in movement, those with units; in
        retreats, those with a dislodged unit that has somewhere to go; in
        adjustments, those with builds they can make or removals."""
        if state.outcome is not None:
            return frozenset()
        if state.kind == "M":
            powers = {power for power, _, _ in state.units.values()}
        elif state.kind == "R":  # a unit with nowhere to go is disbanded: nothing to order
            board, units, contested = state.board, state.units, state.contested
            powers = {d.power for d in state.dislodged.values()
                      if retreat_options(board, units, d, contested)}  # fmt: skip
        else:
            powers = self._adjusting(state)
        return frozenset(name for name, power in state.power_of.items() if power in powers)

    def _adjustments(self, state: State, given: list[Order]) -> TurnResult:
        orders: dict[str, list[Order]] = {}
        for o in given:
            if isinstance(o, (Build, Remove, Waive)):
                orders.setdefault(self._power(state, o), []).append(o)
        builders = set(state.power_of.values())
        after, report = adjust(state.board, state.units, state.owners, orders, builders)
        results = []
        events = []
        for o, power, what in report:
            if o is None:
                events.append(Event("civil_disorder", {"power": power, "what": what}))
                continue
            reason = Reason(what.replace(" ", "_"))  # the adjustment's words as a code
            results.append(OrderResult(o, reason.succeeded, reason, {"unit": o.canonical()}))
        new = replace(state, units=after, turn=state.turn + 1)
        end, more = self._year_end(new)
        return TurnResult(end, tuple(results), tuple(events + more))

    def _year_end(self, state: State) -> tuple[State, list[Event]]:
        """After the Winter: losses, the end of the game, the next Spring."""
        events = []
        owning = {p for p in state.owners.values()}
        lost = set(state.lost)
        players = []
        for p in state.players:
            if p.status == "active" and p.power not in owning:
                lost.add(p.power)
                p = replace(p, status="lost")
                events.append(Event("empire_lost", {"player": p.name, "power": p.power}))
            players.append(p)
        for power in state.neutral:
            if power not in owning:
                lost.add(power)
        state = replace(state, players=tuple(players), lost=frozenset(lost),
                        truce=frozenset(state.truce - lost))  # fmt: skip
        outcome = None
        if len(owning) <= 1:
            outcome = self._final(state, "last_empire")
        elif state.year >= state.last_year:
            outcome = self._final(state, f"christmas_eve_{state.last_year}")
        if outcome is not None:
            events.append(
                Event("game_over", {"reason": outcome.reason, "winners": outcome.winners})
            )
            return replace(state, outcome=outcome), events
        return replace(state, year=state.year + 1, season="S", kind="M"), events

    def _truce(self, state: State) -> Outcome | None:
        remaining = [p for p in state.remaining if p in set(state.owners.values())]
        if len(remaining) > 3:
            return None
        declared = set(state.truce) | set(state.neutral)
        if all(p in declared for p in remaining):
            return self._final(state, "truce")
        return None

    def end_now(self, state: State, reason: str = "ended_by_the_game_master") -> State:
        """The game ends where it stands (the game master's END GAME): the
        surviving empires' players score their centres, as at any end."""
        return replace(state, outcome=self._final(state, reason))

    def _final(self, state: State, reason: str) -> Outcome:
        counts: dict[str, int] = {}
        for power in state.owners.values():
            counts[power] = counts.get(power, 0) + 1
        scores = {}
        for p in state.players:
            if p.power in counts and p.status == "active":
                scores[p.name] = counts[p.power]
            elif p.status == "lost":
                scores[p.name] = -3
        survivors = [p.name for p in state.players if p.status == "active" and p.power in counts]
        return Outcome(reason, tuple(sorted(survivors)), scores)

    # -- the rest of the interface -------------------------------------------------------

    def remove_player(self, state: State, player: str) -> State:
        """The player leaves: the empire goes into civil disorder (neutral:
        it holds, never builds, supports a truce)."""
        if player not in {p.name for p in state.players}:
            raise GameError(f"no player {player!r} in this game")
        players = tuple(p for p in state.players if p.name != player)
        return replace(state, players=players)

    def view(self, state: State, viewer: str | None) -> View:
        board = state.board
        counts: dict[str, int] = {}
        for power in state.owners.values():
            counts[power] = counts.get(power, 0) + 1
        unit_counts: dict[str, int] = {}
        for power, _, _ in state.units.values():
            unit_counts[power] = unit_counts.get(power, 0) + 1
        winners = set(state.outcome.winners) if state.outcome else set()
        standings = tuple(
            Standing(
                p.name,
                (("centres", counts.get(p.power, 0)), ("units", unit_counts.get(p.power, 0))),
                "winner" if p.name in winners else ("out" if p.status == "lost" else p.status),
            )
            for p in sorted(state.players, key=lambda p: (-counts.get(p.power, 0), p.name))
        )
        power = state.power_of.get(viewer or "")
        options: dict[str, tuple[str, ...]] = {}
        if power and state.outcome is None:
            options = self._options(state, power)
        data = {
            "name": board.name,
            "title": board.title,
            "provinces": [
                {
                    "abbr": p.abbr,
                    "name": p.name,
                    "x": p.x,
                    "y": p.y,
                    "kind": p.kind,
                    "supply": p.supply,
                    "owner": state.owners.get(p.abbr),
                    "unit": state.units.get(p.abbr),
                }  # fmt: skip
                for p in board.provinces
            ],
            "links": [list(x) for x in board.army_links],
            "colours": {p.power: COLOURS[p.power] for p in state.players}
            | {n: COLOURS[n] for n in state.neutral},
            "powers": {p.name: p.power for p in state.players},
            "phase": state.code,
            "phase_words": phase_words(state.code),
            "dislodged": {k: f"{d.kind} {d.loc.upper()}" for k, d in state.dislodged.items()},
            "retreats": self.retreats(state),
            "adjustments": centre_counts(board, state.units, state.owners),
            "units_by_power": units_by_power(state),
            "centres_by_power": centres_by_power(state),
        }
        return View(self.name, state.turn + 1, state.code, standings, (), data, options)

    def picture(self, view: View, results: Sequence[OrderResult]) -> Scene:
        """Provinces, centres, units, the phase's orders, dislodged units."""
        return board_picture(view, results)

    def retreats(self, state: State) -> dict[str, dict[str, Any]]:
        """The dislodged units of a retreat phase, as data: province ->
        {"power", "unit" ("A PAR"), "from" (the attacker's province),
        "options" (the locations it may retreat to; empty: it is disbanded)}."""
        return {
            prov: {
                "power": d.power,
                "unit": f"{d.kind} {d.loc.upper()}",
                "from": d.attacker,
                "options": list(retreat_options(state.board, state.units, d, state.contested)),
            }
            for prov, d in sorted(state.dislodged.items())
        }

    def _options(self, state: State, power: str) -> dict[str, tuple[str, ...]]:
        board = state.board
        out: dict[str, tuple[str, ...]] = {}
        if state.kind == "M":
            for p, (pw, kind, loc) in sorted(state.units.items()):
                if pw != power:
                    continue
                if kind == "A":
                    moves = sorted(q for q in board.army_adj[p] if board.province[q].kind != "sea")
                else:
                    moves = sorted(board.fleet_adj.get(loc, ()))
                u = f"{kind} {loc.upper()}"
                out[u] = (f"{u} holds", *[f"{u} moves to {m.upper()}" for m in moves])
        elif state.kind == "R":
            for _p, d in sorted(state.dislodged.items()):
                if d.power == power:
                    opts = retreat_options(board, state.units, d, state.contested)
                    u = f"{d.kind} {d.loc.upper()}"
                    out[u] = (f"{u} disbands", *[f"{u} retreats to {o.upper()}" for o in opts])
        else:
            n = centre_counts(board, state.units, state.owners).get(power, 0)
            if n > 0:
                homes = [h.upper() for h in self._vacant_homes(state, power)]
                out["builds"] = (f"builds up to {n} in {', '.join(homes) or 'nowhere'}",)
            elif n < 0:
                out["removals"] = (f"removes {-n}",)
        return out

    def dump_state(self, state: State) -> str:
        return canonical_json(
            {
                "format": FORMAT,
                "game": self.name,
                "map": state.board.name,
                "players": [[p.name, p.power, p.status] for p in state.players],
                "year": state.year,
                "season": state.season,
                "kind": state.kind,
                "turn": state.turn,
                "units": {k: list(v) for k, v in sorted(state.units.items())},
                "owners": dict(sorted(state.owners.items())),
                "dislodged": {
                    k: [d.power, d.kind, d.loc, d.attacker, d.by_convoy]
                    for k, d in sorted(state.dislodged.items())
                },
                "contested": sorted(state.contested),
                "truce": sorted(state.truce),
                "lost": sorted(state.lost),
                "last_year": state.last_year,
                "seed": state.seed,
                "outcome": outcome_to_dict(state.outcome),
            }
        )

    def load_state(self, text: str) -> State:
        d = json.loads(text)
        if d.get("game") != self.name or d.get("format") != FORMAT:
            raise GameError(f"not an Empire state of format {FORMAT}")
        return State(
            shipped_board(d["map"]),
            tuple(Player(*p) for p in d["players"]),
            d["year"],
            d["season"],
            d["kind"],
            {k: (v[0], v[1], v[2]) for k, v in d["units"].items()},
            dict(d["owners"]),
            d["turn"],
            {k: Dislodged(*v) for k, v in d["dislodged"].items()},
            frozenset(d["contested"]),
            frozenset(d["truce"]),
            frozenset(d["lost"]),
            d["last_year"],
            d["seed"],
            outcome_from_dict(d["outcome"]),
        )

    # -- positions as text, results as data ------------------------------------------

    def dump_position(self, state: State) -> str:
        """The position as text (adjudicator/empire/position.py): the phase,
        each power's units and centres in the classic form, the dislodged
        units with their retreat options, the standoffs."""
        return position.dump(state)

    def load_position(self, text: str, map_name: str = "standard") -> State:
        """A state from a position's text (players named after their powers
        unless a Players line names them); GameError names every problem."""
        board = shipped_board(map_name)
        d = position.load(board, text)
        players = tuple(
            Player(name, power, "lost" if power in d["lost"] else status)
            for name, power, status in d["players"]
        )
        return State(board, players, d["year"], d["season"], d["kind"], d["units"],
                     d["owners"], 0, d["dislodged"], frozenset(d["contested"]),
                     frozenset(d["truce"]), frozenset(d["lost"]), d["last_year"])  # fmt: skip

    def phase_result(self, before: State, result: TurnResult) -> dict[str, Any]:
        """The whole phase as data (JSON-ready): the phase resolved and the
        next, every order with its result code (the classic judges' words
        are in templates/empire/phrases.yaml) and facts, the events, the
        dislodged units with their retreat options, and both positions."""
        after: State = result.state
        return {
            "phase": before.code,
            "phase_words": phase_words(before.code),
            "next_phase": after.code,
            "next_phase_words": phase_words(after.code),
            "orders": [
                {**r.to_dict(), "power": before.power_of.get(r.order.player, r.order.player)}
                for r in result.results
            ],
            "events": [e.to_dict() for e in result.events],
            "retreats": self.retreats(after),
            "position": position.dump(before),
            "next_position": position.dump(after),
        }

    def seat(self, state: State, player: str) -> str | None:
        """The power ``player`` plays."""
        for p in state.players:
            if p.name == player:
                return p.power
        return None

    def masked(self, state: State) -> State:
        """Gunboat: every player named by its power."""
        return replace(state, players=tuple(replace(p, name=p.power) for p in state.players))

    def press_signature(self, state: State, player: str) -> str:
        """Press is signed with the power, as Diplomacy players write:
        "England (ann)"."""
        power = self.seat(state, player)
        return f"{power} ({player})" if power else player

    def player_for(self, state: State, word: str) -> str | None:
        low = word.strip().lower()
        for p in state.players:
            if low in (p.name.lower(), p.power.lower()):
                return p.name
        return None


def phase_words(code: str) -> str:
    """ "S1901M" in words: "Spring 1901, movement"."""
    return f"{SEASONS[code[0]]} {code[1:-1]}, {KINDS[code[-1]]}"


def units_by_power(state: State) -> dict[str, list[str]]:
    """Each power's units in the classic form ("A PAR", "F STP/SC"), fleets
    and armies by province name, every power listed."""
    out: dict[str, list[str]] = {p.name: [] for p in state.board.powers}
    for _prov, (power, kind, loc) in sorted(state.units.items()):
        out.setdefault(power, []).append(f"{kind} {loc.upper()}")
    return out


def centres_by_power(state: State) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {p.name: [] for p in state.board.powers}
    for centre, power in sorted(state.owners.items()):
        out.setdefault(power, []).append(centre.upper())
    return out


def result_code(r: Resolver, p: str) -> Reason:
    """The classic judges' word for what became of the order of the unit
    at ``p`` after the movement (before dislodgement is added; its
    ``succeeded`` says whether it did what it said), as docs/rules/empire.md
    lists them:

    - a move: "moved", "bounce", or "no_convoy" (a convoyed army whose
      convoy failed);
    - a support: "supported"; "cut" (only when attacked); "no_convoy" for
      a convoyed move whose convoy failed; "void" when it matches no order
      or counts for nothing (a move against the supporter's own unit that
      stays, unless without it another move there would have succeeded:
      DATC 6.E.12, and 6.E.7 where it is void);
    - a convoy: "void" when no army is ordered its way; "convoyed" when
      the army went through; "disrupted" when a paradox made it fail
      (Szykman); "no_convoy" when the army went overland; "dislodged"
      alone for a fleet of a convoy that failed as it was dislodged, and
      "no_convoy" for the convoy's other fleets; else "unused" (the route
      held, the army was stopped where it went)."""
    o, ok = r.orders[p], r.result[p]
    if isinstance(o, Move):
        if ok:
            return Reason.MOVED
        return Reason.NO_CONVOY if r.via_convoy(p) and not r.path(p) else Reason.BOUNCE
    if isinstance(o, Support):
        if not r._matches(o):
            return Reason.VOID
        if not ok:
            return Reason.CUT
        if o.dest is not None:
            if not r.path(o.target):
                return Reason.NO_CONVOY
            target = r.units.get(o.dest)
            stays = target is not None and not (o.dest in r.dest and r.result[o.dest])
            if stays and target[0] == r.units[p][0] and not _held_off(r, o):
                return Reason.VOID
        return Reason.SUPPORTED
    if isinstance(o, Convoy):
        army = r.orders.get(o.army)
        if not (isinstance(army, Move) and r.dest.get(o.army) == o.dest):
            return Reason.VOID
        convoyed = r.via_convoy(o.army)
        if ok and r.result[o.army] and convoyed:
            return Reason.CONVOYED
        if p in r.paradox and not r.dislodged(p):
            return Reason.DISRUPTED
        if not convoyed:
            return Reason.NO_CONVOY  # the army went overland
        if not ok:
            return Reason.UNUSED  # dislodged: that word alone is said
        if not r.path(o.army):
            return Reason.NO_CONVOY
        return Reason.UNUSED
    return Reason.HELD


def _held_off(r: Resolver, o: Support) -> bool:
    """Whether support ``o`` (for a move that dislodges nobody) made
    another move to the same province fail: without its one strength in
    the supported move's prevent strength, that move would have got there."""
    dest = o.dest
    assert dest is not None
    for q in r.moves_to.get(dest, ()):
        if q == o.target or r.result[q]:
            continue
        attack = r.attack(q)
        opponent = r.head_to_head(q)
        against = r.defend(opponent) if opponent is not None else r.hold(dest)
        if attack == 0 or attack <= against:
            continue
        rivals = (x for x in r.moves_to[dest] if x != q)
        if all(attack > r.prevent(x) - (x == o.target) for x in rivals):
            return True
    return False


GAME = Empire()
