"""Strategic Initiative: supply and ammunition (rules, sections 8 and 9;
RULINGS.md). Each case quotes the sentence it checks."""

from __future__ import annotations

from adjudicator.base import Rng
from adjudicator.strategic.board import generate, new_unit, start
from adjudicator.strategic.places import Places
from adjudicator.strategic.supply import in_supply, supplied, top_up, top_up_all
from tests.si_war_boards import position, relate, unit

SEA = ["." * 16 for _ in range(8)]


def sea_with(*cities: tuple[str, str], **owners: str):
    """A sea board 16 x 8 with cities (letter, square name)."""
    rows = [list(r) for r in SEA]
    for letter, name in cities:
        col = ord(name[0]) - ord("A")
        row = int(name[1:]) - 1
        rows[row][col] = letter
    return position(["".join(r) for r in rows], ("red", "blue", "green"), **owners)


def test_a_ship_is_in_supply_within_5_squares_of_its_port():
    """ "Ships are supplied by allied ports ... A ship or land unit is in
    supply if it is within 5 squares of supply.\""""
    state = sea_with(("P", "A1"), A1="red")
    near = unit(state, "red", "destroyer", "F6")  # 5 across, 5 down
    far = unit(state, "red", "destroyer", "G1")  # 6 across
    assert in_supply(state, near)
    assert not in_supply(state, far)


def test_supply_range_wraps_around_the_edges():
    """RULINGS.md: "within N squares" is Chebyshev distance with wrapping."""
    state = sea_with(("P", "A1"), A1="red")
    across = unit(state, "red", "destroyer", "L8")  # 5 columns and 1 row back
    assert in_supply(state, across)


def test_only_own_or_allied_ports_supply_ships():
    """ "Ships are supplied by allied ports"; a neutral city or another
    nation's port does not supply."""
    state = sea_with(("P", "A1"), ("P", "H1"), A1="blue")  # H1 is a neutral port
    ship = unit(state, "red", "destroyer", "D1")
    assert not in_supply(state, ship)
    relate(state, "red", "blue", "friendly")
    assert not in_supply(state, ship)
    relate(state, "red", "blue", "allied")
    assert in_supply(state, ship)


def test_every_city_supplies_land_units_but_only_ports_and_bases_ships():
    """ "Land units are supplied by ... allied cities"; ships by ports (and
    bases, which are "a fort, port, airport and tech centre all in one")."""
    rows = ["#F###...", "####....", "........", "....B..."]
    state = position(rows, B2="red", E4="red")
    state.cities[state.grid.parse("B1")].owner = "red"
    inf = unit(state, "red", "infantry", "D2")
    ship = unit(state, "red", "destroyer", "H1")  # 6 from the fort... and 3 from the base
    assert in_supply(state, inf)
    assert in_supply(state, ship)
    state.cities[state.grid.parse("E4")].owner = None
    assert not in_supply(state, ship)  # the fort does not supply ships


def test_a_supply_ship_supplies_only_with_ammo_aboard():
    """ "A supply ship or transport only provides supply if it has at least
    one ammo on board.\""""
    state = sea_with()
    ss = unit(state, "red", "supply_ship", "A1", ammo=1)
    dd = unit(state, "red", "destroyer", "C3")
    assert in_supply(state, dd)
    ss.ammo = 0
    assert not in_supply(state, dd)


def test_a_supply_ship_is_not_its_own_supply():
    """A source never supplies itself: a lone supply ship far from port is
    out of supply (and pays double to move)."""
    state = sea_with()
    ss = unit(state, "red", "supply_ship", "A1")
    assert not in_supply(state, ss)
    other = unit(state, "red", "supply_ship", "B1")
    assert in_supply(state, ss) and in_supply(state, other)


def test_transports_and_engineers_supply_land_units_not_ships():
    """ "Land units are supplied by supply ships, transports, enginers, or
    allied cities"; ships only by ports and supply ships."""
    rows = ["#####...", "########"]
    state = position(rows)
    inf = unit(state, "red", "infantry", "A1")
    tr = unit(state, "red", "transport", "F1")
    dd = unit(state, "red", "destroyer", "H1")
    assert in_supply(state, inf) and not in_supply(state, dd)
    del state.units[tr.id]
    assert not in_supply(state, inf)
    unit(state, "red", "engineer", "E2")
    assert in_supply(state, inf) and not in_supply(state, dd)


def test_a_patrol_boat_is_always_in_supply():
    """Patrol boat: "Does not require supply" (RULINGS.md: it always counts
    as in supply); its ammo is refilled wherever it is."""
    state = sea_with()
    pb = unit(state, "red", "patrol_boat", "H4", ammo=0)
    assert in_supply(state, pb)
    assert top_up(state, pb) == 1 and pb.ammo == 1


def test_air_units_have_no_supply_in_this_part():
    """ "Air units don't have supply per se" (part 2 refuels them)."""
    state = position(["FFFF"], F1="red")
    state.cities[0].owner = "red"
    ftr = unit(state, "red", "fighter", "A1", ammo=0)
    assert not in_supply(state, ftr)
    assert top_up(state, ftr) == 0 and ftr.ammo == 0


def test_the_worked_example_of_the_destroyer_and_the_supply_ships():
    """Section 9: "a destroyer with 2 ammo on board attacks ... This reduces
    the destroyer to 1 ammo. If there is a supply ship within 5 squares that
    has, say, 10 ammo on board, then the destroyer ammo will go back up to 2
    and the supply ship ammo will be reduced from 10 to 9. Now if, in turn,
    there is a second supply ship within range of that first supply ship,
    then 1 ammo will be automatically pulled from the second supply ship on
    to the first supply ship, and so on until a port is reached. Allied
    ports have infinite ammo.\""""
    state = position(["." * 30, "." * 18 + "P" + "." * 11], S2="red")
    dd = unit(state, "red", "destroyer", "A1", ammo=1)
    ss1 = unit(state, "red", "supply_ship", "E1")  # 4 from the destroyer
    ss2 = unit(state, "red", "supply_ship", "I1")  # 4 from ss1
    ss3 = unit(state, "red", "supply_ship", "N1")  # 5 from ss2, 5 from the port at S2
    assert top_up(state, dd) == 1
    assert (dd.ammo, ss1.ammo, ss2.ammo, ss3.ammo) == (2, 10, 10, 10)
    dd.ammo = 0
    ss3.ammo = 3
    del state.cities[state.grid.parse("S2")]  # the chain is broken at the port
    top_up(state, dd)
    assert (dd.ammo, ss1.ammo, ss2.ammo, ss3.ammo) == (2, 10, 10, 1)


def test_the_nearest_source_gives_the_ammo():
    """RULINGS.md: "topped up ... from the nearest source in supply range"."""
    state = sea_with()
    dd = unit(state, "red", "destroyer", "A1", ammo=0)
    far = unit(state, "red", "supply_ship", "E1")
    near = unit(state, "red", "supply_ship", "B2")
    top_up(state, dd)
    # near gave 2, then pulled 2 back from far
    assert (dd.ammo, near.ammo, far.ammo) == (2, 10, 8)


def test_cities_have_unlimited_ammo():
    """ "cities and ports have unlimited ammo"."""
    state = position(["F###"], A1="red")
    inf = unit(state, "red", "infantry", "D1", ammo=0)
    assert top_up(state, inf) == 1 and inf.ammo == 1


def test_out_of_supply_there_is_no_top_up():
    """ "Units out of supply: ... Run out of ammo and can't attack any more.\""""
    state = sea_with()
    dd = unit(state, "red", "destroyer", "A1", ammo=0)
    assert top_up(state, dd) == 0 and dd.ammo == 0


def test_an_empty_chain_gives_what_it_has():
    """ "Once that chain is broken, you will only be able to keep attacking so
    long as there remains ammo in what's left of your supply chain.\""""
    state = sea_with()
    dd = unit(state, "red", "destroyer", "A1", ammo=0)
    ss = unit(state, "red", "supply_ship", "C1", ammo=1)
    assert top_up(state, dd) == 1 and (dd.ammo, ss.ammo) == (1, 0)
    assert not in_supply(state, dd)


def test_two_supply_ships_do_not_pull_from_each_other_forever():
    """A unit never pulls back from the unit it is giving to."""
    state = sea_with()
    dd = unit(state, "red", "destroyer", "A1", ammo=0)
    a = unit(state, "red", "supply_ship", "B1", ammo=1)
    b = unit(state, "red", "supply_ship", "C1", ammo=1)
    top_up(state, dd)
    assert dd.ammo == 2 and a.ammo + b.ammo == 0


def test_a_land_unit_pulls_from_a_transport_that_pulls_from_a_port():
    """Transports give from their own ammo, then refill from their own
    nearest source (ships: ports and supply ships)."""
    rows = ["#......P", "........"]
    state = position(rows, H1="red")
    inf = unit(state, "red", "infantry", "A1", ammo=0)
    tr = unit(state, "red", "transport", "C1")
    top_up(state, inf)
    assert inf.ammo == 1 and tr.ammo == 6  # the port at H1 is 5 from C1


def test_top_up_all_fills_every_unit_in_supply_in_id_order():
    """RULINGS.md: "A unit in supply has its ammo topped up to full at each
    tick's accruals"."""
    state = sea_with()
    ss = unit(state, "red", "supply_ship", "A1", "ss1", ammo=3)
    d1 = unit(state, "red", "destroyer", "B1", "dd1", ammo=0)
    d2 = unit(state, "red", "destroyer", "C1", "dd2", ammo=0)
    top_up_all(state)
    assert (d1.ammo, d2.ammo, ss.ammo) == (2, 1, 0)


def test_the_index_answers_as_a_fresh_one_after_moves_and_losses():
    """Places kept up to date by moved/removed answers as one built anew
    (a seeded walk of supply ships and destroyers)."""
    rng = Rng(7)
    state = position(["." * 20 for _ in range(20)])
    for i in range(12):
        kind = "supply_ship" if i % 2 else "destroyer"
        unit(state, "red", kind, f"{chr(65 + rng.below(20))}{1 + rng.below(20)}")
    places = Places(state)
    for _ in range(200):
        u = state.units[rng.choice(sorted(state.units))]
        old = u.square
        u.square = rng.below(state.grid.size)
        places.moved(u, old)
        if rng.below(20) == 0 and len(state.units) > 2:
            places.removed(u)
            del state.units[u.id]
        for other in sorted(state.units.values(), key=lambda x: x.id):
            assert in_supply(state, other, places) == in_supply(state, other)
        assert supplied(state, places) == supplied(state)


def test_the_index_follows_designations_and_builds():
    """A port redesignated a fort (a BUILD order) stops supplying ships at
    once; a unit built (Places.added) supplies at once."""
    state = sea_with(("P", "A1"), A1="red")
    dd = unit(state, "red", "destroyer", "C1")
    places = Places(state)
    assert in_supply(state, dd, places)
    state.cities[state.grid.parse("A1")].designation = "fort"
    assert not in_supply(state, dd, places)
    ss = unit(state, "red", "supply_ship", "E1")
    places.added(ss)
    assert in_supply(state, dd, places)


def test_supplied_is_in_supply_asked_of_every_unit():
    """The units in supply listed together (asked once a nation, domain and
    square) are those in_supply finds one by one: units stacked with and
    without a source among them, sources alone, allies' sources."""
    board, cities = generate(4, 3, 40, 40)
    state = start(board, cities, ["ann", "bob", "cid", "dee"], 3, {})
    relate(state, "ann", "bob", "allied")
    rng = Rng(3)
    sea = sorted(set(range(state.grid.size)) - state.board.land)
    land = sorted(state.board.land)
    for i in range(400):
        owner = ["ann", "bob", "cid", "dee"][i % 4]
        if i % 3:
            new_unit(state, owner, rng.choice(["infantry", "tank", "engineer"]), rng.choice(land))
        else:
            new_unit(state, owner, rng.choice(["supply_ship", "destroyer"]), rng.choice(sea))
    for u in list(state.units.values())[::7]:
        u.ammo = 0  # an empty source supplies nothing
    places = Places(state)
    one_by_one = {u.id for u in state.units.values() if in_supply(state, u, places)}
    assert supplied(state, places) == one_by_one
    assert 0 < len(one_by_one) < len(state.units)


def test_a_source_in_a_square_is_asked_apart_from_the_units_it_supplies():
    """An engineer supplies land units but not itself: stacked with an
    infantry far from any city, the infantry is in supply, the engineer
    not, whichever stands there first."""
    state = position(["#" * 16 for _ in range(8)], ("red",))
    eng = unit(state, "red", "engineer", "C3")
    inf = unit(state, "red", "infantry", "C3")
    inf2 = unit(state, "red", "infantry", "M6")
    eng2 = unit(state, "red", "engineer", "M6")
    assert supplied(state) == {inf.id, inf2.id}
    assert not in_supply(state, eng) and not in_supply(state, eng2)
