"""Empire's result codes, in the classic judges' words: "no convoy" for a
convoyed army whose convoy failed (and for its other fleets and its
supports), "disrupted" for a convoy a paradox made fail, "void" for a
support that counts for nothing,
"convoyed" only when an army went through, "cut" only when attacked; and
no idle Winter phase. Each case is a position as text and the orders."""

from __future__ import annotations

import pytest

from adjudicator.empire import GAME
from pbem.words import say


def resolve(position: str, orders: dict[str, str]):
    state = GAME.load_position(position)
    sheets = [GAME.read_orders(state, power, text) for power, text in orders.items()]
    for s in sheets:
        assert not s.problems, [p.reason for p in s.problems]
    return state, GAME.adjudicate(state, sheets)


def codes(result) -> dict[str, str]:
    return {r.order.canonical(): r.reason for r in result.results}


CONVOY = """\
Phase: Spring 1901, movement
England: A LON, F NTH, F ENG; centres LON, EDI, LVP
France: F BEL, F HOL, F PIC, A BRE; centres BRE, PAR, MAR
"""


def test_a_convoy_that_fails_reads_no_convoy_and_its_dislodged_fleet_dislodged():
    _, result = resolve(
        CONVOY,
        {
            "England": "A LON - HOL VIA CONVOY\nF NTH C A LON - HOL\nF ENG H",
            "France": "F BEL - NTH\nF HOL S F BEL - NTH\nF PIC H\nA BRE H",
        },
    )
    got = codes(result)
    assert got["A LON - HOL VIA CONVOY"] == "no_convoy"
    assert got["F NTH C A LON - HOL"] == "dislodged"
    assert got["F BEL - NTH"] == "moved"
    assert say("empire", "results", "no_convoy", {}) == "(*no convoy*)"


def test_a_convoy_reads_convoyed_only_when_the_army_went_through():
    _, result = resolve(
        CONVOY,
        {
            "England": "A LON - HOL\nF NTH C A LON - HOL\nF ENG S A LON - BEL",
            "France": "F BEL H\nF HOL H\nF PIC S F BEL\nA BRE H",
        },
    )
    got = codes(result)
    assert got["A LON - HOL"] == "bounce"
    assert got["F NTH C A LON - HOL"] == "unused"
    # ENG supports a move nobody made: void, not cut (nothing attacked it)
    assert got["F ENG S A LON - BEL"] == "void"
    _, result = resolve(
        CONVOY,
        {"England": "A LON - HOL\nF NTH C A LON - HOL", "France": "F HOL - KIE"},
    )
    got = codes(result)
    assert got["F NTH C A LON - HOL"] == "convoyed"
    assert say("empire", "results", "unused", {}) == "no army went through"


def test_a_support_is_cut_only_when_attacked_and_void_against_its_own_power():
    position = """\
Phase: Spring 1901, movement
Germany: A MUN, A BER, A KIE; centres BER, KIE, MUN
France: A BUR, A RUH; centres PAR, MAR, BRE
"""
    _, result = resolve(
        position,
        {"Germany": "A BER - KIE\nA MUN S A BER - KIE\nA KIE H", "France": "A BUR - MUN"},
    )
    got = codes(result)
    assert got["A MUN S A BER - KIE"] == "cut"  # attacked from BUR
    assert got["A BUR - MUN"] == "bounce"
    _, result = resolve(
        position,
        {"Germany": "A BER - KIE\nA MUN S A BER - KIE\nA KIE H", "France": "A BUR H"},
    )
    got = codes(result)
    # not attacked, matching, but for a move against its own power's unit: it cannot count
    assert got["A MUN S A BER - KIE"] == "void"
    assert got["A BER - KIE"] == "bounce"
    _, result = resolve(
        position,
        {"Germany": "A BER - KIE\nA MUN S A BER - KIE\nA KIE - HOL", "France": "A BUR H"},
    )
    got = codes(result)
    assert got["A MUN S A BER - KIE"] == "supported"  # the own unit moved away
    assert result.results and all(r.succeeded for r in result.results if r.order.line)


def test_a_support_of_a_convoyed_move_whose_convoy_failed_reads_no_convoy():
    position = """\
Phase: Spring 1901, movement
England: A LON, F NTH, F YOR; centres LON, EDI, LVP
Germany: F SKA, F HEL, A SWE; centres BER, KIE, MUN
"""
    _, result = resolve(
        position,
        {
            "England": "A LON - NWY VIA CONVOY\nF NTH C A LON - NWY\nF YOR H",
            "Germany": "A SWE S A LON - NWY\nF HEL - NTH\nF SKA S F HEL - NTH",
        },
    )
    got = codes(result)
    assert got["F NTH C A LON - NWY"] == "dislodged"
    assert got["A LON - NWY VIA CONVOY"] == "no_convoy"
    assert got["A SWE S A LON - NWY"] == "no_convoy"


@pytest.mark.parametrize(
    ("centres", "phase"),
    [
        # France owns four centres and has three units, but PAR, MAR and BRE are all
        # occupied: no build can be made, so no Winter phase
        ("BRE, MAR, PAR, SPA", "S1902M"),
        # with Paris empty, the build can be made: a Winter phase
        ("BRE, MAR, PAR, SPA, POR", "W1901A"),
    ],
)
def test_no_winter_phase_when_no_power_can_do_anything_in_it(centres, phase):
    position = f"""\
Phase: Fall 1901, movement
France: A PAR, A MAR, F BRE; centres {centres}
Germany: A MUN, A BER, F KIE; centres BER, KIE, MUN
"""
    orders = {"France": "A PAR - BUR" if phase == "W1901A" else "A PAR H"}
    state, result = resolve(position, orders)
    assert result.state.code == phase
    if phase == "W1901A":
        assert GAME.to_order(result.state) == frozenset({"France"})
    else:
        assert GAME.to_order(result.state) == frozenset({"France", "Germany"})


def test_who_has_something_to_order_in_each_phase():
    state = GAME.load_position(
        "Phase: Spring 1902, retreats\nFrance: A PIC; centres PAR\n"
        "Germany: A BUR, A PAR; centres MUN\nItaly: A VEN; centres ROM\n"
        "Dislodged: France A PAR from BUR\n"
    )
    assert GAME.to_order(state) == frozenset({"France"})
    state = GAME.load_position(
        "Phase: Winter 1901, adjustments\nFrance: A PIC, A BUR; centres PAR\n"
        "Germany: A MUN; centres MUN, BER\nItaly: A VEN; centres VEN\n"
    )
    assert GAME.to_order(state) == frozenset({"France", "Germany"})


def test_a_build_on_a_province_with_two_coasts_lists_them():
    state = GAME.load_position(
        "Phase: Winter 1901, adjustments\nRussia: A MOS; centres MOS, STP, WAR, SEV, SWE\n"
    )
    sheet = GAME.read_orders(state, "Russia", "BUILD F STP\nBUILD F STP/NC")
    assert [say("empire", "problems", p.reason, dict(p.facts)) for p in sheet.problems] == [
        "say which coast of STP: nc, sc"
    ]
    assert [o.canonical() for o in sheet.orders] == ["BUILD F STP/NC"]
