"""Strategic Initiative: interception and interdiction (intercept.py) as
properties over seeded random wars, what the rule cases
(tests/cases/strategic/interception/, interdiction/) cannot say: the
index of watchers kept up to date through moves and losses answers as one
made afresh; interception and interdiction never trigger more of
themselves (rules, sections 11 and 12: "interdiction movement never
triggers interdiction itself", "interception never triggers interception
itself"); a ship that interdicts ends next to the mover, and a plane that
goes out pays the way out only and is back where it started."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from adjudicator.base import Event, OrderSheet, Rng
from adjudicator.strategic import intercept, sight
from adjudicator.strategic.combat import attack
from adjudicator.strategic.movement import move
from adjudicator.strategic.orders import Move
from adjudicator.strategic.places import Places
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import State
from adjudicator.strategic.tick import run_tick
from tests.si_war_boards import ISLANDS, position, relate, scatter

NATIONS = ("red", "blue", "gold")
WATCHERS = ["fighter", "naval_bomber", "destroyer", "cruiser", "tank", "battleship", "carrier"]
MOVERS = ["infantry", "transport", "submarine", "supply_ship", "destroyer", "tank"]
WATCH_EVENTS = ("intercepted", "interdicted", "coast_fire")


def _war(seed: int, relations: str = "war") -> State:
    """Three nations on an island board (24 x 12, wrapping), every one at
    ``relations`` with the others, 48 units in random places, watchers
    and movers of every kind."""
    owners = {"C2": "red", "L4": "blue", "H7": "gold", "E4": "red", "T2": "blue",
              "S6": "gold", "S8": "blue", "D10": "gold", "N11": "red"}  # fmt: skip
    state = position(ISLANDS, NATIONS, **owners)
    for nation in state.nations.values():
        nation.tech = Fraction(9)  # radar 5: what fighters see to intercept
    for a in NATIONS:
        for b in NATIONS:
            if a != b:
                relate(state, a, b, relations)
    scatter(state, WATCHERS + MOVERS, 48, Rng(seed), NATIONS)
    for unit in state.units.values():
        unit.fuel = tables().unit(unit.kind).mobility  # planes fuelled, as built
    return state


def _index(watchers: intercept.Watchers) -> dict[object, list[str]]:
    return {
        (w, cell, nation): sorted(ids)
        for w, layer in watchers.layers.items()
        for cell, nations in layer.cells.items()
        for nation, ids in nations.items()
    }


def _within(state: State, what: str, square: int) -> set[str]:
    """The watchers of ``what`` within their reach of ``square``, counted
    one by one."""
    found = set()
    for u in state.units.values():
        w = intercept._watches(u.kind)
        if w is not None and w[0] == what and state.grid.distance(u.square, square) <= w[1]:
            found.add(u.id)
    return found


def test_the_watchers_kept_through_moves_and_losses_are_the_watchers_made_afresh():
    """Bounded property: over seeded random wars (moves, attacks,
    interceptions, units lost), the index of watchers that the places keep
    up to date holds what one made again from the state holds, and never
    misses a watcher within reach of a square."""
    for seed in range(3):
        state = _war(seed)
        places = Places(state)
        watchers = intercept.watchers(state, places)
        rng = Rng(seed)
        events: list[Event] = []
        for step in range(40):
            mover = state.units[rng.choice(sorted(state.units))]
            group = [u.id for u in state.units.values() if u.owner == mover.owner][:3]
            column, row = state.grid.at(mover.square)
            target = state.grid.square(column + rng.below(9) - 4, row + rng.below(9) - 4)
            if rng.coin():
                move(state, mover.owner, group, target, step, 1, events, places, rng)
            else:
                attack(state, mover.owner, group, target, rng, step, 1, events, places)
        assert places.watch is watchers
        assert _index(watchers) == _index(intercept.Watchers(state))
        for square in (0, state.grid.size - 1, *(rng.below(state.grid.size) for _ in range(20))):
            for what in (intercept.AIR, intercept.SEA):
                assert _within(state, what, square) <= set(watchers.around(what, square, "nobody"))
        assert {e.kind for e in events} & {"intercepted", "interdicted", "coast_fire"}


def _orders(state: State, rng: Rng, tick: int) -> list[OrderSheet]:
    """Random moves: about half the units, each to a square up to 5 away,
    in groups of one to three of a nation's units."""
    sheets = []
    for nation in NATIONS:
        mine = sorted(u.id for u in state.units.values() if u.owner == nation)
        orders = []
        for i, uid in enumerate(mine):
            if rng.coin():
                continue
            unit = state.units[uid]
            column, row = state.grid.at(unit.square)
            target = state.grid.square(column + rng.below(11) - 5, row + rng.below(11) - 5)
            group = tuple(mine[i : i + 1 + rng.below(3)])
            name = state.grid.name(target)
            orders.append(Move(nation, tick * 1000 + i, 1, units=group, target=target,
                               target_name=name))  # fmt: skip
        sheets.append(OrderSheet(nation, tuple(orders)))
    return sheets


def _blocks(events: Sequence[Event]) -> list[tuple[Event, list[Event]]]:
    """Each move (its event) and the watchers' events that follow it,
    before the next move."""
    out: list[tuple[Event, list[Event]]] = []
    for e in events:
        if e.kind == "moved" and "path" in e.facts:
            out.append((e, []))
        elif e.kind in WATCH_EVENTS and not e.facts.get("seen"):  # not a witness's copy
            assert out, e  # nothing acts but on a unit moving
            out[-1][1].append(e)
    return out


def _check_block(state: State, moved: Event, acts: list[Event]) -> set[str]:
    """Every act is on the unit that moved, but the interception of a
    naval bomber on its way out against it; a ship ends next to the
    mover; a plane pays its way out and is back where it started."""
    grid, mover = state.grid, moved.facts["unit"]
    planes = set()
    for e in acts:
        f = e.facts
        where, start = grid.parse(f["square"]), grid.parse(f["from"])
        to = grid.parse(f.get("to", f["from"]))
        if e.kind == "intercepted":
            assert f["target"] == mover or f["target"] in planes, (moved, e)
            assert f["back"] == f["from"] and f["to"] == f["square"]
            assert f["mobility"] == f["fuel"] == len(f["way"]) == grid.distance(start, where)
            continue
        assert f["target"] == mover, (moved, e)  # interdiction triggers no interdiction
        assert f["unit"] != mover
        if e.kind == "coast_fire":
            assert grid.distance(start, where) == 1
            continue
        plane = tables().unit(f["unit_type"]).domain == "air"
        if plane:
            planes.add(f["unit"])
            assert f["back"] == f["from"] and f["mobility"] == f["fuel"] == len(f["way"])
            assert grid.distance(to, where) <= 1 or len(f["way"]) < grid.distance(start, where)
        else:
            assert f["back"] == f["to"] and grid.distance(to, where) == 1, e
            assert f["mobility"] == len(f["way"]) and f["fuel"] == 0
    return {e.facts["unit_type"] for e in acts}


def _planes_home(state: State, events: Sequence[Event]) -> None:
    """A plane that went out is where it started after the tick, unless
    it was lost or moved by an order later."""
    for i, e in enumerate(events):
        f = e.facts
        if e.kind not in ("intercepted", "interdicted") or "way" not in f:
            continue
        if tables().unit(f["unit_type"]).domain != "air":
            continue
        later = [m for m in events[i:] if m.kind == "moved" and m.facts["unit"] == f["unit"]]
        unit = state.units.get(f["unit"])
        if unit is not None and not later:
            assert unit.square == state.grid.parse(f["from"]), e


def test_interception_and_interdiction_never_trigger_more():
    """Bounded property: over seeded random moves on crowded boards, at war
    and at peace (Neutral: no war is needed), whatever watches acts only on
    the unit moving by an order (or, a fighter, on a naval bomber going out
    against it); interdicting ships end next to the mover; planes pay the
    way out only and are back where they started."""
    kinds: set[str] = set()
    for seed in range(4):
        state = _war(seed, "war" if seed % 2 else "neutral")
        rng = Rng(100 + seed)
        for tick in range(3):
            result = run_tick(state, _orders(state, rng, tick), seed * 10 + tick)
            for moved, acts in _blocks(result.events):
                kinds |= _check_block(state, moved, acts)
            _planes_home(result.state, result.events)
            state = result.state
    assert {"fighter", "naval_bomber", "tank", "destroyer"} <= kinds, kinds


def test_what_interception_asks_of_sight_is_what_sight_says(monkeypatch):
    """Bounded property: interception's quick answers to "does this nation
    see the mover" (the watcher's own sight, the units and cities near,
    kept while nothing changes) give the same ticks as asking
    sight.detects every time."""

    def plainly(state, places, watcher, mover, distance):
        return sight.detects(state, watcher.owner, mover, places)

    def play() -> list[object]:
        out: list[object] = []
        for seed in range(2):
            state = _war(seed, "neutral")
            rng = Rng(200 + seed)
            for tick in range(3):
                result = run_tick(state, _orders(state, rng, tick), seed * 10 + tick)
                out += [(e.kind, dict(e.facts)) for e in result.events]
                state = result.state
        return out

    quick = play()
    monkeypatch.setattr(intercept, "sees", plainly)
    assert play() == quick
    assert any(kind == "intercepted" for kind, _ in quick)
