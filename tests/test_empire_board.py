"""The standard Diplomacy map as data, and the order notation."""

from __future__ import annotations

import pytest

from adjudicator.empire.board import shipped_board
from adjudicator.empire.orders import parse, read

BOARD = shipped_board()


def test_seventy_five_provinces_thirty_four_centres_seven_powers():
    kinds = [p.kind for p in BOARD.provinces]
    assert len(BOARD.provinces) == 75
    assert (kinds.count("land"), kinds.count("coast"), kinds.count("sea")) == (14, 42, 19)
    assert len(BOARD.supply_centres) == 34
    assert [p.name for p in BOARD.powers] == [
        "Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey",
    ]  # fmt: skip
    homes = {p.name: len(p.homes) for p in BOARD.powers}
    assert homes == {"Austria": 3, "England": 3, "France": 3, "Germany": 3, "Italy": 3,
                     "Russia": 4, "Turkey": 3}  # fmt: skip
    assert {p.abbr: p.coasts for p in BOARD.provinces if p.coasts} == {
        "bul": ("ec", "sc"), "spa": ("nc", "sc"), "stp": ("nc", "sc"),
    }  # fmt: skip
    assert all(h in BOARD.supply_centres for p in BOARD.powers for h in p.homes)


def test_links_are_between_the_right_kinds_of_places():
    for a, b in BOARD.army_links:
        assert BOARD.province[a].kind != "sea" and BOARD.province[b].kind != "sea"
    for loc, others in BOARD.fleet_adj.items():
        assert BOARD.province[loc.split("/")[0]].kind != "land"
        assert loc not in others
    # a fleet in a province with coasts always stands on one of them
    assert "spa" not in BOARD.fleet_adj and "spa/nc" in BOARD.fleet_adj
    assert BOARD.can_move("F", "stp/sc", "bot") and not BOARD.can_move("F", "stp/nc", "bot")
    assert BOARD.can_move("A", "par", "bur") and not BOARD.can_move("A", "lvp", "iri")
    assert BOARD.fleet_reaches("mao", "spa") == ("spa/nc", "spa/sc")
    assert BOARD.fleet_reaches("gas", "spa") == ("spa/nc",)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("A PAR - BUR", "A PAR - BUR"),
        ("a par-> bur", "A PAR - BUR"),
        ("Army Paris moves to Burgundy", "A PAR - BUR"),
        ("A Paris -> Burgundy", "A PAR - BUR"),
        ("Army Paris holds", "A PAR H"),
        ("A MUN S A BER - KIE", "A MUN S A BER - KIE"),
        ("A Munich supports A Berlin to Kiel", "A MUN S A BER - KIE"),
        ("F NTH C A LON - NWY", "F NTH C A LON - NWY"),
        ("Fleet North Sea convoys Army London to Norway", "F NTH C A LON - NWY"),
        ("A LON - NWY via convoy", "A LON - NWY VIA CONVOY"),
        ("F STP/SC - BOT", "F STP/SC - BOT"),
        ("F St Petersburg south coast -> Gulf of Bothnia", "F STP/SC - BOT"),
        ("F MAO - Spain (nc)", "F MAO - SPA/NC"),
        ("F mid-atlantic ocean - spa nc", "F MAO - SPA/NC"),
    ],
)
def test_orders_in_the_usual_notations(text, want):
    units = {
        "par": ("France", "A", "par"), "mun": ("Germany", "A", "mun"),
        "ber": ("Germany", "A", "ber"), "nth": ("England", "F", "nth"),
        "lon": ("England", "A", "lon"), "stp": ("Russia", "F", "stp/sc"),
        "mao": ("France", "F", "mao"),
    }  # fmt: skip
    power = units[parse(BOARD, text)["prov"]][0]
    sheet = read(BOARD, units, power, text)
    assert not sheet.problems, sheet.problems
    assert sheet.orders[0].canonical() == want


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("A Madrid - Par", "no_such_province"),
        ("A BUR - PAR", "no_unit"),
        ("A MUN - RUH", "not_your_unit"),
        ("F PAR - PIC", "wrong_unit_type"),
        ("A PAR - MUN", "not_adjacent"),
        ("F MAO - SPA", "coast_needed"),
        ("A PAR dances", "not_an_order"),
    ],
)
def test_refusals_say_why(text, reason):
    units = {"par": ("France", "A", "par"), "mun": ("Germany", "A", "mun"),
             "mao": ("France", "F", "mao")}  # fmt: skip
    sheet = read(BOARD, units, "France", text)
    assert [p.reason for p in sheet.problems] == [reason]
