"""Strategic Initiative's diplomacy and the end of the game: directed
relations, notice, the other side lowered, the side effects of war and
alliance, allied teams and the winner. Each case quotes the rule sentence
(strategic-initiative.html, sections 15 and 16) or the ruling (RULINGS.md)
it checks."""

from __future__ import annotations

from fractions import Fraction

import pytest

from adjudicator.base import Rng
from adjudicator.strategic.diplomacy import (
    DeclareRefused,
    announced,
    declare,
    due,
    hostile,
    may_attack,
    teams,
    war_at_once,
)
from adjudicator.strategic.ending import end
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.rules import GAME_TICKS, LEVELS
from adjudicator.strategic.state import Board, City, Nation, State, relation

GRID = Grid(8, 8)


def make(*names: str, tick: int = 10) -> State:
    nations = {n: Nation(name=n, colour=n, command=512, tech=Fraction(0)) for n in names}
    return State(Board(GRID, frozenset(range(GRID.size))), nations, {}, {}, tick=tick)


def levels(state: State, a: str, b: str) -> tuple[str, str]:
    """The levels in effect both ways."""
    return relation(state, a, b), relation(state, b, a)


def say(state: State, a: str, b: str, level: str) -> list:
    events: list = []
    assert declare(state, a, b, level, events) is None
    return events


def mutual(state: State, a: str, b: str, level: str) -> None:
    say(state, a, b, level)
    say(state, b, a, level)
    assert levels(state, a, b) == (level, level)


def wait(state: State, ticks: int) -> list:
    """Step 5 of each of the next ``ticks`` ticks."""
    events: list = []
    for _ in range(ticks):
        state.tick += 1
        due(state, events)
    return events


def test_relations_start_neutral_and_are_directed():
    """RULINGS.md: "relations are directed (what A declares toward B) and
    start Neutral.\""""
    state = make("a", "b")
    assert levels(state, "a", "b") == ("neutral", "neutral")
    say(state, "a", "b", "war")
    assert relation(state, "a", "b") == "war" and announced(state, "b", "a") == "war"


def test_an_upgrade_above_neutral_counts_only_while_both_declare_it():
    """RULINGS.md: "An upgrade above Neutral counts only while both sides
    declare it." The change is an event both nations see."""
    state = make("a", "b")
    events = say(state, "a", "b", "friendly")
    assert levels(state, "a", "b") == ("neutral", "neutral")
    assert [e.kind for e in events] == ["declared"] and events[0].visible_to == {"a", "b"}
    events = say(state, "b", "a", "friendly")
    assert levels(state, "a", "b") == ("friendly", "friendly")
    changes = [e for e in events if e.kind == "relation"]
    assert len(changes) == 2 and all(e.visible_to == {"a", "b"} for e in changes)
    say(state, "a", "b", "allied")
    assert levels(state, "a", "b") == ("friendly", "friendly")  # b declared only friendly
    say(state, "b", "a", "allied")
    assert levels(state, "a", "b") == ("allied", "allied")


def test_war_is_immediate_and_the_other_side_lowered_at_once():
    """RULINGS.md: "Downgrading is immediate, except Friendly to Neutral or
    War ...; the other side is lowered at once to at most the new level."
    Section 15: "their relations towards you will also automatically
    downgrade so that their relation towards you is at least as low"."""
    state = make("a", "b")
    say(state, "a", "b", "war")
    assert levels(state, "a", "b") == ("war", "war")
    assert announced(state, "b", "a") == "war"


def test_war_to_neutral_is_one_sided():
    """An upgrade to Neutral is the declarer's alone: the other side stays
    at war until it declares otherwise (only above Neutral must both)."""
    state = make("a", "b")
    say(state, "a", "b", "war")
    say(state, "a", "b", "neutral")
    assert levels(state, "a", "b") == ("neutral", "war")


def test_friendly_to_neutral_takes_96_ticks():
    """Section 15: Friendly "May be cancelled with 24 hours notice";
    RULINGS.md: "Friendly to Neutral or War ... takes effect 96 ticks
    after it is declared"; the other side is lowered when it takes effect."""
    state = make("a", "b", tick=10)
    mutual(state, "a", "b", "friendly")
    events = say(state, "a", "b", "neutral")
    assert events[0].facts == {"nation": "a", "toward": "b", "level": "neutral", "due": 106}
    assert events[0].visible_to == {"a", "b"}
    wait(state, 95)
    assert levels(state, "a", "b") == ("friendly", "friendly")
    events = wait(state, 1)
    assert state.tick == 106 and levels(state, "a", "b") == ("neutral", "neutral")
    assert {(e.facts["nation"], e.facts["level"]) for e in events} == {
        ("a", "neutral"), ("b", "neutral")}  # fmt: skip


def test_friendly_to_war_takes_96_ticks_then_both_at_war():
    state = make("a", "b")
    mutual(state, "a", "b", "friendly")
    say(state, "a", "b", "war")
    assert not may_attack(state, "a", "b")
    wait(state, 96)
    assert levels(state, "a", "b") == ("war", "war")
    assert may_attack(state, "a", "b") and may_attack(state, "b", "a")


def test_allied_to_neutral_drops_to_friendly_at_once():
    """RULINGS.md: "Allied to Neutral or War drops to Friendly at once and
    reaches the declared level 96 ticks later." Section 15: Allied "May be
    degraded to Friendly without notice.\""""
    state = make("a", "b")
    mutual(state, "a", "b", "allied")
    say(state, "a", "b", "war")
    assert levels(state, "a", "b") == ("friendly", "friendly")
    wait(state, 96)
    assert levels(state, "a", "b") == ("war", "war")
    state2 = make("a", "b")
    mutual(state2, "a", "b", "allied")
    say(state2, "a", "b", "friendly")
    assert levels(state2, "a", "b") == ("friendly", "friendly") and not state2.nations["a"].pending


def test_a_downgrade_matching_the_other_side_takes_effect_at_once():
    """Section 15: "You can always downgrade your relations towards an
    opponent to match their relation towards you without notice."
    RULINGS.md: "A downgrade that only matches the other side's relation
    toward you takes effect at once." b gave notice of Neutral; a answers
    Neutral: both Neutral now, b's notice overtaken."""
    state = make("a", "b")
    mutual(state, "a", "b", "friendly")
    say(state, "b", "a", "neutral")
    say(state, "a", "b", "neutral")
    assert levels(state, "a", "b") == ("neutral", "neutral")
    assert not state.nations["a"].pending and not state.nations["b"].pending
    assert wait(state, 100) == []


def test_answering_a_notice_of_war_with_war_is_at_once():
    state = make("a", "b")
    mutual(state, "a", "b", "friendly")
    say(state, "b", "a", "war")
    say(state, "a", "b", "war")
    assert levels(state, "a", "b") == ("war", "war")


def test_a_downgrade_below_the_other_sides_level_still_needs_notice():
    """b gave notice of Neutral; a's War goes lower than that: notice."""
    state = make("a", "b")
    mutual(state, "a", "b", "friendly")
    say(state, "b", "a", "neutral")
    say(state, "a", "b", "war")
    assert levels(state, "a", "b") == ("friendly", "friendly")
    wait(state, 96)
    assert levels(state, "a", "b") == ("war", "war")


def test_unreturned_friendship_is_withdrawn_at_once():
    """Only a Friendly relation in effect needs notice: a declared Friendly
    but b never did, so a's War is at once."""
    state = make("a", "b")
    say(state, "a", "b", "friendly")
    say(state, "a", "b", "war")
    assert levels(state, "a", "b") == ("war", "war")


def test_a_new_declaration_replaces_a_pending_one():
    """Declaring Friendly again during the notice withdraws it."""
    state = make("a", "b")
    mutual(state, "a", "b", "friendly")
    say(state, "a", "b", "neutral")
    events = say(state, "a", "b", "friendly")
    assert events[0].kind == "declared" and not state.nations["a"].pending
    wait(state, 200)
    assert levels(state, "a", "b") == ("friendly", "friendly")


def test_a_notice_overtaken_can_be_declared_again_to_take_effect_at_once():
    """a gave notice of War; b then went Neutral at once (matching), so a's
    War no longer needs notice: declaring it again makes it immediate,
    while declaring it again during the notice is refused with its due."""
    state = make("a", "b", tick=10)
    mutual(state, "a", "b", "friendly")
    say(state, "a", "b", "war")
    r = declare(state, "a", "b", "war", [])
    assert r is not None and r.reason is DeclareRefused.ALREADY and r.facts["due"] == 106
    say(state, "b", "a", "neutral")
    assert levels(state, "a", "b") == ("neutral", "neutral") and state.nations["a"].pending
    say(state, "a", "b", "war")
    assert levels(state, "a", "b") == ("war", "war") and not state.nations["a"].pending


def test_war_ends_friendly_relations_with_the_enemys_allies():
    """Section 15: "when you declare war against another player, if you had
    friendly relations with their ally, those relations will immediately
    go to neutral." b and c are allied; a is friendly with c."""
    state = make("a", "b", "c")
    mutual(state, "b", "c", "allied")
    mutual(state, "a", "c", "friendly")
    say(state, "a", "b", "war")
    assert levels(state, "a", "c") == ("neutral", "neutral")
    assert levels(state, "b", "c") == ("allied", "allied")


def test_the_side_effect_happens_when_the_war_takes_effect():
    """RULINGS.md: "The text's side effects of a declaration ... happen at
    once when the declared level takes effect": a war given with notice
    ends the friendship 96 ticks later, not before."""
    state = make("a", "b", "c")
    mutual(state, "b", "c", "allied")
    mutual(state, "a", "c", "friendly")
    mutual(state, "a", "b", "friendly")
    say(state, "a", "b", "war")
    assert levels(state, "a", "c") == ("friendly", "friendly")
    wait(state, 96)
    assert levels(state, "a", "c") == ("neutral", "neutral")


def test_alliance_ends_friendly_relations_with_those_the_ally_fights():
    """Section 15: "if you declare an alliance with another player, you will
    immediately lose friendly relations with all the nations he is at war
    with." b is at war with c; a is friendly with c; a and b ally."""
    state = make("a", "b", "c")
    say(state, "b", "c", "war")
    mutual(state, "a", "c", "friendly")
    say(state, "a", "b", "allied")
    assert levels(state, "a", "c") == ("friendly", "friendly")  # not yet in effect
    say(state, "b", "a", "allied")
    assert levels(state, "a", "c") == ("neutral", "neutral")


def test_ending_a_friendship_is_an_event_to_both():
    state = make("a", "b", "c")
    mutual(state, "b", "c", "allied")
    mutual(state, "a", "c", "friendly")
    events = say(state, "a", "b", "war")
    ended = [e for e in events if e.kind == "relation" and e.facts["level"] == "neutral"]
    assert {e.facts["nation"] for e in ended} == {"a", "c"}
    assert all(e.visible_to == {"a", "c"} for e in ended)


def test_war_at_once_needs_no_notice():
    """Section 15: "If you devastate a player's city with an icbm, you will
    immediately go to War with that player. This is even the case if you
    were Friendly or Allied" (part 2 calls this)."""
    state = make("a", "b")
    mutual(state, "a", "b", "allied")
    war_at_once(state, "a", "b", [])
    assert levels(state, "a", "b") == ("war", "war")


def test_refusals():
    state = make("a", "b")
    events: list = []
    r = declare(state, "a", "zed", "war", events)
    assert r is not None and r.reason is DeclareRefused.NO_SUCH_NATION
    r = declare(state, "a", "a", "war", events)
    assert r is not None and r.reason is DeclareRefused.YOURSELF
    r = declare(state, "a", "b", "hostile", events)
    assert r is not None and r.reason is DeclareRefused.NO_SUCH_LEVEL
    assert r.facts["levels"] == list(LEVELS)
    r = declare(state, "a", "b", "neutral", events)
    assert r is not None and r.reason is DeclareRefused.ALREADY
    assert events == []


def test_only_war_allows_attack_and_neutral_cities_may_be_taken():
    """Section 15: "War. You may only attack cities and units belonging to
    nations you are at war with." Section 5: neutral cities may be
    captured. Interception and interdiction: any nation not Friendly or
    Allied."""
    state = make("a", "b")
    assert not may_attack(state, "a", "b") and may_attack(state, "a", None)
    assert hostile(state, "a", "b")
    mutual(state, "a", "b", "friendly")
    assert not hostile(state, "a", "b")


def test_teams_are_transitive():
    """RULINGS.md: "Allied teams are transitive: A allied with B and B with
    C puts all three in one team.\""""
    state = make("a", "b", "c", "d", "e")
    mutual(state, "a", "b", "allied")
    mutual(state, "b", "c", "allied")
    mutual(state, "d", "e", "friendly")
    assert teams(state) == [frozenset("abc"), frozenset("d"), frozenset("e")]


def test_random_declarations_keep_the_levels_consistent():
    """Over random declarations and waits (seeded, bounded): above Neutral
    a level in effect is the same both ways; nobody's level in effect is
    above what it holds; a pending downgrade is always below what its
    nation holds."""
    rng = Rng(15)
    names = ["a", "b", "c"]
    words = ["friendly", "allied", "friendly", "allied", "neutral", "war"]  # upgrades often
    for _ in range(40):
        state = make(*names)
        for _ in range(40):
            a, b = rng.choice(names), rng.choice(names)
            if a != b:
                declare(state, a, b, rng.choice(words), [])
            wait(state, rng.choice([0, 0, 1, 50, 96]))
            _consistent(state, names)


def _consistent(state: State, names: list[str]) -> None:
    rank = {level: i for i, level in enumerate(LEVELS)}
    for a in names:
        for b in names:
            if a == b:
                continue
            mine, theirs = relation(state, a, b), relation(state, b, a)
            if rank[mine] > 1 or rank[theirs] > 1:
                assert mine == theirs, (a, b, mine, theirs)
            assert rank[mine] <= rank[state.nations[a].declared.get(b, "neutral")]
        for p in state.nations[a].pending:
            assert rank[p.level] < rank[state.nations[a].declared.get(p.toward, "neutral")]


# --------------------------------------------------------------------------
# The end


def with_cities(state: State, owners: list[str | None]) -> State:
    for i, owner in enumerate(owners):
        state.cities[i] = City(f"c{i}", i, owner, "fort", None)
    return state


def test_the_team_with_the_most_cities_wins():
    """Section 16: "the winning team is the team of allies whose combined
    number of cities is higher than all the other teams. Both players on
    the winning team score 1 win." a and b (2 + 2) beat c (3)."""
    state = with_cities(make("a", "b", "c", tick=960), ["a", "a", "b", "b", "c", "c", "c", None])
    mutual(state, "a", "b", "allied")
    events: list = []
    outcome = end(state, events)
    assert outcome is not None and state.outcome == outcome
    assert outcome.reason == "most_cities" and outcome.winners == ("a", "b")
    assert outcome.scores == {"a": 2, "b": 2, "c": 3}
    (e,) = events
    assert e.kind == "game_over" and e.visible_to == {"a", "b", "c"}
    assert e.facts["teams"] == [{"members": ["a", "b"], "cities": 4},
                                {"members": ["c"], "cities": 3}]  # fmt: skip


def test_a_tie_is_a_draw_and_nobody_wins():
    """RULINGS.md: "If two or more teams tie, nobody wins and the game is a
    draw among them.\""""
    state = with_cities(make("a", "b", "c", tick=960), ["a", "a", "b", "b", "c"])
    events: list = []
    outcome = end(state, events)
    assert outcome is not None and outcome.reason == "draw" and outcome.winners == ()
    assert events[0].facts["drawn"] == ["a", "b"]


def test_the_game_ends_after_its_length():
    """RULINGS.md: "End: after 960 ticks by default (games.yaml may set
    another length).\""""
    state = with_cities(make("a", "b", tick=959), ["a"])
    assert state.length == GAME_TICKS == 960
    assert end(state, []) is None and state.outcome is None
    state.tick = 960
    assert end(state, []) is not None
    short = with_cities(make("a", "b", tick=100), ["b"])
    short.length = 100
    outcome = end(short, [])
    assert outcome is not None and outcome.winners == ("b",)


def test_an_ended_game_ends_once():
    state = with_cities(make("a", "b", tick=960), ["a"])
    events: list = []
    first = end(state, events)
    state.tick += 1
    assert end(state, events) is first and len(events) == 1


@pytest.mark.parametrize("reason", list(DeclareRefused))
def test_refusal_codes_are_stable_words(reason):
    assert reason.value == reason.value.lower() and " " not in reason.value
