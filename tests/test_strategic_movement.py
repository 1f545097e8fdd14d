"""Strategic Initiative: moving (rules, section 4; RULINGS.md), standing
orders and command points for moves. Each case quotes what it checks."""

from __future__ import annotations

from pathlib import Path

from adjudicator.base import Rng
from adjudicator.strategic.movement import cancel, move
from adjudicator.strategic.paths import find_path
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.standing import run_standing
from adjudicator.strategic.state import Standing
from tests.si_cases import check, load, play
from tests.si_war_boards import names, position, relate, sq, unit

ISLAND = [
    "..........",
    ".#####....",
    ".#####....",
    ".##F##....",
    "..........",
]


def order(state, nation, ids, where, seq=1):
    events: list = []
    reason, facts = move(state, nation, ids, sq(state, where), seq, 1, events)
    return reason, facts, events


def test_land_units_move_only_over_land():
    """ "land units can only move across land"; an order no unit can carry
    out is refused and costs nothing."""
    state = position(ISLAND)
    inf = unit(state, "red", "infantry", "B2")
    reason, facts, events = order(state, "red", [inf.id], "H2")
    assert reason == Reason.NO_PATH and facts["square"] == "H2"
    assert state.nations["red"].command == 512 and inf.square == sq(state, "B2") and not events


def test_a_move_costs_1_mobility_a_square_and_1_command_point():
    """ "Moving one square costs 1 mobility"; "one move order costs 1 however
    many units"."""
    state = position(ISLAND, D4="red")
    a = unit(state, "red", "infantry", "B2")
    b = unit(state, "red", "infantry", "B3")
    reason, facts, events = order(state, "red", [a.id, b.id], "D2")
    assert reason == Reason.MOVED, facts
    assert (a.square, b.square) == (sq(state, "D2"),) * 2
    assert (a.mobility, b.mobility) == (0, 0)
    assert state.nations["red"].command == 511 and facts["left"] == 511 and facts["cost"] == 1
    moved = [e for e in events if e.kind == Happened.MOVED]
    assert [e.facts["square"] for e in moved] == ["D2", "D2"]
    assert all(e.visible_to == frozenset({"red"}) for e in moved)
    assert moved[0].facts["path"] == ["C2", "D2"]


def test_out_of_supply_a_square_costs_2():
    """ "When a unit is out of supply, it costs 2 mobility to enter each
    sector.\""""
    state = position(ISLAND)  # the fort is neutral: no supply
    inf = unit(state, "red", "infantry", "B2", mobility=3)
    reason, facts, _ = order(state, "red", [inf.id], "E2")
    assert reason == Reason.STANDING
    assert inf.square == sq(state, "C2") and inf.mobility == 1


def test_a_move_beyond_mobility_becomes_a_standing_order_that_goes_on():
    """ "If your unit has insufficient mobility to reach the target square, it
    will be given a move order to move there as soon as it has enough
    mobility"; RULINGS.md: a standing order is paid when given, not again."""
    state = position(["P" + "." * 19], A1="red")
    dd = unit(state, "red", "destroyer", "A1", mobility=3)
    reason, facts, _ = order(state, "red", [dd.id], "H1", seq=7)
    assert reason == Reason.STANDING and facts["going"] == [dd.id]
    assert state.standing == [Standing("red", (dd.id,), sq(state, "H1"), "move", 7, 1)]
    assert dd.square == sq(state, "D1") and state.nations["red"].command == 511
    dd.mobility = 8  # a later tick's mobility
    events: list = []
    run_standing(state, Rng(1), events)
    assert dd.square == sq(state, "H1") and state.standing == []
    assert state.nations["red"].command == 511  # not paid again
    assert [e.facts["square"] for e in events] == ["H1"]


def test_a_group_moves_as_far_as_each_can():
    """A group moves together, each unit as far as its mobility goes; the
    rest of the way stands for those that did not arrive."""
    state = position(ISLAND, D4="red")
    tank = unit(state, "red", "tank", "B2")
    inf = unit(state, "red", "infantry", "B3")
    reason, facts, _ = order(state, "red", [inf.id, tank.id], "E2")
    assert reason == Reason.STANDING
    assert facts["arrived"] == [tank.id] and facts["going"] == [inf.id]
    assert state.standing[0].units == (inf.id,)


def test_paths_wrap_around_the_board():
    """RULINGS.md: "a square grid that wraps on both edges"."""
    state = position(["." * 12, "." * 12])
    pb = unit(state, "red", "patrol_boat", "A1")
    assert names(state, find_path(state, Places(state), pb, sq(state, "L2"))) == ["L2"]
    reason, _, _ = order(state, "red", [pb.id], "K1")
    assert reason == Reason.MOVED and pb.mobility == 6


def test_the_same_board_gives_the_same_path():
    """Adjudication is deterministic: shortest paths break ties the same way."""
    rows = ["." * 9 for _ in range(9)]
    paths = []
    for _ in range(2):
        state = position(rows)
        pb = unit(state, "red", "patrol_boat", "A1")
        paths.append(find_path(state, Places(state), pb, sq(state, "E3")))
    assert paths[0] == paths[1] and len(paths[0]) == 4


def test_ships_sail_into_own_ports_but_not_onto_land():
    """ "Ships can only move through sea, ports and coastal bases"; a city is
    land."""
    rows = ["....P##F", "........"]
    state = position(rows, E1="red", H1="red")
    dd = unit(state, "red", "destroyer", "A1")
    assert order(state, "red", [dd.id], "E1")[0] == Reason.MOVED
    assert order(state, "red", [dd.id], "F1")[0] == Reason.NO_PATH
    assert order(state, "red", [dd.id], "H1")[0] == Reason.NO_PATH  # a fort is not a harbour


def test_ships_enter_a_coastal_base_but_not_an_inland_one():
    """ "Ships can only move through sea, ports and coastal bases.\""""
    rows = ["....B#####", "....####B#", "....######", "....######"]
    state = position(rows, E1="red", I2="red")
    dd = unit(state, "red", "destroyer", "A1")
    assert order(state, "red", [dd.id], "E1")[0] == Reason.MOVED
    assert order(state, "red", [dd.id], "I2")[0] == Reason.NO_PATH


def test_ships_may_not_enter_an_allys_port_only_if_allied():
    """Ships use their own and allied ports, not those of other nations.
    Ruling: an order is refused for what is at its target only if the
    nation sees the target; out of sight, the ship sails up to it and
    finds out there."""
    rows = ["....P...", "........"]
    state = position(rows, E1="blue")
    dd = unit(state, "red", "destroyer", "C1")  # it sees 2 squares around it
    assert order(state, "red", [dd.id], "E1")[0] == Reason.NOT_AT_WAR
    relate(state, "red", "blue", "allied")
    assert order(state, "red", [dd.id], "E1")[0] == Reason.MOVED
    far = position(rows, E1="blue")
    dd = unit(far, "red", "destroyer", "A1", mobility=8)
    reason, facts, _ = order(far, "red", [dd.id], "E1")
    assert reason == Reason.MOVED_PART and facts["failed"] == {dd.id: "not_at_war"}
    assert dd.square == sq(far, "D1") and "nations" not in facts


def test_engineers_move_over_land_and_sea():
    """ "Engineers can move across land and sea.\""""
    state = position(["F#...####"], A1="red")
    eng = unit(state, "red", "engineer", "B1")
    reason, _, events = order(state, "red", [eng.id], "F1")
    assert reason == Reason.STANDING  # 3 mobility: C1, D1, E1 (all sea)
    assert events[0].facts["path"] == ["C1", "D1", "E1"]


def test_one_ship_per_sea_square():
    """ "Only one ship may occupy a sea square at any given time": a second
    ship ordered there stops next to it."""
    state = position(["." * 10, "." * 10])
    a = unit(state, "red", "destroyer", "A1")
    b = unit(state, "red", "destroyer", "A2")
    reason, facts, _ = order(state, "red", [a.id, b.id], "E1")
    assert reason == Reason.MOVED, facts
    assert a.square == sq(state, "E1")
    assert state.grid.distance(b.square, a.square) == 1 and state.standing == []


def test_ships_sail_around_another_ship():
    """A sea square holding a ship is not sailed through."""
    state = position(["." * 9, "#" * 9])
    unit(state, "red", "patrol_boat", "B1")
    dd = unit(state, "red", "destroyer", "A1", mobility=24)
    # the only other way is round the wrapping edge
    reason, _, events = order(state, "red", [dd.id], "C1")
    assert reason == Reason.MOVED
    assert events[0].facts["path"][0] == "I1"


def test_a_port_holds_any_number_of_ships():
    """ "one ship per sea square (a port or coastal base holds any number)"."""
    state = position(["...P", "...."], D1="red")
    a = unit(state, "red", "destroyer", "A1")
    b = unit(state, "red", "destroyer", "A2")
    order(state, "red", [a.id, b.id], "D1")
    assert a.square == b.square == sq(state, "D1")


def test_no_entering_a_square_another_nation_holds():
    """ "Units may not move into an enemy square unless the enemy is first
    defeated"; RULINGS.md: "refused ('attack it instead')"."""
    state = position(ISLAND)
    inf = unit(state, "red", "infantry", "B2")
    unit(state, "blue", "infantry", "C2")
    reason, facts, _ = order(state, "red", [inf.id], "C2")
    assert reason == Reason.OCCUPIED and facts == {"square": "C2", "nations": ["blue"],
                                                   "at_war": False}  # fmt: skip
    relate(state, "red", "blue", "war")
    assert order(state, "red", [inf.id], "C2")[1]["at_war"] is True
    assert state.nations["red"].command == 512


def test_units_go_round_another_nation_or_are_blocked():
    """The way through others' units is closed: around them, or blocked
    (where the nation sees them: in the fog it plans the terrain alone)."""
    state = position(["#####", "....."])
    inf = unit(state, "red", "infantry", "A1", mobility=6)
    unit(state, "blue", "infantry", "B1")  # both next to it: in sight
    unit(state, "blue", "infantry", "E1")  # the wrapping way too
    reason, facts, _ = order(state, "red", [inf.id], "D1")
    assert reason == Reason.BLOCKED and state.nations["red"].command == 512


def test_allies_share_squares():
    """Allied units stack with each other (they share supply and bases)."""
    state = position(ISLAND)
    relate(state, "red", "blue", "allied")
    inf = unit(state, "red", "infantry", "B2")
    unit(state, "blue", "infantry", "C2")
    assert order(state, "red", [inf.id], "C2")[0] == Reason.MOVED


def test_a_land_unit_captures_an_empty_neutral_city():
    """RULINGS.md: "a land unit ordered into an empty neutral city ...
    captures it and loses 4 HP"; "a capture costs 4 instead of the move's 1"."""
    state = position(ISLAND)
    city = state.cities[sq(state, "D4")]
    city.progress = 90
    inf = unit(state, "red", "infantry", "C3")
    reason, facts, events = order(state, "red", [inf.id], "D4")
    assert reason == Reason.CAPTURED and facts["city"] == "D4" and facts["by"] == inf.id
    assert city.owner == "red" and inf.hp == 1 and city.progress == 0
    assert state.nations["red"].command == 508 and facts["cost"] == 4
    captured = [e for e in events if e.kind == Happened.CAPTURED]
    assert captured[0].facts["from_nation"] is None and captured[0].facts["square"] == "D4"


def test_a_unit_with_4_hp_or_less_cannot_capture():
    """RULINGS.md: "A unit with 4 HP or less cannot capture (the order is
    refused).\""""
    state = position(ISLAND)
    inf = unit(state, "red", "infantry", "C3", hp=4)
    reason, facts, _ = order(state, "red", [inf.id], "D4")
    assert reason == Reason.CANNOT_CAPTURE and facts["hp_needed"] == 5
    assert state.cities[sq(state, "D4")].owner is None and state.nations["red"].command == 512


def test_only_land_units_capture():
    """ "Neutral or empty enemy cities may only be captured by land units.
    Other units may not enter them.\""""
    state = position(["...P", "...."])
    dd = unit(state, "red", "destroyer", "A1")
    assert order(state, "red", [dd.id], "D1")[0] == Reason.CANNOT_CAPTURE


def test_in_a_group_only_those_that_can_capture_go():
    """The units of a group that cannot capture are left out of it."""
    state = position(ISLAND)
    weak = unit(state, "red", "infantry", "C3", hp=3)
    strong = unit(state, "red", "infantry", "B3", mobility=4)
    reason, facts, _ = order(state, "red", [weak.id, strong.id], "D4")
    assert reason == Reason.CAPTURED and facts["failed"] == {weak.id: "cannot_capture"}
    assert weak.square == sq(state, "C3") and strong.square == sq(state, "D4")


def test_capturing_another_nations_city_needs_war():
    """ "In order to ... capture an enemy city, you must first be at war with
    that nation.\""""
    state = position(ISLAND, D4="blue")
    inf = unit(state, "red", "infantry", "C3")
    assert order(state, "red", [inf.id], "D4")[0] == Reason.NOT_AT_WAR
    relate(state, "red", "blue", "war")
    reason, facts, events = order(state, "red", [inf.id], "D4")
    assert reason == Reason.CAPTURED and state.cities[sq(state, "D4")].owner == "red"
    captured = [e for e in events if e.kind == Happened.CAPTURED][0]
    assert captured.visible_to == frozenset({"red", "blue"})


def test_an_order_the_nation_cannot_pay_for_is_refused():
    """ "an order the nation cannot pay for is refused with what it costs and
    what is left"."""
    state = position(ISLAND)
    state.nations["red"].command = 3
    inf = unit(state, "red", "infantry", "C3")
    assert order(state, "red", [inf.id], "D4")[:2] == (Reason.CANNOT_PAY, {"cost": 4, "left": 3})
    state.nations["red"].command = 0
    assert order(state, "red", [inf.id], "B2")[:2] == (Reason.CANNOT_PAY, {"cost": 1, "left": 0})
    assert inf.square == sq(state, "C3")


def test_only_own_units_take_orders():
    """A player orders only their own units (an unknown id reads the same,
    so nothing is learnt of others' units)."""
    state = position(ISLAND)
    theirs = unit(state, "blue", "infantry", "C3")
    assert order(state, "red", [theirs.id], "B2")[:2] == (
        Reason.NOT_YOUR_UNIT,
        {"unit": theirs.id},
    )
    assert order(state, "red", ["inf99"], "B2")[:2] == (Reason.NOT_YOUR_UNIT, {"unit": "inf99"})


def test_satellites_and_icbms_are_not_moved_by_orders():
    """They are launched (section 6); air units fly (tests/test_strategic_air.py)."""
    state = position(ISLAND)
    for kind in ("satellite", "icbm1"):
        it = unit(state, "red", kind, "C3")
        assert order(state, "red", [it.id], "B2")[0] == Reason.CANNOT_MOVE


def test_a_new_order_replaces_the_standing_order():
    """RULINGS.md: "A new order for the unit replaces it.\""""
    state = position(["." * 30])
    a = unit(state, "red", "destroyer", "A1", mobility=1)
    b = unit(state, "red", "destroyer", "C1", mobility=1)
    order(state, "red", [a.id, b.id], "T1")
    assert state.standing[0].units == (a.id, b.id)
    order(state, "red", [a.id], "Z1")
    assert [s.units for s in state.standing] == [(b.id,), (a.id,)]


def test_cancel_drops_a_units_standing_order():
    """ "a standing order ... (and can be cancelled)"."""
    state = position(["." * 30])
    a = unit(state, "red", "destroyer", "A1", mobility=1)
    b = unit(state, "red", "destroyer", "C1", mobility=1)
    order(state, "red", [a.id, b.id], "T1")
    assert cancel(state, "red", a.id) == (Reason.CANCELLED, {"unit": a.id, "square": "T1"})
    assert [s.units for s in state.standing] == [(b.id,)]
    assert cancel(state, "red", a.id) == (Reason.NO_STANDING, {"unit": a.id})
    assert cancel(state, "blue", b.id)[0] == Reason.NOT_YOUR_UNIT
    assert cancel(state, "red", b.id)[0] == Reason.CANCELLED and state.standing == []


def test_a_standing_order_whose_way_is_blocked_is_dropped_and_its_owner_told():
    """RULINGS.md: "one whose way is blocked or whose target can no longer
    be reached is dropped, and its owner told.\""""
    state = position(["#####", "....."])
    inf = unit(state, "red", "infantry", "A1", mobility=1)
    order(state, "red", [inf.id], "C1", seq=4)
    assert state.standing
    unit(state, "blue", "infantry", "C1")
    inf.mobility = 2
    events: list = []
    run_standing(state, Rng(1), events)
    # C1 was out of the infantry's sight: it went next to it and found it held
    assert state.standing == [] and inf.square == sq(state, "B1")
    dropped = next(e for e in events if e.kind == Happened.STANDING_DROPPED)
    assert dropped.kind == Happened.STANDING_DROPPED and dropped.visible_to == frozenset({"red"})
    assert dropped.facts["why"] == "occupied" and dropped.facts["seq"] == 4


def test_standing_orders_run_in_the_order_given():
    """RULINGS.md step 3: "Standing orders ... in the order they were given"
    (two ships for one sea square: the earlier order gets it)."""
    state = position(["." * 20])
    late = unit(state, "red", "destroyer", "A1", mobility=0)
    early = unit(state, "red", "destroyer", "Q1", mobility=0)
    order(state, "red", [early.id], "J1", seq=1)
    order(state, "red", [late.id], "J1", seq=2)
    late.mobility = early.mobility = 24
    run_standing(state, Rng(1), [])
    assert early.square == sq(state, "J1") and late.square == sq(state, "I1")


def test_a_unit_destroyed_leaves_its_standing_order():
    """Standing orders of units that are gone end quietly."""
    state = position(["." * 30])
    a = unit(state, "red", "destroyer", "A1", mobility=1)
    order(state, "red", [a.id], "T1")
    del state.units[a.id]
    events: list = []
    run_standing(state, Rng(1), events)
    assert state.standing == [] and events == []


def test_already_there():
    """An order to the square the units stand in is refused, unpaid."""
    state = position(ISLAND)
    inf = unit(state, "red", "infantry", "C3")
    assert order(state, "red", [inf.id], "C3")[0] == Reason.ALREADY_THERE
    assert state.nations["red"].command == 512


def test_a_ship_cannot_reach_a_lake():
    """A lake is water no ship outside it can reach: refused at once."""
    rows = ["..........", ".#####....", ".#..##....", ".#####....", ".........."]
    state = position(rows)
    dd = unit(state, "red", "destroyer", "A1")
    assert order(state, "red", [dd.id], "C3")[0] == Reason.NO_PATH
    inner = unit(state, "red", "patrol_boat", "C3")
    assert order(state, "red", [inner.id], "D3")[0] == Reason.MOVED


def test_ships_pass_through_their_own_harbour_between_two_seas():
    """Ships sail through ports and coastal bases of their own: a port on an
    isthmus joins two seas (another nation's port closes the way)."""
    rows = ["#######", "##...##", "###P###", "##...##", "#######"]
    state = position(rows, D3="red")
    pb = unit(state, "red", "patrol_boat", "D2")
    reason, _, events = order(state, "red", [pb.id], "D4")
    assert reason == Reason.MOVED and events[0].facts["path"] == ["D3", "D4"]
    state.cities[sq(state, "D3")].owner = "blue"
    assert order(state, "red", [pb.id], "D2")[0] == Reason.BLOCKED


def test_the_planes_of_one_order_each_fly_by_their_own_fuel():
    """ "It moves only as far as its fuel allows: an order beyond its fuel
    is refused with the reach it has" (RULINGS.md), for each plane by its
    own fuel, though the planes of one nation on one square are planned
    one way: a heavy bomber and two fighters, one with 3 fuel, ordered 6
    squares away together; the fighter short of fuel stays, the others fly."""
    case = load(Path(__file__).parent / "cases/strategic/air/beyond-fuel-is-refused.yaml")
    fighter = "  ftr1: {owner: red, type: fighter, at: B3, fuel: 3}\n"
    assert fighter in case["position"]
    case["position"] = (
        case["position"]
        .replace("counter: 1", "counter: 3")
        .replace(
            fighter,
            "  hb1: {owner: red, type: heavy_bomber, at: B3}\n"
            + fighter
            + "  ftr2: {owner: red, type: fighter, at: B3}\n",
        )
    )
    case["orders"] = "red: move hb1 ftr1 ftr2 to H3"
    case["expect"] = {
        "results": {"red": ["moved"]},
        "units": {"hb1": {"at": "H3"}, "ftr1": {"at": "B3", "fuel": 3}, "ftr2": {"at": "H3"}},
    }
    played = play(case)
    assert not check(case, played)
    refused = played.results[0].facts["refused"]
    assert refused == [
        {"code": "beyond_fuel", "unit": "ftr1", "fuel": 3, "distance": 6, "square": "H3"}
    ]
