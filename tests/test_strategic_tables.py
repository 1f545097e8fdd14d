"""Strategic Initiative's foundations: the unit table as data (every row of
the rule text's table) and the wrapping grid with squares players can type."""

from __future__ import annotations

import pytest

from adjudicator.strategic.grid import Grid, column_name, column_number
from adjudicator.strategic.rules import tables

# the rule text's table, section 2: tech, cost, mobility, sight, attack, ammo, flak, hp
TABLE = {
    "infantry": (0, 8, 2, 1, 2, 1, 0, 5),
    "anti_tank": (5, 10, 2, 1, 3, 1, 0, 6),
    "tank": (6, 12, 3, 1, 3, 1, 0, 8),
    "transport": (0, 12, 6, 1, 0, 6, 0, 8),
    "supply_ship": (0, 6, 6, 1, 0, 10, 0, 10),
    "patrol_boat": (0, 8, 8, 2, 1, 1, 0, 4),
    "destroyer": (3, 14, 8, 2, 5, 2, 0, 14),
    "battleship": (4, 20, 6, 2, 12, 4, 4, 40),
    "submarine": (6, 16, 10, 1, 5, 8, 0, 12),
    "carrier": (7, 20, 6, "radar", 4, 2, 4, 24),
    "cruiser": (9, 20, 8, 2, 8, 6, 6, 30),
    "engineer": (0, 12, 3, 1, 0, 10, 0, 4),
}


@pytest.mark.parametrize("key", sorted(TABLE))
def test_every_row_of_the_table_is_data(key):
    u = tables().unit(key)
    assert (u.tech, u.cost, u.mobility, u.sight, u.attack, u.ammo, u.flak, u.hp) == TABLE[key]


def test_cities_and_what_they_build():
    t = tables()
    assert [u.key for u in t.buildable("fort")] == ["infantry", "anti_tank", "tank"]
    assert t.buildable("port")[0].key in ("supply_ship", "transport", "patrol_boat")
    assert t.buildable("base") == []  # a base builds nothing
    assert (t.cities["fort"].flak, t.cities["fort"].cannon) == (2, 2)
    assert t.cities["port"].cannon == 4 and t.cities["airport"].flak == 4
    assert t.cities["base"].command == 2 and t.cities["base"].halves_land_damage


def test_multipliers_of_section_5():
    t = tables()
    assert t.multiplier("infantry", "anti_tank") == 2
    assert t.multiplier("anti_tank", "tank") == 2
    assert t.multiplier("destroyer", "submarine") == 3
    assert t.multiplier("submarine", "destroyer") == 3
    assert t.multiplier("submarine", "carrier") == 4
    assert t.multiplier("tank", "infantry") == 1


def test_technology_and_command_tables():
    t = tables()
    assert str(t.technology_gain(0)) == "0" and str(t.technology_gain(1)) == "4/5"
    assert str(t.technology_gain(14)) == "5/2" and t.technology_gain(30) == t.technology_gain(14)
    assert t.costs == {"move": 1, "attack": 2, "capture": 4, "satellite": 8, "terrain": 16,
                       "icbm": 32, "city": 64}  # fmt: skip
    assert (t.command_start, t.command_most, t.per_tick_least, t.per_tick_most) == (
        512, 1024, 2, 15)  # fmt: skip


def test_unit_types_by_what_players_type():
    t = tables()
    for word, key in [("Anti-Tank", "anti_tank"), ("inf", "infantry"), ("tanks", "tank"),
                      ("supply ship", "supply_ship"), ("ICBM 3", "icbm3")]:  # fmt: skip
        found = t.by_name(word)
        assert found is not None and found.key == key, word
    assert t.by_name("dragon") is None


def test_column_names_run_like_a_spreadsheet():
    assert [column_name(c) for c in (0, 25, 26, 51, 52, 255)] == ["A", "Z", "AA", "AZ", "BA", "IV"]
    for c in range(300):
        assert column_number(column_name(c)) == c


def test_squares_wrap_and_are_named():
    g = Grid(30, 20)
    assert g.name(0) == "A1" and g.parse("a1") == 0 and g.parse(" K 12 ") == g.square(10, 11)
    assert g.parse("AE1") is None and g.parse("A21") is None and g.parse("12K") is None
    corner = g.square(29, 19)
    assert g.distance(0, corner) == 1  # wrapping both ways
    assert corner in g.neighbours(0) and len(g.neighbours(0)) == 8
    assert g.distance(g.square(0, 0), g.square(15, 10)) == 15
    assert len(list(g.within(0, 2))) == 25 and len(set(g.within(0, 2))) == 25
    assert all(g.distance(0, s) <= 2 for s in g.within(0, 2))
    for sq in range(g.size):
        assert g.parse(g.name(sq)) == sq
