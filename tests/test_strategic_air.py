"""Air units in words and in bulk: the refuel order as players write it
(and misspell it), the receipt's fuel warnings, and a bounded property over
random flying: fuel never below 0, never above full, and no plane outside a
refuelling place with no fuel after a tick. The rules themselves are the
cases of tests/cases/strategic/air/, bombing/ and flak/."""

from __future__ import annotations

import re

import pytest

from adjudicator.base import OrderSheet, ProblemKind, Rng
from adjudicator.strategic import air
from adjudicator.strategic.board import full_fuel
from adjudicator.strategic.orders import Move, Refuel
from adjudicator.strategic.reading import read_orders
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import State
from adjudicator.strategic.tick import run_tick
from tests.mailharness import SERVER_YAML
from tests.si_war_boards import position, relate, unit

ROWS = [
    "....................",
    ".####A#.............",
    ".#F####.......###...",
    ".######.......#B#...",
    "..............###...",
    "....................",
]


def board() -> State:
    s = position(ROWS, ("ann", "bob"), F2="ann", C3="ann", P4="bob")
    unit(s, "ann", "fighter", "F2", "ftr1", fuel=5)
    unit(s, "ann", "naval_bomber", "K4", "nb2", fuel=4)
    unit(s, "ann", "zeppelin", "D4", "zep3")
    unit(s, "bob", "fighter", "P4", "ftr4")
    return s


def one(text: str, s: State | None = None):
    sheet = read_orders(s or board(), "ann", text, seq=3)
    assert len(sheet.orders) + len(sheet.problems) == 1, sheet
    return sheet


# -- reading -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["refuel ftr1 nb2", "Refuel ftr1, nb2.", "refuel ftr1 and nb2", "ftr1 nb2 refuel",
     "ftr1, nb2 refuels"],
)  # fmt: skip
def test_the_refuel_order_in_words_and_short(text):
    order = one(text).orders[0]
    assert isinstance(order, Refuel) and order.units == ("ftr1", "nb2")
    assert order.canonical() == "refuel ftr1 nb2"
    assert order.to_dict() == {"order": "refuel", "units": ["ftr1", "nb2"]}


def test_refuel_all_in_a_square():
    order = one("refuel all at F2").orders[0]
    assert isinstance(order, Refuel) and order.units == ("ftr1",)


def test_a_misspelt_refuel_is_suggested():
    problem = one("refule ftr1").problems[0]
    assert problem.reason == "not_an_order" and problem.suggestions == ("refuel ftr1",)


def test_refuel_of_a_unit_not_yours_is_refused_without_telling_whose():
    problem = one("refuel ftr4").problems[0]
    assert problem.reason == "no_such_unit" and problem.kind is ProblemKind.NOT_UNDERSTOOD
    assert problem.facts == {"unit": "ftr4"}


def test_a_move_beyond_the_fuel_is_warned_of_on_receipt():
    sheet = one("move ftr1 to M2")  # 7 squares, fuel 5
    assert isinstance(sheet.orders[0], Move)
    (notice,) = sheet.warnings
    assert notice.reason == "beyond_fuel"
    assert dict(notice.facts) == {"unit": "ftr1", "fuel": 5, "distance": 7, "square": "M2"}


def test_a_move_that_would_leave_no_fuel_at_sea_is_warned_of():
    (notice,) = one("move ftr1 to K2").warnings  # 5 squares, fuel 5, the open sea
    assert notice.reason == "runs_dry" and notice.facts["distance"] == 5


def test_no_warning_for_a_move_to_a_refuelling_place_or_a_zeppelin():
    s = board()
    s.units["ftr1"].square = s.grid.parse("K2")  # 5 from its airport F2
    assert not one("move ftr1 to F2", s).warnings
    assert not one("move zep3 to T6").warnings
    assert not one("move ftr1 to J2", s).warnings  # 1 square: fuel to spare


# -- a bounded property --------------------------------------------------------------

PLANES = ("fighter", "naval_bomber", "helicopter", "heavy_bomber", "zeppelin")


def _random_game(rng: Rng) -> State:
    s = position(ROWS, ("ann", "bob"), F2="ann", C3="ann", P4="bob")
    relate(s, "ann", "bob", "war")
    unit(s, "ann", "carrier", "J3", "cv1")
    unit(s, "bob", "battleship", "S2", "bb2")
    for i in range(12):
        kind = PLANES[i % len(PLANES)]
        where = rng.below(s.grid.size)
        if where in s.cities and s.cities[where].owner not in (None, "ann" if i % 2 else "bob"):
            continue
        full = full_fuel(tables().unit(kind))
        fuel = rng.below(full + 1) if full else 0
        unit(s, ("ann", "bob")[i % 2], kind, s.grid.name(where), f"p{i}", fuel=fuel)
    return s


def _random_orders(s: State, rng: Rng) -> list[OrderSheet]:
    sheets = []
    for nation in ("ann", "bob"):
        mine = sorted(u.id for u in s.units.values() if u.owner == nation)
        orders = []
        for n, uid in enumerate(mine, 1):
            if rng.below(3) == 0:
                orders.append(Refuel(player=nation, seq=n, line=n, units=(uid,)))
            else:
                target = rng.below(s.grid.size)
                orders.append(Move(player=nation, seq=n, line=n, units=(uid,), target=target,
                                   target_name=s.grid.name(target)))  # fmt: skip
        sheets.append(OrderSheet(nation, tuple(orders)))
    return sheets


def test_fuel_stays_in_bounds_and_no_dry_plane_survives_a_tick():
    """Over random positions and random moves and refuel orders (seeded,
    bounded): fuel is never below 0 or above full, and after every tick no
    plane that burns fuel has none away from a refuelling place."""
    for seed in range(12):
        rng = Rng(seed)
        s = _random_game(rng)
        for tick in range(3):
            s = run_tick(s, _random_orders(s, rng), seed * 10 + tick).state
            for u in s.units.values():
                kind = tables().unit(u.kind)
                assert 0 <= u.fuel <= full_fuel(kind), (seed, u)
                if air.needs_fuel(u.kind) and u.fuel == 0:
                    assert air.refuelling_place(s, u, u.square), (seed, tick, u)


# -- by mail -------------------------------------------------------------------------

SCENARIO = """\
# a Strategic Initiative position
tick: 40
board:
  width: 20
  height: 10
  at: B2
  rows: |
    2  #####.....###
    3  #####.....###
    4  #####.....###
nations:
  kim: {colour: red, declared: {lee: war}, relations: {lee: war}}
  lee: {colour: blue, declared: {kim: war}, relations: {kim: war}}
cities:
  Avalon: {at: E3, owner: kim, designation: airport}
  Corin: {at: M3, owner: lee, designation: fort, build: infantry}
units:
  ftr1: {owner: kim, type: fighter, at: H3, fuel: 3}
  hb2: {owner: kim, type: heavy_bomber, at: K3}
  inf3: {owner: lee, type: infantry, at: M3}
"""

GAMES = (
    SERVER_YAML
    + """\
  - name: sky
    game: strategic
    position: sky.yaml
    tick: 15m
    players:
      - {name: kim, email: kim@example.org}
      - {name: lee, email: lee@example.org}
"""
)


def test_planes_by_mail_a_warning_on_receipt_refuel_and_flak_in_the_report(tmp_path):
    """Through the real server: a move beyond a fighter's fuel is accepted
    with a warning on the receipt; refuel sends it home; the report tells
    the fort's flak and the bombing with their draws, and the situation
    report each plane's fuel where other units say whether they are in
    supply."""
    from tests.mailharness import Harness

    (tmp_path / "sky.yaml").write_text(SCENARIO)
    h = Harness(tmp_path, GAMES)
    try:
        kim = "kim@example.org"
        orders = "move ftr1 to N3\nrefule ftr1\nrefuel ftr1\nattack M3 with hb2\nstatus\n"
        h.send(kim, "sky@judge.example", f"PASSWORD {h.password(kim, 'sky')}\n{orders}")
        receipt = " ".join(h.last(kim).split())
        assert "Note: line 2: ftr1 has fuel for 3 squares now and N3 is at least 6" in receipt
        assert '"refule ftr1": this is not an order' in receipt
        assert "(did you mean: refuel ftr1?)" in receipt
        h.clock.set(h.game("sky").deadline)
        h.tick()
        text = h.text(h.report(kim, "sky"))
        assert re.search(r"ftr1 +fighter +E3 +4/4 +2 +13 +fuel 16/16\r?\n", text)
        assert re.search(r"hb2 +heavy bomber +L2 .* fuel 29/30\r?\n", text)
        report = " ".join(text.split())
        assert "refused: ftr1 has fuel for 3 squares and N3 is 6 squares away" in report
        assert "ftr1 sent to the nearest place each can refuel: E3; arrived and refuelled" in report
        assert "fired flak at your heavy bomber hb2" in report and "(drew " in report
        assert "bombed lee's inf3 at M3 for 3 damage (50% of 5 HP, rounded up)" in report
        state = h.app.engine("strategic").load_state(h.game("sky").state)
        ftr = state.units["ftr1"]
        assert ftr.fuel == 16 and state.grid.name(ftr.square) == "E3"
    finally:
        h.close()
