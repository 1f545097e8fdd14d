"""Territory (../shared/rules/territory.md, RULINGS.md; docs/rules/territory.md):
every sentence of the rule text as a case, then properties of random games."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.base import GameError, OrderSheet, Rng
from adjudicator.territory import GAME
from adjudicator.territory.board import generate
from adjudicator.territory.orders import Away, Back, Send, read_orders
from adjudicator.territory.state import dump, load

SIX = ["ann", "bob", "cid", "dee", "eve", "fay"]


def new_game(seed: int = 1, **options):
    return GAME.start(GAME.load_map("france"), SIX, options, seed)


def board(state, owners, troops, **options):
    """The game with owners and troops set by hand; every other state
    neutral at its starting troops."""
    all_troops = {s.name: s.troops for s in state.map.states}
    all_troops.update(troops)
    return replace(
        state, owners=dict(owners), troops=all_troops, options={**state.options, **options}
    )


def send(player, origin, target, seq=1, line=1):
    return Send(player=player, seq=seq, line=line, origin=origin, target=target)


def tick(state, *orders, present=SIX):
    """One tick: every player in ``present`` mailed (a sheet, maybe empty)."""
    sheets = {p: [] for p in present}
    for o in orders:
        sheets.setdefault(o.player, []).append(o)
    return GAME.adjudicate(state, [OrderSheet(p, tuple(os)) for p, os in sheets.items()])


def prod(state, name):
    return state.map.state[name].production


# -- setup -------------------------------------------------------------------------------


def test_six_players_get_a_random_state_and_a_unique_colour_each():
    s = new_game(5)
    assert len(s.owners) == 6 and sorted(s.owners.values()) == sorted(SIX)
    assert len({p.colour for p in s.players}) == 6
    assert all(s.troops[st.name] == st.troops for st in s.map.states)  # predefined troops
    assert new_game(5) == s and new_game(6).owners != s.owners
    assert load(dump(s)) == s
    with pytest.raises(GameError, match="exactly 6"):
        GAME.start(GAME.load_map("france"), SIX[:5], {}, 1)


def test_the_shipped_map_and_the_generator():
    france = GAME.load_map("france")
    assert 28 <= len(france.states) <= 32
    assert france.lookup("lyon") == ("Lyon", ())
    assert france.lookup("Mar") == ("Marseille", ())
    name, candidates = france.lookup("Pa")
    assert name is None and set(candidates) == {"Paris", "Pau"}
    g = generate(30, 7)
    assert g == generate(30, 7) and len(g.states) == 30
    assert len({s.name.lower() for s in g.states}) == 30
    assert GAME.load_map("generated-30-7") == g


# -- production -----------------------------------------------------------------------------


def test_owned_states_produce_without_limit():
    s = board(new_game(), {"Lyon": "ann"}, {"Lyon": 500})
    after = tick(s).state
    assert after.troops["Lyon"] == 500 + prod(s, "Lyon")


def test_neutral_states_regenerate_up_to_their_start_and_never_beyond():
    s = new_game()
    start = s.map.state["Brest"].troops
    s = board(s, {"Lyon": "ann"}, {"Brest": start - 1, "Pau": s.map.state["Pau"].troops})
    after = tick(s).state
    assert after.troops["Brest"] == start  # back up, not beyond
    assert after.troops["Pau"] == s.map.state["Pau"].troops  # already full: no more


def test_production_comes_before_the_commands():
    s = board(new_game(), {"Lyon": "ann", "Paris": "ann"}, {"Lyon": 1, "Paris": 1})
    (r,) = tick(s, send("ann", "Lyon", "Paris")).results
    assert r.reason == "transferred"
    assert r.facts["army"] == prod(s, "Lyon")  # 1 + production, minus the one that stays


# -- commands -------------------------------------------------------------------------------


def test_a_transfer_moves_all_troops_but_one():
    s = board(new_game(), {"Lyon": "ann", "Paris": "ann"}, {"Lyon": 10, "Paris": 4})
    after = tick(s, send("ann", "Lyon", "Paris"))
    assert after.state.troops["Lyon"] == 1
    assert after.state.troops["Paris"] == 4 + prod(s, "Paris") + 10 + prod(s, "Lyon") - 1
    r = after.results[0]
    assert (r.facts["origin_before"], r.facts["target_after"]) == (
        10 + prod(s, "Lyon"),
        after.state.troops["Paris"],
    )


def test_an_origin_needs_at_least_two_troops():
    s = new_game()
    low = board(s, {"Pau": "ann", "Paris": "ann"}, {"Pau": 1 - prod(s, "Pau"), "Paris": 3})
    (r,) = tick(low, send("ann", "Pau", "Paris")).results
    assert r.reason == "too_few" and r.facts["troops"] == 1


def test_a_neutral_state_falls_at_exactly_zero_and_below():
    s = new_game()
    n = s.map.state["Brest"].troops  # full: no regeneration this tick
    exact = board(s, {"Lyon": "ann"}, {"Lyon": n + 1 - prod(s, "Lyon")})
    result = tick(exact, send("ann", "Lyon", "Brest"))
    assert result.results[0].reason == "conquered"
    assert result.state.owners["Brest"] == "ann" and result.state.troops["Brest"] == 0
    more = board(s, {"Lyon": "ann"}, {"Lyon": n + 6 - prod(s, "Lyon")})
    result = tick(more, send("ann", "Lyon", "Brest"))
    assert result.state.owners["Brest"] == "ann" and result.state.troops["Brest"] == 5
    fewer = board(s, {"Lyon": "ann"}, {"Lyon": n - prod(s, "Lyon")})
    result = tick(fewer, send("ann", "Lyon", "Brest"))
    assert result.results[0].reason == "defended"
    assert "Brest" not in result.state.owners and result.state.troops["Brest"] == 1


def test_a_direct_attack_leaving_exactly_zero_does_not_take_the_state():
    s = new_game()
    base = {"Lyon": "ann", "Paris": "bob"}
    paris = 10 - prod(s, "Paris")  # 10 after production
    exact = board(s, base, {"Lyon": 11 - prod(s, "Lyon"), "Paris": paris})  # 10 attack
    result = tick(exact, send("ann", "Lyon", "Paris"))
    assert result.results[0].reason == "defended"
    assert result.state.owners["Paris"] == "bob" and result.state.troops["Paris"] == 0
    more = board(s, base, {"Lyon": 14 - prod(s, "Lyon"), "Paris": paris})  # 13 attack
    result = tick(more, send("ann", "Lyon", "Paris"))
    assert result.results[0].reason == "conquered"
    assert result.state.owners["Paris"] == "ann" and result.state.troops["Paris"] == 3


def _bilateral(a_army: int, b_army: int):
    s = new_game()
    return board(
        s,
        {"Lyon": "ann", "Paris": "bob"},
        {"Lyon": a_army + 1 - prod(s, "Lyon"), "Paris": b_army + 1 - prod(s, "Paris")},
    )


def test_a_bilateral_attack_the_earlier_stronger_goes_on():
    s = _bilateral(12, 5)
    result = tick(s, send("ann", "Lyon", "Paris", seq=1), send("bob", "Paris", "Lyon", seq=2))
    ann, bob = result.results
    assert ann.reason == "met_won" and ann.facts["remainder"] == 7 and bob.reason == "met"
    # 7 go on against Paris, where one troop stayed: taken with 6
    assert result.state.owners["Paris"] == "ann" and result.state.troops["Paris"] == 6
    assert result.state.troops["Lyon"] == 1


def test_a_bilateral_attack_the_later_stronger_goes_on():
    s = _bilateral(5, 12)
    result = tick(s, send("ann", "Lyon", "Paris", seq=1), send("bob", "Paris", "Lyon", seq=2))
    ann, bob = result.results
    assert ann.reason == "met_lost" and ann.facts["remainder"] == 7
    assert bob.reason == "met" and bob.succeeded
    assert result.state.owners["Lyon"] == "bob" and result.state.troops["Lyon"] == 6


def test_a_bilateral_attack_equal_armies_destroy_each_other():
    s = _bilateral(8, 8)
    result = tick(s, send("ann", "Lyon", "Paris", seq=1), send("bob", "Paris", "Lyon", seq=2))
    assert result.results[0].reason == "met_even"
    assert result.state.owners == {"Lyon": "ann", "Paris": "bob"}
    assert result.state.troops["Lyon"] == 1 and result.state.troops["Paris"] == 1


def test_the_received_order_decides_which_attack_is_first():
    s = _bilateral(12, 5)
    # bob's command was received first: his army is the first, ann's the second
    result = tick(s, send("ann", "Lyon", "Paris", seq=2), send("bob", "Paris", "Lyon", seq=1))
    bob, ann = result.results
    assert bob.reason == "met_lost" and bob.facts["remainder"] == 7 and ann.reason == "met"
    assert result.state.owners["Paris"] == "ann"
    # the result is the same armies' difference either way round: 12 - 5 from Lyon


def test_commands_run_one_at_a_time_with_troops_as_they_stand():
    s = new_game()
    s = board(s, {"Lyon": "ann", "Paris": "ann", "Nice": "bob"},
              {"Lyon": 10, "Paris": 1, "Nice": 2})  # fmt: skip
    result = tick(
        s,
        send("ann", "Lyon", "Paris", seq=1),  # Paris now has many
        send("ann", "Paris", "Nice", seq=2),  # and sends them on, in the same tick
    )
    first, second = result.results
    assert first.reason == "transferred"
    assert second.facts["army"] == first.facts["target_after"] - 1
    assert result.state.owners["Nice"] == "ann"


def test_a_command_whose_origin_was_lost_first_does_nothing():
    s = new_game()
    s = board(s, {"Lyon": "ann", "Paris": "bob", "Nice": "ann"},
              {"Lyon": 3, "Paris": 40, "Nice": 2})  # fmt: skip
    result = tick(s, send("bob", "Paris", "Lyon", seq=1), send("ann", "Lyon", "Nice", seq=2))
    assert result.results[1].reason == "not_yours"


def test_commands_and_refusals_by_text():
    s = board(new_game(), {"Lyon": "ann"}, {"Lyon": 9})
    sheet = read_orders(
        s, "ann", "Lyon -> Paris\nsend lyon to marseille\nLyon to Pa\nParis -> Lyon\nLyon -> Lyon\n"
        "Lyon -> Atlantis\naway\nhello", seq=4
    )  # fmt: skip
    assert [o.canonical() for o in sheet.orders] == [
        "Lyon -> Paris",
        "Lyon -> Marseille",
        "away",
    ]
    assert [(p.line, p.reason) for p in sheet.problems] == [
        (3, "ambiguous_state"),
        (4, "neutral_origin"),
        (5, "same_state"),
        (6, "no_such_state"),
        (8, "not_an_order"),
    ]
    assert set(sheet.problems[0].suggestions) == {"Paris", "Pau"}
    assert sheet.problems[1].suggestions == ()  # ann owns only Lyon, the target
    assert sheet.problems[3].suggestions == ()  # nothing is like "Atlantis"
    assert isinstance(sheet.orders[2], Away)


def test_a_misspelt_state_gets_the_closest_names():
    s = board(new_game(), {"Lyon": "ann", "Nice": "ann", "Paris": "bob"}, {"Lyon": 9, "Nice": 3})
    sheet = read_orders(s, "ann", "Lyon -> bordeux\nLyom -> Marsielle\nParis -> Nice")
    got = [(p.reason, p.facts.get("name"), p.suggestions) for p in sheet.problems]
    assert got == [
        ("no_such_state", "bordeux", ("Bordeaux",)),
        ("no_such_state", "lyom", ("Lyon",)),
        ("not_yours", None, ("Lyon -> Nice",)),
    ]


# -- absence --------------------------------------------------------------------------------


def test_silence_for_the_configured_ticks_makes_a_player_absent_then_removed():
    s = board(
        new_game(absent_after=2, absent_timer=2),
        {"Lyon": "ann", "Paris": "bob", "Nice": "cid"},
        {"Lyon": 5, "Paris": 5, "Nice": 5},
    )
    others = [p for p in SIX if p != "bob"]
    s = tick(s, present=others).state
    assert s.player["bob"].status == "active"
    r = tick(s, present=others)
    s = r.state
    assert s.player["bob"].status == "absent" and "absent" in [e.kind for e in r.events]
    s = tick(s, present=others).state  # the timer runs: one tick of two
    assert s.player["bob"].status == "absent" and s.owners.get("Paris") == "bob"
    troops = s.troops["Paris"]
    r = tick(s, present=others)
    s = r.state
    assert s.player["bob"].status == "removed"
    assert "Paris" not in s.owners  # released: neutral, with its troops
    assert ("removed", ["Paris"]) in [(e.kind, e.facts.get("states")) for e in r.events]
    start = s.map.state["Paris"].troops
    assert troops < start  # (the map's Paris starts with more than 5 + 3 ticks)
    for _ in range(20):
        s = tick(s, present=others).state
    assert s.troops["Paris"] == start  # back up to the map's count, and no further


def test_away_starts_the_timer_and_any_mail_brings_the_player_back():
    s = board(new_game(absent_after=5, absent_timer=3), {"Lyon": "ann", "Paris": "bob"},
              {"Lyon": 5, "Paris": 5})  # fmt: skip
    r = tick(s, Away(player="bob", seq=1, line=1))
    assert r.state.player["bob"].status == "absent"
    back = tick(r.state)  # bob mailed something (a sheet without orders)
    assert back.state.player["bob"].status == "active"
    assert "back" in [e.kind for e in back.events]


def test_a_later_back_takes_an_away_back_and_a_later_away_stands():
    s = board(new_game(), {"Lyon": "ann", "Paris": "bob"}, {"Lyon": 5, "Paris": 5})
    r = tick(s, Away(player="bob", seq=1, line=1), Back(player="bob", seq=2, line=1))
    assert r.state.player["bob"].status == "active"
    assert [(x.order.canonical(), x.reason) for x in r.results] == [
        ("away", "away"),
        ("back", "back"),
    ]
    r = tick(s, Back(player="bob", seq=1, line=1), Away(player="bob", seq=1, line=2))
    assert r.state.player["bob"].status == "absent"
    assert [e.kind for e in r.events] == ["away"]


def test_away_and_back_are_read_with_what_they_mean():
    s = new_game(absent_timer=4)
    sheet = read_orders(s, SIX[0], "AWAY\nI'm back\nback")
    assert [o.canonical() for o in sheet.orders] == ["away", "back", "back"]
    away = sheet.warnings[0]
    assert away.reason == "away"
    assert away.facts == {"from": {"deadline": 1}, "until": {"deadline": 5}, "ticks": 4}
    assert sheet.warnings[1].reason == "back"
    held = read_orders(new_game(absence="hold"), SIX[0], "away")
    assert held.warnings[0].reason == "away_hold"


def test_in_continue_mode_the_others_play_on_and_may_attack_the_absent():
    s = board(new_game(absence="continue"), {"Lyon": "ann", "Paris": "bob"},
              {"Lyon": 60, "Paris": 5})  # fmt: skip
    s = tick(s, Away(player="bob", seq=1, line=1)).state
    r = tick(s, send("ann", "Lyon", "Paris"), present=[p for p in SIX if p != "bob"])
    assert r.results[0].reason == "conquered"


def test_in_hold_mode_nothing_happens_while_a_player_is_away():
    s = board(new_game(absence="hold"), {"Lyon": "ann", "Paris": "bob"},
              {"Lyon": 60, "Paris": 5})  # fmt: skip
    s = tick(s, Away(player="bob", seq=1, line=1)).state
    before = dict(s.troops)
    r = tick(s, send("ann", "Lyon", "Paris"), present=[p for p in SIX if p != "bob"])
    assert r.results[0].reason == "on_hold"
    assert r.state.troops == before and r.state.owners == s.owners  # no production either
    assert "on_hold" in [e.kind for e in r.events]
    resumed = tick(r.state, send("ann", "Lyon", "Paris"))  # bob is back: the game goes on
    assert resumed.results[0].reason == "conquered"


# -- the end ---------------------------------------------------------------------------------


def test_the_game_ends_when_one_player_is_left_owning_states():
    s = board(new_game(), {"Lyon": "ann", "Paris": "bob"}, {"Lyon": 80, "Paris": 1})
    r = tick(s, send("ann", "Lyon", "Paris"))
    assert r.state.outcome.reason == "last_player" and r.state.outcome.winners == ("ann",)


def test_after_the_last_tick_the_most_states_then_troops_win():
    s = board(new_game(last_tick=1), {"Lyon": "ann", "Nice": "ann", "Paris": "bob"},
              {"Lyon": 3, "Nice": 3, "Paris": 90})  # fmt: skip
    assert tick(s).state.outcome.winners == ("ann",)  # two states beat one
    s = board(new_game(last_tick=1), {"Lyon": "ann", "Paris": "bob"}, {"Lyon": 3, "Paris": 90})
    assert tick(s).state.outcome.winners == ("bob",)  # equal states: more troops


def test_a_removed_players_states_become_neutral_with_their_troops():
    s = board(new_game(), {"Lyon": "ann", "Paris": "bob", "Nice": "cid"},
              {"Lyon": 3, "Paris": 40, "Nice": 3})  # fmt: skip
    after = GAME.remove_player(s, "bob")
    assert "Paris" not in after.owners and after.troops["Paris"] == 40
    assert after.outcome is None


# -- properties -------------------------------------------------------------------------------


def random_sheets(state, rng: Rng, base: int):
    names = [st.name for st in state.map.states]
    sheets = []
    for i, p in enumerate(state.players):
        if p.status == "removed" or rng.below(5) == 0:
            continue  # sometimes a player sends nothing
        lines = [
            f"{s} -> {rng.choice(names)}"
            for s, who in sorted(state.owners.items())
            if who == p.name and rng.coin()
        ]
        if rng.below(20) == 0:
            lines.append("away")
        sheets.append(
            read_orders(state, p.name, "\n".join(lines), base + rng.below(10_000) * 10 + i)
        )
    return sheets


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), ticks=st.integers(1, 40), hold=st.booleans())
def test_properties_of_random_games(seed, ticks, hold):
    s = new_game(seed, absence="hold" if hold else "continue", absent_after=2, absent_timer=2)
    rng = Rng(seed)
    for t in range(ticks):
        if s.outcome is not None:
            break
        sheets = random_sheets(s, rng, t * 1_000_000)
        result = GAME.adjudicate(s, sheets)
        assert result == GAME.adjudicate(s, list(reversed(sheets)))  # order is by received number
        s = result.state
        assert all(v >= 0 for v in s.troops.values())
        assert set(s.troops) == {st.name for st in s.map.states}
        live = {p.name for p in s.players if p.status != "removed"}
        assert set(s.owners.values()) <= live  # one owner or none, never a removed player
        assert load(dump(s)) == s


def test_the_view_counts_troops_in_good_english():
    s = board(new_game(), {"Lyon": "ann", "Nice": "ann"}, {"Lyon": 2, "Nice": 5})
    options = GAME.view(s, "ann").options
    assert options["Lyon"] == ("Lyon -> any state (1 troop goes)",)
    assert options["Nice"] == ("Nice -> any state (4 troops go)",)
