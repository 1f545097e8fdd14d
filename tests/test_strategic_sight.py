"""Strategic Initiative's fog of war: what each nation sees, what it
remembers, and that a view holds nothing else (rules, sections 1, 7 and 15;
RULINGS.md). Each case quotes the sentence or ruling it checks."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from adjudicator.base import Rng
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.rules import MEMORY_TICKS, SUB_MEMORY_TICKS, tables
from adjudicator.strategic.sight import (
    Survey,
    all_visible,
    base_radius,
    describe,
    disc,
    radar_radius,
    remember,
    reveal,
    view,
    views,
    visible,
    witnesses,
    witnesses_of,
)
from adjudicator.strategic.state import Board, City, Nation, Satellite, Sighting, State, Unit

GRID = Grid(20, 20)
SQ = GRID.parse


def unit(uid: str, owner: str, kind: str, at: str, **more) -> Unit:
    u = tables().unit(kind)
    return Unit(uid, owner, kind, SQ(at), u.hp, u.ammo, u.mobility, **more)


def city(name: str, at: str, owner: str | None, designation: str) -> City:
    return City(name, SQ(at), owner, designation, None)


def position(units=(), cities=(), tech=0, grid=GRID, nations=("red", "blue", "green")) -> State:
    """Water everywhere but the cities' squares: sight does not care."""
    people = {n: Nation(n, f"c-{n}", 100, Fraction(tech)) for n in nations}
    towns = {c.square: c for c in cities}
    return State(Board(grid, frozenset(towns)), people, towns, {u.id: u for u in units}, tick=1)


def relate(state: State, a: str, b: str, level: str, both: bool = True) -> None:
    """The level in effect from ``a`` toward ``b`` (and back)."""
    state.nations[a].relations[b] = state.nations[a].declared[b] = level
    if both:
        state.nations[b].relations[a] = state.nations[b].declared[a] = level


def around(at: str, r: int, grid: Grid = GRID) -> frozenset[int]:
    return frozenset(grid.within(grid.parse(at), r))


# --------------------------------------------------------------------------
# Sight ranges

NUMERIC = sorted(k for k, u in tables().units.items() if u.part == 1 and isinstance(u.sight, int))


@pytest.mark.parametrize("kind", NUMERIC)
def test_every_unit_sees_its_table_range(kind):
    """Section 7: "Normally all units can see within the sight range
    indicated in the table above" (within N squares: Chebyshev, RULINGS.md)."""
    state = position([unit("u1", "red", kind, "J10")])
    r = tables().unit(kind).sight
    assert visible(state, "red") == around("J10", r)
    assert SQ("J10") + r + 1 not in visible(state, "red")


def test_a_carrier_sees_the_radar_radius():
    """RULINGS.md: "The carrier's sight "*" is that radar radius" (2 +
    floor(tech / 3))."""
    state = position([unit("cv1", "red", "carrier", "J10")], tech=7)
    assert visible(state, "red") == around("J10", 4)


@pytest.mark.parametrize("designation", ["fort", "port", "airport"])
def test_most_cities_see_one_square(designation):
    """Section 7: "Most cities have a sight range of 1." RULINGS.md: "Other
    cities see 1." """
    state = position(cities=[city("Ayr", "E5", "red", designation)], tech=16)
    assert visible(state, "red") == around("E5", 1)


@pytest.mark.parametrize(
    ("tech", "radius"),
    [(0, 2), (Fraction(299, 100), 2), (3, 3), (Fraction(17, 2), 4), (9, 5), (16, 7)],
)
def test_tech_centre_radar_grows_with_technology(tech, radius):
    """Section 1: tech centres "see all sectors and units within a radius
    equal to 2 plus the nation's technology level divided by 3"; RULINGS.md:
    "2 + floor(tech / 3) (section 7's "half" is overridden)"."""
    assert radar_radius(Fraction(tech)) == radius
    state = position(cities=[city("Ayr", "J10", "red", "tech")], tech=tech)
    assert visible(state, "red") == around("J10", radius)


@pytest.mark.parametrize(("tech", "radius"), [(0, 1), (Fraction(59, 10), 1), (6, 2), (16, 5)])
def test_a_base_sees_a_third_of_the_technology_at_least_one(tech, radius):
    """RULINGS.md: "A Base sees floor(tech / 3), at least 1" (section 1:
    "radar visibility with a distance equal to your tech level / 3")."""
    assert base_radius(Fraction(tech)) == radius
    state = position(cities=[city("Ayr", "J10", "red", "base")], tech=tech)
    assert visible(state, "red") == around("J10", radius)


def test_radar_follows_the_owners_technology():
    """The radar radius is "the nation's" technology: each nation's own."""
    state = position(cities=[city("Ayr", "C3", "red", "tech"), city("Bly", "M13", "blue", "tech")])
    state.nations["blue"].tech = Fraction(6)
    assert visible(state, "red") == around("C3", 2)
    assert visible(state, "blue") == around("M13", 4)


def test_a_neutral_city_sees_for_nobody():
    """Sight is of a nation's units and cities: a neutral city is nobody's."""
    state = position(cities=[city("Ayr", "C3", None, "tech")])
    assert all(not squares for squares in all_visible(state).values())


def test_sight_wraps_round_the_edges():
    """RULINGS.md: "a square grid that wraps on both edges"."""
    state = position([unit("pb1", "red", "patrol_boat", "A1")])
    seen = visible(state, "red")
    assert {SQ("T20"), SQ("S19"), SQ("B2"), SQ("C1"), SQ("A19")} <= seen
    assert SQ("D1") not in seen and len(seen) == 25


def test_a_carried_unit_sees_nothing_of_its_own():
    """Part 1 ruling: a carried unit (carried_by set) has no sight of its
    own; its carrier sees for it."""
    carried = unit("bb1", "red", "battleship", "J10", carried_by="tr9")
    assert visible(position([carried]), "red") == frozenset()


def test_disc_is_the_grids_within_on_small_and_odd_boards():
    """The fast disc is exactly Grid.within, wrapping on boards smaller than
    the sight (every square of several small boards, radius 0 to 7)."""
    for grid in (Grid(1, 4), Grid(3, 3), Grid(5, 7), Grid(12, 5), Grid(10, 10)):
        for square in range(grid.size):
            for r in range(8):
                assert disc(grid, square, r) == set(grid.within(square, r))


# --------------------------------------------------------------------------
# Friendly and allied nations share what they see


@pytest.mark.parametrize("level", ["friendly", "allied"])
def test_friends_and_allies_share_their_sight(level):
    """Section 15, Friendly: "If a nation friendly to you sees an enemy unit,
    you will see it as well"; Allied: "Allies automatically share maps and
    lines of sight". RULINGS.md: "plus what Friendly and Allied nations see"."""
    state = position(
        [unit("pb1", "blue", "patrol_boat", "J10"), unit("inf1", "green", "infantry", "K11")]
    )
    relate(state, "red", "blue", level)
    seen = all_visible(state)
    assert seen["red"] == around("J10", 2)
    assert "inf1" in {e["id"] for e in view(state, "red", seen).board["units"]}


@pytest.mark.parametrize("level", ["neutral", "war"])
def test_neutral_and_hostile_nations_share_nothing(level):
    """Only "a nation friendly to you" (or allied) shares its sight."""
    state = position([unit("pb1", "blue", "patrol_boat", "J10")])
    relate(state, "red", "blue", level)
    assert visible(state, "red") == frozenset()


def test_sharing_follows_the_sharers_relation_toward_you():
    """Ruling: "a nation friendly to you" is one whose relation in effect
    toward you is Friendly or Allied (while a downgrade waits out its notice,
    the two directions can differ)."""
    state = position(
        [unit("pb1", "blue", "patrol_boat", "J10"), unit("pb2", "red", "patrol_boat", "A1")]
    )
    relate(state, "blue", "red", "friendly", both=False)
    seen = all_visible(state)
    assert seen["red"] == around("J10", 2) | around("A1", 2)
    assert seen["blue"] == around("J10", 2)


def test_sharing_is_one_step_not_a_chain():
    """Ruling: a nation shares what its own units and cities see, not what
    its friends show it (else two nations at war would see each other's
    squares through a common friend)."""
    state = position(
        [unit("pb1", "red", "patrol_boat", "A1"), unit("pb2", "green", "patrol_boat", "J10")]
    )
    relate(state, "red", "blue", "allied")
    relate(state, "blue", "green", "allied")
    relate(state, "red", "green", "war")
    seen = all_visible(state)
    assert seen["blue"] == around("A1", 2) | around("J10", 2)
    assert seen["red"] == around("A1", 2) and seen["green"] == around("J10", 2)


def test_witnesses_are_the_nations_that_see_the_square():
    """Every event carries who may see it: those who see its square."""
    state = position(
        [unit("pb1", "blue", "patrol_boat", "J10"), unit("inf1", "green", "infantry", "C3")]
    )
    relate(state, "red", "blue", "friendly")
    seen = all_visible(state)
    assert witnesses(seen, SQ("K11")) == {"red", "blue"}
    assert witnesses(seen, SQ("C3")) == {"green"}
    assert witnesses(seen, SQ("T20")) == frozenset()
    assert witnesses_of(seen, [SQ("C3"), SQ("L12")]) == {"red", "blue", "green"}


# --------------------------------------------------------------------------
# Memory


def tick(state: State, n: int, destroyed=None) -> dict[str, frozenset[int]]:
    """The end of tick ``n``: look and remember."""
    state.tick = n
    seen = all_visible(state)
    remember(state, seen, destroyed)
    return seen


def remembered(state: State, nation: str) -> dict[str, dict]:
    return {e["id"]: e for e in view(state, nation).board["units"] if e["status"] == "remembered"}


def watched() -> State:
    """Red's destroyer at J10 sees K11, where blue's infantry stands."""
    return position(
        [unit("dd1", "red", "destroyer", "J10"), unit("inf1", "blue", "infantry", "K11")]
    )


def test_a_unit_seen_is_remembered_where_and_as_it_was_seen():
    """Section 7: "Once a unit has been seen, it will remain visible for 24
    hours"; RULINGS.md: "shown where and as it was last seen"."""
    state = watched()
    tick(state, 5)
    state.units["inf1"].square, state.units["inf1"].hp = SQ("P15"), 2
    state.units["dd1"].square = SQ("A1")  # both out of each other's sight
    tick(state, 6)
    assert state.nations["red"].memory == {
        "inf1": Sighting("inf1", "blue", "infantry", SQ("K11"), 5, 5)
    }
    shown = remembered(state, "red")["inf1"]
    assert (shown["at"], shown["hp"], shown["tick"]) == ("K11", 5, 5)
    assert "ammo" not in shown and "mobility" not in shown
    assert "inf1 blue infantry at K11, HP 5 (last seen tick 5)" in describe(view(state, "red"))


def test_memory_lasts_96_ticks():
    """RULINGS.md: "until 96 ticks after that" (a unit last seen in tick t
    is shown until tick t + 95 and gone at tick t + 96)."""
    state = watched()
    tick(state, 5)
    state.units["dd1"].square = SQ("A1")  # red looks away
    tick(state, 5 + MEMORY_TICKS - 1)
    assert "inf1" in remembered(state, "red")
    tick(state, 5 + MEMORY_TICKS)
    assert state.nations["red"].memory == {} and remembered(state, "red") == {}


def test_a_submarine_is_remembered_32_ticks():
    """Section 7: "except for subs which only remain visible for 8 hours";
    RULINGS.md: "(subs: 32)"."""
    state = position(
        [unit("dd1", "red", "destroyer", "J10"), unit("sub1", "blue", "submarine", "K11")]
    )
    tick(state, 5)
    state.units["dd1"].square = SQ("A1")
    tick(state, 5 + SUB_MEMORY_TICKS - 1)
    assert "sub1" in remembered(state, "red")
    tick(state, 5 + SUB_MEMORY_TICKS)
    assert "sub1" not in state.nations["red"].memory


def test_a_square_seen_again_without_the_unit_forgets_it():
    """RULINGS.md: "or until that square is seen again without it"."""
    state = watched()
    tick(state, 5)
    state.units["dd1"].square = SQ("A1")
    tick(state, 6)
    state.units["inf1"].square = SQ("P15")  # moves away, unseen
    tick(state, 7)
    assert "inf1" in remembered(state, "red")  # red does not know it left
    state.units["dd1"].square = SQ("J10")  # red looks again: K11 is empty
    tick(state, 8)
    assert "inf1" not in state.nations["red"].memory


def test_a_unit_seen_again_elsewhere_is_remembered_where_now():
    """Memory is of where the unit was *last* seen."""
    state = watched()
    tick(state, 5)
    state.units["inf1"].square = SQ("H8")
    tick(state, 6)
    assert state.nations["red"].memory["inf1"].square == SQ("H8")
    assert state.nations["red"].memory["inf1"].tick == 6


def test_a_unit_seen_destroyed_is_forgotten():
    """The brief's rule: a unit its nation saw destroyed is forgotten at
    once, even where its last seen square is out of sight now."""
    state = watched()
    tick(state, 5)
    state.units["dd1"].square = SQ("A1")
    state.units["inf1"].square = SQ("B2")  # now beside red's destroyer
    del state.units["inf1"]  # and destroyed there, in red's sight
    tick(state, 6, destroyed={"inf1": frozenset({"red"})})
    assert "inf1" not in state.nations["red"].memory


def test_a_unit_destroyed_before_everyone_is_forgotten_by_all():
    """An event visible to everyone (``visible_to`` None) was seen by all."""
    state = watched()
    tick(state, 5)
    state.units["dd1"].square = SQ("A1")
    del state.units["inf1"]
    tick(state, 6, destroyed={"inf1": None})
    assert "inf1" not in state.nations["red"].memory


def test_a_unit_destroyed_unseen_stays_remembered():
    """Nobody tells a nation of a loss it did not see: the memory stands."""
    state = watched()
    tick(state, 5)
    state.units["dd1"].square = SQ("A1")
    del state.units["inf1"]
    tick(state, 6, destroyed={"inf1": frozenset({"green"})})
    assert "inf1" in remembered(state, "red")


def test_what_a_friend_shows_is_remembered_too():
    """What a nation sees through a friend it has seen: it remembers it."""
    state = position(
        [unit("pb1", "blue", "patrol_boat", "J10"), unit("inf1", "green", "infantry", "K11")]
    )
    relate(state, "red", "blue", "friendly")
    tick(state, 3)
    assert set(state.nations["red"].memory) == {"inf1", "pb1"}  # the friend's own too


def test_a_nation_never_remembers_its_own_units():
    state = watched()
    tick(state, 5)
    assert set(state.nations["red"].memory) == {"inf1"}
    assert set(state.nations["blue"].memory) == {"dd1"}


# --------------------------------------------------------------------------
# Views


def test_a_view_shows_own_units_in_full_and_others_as_seen():
    """Issue 17: "nothing a player cannot see reaches that player": another
    nation's unit shows its kind, owner, square and HP, never its ammo or
    mobility."""
    state = watched()
    seen = all_visible(state)
    units = {e["id"]: e for e in view(state, "red", seen).board["units"]}
    assert units["dd1"]["status"] == "own" and units["dd1"]["ammo"] == 2
    assert units["dd1"]["mobility"] == 8
    assert units["inf1"] == {
        "id": "inf1", "kind": "infantry", "name": "infantry", "owner": "blue",
        "square": SQ("K11"), "at": "K11", "hp": 5, "status": "seen",
    }  # fmt: skip


def test_a_view_holds_nothing_out_of_sight():
    """RULINGS.md: "Every player sees only what their units, cities, radar
    and satellites see ... Reports, receipts and map pictures show each
    player only that"."""
    state = position(
        [unit("dd1", "red", "destroyer", "J10"), unit("tk1", "blue", "tank", "A1")],
        [city("Ayr", "C3", "blue", "fort"), city("Bly", "K12", "blue", "port")],
    )
    state.cities[SQ("C3")].build = "tank"
    board = view(state, "red").board
    assert [e["id"] for e in board["units"]] == ["dd1"]
    assert "tk1" not in repr(board)
    cities = {c["name"]: c for c in board["cities"]}
    assert cities["Ayr"] == {"name": "Ayr", "square": SQ("C3"), "at": "C3", "known": False,
                             "owner": None, "designation": None}  # fmt: skip
    assert cities["Bly"]["owner"] == "blue" and cities["Bly"]["designation"] == "port"
    assert "build" not in cities["Bly"], "another nation's builds are never shown"


def test_a_view_shows_own_cities_with_their_builds():
    state = position(cities=[city("Ayr", "C3", "red", "fort")])
    state.cities[SQ("C3")].build, state.cities[SQ("C3")].progress = "tank", 90
    (entry,) = view(state, "red").board["cities"]
    assert (entry["build"], entry["progress"], entry["known"]) == ("tank", 90, True)


def test_a_view_names_every_nation_with_its_relation_toward_the_viewer():
    """The viewer's own command points, technology and relations in full;
    the others' names and relations toward it."""
    state = position(tech=Fraction(7, 2))
    relate(state, "blue", "red", "war", both=False)
    board = view(state, "red").board
    assert board["nation"]["command"] == 100 and board["nation"]["tech"] == Fraction(7, 2)
    assert board["nation"]["radar"] == 3
    assert board["nation"]["toward_you"] == {"blue": "war", "green": "neutral"}
    assert board["nations"] == [
        {"name": "blue", "colour": "c-blue", "status": "active", "toward_you": "war"},
        {"name": "green", "colour": "c-green", "status": "active", "toward_you": "neutral"},
    ]
    assert "command" not in repr(board["nations"])


def test_standings_hide_the_others_strength():
    """Ruling: another nation's count of cities and units is not shown (the
    game master sees it, and everyone once the game has ended)."""
    state = position([unit("tk1", "blue", "tank", "A1")], [city("Ayr", "C3", "blue", "fort")])
    mine = {s.player: s.measures for s in view(state, "blue").standings}
    theirs = {s.player: s.measures for s in view(state, "red").standings}
    master = {s.player: s.measures for s in view(state, None).standings}
    assert mine["blue"] == master["blue"] == (("cities", 1), ("units", 1))
    assert theirs["blue"] == () and theirs["red"] == (("cities", 0), ("units", 0))


def test_the_game_master_sees_everything():
    state = position(
        [unit("dd1", "red", "destroyer", "J10"), unit("tk1", "blue", "tank", "A1")],
        [city("Ayr", "C3", "blue", "fort")],
    )
    board = view(state, None).board
    assert [e["id"] for e in board["units"]] == ["dd1", "tk1"]
    assert all("ammo" in e for e in board["units"])
    assert board["cities"][0]["owner"] == "blue" and "build" in board["cities"][0]
    assert len(board["seen"]) == GRID.size


def test_views_together_are_the_views_one_by_one():
    state = watched()
    seen = tick(state, 4)
    together = views(state, seen)
    assert set(together) == {"red", "blue", "green"}
    for name, v in together.items():
        assert v == view(state, name, seen)


# --------------------------------------------------------------------------
# A bounded property: over random small games, sight is exactly the
# squares within range of a nation's or its sharers' eyes, and no view
# names a unit its nation neither sees nor remembers.

KINDS = NUMERIC + ["carrier", "submarine", "submarine", "helicopter", "naval_bomber"]
LEVELS = ("war", "neutral", "friendly", "allied")


def random_position(rng: Rng) -> State:
    grid = Grid(4 + rng.below(12), 4 + rng.below(12))
    nations = ("red", "blue", "green", "gold")
    people = {n: Nation(n, n, 9, Fraction(rng.below(17 * 4), 4)) for n in nations}
    for a in nations:
        for b in nations:
            if a < b:
                level = LEVELS[rng.below(4)]
                people[a].relations[b] = level
                people[b].relations[a] = level if rng.below(5) else "neutral"
    cities = {}
    for i in range(rng.below(6)):
        sq = rng.below(grid.size)
        owner = rng.choice([None, *nations])
        cities[sq] = City(f"c{i}", sq, owner, rng.choice(["fort", "port", "tech", "base"]), None)
    units = {}
    for i in range(rng.below(12)):
        kind = rng.choice(KINDS)
        units[f"u{i}"] = Unit(f"u{i}", rng.choice(nations), kind, rng.below(grid.size), 3, 1, 1)
    for uid in sorted(units):  # an ICBM aboard a submarine hides with it
        sub = units[uid]
        if sub.kind == "submarine" and rng.below(2):
            units[f"m{uid}"] = Unit(f"m{uid}", sub.owner, "icbm1", sub.square, 4, 0, 30,
                                    carried_by=uid)  # fmt: skip
    state = State(Board(grid, frozenset(cities)), people, cities, units, tick=1)
    for i in range(rng.below(3)):  # launched satellites: their owner's eyes, seen by nobody
        sat = Satellite(f"sat{i}", rng.choice(nations), "satellite", rng.below(grid.size), 1)
        state.satellites[sat.id] = sat
    return state


def eyes_of(state: State, nation: str) -> list[tuple[int, int]]:
    """(square, radius) of every unit and city of ``nation``, by the table."""
    t = tables()
    tech = state.nations[nation].tech
    radius = {"radar": radar_radius(tech), "base_radar": base_radius(tech)}
    out = [(u.square, radius.get(t.unit(u.kind).sight, t.unit(u.kind).sight))
           for u in state.units.values() if u.owner == nation and u.carried_by is None]  # fmt: skip
    out += [(c.square, radius.get(t.cities[c.designation].sight, t.cities[c.designation].sight))
            for c in state.cities.values() if c.owner == nation]  # fmt: skip
    out += [(s.square, 6) for s in state.satellites.values() if s.owner == nation]
    return out


def sharing(state: State, nation: str) -> list[str]:
    return [nation] + [
        o for o in state.nations
        if o != nation and state.nations[o].relations.get(nation) in ("friendly", "allied")
    ]  # fmt: skip


def hidden_kind(state: State, u: Unit) -> bool:
    """A submarine, or a unit a submarine carries."""
    carrier = state.units.get(u.carried_by) if u.carried_by else None
    return u.kind == "submarine" or (carrier is not None and carrier.kind == "submarine")


def slow_sub_sight(state: State, nation: str) -> frozenset[int]:
    """Where the nation sees submarines, by the table's sees_subs, square
    by square: its and its sharers' units that see them (none carried)."""
    eyes = [(u.square, tables().unit(u.kind).sees_subs) for n in sharing(state, nation)
            for u in state.units.values()
            if u.owner == n and tables().unit(u.kind).sees_subs is not None]  # fmt: skip
    grid = state.grid
    return frozenset(
        q for q in range(grid.size) if any(grid.distance(q, sq) <= r for sq, r in eyes)
    )


def slow_visible(state: State, nation: str) -> frozenset[int]:
    """Sight by its definition, square by square with Grid.distance."""
    eyes = [e for n in sharing(state, nation) for e in eyes_of(state, n)]
    grid = state.grid
    return frozenset(
        q for q in range(grid.size) if any(grid.distance(q, sq) <= r for sq, r in eyes)
    )


def wander(state: State, rng: Rng, seen) -> dict[str, frozenset[str]]:
    """Some units move anywhere, some are destroyed (witnessed by those who
    see their square)."""
    destroyed = {}
    for uid in sorted(state.units):
        if uid not in state.units or state.units[uid].carried_by:
            continue  # carried units go with their carrier
        roll = rng.below(7)
        if roll == 0:
            destroyed[uid] = witnesses(seen, state.units.pop(uid).square)
        elif roll < 3:
            state.units[uid].square = rng.below(state.grid.size)
        elif roll == 3 and state.units[uid].kind == "submarine":  # it attacks, or is bumped into
            reveal(state, state.units[uid], rng.choice(sorted(state.nations)))
    for uid in sorted(state.units):
        carrier = state.units[uid].carried_by
        if carrier and carrier not in state.units:
            destroyed[uid] = witnesses(seen, state.units.pop(uid).square)  # lost with it
        elif carrier:
            state.units[uid].square = state.units[carrier].square
    return destroyed


def check_view(state: State, nation: str, seen: frozenset[int]) -> None:
    v = view(state, nation)
    board = v.board
    texts = (describe(v), repr(board))
    memory = state.nations[nation].memory
    subs_seen = slow_sub_sight(state, nation)
    named = set()
    for e in board["units"]:
        named.add(e["id"])
        if e["status"] == "own":
            assert state.units[e["id"]].owner == nation
        elif e["status"] == "seen":
            u = state.units[e["id"]]
            assert (
                u.square in seen
                and u.owner != nation
                and (e["square"], e["hp"]) == (u.square, u.hp)
            )
            assert not hidden_kind(state, u) or u.square in subs_seen
            assert "ammo" not in e and "mobility" not in e
        else:
            s = memory[e["id"]]
            assert e["square"] == s.square
            assert s.square not in (subs_seen if s.kind == "submarine" else seen)
            assert state.tick - s.tick < (
                SUB_MEMORY_TICKS if s.kind == "submarine" else MEMORY_TICKS
            )
    for u in state.units.values():
        sees = u.square in seen and (not hidden_kind(state, u) or u.square in subs_seen)
        if u.owner != nation and not sees and u.id not in memory:
            assert u.id not in named
            assert not any(re.search(rf"\b{u.id}\b", text) for text in texts)
    for sat in state.satellites.values():
        shown = [e["id"] for e in board["satellites"]]
        assert (sat.id in shown) == (sat.owner == nation)
        if sat.owner != nation:
            assert not any(re.search(rf"\b{sat.id}\b", text) for text in texts)
    for c in board["cities"]:
        assert c["known"] == (c["square"] in seen or state.cities[c["square"]].owner == nation)
        assert ("build" in c) == (state.cities[c["square"]].owner == nation)


def test_random_games_show_each_nation_only_what_it_sees_or_remembers():
    """150 random small games of 5 ticks each (units moving anywhere, some
    destroyed, submarines revealed, ticks 1 to 40 apart so memories age
    out; launched satellites): a submarine is named only where a unit that
    sees submarines reaches it or from memory, a satellite to its owner only."""
    for seed in range(150):
        rng = Rng(seed)
        state = random_position(rng)
        destroyed: dict[str, frozenset[str]] = {}
        for _ in range(5):
            seen = all_visible(state)
            remember(state, seen, destroyed)
            for nation in sorted(state.nations):
                assert seen[nation] == slow_visible(state, nation), (seed, nation)
                assert visible(state, nation) == seen[nation]
                check_view(state, nation, seen[nation])
            destroyed = wander(state, rng, seen)
            state.tick += 1 + rng.below(40)


def test_a_survey_sees_as_the_plain_functions_do():
    """The shared per-tick index answers as a fresh one would."""
    rng = Rng(7)
    state = random_position(rng)
    seen = all_visible(state)
    look = Survey(state)
    for nation in state.nations:
        assert view(state, nation, seen, look) == view(state, nation, seen)


def test_a_view_as_text_says_what_the_view_holds_and_no_more():
    state = position(
        [unit("dd1", "red", "destroyer", "J10"), unit("tk1", "blue", "tank", "A1"),
         unit("inf1", "blue", "infantry", "K11")],
        [city("Ayr", "C3", "blue", "fort"), city("Bly", "K12", "red", "tech")],
    )  # fmt: skip
    state.cities[SQ("K12")].build = "engineer"
    relate(state, "red", "blue", "war")
    text = describe(view(state, "red"))
    assert "dd1 red destroyer at J10, HP 14/14, ammo 2, mobility 8" in text
    assert "In sight:\n  inf1 blue infantry at K11, HP 5\n" in text
    assert "Bly at K12: red tech centre, building engineer (0 min)" in text
    assert "toward blue: war (theirs toward you: war)" in text
    assert "tk1" not in text and "Ayr" not in text
    assert "tk1 blue tank at A1" in describe(view(state, None))
