"""Implosion (../shared/rules/implosion.txt, RULINGS.md; docs/rules/implosion.md):
the board generator, orders, battles with fixed rolls, the received order,
capacity, production, the centre, the end and every tie-break, and
properties on random games."""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.base import OrderSheet, Rng
from adjudicator.implosion import GAME
from adjudicator.implosion.board import CENTRE, generate
from adjudicator.implosion.orders import Transfer, read_orders
from adjudicator.implosion.resolve import battle, rank_key, start_of_turn, winners
from adjudicator.implosion.state import dump, load


def new_game(players: int = 3, seed: int = 1, turns: int = 168):
    names = ["ann", "bob", "cid", "dee", "eve", "fay"][:players] or []
    names += [f"p{i}" for i in range(len(names), players)]
    return GAME.start(GAME.load_map("ring"), names, {"turns": turns}, seed)


def placed(state, units, points=None):
    """The same game with units placed by hand: {node: (player, count)}."""
    return replace(state, units=dict(units), points=points or dict.fromkeys(state.player, 0))


def move(player, origin, target, count=None, seq=1, line=1):
    return Transfer(player=player, seq=seq, line=line, origin=origin, target=target, count=count)


def run(state, *orders, seed=0):
    sheets = {}
    for o in orders:
        sheets.setdefault(o.player, []).append(o)
    return GAME.adjudicate(state, [OrderSheet(p, tuple(os)) for p, os in sheets.items()], seed)


def free_path(state, length=3):
    """Nodes a-b-c... of ring 9 in a row (a spot away from the starting nodes)."""
    ring = sorted(
        (n for n in state.board.nodes if n.ring == 9 and n.kind == "normal"), key=lambda n: n.pos
    )
    return [n.name for n in ring[:length]]


# -- the board ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 6, 12, 24, 48, 64])
def test_the_board_is_built_as_the_rules_say(players):
    board = generate(players, seed=players)
    assert board == generate(players, seed=players)  # deterministic
    rings = {n.ring for n in board.nodes}
    assert rings == set(range(1, 13))
    assert [n.name for n in board.nodes if n.ring == 1] == [CENTRE]
    assert all(n.capacity == n.ring for n in board.nodes)
    assert all(3 <= len(board.adjacency[n.name]) <= 6 for n in board.nodes)
    # connected, and every starting node is as far from the centre as the others
    dist = {CENTRE: 0}
    queue = deque([CENTRE])
    while queue:
        here = queue.popleft()
        for there in board.adjacency[here]:
            if there not in dist:
                dist[there] = dist[here] + 1
                queue.append(there)
    assert len(dist) == len(board.nodes)
    assert len(board.starts) == players and {dist[s] for s in board.starts} == {11}
    rim = sorted((n for n in board.nodes if n.ring == 12), key=lambda n: n.pos)
    assert [n.kind for n in rim[: 2 * players]] == ["start", "normal"] * players  # evenly spaced
    spawns = {n.ring for n in board.nodes if n.kind == "spawn"}
    assert spawns == {7, 10}


def test_a_different_seed_turns_the_rings():
    assert generate(24, 1).nodes != generate(24, 2).nodes


def test_each_player_starts_with_twelve_units_on_their_starting_node():
    s = new_game(24)
    assert len(s.board.starts) == 24
    assert all(s.units[p.start] == (p.name, 12) for p in s.players)
    assert load(dump(s)) == s
    assert GAME.phase(s) == (1, "turn 1 of 168")


# -- orders -----------------------------------------------------------------------------


def test_order_forms_and_refusals():
    s = new_game()
    start = s.player["ann"].start
    near = s.board.adjacency[start][0]
    text = "\n".join(
        [
            f"move 5 from {start} to {near}",
            f"{start} -> {near}",
            f"{start} -> {near} 3",
            f"4 units from {start} to {near}",
            f"send all from {start} to {near}",
            "move 2 from 7.99 to 7.1",
            f"move 0 from {start} to {near}",
            f"move 2 from {start} to C",
            f"move 2 from {s.player['bob'].start} to {s.board.adjacency[s.player['bob'].start][0]}",
            "attack the centre",
        ]
    )
    sheet = read_orders(s, "ann", text, seq=7)
    assert [o.canonical() for o in sheet.orders] == [
        f"move 5 from {start} to {near}",
        f"move all from {start} to {near}",
        f"move 3 from {start} to {near}",
        f"move 4 from {start} to {near}",
        f"move all from {start} to {near}",
    ]
    assert {o.seq for o in sheet.orders} == {7}
    assert [(p.line, p.reason) for p in sheet.problems] == [
        (6, "no_such_node"),
        (7, "bad_count"),
        (8, "not_connected"),
        (9, "no_units_there"),
        (10, "not_an_order"),
    ]
    assert "ring 7 has positions 1 to" in sheet.problems[0].facts["hint"]


def test_refusals_suggest_the_closest_names():
    s = new_game()
    start = s.player["ann"].start  # a rim node, 12.x
    near = s.board.adjacency[start]
    far = next(n for n in s.board.adjacency[near[0]] if n not in near and n != start)
    typo = f"{start}9"  # one key too many
    assert typo not in s.board.node
    lines = [f"move 2 from {typo} to {near[0]}", f"{start} -> {far}", f"{far} -> {near[0]}"]
    sheet = read_orders(s, "ann", "\n".join(lines))
    got = {p.reason: p.suggestions for p in sheet.problems}
    # a typo in the origin: the node of ann's units comes first
    assert got["no_such_node"][0] == start
    # not connected: the connections of the origin most like the target
    assert got["not_connected"]
    assert all(x.split()[-1] in near for x in got["not_connected"])
    # no units there: ann's units that connect to the target
    assert got["no_units_there"] == (f"{start} -> {near[0]}",)


# -- battles ----------------------------------------------------------------------------


def test_the_worked_example_three_against_two():
    """A attacks with three against B's two. B shoots first and hits (A has
    two); A hits (B has one); B misses; A hits: the node is A's, with two."""
    rolls = iter([True, True, False, True])
    assert battle(3, 2, lambda: next(rolls)) == (2, 0, "D+ A+ D- A+")


def test_a_battle_goes_on_until_one_side_is_gone():
    rolls = iter([False, False, True, False, True])
    assert battle(2, 1, lambda: next(rolls)) == (0, 1, "D- A- D+ A- D+")


def test_the_order_received_decides_who_defends():
    s = new_game()
    a, mid, b = free_path(s)
    state = placed(s, {a: ("ann", 5), b: ("bob", 5)})
    first = run(state, move("ann", a, mid, seq=10), move("bob", b, mid, seq=11), seed=3)
    ann, bob = first.results
    assert ann.reason == "moved" and bob.reason in ("conquered", "repelled")
    assert bob.facts["defender"] == "ann" and bob.facts["shots"].startswith("D")
    second = run(state, move("ann", a, mid, seq=12), move("bob", b, mid, seq=11), seed=3)
    bob, ann = second.results
    assert bob.reason == "moved" and ann.facts["defender"] == "bob"


def test_battle_rolls_come_from_the_seed():
    s = new_game()
    a, mid, _ = free_path(s)
    state = placed(s, {a: ("ann", 8), mid: ("bob", 8)})
    shots = {
        run(state, move("ann", a, mid), seed=seed).results[0].facts["shots"] for seed in range(8)
    }
    assert len(shots) > 1  # the seed matters
    again = run(state, move("ann", a, mid), seed=5)
    assert again == run(state, move("ann", a, mid), seed=5)


def test_the_survivors_hold_the_node_and_defend_it_next():
    s = new_game()
    a, mid, b = free_path(s)
    state = placed(s, {a: ("ann", 9), mid: ("bob", 1), b: ("cid", 9)})
    for seed in range(50):
        result = run(state, move("ann", a, mid, seq=1), move("cid", b, mid, seq=2), seed=seed)
        ann, cid = result.results
        if ann.reason == "conquered":
            assert cid.facts["defender"] == "ann"
            assert cid.facts["defenders"] == ann.facts["survivors"]
            return
    raise AssertionError("ann never won with 9 against 1")


# -- capacity and moving once --------------------------------------------------------


def test_a_move_into_ones_own_node_moves_only_what_fits():
    s = new_game()
    a, mid, _ = free_path(s)  # ring 9: capacity 9
    state = placed(s, {a: ("ann", 9), mid: ("ann", 7)})
    (r,) = run(state, move("ann", a, mid, 5)).results
    assert r.reason == "moved_part" and r.facts["moved"] == 2
    assert run(state, move("ann", a, mid, 5)).state.units[mid][1] <= 9
    full = placed(s, {a: ("ann", 9), mid: ("ann", 9)})
    assert run(full, move("ann", a, mid)).results[0].reason == "no_room"


def test_a_move_asking_more_than_there_moves_what_is_there():
    s = new_game()
    a, mid, _ = free_path(s)
    (r,) = run(placed(s, {a: ("ann", 3)}), move("ann", a, mid, 8)).results
    assert r.reason == "moved_part" and r.facts["moved"] == 3


def test_units_that_arrived_this_turn_cannot_move_on():
    s = new_game()
    a, mid, b = free_path(s)
    state = placed(s, {a: ("ann", 4), mid: ("ann", 2)})
    result = run(state, move("ann", a, mid, seq=1), move("ann", mid, b, seq=2))
    first, second = result.results
    assert first.facts["moved"] == 4
    assert second.reason == "moved" and second.facts["moved"] == 2  # "all": the two that were there
    third = run(
        state, move("ann", a, mid, seq=1), move("ann", mid, b, seq=2), move("ann", mid, b, seq=3)
    )
    assert third.results[2].reason == "nothing_to_move"


def test_an_attack_sends_at_most_the_capacity_of_the_node():
    s = new_game()
    rim = s.player["ann"].start
    inner = next(t for t in s.board.adjacency[rim] if s.board.node[t].ring == 11)
    state = placed(s, {rim: ("ann", 12), inner: ("bob", 1)})
    (r,) = run(state, move("ann", rim, inner)).results
    assert r.facts["attackers"] == 11


# -- the start of a turn -------------------------------------------------------------


def test_production_spawn_nodes_starting_nodes_and_capacity():
    s = new_game()
    spawn = next(n for n in s.board.nodes if n.kind == "spawn")
    ann_start, bob_start, cid_start = (s.player[p].start for p in ("ann", "bob", "cid"))
    state = placed(
        s,
        {
            spawn.name: ("ann", 2),  # occupied spawn: +1
            bob_start: ("ann", 3),  # bob's starting node, held by ann: ann gets the unit
            cid_start: ("cid", 12),  # at capacity: nothing
        },
    )  # ann's own starting node is empty: ann gets a unit there
    after, events = start_of_turn(state)
    assert after.units[spawn.name] == ("ann", 3)
    assert after.units[bob_start] == ("ann", 4)
    assert after.units[ann_start] == ("ann", 1)
    assert after.units[cid_start] == ("cid", 12)
    assert {(e.kind, e.facts["player"], e.facts["node"]) for e in events} == {
        ("spawned", "ann", spawn.name),
        ("spawned", "ann", bob_start),
        ("spawned", "ann", ann_start),
    }


def test_the_player_on_the_centre_scores_a_point():
    s = new_game()
    state = placed(s, {CENTRE: ("bob", 1), s.player["ann"].start: ("ann", 12)})
    after, events = start_of_turn(state)
    assert after.points["bob"] == 1 and after.points["ann"] == 0
    assert ("centre_point", "bob") in {(e.kind, e.facts.get("player")) for e in events}
    # and at the start of every turn after a turn's moves
    result = run(
        state, move("ann", s.player["ann"].start, s.board.adjacency[s.player["ann"].start][0], 1)
    )
    assert result.state.points["bob"] == 1


# -- the end ---------------------------------------------------------------------------


def test_the_game_ends_when_only_one_player_has_units():
    s = new_game(2)
    a, mid, _ = free_path(s)
    state = placed(s, {a: ("ann", 9), mid: ("bob", 1)})
    for seed in range(50):
        result = run(state, move("ann", a, mid), seed=seed)
        if result.results[0].reason == "conquered":
            assert result.state.outcome.reason == "last_player"
            assert result.state.outcome.winners == ("ann",)
            assert "game_over" in [e.kind for e in result.events]
            # bob's empty starting node gives him nothing: the game is over
            assert s.player["bob"].start not in result.state.units
            return
    raise AssertionError("ann never won")


def test_the_game_ends_after_the_last_turn():
    s = new_game(3, turns=2)
    s = GAME.adjudicate(s, [], 1).state
    assert s.outcome is None and GAME.phase(s) == (2, "turn 2 of 2")
    s = GAME.adjudicate(s, [], 2).state
    assert s.outcome is not None and s.outcome.reason == "last_turn"


def test_every_tie_break():
    s = new_game(2)
    board = s.board
    spawn9 = [n.name for n in board.nodes if n.kind == "spawn"]
    plain = {
        r: [n.name for n in board.nodes if n.ring == r and n.kind == "normal"] for r in (3, 5, 8)
    }
    # 1. centre points
    state = placed(s, {plain[8][0]: ("ann", 1), plain[8][1]: ("bob", 5)}, {"ann": 2, "bob": 1})
    assert winners(state) == ("ann",)
    # 2. equal points: units
    state = placed(s, {plain[8][0]: ("ann", 3), plain[8][1]: ("bob", 5)}, {"ann": 1, "bob": 1})
    assert winners(state) == ("bob",)
    # 3. equal units: spawn nodes occupied
    state = placed(s, {spawn9[0]: ("ann", 3), plain[8][1]: ("bob", 3)})
    assert winners(state) == ("ann",)
    # 4. equal spawns: nodes ring by ring from the centre out (ring 3 beats ring 5)
    state = placed(s, {plain[5][0]: ("ann", 2), plain[3][0]: ("bob", 1), plain[8][0]: ("bob", 1)})
    assert rank_key(state, "ann")[:3] == rank_key(state, "bob")[:3]
    assert winners(state) == ("bob",)
    # all equal: a shared win
    state = placed(s, {plain[5][0]: ("ann", 2), plain[5][1]: ("bob", 2)})
    assert winners(state) == ("ann", "bob")


def test_a_player_who_leaves_takes_their_units_and_start():
    s = new_game(2)
    after = GAME.remove_player(s, "bob")
    assert after.outcome.winners == ("ann",)
    three = GAME.remove_player(new_game(3), "cid")
    assert three.outcome is None and not any(who == "cid" for who, _ in three.units.values())
    nxt, _ = start_of_turn(three)
    assert three.player["cid"].start not in nxt.units  # the start no longer produces


# -- properties ---------------------------------------------------------------------------


def random_orders(state, rng: Rng, seq_base: int) -> list[OrderSheet]:
    sheets = []
    for i, p in enumerate(state.active):
        lines = []
        for node, (who, _) in sorted(state.units.items()):
            if who != p or rng.below(3) == 0:
                continue
            target = rng.choice(state.board.adjacency[node])
            count = "all" if rng.coin() else str(1 + rng.below(12))
            lines.append(f"move {count} from {node} to {target}")
        lines.append("nonsense line")  # refused, never raises
        sheets.append(read_orders(state, p, "\n".join(lines), seq_base + rng.below(1000) * 10 + i))
    return sheets


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 8), seed=st.integers(0, 2**32), turns=st.integers(1, 12))
def test_properties_of_random_games(players, seed, turns):
    s = new_game(players, seed, turns=40)
    rng = Rng(seed)
    for t in range(turns):
        if s.outcome is not None:
            break
        sheets = random_orders(s, rng, t * 100_000)
        result = GAME.adjudicate(s, sheets, seed + t)
        assert result == GAME.adjudicate(s, sheets, seed + t)  # same seed, same turn
        new = result.state
        for node, (_, count) in new.units.items():
            assert 1 <= count <= s.board.node[node].capacity
        # the total changes only by production and battle losses
        lost = sum(
            r.facts["attackers"] + r.facts["defenders"] - r.facts["survivors"]
            for r in result.results
            if r.reason in ("conquered", "repelled")
        )
        made = sum(1 for e in result.events if e.kind == "spawned")
        before = sum(c for _, c in s.units.values())
        assert sum(c for _, c in new.units.values()) == before - lost + made
        assert load(dump(new)) == new
        s = new
