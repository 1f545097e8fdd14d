"""One Implosion turn (docs/rules/implosion.md).

1. Every order runs in the order received (mail number, then line): units
   move once per turn, so only units that stood on the node at the start
   of the turn and have not moved yet may go; a move asks for N units and
   moves what may go, up to N. Into an empty node or one's own: only what
   fits under the capacity goes. Into another player's node: a battle, the
   attacking force being at most the node's capacity; the defenders shoot
   first, then the attackers, alternating, each shot removing one enemy
   unit with probability 1/2, until one side is gone. Every roll is listed.
2. The end: only one player (or none) has units left, or the last turn is
   done. The winner: most centre points, then units, then spawn nodes
   occupied, then occupied nodes compared ring by ring from the centre out.
3. Otherwise the next turn starts: every occupied spawn node (starting
   nodes included) gives its occupier a unit, up to capacity; each empty
   starting node gives its owner a unit; the player alone on the centre
   scores a point.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from adjudicator.base import Event, OrderResult, OrderSheet, Outcome, Rng, TurnResult
from adjudicator.implosion.board import CENTRE
from adjudicator.implosion.orders import Transfer
from adjudicator.implosion.state import ACTIVE, State


class Reason(enum.StrEnum):
    MOVED = "moved"
    MOVED_PART = "moved_part"  # fewer than asked could go or fit
    CONQUERED = "conquered"
    REPELLED = "repelled"
    NOTHING_TO_MOVE = "nothing_to_move"
    NO_ROOM = "no_room"

    @property
    def succeeded(self) -> bool:
        return self in SUCCEEDED


SUCCEEDED = frozenset({Reason.MOVED, Reason.MOVED_PART, Reason.CONQUERED})


def battle(attackers: int, defenders: int, roll: Callable[[], bool]) -> tuple[int, int, str]:
    """(attackers left, defenders left, the shots): the defenders shoot
    first, then the attackers, back and forth while both sides have units;
    a shot hits when ``roll()`` is True. Shots are written ``D+`` (defender
    hit), ``A-`` (attacker missed) and so on."""
    shots = []
    defending = True
    while attackers > 0 and defenders > 0:
        hit = roll()
        if defending:
            attackers -= hit
        else:
            defenders -= hit
        shots.append(("D" if defending else "A") + ("+" if hit else "-"))
        defending = not defending
    return attackers, defenders, " ".join(shots)


def adjudicate(state: State, sheets: Sequence[OrderSheet], seed: int) -> TurnResult:
    active = set(state.active)
    orders = sorted(
        (o for s in sheets for o in s.orders if isinstance(o, Transfer) and o.player in active),
        key=lambda o: (o.seq, o.line, o.player),
    )
    turn = _Turn(state, Rng(seed))
    for o in orders:
        turn.transfer(o)
    results, events = turn.results, turn.events
    new = replace(
        state,
        turn=state.turn + 1,
        units={k: (v[0], v[1]) for k, v in sorted(turn.units.items()) if v[1] > 0},
    )
    outcome = _end(new)
    if outcome is not None:
        events.append(Event("game_over", {"reason": outcome.reason, "winners": outcome.winners}))
        return TurnResult(replace(new, outcome=outcome), tuple(results), tuple(events))
    new, produced = start_of_turn(new)
    events += produced
    return TurnResult(new, tuple(results), tuple(events))


class _Turn:
    """What the transfers change as they run, one at a time: the units on
    each node, how many of them may still move (those there since the turn
    began), and the results and events so far."""

    def __init__(self, state: State, rng: Rng) -> None:
        self.board = state.board
        self.rng = rng
        self.units: dict[str, list[Any]] = {k: [v[0], v[1]] for k, v in state.units.items()}
        self.may_move = {k: v[1] for k, v in state.units.items()}
        self.results: list[OrderResult] = []
        self.events: list[Event] = []

    def done(self, o: Transfer, reason: Reason, **facts: Any) -> None:
        self.results.append(OrderResult(o, reason.succeeded, reason, facts))

    def transfer(self, o: Transfer) -> None:
        """One transfer: a move to an empty or own node, or a battle."""
        here = self.units.get(o.origin)
        free = min(self.may_move.get(o.origin, 0), here[1]) if here and here[0] == o.player else 0
        wanted = free if o.count is None else min(o.count, free)
        if wanted == 0:
            self.done(o, Reason.NOTHING_TO_MOVE, origin=o.origin)
            return
        there = self.units.get(o.target)
        cap = self.board.node[o.target].capacity
        if there is None or there[0] == o.player:
            self.move(o, wanted, there[1] if there else 0, cap)
        else:
            self.battle(o, min(wanted, cap), there)  # at most as many attack as the node holds

    def move(self, o: Transfer, wanted: int, present: int, cap: int) -> None:
        going = min(wanted, cap - present)
        if going == 0:
            self.done(o, Reason.NO_ROOM, target=o.target, capacity=cap)
            return
        _leave(self.units, self.may_move, o.origin, going)
        self.units[o.target] = [o.player, present + going]
        reason = Reason.MOVED if going == (o.count or wanted) else Reason.MOVED_PART
        self.done(o, reason, moved=going, asked=o.count or "all", target=o.target, capacity=cap)

    def battle(self, o: Transfer, going: int, there: list[Any]) -> None:
        defender, defending = there
        left, kept, shots = battle(going, defending, self.rng.coin)
        _leave(self.units, self.may_move, o.origin, going)
        facts = {
            "attackers": going,
            "defender": defender,
            "defenders": defending,
            "shots": shots,
            "target": o.target,
        }
        if left > 0:
            self.units[o.target] = [o.player, left]
            self.may_move[o.target] = 0  # they arrived this turn
            self.done(o, Reason.CONQUERED, survivors=left, **facts)
            self.events.append(
                Event("conquered", {"by": o.player, "node": o.target, "from": defender})
            )
        else:
            self.units[o.target] = [defender, kept]
            if o.target in self.may_move:  # losses fall on units that arrived this turn first
                self.may_move[o.target] = min(self.may_move[o.target], kept)
            self.done(o, Reason.REPELLED, survivors=kept, **facts)


def _leave(units: dict[str, list[Any]], may_move: dict[str, int], node: str, n: int) -> None:
    units[node][1] -= n
    may_move[node] -= n
    if units[node][1] == 0:
        del units[node]


def start_of_turn(state: State) -> tuple[State, list[Event]]:
    """Spawns, starting nodes and the centre point, before a turn's moves."""
    board = state.board
    units = {k: list(v) for k, v in state.units.items()}
    points = dict(state.points)
    events: list[Event] = []
    for node in board.nodes:
        if not node.spawns:
            continue
        held = units.get(node.name)
        if held is not None:
            if held[1] < node.capacity:
                held[1] += 1
                events.append(Event("spawned", {"player": held[0], "node": node.name}))
        elif node.kind == "start":
            owner = next((p for p in state.players if p.start == node.name), None)
            if owner is not None and owner.status == ACTIVE:
                units[node.name] = [owner.name, 1]
                events.append(Event("spawned", {"player": owner.name, "node": node.name}))
    centre = units.get(CENTRE)
    if centre is not None:
        points[centre[0]] = points.get(centre[0], 0) + 1
        events.append(Event("centre_point", {"player": centre[0], "points": points[centre[0]]}))
    return (
        replace(state, units={k: (v[0], v[1]) for k, v in sorted(units.items())}, points=points),
        events,
    )


def _end(state: State) -> Outcome | None:
    holders = {who for who, _ in state.units.values()}
    if len(holders) <= 1:
        return Outcome("last_player" if holders else "no_units", tuple(holders), dict(state.points))
    if state.turn >= state.max_turns:
        return Outcome("last_turn", winners(state), dict(state.points))
    return None


def rank_key(state: State, player: str) -> tuple[Any, ...]:
    """What decides the winner, best first when sorted in reverse: centre
    points, units, spawn nodes occupied, then the occupied nodes counted
    ring by ring from the centre outward."""
    board = state.board
    mine = [board.node[n] for n, (who, _) in state.units.items() if who == player]
    rings = tuple(sum(1 for n in mine if n.ring == r) for r in range(1, 13))
    return (
        state.points.get(player, 0),
        state.unit_count[player],
        sum(1 for n in mine if n.spawns),
        rings,
    )


def winners(state: State, players: Iterable[str] | None = None) -> tuple[str, ...]:
    names = list(players if players is not None else state.active)
    if not names:
        return ()
    best = max(rank_key(state, p) for p in names)
    return tuple(sorted(p for p in names if rank_key(state, p) == best))
