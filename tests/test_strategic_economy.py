"""Strategic Initiative's economy: command points, technology and its leak,
build progress, mobility, healing, builds and the power limit, and the
BUILD / NEXT BUILD orders. Each case quotes the rule sentence
(strategic-initiative.html) or the ruling (RULINGS.md) it checks."""

from __future__ import annotations

from fractions import Fraction

import pytest

from adjudicator.base import Rng
from adjudicator.strategic import economy
from adjudicator.strategic.economy import BuildRefused, accrue, complete_builds, set_build
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import Board, City, Nation, State, Unit

# A 12 x 12 board: columns A-F land, the rest water (squares in column F
# are coastal, column A is coastal too: the board wraps).
GRID = Grid(12, 12)
LAND = frozenset(sq for sq in range(GRID.size) if GRID.at(sq)[0] < 6)


def sq(name: str) -> int:
    square = GRID.parse(name)
    assert square is not None
    return square


def nation(name: str, tech: Fraction | int = 0, command: int = 512) -> Nation:
    return Nation(name=name, colour=name, command=command, tech=Fraction(tech))


def city(name: str, where: str, owner: str | None, designation: str, build: str | None = None,
         progress: int = 0, next_build: str | None = None) -> City:  # fmt: skip
    return City(name, sq(where), owner, designation, build, next_build, progress)


def unit(uid: str, owner: str, kind: str, where: str, **kw: int) -> Unit:
    ut = tables().unit(kind)
    values = {"hp": ut.hp, "ammo": ut.ammo, "mobility": ut.mobility, "built": 0, **kw}
    return Unit(uid, owner, kind, sq(where), **values)  # type: ignore[arg-type]


def make(nations: list[Nation], cities: list[City] = (), units: list[Unit] = (),
         tick: int = 1) -> State:  # fmt: skip
    return State(
        board=Board(GRID, LAND),
        nations={n.name: n for n in nations},
        cities={c.square: c for c in cities},
        units={u.id: u for u in units},
        tick=tick,
    )


def bases(n: int, owner: str = "red") -> list[City]:
    """``n`` cities in column D that build nothing (for the power limit)."""
    return [city(f"base{i}", f"D{i + 1}", owner, "base") for i in range(n)]


def nowhere_supplied(state: State, u: Unit) -> bool:
    return False


def all_supplied(state: State, u: Unit) -> bool:
    return True


def run_ticks(state: State, ticks: int, in_supply=nowhere_supplied) -> list:
    """Accruals and builds for ``ticks`` ticks, as the tick runs them."""
    events: list = []
    for _ in range(ticks):
        state.tick += 1
        accrue(state, events, in_supply)
        complete_builds(state, events)
    return events


# --------------------------------------------------------------------------
# Command points


def test_command_points_cities_bases_and_capital_ships():
    """RULINGS.md: "Command points each tick: (cities that are not bases) +
    2 x bases + capital ships (battleships and carriers), then at least 2
    and at most 15." 3 forts + 1 base + a battleship + a carrier: 7."""
    cities = [city(f"c{i}", f"B{i + 1}", "red", "fort") for i in range(3)]
    cities.append(city("b", "C1", "red", "base"))
    units = [unit("bb1", "red", "battleship", "H2"), unit("cv2", "red", "carrier", "H4"),
             unit("dd3", "red", "destroyer", "H6")]  # fmt: skip
    state = make([nation("red", command=100)], cities, units)
    accrue(state, [], nowhere_supplied)
    assert state.nations["red"].command == 107


def test_command_points_at_least_2():
    """Section 14: "You will gain a minimum of 2 command points every 15
    minutes": one city alone yields 2."""
    state = make([nation("red", command=0)], [city("a", "B2", "red", "fort")])
    accrue(state, [], nowhere_supplied)
    assert state.nations["red"].command == 2


def test_command_points_at_most_15():
    """Section 14: "... and a maximum of 15 command points every 15
    minutes": 20 cities yield 15."""
    cities = [city(f"c{i}", GRID.name(sq("A1") + i), "red", "fort") for i in range(20)]
    state = make([nation("red", command=0)], cities)
    accrue(state, [], nowhere_supplied)
    assert state.nations["red"].command == 15


def test_command_points_cap_1024():
    """Section 14: "Command points regenerate ... to a maximum of 1024."
    RULINGS.md: "the total never above 1024"."""
    cities = [city(f"c{i}", GRID.name(sq("A1") + i), "red", "fort") for i in range(10)]
    state = make([nation("red", command=1020)], cities)
    accrue(state, [], nowhere_supplied)
    assert state.nations["red"].command == 1024
    accrue(state, [], nowhere_supplied)
    assert state.nations["red"].command == 1024


def test_a_nation_with_nothing_gains_nothing():
    """Our ruling: a nation with no city and no unit is out of the game and
    gains no command points (not even the minimum 2); one unit is enough."""
    state = make([nation("red", command=10), nation("blue", command=10)],
                 units=[unit("inf1", "blue", "infantry", "B2")])  # fmt: skip
    accrue(state, [], nowhere_supplied)
    assert state.nations["red"].command == 10
    assert state.nations["blue"].command == 12


def test_command_points_never_below_0_nor_above_the_cap():
    """Issue 17: "command points never below 0 or above the cap", over
    random holdings and starting totals (seeded, bounded)."""
    rng = Rng(17)
    kinds = ["infantry", "battleship", "carrier", "transport"]
    for _ in range(200):
        n = nation("red", command=rng.below(1200) - 100)
        squares = rng.shuffled(range(GRID.size))[: rng.below(25)]
        designations = ["fort", "port", "tech", "base", "airport"]
        cities = [city(f"c{s}", GRID.name(s), "red", rng.choice(designations)) for s in squares]
        units = [unit(f"u{i}", "red", rng.choice(kinds), "H1") for i in range(rng.below(8))]
        state = make([n], cities, units)
        for _ in range(rng.below(5) + 1):
            accrue(state, [], nowhere_supplied)
            assert 0 <= state.nations["red"].command <= 1024


# --------------------------------------------------------------------------
# Technology


def test_technology_from_one_tech_centre_over_a_day():
    """Section 13: "Each day, that technology level increases according to
    the number of cities ... designated to be Technology Centres" (1: 0.8);
    "technology accrues gradually (calculated every 15 minutes)": exactly
    0.8 after 96 ticks, 0.8 / 96 after one."""
    state = make([nation("red")], [city("t", "B2", "red", "tech")], tick=0)
    run_ticks(state, 1)
    assert state.nations["red"].tech == Fraction(8, 10) / 96
    run_ticks(state, 95)
    assert state.nations["red"].tech == Fraction(8, 10)


def test_a_base_counts_as_a_tech_centre():
    """RULINGS.md: "A base counts as a tech centre for the technology
    table": a tech centre and a base gain 1.2 a day."""
    cities = [city("t", "B2", "red", "tech"), city("b", "B4", "red", "base")]
    state = make([nation("red")], cities, tick=0)
    run_ticks(state, 96)
    assert state.nations["red"].tech == Fraction(12, 10)


def test_more_centres_than_the_table_gain_its_last_value():
    """Section 13's table ends at 14 centres (2.5 a day); more gain 2.5."""
    cities = [city(f"t{i}", GRID.name(sq("A1") + i), "red", "tech") for i in range(20)]
    state = make([nation("red")], cities, tick=0)
    run_ticks(state, 96)
    assert state.nations["red"].tech == Fraction(5, 2)


def allied(a: Nation, b: Nation) -> None:
    a.declared[b.name] = a.relations[b.name] = "allied"
    b.declared[a.name] = b.relations[a.name] = "allied"


def test_the_worked_example_of_the_tech_leak():
    """Section 13: "if my ally's tech is 5 and my tech is 3, then my tech
    leak will be (5 - 3) / 2 = 1 per day": with no tech centres, exactly 1
    more after 96 ticks (the day's leak is fixed at its first tick)."""
    me, ally = nation("me", 3), nation("ally", 5)
    allied(me, ally)
    state = make([me, ally], units=[unit("inf1", "me", "infantry", "B2")], tick=0)
    run_ticks(state, 1)
    assert state.nations["me"].tech == 3 + Fraction(1, 96)
    run_ticks(state, 95)
    assert state.nations["me"].tech == 4
    assert state.nations["ally"].tech == 5  # the leader gains no leak


def test_other_leak_from_the_top_nation():
    """Section 13: "Other Tech Leak = ((top tech) - (my tech)) / 4 per
    day": the leader at 8, me at 0, not allied: 2 in a day."""
    state = make([nation("me", 0), nation("top", 8)], tick=0)
    run_ticks(state, 96)
    assert state.nations["me"].tech == 2


def test_the_leak_is_the_larger_of_the_two():
    """Section 13: "My Tech Leak = Maximum of Ally Tech Leak and Other Tech
    Leak": ally 8, top 10, me 2: the ally leak (8-2)/2 = 3 beats the other
    (10-2)/4 = 2."""
    me, ally = nation("me", 2), nation("ally", 8)
    allied(me, ally)
    state = make([me, ally, nation("top", 10)], tick=0)
    run_ticks(state, 96)
    assert state.nations["me"].tech == 5


def test_a_friend_is_no_ally_for_the_leak():
    """Section 13 names the ally's tech: a Friendly nation leaks only as
    any other (/4)."""
    me, friend = nation("me", 0), nation("friend", 4)
    me.declared["friend"] = me.relations["friend"] = "friendly"
    friend.declared["me"] = friend.relations["me"] = "friendly"
    state = make([me, friend], tick=0)
    run_ticks(state, 96)
    assert state.nations["me"].tech == 1


def test_the_leak_is_never_negative_and_tech_at_most_16():
    """Section 13: "The maximum technology a nation can have is 16"; the
    brief: the leak never negative (the leader loses nothing)."""
    cities = [city(f"t{i}", GRID.name(sq("A1") + i), "top", "tech") for i in range(14)]
    state = make([nation("top", Fraction(159, 10)), nation("low", 1)], cities, tick=0)
    run_ticks(state, 96)
    assert state.nations["top"].tech == 16
    assert state.nations["low"].tech > 1


def test_passing_a_level_is_told_to_the_nation():
    """A nation whose technology passes a whole number is told (new unit
    types may be built): an event only it sees."""
    state = make([nation("red")], [city("t", "B2", "red", "tech")], tick=0)
    events = run_ticks(state, 130)  # 0.8 a day: 1 at tick 120
    tech = [e for e in events if e.kind == "technology"]
    assert len(tech) == 1 and tech[0].facts["tech"] == 1 and tech[0].visible_to == {"red"}


# --------------------------------------------------------------------------
# Builds


def test_build_progress_is_15_minutes_a_tick_and_infantry_takes_8_hours():
    """RULINGS.md: "build progress (15 minutes per tick)"; the table:
    infantry costs 8 hours = 32 ticks (two cities: power limit 10)."""
    cities = [city("f", "B2", "red", "fort", "infantry"), city("g", "B3", "red", "base")]
    state = make([nation("red")], cities, tick=0)
    run_ticks(state, 31)
    assert state.cities[sq("B2")].progress == 31 * 15 and not state.units
    events = run_ticks(state, 1)
    assert [u.kind for u in state.units.values()] == ["infantry"]
    assert state.cities[sq("B2")].progress == 0
    assert [e.kind for e in events] == ["built"]


def test_a_built_unit_appears_full():
    """RULINGS.md: "A unit built appears with full HP, full ammo, full fuel
    and mobility equal to the table's value"; its id is the type's short
    name and the game's build count."""
    c = city("p", "F3", "red", "port", "destroyer", progress=14 * 60)
    state = make([nation("red", 3)], [c, *bases(3)])
    state.counter = 6
    events: list = []
    complete_builds(state, events)
    u = state.units["dd7"]
    assert (u.owner, u.kind, u.square, u.hp, u.ammo, u.mobility, u.built) == (
        "red", "destroyer", sq("F3"), 14, 2, 8, 7)  # fmt: skip
    assert state.counter == 7
    assert events[0].facts == {"city": "p", "unit": "dd7", "kind": "destroyer",
                               "square": "F3", "building": "destroyer"}  # fmt: skip
    assert events[0].visible_to == {"red"}


def test_ids_never_collide_with_a_hand_made_position():
    state = make([nation("red")], [city("f", "B2", "red", "fort", "infantry", 480)],
                 [unit("inf1", "red", "infantry", "B3")])  # fmt: skip
    state.cities.update((c.square, c) for c in bases(3))
    complete_builds(state, [])
    assert sorted(state.units) == ["inf1", "inf2"]


def test_the_power_limit_skips_a_build_and_tells_its_owner():
    """Section 14: "If building a unit would increase your power past 5 *
    your number of cities, that unit build will be skipped and the server
    will send you a message". Two cities (limit 10) and a transport (12)."""
    cities = [city("f", "B2", "red", "fort", "infantry", 480), *bases(1)]
    state = make([nation("red")], cities, [unit("tr1", "red", "transport", "G2")])
    events: list = []
    complete_builds(state, events)
    assert list(state.units) == ["tr1"]
    (e,) = events
    assert e.kind == "build_skipped" and e.visible_to == {"red"}
    assert e.facts == {"city": "f", "kind": "infantry", "power": 12, "cost": 8, "limit": 10,
                       "building": "infantry"}  # fmt: skip
    assert state.cities[sq("B2")].progress == 0  # the time is spent


def test_the_power_limit_counts_builds_of_the_same_tick():
    """Two cities (limit 10) finishing infantry (8) at once: one appears,
    the other is skipped (cities in board order)."""
    cities = [city("f", "B2", "red", "fort", "infantry", 480),
              city("g", "B3", "red", "fort", "infantry", 480)]  # fmt: skip
    state = make([nation("red")], cities)
    events: list = []
    complete_builds(state, events)
    assert [e.kind for e in events] == ["built", "build_skipped"]
    assert events[0].facts["city"] == "f"


def test_zeppelins_do_not_count_toward_power():
    """Section 14: "Your nation's power is equal to the total cost of all
    your units (excluding zeppelins)"."""
    assert tables().unit("zeppelin").power == 0
    cities = [city("f", "B2", "red", "fort", "infantry", 480), city("g", "B3", "red", "fort")]
    units = [unit("zep1", "red", "zeppelin", "B4")]
    state = make([nation("red")], cities, units)
    complete_builds(state, [])
    assert economy.power(state, "red") == 8 and economy.power_limit(state, "red") == 10


def test_power_never_above_the_limit_after_builds():
    """Issue 17: "power never above the limit after builds", over random
    positions (seeded, bounded): a build never takes a nation past 5 x its
    cities, and one already past (cities lost) gains no power."""
    rng = Rng(2026)
    kinds = ["infantry", "transport", "supply_ship", "engineer", "tank", "battleship"]
    for _ in range(150):
        state = _random_builds(rng, kinds)
        before = {n: economy.power(state, n) for n in state.nations}
        complete_builds(state, [])
        for n in state.nations:
            after, limit = economy.power(state, n), economy.power_limit(state, n)
            assert after <= max(limit, before[n])
            assert before[n] <= limit or after == before[n]


def _random_builds(rng: Rng, kinds: list[str]) -> State:
    names = ["red", "blue"]
    squares = rng.shuffled([s for s in range(GRID.size) if GRID.at(s)[0] in (0, 5)])
    cities = []
    for s in squares[: 1 + rng.below(10)]:
        ut = tables().unit(rng.choice(kinds))
        owner = rng.choice(names)
        progress = ut.cost * 60 if rng.coin() else 0
        cities.append(city(f"c{s}", GRID.name(s), owner, ut.built_in, ut.key, progress))
    units = [unit(f"x{i}", rng.choice(names), rng.choice(kinds), "H1")
             for i in range(rng.below(6))]  # fmt: skip
    return make([nation(n, 16) for n in names], cities, units)


def test_the_next_build_starts_when_tech_allows():
    """Section 3: "Cities have a unit currently being built in that city
    and, optionally, a unit specified to build in the city after the
    current build is completed."""
    c = city("f", "B2", "red", "fort", "infantry", 480, next_build="anti_tank")
    state = make([nation("red", 5)], [c, city("g", "B3", "red", "fort")])
    complete_builds(state, [])
    assert (c.build, c.next_build, c.progress) == ("anti_tank", None, 0)


def test_keep_building_the_current_type_until_tech_allows():
    """Section 3: "If your tech is not high enough to build the next build
    unit when it is time to start building it, you will keep building
    units of the current built type until your tech is high enough"."""
    c = city("f", "B2", "red", "fort", "infantry", 480, next_build="tank")
    cities = [c] + [city(f"g{i}", f"C{i + 1}", "red", "fort") for i in range(4)]
    state = make([nation("red", 5)], cities, tick=0)
    complete_builds(state, [])
    assert (c.build, c.next_build) == ("infantry", "tank")
    state.nations["red"].tech = Fraction(6)
    c.progress = 480
    complete_builds(state, [])
    assert (c.build, c.next_build) == ("tank", None)
    assert sum(u.kind == "infantry" for u in state.units.values()) == 2


def test_an_airport_builds_nothing_until_technology_allows():
    """RULINGS.md: "an airport, which has none, builds nothing until
    technology allows"; a fort with no build starts its cheapest unit."""
    cities = [city("a", "B2", "red", "airport"), city("f", "B3", "red", "fort")]
    state = make([nation("red", 5)], cities)
    events: list = []
    complete_builds(state, events)
    assert state.cities[sq("B2")].build is None  # the fighter needs technology 6
    assert state.cities[sq("B3")].build == "infantry"
    assert [e.kind for e in events] == ["build_started"]
    state.nations["red"].tech = Fraction(6)
    complete_builds(state, events)
    assert state.cities[sq("B2")].build == "fighter"


def test_neutral_cities_build_nothing_and_air_units_are_built():
    """Neutral cities build nothing; an airport builds its fighter (the
    second part of the rules is built: air units fly)."""
    cities = [city("n", "B2", None, "fort", "infantry"),
              city("a", "B3", "red", "airport", "fighter"),
              city("b", "B4", "red", "base")]  # two cities: power up to 10  # fmt: skip
    state = make([nation("red", 16)], cities)
    run_ticks(state, 32)
    assert state.cities[sq("B2")].progress == 0
    assert [(u.kind, u.fuel) for u in state.units.values()] == [("fighter", 16)]


def test_a_captured_city_beyond_its_owners_tech_makes_no_progress():
    """Our ruling: a city keeps its build when captured; it progresses
    only while its owner's technology allows the build."""
    state = make([nation("red", 0)], [city("f", "B2", "red", "fort", "tank")])
    run_ticks(state, 10)
    assert state.cities[sq("B2")].progress == 0


# --------------------------------------------------------------------------
# Mobility and healing


def test_mobility_every_16_ticks_up_to_3_times():
    """Section 4: "Every 4 hours, mobility is added to each unit per the
    "Mobility" chart above to a maximum of 3 times this number."
    RULINGS.md: ticks 16, 32, 48 ..."""
    state = make([nation("red")], units=[unit("inf1", "red", "infantry", "B2", mobility=0)],
                 tick=0)  # fmt: skip
    run_ticks(state, 15)
    assert state.units["inf1"].mobility == 0
    run_ticks(state, 1)
    assert state.units["inf1"].mobility == 2
    run_ticks(state, 16 * 4)
    assert state.units["inf1"].mobility == 6


def test_heal_40_percent_in_a_city():
    """Section 3: "Units in cities heal at a rate of 40% every 4 hours";
    RULINGS.md: of full HP, rounded down, never above full. A battleship
    (40 HP) gains 16 in port; one at 30 reaches 40, not 46."""
    cities = [city("p", "F2", "red", "port"), city("q", "F4", "red", "port")]
    units = [unit("bb1", "red", "battleship", "F2", hp=10),
             unit("bb2", "red", "battleship", "F4", hp=30)]  # fmt: skip
    state = make([nation("red")], cities, units, tick=16)
    accrue(state, [], nowhere_supplied)
    assert (state.units["bb1"].hp, state.units["bb2"].hp) == (26, 40)


def test_heal_20_percent_in_supply_and_nothing_out_of_it():
    """Section 8: units in supply "Regain hit points at a rate of 20% every
    4 hours"; RULINGS.md: "nothing out of supply"; rounded down: infantry
    (5 HP) gains 1, a patrol boat (4 HP) 0."""
    units = [unit("inf1", "red", "infantry", "B2", hp=1), unit("pb2", "red", "patrol_boat", "H2",
             hp=1)]  # fmt: skip
    state = make([nation("red")], [], units, tick=32)
    accrue(state, [], all_supplied)
    assert (state.units["inf1"].hp, state.units["pb2"].hp) == (2, 1)
    accrue(state, [], nowhere_supplied)
    assert state.units["inf1"].hp == 2


def test_no_healing_between_the_16th_ticks():
    state = make([nation("red")], [city("f", "B2", "red", "fort")],
                 [unit("inf1", "red", "infantry", "B2", hp=1)], tick=17)  # fmt: skip
    accrue(state, [], all_supplied)
    assert state.units["inf1"].hp == 1


def test_an_allied_city_heals_and_another_nations_does_not():
    """Our ruling: "in cities" is a city of the unit's own nation or an
    ally; in anyone else's city a unit heals as elsewhere."""
    red, blue, grey = nation("red"), nation("blue"), nation("grey")
    allied(red, blue)
    cities = [city("b", "B2", "blue", "fort"), city("g", "B4", "grey", "fort")]
    units = [unit("inf1", "red", "infantry", "B2", hp=1), unit("inf2", "red", "infantry", "B4",
             hp=1)]  # fmt: skip
    state = make([red, blue, grey], cities, units, tick=16)
    accrue(state, [], all_supplied)
    assert (state.units["inf1"].hp, state.units["inf2"].hp) == (3, 2)


# --------------------------------------------------------------------------
# BUILD and NEXT BUILD


def order_state(tech: int = 0) -> State:
    cities = [city("Fortuna", "B2", "red", "fort", "infantry", 100),
              city("Harbour", "F2", "red", "port", "transport", 100),
              city("Inland", "C5", "red", "tech", "engineer"),
              city("Elsewhere", "B8", "blue", "fort", "infantry")]  # fmt: skip
    return make([nation("red", tech), nation("blue")], cities)


def test_changing_the_build_changes_the_designation_and_loses_the_progress():
    """Section 3: "A player may change the designation of a city at any
    time by changing the type of unit built in the city. Any time spent
    constructing the current unit will be lost when the build unit is
    changed." A fort on the coast becomes a port."""
    state = order_state()
    state.cities[sq("F2")].designation = "fort"
    assert set_build(state, "red", "harbour", "supply ship") is None
    c = state.cities[sq("F2")]
    assert (c.designation, c.build, c.progress) == ("port", "supply_ship", 0)


def test_the_same_build_again_keeps_the_progress():
    state = order_state()
    assert set_build(state, "red", "Fortuna", "infantry") is None
    assert state.cities[sq("B2")].progress == 100


def test_a_build_beyond_the_nations_tech_is_refused():
    """Section 3: "You may only build units in a city for which you have
    sufficient technology.\""""
    state = order_state(tech=4)
    r = set_build(state, "red", "Fortuna", "tank")
    assert r is not None and r.reason is BuildRefused.TECH_TOO_LOW
    assert r.facts == {"kind": "tank", "needed": 6, "tech": 4}
    assert state.cities[sq("B2")].build == "infantry"


def test_a_port_needs_a_coastal_city():
    """Section 1: "Ports must be designated next to water.\""""
    state = order_state()
    r = set_build(state, "red", "Inland", "transport")
    assert r is not None and r.reason is BuildRefused.PORT_NEEDS_COAST
    assert state.cities[sq("C5")].designation == "tech"


def test_only_own_cities():
    state = order_state()
    r = set_build(state, "red", "Elsewhere", "infantry")
    assert r is not None and r.reason is BuildRefused.NOT_YOUR_CITY
    assert r.facts == {"city": "Elsewhere"}  # nothing of the city's owner
    r = set_build(state, "red", "Atlantis", "infantry")
    assert r is not None and r.reason is BuildRefused.NO_SUCH_CITY


def test_unknown_unit_types_are_refused_and_part_two_types_built():
    state = order_state(tech=16)
    r = set_build(state, "red", "Fortuna", "dragon")
    assert r is not None and r.reason is BuildRefused.NO_SUCH_UNIT_TYPE
    for kind in ("zeppelin", "icbm3", "spy satellite"):
        assert set_build(state, "red", "Inland", kind) is None, kind
        assert set_build(state, "red", "Inland", kind, next=True) is None, kind


def test_the_next_build_up_to_2_above_the_nations_tech():
    """Section 3: "The "Next build" of a city can have a tech value of up
    to 2 higher than your current tech.\""""
    state = order_state(tech=4)
    assert set_build(state, "red", "Fortuna", "tank", next=True) is None
    assert state.cities[sq("B2")].next_build == "tank"
    r = set_build(state, "red", "Harbour", "cruiser", next=True)
    assert r is not None and r.reason is BuildRefused.NEXT_TECH_TOO_HIGH
    assert r.facts == {"kind": "cruiser", "needed": 9, "most": 6}


def test_the_next_build_must_be_built_in_the_citys_designation():
    """The brief: the next build "must be built in the designation the
    city will have"."""
    state = order_state(tech=4)
    r = set_build(state, "red", "Fortuna", "destroyer", next=True)
    assert r is not None and r.reason is BuildRefused.NEXT_NOT_BUILT_THERE
    assert r.facts == {"city": "Fortuna", "kind": "destroyer", "built_in": "port",
                       "designation": "fort"}  # fmt: skip


def test_a_new_designation_drops_a_next_build_it_cannot_build():
    state = order_state(tech=4)
    set_build(state, "red", "Harbour", "destroyer", next=True)
    events: list = []
    assert set_build(state, "red", "Harbour", "infantry", events=events) is None
    c = state.cities[sq("F2")]
    assert (c.designation, c.build, c.next_build) == ("fort", "infantry", None)
    assert events[0].kind == "next_build_dropped" and events[0].visible_to == {"red"}


def test_clearing_the_next_build():
    state = order_state(tech=4)
    set_build(state, "red", "Fortuna", "anti tank", next=True)
    assert set_build(state, "red", "Fortuna", None, next=True) is None
    assert state.cities[sq("B2")].next_build is None


def test_a_city_becomes_a_base_by_building_base():
    """Section 1: "Bases do not build units"; our ruling: BUILD BASE makes
    a city a base (building nothing, progress lost); a base is no next
    build, and a designation that builds names a unit."""
    state = order_state()
    assert set_build(state, "red", "Fortuna", "base") is None
    c = state.cities[sq("B2")]
    assert (c.designation, c.build, c.progress) == ("base", None, 0)
    r = set_build(state, "red", "Harbour", "base", next=True)
    assert r is not None and r.reason is BuildRefused.BASE_IS_NOT_NEXT
    r = set_build(state, "red", "Harbour", "fort")
    assert r is not None and r.reason is BuildRefused.NAME_A_UNIT
    assert r.facts["units"] == ["infantry", "anti_tank", "tank"]
    r = set_build(state, "red", "Harbour", "Tech Centre")
    assert r is not None and r.reason is BuildRefused.NAME_A_UNIT
    assert r.facts["units"] == ["engineer", "zeppelin", "satellite", "icbm1", "icbm2", "icbm3"]
    assert set_build(state, "red", "Harbour", "BASE") is None


@pytest.mark.parametrize("reason", list(BuildRefused))
def test_refusal_codes_are_stable_words(reason):
    assert reason.value == reason.value.lower() and " " not in reason.value
