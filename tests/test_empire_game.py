"""Empire as a game: phases, the endgame (losses after the Winter, the
last year, truce with neutral empires), scores, and properties of random
games."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.base import Rng
from adjudicator.empire import GAME

SEVEN = ["ann", "bob", "cid", "dee", "eve", "fay", "gus"]
BOARD = GAME.load_map("standard")


def start(players=SEVEN, **options):
    return GAME.start(BOARD, players, options, 7)


def player(state, power):
    return state.player_of[power]


def play(state, orders: dict[str, list[str]]):
    """One phase; ``orders`` by power."""
    sheets = [
        GAME.read_orders(state, player(state, pw), "\n".join(lines)) for pw, lines in orders.items()
    ]
    for s in sheets:
        assert not s.problems, s.problems
    return GAME.adjudicate(state, sheets)


def test_the_opening_and_the_phase_codes():
    s = start()
    assert s.code == "S1901M" and GAME.phase(s) == (1, "S1901M")
    assert GAME.phase_kind(s) == "movement"
    assert len(s.units) == 22 and len(s.owners) == 22
    assert sorted(p.power for p in s.players) == sorted(p.name for p in BOARD.powers)
    assert start() == s  # powers from the seed
    r = play(s, {"France": ["A Paris - Burgundy"]})
    assert r.state.code == "F1901M"
    r = play(r.state, {"France": ["A Burgundy - Belgium"]})
    # Belgium changes owner at the end of Fall; France builds in Winter
    assert r.state.owners["bel"] == "France" and r.state.code == "W1901A"
    assert GAME.phase_kind(r.state) == "adjustment"
    pw = player(r.state, "France")
    w = GAME.adjudicate(r.state, [GAME.read_orders(r.state, pw, "build A Paris")])
    assert w.state.units["par"] == ("France", "A", "par") and w.state.code == "S1902M"


def test_a_dislodgement_makes_a_retreat_phase():
    s = start()
    s = replace(s, units={**s.units, "bur": ("Germany", "A", "bur")})
    r = play(s, {"France": ["A Paris - Burgundy", "A Marseilles Supports A Paris - Burgundy"]})
    assert r.state.code == "S1901R" and "bur" in r.state.dislodged
    assert GAME.phase_kind(r.state) == "retreat"
    assert GAME.phase_kinds == ("movement", "retreat", "adjustment")
    assert any(res.reason == "dislodged" for res in r.results)
    pw = player(r.state, "Germany")
    after = GAME.adjudicate(r.state, [GAME.read_orders(r.state, pw, "A Burgundy - Ruhr")])
    assert after.state.units["ruh"][0] == "Germany" and after.state.code == "F1901M"


def test_an_empire_loses_only_after_the_winter_adjustments():
    s = start()
    # Austria holds nothing but one army, and no centre, in Spring: not lost yet
    units = {k: v for k, v in s.units.items() if v[0] != "Austria"} | {
        "gal": ("Austria", "A", "gal")
    }
    owners = {k: v for k, v in s.owners.items() if v != "Austria"}
    s = replace(s, units=units, owners=owners)
    r = play(s, {})
    assert "Austria" not in r.state.lost
    r = GAME.adjudicate(r.state, [])  # Fall: the centres counted, Austria must remove
    assert r.state.code == "W1901A"
    r = GAME.adjudicate(r.state, [])  # civil disorder removes the army; Austria has lost
    assert "Austria" in r.state.lost
    loser = player(s, "Austria")
    assert [p.status for p in r.state.players if p.name == loser] == ["lost"]
    assert "empire_lost" in [e.kind for e in r.events]
    assert GAME.read_orders(r.state, loser, "A Galicia H").problems[0].reason == "not_in_game"


def test_the_game_ends_after_the_winter_of_the_last_year_with_scores():
    s = start(last_year=1901)
    r = GAME.adjudicate(GAME.adjudicate(s, []).state, [])
    o = r.state.outcome
    assert o is not None and o.reason == "christmas_eve_1901"
    assert sorted(o.scores.values()) == [3, 3, 3, 3, 3, 3, 4]  # each survivor: its centres
    assert sorted(o.winners) == sorted(SEVEN)


def test_truce_needs_three_or_fewer_empires_all_agreeing():
    s = start(players=SEVEN[:5])  # two neutral empires
    neutral = set(s.neutral)
    assert len(neutral) == 2
    keep = set(list(p.power for p in s.players)[:1]) | neutral
    owners = {k: v for k, v in s.owners.items() if v in keep}
    units = {k: v for k, v in s.units.items() if v[0] in keep}
    lost = frozenset(p.power for p in s.players) - keep
    s = replace(s, owners=owners, units=units, lost=lost)
    alone = next(iter(keep - neutral))
    r = play(s, {alone: []})
    assert r.state.outcome is None  # the player has not declared
    r = play(r.state, {alone: ["VOTE TRUCE"]})
    assert r.state.outcome is not None and r.state.outcome.reason == "truce"
    assert r.state.outcome.winners == (player(s, alone),)  # neutral empires score nothing


def test_more_than_three_empires_cannot_truce():
    s = start()
    sheets = [GAME.read_orders(s, n, "vote truce") for n in SEVEN]
    r = GAME.adjudicate(s, sheets)
    assert r.state.outcome is None and len(r.state.truce) == 7
    r2 = GAME.adjudicate(r.state, [GAME.read_orders(r.state, "ann", "vote no truce")])
    assert len(r2.state.truce) == 6


def test_neutral_empires_hold_and_never_build():
    s = start(players=SEVEN[:5])
    (n1, n2) = s.neutral
    r = GAME.adjudicate(s, [])
    assert all(res.reason == "held" for res in r.results if res.order.player in (n1, n2))


# -- properties ------------------------------------------------------------------------------


def random_sheets(state, rng):
    sheets = []
    for p in state.players:
        opts = GAME.view(state, p.name).options
        lines = []
        for _unit, choices in sorted(opts.items()):
            c = rng.choice(choices)
            lines.append(c.replace(" moves to ", " - ").replace(" retreats to ", " - ")
                         .replace(" disbands", " D"))  # fmt: skip
        if state.kind == "A":
            lines = ["waive"] if rng.coin() else []
        sheets.append(GAME.read_orders(state, p.name, "\n".join(lines), rng.below(1000)))
    return sheets


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), phases=st.integers(1, 25))
def test_random_games_never_raise_and_keep_one_unit_a_province(seed, phases):
    s = GAME.start(BOARD, SEVEN, {}, seed)
    rng = Rng(seed)
    for _ in range(phases):
        if s.outcome is not None:
            break
        sheets = random_sheets(s, rng)
        r = GAME.adjudicate(s, sheets)
        assert r == GAME.adjudicate(s, sheets)
        s = r.state
        locations = [loc.split("/")[0] for _, _, loc in s.units.values()]
        assert len(locations) == len(set(locations)) == len(s.units)
        assert all(k == loc.split("/")[0] for k, (_, _, loc) in s.units.items())
        assert GAME.load_state(GAME.dump_state(s)) == s


def test_a_dislodged_unit_with_nowhere_to_go_leaves_nothing_to_order():
    """Munich, dislodged from Bohemia, is surrounded: it is disbanded, so
    Germany has nothing to order in the retreat phase (the host runs such
    a phase at once). With Burgundy empty it may go there: Germany has."""
    position = """\
Phase: Fall 1901, retreats (F1901R)
Austria: A BOH, A TYR, A SIL, A MUN; centres BUD, TRI, VIE
France: A RUH, A BUR; centres BRE, MAR, PAR
Germany: A KIE, A BER; centres BER, KIE, MUN
Dislodged: Germany A MUN from BOH
Players: ann Austria, bob France, cid Germany
"""
    s = GAME.load_position(position)
    assert GAME.phase_kind(s) == "retreat"
    assert GAME.retreats(s)["mun"]["options"] == []
    assert GAME.to_order(s) == frozenset()
    with_options = GAME.load_position(position.replace("France: A RUH, A BUR", "France: A RUH"))
    assert GAME.to_order(with_options) == frozenset({"cid"})
