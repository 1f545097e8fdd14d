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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from adjudicator.base import Event, OrderResult, OrderSheet, Outcome, TurnResult
from adjudicator.territory.orders import Away, Back, Send
from adjudicator.territory.state import ABSENT, ACTIVE, HOLD, REMOVED, Player, State


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

    @property
    def succeeded(self) -> bool:
        """As a rule; MET, counted in the earlier army's result, says in
        its own result whether the pair won."""
        return self in SUCCEEDED


SUCCEEDED = frozenset(
    {Reason.TRANSFERRED, Reason.CONQUERED, Reason.MET_WON, Reason.AWAY, Reason.BACK}
)


def adjudicate(state: State, sheets: Sequence[OrderSheet], seed: int = 0) -> TurnResult:
    tick = Tick(state.tick + 1, dict(state.owners), dict(state.troops))
    sent, away = {s.player for s in sheets}, _away(sheets)
    players = [_presence(p, tick, state.options, sent, away) for p in state.players]
    orders = sorted((o for s in sheets for o in s.orders), key=lambda o: (o.seq, o.line, o.player))
    if state.options["absence"] == HOLD and any(p.status == ABSENT for p in players):
        tick.events.append(
            Event("on_hold", {"absent": sorted(p.name for p in players if p.status == ABSENT)})
        )
        tick.results = [
            _presence_result(o) or OrderResult(o, False, Reason.ON_HOLD) for o in orders
        ]
    else:
        _produce(state, tick)
        live = {p.name for p in players if p.status != REMOVED}
        tick.results += [r for r in map(_presence_result, orders) if r is not None]
        tick.commands([o for o in orders if isinstance(o, Send) and o.player in live])
    new = replace(state, players=tuple(players), tick=tick.number, owners=tick.owners,
                  troops=tick.troops)  # fmt: skip
    return TurnResult(_ended(new, tick.events), tuple(tick.results), tuple(tick.events))


@dataclass
class Tick:
    """What a tick changes as it runs: the owners and troops of the states,
    and the results and events so far."""

    number: int
    owners: dict[str, str]
    troops: dict[str, int]
    events: list[Event] = field(default_factory=list)
    results: list[OrderResult] = field(default_factory=list)

    def result(self, o: Send, reason: Reason, **facts: Any) -> None:
        self.results.append(OrderResult(o, reason.succeeded, reason, facts))

    def commands(self, pending: list[Send]) -> None:
        """Step 3: each command in the order received; a bilateral attack's
        later command is resolved with the earlier one."""
        done: set[int] = set()
        for i, o in enumerate(pending):
            if i in done:
                continue
            j = self.send(o, pending, i, done)
            if j is not None:
                done.add(j)

    def send(self, o: Send, pending: list[Send], i: int, done: set[int]) -> int | None:
        """One command; the index of the command it met, if it did."""
        owners, troops = self.owners, self.troops
        if owners.get(o.origin) != o.player:
            self.result(o, Reason.NOT_YOURS, owner=owners.get(o.origin))
            return None
        if troops[o.origin] < 2:
            self.result(o, Reason.TOO_FEW, troops=troops[o.origin])
            return None
        before = {"origin_before": troops[o.origin], "target_before": troops[o.target]}
        army = troops[o.origin] - 1
        troops[o.origin] = 1
        defender = owners.get(o.target)
        if defender == o.player:
            troops[o.target] += army
            self.result(o, Reason.TRANSFERRED, army=army, **before, target_after=troops[o.target])
            return None
        j = _counter_attack(pending, i, done, defender, o)
        if j is not None and defender is not None and troops[o.target] >= 2:
            self.meet(o, pending[j], army, defender, before)
            return j
        taken = _direct(owners, troops, o.player, o.target, army, self.events)
        self.result(o, Reason.CONQUERED if taken else Reason.DEFENDED, army=army,
                    defender=defender, **before, target_after=troops[o.target])  # fmt: skip
        return None

    def meet(self, o: Send, other: Send, army: int, defender: str,
             before: dict[str, int]) -> None:  # fmt: skip
        """A bilateral attack: the later army is subtracted from the earlier,
        and the remainder goes on as a direct attack."""
        troops = self.troops
        counter = troops[o.target] - 1
        troops[o.target] = 1
        left = army - counter
        facts = {"army": army, "other_army": counter, "other": defender, **before}
        met = {"with": o.canonical()}
        if left > 0:
            taken = _direct(self.owners, troops, o.player, o.target, left, self.events)
            self.result(o, Reason.MET_WON, remainder=left, taken=taken,
                        target_after=troops[o.target], **facts)  # fmt: skip
            self.results.append(OrderResult(other, False, Reason.MET, met))
        elif left < 0:
            taken = _direct(self.owners, troops, defender, o.origin, -left, self.events)
            self.result(o, Reason.MET_LOST, remainder=-left, taken=taken,
                        target_after=troops[o.origin], **facts)  # fmt: skip
            self.results.append(OrderResult(other, True, Reason.MET, {**met, "won": True}))
        else:
            self.result(o, Reason.MET_EVEN, **facts)
            self.results.append(OrderResult(other, False, Reason.MET, met))


def _counter_attack(pending: list[Send], i: int, done: set[int], defender: str | None,
                    o: Send) -> int | None:  # fmt: skip
    """The defender's command from the target to this origin later in the
    tick, which it could send now: then the two armies meet."""
    return next(
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


def _presence(p: Player, tick: Tick, opts: Mapping[str, Any], sent: set[str],
              away: set[str]) -> Player:  # fmt: skip
    """Step 1 for one player: present, away, absent, or removed (their
    states released) when the absence timer runs out."""
    if p.status == REMOVED:
        return p
    events, number = tick.events, tick.number
    if p.name in away:
        if p.status != ABSENT:
            events.append(Event("away", {"player": p.name, "timer": opts["absent_timer"]}))
        since = number if p.status != ABSENT else p.absent_since
        p = replace(p, status=ABSENT, silent=0, absent_since=since)
    elif p.name in sent:
        if p.status == ABSENT:
            events.append(Event("back", {"player": p.name}))
        p = replace(p, status=ACTIVE, silent=0)
    else:
        p = replace(p, silent=p.silent + 1)
        if p.status == ACTIVE and p.silent >= opts["absent_after"]:
            p = replace(p, status=ABSENT, absent_since=number)
            events.append(Event("absent", {"player": p.name, "ticks": p.silent,
                                           "timer": opts["absent_timer"]}))  # fmt: skip
    if p.status == ABSENT and number - p.absent_since >= opts["absent_timer"]:
        p = replace(p, status=REMOVED)
        released = sorted(s for s, who in tick.owners.items() if who == p.name)
        for s in released:
            del tick.owners[s]
        kind = "removed" if released else "removed_stateless"
        events.append(Event(kind, {"player": p.name, "states": released}))
    return p


def _produce(state: State, tick: Tick) -> None:
    """Step 2: owned states grow without limit; neutral ones regenerate up
    to their starting troops."""
    owners, troops = tick.owners, tick.troops
    for place in state.map.states:
        if place.name in owners:
            troops[place.name] += place.production
        elif troops[place.name] < place.troops:
            troops[place.name] = min(place.troops, troops[place.name] + place.production)


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
        return OrderResult(o, True, Reason.AWAY)
    if isinstance(o, Back):
        return OrderResult(o, True, Reason.BACK)
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
