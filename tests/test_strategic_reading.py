"""Reading Strategic Initiative orders from the words players write: every
form of adjudicator/strategic/reading.py, and a clear refusal with a
suggestion for each kind of mistake."""

from __future__ import annotations

from fractions import Fraction

import pytest

from adjudicator.base import ProblemKind
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.orders import Attack, Build, Cancel, Declare, Move, Status
from adjudicator.strategic.reading import read_orders
from adjudicator.strategic.state import Board, City, Nation, State, Unit


def position() -> State:
    grid = Grid(12, 10)
    land = frozenset(grid.square(c, r) for c in range(2, 7) for r in range(2, 6))
    nations = {
        "ann": Nation("ann", "red", 512, Fraction(0)),
        "bob": Nation("bob", "blue", 512, Fraction(0)),
    }
    avalon, brest = grid.square(3, 3), grid.square(6, 5)
    cities = {
        avalon: City("Avalon", avalon, "ann", "fort", "infantry"),
        brest: City("Brest", brest, "bob", "port", "supply_ship"),
    }
    units = {
        "inf1": Unit("inf1", "ann", "infantry", avalon, 5, 1, 2, built=1),
        "inf2": Unit("inf2", "ann", "infantry", avalon, 5, 1, 2, built=2),
        "tr3": Unit("tr3", "bob", "transport", grid.square(7, 5), 8, 6, 6, built=3),
    }
    return State(Board(grid, land), nations, cities, units, counter=3)


def one(text: str, player: str = "ann"):
    sheet = read_orders(position(), player, text, seq=7)
    assert len(sheet.orders) + len(sheet.problems) == 1, sheet
    return (sheet.orders or sheet.problems)[0]


@pytest.mark.parametrize(
    "text, want",
    [
        ("build tank in Avalon", Build(player="ann", seq=7, line=1, city="Avalon", kind="tank")),
        ("Build Anti-Tank at avalon", Build(player="ann", seq=7, line=1, city="Avalon",
                                            kind="anti_tank")),
        ("Avalon builds infantry", Build(player="ann", seq=7, line=1, city="Avalon",
                                         kind="infantry")),
        ("next build destroyer in Avalon", Build(player="ann", seq=7, line=1, city="Avalon",
                                                 kind="destroyer", next=True)),
        ("next tank in Avalon", Build(player="ann", seq=7, line=1, city="Avalon", kind="tank",
                                      next=True)),
    ],
)  # fmt: skip
def test_builds(text, want):
    assert one(text) == want


def test_a_base_and_clearing_the_next_build():
    assert one("build base in Avalon").kind == "base"
    assert one("Build Tech Centre in Avalon").kind == "tech"
    cleared = one("clear next build in Avalon")
    assert cleared == Build(player="ann", seq=7, line=1, city="Avalon", kind="", next=True)
    assert cleared.canonical() == "clear next build in Avalon"
    assert one("next build none in avalon") == cleared


def test_moves_and_attacks_name_units_and_places():
    avalon_square = position().grid.square(3, 3)
    move = one("move inf1 inf2 to E5")
    assert isinstance(move, Move) and move.units == ("inf1", "inf2")
    assert move.target_name == "E5" and move.canonical() == "move inf1 inf2 to E5"
    assert one("inf1, inf2 -> e5") == move
    assert one("inf1 and inf2 to e5") == move
    assert one("move all at D4 to E5").units == ("inf1", "inf2")
    to_city = one("move inf1 to Avalon")
    assert to_city.target == avalon_square and to_city.target_name == "D4"
    attack = one("attack G6 with inf1 inf2")
    assert isinstance(attack, Attack) and attack.units == ("inf1", "inf2")
    assert one("inf1 inf2 attack g6") == attack
    assert attack.canonical() == "attack G6 with inf1 inf2"


def test_cancel_declare_status():
    assert one("cancel inf1") == Cancel(player="ann", seq=7, line=1, of="inf1")
    assert one("declare war on bob") == Declare(player="ann", seq=7, line=1, toward="bob",
                                                level="war")  # fmt: skip
    assert one("Friendly toward Bob").level == "friendly"
    assert one("alliance with bob").level == "allied"
    assert one("STATUS") == Status(player="ann", seq=7, line=1)


@pytest.mark.parametrize(
    "text, reason, kind, suggestion",
    [
        ("build tank in Avalonn", "no_such_city", ProblemKind.NOT_UNDERSTOOD, "Avalon"),
        ("build tank in Brest", "not_your_city", ProblemKind.NOT_ALLOWED, None),
        ("build tnak in Avalon", "no_such_unit_type", ProblemKind.NOT_UNDERSTOOD, "tank"),
        ("move inf9 to E5", "no_such_unit", ProblemKind.NOT_UNDERSTOOD, "inf1"),
        # another nation's unit: refused as if it did not exist (it may be out of sight)
        ("move tr3 to E5", "no_such_unit", ProblemKind.NOT_UNDERSTOOD, None),
        ("move inf1 inf1 to E5", "unit_twice", ProblemKind.NOT_ALLOWED, None),
        ("move inf1 to Z99", "no_such_square", ProblemKind.NOT_UNDERSTOOD, None),
        ("move all at A1 to E5", "no_units_there", ProblemKind.NOT_ALLOWED, None),
        ("declare war on bobby", "no_such_nation", ProblemKind.NOT_UNDERSTOOD, "bob"),
        ("declare war on ann", "toward_yourself", ProblemKind.NOT_ALLOWED, None),
        ("away until Friday", "no_absence", ProblemKind.NOT_ALLOWED, None),
        ("fly me to the moon", "not_an_order", ProblemKind.NOT_UNDERSTOOD, None),
        # a misspelt order word: the order it would be, if that reads
        ("bild tank in Avalon", "not_an_order", ProblemKind.NOT_UNDERSTOOD,
         "build tank in Avalon"),
        ("mvoe inf1 to E5", "not_an_order", ProblemKind.NOT_UNDERSTOOD, "move inf1 to E5"),
        ("atack E5 with inf1", "not_an_order", ProblemKind.NOT_UNDERSTOOD,
         "attack E5 with inf1"),
        ("delcare war on bob", "not_an_order", ProblemKind.NOT_UNDERSTOOD,
         "declare war on bob"),
        ("statsu", "not_an_order", ProblemKind.NOT_UNDERSTOOD, "status"),
    ],
)  # fmt: skip
def test_each_mistake_is_refused_with_its_reason(text, reason, kind, suggestion):
    problem = one(text)
    assert (problem.reason, problem.kind, problem.text) == (reason, kind, text)
    if suggestion is not None:
        assert suggestion in problem.suggestions, problem.suggestions


def test_a_misspelt_word_is_suggested_only_as_an_order_that_reads():
    """No suggestion that would itself be refused (another nation's unit,
    a city that is not there), and none for a line that is no order."""
    for text in ("mvoe tr3 to E5", "bild tank in Zork", "fly me to the moon", "hello to E5"):
        assert one(text).suggestions == (), text


def test_lines_in_order_and_comments_skipped():
    sheet = read_orders(position(), "ann", "# plan\nmove inf1 to E5\n\nnonsense\ncancel inf1\n")
    assert [o.line for o in sheet.orders] == [2, 5]
    assert [p.line for p in sheet.problems] == [4]


def test_a_stranger_or_a_finished_game_gives_no_orders():
    assert one("status", player="zed").reason == "not_in_game"
