"""Strategic Initiative's orders explain themselves ("Strategic Initiative,
round two"): the forms read back as players write them, and a note only
where it applies."""

from __future__ import annotations

from fractions import Fraction

from adjudicator.base import OrderSheet
from adjudicator.strategic.game import GAME
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.orders import Declare
from adjudicator.strategic.resolve import Reason
from adjudicator.strategic.state import Board, Nation, State

GRID = Grid(8, 8)


def make(*names: str) -> State:
    nations = {n: Nation(name=n, colour=n, command=512, tech=Fraction(0)) for n in names}
    return State(Board(GRID, frozenset(range(GRID.size))), nations, {}, {}, tick=10)


def declared(state: State, text: str) -> tuple[Reason, dict]:
    sheet = GAME.read_orders(state, "kim", text)
    assert not sheet.problems, sheet.problems
    result = GAME.adjudicate(state, [OrderSheet("kim", sheet.orders)], 1).results[0]
    return result.reason, dict(result.facts)


def test_war_reads_back_as_players_write_it():
    assert Declare(player="kim", toward="lee", level="war").canonical() == "declare war on lee"
    assert Declare(player="kim", toward="lee", level="friendly").canonical() == (
        "declare friendly toward lee"
    )


def test_the_notice_is_said_only_where_a_relation_is_lowered_from_friendly():
    reason, facts = declared(make("kim", "lee"), "declare war on lee")
    assert reason == Reason.DECLARED and "due" not in facts  # neutral to war: at once
    state = make("kim", "lee")
    state.nations["kim"].declared["lee"] = "friendly"
    state.nations["lee"].declared["kim"] = "friendly"
    state.nations["kim"].relations["lee"] = state.nations["lee"].relations["kim"] = "friendly"
    reason, facts = declared(state, "declare war on lee")
    assert reason == Reason.DECLARED_WITH_NOTICE and facts["due"] == 11 + 96


def test_not_an_order_names_a_nation_in_the_game():
    sheet = GAME.read_orders(make("kim", "lee"), "kim", "go west")
    assert sheet.problems[0].reason == "not_an_order"
    assert sheet.problems[0].facts["rival"] == "lee"
