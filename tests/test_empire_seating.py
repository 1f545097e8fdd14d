"""Who plays which power (adjudicator/empire/seating.py): the game
master's fixed seats, the players' lists of wishes, the seed."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator import GAMES
from adjudicator.base import GameError, Rng
from adjudicator.empire.seating import assign, cost, read_power

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
NAMES = ("ann", "bob", "cid", "dee", "eve", "fay", "gus")
UNRANKED = len(POWERS) + 1


def total(got, preferences, choosers):
    return sum(cost(tuple(preferences.get(n, ())), got[n], UNRANKED) for n in choosers)


@st.composite
def wishes(draw):
    """5 to 7 players, a few with fixed powers, some with lists, a seed."""
    players = list(NAMES[: draw(st.integers(5, 7))])
    fixed_powers = draw(st.lists(st.sampled_from(POWERS), unique=True, max_size=2))
    fixed_players = draw(st.permutations(players))[: len(fixed_powers)]
    fixed = dict(zip(fixed_players, fixed_powers, strict=True))
    preferences = {}
    for n in players:
        if n not in fixed and draw(st.booleans()):
            order = draw(st.permutations(POWERS))
            preferences[n] = tuple(order[: draw(st.integers(1, 7))])
    return players, fixed, preferences, draw(st.integers(0, 2**48))


@settings(max_examples=200, deadline=None)
@given(wishes())
def test_the_assignment_is_optimal_deterministic_and_stable(case):
    players, fixed, preferences, seed = case
    got = assign(POWERS, players, fixed, preferences, seed)
    assert sorted(got) == sorted(players) and len(set(got.values())) == len(players)
    assert all(got[n] == p for n, p in fixed.items())
    choosers = [n for n in players if n not in fixed]
    free = [p for p in POWERS if p not in fixed.values()]
    best = total(got, preferences, choosers)
    for perm in itertools.permutations(free, len(choosers)):  # no assignment costs less
        other = dict(zip(choosers, perm, strict=True))
        assert total(other, preferences, choosers) >= best
    assert assign(POWERS, players, fixed, preferences, seed) == got  # the same seed: the same
    for a, b in itertools.combinations(choosers, 2):  # no two would both gain by a swap
        pa, pb = tuple(preferences.get(a, ())), tuple(preferences.get(b, ()))
        a_gains = cost(pa, got[b], UNRANKED) < cost(pa, got[a], UNRANKED)
        b_gains = cost(pb, got[a], UNRANKED) < cost(pb, got[b], UNRANKED)
        assert not (a_gains and b_gains), (a, b, got)


def test_without_wishes_the_deal_is_the_seeds_as_before():
    for seed in (0, 3, 20261121):
        dealt = Rng(seed).shuffled(list(POWERS))
        got = assign(POWERS, NAMES, {}, {}, seed)
        assert got == dict(zip(NAMES, dealt, strict=True))


def test_first_choices_are_kept_and_a_clash_goes_the_cheapest_way():
    prefs = {"ann": ("France", "Germany"), "bob": ("France", "Italy"), "cid": ("Germany",)}
    got = assign(POWERS, NAMES[:5], {}, prefs, seed=7)
    # ann France, bob Italy, cid Germany: 1 + 2 + 1, the only assignment costing 4
    assert (got["ann"], got["bob"], got["cid"]) == ("France", "Italy", "Germany")
    both = {"ann": ("France",), "bob": ("France",)}
    winners = {assign(POWERS, NAMES[:5], {}, both, seed)["ann"] == "France" for seed in range(40)}
    assert winners == {True, False}  # a true tie: the seed settles it, either way


def test_fixed_seats_come_first_and_the_rest_are_dealt_from_what_is_left():
    got = assign(POWERS, NAMES, {"ann": "England"}, {"bob": ("England", "Turkey")}, 1)
    assert got["ann"] == "England" and got["bob"] == "Turkey"
    dealt = [p for p in Rng(1).shuffled(list(POWERS)) if p != "England"]
    assert assign(POWERS, NAMES, {"ann": "England"}, {}, 1) == {
        "ann": "England",
        **dict(zip(NAMES[1:], dealt, strict=True)),
    }


@pytest.mark.parametrize(
    "fixed, preferences, why",
    [
        ({"ann": "England", "bob": "England"}, {}, "England is given to both ann and bob"),
        ({"ann": "Spain"}, {}, "ann: there is no power 'Spain'"),
        ({"zed": "England"}, {}, "zed is not a player"),
        ({}, {"ann": ("France", "France")}, "ann: a power is on the list twice"),
    ],
)
def test_seats_that_cannot_be_are_refused(fixed, preferences, why):
    with pytest.raises(GameError, match=why):
        assign(POWERS, NAMES, fixed, preferences, 0)


def test_power_names_as_players_write_them():
    assert [read_power(POWERS, w) for w in ("eng", "FRA", "Ger", "italy", "Aus", "rus")] == [
        "England", "France", "Germany", "Italy", "Austria", "Russia"
    ]  # fmt: skip
    assert read_power(POWERS, "Turk") == "Turkey"
    assert read_power(POWERS, "Fr") is None and read_power(POWERS, "Spain") is None


def test_the_game_starts_with_the_seats_and_wishes():
    empire = GAMES["empire"]
    board = empire.load_map("standard")
    assert empire.read_seat(board, "eng") == "England"
    state = empire.start_seated(
        board, NAMES[:5], {}, 5, {"ann": "Russia"}, {"bob": ("Turkey", "Austria")}
    )
    assert empire.seat(state, "ann") == "Russia" and empire.seat(state, "bob") == "Turkey"
    assert empire.start(board, NAMES, {}, 5) == empire.start_seated(board, NAMES, {}, 5, {}, {})
    with pytest.raises(GameError):
        GAMES["officewars"].start_seated(None, NAMES[:3], {}, 0, {"ann": "red"}, {})
