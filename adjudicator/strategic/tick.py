"""One tick of Strategic Initiative, in RULINGS.md's order:

1. accruals: command points, technology, build progress; every 16th tick
   mobility and healing; ammo topped up for every unit in supply;
2. builds that completed appear (the power limit checked), and each city
   starts its next build;
3. standing orders from earlier ticks, in the order given;
4. the orders received since the last tick, in received order, each run to
   completion before the next;
5. diplomacy that falls due; the end of the game.

Then the fog of war: each event is shown to the nations it concerns and,
in a shorter form that names only what can be seen there, to the nations
that see its square at the end of the tick; every nation's memory is
brought up to date. The state given is never changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from adjudicator.base import Event, Order, OrderResult, OrderSheet, Rng, TurnResult
from adjudicator.strategic import (
    air,
    carrying,
    combat,
    diplomacy,
    economy,
    ending,
    engineering,
    groups,
    launch,
    movement,
    refuelling,
    sight,
    supply,
)
from adjudicator.strategic.orders import (
    Attack,
    Build,
    Cancel,
    Declare,
    Launch,
    Load,
    Move,
    NewCity,
    Refuel,
    Status,
    Terrain,
    Unload,
)
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.standing import run_standing
from adjudicator.strategic.state import State, only

# what a nation that only sees an event's square is told of it
WITNESS_FACTS = frozenset(
    {"unit", "unit_type", "nation", "square", "target", "target_type", "target_nation",
     "damage", "hp", "counter", "city", "by", "by_nation", "from_nation",
     "carrier", "terrain",
     "draw", "low", "high", "factors", "halved", "roll", "percent", "by_type",
     "blast"}
)  # fmt: skip
_DRAW = frozenset({"draw", "low", "high", "factors", "halved", "roll"})

# A fight has two sides: a witness sees the event's square; the other side
# stands at another square (the fact named first), and a witness who does
# not see that square is told the event without that side's facts, as the
# kind named last (a ruling: one sees a unit hit, not who fired from the fog).
OTHER_SIDE: dict[str, tuple[str, frozenset[str], Happened]] = {
    Happened.ATTACK: ("from", frozenset({"unit", "unit_type", "nation", "counter"}),
                      Happened.HIT_FROM_THE_FOG),
    Happened.DESTROYED: ("from", frozenset({"by", "by_nation"}),
                         Happened.DESTROYED_FROM_THE_FOG),
    Happened.CANNON: ("at", frozenset({"target", "target_type", "target_nation", "damage", "hp"})
                      | _DRAW, Happened.CANNON_INTO_THE_FOG),
    Happened.FLAK: ("at", frozenset({"target", "target_type", "target_nation", "damage", "hp"})
                    | _DRAW, Happened.FLAK_INTO_THE_FOG),
    Happened.BOMBED: ("from", frozenset({"unit", "unit_type", "nation", "percent", "roll"}),
                      Happened.HIT_FROM_THE_FOG),
}  # fmt: skip

# What a witness of an interception or interdiction is told: who fought whom
# there, not where the one who came out came from nor the way it took.
SEEN_AS: dict[str, Happened] = {
    Happened.INTERCEPTED: Happened.INTERCEPTION_SEEN,
    Happened.INTERDICTED: Happened.INTERDICTION_SEEN,
}


def run_tick(state: State, sheets: Sequence[OrderSheet], seed: int) -> TurnResult:
    """The next tick of ``state`` with the orders of ``sheets`` (received
    since the last tick) and the tick's ``seed``."""
    s = state.copy()
    s.tick += 1
    rng = Rng(seed)
    events: list[Event] = []
    places = Places(s)
    economy.accrue(s, events, lambda st, unit: supply.in_supply(st, unit, places))
    supply.top_up_all(s, places)
    air.refuel_all(s, places)
    before = set(s.units)
    economy.complete_builds(s, events)
    for uid in sorted(set(s.units) - before):
        places.added(s.units[uid])  # the units just built join the index
    run_standing(s, rng, events, places)
    orders = sorted((o for sheet in sheets for o in sheet.orders), key=lambda o: (o.seq, o.line))
    results = [run_order(s, o, rng, events, places) for o in orders]
    air.crash_dry(s, places, events)
    diplomacy.due(s, events)
    ending.end(s, events)
    return TurnResult(s, tuple(results), tuple(fog(s, events)))


def run_order(
    state: State, order: Order, rng: Rng, events: list[Event], places: Places
) -> OrderResult:
    """Step 4: one order, run to completion. Its result is shown to the
    player who gave it only."""
    places.next_order()
    nation = state.nations.get(order.player)
    if nation is None or nation.status != "active" or state.outcome is not None:
        reason, facts = Reason.NOT_IN_GAME, {}
    else:
        reason, facts = _RUNNERS[type(order)](state, order, rng, events, places)
    if type(reason) is not Reason:  # the economy's and diplomacy's codes are Reason values too
        reason = Reason(reason)
    return OrderResult(order, reason.succeeded, reason, dict(facts), only(order.player))


def _build(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    refused = economy.set_build(state, o.player, o.city, o.kind or None, o.next, events)
    if refused is not None:
        return refused.reason, refused.facts
    city = state.city_named(o.city)
    assert city is not None
    if o.next:
        reason = Reason.NEXT_BUILD_SET if o.kind else Reason.NEXT_BUILD_CLEARED
        return reason, {"city": city.name, "kind": o.kind or None}
    return Reason.BUILD_SET, {"city": city.name, "kind": city.build,
                              "designation": city.designation}  # fmt: skip


def _move(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    def go(ids: list[str]) -> Any:
        return movement.move(state, o.player, ids, o.target, o.seq, o.line, events, places, rng)

    return groups.run(state, places, o, go)


def _attack(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    def go(ids: list[str]) -> Any:
        return combat.attack(state, o.player, ids, o.target, rng, o.seq, o.line, events, places)

    return groups.run(state, places, o, go)


def _cancel(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    return movement.cancel(state, o.player, o.of)


def _declare(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    mark = len(events)
    refused = diplomacy.declare(state, o.player, o.toward, o.level, events)
    if refused is not None:
        return refused.reason, refused.facts
    facts = {"toward": o.toward, "level": o.level}
    due = [e.facts["due"] for e in events[mark:] if e.kind == "declared" and "due" in e.facts]
    if due:  # lowered from friendly or allied: a day's notice
        return Reason.DECLARED_WITH_NOTICE, facts | {"due": due[0]}
    return Reason.DECLARED, facts


def _refuel(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    def go(ids: list[str]) -> Any:
        return refuelling.refuel(state, o.player, ids, o.seq, o.line, events, places, rng)

    return groups.run(state, places, o, go)


def _status(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    return Reason.STATUS, {}  # the host mails a situation report


def _load(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    def go(ids: list[str]) -> Any:
        return carrying.load(state, o.player, ids, o.carrier or None, events, places, rng)

    return groups.run(state, places, o, go)


def _unload(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    def move(ids: list[str], target: int) -> Any:
        return movement.move(state, o.player, ids, target, o.seq, o.line, events, places, rng)

    target = o.target if o.target_name else None

    def go(ids: list[str]) -> Any:
        return carrying.unload(state, o.player, ids, target, events, places, move)

    return groups.run(state, places, o, go)


def _terrain(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    return engineering.switch_terrain(state, o.player, o.engineer, o.to, events, places)


def _new_city(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    return engineering.found_city(state, o.player, o.engineer, o.name, events, places)


def _launch(state: State, o: Any, rng: Rng, events: list[Event], places: Places) -> Any:
    return launch.launch(state, o.player, o.of, o.target, events, places)


_RUNNERS: dict[type, Callable[..., Any]] = {
    Build: _build,
    Move: _move,
    Attack: _attack,
    Cancel: _cancel,
    Declare: _declare,
    Status: _status,
    Load: _load,
    Unload: _unload,
    Terrain: _terrain,
    NewCity: _new_city,
    Refuel: _refuel,
    Launch: _launch,
}


# --------------------------------------------------------------------------
# The fog of war over what happened


def fog(state: State, events: list[Event]) -> list[Event]:
    """Every event for the nations it concerns, and for those that see its
    square at the end of the tick a shorter one (WITNESS_FACTS only: where
    a unit came from and the way it took stay hidden; a submarine only to
    those who see submarines there). Updates memory: a submarine that
    attacked a nation is remembered by it."""
    look = sight.Survey(state)
    seen = sight.all_visible(state, look)
    out: list[Event] = []
    destroyed: dict[str, frozenset[str] | None] = {}
    watchers = _watchers(state, seen, events)  # by square name: a tick's events share squares
    kinds: dict[str, str] = {}  # the type of each unit named as an attacker so far
    none: frozenset[str] = frozenset()
    for event in events:
        out.append(event)
        if event.kind == Happened.ATTACK:
            _note_attacker(state, event, kinds)
        # _witnesses(), inline (two thousand events a tick): the watchers
        # of each square named were all found above
        where, concerned = event.facts.get("square"), event.visible_to
        if concerned is None or not isinstance(where, str):
            extra = none
        else:
            see = watchers.get(where)
            if see is None:
                extra = _witnesses(state, seen, event, watchers)
            else:
                extra = see - concerned if see else none
        if extra:
            extra = _undersea(state, look, event, extra)
        if extra:
            out += witnessed(state, seen, event, extra, look, kinds)
        if event.kind in ("destroyed", "lost_aboard"):
            destroyed[str(event.facts.get("unit"))] = (event.visible_to or frozenset()) | extra
    sight.remember(state, seen, destroyed, look)
    state.cache["sight"] = (seen, look)  # the views of the reports read them again
    return out


def _watchers(
    state: State, seen: Mapping[str, frozenset[int]], events: list[Event]
) -> dict[str, frozenset[str]]:
    """The nations that see each square the events name (what
    :func:`sight.witnesses` says of it), for all of them at once: each
    nation's sight is met with the squares named, not each square asked
    of every nation."""
    names = {e.facts.get("square") for e in events if e.visible_to is not None}
    where = {name: state.grid.parse(name) for name in names if isinstance(name, str)}
    who: dict[int, list[str]] = {q: [] for q in where.values() if q is not None}
    named = frozenset(who)
    for nation, squares in seen.items():
        for q in squares & named:
            who[q].append(nation)
    return {name: frozenset(who[q]) if q is not None else frozenset() for name, q in where.items()}


def _note_attacker(state: State, event: Event, kinds: dict[str, str]) -> None:
    """Keep the type of an attack's shooter (a destroyed unit's event names
    only the id of what destroyed it); a submarine that fired on a
    nation's unit is revealed to that nation (section 7: "If the sub
    attacks, however, it will become visible to the nation it attacked")."""
    if event.kind != Happened.ATTACK:
        return
    f = event.facts
    kinds[str(f.get("unit"))] = str(f.get("unit_type"))
    sub = state.units.get(str(f.get("unit")))
    if sub is not None and sub.kind in sight.stealthy() and f.get("target_nation"):
        sight.reveal(state, sub, str(f["target_nation"]))


# the facts naming the types of the units in an event's square (by default
# all three); an attack's or a cannon's other side is OTHER_SIDE's
HIDING_KEYS: dict[str, tuple[str, ...]] = {
    Happened.ATTACK: ("target_type", "carrier_type"),
    Happened.CANNON: (),
}
_ALL_TYPES = ("unit_type", "target_type", "carrier_type")


def _by_name(table: Mapping[str, Any]) -> dict[str | None, Any]:
    """``table`` (kept by event kind) by the kind's member name: the fog
    looks an event up by ``_name_`` of its Happened kind (None for any
    other kind: found in none of them, as before), since hashing the kind
    itself calls the enum's __hash__, written in Python (about 3,000 look-ups
    a tick of the interception benchmark)."""
    return {kind._name_: value for kind, value in table.items()}


def _name_of(kind: str) -> str | None:
    """The member name of a Happened ``kind``; None for any other."""
    return kind._name_ if type(kind) is Happened else None  # type: ignore[attr-defined]


_HIDING_BY_NAME = _by_name(HIDING_KEYS)
_OTHER_SIDE_BY_NAME = _by_name(OTHER_SIDE)
_SEEN_AS_BY_NAME = _by_name(SEEN_AS)


def _undersea(
    state: State, look: sight.Survey, event: Event, nations: frozenset[str]
) -> frozenset[str]:
    """Of the witnesses ``nations``, those that may be told ``event``: an
    event about a submarine or what it carries (moved, sighted, destroyed,
    attacked, interdicted, fired on from the coast, boarded) only to those
    who see submarines at its square (a submarine's side of a fight seen
    from elsewhere is hidden by :func:`witnessed` instead)."""
    f, hidden = event.facts, sight.stealthy()
    for key in _HIDING_BY_NAME.get(_name_of(event.kind), _ALL_TYPES):
        if f.get(key) in hidden:
            break
    else:  # no submarine in the event (most events)
        return nations
    square = state.grid.parse(str(event.facts.get("square", "")))
    return frozenset(n for n in nations if square in look.sub_sight(n))


def witnessed(
    state: State,
    seen: Mapping[str, frozenset[int]],
    event: Event,
    nations: frozenset[str],
    look: sight.Survey | None = None,
    kinds: Mapping[str, str] | None = None,
) -> list[Event]:
    """What ``nations``, who see where ``event`` happened, are told of it:
    its WITNESS_FACTS, less the other side of a fight for those who do
    not see where that side stands (OTHER_SIDE), or do not see the
    submarine that stands there."""
    facts = {k: v for k, v in event.facts.items() if k in WITNESS_FACTS}
    facts["seen"] = True
    name = _name_of(event.kind)
    side = _OTHER_SIDE_BY_NAME.get(name)
    if side is None:
        return [Event(_SEEN_AS_BY_NAME.get(name, event.kind), facts, nations)]
    where, hidden, kind = side
    square = state.grid.parse(str(event.facts.get(where, "")))
    both = frozenset(n for n in nations if square is not None and square in seen[n])
    if both and _other_side_type(event, kinds or {}) in sight.stealthy():
        look = look or sight.Survey(state)
        both = frozenset(n for n in both if square in look.sub_sight(n))
    out = [Event(event.kind, facts, both)] if both else []
    if nations - both:
        half = {k: v for k, v in facts.items() if k not in hidden}
        out.append(Event(kind, half, nations - both))
    return out


def _other_side_type(event: Event, kinds: Mapping[str, str]) -> str | None:
    """The type of the unit on the other side of a fight (OTHER_SIDE): the
    attacker, the ship a city's cannon fired on, what destroyed a unit."""
    f = event.facts
    if event.kind == Happened.ATTACK:
        return f.get("unit_type")
    if event.kind == Happened.CANNON:
        return f.get("target_type")
    return kinds.get(str(f.get("by")))


def _witnesses(
    state: State,
    seen: Mapping[str, frozenset[int]],
    event: Event,
    watchers: dict[str, frozenset[str]] | None = None,
) -> frozenset[str]:
    """The nations not concerned by ``event`` that see where it happened
    (``watchers``: those that see each square named so far, kept)."""
    where = event.facts.get("square")
    if not isinstance(where, str) or event.visible_to is None:
        return frozenset()
    known = watchers if watchers is not None else {}
    see = known.get(where)
    if see is None:
        square = state.grid.parse(where)
        see = known[where] = frozenset() if square is None else sight.witnesses(seen, square)
    return see - event.visible_to
