"""The Office Wars tick (officewars.html, The tick; RULINGS.md, Office Wars).

``adjudicate`` runs the named steps in the order of the rules: the vote,
movement, pinning, battle, deployment, the end of the game. Each step is a
small pure function over plain dicts; the old state is never changed.
Every order gets exactly one result with a stable reason code.
"""

from __future__ import annotations

import enum
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from adjudicator.base import Event, Order, OrderResult, OrderSheet, Outcome, TurnResult
from adjudicator.officewars.orders import (
    Attack,
    Hold,
    Move,
    Support,
    UnitOrder,
    Vote,
    check_order,
)
from adjudicator.officewars.state import ACTIVE, OUT, State
from adjudicator.officewars.votes import surrender_vote


class Reason(enum.StrEnum):
    """Stable result codes; the value is what reports and JSON carry."""

    # succeeded
    HELD = "held"
    MOVED = "moved"
    CONQUERED = "conquered"
    SUPPORT_GIVEN = "support_given"  # counted in a battle of the supported unit
    SUPPORT_UNUSED = "support_unused"  # valid, but the unit fought no battle
    VOTE_COUNTED = "vote_counted"
    # failed
    LOST = "lost"  # a holding or supporting unit whose system was conquered
    MOVE_BLOCKED = "move_blocked"  # destination occupied by a unit that stays
    MOVE_CONTESTED = "move_contested"  # another unit moved to the same system
    DEFENDED = "defended"  # attack not greater than the defence
    OUTNUMBERED = "outnumbered"  # a stronger attack on the same system
    BLOCKED_EQUAL = "blocked_equal"  # equal strongest attacks block each other
    HEAD_TO_HEAD_LOST = "head_to_head_lost"
    HEAD_TO_HEAD_EQUAL = "head_to_head_equal"
    SUPPORT_CUT = "support_cut"  # the supporter was pinned
    INVALID = "invalid"  # the order is not legal in this position: the unit holds
    GAME_ENDED = "game_ended"  # the surrender vote ended the game first

    @property
    def succeeded(self) -> bool:
        return self in _SUCCESS


_SUCCESS = {
    Reason.HELD,
    Reason.MOVED,
    Reason.CONQUERED,
    Reason.SUPPORT_GIVEN,
    Reason.SUPPORT_UNUSED,
    Reason.VOTE_COUNTED,
}
_SUCCEEDED = {r: r in _SUCCESS for r in Reason}  # looked up once per result


def _result(order: Order, reason: Reason, **facts: Any) -> OrderResult:
    return OrderResult(order, _SUCCEEDED[reason], reason, facts)


# ----------------------------------------------------------------------------
# Collecting the orders


@dataclass
class Tick:
    """Scratch data of one tick: the orders that stand, keyed by the unit's
    starting system, and the results decided so far."""

    orders: dict[str, UnitOrder]
    votes: dict[str, Vote]
    results: dict[str, OrderResult]  # by unit system (or "vote:<player>")


def collect(state: State, sheets: Sequence[OrderSheet]) -> Tick:
    """Every order checked again against the state (a sheet may be stale or
    hand-made); the last order for a unit, by (seq, line), stands; units
    without an order hold."""
    given = sorted((o for sheet in sheets for o in sheet.orders), key=lambda o: (o.seq, o.line))
    orders: dict[str, UnitOrder] = {}
    votes: dict[str, Vote] = {}
    results: dict[str, OrderResult] = {}
    for order in given:
        problem = check_order(state, order)
        if isinstance(order, Vote):
            if problem is None:
                votes[order.player] = order
            else:
                votes.pop(order.player, None)
                results[f"vote:{order.player}"] = _result(
                    order, Reason.INVALID, problem=problem.reason
                )
            continue
        if problem is not None:
            # an illegal order stands in for nothing: the unit keeps its
            # earlier legal order or holds
            key = getattr(order, "system", "")
            if key and key not in orders:
                results[key] = _result(order, Reason.INVALID, problem=problem.reason)
            continue
        assert isinstance(order, UnitOrder)
        orders[order.system] = order
        results.pop(order.system, None)
    # units without a legal order hold (orders.default_orders, for all at once)
    for system, player in state.units.items():
        if system not in orders:
            orders[system] = Hold(player=player, system=system)
    return Tick(orders, votes, results)


# ----------------------------------------------------------------------------
# The steps


def step_vote(state: State, tick: Tick) -> tuple[bool, list[Event]]:
    """Count the surrender vote on the position at the start of the tick."""
    yes = [p for p, v in tick.votes.items() if v.surrender]
    vote = surrender_vote(state, yes)
    for player, order in tick.votes.items():
        tick.results[f"vote:{player}"] = _result(
            order, Reason.VOTE_COUNTED, weight=vote.weights.get(player, 0)
        )
    if not vote.open or not tick.votes:
        return False, []
    event = Event(
        "vote_counted",
        {
            "vote": "surrender",
            "leader": vote.leader,
            "yes": list(vote.yes),
            "yes_weight": vote.yes_weight,
            "total_weight": vote.total,
            "carried": vote.carried,
        },
    )
    return vote.carried, [event]


def step_movement(state: State, tick: Tick) -> dict[str, str]:
    """Simultaneous moves (RULINGS.md, tick 1). Returns where each unit
    stands after movement, keyed by its starting system."""
    moves = {s: o for s, o in tick.orders.items() if isinstance(o, Move)}
    movers_to: dict[str, list[str]] = defaultdict(list)
    for s, o in moves.items():
        movers_to[o.to].append(s)
    ok: dict[str, bool] = {}
    for s, o in moves.items():
        if len(movers_to[o.to]) > 1:
            ok[s] = False
            others = sorted(t for t in movers_to[o.to] if t != s)
            tick.results[s] = _result(o, Reason.MOVE_CONTESTED, to=o.to, others=others)
    units = state.units
    for start in moves:
        if start in ok:
            continue
        # follow the chain start -> occupant of its destination -> ...
        path: list[str] = []
        on_path: dict[str, int] = {}
        here = start
        while True:
            if here in ok:
                verdict = ok[here]
                break
            if here in on_path:  # a rotation: every move in the cycle succeeds
                verdict = True
                for s in path[on_path[here] :]:
                    ok[s] = True
                path = path[: on_path[here]]
                break
            on_path[here] = len(path)
            path.append(here)
            dest = moves[here].to
            if dest not in units:
                verdict = True
                ok[here] = True
                path.pop()
                break
            if dest not in moves:  # its unit stays
                verdict = False
                ok[here] = False
                tick.results[here] = _result(
                    moves[here], Reason.MOVE_BLOCKED, to=dest, by=units[dest]
                )
                path.pop()
                break
            here = dest
        for s in reversed(path):  # each depends on the next one leaving
            ok[s] = verdict
            if not verdict:
                tick.results[s] = _result(
                    moves[s], Reason.MOVE_BLOCKED, to=moves[s].to, by=units[moves[s].to]
                )
    where = {s: s for s in units}
    for s, o in moves.items():
        if ok[s]:
            where[s] = o.to
            tick.results[s] = _result(o, Reason.MOVED, to=o.to)
    return where


def step_pinning(tick: Tick, where: dict[str, str]) -> dict[str, list[str]]:
    """Every unit in a system targeted by an ATTACK is pinned (RULINGS.md,
    tick 2). Returns, for each pinned unit (by starting system), the systems
    the attacks came from."""
    attacked: dict[str, list[str]] = defaultdict(list)
    for s, o in tick.orders.items():
        if isinstance(o, Attack):
            attacked[o.target].append(s)
    return {unit: sorted(attacked[pos]) for unit, pos in where.items() if pos in attacked}


def _head_to_head(
    attacks: dict[str, Attack], strength: dict[str, int], outcome: dict[str, Any]
) -> tuple[set[str], set[str]]:
    """Two units attacking each other's systems (RULINGS.md, Head to head).
    Records the outcome of the attacks that fail here and returns the units
    whose attack lost one and the units of equal head-to-heads."""
    losers: set[str] = set()
    equal: set[str] = set()
    for s, o in attacks.items():
        t = o.target
        other = attacks.get(t)
        if other is None or other.target != s or s in outcome:
            continue
        mine, theirs = strength[s], strength[t]
        facts = {"strength": mine, "other": t, "other_strength": theirs}
        back = {"strength": theirs, "other": s, "other_strength": mine}
        if mine == theirs:
            outcome[s] = (Reason.HEAD_TO_HEAD_EQUAL, facts)
            outcome[t] = (Reason.HEAD_TO_HEAD_EQUAL, back)
            equal |= {s, t}
        elif mine < theirs:
            outcome[s] = (Reason.HEAD_TO_HEAD_LOST, facts)
            losers.add(s)
        else:
            outcome[t] = (Reason.HEAD_TO_HEAD_LOST, back)
            losers.add(t)
    return losers, equal


def _fight(
    target: str,
    contenders: list[str],
    blockers: set[str],
    strength: dict[str, int],
    defence: int,
    outcome: dict[str, Any],
) -> str | None:
    """The attacks on one system: only the strongest counts, equal strongest
    block each other, and the strongest conquers when it is greater than the
    defence. ``blockers`` (attacks that failed in a head to head but still
    count) take part in the comparison, keep their own result and never
    conquer. Returns the conquering unit, if any."""
    top = max(strength[u] for u in contenders)
    strongest = [u for u in contenders if strength[u] == top]
    for u in contenders:
        if u in blockers:
            continue
        if strength[u] < top:
            outcome[u] = (Reason.OUTNUMBERED, {"strength": strength[u], "strongest": top})
        elif len(strongest) > 1:
            blocked_by = sorted(x for x in strongest if x != u)
            outcome[u] = (Reason.BLOCKED_EQUAL, {"strength": top, "blocked_by": blocked_by})
    if len(strongest) > 1 or strongest[0] in blockers:
        return None
    winner = strongest[0]
    facts = {"attack": top, "defence": defence}
    if top > defence:
        outcome[winner] = (Reason.CONQUERED, facts)
        return winner
    outcome[winner] = (Reason.DEFENDED, facts)
    return None


def _conquests(
    attacks: dict[str, Attack], strength: dict[str, int], defence: Any, outcome: dict[str, Any]
) -> dict[str, str]:
    """Every attack's outcome; returns target -> the unit that conquered it.

    An attack that lost a head to head is out of the battle for its target;
    both attacks of an equal head to head still count there, so each blocks
    an equal attack from a third system (RULINGS.md, Head to head). (Whether
    a lost head-to-head attack counted would never change the position: the
    winner's supports defend its system at least as strongly.)"""
    losers, equal = _head_to_head(attacks, strength, outcome)
    on: dict[str, list[str]] = defaultdict(list)
    for s, o in attacks.items():
        if s not in losers:
            on[o.target].append(s)
    won: dict[str, str] = {}
    for target, contenders in on.items():
        winner = _fight(target, contenders, equal, strength, defence(target), outcome)
        if winner is not None:
            won[target] = winner
    return won


def _advance(
    state: State,
    where: dict[str, str],
    at: dict[str, str],
    attacks: dict[str, Attack],
    won: dict[str, str],
) -> tuple[dict[str, str], dict[str, str], set[str], list[Event]]:
    """Conquered systems change hands, their defenders are lost and the
    conquering units advance. Returns the owners, the units, the units lost
    (by starting system) and the events."""
    owners = dict(state.owners)
    lost: set[str] = set()
    events: list[Event] = []
    advanced = set(won.values())
    for target, unit in sorted(won.items()):
        defender = at.get(target)
        # a defender whose own attack succeeded has left; otherwise it is lost
        if defender is not None and defender not in advanced:
            lost.add(defender)
        player = attacks[unit].player
        events.append(
            Event(
                "conquered",
                {
                    "system": target,
                    "by": player,
                    "from_system": unit,
                    "previous_owner": state.owners.get(target),
                    "unit_lost": state.units[defender] if defender in lost else None,
                },
            )
        )
        owners[target] = player
    for unit in sorted(lost):
        events.append(Event("unit_lost", {"system": where[unit], "player": state.units[unit]}))
    new_units = {
        (attacks[unit].target if unit in advanced else pos): state.units[unit]
        for unit, pos in where.items()
        if unit not in lost
    }

    return owners, new_units, lost, events


def step_battle(
    state: State, tick: Tick, where: dict[str, str], pinned: dict[str, list[str]]
) -> tuple[dict[str, str], dict[str, str], list[Event]]:
    """Battles (RULINGS.md, tick 3). Returns the new owners and units and the
    events (conquests, units lost). Attacks are keyed by the attacking
    unit's system; plain dicts, not an object per attack, keep big turns
    light."""
    # supports: a pinned supporter's support is void; a valid one counts for
    # the supported unit wherever it ends up
    support: Counter[str] = Counter()  # valid supports for each unit
    supports = {s: o for s, o in tick.orders.items() if isinstance(o, Support)}
    for s, o in supports.items():
        if s in pinned:
            tick.results[s] = _result(o, Reason.SUPPORT_CUT, target=o.target, pinned_by=pinned[s])
        else:
            support[o.target] += 1

    at = {pos: unit for unit, pos in where.items()}  # system -> unit standing there
    attacks = {s: o for s, o in tick.orders.items() if isinstance(o, Attack)}
    strength = {s: 1 + support.get(s, 0) for s in attacks}
    outcome: dict[str, tuple[Reason, dict[str, Any]]] = {}

    def defence(system: str) -> int:
        unit = at.get(system)
        if unit is None:
            return 0
        base = 0 if unit in attacks else 1
        return base + support.get(unit, 0)

    won = _conquests(attacks, strength, defence, outcome)

    owners, new_units, lost, events = _advance(state, where, at, attacks, won)
    for s, o in attacks.items():
        reason, facts = outcome[s]
        tick.results[s] = _result(o, reason, target=o.target, **facts)
    # a support counts if its unit attacked or was attacked where it stood
    targets = {o.target for o in attacks.values()}
    fought = attacks.keys() | {u for u, pos in where.items() if pos in targets}
    for s, o in supports.items():
        if s not in pinned:
            reason = Reason.SUPPORT_GIVEN if o.target in fought else Reason.SUPPORT_UNUSED
            tick.results[s] = _result(o, reason, target=o.target, supported=state.units[o.target])
    # holds; every other order already has its result (a unit lost after
    # moving, supporting or a failed attack keeps it, and the loss is an event)
    for s, o in tick.orders.items():
        if s not in tick.results:
            reason = Reason.LOST if s in lost else Reason.HELD
            tick.results[s] = _result(o, reason, system=where[s])
    return owners, new_units, events


def step_deployment(state: State, owners: dict[str, str], units: dict[str, str]) -> list[Event]:
    """A new unit on the home world of each player who owns it, has no unit
    on it and has units <= 3 + systems / 2, exact division (RULINGS.md,
    tick 4). Changes ``units`` in place (a fresh dict of this tick)."""
    systems = Counter(owners.values())
    count = Counter(units.values())
    events = []
    for p in state.players:
        if p.status != ACTIVE:
            continue
        if (
            owners.get(p.home) == p.name
            and p.home not in units
            and 2 * count[p.name] <= 6 + systems[p.name]
        ):
            units[p.home] = p.name
            events.append(Event("deployed", {"system": p.home, "player": p.name}))
    return events


def step_end(state: State, owners: dict[str, str]) -> tuple[tuple, Outcome | None, list[Event]]:
    """Players with no systems are out; the game ends when one is left."""
    have = set(owners.values())
    players = []
    events = []
    for p in state.players:
        if p.status == ACTIVE and p.name not in have:
            players.append(replace(p, status=OUT))
            events.append(Event("eliminated", {"player": p.name}))
        else:
            players.append(p)
    left = [p.name for p in players if p.status == ACTIVE]
    outcome = None
    if len(left) <= 1:
        outcome = Outcome(
            "last_player" if left else "no_players", tuple(left), _scores(players, owners, left)
        )
        events.append(Event("game_over", {"reason": outcome.reason, "winners": left}))
    return tuple(players), outcome, events


def _scores(
    players: Sequence[Any], owners: dict[str, str], winners: Sequence[str]
) -> dict[str, int]:
    """Office Wars keeps no score table: a player's score is the systems
    owned at the end."""
    count = Counter(owners.values())
    return {p.name: count[p.name] for p in players}


# ----------------------------------------------------------------------------
# The whole tick


def adjudicate(state: State, sheets: Sequence[OrderSheet], seed: int = 0) -> TurnResult:
    """One tick. Office Wars uses no chance, so ``seed`` is not drawn from."""
    if state.outcome is not None:
        return TurnResult(state, (), ())
    tick = collect(state, sheets)
    carried, events = step_vote(state, tick)
    if carried:
        vote = surrender_vote(state, [p for p, v in tick.votes.items() if v.surrender])
        for s, o in tick.orders.items():
            tick.results[s] = _result(o, Reason.GAME_ENDED)
        outcome = Outcome(
            "surrender", (vote.leader,), _scores(state.players, dict(state.owners), [vote.leader])
        )
        events.append(Event("game_over", {"reason": "surrender", "winners": [vote.leader]}))
        new = replace(state, turn=state.turn + 1, outcome=outcome)
        return TurnResult(new, _ordered(tick), tuple(events))
    where = step_movement(state, tick)
    pinned = step_pinning(tick, where)
    owners, units, battle_events = step_battle(state, tick, where, pinned)
    events += battle_events
    events += step_deployment(state, owners, units)
    players, outcome, end_events = step_end(state, owners)
    events += end_events
    # the order of owners and units means nothing (JSON sorts its keys)
    new = replace(
        state, turn=state.turn + 1, players=players, owners=owners, units=units, outcome=outcome
    )
    return TurnResult(new, _ordered(tick), tuple(events))


def _ordered(tick: Tick) -> tuple[OrderResult, ...]:
    """Results grouped by player (sorted), each by system; votes last."""
    per: dict[str, list[tuple[str, OrderResult]]] = defaultdict(list)
    votes: dict[str, OrderResult] = {}
    for key, r in tick.results.items():
        if key.startswith("vote:"):
            votes[r.order.player] = r
        else:
            per[r.order.player].append((key, r))
    out: list[OrderResult] = []
    for player in sorted(per.keys() | votes.keys()):
        out.extend(r for _, r in sorted(per.get(player, ())))
        if player in votes:
            out.append(votes[player])
    return tuple(out)
