"""Diplomacy (strategic-initiative.html, section 15; RULINGS.md): four
levels, directed, starting Neutral; downgrades, notice, and the side
effects of war and alliance.

What the state keeps, per nation A toward B:

* ``Nation.declared[B]``: the level A's own side holds now: A's
  declarations as far as they have taken effect, lowered by B's downgrades
  (absent: Neutral).
* ``Nation.pending``: a downgrade A declared that takes effect later
  (Friendly or Allied to Neutral or War: 96 ticks after it was declared).
* ``Nation.relations[B]``: the level in effect, both sides counted: War and
  Neutral are A's alone; above Neutral only as far as both sides hold it
  ("an upgrade above Neutral counts only while both sides declare it").
  :func:`adjudicator.strategic.state.relation` reads it.

Functions take a State the tick copied and change it in place; every
change of a level in effect is an event visible to both nations.
"""

from __future__ import annotations

import enum

from adjudicator.base import Event
from adjudicator.strategic.economy import Refusal
from adjudicator.strategic.rules import LEVELS, NOTICE_TICKS
from adjudicator.strategic.state import Pending, State, at_war, relation

RANK = {level: i for i, level in enumerate(LEVELS)}  # war 0 .. allied 3
NEUTRAL = "neutral"


class DeclareRefused(enum.StrEnum):
    NO_SUCH_NATION = "no_such_nation"  # toward
    YOURSELF = "toward_yourself"
    NO_SUCH_LEVEL = "no_such_level"  # level, levels
    ALREADY = "already_declared"  # toward, level, due (None: in effect)


# --------------------------------------------------------------------------
# Reading the levels


def held(state: State, a: str, b: str) -> str:
    """The level ``a``'s own side holds toward ``b`` now."""
    return state.nations[a].declared.get(b, NEUTRAL)


def announced(state: State, a: str, b: str) -> str:
    """What ``a`` last declared toward ``b``: a pending downgrade's level,
    else the level it holds."""
    for p in state.nations[a].pending:
        if p.toward == b:
            return p.level
    return held(state, a, b)


def pending(state: State, a: str, b: str) -> Pending | None:
    return next((p for p in state.nations[a].pending if p.toward == b), None)


def in_effect(state: State, a: str, b: str) -> str:
    """The level in effect from what both sides hold: War and Neutral are
    one side's; above Neutral, the lower of the two sides."""
    mine, theirs = held(state, a, b), held(state, b, a)
    if RANK[mine] <= RANK[NEUTRAL]:
        return mine
    if RANK[theirs] <= RANK[NEUTRAL]:
        return NEUTRAL
    return min(mine, theirs, key=RANK.__getitem__)


def teams(state: State) -> list[frozenset[str]]:
    """Allied teams: the groups joined by mutual Allied relations,
    transitively (A with B and B with C: one team). Every nation is in
    exactly one; sorted by their first member."""
    names = sorted(state.nations)
    root = {n: n for n in names}

    def find(n: str) -> str:
        while root[n] != n:
            root[n] = root[root[n]]
            n = root[n]
        return n

    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if relation(state, a, b) == "allied" and relation(state, b, a) == "allied":
                root[find(b)] = find(a)
    groups: dict[str, set[str]] = {}
    for n in names:
        groups.setdefault(find(n), set()).add(n)
    return sorted((frozenset(g) for g in groups.values()), key=sorted)


def may_attack(state: State, a: str, b: str | None) -> bool:
    """``a`` may attack ``b``'s units and capture its cities: only at war
    (section 15). ``b`` None is nobody's (a neutral city): it may be
    captured."""
    return b is None or at_war(state, a, b)


def hostile(state: State, a: str, b: str) -> bool:
    """``a`` is neither Friendly nor Allied toward ``b``: its units
    intercept and interdict ``b``'s (section 5)."""
    return a != b and RANK[relation(state, a, b)] <= RANK[NEUTRAL]


# --------------------------------------------------------------------------
# Declaring


def declare(state: State, a: str, b: str, level: str, events: list[Event]) -> Refusal | None:
    """``a`` declares ``level`` toward ``b`` (RULINGS.md, diplomacy).

    An upgrade is held at once (above Neutral it counts only while ``b``
    holds it too). A downgrade is immediate, except from Friendly or Allied
    in effect to Neutral or War: Allied drops to Friendly at once, and the
    declared level takes effect 96 ticks later; a downgrade that only
    matches what ``b`` has declared toward ``a`` takes effect at once. A
    new declaration replaces a pending one."""
    problem = _check(state, a, b, level)
    if problem is not None:
        return problem
    nation = state.nations[a]
    nation.pending = [p for p in nation.pending if p.toward != b]
    now = held(state, a, b)
    facts = {"nation": a, "toward": b, "level": level}
    if RANK[level] >= RANK[now]:
        _hold(state, a, b, level)
        events.append(Event("declared", facts, frozenset({a, b})))
        settle(state, a, b, events)
        return None
    if _needs_notice(state, a, b, level):
        due = state.tick + NOTICE_TICKS
        nation.pending.append(Pending(due, b, level))
        events.append(Event("declared", {**facts, "due": due}, frozenset({a, b})))
        if RANK[now] > RANK["friendly"]:
            take_effect(state, a, b, "friendly", events)
        return None
    events.append(Event("declared", facts, frozenset({a, b})))
    take_effect(state, a, b, level, events)
    return None


def _check(state: State, a: str, b: str, level: str) -> Refusal | None:
    if b not in state.nations:
        return Refusal(DeclareRefused.NO_SUCH_NATION, {"toward": b})
    if a == b:
        return Refusal(DeclareRefused.YOURSELF, {})
    if level not in RANK:
        return Refusal(DeclareRefused.NO_SUCH_LEVEL, {"level": level, "levels": list(LEVELS)})
    waiting = pending(state, a, b)
    if announced(state, a, b) == level and (waiting is None or _needs_notice(state, a, b, level)):
        facts = {"toward": b, "level": level, "due": waiting.due if waiting else None}
        return Refusal(DeclareRefused.ALREADY, facts)
    return None


def _needs_notice(state: State, a: str, b: str, level: str) -> bool:
    """Friendly or Allied in effect to Neutral or War, unless it only
    matches what ``b`` has declared toward ``a``."""
    return (
        RANK[level] <= RANK[NEUTRAL]
        and RANK[relation(state, a, b)] >= RANK["friendly"]
        and RANK[level] < RANK[announced(state, b, a)]
    )


def war_at_once(state: State, a: str, b: str, events: list[Event]) -> None:
    """``a`` goes to war with ``b`` at once, whatever the relation (a city
    devastated by an ICBM, section 15): no notice."""
    state.nations[a].pending = [p for p in state.nations[a].pending if p.toward != b]
    if held(state, a, b) != "war":
        events.append(Event("declared", {"nation": a, "toward": b, "level": "war"},
                            frozenset({a, b})))  # fmt: skip
        take_effect(state, a, b, "war", events)


def due(state: State, events: list[Event]) -> None:
    """Step 5 of a tick: the downgrades whose notice ends now take effect,
    earliest first, then by nation and toward."""
    ready = sorted(
        (p.due, a, p.toward, p.level)
        for a, nation in state.nations.items()
        for p in nation.pending
        if p.due <= state.tick
    )
    for when, a, b, level in ready:
        item = Pending(when, b, level)
        nation = state.nations[a]
        if item in nation.pending:  # not overtaken by one before it
            nation.pending.remove(item)
            take_effect(state, a, b, level, events)


# --------------------------------------------------------------------------
# A level taking effect


def take_effect(state: State, a: str, b: str, level: str, events: list[Event]) -> None:
    """A downgrade of ``a`` toward ``b`` takes effect: ``b`` is lowered at
    once to at most the same level; war with ``b`` ends ``a``'s Friendly
    relations with ``b``'s allies."""
    _hold(state, a, b, level)
    lower(state, b, a, level)
    if level == "war":
        for c in _allies_of(state, b):
            if c != a:
                end_friendship(state, a, c, events)
    settle(state, a, b, events)


def lower(state: State, a: str, b: str, level: str) -> None:
    """``a``'s side toward ``b`` is lowered to at most ``level``; a pending
    downgrade of ``a`` that is no lower than that is overtaken."""
    if RANK[held(state, a, b)] > RANK[level]:
        _hold(state, a, b, level)
    floor_rank = RANK[held(state, a, b)]
    nation = state.nations[a]
    nation.pending = [p for p in nation.pending if p.toward != b or RANK[p.level] < floor_rank]


def end_friendship(state: State, a: str, c: str, events: list[Event]) -> None:
    """``a``'s Friendly relation with ``c`` goes to Neutral at once (a side
    effect of war or alliance, section 15); ``c`` is lowered with it."""
    if relation(state, a, c) == "friendly" or held(state, a, c) == "friendly":
        _hold(state, a, c, NEUTRAL)
        lower(state, a, c, NEUTRAL)
        lower(state, c, a, NEUTRAL)
        settle(state, a, c, events)


def settle(state: State, a: str, b: str, events: list[Event]) -> None:
    """The levels in effect between ``a`` and ``b`` follow what both sides
    hold; each change is an event to both. An alliance coming into effect
    ends each side's Friendly relations with the nations the other is at
    war with."""
    allied_before = relation(state, a, b) == "allied"
    for x, y in ((a, b), (b, a)):
        was, now = relation(state, x, y), in_effect(state, x, y)
        if was != now:
            _set_relation(state, x, y, now)
            facts = {"nation": x, "toward": y, "level": now, "was": was}
            events.append(Event("relation", facts, frozenset({x, y})))
    if not allied_before and relation(state, a, b) == "allied":
        for x, y in ((a, b), (b, a)):
            for c in _at_war_with(state, y):
                if c != x:
                    end_friendship(state, x, c, events)


def _allies_of(state: State, b: str) -> list[str]:
    return [
        c
        for c in sorted(state.nations)
        if c != b and relation(state, b, c) == "allied" and relation(state, c, b) == "allied"
    ]


def _at_war_with(state: State, b: str) -> list[str]:
    return [
        c
        for c in sorted(state.nations)
        if c != b and (relation(state, b, c) == "war" or relation(state, c, b) == "war")
    ]


def _hold(state: State, a: str, b: str, level: str) -> None:
    declared = state.nations[a].declared
    if level == NEUTRAL:
        declared.pop(b, None)
    else:
        declared[b] = level


def changes(state: State) -> int:
    """How many times a level in effect has changed in ``state`` (this
    state object, not its copies): what others work out from the relations
    and keep (the nations sharing sight, intercept.py) is good while this
    stays the same."""
    return state.cache.get("relations", 0)


def _set_relation(state: State, a: str, b: str, level: str) -> None:
    state.cache["relations"] = state.cache.get("relations", 0) + 1
    relations = state.nations[a].relations
    if level == NEUTRAL:
        relations.pop(b, None)
    else:
        relations[b] = level
