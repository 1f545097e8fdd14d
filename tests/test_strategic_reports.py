"""What the host asks of Strategic Initiative for its mail: which readers a
tick concerns and what kind of report each gets (Game.report_for), the
observers' view (only what is public), and what a situation report needs
in a player's view (supply, standing orders)."""

from __future__ import annotations

from adjudicator.base import OrderSheet
from adjudicator.strategic import supply
from adjudicator.strategic.game import GAME
from adjudicator.strategic.tick import run_tick
from tests.si_war_boards import position, unit


def rows() -> list[str]:
    """24 x 24 land with two water columns; red's fort B2 and port H2, blue's
    fort H20 (far apart on the wrapping grid)."""
    out = ["#" * 22 + ".." for _ in range(24)]
    out[1] = "#F#####P" + "#" * 14 + ".."
    out[19] = "#######F" + "#" * 14 + ".."
    return out


def board():
    s = position(rows(), B2="red", H2="red", H20="blue")
    unit(s, "red", "infantry", "B2", "inf1")
    unit(s, "red", "infantry", "C3", "inf2")
    unit(s, "blue", "infantry", "H20", "inf9")
    return s


def orders(state, player: str, text: str) -> OrderSheet:
    sheet = GAME.read_orders(state, player, text, seq=1)
    assert not sheet.problems, sheet.problems
    return sheet


def tick(state, *sheets):
    return run_tick(state, list(sheets), 5)


def test_a_quiet_tick_mails_nobody_and_the_16th_mails_everyone():
    """The issue: a tick that concerns a player mails them; every 16 ticks
    a full situation report, to the game master and observers too."""
    s = board()
    first = tick(s)  # the first look: what each nation sees comes into sight
    quiet = tick(first.state)
    assert [GAME.report_for(first.state, quiet, v) for v in ("red", "blue", None, "#obs")] == [
        None, None, None, None]  # fmt: skip
    state = quiet.state
    while state.tick < 15:
        state = tick(state).state
    sixteenth = tick(state)
    assert sixteenth.state.tick == 16
    assert {GAME.report_for(state, sixteenth, v) for v in ("red", "blue", None, "#obs")} == {
        "situation"}  # fmt: skip


def test_an_order_that_ran_mails_its_player_only():
    s = tick(tick(board()).state).state
    ran = tick(s, orders(s, "red", "move inf2 to D4"))
    assert GAME.report_for(s, ran, "red") == "tick"
    assert GAME.report_for(s, ran, "blue") is None  # it saw nothing of it
    assert GAME.report_for(s, ran, None) is None and GAME.report_for(s, ran, "#obs") is None


def test_status_asks_for_a_situation_report_at_the_next_tick():
    s = tick(tick(board()).state).state
    asked = tick(s, orders(s, "blue", "status"))
    assert GAME.report_for(s, asked, "blue") == "situation"
    assert GAME.report_for(s, asked, "red") is None


def test_a_unit_coming_into_sight_concerns_the_one_who_sees_it():
    """Something new came into sight: a tick report, even with no event."""
    s = board()
    unit(s, "red", "infantry", "H17", "inf7")  # it sees one square around it
    s = tick(tick(s).state).state
    assert "inf9" not in {u["id"] for u in GAME.view(s, "red").board["units"]}
    moved = tick(s, orders(s, "blue", "move inf9 to H18"))
    assert "inf9" in {u["id"] for u in GAME.view(moved.state, "red").board["units"]}
    assert GAME.report_for(s, moved, "red") == "tick"
    # and once in sight, staying still is not news
    still = tick(moved.state)
    assert GAME.report_for(moved.state, still, "red") is None


def test_an_observer_sees_only_what_is_public():
    s = tick(board()).state
    view = GAME.view(s, "#observer")
    assert view.board["units"] == [] and view.board["seen"] == frozenset()
    assert {c["name"] for c in view.board["cities"]} == {"B2", "H2", "H20"}
    assert all(c["owner"] is None and "build" not in c for c in view.board["cities"])
    assert [n["name"] for n in view.board["nations"]] == ["blue", "red"]
    assert all(set(n) == {"name", "colour", "status"} for n in view.board["nations"])
    assert view.phase == "day 1, 00:30"  # the tick to be played next


def test_a_players_own_units_say_whether_they_are_in_supply():
    s = board()
    unit(s, "red", "infantry", "P12", "inf3")  # far from any city of red's
    s = tick(s).state
    own = {u["id"]: u["supplied"] for u in GAME.view(s, "red").board["units"]}
    assert own == {u: supply.in_supply(s, s.units[u]) for u in ("inf1", "inf2", "inf3")}
    assert own["inf1"] is True and own["inf3"] is False
    seen = [u for u in GAME.view(s, "blue").board["units"] if u["owner"] == "red"]
    assert all("supplied" not in u for u in seen)  # never told of another's


def test_standing_orders_are_listed_for_their_nation_only():
    s = tick(board()).state
    far = tick(s, orders(s, "red", "move inf1 to B12")).state  # beyond one tick's mobility
    mine = GAME.view(far, "red").board["standing"]
    assert [(e["units"], e["action"], e["target"]) for e in mine] == [(["inf1"], "move", "B12")]
    assert GAME.view(far, "blue").board["standing"] == []
    assert GAME.view(far, None).board["standing"] == mine
    own = {u["id"]: u["standing"] for u in GAME.view(far, "red").board["units"]}
    assert own["inf1"] == {"action": "move", "target": "B12"} and own["inf2"] is None
