"""DATC 6.H (retreats), 6.I (building) and 6.J (civil disorder and
disbands), each named by its DATC number; the position is set up as the
case describes, and the movement phase before a retreat is played first."""

from __future__ import annotations

from adjudicator.empire.board import shipped_board
from adjudicator.empire.orders import read
from adjudicator.empire.phases import adjust, read_adjustments, read_retreats, resolve_retreats
from adjudicator.empire.resolve import after_movement, resolve_movement
from tests.empire_cases import place

BOARD = shipped_board()


def movement(orders: dict[str, list[str]]):
    units = place({"orders": orders})
    given = {}
    for power, lines in orders.items():
        for o in read(BOARD, units, power, "\n".join(lines)).orders:
            given[o.unit] = o
    outcome = resolve_movement(BOARD, units, given)
    after, dislodged = after_movement(BOARD, units, given, outcome)
    return after, dislodged, outcome.bounced


def retreat(after, dislodged, contested, orders: dict[str, list[str]]):
    given, refused = {}, []
    for power, lines in orders.items():
        sheet = read_retreats(BOARD, after, dislodged, contested, power, "\n".join(lines))
        given.update({o.unit: o for o in sheet.orders})
        refused += [lines[p.line - 1] for p in sheet.problems]
    units, outcome = resolve_retreats(BOARD, after, dislodged, contested, given)
    return units, outcome, refused


def options(after, dislodged, contested, prov):
    from adjudicator.empire.phases import retreat_options

    return retreat_options(BOARD, after, dislodged[prov], contested)


def test_6_h_1_no_supports_during_retreat():
    after, dis, contested = movement(
        {
            "Austria": ["F Trieste Hold", "A Serbia Hold"],
            "Turkey": ["F Greece Hold"],
            "Italy": [
                "A Venice Supports A Tyrolia - Trieste",
                "A Tyrolia - Trieste",
                "F Ionian Sea - Greece",
                "F Aegean Sea Supports F Ionian Sea - Greece",
            ],
        }
    )
    assert sorted(dis) == ["gre", "tri"]
    units, outcome, refused = retreat(
        after,
        dis,
        contested,
        {
            "Austria": ["F Trieste - Albania", "A Serbia Supports F Trieste - Albania"],
            "Turkey": ["F Greece - Albania"],
        },
    )
    assert refused == ["A Serbia Supports F Trieste - Albania"]
    assert outcome == {"tri": "bounced", "gre": "bounced"}
    assert "alb" not in units


def test_6_h_2_no_supports_from_retreating_unit():
    after, dis, contested = movement(
        {
            "England": [
                "A Liverpool - Edinburgh",
                "F Yorkshire Supports A Liverpool - Edinburgh",
                "F Norway Hold",
            ],
            "Germany": ["A Kiel Supports A Ruhr - Holland", "A Ruhr - Holland"],
            "Russia": [
                "F Edinburgh Hold",
                "A Sweden Supports A Finland - Norway",
                "A Finland - Norway",
                "F Holland Hold",
            ],
        }
    )
    assert sorted(dis) == ["edi", "hol", "nwy"]
    units, outcome, refused = retreat(
        after,
        dis,
        contested,
        {
            "England": ["F Norway - North Sea"],
            "Russia": ["F Edinburgh - North Sea", "F Holland Supports F Edinburgh - North Sea"],
        },
    )
    assert refused == ["F Holland Supports F Edinburgh - North Sea"]
    assert outcome["nwy"] == outcome["edi"] == "bounced" and outcome["hol"] == "disbanded"


def test_6_h_3_no_convoy_during_retreat():
    after, dis, contested = movement(
        {
            "England": ["F North Sea Hold", "A Holland Hold"],
            "Germany": ["F Kiel Supports A Ruhr - Holland", "A Ruhr - Holland"],
        }
    )
    units, outcome, refused = retreat(
        after,
        dis,
        contested,
        {
            "England": ["A Holland - Yorkshire", "F North Sea Convoys A Holland - Yorkshire"],
        },
    )
    assert sorted(refused) == sorted(
        ["A Holland - Yorkshire", "F North Sea Convoys A Holland - Yorkshire"]
    )
    assert outcome == {"hol": "disbanded"}


def test_6_h_4_no_other_moves_during_retreat():
    after, dis, contested = movement(
        {
            "England": ["F North Sea Hold", "A Holland Hold"],
            "Germany": ["F Kiel Supports A Ruhr - Holland", "A Ruhr - Holland"],
        }
    )
    units, outcome, refused = retreat(
        after,
        dis,
        contested,
        {
            "England": ["A Holland - Belgium", "F North Sea - Norwegian Sea"],
        },
    )
    assert refused == ["F North Sea - Norwegian Sea"]
    assert outcome == {"hol": "retreated to bel"} and units["nth"][2] == "nth"


def test_6_h_5_no_retreat_to_the_attackers_area():
    after, dis, contested = movement(
        {
            "Russia": ["F Constantinople Supports F Black Sea - Ankara", "F Black Sea - Ankara"],
            "Turkey": ["F Ankara Hold"],
        }
    )
    assert "bla" not in options(after, dis, contested, "ank")


def test_6_h_6_no_retreat_to_a_contested_area():
    after, dis, contested = movement(
        {
            "Austria": ["A Budapest Supports A Trieste - Vienna", "A Trieste - Vienna"],
            "Germany": ["A Munich - Bohemia", "A Silesia - Bohemia"],
            "Italy": ["A Vienna Hold"],
        }
    )
    assert "boh" in contested and "boh" not in options(after, dis, contested, "vie")


def test_6_h_7_multiple_retreats_to_one_area_disband():
    after, dis, contested = movement(
        {
            "Austria": ["A Budapest Supports A Trieste - Vienna", "A Trieste - Vienna"],
            "Germany": ["A Munich Supports A Silesia - Bohemia", "A Silesia - Bohemia"],
            "Italy": ["A Vienna Hold", "A Bohemia Hold"],
        }
    )
    units, outcome, _ = retreat(
        after, dis, contested, {"Italy": ["A Bohemia - Tyrolia", "A Vienna - Tyrolia"]}
    )
    assert outcome == {"boh": "bounced", "vie": "bounced"} and "tyr" not in units


def test_6_h_8_triple_retreat_to_one_area_disbands():
    after, dis, contested = movement(
        {
            "England": [
                "A Liverpool - Edinburgh",
                "F Yorkshire Supports A Liverpool - Edinburgh",
                "F Norway Hold",
            ],
            "Germany": ["A Kiel Supports A Ruhr - Holland", "A Ruhr - Holland"],
            "Russia": [
                "F Edinburgh Hold",
                "A Sweden Supports A Finland - Norway",
                "A Finland - Norway",
                "F Holland Hold",
            ],
        }
    )
    units, outcome, _ = retreat(
        after,
        dis,
        contested,
        {
            "England": ["F Norway - North Sea"],
            "Russia": ["F Edinburgh - North Sea", "F Holland - North Sea"],
        },
    )
    assert set(outcome.values()) == {"bounced"} and "nth" not in units


def test_6_h_9_dislodged_unit_does_not_contest_the_attackers_area():
    after, dis, contested = movement(
        {
            "England": [
                "F Heligoland Bight - Kiel",
                "F Denmark Supports F Heligoland Bight - Kiel",
            ],
            "Germany": [
                "A Berlin - Prussia",
                "F Kiel Hold",
                "A Silesia Supports A Berlin - Prussia",
            ],
            "Russia": ["A Prussia - Berlin"],
        }
    )
    assert "ber" in options(after, dis, contested, "kie")


def test_6_h_10_not_retreating_to_attacker_does_not_mean_contested():
    after, dis, contested = movement(
        {
            "England": ["A Kiel Hold"],
            "Germany": ["A Berlin - Kiel", "A Munich Supports A Berlin - Kiel", "A Prussia Hold"],
            "Russia": ["A Warsaw - Prussia", "A Silesia Supports A Warsaw - Prussia"],
        }
    )
    units, outcome, refused = retreat(
        after,
        dis,
        contested,
        {
            "England": ["A Kiel - Berlin"],
            "Germany": ["A Prussia - Berlin"],
        },
    )
    assert refused == ["A Kiel - Berlin"]
    assert outcome == {"kie": "disbanded", "pru": "retreated to ber"}


def test_6_h_11_retreat_when_dislodged_by_adjacent_convoy():
    after, dis, contested = movement(
        {
            "France": [
                "A Gascony - Marseilles via convoy",
                "A Burgundy Supports A Gascony - Marseilles",
                "F Mid-Atlantic Ocean Convoys A Gascony - Marseilles",
                "F Western Mediterranean Convoys A Gascony - Marseilles",
                "F Gulf of Lyon Convoys A Gascony - Marseilles",
            ],
            "Italy": ["A Marseilles Hold"],
        }
    )
    assert "gas" in options(after, dis, contested, "mar")


def test_6_h_12_retreat_when_dislodged_by_adjacent_convoy_while_trying_the_same():
    after, dis, contested = movement(
        {
            "England": [
                "A Liverpool - Edinburgh via convoy",
                "F Irish Sea Convoys A Liverpool - Edinburgh",
                "F English Channel Convoys A Liverpool - Edinburgh",
                "F North Sea Convoys A Liverpool - Edinburgh",
            ],
            "France": [
                "F Brest - English Channel",
                "F Mid-Atlantic Ocean Supports F Brest - English Channel",
            ],
            "Russia": [
                "A Edinburgh - Liverpool via convoy",
                "F Norwegian Sea Convoys A Edinburgh - Liverpool",
                "F North Atlantic Ocean Convoys A Edinburgh - Liverpool",
                "A Clyde Supports A Edinburgh - Liverpool",
            ],
        }
    )
    assert "lvp" in dis and "edi" in options(after, dis, contested, "lvp")


def test_6_h_13_no_retreat_with_convoy_in_movement_phase():
    after, dis, contested = movement(
        {
            "England": ["A Picardy Hold", "F English Channel Convoys A Picardy - London"],
            "France": ["A Paris - Picardy", "A Brest Supports A Paris - Picardy"],
        }
    )
    assert "lon" not in options(after, dis, contested, "pic")


def test_6_h_14_no_retreat_with_support_in_movement_phase():
    after, dis, contested = movement(
        {
            "England": ["A Picardy Hold", "F English Channel Supports A Picardy - Belgium"],
            "France": [
                "A Paris - Picardy",
                "A Brest Supports A Paris - Picardy",
                "A Burgundy Hold",
            ],
            "Germany": ["A Munich Supports A Marseilles - Burgundy", "A Marseilles - Burgundy"],
        }
    )
    units, outcome, _ = retreat(
        after,
        dis,
        contested,
        {
            "England": ["A Picardy - Belgium"],
            "France": ["A Burgundy - Belgium"],
        },
    )
    assert outcome == {"pic": "bounced", "bur": "bounced"}


def test_6_h_15_no_coastal_crawl_in_retreat():
    after, dis, contested = movement(
        {
            "England": ["F Portugal Hold"],
            "France": [
                "F Spain(sc) - Portugal",
                "F Mid-Atlantic Ocean Supports F Spain(sc) - Portugal",
            ],
        }
    )
    assert options(after, dis, contested, "por") == ()


def test_6_h_16_contested_for_both_coasts():
    after, dis, contested = movement(
        {
            "France": [
                "F Mid-Atlantic Ocean - Spain(nc)",
                "F Gascony - Spain(nc)",
                "F Western Mediterranean Hold",
            ],
            "Italy": [
                "F Tunis Supports F Tyrrhenian Sea - Western Mediterranean",
                "F Tyrrhenian Sea - Western Mediterranean",
            ],
        }
    )
    assert not any(o.startswith("spa") for o in options(after, dis, contested, "wes"))


# -- 6.I building ------------------------------------------------------------------------

HOMES = {sc: power.name for power in BOARD.powers for sc in power.homes}


def adjustments(units: dict, owners: dict, orders: dict[str, list[str]]):
    given = {}
    for power, lines in orders.items():
        given[power] = list(read_adjustments(BOARD, units, power, "\n".join(lines)).orders)
    return adjust(BOARD, units, owners, given)


def test_6_i_1_too_many_build_orders():
    owners = {**{sc: "Germany" for sc in ("ber", "kie", "mun")}, "war": "Germany"}
    units = {
        "ber": ("Germany", "A", "ber"),
        "mun": ("Germany", "A", "mun"),
        "bur": ("Germany", "A", "bur"),
    }
    after, report = adjustments(
        units, owners, {"Germany": ["Build A Warsaw", "Build A Kiel", "Build A Munich"]}
    )
    assert [r[2] for r in report] == ["not a home supply centre", "built", "occupied"]
    assert after["kie"] == ("Germany", "A", "kie")


def test_6_i_2_fleets_cannot_be_built_in_land_areas():
    owners = {sc: "Russia" for sc in ("mos", "sev", "stp", "war", "rum")}
    units = {
        "sev": ("Russia", "F", "sev"),
        "stp": ("Russia", "F", "stp/sc"),
        "war": ("Russia", "A", "war"),
        "rum": ("Russia", "A", "rum"),
    }
    after, report = adjustments(units, owners, {"Russia": ["Build F Moscow"]})
    assert report[0][2] == "fleets are built on a coast" and "mos" not in after


def test_6_i_3_supply_centre_must_be_empty():
    owners = {sc: "Germany" for sc in ("ber", "kie", "mun", "den")}
    units = {
        "ber": ("Germany", "A", "ber"),
        "kie": ("Germany", "F", "kie"),
        "mun": ("Germany", "A", "mun"),
    }
    _, report = adjustments(units, owners, {"Germany": ["Build A Berlin"]})
    assert report[0][2] == "occupied"


def test_6_i_4_both_coasts_must_be_empty():
    owners = {sc: "Russia" for sc in ("mos", "sev", "stp", "war", "swe")}
    units = {"stp": ("Russia", "F", "stp/sc"), "mos": ("Russia", "A", "mos")}
    _, report = adjustments(units, owners, {"Russia": ["Build A St Petersburg(nc)"]})
    assert report[0][2] == "occupied"


def test_6_i_5_home_centre_not_owned():
    owners = {
        "kie": "Germany",
        "mun": "Germany",
        "den": "Germany",
        "hol": "Germany",
        "ber": "Russia",
    }
    _, report = adjustments(
        {"mun": ("Germany", "A", "mun")}, owners, {"Germany": ["Build A Berlin"]}
    )
    assert report[0][2] == "home supply centre not owned"


def test_6_i_6_owned_centre_that_is_not_home():
    owners = {sc: "Germany" for sc in ("ber", "kie", "mun", "war")}
    units = {
        "ber": ("Germany", "A", "ber"),
        "kie": ("Germany", "F", "kie"),
        "mun": ("Germany", "A", "mun"),
    }
    _, report = adjustments(units, owners, {"Germany": ["Build A Warsaw"]})
    assert report[0][2] == "not a home supply centre"


def test_6_i_7_only_one_build_in_a_home_centre():
    owners = {sc: "Russia" for sc in ("mos", "sev", "stp", "war")}
    units = {"sev": ("Russia", "F", "sev"), "war": ("Russia", "A", "war")}
    after, report = adjustments(units, owners, {"Russia": ["Build A Moscow", "Build A Moscow"]})
    assert [r[2] for r in report][:2] == ["built", "occupied"]


def test_6_b_14_building_with_unspecified_coast():
    owners = {sc: "Russia" for sc in ("mos", "sev", "stp", "war")}
    units = {
        "sev": ("Russia", "F", "sev"),
        "war": ("Russia", "A", "war"),
        "mos": ("Russia", "A", "mos"),
    }
    after, report = adjustments(units, owners, {"Russia": ["Build F St Petersburg"]})
    assert report[0][2] == "coast needed" and "stp" not in after
    after, report = adjustments(
        units, owners, {"Russia": ["build fleet St Petersburg north coast"]}
    )
    assert after["stp"] == ("Russia", "F", "stp/nc")


# -- 6.J civil disorder and disbands ---------------------------------------------------------


def test_6_j_1_too_many_disband_orders():
    owners = {"par": "France"}
    units = {"par": ("France", "A", "par"), "pic": ("France", "A", "pic")}
    after, report = adjustments(
        units, owners, {"France": ["Remove F Gulf of Lyon", "Remove A Picardy", "Remove A Paris"]}
    )
    assert [r[2] for r in report] == ["no such unit", "removed", "no removals left"]
    assert sorted(after) == ["par"]


def test_6_j_2_removing_the_same_unit_twice():
    owners = {"par": "France"}
    units = {
        "par": ("France", "A", "par"),
        "pic": ("France", "A", "pic"),
        "bur": ("France", "A", "bur"),
    }
    after, report = adjustments(units, owners, {"France": ["Remove A Paris", "Remove A Paris"]})
    assert [r[2] for r in report][:2] == ["removed", "no such unit"]
    assert len(after) == 1  # the second removal by civil disorder


def disorder(power, owners, units):
    after, report = adjust(BOARD, units, {sc: power for sc in owners}, {})
    return sorted(set(units) - set(after))


def test_6_j_3_civil_disorder_two_armies_with_different_distance():
    assert disorder(
        "Russia", ["stp"], {"lvn": ("Russia", "A", "lvn"), "swe": ("Russia", "A", "swe")}
    ) == ["swe"]


def test_6_j_4_civil_disorder_two_armies_with_equal_distance():
    assert disorder(
        "Russia", ["mos"], {"lvn": ("Russia", "A", "lvn"), "ukr": ("Russia", "A", "ukr")}
    ) == ["lvn"]


def test_6_j_5_civil_disorder_two_fleets_with_different_distance():
    assert disorder(
        "Russia", ["stp"], {"ska": ("Russia", "F", "ska"), "ber": ("Russia", "F", "ber")}
    ) == ["ber"]


def test_6_j_6_civil_disorder_two_fleets_with_equal_distance():
    assert disorder(
        "Russia", ["mun"], {"bot": ("Russia", "F", "bot"), "nth": ("Russia", "F", "nth")}
    ) == ["bot"]


def test_6_j_7_fleets_before_armies_at_equal_distance():
    units = {
        "boh": ("Russia", "A", "boh"),
        "ska": ("Russia", "F", "ska"),
        "nth": ("Russia", "F", "nth"),
    }
    assert disorder("Russia", ["stp", "war"], units) == ["nth"]


def test_6_j_8_a_fleet_nearer_than_the_army():
    units = {"tyr": ("Russia", "A", "tyr"), "bal": ("Russia", "F", "bal")}
    assert disorder("Russia", ["war"], units) == ["tyr"]


def test_6_j_9_distance_from_both_coasts():
    for fleet in ("bal", "ska"):
        units = {
            "gre": ("Russia", "A", "gre"),
            "sev": ("Russia", "A", "sev"),
            fleet: ("Russia", "F", fleet),
        }
        assert disorder("Russia", ["stp", "sev"], units) == ["gre"]


def test_6_j_10_counting_convoying_distance():
    units = {"gre": ("Italy", "A", "gre"), "pie": ("Italy", "A", "pie")}
    assert disorder("Italy", ["nap"], units) == ["pie"]


def test_6_j_11_distance_to_owned_supply_centre():
    units = {"war": ("Italy", "A", "war"), "tus": ("Italy", "A", "tus")}
    assert disorder("Italy", ["war"], units) == ["tus"]
