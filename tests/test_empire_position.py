"""Empire positions as text: every DATC case's position (and the retreat
position its orders lead to) round-trips exactly; bad positions are refused
line by line; `pbem adjudicate --game empire --position` resolves one and
prints every order's result and the next position; the phase as data."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from adjudicator.base import GameError
from adjudicator.empire import GAME
from adjudicator.empire.game import Player, State
from pbem.cli.main import main
from tests.empire_cases import BOARD, load_cases, place

CASES = load_cases()
POSITION_FIELDS = ("players", "year", "season", "kind", "units", "owners", "dislodged",
                   "contested", "truce", "lost", "last_year")  # fmt: skip


def case_state(case: dict) -> State:
    units = place(case)
    powers = sorted({u[0] for u in units.values()} | set(case["orders"]))
    players = tuple(Player(p, p) for p in powers)
    return State(BOARD, players, 1901, "S", "M", units, {})


def same_position(a: State, b: State) -> bool:
    return all(getattr(a, f) == getattr(b, f) for f in POSITION_FIELDS)


@pytest.mark.parametrize(("name", "case"), CASES, ids=[n for n, _ in CASES])
def test_every_datc_position_round_trips_exactly(name, case):
    state = case_state(case)
    text = GAME.dump_position(state)
    again = GAME.load_position(text)
    assert same_position(again, state)
    assert GAME.dump_position(again) == text
    # and the position after its orders (a retreat phase where units were dislodged)
    sheets = [GAME.read_orders(state, p, "\n".join(lines)) for p, lines in case["orders"].items()]
    after = GAME.adjudicate(state, sheets).state
    text = GAME.dump_position(after)
    again = GAME.load_position(text)
    assert same_position(again, after), text
    assert GAME.dump_position(again) == text


def test_a_retreat_position_names_the_dislodged_units_their_attackers_and_options():
    state = GAME.load_position(
        "Phase: Spring 1901, movement\n"
        "Austria: A VIE, A BUD; centres VIE, BUD, TRI\n"
        "Italy: A TRI, A VEN; centres ROM, VEN, NAP\n"
    )
    sheets = [
        GAME.read_orders(state, "Austria", "A VIE-TRI, A BUD S A VIE-TRI"),
        GAME.read_orders(state, "Italy", "A TRI H; A VEN - TYR"),
    ]
    result = GAME.adjudicate(state, sheets)
    text = GAME.dump_position(result.state)
    assert "Phase: Spring 1901, retreats (S1901R)" in text
    assert "Dislodged: Italy A TRI from VIE, may retreat to ALB, SER, VEN" in text
    assert GAME.view(result.state, None).board["retreats"] == {
        "tri": {"power": "Italy", "unit": "A TRI", "from": "vie", "options": ["alb", "ser", "ven"]}
    }
    data = GAME.phase_result(state, result)
    assert json.loads(json.dumps(data)) == data
    assert data["phase_words"] == "Spring 1901, movement"
    assert data["next_phase"] == "S1901R"
    codes = {o["text"]: o["reason"] for o in data["orders"]}
    assert codes == {
        "A BUD S A VIE - TRI": "supported", "A VIE - TRI": "moved",
        "A TRI H": "dislodged", "A VEN - TYR": "moved",
    }  # fmt: skip
    assert data["retreats"]["tri"]["options"] == ["alb", "ser", "ven"]


def test_players_neutral_powers_lost_truce_and_last_year_round_trip():
    start = GAME.start(BOARD, ["ann", "bob", "cid", "dee", "eve"], {"last_year": 1910}, 5)
    state = replace(start, truce=frozenset({start.players[0].power}))
    text = GAME.dump_position(state)
    assert "Players: " in text and "Truce: " in text and "Last year: 1910" in text
    again = GAME.load_position(text)
    assert same_position(again, state)
    assert GAME.dump_position(again) == text


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("France: A PAR; centres PAR\n", "no Phase: line"),
        ("Phase: Spring 1901, dancing\n", "is not a phase"),
        ("Phase: Winter 1901, movement\n", "adjustments are made in the Winter"),
        ("Phase: S1901M\nFrance: A ENG\n", "an army cannot stand in ENG"),
        ("Phase: S1901M\nFrance: F PAR\n", "a fleet cannot stand in PAR"),
        ("Phase: S1901M\nRussia: F STP\n", "say which coast of STP"),
        ("Phase: S1901M\nFrance: A PAR, A PAR\n", "two units in PAR"),
        ("Phase: S1901M\nFrance: A PAR; centres BUR\n", "BUR is not a supply centre"),
        ("Phase: S1901M\nFrance: A PAR; centres MADRID\n", "no province called 'MADRID'"),
        ("Phase: S1901M\nNarnia: A PAR\n", "'Narnia' is not a power"),
        ("Phase: S1901M\nFrance: A PAR; BRE\n", "write '; centres BRE, MAR'"),
        ("Phase: S1901M\nFrance: A PAR\nGermany: A MUN; centres PAR, BER\nFrance: F BRE; "
         "centres PAR\n", "PAR is owned twice"),
    ],
)  # fmt: skip
def test_a_bad_position_is_refused_naming_the_line_and_the_problem(text, problem):
    with pytest.raises(GameError) as err:
        GAME.load_position(text)
    assert problem in str(err.value)
    assert "position, line" in str(err.value)


def test_pbem_adjudicate_resolves_a_position_and_prints_results_and_the_next(tmp_path, capsys):
    (tmp_path / "pos.txt").write_text(
        "Phase: Spring 1901, movement\n"
        "France: A PAR, A MAR, F BRE; centres PAR, MAR, BRE\n"
        "Germany: A MUN, A BER, F KIE; centres MUN, BER, KIE\n"
        "England: F NTH, A YOR; centres LON, EDI, LVP\n"
    )
    (tmp_path / "orders.txt").write_text(
        "France: A PAR-BUR, A MAR S A PAR-BUR\n"
        "Germany: A MUN-BUR; A BER S A MUN - SIL\n"
        "England: F NTH C A YOR-NWY\nEngland: A YOR-NWY\n"
    )
    out = tmp_path / "next.txt"
    args = ["adjudicate", "--game", "empire", "--position", str(tmp_path / "pos.txt"),
            "--orders", str(tmp_path / "orders.txt"), "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "ok   A PAR - BUR: moved" in printed
    assert "FAIL A MUN - BUR: (*bounce*)" in printed
    assert "FAIL A BER S A MUN - SIL: (*void*)" in printed
    assert "ok   F NTH C A YOR - NWY: convoyed" in printed
    assert "Phase: Fall 1901, movement (F1901M)" in printed
    assert "France: F BRE, A BUR, A MAR; centres BRE, MAR, PAR" in printed
    assert out.read_text() == printed[printed.index("# an Empire position") :]
    assert main([*args[:-2], "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {o["text"]: o["reason"] for o in data["orders"]}["A MUN - BUR"] == "bounce"
    assert data["next_position"] == out.read_text()


def test_pbem_adjudicate_names_the_bad_line_of_a_position(tmp_path, capsys):
    (tmp_path / "pos.txt").write_text("Phase: Spring 1901, movement\nFrance: A PARIS-ISH\n")
    assert main(["adjudicate", "--game", "empire", "--position", str(tmp_path / "pos.txt")]) == 2
    assert "position, line 2" in capsys.readouterr().err
