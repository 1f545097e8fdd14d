"""Strategic Initiative through the game interface (adjudicator/strategic/
game.py): a generated start, orders read and run tick by tick, the game
clock, the state as text, a player leaving, and every player's view."""

from __future__ import annotations

import pytest

from adjudicator.base import GameError, turn_seed
from adjudicator.strategic.game import GAME, clock
from adjudicator.strategic.resolve import Reason

PLAYERS = ["ann", "bob", "cid"]


@pytest.fixture(scope="module")
def started():
    return GAME.start(GAME.load_map("islands"), PLAYERS, {}, 11)


def test_the_board_is_generated_and_named(started):
    with pytest.raises(GameError, match="map: islands"):
        GAME.load_map("europe")
    assert GAME.phase(started) == (0, "day 1, 00:15")  # the tick to be played
    assert [GAME.seat(started, p) for p in PLAYERS] == [started.nations[p].colour for p in PLAYERS]
    assert GAME.seat(started, "zed") is None
    assert GAME.player_for(started, started.nations["bob"].colour.upper()) == "bob"


def test_the_game_clock():
    """RULINGS.md: ticks of 15 game-minutes, 96 a day."""
    assert [clock(t) for t in (0, 1, 37, 95, 96, 959)] == [
        "day 1, 00:00", "day 1, 00:15", "day 1, 09:15", "day 1, 23:45", "day 2, 00:00",
        "day 10, 23:45"]  # fmt: skip


def test_orders_read_and_run_at_the_next_tick(started):
    mine = sorted((u for u in started.units.values() if u.owner == "ann"), key=lambda u: u.id)
    inf = next(u for u in mine if u.kind == "infantry")
    target = next(n for n in started.grid.neighbours(inf.square)
                  if n in started.board.land and n not in started.cities
                  and not any(u.square == n for u in started.units.values()))  # fmt: skip
    name = started.grid.name(target)
    sheet = GAME.read_orders(started, "ann", f"move {inf.id} to {name}\nstatus", seq=3)
    assert not sheet.problems, sheet.problems
    result = GAME.adjudicate(started, [sheet], turn_seed(11, 1))
    assert [r.reason for r in result.results] == [Reason.MOVED, Reason.STATUS]
    assert result.state.units[inf.id].square == target
    assert started.units[inf.id].square == inf.square  # the state given is kept
    assert GAME.phase(result.state) == (1, "day 1, 00:30")
    assert GAME.outcome(result.state) is None


def test_the_state_as_text_reads_back_exactly(started):
    state = started
    for t in range(1, 20):
        state = GAME.adjudicate(state, [], turn_seed(11, t)).state
    text = GAME.dump_state(state)
    assert GAME.dump_state(GAME.load_state(text)) == text
    assert GAME.load_state(text) == state
    assert GAME.load_position(GAME.dump_position(state)) == state


def test_a_player_who_leaves_gives_no_more_orders(started):
    gone = GAME.remove_player(started, "cid")
    assert gone.nations["cid"].status == "removed" and started.nations["cid"].status == "active"
    sheet = GAME.read_orders(gone, "cid", "status")
    assert [p.reason for p in sheet.problems] == ["not_in_game"]


def test_views_show_each_player_only_their_fog(started):
    master = GAME.view(started, None)
    ann = GAME.view(started, "ann")
    assert len(master.board["units"]) == len(started.units)
    assert {u["owner"] for u in ann.board["units"] if u["status"] == "own"} == {"ann"}
    seen = ann.board["seen"]
    assert all(u["status"] == "own" or started.units[u["id"]].square in seen
               for u in ann.board["units"])  # fmt: skip


def test_a_whole_tick_as_data(started):
    sheet = GAME.read_orders(started, "ann", "status", 1)
    result = GAME.adjudicate(started, [sheet], 5)
    data = GAME.phase_result(started, result)
    assert data["tick"] == 1 and data["clock"] == "day 1, 00:15"
    assert data["results"][0]["visible_to"] == ["ann"]
    assert GAME.load_position(data["position"]) == result.state


def test_a_view_after_a_tick_is_the_view_worked_out_afresh(started):
    """The tick keeps the sight it worked out for the views; it is the same
    as working it out again, and a copy of the state does not carry it."""
    state = started
    for t in range(1, 4):
        state = GAME.adjudicate(state, [], turn_seed(11, t)).state
    assert "sight" in state.cache and state.copy().cache == {}
    fresh = GAME.load_state(GAME.dump_state(state))
    assert fresh.cache == {} and fresh == state
    for player in [*PLAYERS, None]:
        assert GAME.view(state, player) == GAME.view(fresh, player)
