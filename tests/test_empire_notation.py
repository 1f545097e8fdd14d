"""Empire orders as players write them: every common notation read as the
canonical order it means, or refused with the reason and the player's own
words; typos; several orders on one line; notes on the receipt."""

from __future__ import annotations

import pytest

from adjudicator.empire import GAME
from adjudicator.empire.board import shipped_board
from adjudicator.empire.orders import read
from pbem.words import phrasebook, say

BOARD = shipped_board()
UNITS = {
    "par": ("France", "A", "par"), "mar": ("France", "A", "mar"), "bre": ("France", "F", "bre"),
    "mao": ("France", "F", "mao"), "gas": ("France", "A", "gas"),
    "lon": ("England", "F", "lon"), "nth": ("England", "F", "nth"),
    "yor": ("England", "A", "yor"), "lvp": ("England", "A", "lvp"),
    "edi": ("England", "F", "edi"),
    "stp": ("Russia", "F", "stp/sc"), "mos": ("Russia", "A", "mos"),
    "sev": ("Russia", "F", "sev"), "war": ("Russia", "A", "war"),
    "mun": ("Germany", "A", "mun"),
    "gol": ("Italy", "F", "gol"), "tys": ("Italy", "F", "tys"),
}  # fmt: skip

# (power, what the player writes, the canonical order, or "!reason" for a refusal)
TABLE = [
    ("France", "A PAR-BUR", "A PAR - BUR"),
    ("France", "A Par - Bur", "A PAR - BUR"),
    ("France", "a par-bur", "A PAR - BUR"),
    ("France", "PAR-BUR", "A PAR - BUR"),
    ("France", "A PAR->BUR", "A PAR - BUR"),
    ("France", "A PAR => BUR", "A PAR - BUR"),
    ("France", "A PAR to BUR", "A PAR - BUR"),
    ("France", "A Paris - Burgundy", "A PAR - BUR"),
    ("France", "Army Paris moves to Burgundy", "A PAR - BUR"),
    ("France", "Army Paris -> Burgundy", "A PAR - BUR"),
    ("France", "A PAR MOVES BUR", "A PAR - BUR"),
    ("France", "Paris - Burgundy", "A PAR - BUR"),
    ("France", "A PAR \u2013 BUR", "A PAR - BUR"),
    ("France", "A PAR \u2192 BUR", "A PAR - BUR"),
    ("France", "A PAR-BUR.", "A PAR - BUR"),
    ("France", "  a   PAR  -   bur  ", "A PAR - BUR"),
    ("France", "A PAR H", "A PAR H"),
    ("France", "A PAR HOLD", "A PAR H"),
    ("France", "A PAR HOLDS", "A PAR H"),
    ("France", "Army Paris holds", "A PAR H"),
    ("France", "A PAR", "A PAR H"),
    ("France", "PAR H", "A PAR H"),
    ("France", "A PAR STANDS", "A PAR H"),
    ("France", "A MAR S A PAR-BUR", "A MAR S A PAR - BUR"),
    ("France", "A MAR S PAR-BUR", "A MAR S A PAR - BUR"),
    ("France", "A MAR SUPPORTS A PAR - BUR", "A MAR S A PAR - BUR"),
    ("France", "A Marseilles supports Army Paris to Burgundy", "A MAR S A PAR - BUR"),
    ("France", "A MAR S A GAS", "A MAR S A GAS"),
    ("France", "A MAR S GAS", "A MAR S A GAS"),
    ("France", "A MAR S A GAS H", "A MAR S A GAS"),
    ("France", "A MAR S A GAS HOLD", "A MAR S A GAS"),
    ("France", "F BRE-ENG", "F BRE - ENG"),
    ("France", "F Brest - English Channel", "F BRE - ENG"),
    ("France", "F BRE - ECH", "F BRE - ENG"),
    ("France", "F BRE - Eng", "F BRE - ENG"),
    ("France", "F BRE - Channel", "F BRE - ENG"),
    ("France", "F MAO - SPA NC", "F MAO - SPA/NC"),
    ("France", "F MAO-SPA/NC", "F MAO - SPA/NC"),
    ("France", "F MAO - SPA(nc)", "F MAO - SPA/NC"),
    ("France", "F MAO - Spain north coast", "F MAO - SPA/NC"),
    ("France", "F MAO - Spain (sc)", "F MAO - SPA/SC"),
    ("France", "F Mid-Atlantic - POR", "F MAO - POR"),
    ("France", "F Mid-Atlantic Ocean - Portugal", "F MAO - POR"),
    ("France", "F MAO - NAF", "F MAO - NAF"),
    ("France", "F MAT - NAO", "F MAO - NAO"),
    ("France", "F MAO - North Atlantic", "F MAO - NAO"),
    ("France", "F MAO-WES", "F MAO - WES"),
    ("France", "F MAO - Western Mediterranean", "F MAO - WES"),
    ("France", "F MAO S F BRE - ENG", "F MAO S F BRE - ENG"),
    ("France", "F BRE S A PAR - PIC", "F BRE S A PAR - PIC"),
    ("France", "A GAS - SPA", "A GAS - SPA"),
    ("France", "A MAR S A GAS - SPA", "A MAR S A GAS - SPA"),
    ("England", "F NTH C A YOR-NWY", "F NTH C A YOR - NWY"),
    ("England", "F NTH C YOR-NWY", "F NTH C A YOR - NWY"),
    ("England", "F North Sea convoys Army Yorkshire to Norway", "F NTH C A YOR - NWY"),
    ("England", "F NTH CONVOYS A YOR - NWY", "F NTH C A YOR - NWY"),
    ("England", "A YOR-NWY", "A YOR - NWY"),
    ("England", "A YOR-NWY VIA", "A YOR - NWY VIA CONVOY"),
    ("England", "A YOR - NWY VIA CONVOY", "A YOR - NWY VIA CONVOY"),
    ("England", "A YOR - NWY BY CONVOY", "A YOR - NWY VIA CONVOY"),
    ("England", "A YOR-NTH-NWY", "A YOR - NWY VIA CONVOY"),
    ("England", "A LPL - WAL", "A LVP - WAL"),
    ("England", "A Liverpool - Wales", "A LVP - WAL"),
    ("England", "F EDI - NWG", "F EDI - NWG"),
    ("England", "F EDI - NRG", "F EDI - NWG"),
    ("England", "F EDI - Norwegian Sea", "F EDI - NWG"),
    ("England", "F LON H", "F LON H"),
    ("England", "F LON S F NTH", "F LON S F NTH"),
    ("Russia", "F STP/SC-BOT", "F STP/SC - BOT"),
    ("Russia", "F STP(sc)-BOT", "F STP/SC - BOT"),
    ("Russia", "F StP sc - Bot", "F STP/SC - BOT"),
    ("Russia", "F St Petersburg south coast - Gulf of Bothnia", "F STP/SC - BOT"),
    ("Russia", "F St. Petersburg (sc) - GoB", "F STP/SC - BOT"),
    ("Russia", "F STP - BOT", "F STP/SC - BOT"),
    ("Russia", "F STP/SC - FIN", "F STP/SC - FIN"),
    ("Russia", "F SEV - BLA", "F SEV - BLA"),
    ("Russia", "F SEV - Black Sea", "F SEV - BLA"),
    ("Russia", "F SEV - Romania", "F SEV - RUM"),
    ("Russia", "A MOS - UKR", "A MOS - UKR"),
    ("Russia", "A WAR - Livonia", "A WAR - LVN"),
    ("Russia", "A WAR - LVO", "A WAR - LVN"),
    ("Russia", "A MOS S A WAR - LVN", "A MOS S A WAR - LVN"),
    ("Italy", "F GoL - MAR", "F GOL - MAR"),
    ("Italy", "F Lyo - WES", "F GOL - WES"),
    ("Italy", "F Gulf of Lyon - Tyrrhenian Sea", "F GOL - TYS"),
    ("Italy", "F Gulf of Lyons - PIE", "F GOL - PIE"),
    ("Italy", "F TYN - ION", "F TYS - ION"),
    # refusals
    ("France", "A PAR - MUN", "!not_adjacent"),
    ("France", "A PAR - ENG", "!army_to_sea"),
    ("France", "F BRE - PAR", "!fleet_to_land"),
    ("France", "F MAO - SPA", "!coast_needed"),
    ("France", "A MUN - BUR", "!not_your_unit"),
    ("France", "A BUR - PAR", "!no_unit"),
    ("France", "F PAR - PIC", "!wrong_unit_type"),
    ("France", "A PAR - PAR", "!move_to_itself"),
    ("France", "A PAR dances", "!not_an_order"),
    ("France", "A Madrid - Par", "!no_such_province"),
    ("France", "A PAR S A MAR", "!cannot_reach"),
    ("France", "A PAR S", "!incomplete_order"),
    ("England", "F NTH C A YOR", "!convoy_needs_destination"),
    ("France", "BUILD A PAR", "!not_in_movement"),
    ("France", "A PAR D", "!not_in_movement"),
    ("France", "WAIVE", "!not_in_movement"),
    ("France", "F MAO - SPA/EC", "!no_such_coast"),
    ("France", "A PAR S F MAR - BUR", "!wrong_unit_type"),
    ("France", "F BRE - ENG VIA CONVOY", "!fleets_not_convoyed"),
    ("France", "A PAR - BUR - MAR", "!route_through_seas"),
    ("France", "A PAR S A MUN - RUH", "!cannot_reach"),
    ("England", "F NTH C A LVP - NWY", "!convoy_not_on_route"),
]


def test_the_table_is_long_enough():
    assert len(TABLE) >= 80


@pytest.mark.parametrize(("power", "text", "want"), TABLE)
def test_each_notation_reads_as_its_canonical_order(power, text, want):
    sheet = read(BOARD, dict(UNITS), power, text)
    if want.startswith("!"):
        assert not sheet.orders, sheet.orders
        assert [p.reason for p in sheet.problems] == [want[1:]]
        assert sheet.problems[0].text == text.strip()
    else:
        assert not sheet.problems, sheet.problems
        assert [o.canonical() for o in sheet.orders] == [want]
        # the canonical form reads back as itself (the server stores it)
        again = read(BOARD, dict(UNITS), power, want)
        assert [o.canonical() for o in again.orders] == [want]


def notes(sheet) -> list[str]:
    return [say("empire", "notices", n.reason, dict(n.facts)) for n in sheet.warnings]


def why(problem) -> str:
    return say("empire", "problems", problem.reason, dict(problem.facts))


@pytest.mark.parametrize(
    ("power", "text", "want", "note"),
    [
        ("England", "A liverpol - yorkshire", "A LVP - YOR", "read 'liverpol' as Liverpool (LVP)"),
        ("France", "A PAR - burgandy", "A PAR - BUR", "read 'burgandy' as Burgundy (BUR)"),
        ("France", "A Pairs - Bur", "A PAR - BUR", "read 'Pairs' as Paris (PAR)"),
        ("France", "F BRE - Englsh Channel", "F BRE - ENG",
         "read 'Englsh Channel' as English Channel (ENG)"),
        ("Russia", "F Sevastopl - Black Sea", "F SEV - BLA",
         "read 'Sevastopl' as Sevastopol (SEV)"),
    ],
)  # fmt: skip
def test_a_typo_within_one_edit_is_read_and_the_receipt_says_so(power, text, want, note):
    sheet = read(BOARD, dict(UNITS), power, text)
    assert [o.canonical() for o in sheet.orders] == [want]
    assert notes(sheet) == [note]


def test_a_name_too_far_from_any_is_refused_with_the_closest_names():
    sheet = read(BOARD, dict(UNITS), "France", "A PAR - Burgxndyy")
    (problem,) = sheet.problems
    assert problem.text == "A PAR - Burgxndyy"
    assert why(problem) == "there is no province called 'Burgxndyy'"
    assert problem.suggestions[0] == "Burgundy (BUR)"


def test_a_typo_near_two_provinces_is_not_guessed():
    sheet = read(BOARD, dict(UNITS), "France", "A PAR - Bure")  # Brest? Burgundy?
    (problem,) = sheet.problems
    assert why(problem) == "there is no province called 'Bure'"
    assert set(problem.suggestions[:2]) == {"Brest (BRE)", "Burgundy (BUR)"}
    sheet = read(BOARD, dict(UNITS), "Italy", "F TYS - Pice")  # Picardy? Piedmont?
    assert [p.reason for p in sheet.problems] == ["no_such_province"]
    sheet = read(BOARD, dict(UNITS), "France", "A GAS - Spai")  # only Spain is one edit away
    assert [o.canonical() for o in sheet.orders] == ["A GAS - SPA"]
    sheet = read(BOARD, dict(UNITS), "France", "A PAR - Bxr")  # too short to guess
    assert [p.reason for p in sheet.problems] == ["no_such_province"]
    assert "Burgundy (BUR)" in sheet.problems[0].suggestions


def test_a_refusal_quotes_the_players_words_never_an_internal_one():
    sheet = read(BOARD, dict(UNITS), "England", "A liverpool - yorkshre - bleh")
    (problem,) = sheet.problems
    assert problem.text == "A liverpool - yorkshre - bleh"
    assert "MOVE" not in why(problem) and "bleh" in why(problem)
    sheet = read(BOARD, dict(UNITS), "France", "A PAR xyzzy BUR")
    assert why(sheet.problems[0]).startswith("could not read 'xyzzy'")


def test_several_orders_on_one_line_split_by_commas_and_semicolons():
    text = "A PAR-BUR, A MAR S A PAR-BUR; F BRE-ENG , F MAO - SPA NC"
    sheet = read(BOARD, dict(UNITS), "France", text)
    assert [o.canonical() for o in sheet.orders] == [
        "A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - ENG", "F MAO - SPA/NC",
    ]  # fmt: skip
    assert {o.line for o in sheet.orders} == {1}
    sheet = read(BOARD, dict(UNITS), "France", "A PAR-BUR; A MAR-MUN")
    assert [p.text for p in sheet.problems] == ["A MAR-MUN"]


def test_a_later_order_for_a_unit_replaces_the_earlier_with_a_note():
    sheet = read(BOARD, dict(UNITS), "France", "A PAR-BUR\nA PAR - PIC")
    assert [o.canonical() for o in sheet.orders] == ["A PAR - PIC"]
    assert notes(sheet) == ["replaces your earlier order for A PAR (A PAR - BUR)"]


def test_a_support_or_convoy_matching_no_order_of_ones_own_unit_is_accepted_with_a_warning():
    sheet = read(BOARD, dict(UNITS), "France", "A MAR S A PAR-BUR\nA PAR - PIC")
    assert len(sheet.orders) == 2
    assert notes(sheet) == [
        "your A PAR is ordered A PAR - PIC, not PAR - BUR: this support is void unless "
        "that move is made"
    ]
    sheet = read(BOARD, dict(UNITS), "France", "A MAR S A PAR-BUR")  # A PAR holds
    assert "your A PAR is ordered A PAR H, not PAR - BUR" in notes(sheet)[0]
    sheet = read(BOARD, dict(UNITS), "England", "F NTH C A YOR - NWY")
    assert notes(sheet) == [
        "your A YOR is ordered A YOR H, not YOR - NWY: this convoy carries nothing unless it is"
    ]
    sheet = read(BOARD, dict(UNITS), "France", "A MAR S A GAS\nA GAS - SPA")
    assert "a support to hold is void for a unit that moves" in notes(sheet)[0]
    # another power's unit: its orders are not known here, so no warning
    sheet = read(BOARD, dict(UNITS), "France", "A PAR S A MUN - BUR")
    assert sheet.orders and not sheet.warnings


# -- retreats and adjustments, through the game -------------------------------------------

RETREAT = """\
Phase: Spring 1902, retreats (S1902R)
France: A PIC; centres BRE, MAR, PAR
Germany: A BUR, A MUN; centres BER, KIE, MUN
Dislodged: France A PAR from BUR, may retreat to BRE, GAS
"""


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("A PAR R GAS", "A PAR R GAS"),
        ("A PAR - GAS", "A PAR R GAS"),
        ("A PAR RETREAT TO GAS", "A PAR R GAS"),
        ("A Paris retreats Gascony", "A PAR R GAS"),
        ("PAR-GAS", "A PAR R GAS"),
        ("A PAR D", "A PAR D"),
        ("A PAR DISBAND", "A PAR D"),
        ("DISBAND A PAR", "A PAR D"),
        ("REMOVE A PAR", "A PAR D"),
    ],
)
def test_retreats_in_the_usual_notations(text, want):
    state = GAME.load_position(RETREAT)
    sheet = GAME.read_orders(state, "France", text)
    assert not sheet.problems, [why(p) for p in sheet.problems]
    assert [o.canonical() for o in sheet.orders] == [want]


def test_a_retreat_where_it_may_not_go_is_refused_with_the_options():
    state = GAME.load_position(
        "Phase: Spring 1902, retreats\nFrance: A PIC; centres PAR\n"
        "Germany: A BUR, A PAR; centres MUN\nDislodged: France A PAR from BUR\n"
    )
    sheet = GAME.read_orders(state, "France", "A PAR - BUR\nA PAR H")
    assert [why(p) for p in sheet.problems] == [
        "A PAR cannot retreat to BUR (it may go to: BRE, GAS)",
        "this is a retreat phase: a dislodged unit retreats or disbands "
        "(write: A VIE - BOH, or A VIE D)",
    ]


WINTER = """\
Phase: Winter 1901, adjustments
France: A BUR, A SPA; centres BRE, MAR, PAR, SPA, POR
England: F LON, F EDI, A LVP; centres LON, EDI, LVP
Germany: A MUN, F DEN, A HOL, A KIE; centres BER, MUN, KIE
"""


@pytest.mark.parametrize(
    ("power", "text", "accepted", "refused"),
    [
        ("France", "BUILD A PAR\nBUILD F BRE\nBUILD A MAR", 3, []),
        ("France", "A PAR B, F BRE B; WAIVE", 3, []),
        ("France", "build army paris\nbuild fleet marseilles", 2, []),
        ("France", "BUILD A PAR\nBUILD A PAR", 1, ["you build in PAR once"]),
        ("France", "BUILD A PAR\nBUILD F BRE\nBUILD A MAR\nBUILD F MAR",
         3, ["you have only 3 build(s): 5 supply centres and 2 units"]),
        ("France", "BUILD F PAR", 0, ["a fleet is built on a coast, and PAR is inland"]),
        ("France", "BUILD A SPA", 0, ["SPA is not one of your home supply centres"]),
        ("France", "BUILD PAR", 0, ["say what to build in PAR: BUILD A or BUILD F"]),
        ("England", "BUILD F LON", 0, ["you have no builds: 3 supply centres and 3 units"]),
        ("England", "WAIVE", 0, ["you have no builds: 3 supply centres and 3 units"]),
        ("England", "REMOVE F LON", 0,
         ["you have no units to remove: 3 supply centres and 3 units"]),
        ("Germany", "REMOVE F DEN", 1, []),
        ("Germany", "A HOL D", 1, []),
        ("Germany", "DISBAND A HOL, REMOVE A KIE", 1,
         ["you remove only 1 unit(s): 3 supply centres and 4 units"]),
        ("Germany", "REMOVE A BER", 0, ["there is no unit of yours in BER"]),
        ("Germany", "A MUN - BOH", 0, [
            "this is the Winter adjustment phase (write: BUILD A PAR, REMOVE F NTH, or WAIVE)"]),
    ],
)  # fmt: skip
def test_builds_and_removals_are_checked_at_once(power, text, accepted, refused):
    state = GAME.load_position(WINTER)
    sheet = GAME.read_orders(state, power, text)
    assert len(sheet.orders) == accepted
    assert [why(p) for p in sheet.problems] == refused


def test_a_vote_may_share_a_line_with_orders():
    state = GAME.start(BOARD, ["ann", "bob", "cid", "dee", "eve"], {}, 1)
    player = state.players[0]
    unit = next(f"{k} {loc.upper()} H" for pw, k, loc in state.units.values() if pw == player.power)
    sheet = GAME.read_orders(state, player.name, f"VOTE TRUCE, {unit}")
    assert sorted(o.canonical() for o in sheet.orders) == sorted(["VOTE TRUCE", unit])
    assert not sheet.problems


def test_no_line_of_words_and_symbols_crashes_the_reader():
    """600 seeded random lines of order words, names and symbols: each is
    read or refused with a reason, in every phase; nothing raises."""
    import random

    parts = ["A", "F", "PAR", "BUR", "-", "->", "S", "C", "H", "VIA", "CONVOY", "STP", "/",
             "SC", "(", "nc", ")", "spa", "north", "coast", "to", "BUILD", "D", "R", "WAIVE",
             ",", ";", "liverpol", "Mid-Atlantic", "x", "supports", "b", "#", "\u00e9", "1901",
             "--", ">", "=", "'", ".", "gulf", "of", "lyon", "by", "NTH", "LON", "NWY"]  # fmt: skip
    rng = random.Random(13)
    states = [GAME.load_position(WINTER), GAME.load_position(RETREAT)]
    phrases = phrasebook("empire")["problems"]
    for _ in range(600):
        line = " ".join(rng.choice(parts) for _ in range(rng.randint(0, 8)))
        if rng.random() < 0.3:
            line = line.replace(" ", "")
        for sheet in [read(BOARD, dict(UNITS), "France", line)] + [
            GAME.read_orders(s, "France", line) for s in states
        ]:
            assert all(p.reason in phrases for p in sheet.problems)  # each said in words
