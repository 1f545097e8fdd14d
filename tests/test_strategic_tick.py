"""One Strategic Initiative tick (adjudicator/strategic/tick.py): the steps
in RULINGS.md's order, orders in received order, every result shown only to
the player who gave it, every event to those it concerns and, shorter, to
those who see where it happened; the state given is never changed."""

from __future__ import annotations

import pytest

from adjudicator.base import OrderSheet
from adjudicator.strategic.diplomacy import DeclareRefused
from adjudicator.strategic.economy import BuildRefused
from adjudicator.strategic.orders import Attack, Build, Declare, Move, Status
from adjudicator.strategic.resolve import Reason
from adjudicator.strategic.tick import run_tick
from tests.si_war_boards import position, sq, unit

ROWS = [
    "............",
    ".###....###.",
    ".#F#....#F#.",
    ".###....###.",
    "............",
]


def game():
    s = position(ROWS, C3="red", J3="blue")
    for c in s.cities.values():
        c.build = "infantry"
    return s


def sheet(player, *orders):
    return OrderSheet(player, tuple(orders))


def test_every_code_of_the_economy_and_diplomacy_is_a_result_code():
    for code in [*BuildRefused, *DeclareRefused]:
        assert Reason(code.value) is not None


def test_the_tick_counts_and_the_state_given_stays_as_it_was():
    s = game()
    before = s.copy()
    after = run_tick(s, [], 1).state
    assert after.tick == 1 and s.tick == 0
    assert s == before and after != before


def test_command_points_accrue_before_the_orders_run():
    """RULINGS.md: a tick begins with accruals (step 1), then orders (step 4):
    a move order paid from a nation at 0 succeeds on what the tick brought."""
    s = game()
    inf = unit(s, "red", "infantry", "B2")
    s.nations["red"].command = 0
    result = run_tick(s, [sheet("red", Move(player="red", seq=1, units=(inf.id,),
                                            target=sq(s, "C2"), target_name="C2"))], 1)  # fmt: skip
    (r,) = result.results
    assert r.reason == Reason.MOVED, r
    assert result.state.units[inf.id].square == sq(s, "C2")
    assert result.state.nations["red"].command == 2 - 1  # the tick's 2 (its least), less 1


def test_orders_run_in_received_order_across_players():
    """Step 4: the orders received since the last tick, in received order;
    each runs to completion before the next."""
    s = game()
    red = unit(s, "red", "infantry", "C4")
    blue = unit(s, "blue", "infantry", "J4")
    s.nations["red"].relations["blue"] = s.nations["blue"].relations["red"] = "war"
    s.nations["red"].declared["blue"] = s.nations["blue"].declared["red"] = "war"
    late = Build(player="red", seq=9, line=1, city="C3", kind="tank")
    early = Move(player="blue", seq=2, line=1, units=(blue.id,), target=sq(s, "J5"),
                 target_name="J5")  # fmt: skip
    result = run_tick(s, [sheet("red", late), sheet("blue", early)], 1)
    assert [r.order.seq for r in result.results] == [2, 9]
    assert result.results[1].reason == Reason.TECH_TOO_LOW  # a tank needs tech 6
    assert not result.results[1].succeeded
    del red


def test_results_are_shown_to_their_player_only():
    s = game()
    result = run_tick(s, [sheet("red", Status(player="red", seq=1)),
                          sheet("blue", Declare(player="blue", seq=2, toward="red",
                                                level="friendly"))], 1)  # fmt: skip
    assert [(r.reason, r.visible_to) for r in result.results] == [
        (Reason.STATUS, frozenset({"red"})),
        (Reason.DECLARED, frozenset({"blue"})),
    ]
    for viewer in ("red", "blue"):
        mine = result.for_viewer(viewer).results
        assert all(r.order.player == viewer for r in mine)


def fight_watched_from(watcher_at: str):
    """Red's infantry walks from D2 to E2 and destroys blue's at F2; green
    watches from ``watcher_at`` (an infantry sees 1 square around it)."""
    s = position(ROWS, ("red", "blue", "green"), C3="red", J3="blue")
    for a, b in (("red", "blue"), ("blue", "red")):
        s.nations[a].relations[b] = s.nations[a].declared[b] = "war"
    attacker = unit(s, "red", "infantry", "D2")
    defender = unit(s, "blue", "infantry", "F2", hp=1, ammo=0)  # dies at the first shot
    s.board = type(s.board)(s.board.grid, s.board.land | {sq(s, "E2"), sq(s, "F2"), sq(s, "F3")})
    unit(s, "green", "infantry", watcher_at)
    order = Attack(player="red", seq=1, units=(attacker.id,), target=sq(s, "F2"),
                   target_name="F2")  # fmt: skip
    result = run_tick(s, [sheet("red", order)], 7)
    assert result.results[0].reason == Reason.DESTROYED, result.results[0]
    assert defender.id not in result.state.units
    assert defender.id not in result.state.nations["green"].memory  # seen destroyed
    return attacker, result


def test_an_attack_is_told_in_full_to_those_in_it_and_briefly_to_a_witness():
    """RULINGS.md: every player sees only what their units, cities, radar see.
    A nation that sees both sides of a fight learns what happened there,
    never where the attacker came from."""
    attacker, result = fight_watched_from("F3")  # it sees E2 and F2
    green = result.for_viewer("green").events
    kinds = {e.kind for e in green}
    assert {"attack", "destroyed"} <= kinds and all(e.facts.get("seen") for e in green), green
    assert all("from" not in e.facts and "path" not in e.facts for e in green)
    assert any(e.facts.get("unit") == attacker.id for e in green if e.kind == "attack")
    red = result.for_viewer("red").events
    assert any(e.kind == "destroyed" and not e.facts.get("seen") for e in red)


def test_a_witness_who_sees_one_side_of_a_fight_is_not_told_who_fired():
    """Ruling: a nation that sees the unit hit but not the square the shot
    came from is told of the hit, not of the unit that fired or its nation."""
    attacker, result = fight_watched_from("G2")  # it sees F2, not E2
    green = result.for_viewer("green").events
    assert {e.kind for e in green} == {"hit_from_the_fog", "destroyed_from_the_fog"}, green
    hidden = {"hit_from_the_fog": {"unit", "unit_type", "nation", "from"},
              "destroyed_from_the_fog": {"by", "by_nation", "from"}}  # fmt: skip
    for e in green:
        assert attacker.id not in e.facts.values() and "red" not in e.facts.values(), e
        assert not hidden[e.kind] & set(e.facts), e


def test_the_same_state_orders_and_seed_give_the_same_tick():
    s = game()
    a = unit(s, "red", "infantry", "B2")
    orders = [sheet("red", Move(player="red", seq=1, units=(a.id,), target=sq(s, "D4"),
                                target_name="D4"))]  # fmt: skip
    one, two = run_tick(s, orders, 5), run_tick(s, orders, 5)
    assert one.state == two.state
    assert [e.to_dict() for e in one.events] == [e.to_dict() for e in two.events]


@pytest.mark.parametrize("ticks", [16])
def test_a_quiet_game_builds_and_gains_mobility_on_the_16th_tick(ticks):
    s = game()
    inf = unit(s, "red", "infantry", "B2", mobility=0)
    for t in range(ticks):
        s = run_tick(s, [], t).state
    assert s.units[inf.id].mobility == 2  # tick 16: the table's mobility added
    assert s.nations["red"].command == 512 + 2 * ticks
