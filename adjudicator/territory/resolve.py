"""One Territory tick (docs/rules/territory.md).

1. Presence: a player who sent any mail this tick (a sheet, even empty) is
   present, and comes back if absent; one who sent nothing for
   ``absent_after`` ticks, or ordered ``away``, becomes absent and a timer
   of ``absent_timer`` ticks starts; still absent when it runs out, the
   player is removed and their states are released (neutral, with the
   troops on them). In ``hold`` mode, while anyone is absent the tick does
   nothing else.
2. Production: owned states gain their production without limit; neutral
   states below their starting troops regenerate by their production, up
   to that count and never beyond.
3. Commands, one at a time in the order received: all troops of the origin
   but one go (the origin needs two); to one's own state a transfer; to a
   neutral state an attack that conquers it at zero or below; to another
   player's state a direct attack (the defender keeps the state at exactly
   zero), or, when that player also sends from the target to the origin
   later in the tick, a bilateral attack: the armies meet, the later is
   subtracted from the earlier, and the remainder proceeds as a direct
   attack (nothing, when equal).
4. The end: one player left owning states, or the last tick (option
   ``last_tick``) done: the most states, then the most troops, wins.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from adjudicator.base import Event, OrderResult, OrderSheet, Outcome, TurnResult
from adjudicator.territory.orders import Away, Back, Send
from adjudicator.territory.state import ABSENT, ACTIVE, HOLD, REMOVED, State


class Reason(enum.StrEnum):
    TRANSFERRED = "transferred"
    CONQUERED = "conquered"  # a neutral or enemy state taken
    DEFENDED = "defended"  # the attack did not take the state
    MET_WON = "met_won"  # a bilateral attack: this army was stronger, went on
    MET_LOST = "met_lost"  # a bilateral attack: the other army was stronger
    MET_EVEN = "met_even"  # a bilateral attack: both armies destroyed
    MET = "met"  # the later army of a bilateral attack: counted in the earlier's result
    TOO_FEW = "too_few"  # fewer than two troops at the origin when it ran
    NOT_YOURS = "not_yours"  # the origin was lost before the command ran
    AWAY = "away"
    BACK = "back"
    ON_HOLD = "on_hold"


SUCCEEDED = {Reason.TRANSFERRED, Reason.CONQUERED, Reason.MET_WON, Reason.AWAY, Reason.BACK}


def adjudicate(state: State, sheets: Sequence[OrderSheet], seed: int = 0) -> TurnResult:
    opts = state.options
    tick = state.tick + 1
    events: list[Event] = []
    results: list[OrderResult] = []
    owners = dict(state.owners)
    troops = dict(state.troops)
    sent = {s.player for s in sheets}
    away = _away(sheets)

    # 1. presence
    players = []
    for p in state.players:
        if p.status == REMOVED:
            players.append(p)
            continue
        if p.name in away:
            if p.status != ABSENT:
                events.append(Event("away", {"player": p.name, "timer": opts["absent_timer"]}))
            p = replace(
                p,
                status=ABSENT,
                silent=0,
                absent_since=tick if p.status != ABSENT else p.absent_since,
            )
        elif p.name in sent:
            if p.status == ABSENT:
                events.append(Event("back", {"player": p.name}))
            p = replace(p, status=ACTIVE, silent=0)
        else:
            p = replace(p, silent=p.silent + 1)
            if p.status == ACTIVE and p.silent >= opts["absent_after"]:
                p = replace(p, status=ABSENT, absent_since=tick)
                events.append(
                    Event(
                        "absent",
                        {"player": p.name, "ticks": p.silent, "timer": opts["absent_timer"]},
                    )
                )
        if p.status == ABSENT and tick - p.absent_since >= opts["absent_timer"]:
            p = replace(p, status=REMOVED)
            released = sorted(s for s, who in owners.items() if who == p.name)
            for s in released:
                del owners[s]
            kind = "removed" if released else "removed_stateless"
            events.append(Event(kind, {"player": p.name, "states": released}))
        players.append(p)
    orders = sorted(
        (o for s in sheets for o in s.orders),
        key=lambda o: (o.seq, o.line, o.player),
    )
    held = opts["absence"] == HOLD and any(p.status == ABSENT for p in players)
    if held:
        events.append(
            Event("on_hold", {"absent": sorted(p.name for p in players if p.status == ABSENT)})
        )
        results = [
            _presence_result(o) or OrderResult(o, False, Reason.ON_HOLD.value) for o in orders
        ]
        new = replace(state, players=tuple(players), tick=tick, owners=owners, troops=troops)
        return TurnResult(_ended(new, events), tuple(results), tuple(events))

    # 2. production
    for place in state.map.states:
        if place.name in owners:
            troops[place.name] += place.production
        elif troops[place.name] < place.troops:
            troops[place.name] = min(place.troops, troops[place.name] + place.production)

    # 3. commands
    live = {p.name for p in players if p.status != REMOVED}
    pending = [o for o in orders if isinstance(o, Send) and o.player in live]
    done: set[int] = set()

    def result(o: Send, reason: Reason, **facts: Any) -> None:
        results.append(OrderResult(o, reason in SUCCEEDED, reason.value, facts))

    results += [r for r in map(_presence_result, orders) if r is not None]
    for i, o in enumerate(pending):
        if i in done:
            continue
        if owners.get(o.origin) != o.player:
            result(o, Reason.NOT_YOURS, owner=owners.get(o.origin))
            continue
        if troops[o.origin] < 2:
            result(o, Reason.TOO_FEW, troops=troops[o.origin])
            continue
        before = {"origin_before": troops[o.origin], "target_before": troops[o.target]}
        army = troops[o.origin] - 1
        troops[o.origin] = 1
        defender = owners.get(o.target)
        if defender == o.player:
            troops[o.target] += army
            result(o, Reason.TRANSFERRED, army=army, **before, target_after=troops[o.target])
            continue
        # a bilateral attack: the defender sends from the target to this
        # origin later in the tick, and could send it now
        j = next(
            (
                j
                for j in range(i + 1, len(pending))
                if j not in done
                and pending[j].player == defender
                and pending[j].origin == o.target
                and pending[j].target == o.origin
            ),
            None,
        )
        if j is not None and defender is not None and troops[o.target] >= 2:
            other = pending[j]
            done.add(j)
            counter = troops[o.target] - 1
            troops[o.target] = 1
            left = army - counter
            facts = {"army": army, "other_army": counter, "other": defender, **before}
            if left > 0:
                taken = _direct(owners, troops, o.player, o.target, left, events)
                result(
                    o,
                    Reason.MET_WON,
                    remainder=left,
                    taken=taken,
                    target_after=troops[o.target],
                    **facts,
                )
                results.append(OrderResult(other, False, Reason.MET.value, {"with": o.canonical()}))
            elif left < 0:
                taken = _direct(owners, troops, defender, o.origin, -left, events)
                result(
                    o,
                    Reason.MET_LOST,
                    remainder=-left,
                    taken=taken,
                    target_after=troops[o.origin],
                    **facts,
                )
                results.append(
                    OrderResult(other, True, Reason.MET.value, {"with": o.canonical(), "won": True})
                )
            else:
                result(o, Reason.MET_EVEN, **facts)
                results.append(OrderResult(other, False, Reason.MET.value, {"with": o.canonical()}))
            continue
        taken = _direct(owners, troops, o.player, o.target, army, events)
        result(
            o,
            Reason.CONQUERED if taken else Reason.DEFENDED,
            army=army,
            defender=defender,
            **before,
            target_after=troops[o.target],
        )
    new = replace(state, players=tuple(players), tick=tick, owners=owners, troops=troops)
    return TurnResult(_ended(new, events), tuple(results), tuple(events))


def _away(sheets: Sequence[OrderSheet]) -> set[str]:
    """The players whose last word on presence this tick was AWAY (a later
    BACK takes it back)."""
    last: dict[str, bool] = {}
    orders = (o for s in sheets for o in s.orders if isinstance(o, Away | Back))
    for o in sorted(orders, key=lambda o: (o.seq, o.line)):
        last[o.player] = isinstance(o, Away)
    return {p for p, away in last.items() if away}


def _presence_result(o: Any) -> OrderResult | None:
    if isinstance(o, Away):
        return OrderResult(o, True, Reason.AWAY.value)
    if isinstance(o, Back):
        return OrderResult(o, True, Reason.BACK.value)
    return None


def _direct(
    owners: dict[str, str], troops: dict[str, int], attacker: str, target: str, army: int,
    events: list[Event],
) -> bool:  # fmt: skip
    """A direct attack of ``army`` on ``target``; True if it was taken. A
    neutral state falls at zero or below; a player's state only below zero
    (at exactly zero the defender keeps it, empty)."""
    defender = owners.get(target)
    rest = troops[target] - army
    if rest < 0 or (rest == 0 and defender is None):
        owners[target] = attacker
        troops[target] = -rest
        events.append(Event("conquered", {"by": attacker, "state": target, "from": defender}))
        return True
    troops[target] = rest
    return False


def _ended(state: State, events: list[Event]) -> State:
    holders = set(state.owners.values())
    outcome = None
    if len(holders) <= 1:
        outcome = Outcome("last_player" if holders else "no_states", tuple(holders), _scores(state))
    elif state.options.get("last_tick") and state.tick >= state.options["last_tick"]:
        outcome = Outcome("last_tick", winners(state), _scores(state))
    if outcome is None:
        return state
    events.append(Event("game_over", {"reason": outcome.reason, "winners": outcome.winners}))
    return replace(state, outcome=outcome)


def _scores(state: State) -> dict[str, int]:
    return dict(state.state_count)


def winners(state: State) -> tuple[str, ...]:
    """The most states, then the most troops (players who own a state)."""
    keys = {p: (state.state_count[p], state.troop_count[p]) for p in set(state.owners.values())}
    if not keys:
        return ()
    best = max(keys.values())
    return tuple(sorted(p for p, k in keys.items() if k == best))
