"""Submarines, spy satellites and ICBMs beyond what a rule case can say
(the cases are tests/cases/strategic/subs, satellites, icbm and mad): the
launch order in words, who is told what (a witness is never told of a
submarine it does not see, nobody but its owner of a satellite), the
situation report and the position text."""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.base import OrderSheet, ProblemKind
from adjudicator.strategic import position, sight
from adjudicator.strategic.orders import Launch
from adjudicator.strategic.picture import draw
from adjudicator.strategic.reading import read_orders
from adjudicator.strategic.state import Satellite, State
from adjudicator.strategic.tick import run_tick
from pbem.words import say
from tests.mailharness import SERVER_YAML, Harness
from tests.si_cases import load, play
from tests.si_reports import reader, rendered

CASES = Path(__file__).parent / "cases" / "strategic"


def case_state(topic: str, name: str) -> State:
    return position.load(load(CASES / topic / f"{name}.yaml")["position"])


def played(topic: str, name: str):
    return play(load(CASES / topic / f"{name}.yaml"))


# -- the order in words -------------------------------------------------------------


@pytest.fixture(scope="module")
def silo() -> State:
    return case_state("icbm", "reach-30-40-50")


@pytest.mark.parametrize(
    "text",
    [
        "launch icbm1 at AG7",
        "Launch icbm1 to AG7",
        "launch icbm1 on ag7",
        "launch icbm1 AG7",
        "icbm1 launch AG7",
        "icbm1 launches at AG7",
        "icbm1: launch AG7",
        "launch icbm1 over AG7.",
    ],
)
def test_the_launch_order_in_words_and_short_forms(silo, text):
    sheet = read_orders(silo, "red", text, seq=3)
    assert sheet.orders == (Launch(player="red", seq=3, line=1, of="icbm1", target=silo.grid.parse(
        "AG7"), target_name="AG7"),)  # fmt: skip
    assert sheet.orders[0].canonical() == "launch icbm1 at AG7"


def test_a_launch_at_a_city_by_its_name(silo):
    (order,) = read_orders(silo, "red", "launch icbm2 at ostra").orders
    assert order.target_name == "C3"


@pytest.mark.parametrize(
    "text, reason, suggestion",
    [
        ("lanch icbm1 at AG7", "not_an_order", "launch icbm1 at AG7"),
        ("launhc icbm2 to AQ7", "not_an_order", "launch icbm2 to AQ7"),
        ("launch icbm9 at AG7", "no_such_unit", "icbm1"),
        ("launch icbm1 at Atlantis", "no_such_square", None),
    ],
)
def test_a_mistake_is_refused_with_a_suggestion(silo, text, reason, suggestion):
    (problem,) = read_orders(silo, "red", text).problems
    assert problem.reason == reason
    assert problem.kind == ProblemKind.NOT_UNDERSTOOD
    if suggestion:
        assert suggestion in problem.suggestions


def test_another_nations_unit_is_no_unit_of_yours():
    """A launch naming a unit that is not the player's says nothing of it."""
    state = case_state("icbm", "icbm-1-destroys-every-unit-in-its-target")
    (problem,) = read_orders(state, "blue", "launch icbm1 at AE4").problems
    assert problem.reason == "no_such_unit"


def test_refusals_say_why_in_words():
    """Out of reach says the reach; each launch's result is worded."""
    p = played("icbm", "reach-30-40-50")
    first = p.results[0]
    assert (first.reason, first.facts["range"], first.facts["distance"]) == ("out_of_range", 30, 31)
    said = say("strategic", "results", first.reason, dict(first.facts))
    assert "AH7 is 31 squares from icbm1, which reaches 30" in said
    done = say("strategic", "results", p.results[1].reason, dict(p.results[1].facts))
    assert done.startswith("done: icbm1, launched from C3, came down on AG7")


# -- who is told what ---------------------------------------------------------------


def test_a_witness_is_not_told_of_a_submarine_it_does_not_see():
    """Green sees the square where blue's submarine fired from and the
    battleship it hit, but sees no submarines: it is told the battleship was
    hit from out of sight, and nothing of the counter-attack on the
    submarine; red, attacked, is told all."""
    p = played("subs", "attacking-reveals-it")
    for e in p.events:
        if "green" in (e.visible_to or ()):
            assert "sub1" not in repr(e.facts), e
    told = [e.kind for e in p.events if "green" in (e.visible_to or ())]
    assert "hit_from_the_fog" in told
    assert any(e.kind == "attack" and e.facts["unit"] == "sub1" and "red" in e.visible_to
               for e in p.events)  # fmt: skip


def test_a_witness_that_sees_submarines_there_is_told():
    """With a destroyer of its own next to the submarine, green is told the
    attack in full."""
    state = case_state("subs", "attacking-reveals-it")
    state.units["pb4"].kind = "destroyer"
    state.units["pb4"].square = state.grid.parse("D3")
    sheets = [read_orders(state, "blue", "attack E4 with sub1")]
    result = run_tick(state, sheets, 0)
    green = [e for e in result.events if "green" in (e.visible_to or ())]
    assert any(e.kind == "attack" and e.facts.get("unit") == "sub1" for e in green)


def test_a_bumped_submarine_is_told_to_both_and_to_no_one_else():
    p = played("subs", "a-ship-trying-to-enter-finds-it")
    (found,) = [e for e in p.events if e.kind == "sighted"]
    assert found.visible_to == frozenset({"red", "blue"})


def test_a_satellite_is_shown_to_its_owner_only_in_views_reports_and_maps():
    p = played("satellites", "launched-it-sees-around-its-target")
    state, result = p.state, p.turns[-1]
    assert [s["id"] for s in sight.view(state, "red").board["satellites"]] == ["sat1"]
    assert sight.view(state, "blue").board["satellites"] == []
    assert [s["id"] for s in sight.view(state, None).board["satellites"]] == ["sat1"]
    text, html = rendered(state, result, reader("player", "red"), "situation")
    assert "sat1 over AA3, seeing every square within 6 of it" in text
    assert "Your satellites (1)" in html
    text, html = rendered(state, result, reader("player", "blue"), "situation")
    assert "sat1" not in text and "sat1" not in html and "atellite" not in text
    for who, shown in (("red", True), ("blue", False)):
        assert ("satellite" in draw(sight.view(state, who), ()).kinds()) == shown


def test_a_launch_is_told_where_it_lands_and_losses_to_their_owners():
    """The ICBM's launch is told to the launcher and to whoever sees its
    target; a unit destroyed to its owner; the launcher is not told of
    losses it does not see."""
    p = played("icbm", "icbm-1-destroys-every-unit-in-its-target")
    (gone,) = [e for e in p.events if e.kind == "destroyed" and e.facts["unit"] == "inf2"]
    assert gone.visible_to == frozenset({"blue"})
    assert any(e.kind == "launched" and "blue" in e.visible_to for e in p.events)
    red = [e for e in p.events if "red" in (e.visible_to or ())]
    assert not any(e.facts.get("unit") == "inf2" for e in red)
    assert any(e.kind == "devastated" and e.facts["city"] == "Vell" for e in red)


def test_a_devastated_square_is_in_the_views_of_those_who_see_it_and_of_the_launcher():
    p = played("mad", "the-score-table-picks-the-target")
    state = p.state
    blue = sight.view(state, "blue").board
    assert "B3" in blue["devastated_at"] and "AE4" in blue["devastated_at"]
    red = sight.view(state, "red").board
    assert "AE4" in red["devastated_at"]  # its own blast
    assert "B3" in red["devastated_at"]  # the one that devastated its city Ostra
    green = sight.view(state, "green").board  # blue, friendly toward it, shares its sight
    assert "B3" in green["devastated_at"]
    assert sight.view(state, "yellow").board["devastated_at"] == []  # it sees neither
    assert "Devastated:" in sight.describe(sight.view(state, "blue"))


# -- the position text --------------------------------------------------------------


def test_satellites_and_blasts_come_back_from_the_position_text():
    state = played("mad", "each-nation-retaliates-once-a-tick").state
    state.satellites["sat40"] = Satellite("sat40", "red", "satellite", 17, 3)
    text = position.dump(state)
    assert "satellites:\n  sat40: {owner: red, type: satellite, at: R1, tick: 3}" in text
    assert "blasts:\n- {nation: red, at: AE4, radius: 0, tick: 1, hit: [blue]}" in text
    again = position.load(text)
    assert again == state and position.dump(again) == text


@pytest.mark.parametrize(
    "line, says",
    [
        ("  sat40: {owner: red, type: tank, at: R1, tick: 3}", "a tank is no satellite"),
        ("  sat40: {owner: nobody, type: satellite, at: R1, tick: 3}", "'nobody' is not a nation"),
        ("  sat40: {owner: red, type: satellite, at: ZZ99, tick: 3}", "is not a square"),
    ],
)
def test_a_wrong_satellite_line_is_told_with_its_line(line, says):
    base = position.dump(case_state("icbm", "not-a-launchable-unit"))
    text = base + "satellites:\n" + line + "\n"
    with pytest.raises(Exception, match=says):
        position.load(text)


def test_the_mad_scoring_is_deterministic():
    """The same position and orders give the same retaliations, twice."""
    a, b = (played("mad", "each-nation-retaliates-once-a-tick") for _ in range(2))
    assert [(e.kind, e.facts) for e in a.events] == [(e.kind, e.facts) for e in b.events]
    assert position.dump(a.state) == position.dump(b.state)


def test_no_sheet_no_launch():
    state = case_state("icbm", "reach-30-40-50")
    result = run_tick(state, [OrderSheet("red", ())], 0)
    assert set(result.state.units) == {"icbm1", "icbm2", "icbm3"}


# -- by mail, through the real server -----------------------------------------------

SCENARIO = """\
# a Strategic Initiative position
tick: 40
seed: 3
board:
  width: 16
  height: 12
  at: B2
  rows: |
    2  ######......
    3  ######......
    4  ######..####
    5  ........####
nations:
  kim: {colour: red, tech: 16}
  lee: {colour: blue, relations: {kim: allied}, declared: {kim: allied}}
cities:
  Avalon: {at: B2, owner: kim, designation: tech, build: engineer}
  Corin: {at: L4, owner: lee, designation: fort, build: infantry}
units:
  sat1: {owner: kim, type: satellite, at: B2}
  icbm2: {owner: kim, type: icbm 1, at: B2}
  inf3: {owner: lee, type: infantry, at: L4}
"""
SERVER = (
    SERVER_YAML
    + """\
  - name: duel
    game: strategic
    position: scenarios/duel.yaml
    tick: 15m
    players:
      - {name: kim, email: kim@example.org}
      - {name: lee, email: lee@example.org}
"""
)
KIM, LEE, DUEL = "kim@example.org", "lee@example.org", "duel@judge.example"


def state_of(h: Harness) -> State:
    return h.app.engine("strategic").load_state(h.game("duel").state)


def test_a_satellite_and_an_icbm_launched_by_mail(tmp_path):
    """Kim mails the launches (one misspelt: refused at once with the
    order it would be); at the tick kim's satellite goes up over Corin and
    the ICBM devastates it; lee, kim's ally, is told of the devastation
    and the war, and never of the satellite."""
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "duel.yaml").write_text(SCENARIO)
    h = Harness(tmp_path, SERVER)
    try:
        pw = h.password(KIM, "duel")
        h.send(KIM, DUEL, f"PASSWORD {pw}\nlaunch sat1 to L4\nlanch icbm2 at Corin\n")
        receipt = " ".join(h.last(KIM).split())
        assert "line 2: launch sat1 at L4" in receipt
        assert "launch icbm2 at Corin" in receipt  # the suggestion for line 3
        h.send(KIM, DUEL, f"PASSWORD {pw}\nicbm2 launch Corin\n")
        h.clock.set(h.game("duel").deadline)
        h.tick()
        kim = " ".join(h.text(h.report(KIM, "duel")).split())
        assert "sat1 is up over L4 and shows you every square within 6 of it" in kim
        assert "icbm2, launched from B2, came down on L4 (blast radius 0: every unit within" in kim
        assert "cities devastated: Corin; at war now with: lee" in kim
        lee = " ".join(h.text(h.report(LEE, "duel")).split())
        assert "Corin at L4 was devastated by kim's icbm2" in lee
        assert "sat1" not in lee and "satellite" not in lee
        lee_map = sight.view(state_of(h), "lee").board
        assert lee_map["devastated_at"] == ["L4"] and lee_map["satellites"] == []
        state = state_of(h)
        assert state.nations["lee"].relations["kim"] == "war"
        assert list(state.satellites) == ["sat1"] and "inf3" not in state.units
    finally:
        h.close()


def test_a_witness_is_not_told_of_a_submarine_interdicted_out_of_its_sight():
    """Green's battleship sees where blue's destroyer interdicts red's
    submarine but sees no submarines: it is told nothing naming the
    submarine (the interdiction, the shots, the move)."""
    case = load(CASES / "interdiction" / "destroyer-sub-within-1.yaml")
    text = (
        case["position"]
        .replace("  blue: {colour: blue}\n", "  blue: {colour: blue}\n  green: {colour: green}\n")
        .replace("  dd1:", "  bb9: {owner: green, type: battleship, at: N4}\n  dd1:")
    )
    state = position.load(text)
    assert "bb9" in state.units and "green" in state.nations
    result = run_tick(state, [read_orders(state, "red", "move sub1 to R3")], 1)
    assert any(e.kind == "interdicted" and e.facts["target"] == "sub1" for e in result.events)
    for e in [e for e in result.events if "green" in (e.visible_to or ())]:
        assert "sub1" not in repr(e.facts), e
