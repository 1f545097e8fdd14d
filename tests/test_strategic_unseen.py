"""Orders aimed at squares out of sight (a ruling, docs/rules/strategic.md):
an order is refused for what stands at its target only if the nation sees
the target; out of sight, the units set off and find out when they get
there. So no result tells a player what is in a square they cannot see."""

from __future__ import annotations

from fractions import Fraction

from adjudicator.base import Rng
from adjudicator.strategic import intercept, sight
from adjudicator.strategic.board import generate, new_unit, start
from adjudicator.strategic.combat import attack
from adjudicator.strategic.movement import move
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.standing import run_standing
from tests.si_war_boards import position, relate, sq, unit

FIELD = ["##########", "##########", "##########"]


def go(state, ids, where):
    events: list = []
    reason, facts = move(state, "red", ids, sq(state, where), 1, 1, events)
    return reason, facts, events


def hit(state, ids, where):
    events: list = []
    reason, facts = attack(state, "red", ids, sq(state, where), Rng(1), 1, 1, events)
    return reason, facts, events


def test_a_move_toward_a_hidden_enemy_sets_off_and_finds_out_there():
    state = position(FIELD)
    inf = unit(state, "red", "infantry", "A2", mobility=2)  # it sees 1 square around it
    unit(state, "blue", "tank", "E2")
    reason, facts, _ = go(state, [inf.id], "E2")
    assert reason == Reason.STANDING and "nations" not in facts
    grid = state.grid
    assert grid.distance(inf.square, sq(state, "E2")) == 3  # out of supply: 2 mobility a square
    inf.mobility = 4
    events: list = []
    run_standing(state, Rng(1), events)
    dropped = next(e for e in events if e.kind == Happened.STANDING_DROPPED)
    assert dropped.facts["why"] == "occupied"
    assert grid.distance(inf.square, sq(state, "E2")) == 1  # it went to look


def test_a_move_onto_a_seen_enemy_is_refused_at_once_with_its_nation():
    state = position(FIELD)
    inf = unit(state, "red", "infantry", "D2")
    unit(state, "blue", "tank", "E2")
    reason, facts, _ = go(state, [inf.id], "E2")
    assert reason == Reason.OCCUPIED and facts["nations"] == ["blue"]


def test_an_attack_out_of_sight_names_nobody_until_the_units_look():
    """Not at war with what stands there: seen, refused naming the nation;
    out of sight, the units close in, and only then are they told."""
    state = position(FIELD)
    near = unit(state, "red", "infantry", "D2")
    unit(state, "blue", "tank", "F2")
    far = unit(state, "red", "infantry", "A1", mobility=2)
    reason, facts, _ = hit(state, [near.id], "E2")  # seen and empty
    assert reason == Reason.NOTHING_TO_ATTACK
    reason, facts, _ = hit(state, [far.id], "F2")
    assert reason == Reason.STANDING and "nations" not in facts
    assert state.standing and far.square == sq(state, "B1")
    # once next to it, the standing attack sees a nation it is not at war with
    far.mobility = 6
    events: list = []
    run_standing(state, Rng(1), events)
    dropped = next(e for e in events if e.kind == Happened.STANDING_DROPPED)
    assert dropped.facts["why"] == "nothing_to_attack" and state.standing == []
    assert far.square == sq(state, "E1")


def test_an_attack_out_of_sight_on_an_enemy_closes_in_and_strikes_the_same_tick():
    """ "all selected units will move adjacent to the target and attack it"."""
    state = position(FIELD)
    relate(state, "red", "blue", "war")
    relate(state, "blue", "red", "war")
    inf = unit(state, "red", "infantry", "A2", mobility=12)
    unit(state, "blue", "infantry", "E2", ammo=0)
    reason, facts, _ = hit(state, [inf.id], "E2")
    assert reason in (Reason.ATTACKED, Reason.DESTROYED) and facts["attacks"] == 1


def test_sees_square_is_what_the_view_sees():
    """The one-square test agrees with the whole sight, on real boards after
    the start, for every nation and a spread of squares (bounded)."""
    for seed in (1, 2):
        board, cities = generate(4, seed, 48, 48)
        state = start(board, cities, ["ann", "bob", "cid", "dee"], seed, {})
        relate(state, "bob", "ann", "friendly")  # bob shares his sight with ann
        _sees_as_the_view_does(state, Places(state), Rng(seed))


def test_sees_square_through_the_interception_index_is_what_the_view_sees():
    """Once a move has made the interception index, sees_square asks it
    (intercept.spotted: the squares within 3, then the units and cities
    that see farther); the answer is the whole sight's, radars of a higher
    technology and far-seeing units included, shared sight too."""
    for seed in (1, 2):
        board, cities = generate(4, seed, 48, 48)
        state = start(board, cities, ["ann", "bob", "cid", "dee"], seed, {})
        relate(state, "bob", "ann", "friendly")
        state.nations["cid"].tech = Fraction(12)  # its tech centres see 6
        rng = Rng(seed)
        sea = sorted(set(range(state.grid.size)) - state.board.land)
        for owner in ("bob", "cid", "dee"):  # radar at sea; a zeppelin sees 3
            new_unit(state, owner, "carrier", rng.choice(sea))
            new_unit(state, owner, "zeppelin", rng.below(state.grid.size))
        places = Places(state)
        intercept.watchers(state, places)  # as the first move of a tick makes it
        _sees_as_the_view_does(state, places, rng)


def _sees_as_the_view_does(state, places, rng) -> None:
    """sight.sees_square for every nation, at 300 random squares and every
    city's, is what the nation's whole sight (all_visible) says."""
    seen = sight.all_visible(state)
    squares = [rng.below(state.grid.size) for _ in range(300)]
    squares += [c.square for c in state.cities.values()]
    for nation in sorted(state.nations):
        for square in squares:
            expected = square in seen[nation]
            assert sight.sees_square(state, nation, square, places) == expected
