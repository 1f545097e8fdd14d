"""Carrying and engineers in words and as a property: every form of the
load, unload, terrain and new city orders is read (misspellings get a
suggestion, a city keeps the case its founder wrote); and over seeded
random ticks of boarding, sailing, unloading and sinking, a carried unit
is always in its carrier's square, no carrier ever holds more than its
room, and no land unit stands at sea but aboard. The rule cases are in
tests/cases/strategic/carrying/ and engineers/."""

from __future__ import annotations

from collections import Counter

import pytest

from adjudicator.base import OrderSheet, Rng
from adjudicator.strategic.cargo import capacity
from adjudicator.strategic.orders import Load, NewCity, Terrain, Unload
from adjudicator.strategic.reading import read_orders
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import State
from adjudicator.strategic.tick import run_tick
from tests.si_war_boards import position, relate, unit

ROWS = [
    "............",
    ".P###...###.",
    ".####...##P.",
    ".###.....##.",
    "............",
    "....####....",
    "....##F#....",
    "............",
]


def board() -> State:
    s = position(ROWS, ("red", "blue"), B2="red", K3="blue", G7="red")
    for city in s.cities.values():
        city.build = "infantry" if city.designation == "fort" else "transport"
    unit(s, "red", "infantry", "C2", "inf1")
    unit(s, "red", "infantry", "C3", "inf2")
    unit(s, "red", "transport", "B2", "tr3")
    unit(s, "red", "engineer", "D2", "eng4")
    unit(s, "red", "icbm1", "D2", "icbm5")
    unit(s, "red", "submarine", "F2", "sub6")
    unit(s, "blue", "transport", "K3", "tr7")
    return s


def read(line: str, player: str = "red"):
    sheet = read_orders(board(), player, line, seq=3)
    assert len(sheet.orders) + len(sheet.problems) == 1, sheet
    return sheet.orders[0] if sheet.orders else sheet.problems[0]


# -- words -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "want"),
    [
        ("load inf1 inf2 on tr3", (Load, dict(units=("inf1", "inf2"), carrier="tr3"))),
        ("Load inf1, inf2 onto tr3.", (Load, dict(units=("inf1", "inf2"), carrier="tr3"))),
        ("load inf1 aboard tr3", (Load, dict(units=("inf1",), carrier="tr3"))),
        ("board inf1 on tr3", (Load, dict(units=("inf1",), carrier="tr3"))),
        ("embark inf1 inf2", (Load, dict(units=("inf1", "inf2")))),
        ("disembark tr3", (Unload, dict(units=("tr3",)))),
        ("load icbm5 on eng4", (Load, dict(units=("icbm5",), carrier="eng4"))),
        ("load inf1", (Load, dict(units=("inf1",)))),
        ("unload tr3", (Unload, dict(units=("tr3",)))),
        ("unload inf1 inf2", (Unload, dict(units=("inf1", "inf2")))),
        ("terrain eng4", (Terrain, dict(engineer="eng4"))),
        ("terrain eng4 to water", (Terrain, dict(engineer="eng4", to="water"))),
        ("eng4 makes land", (Terrain, dict(engineer="eng4", to="land"))),
        ("eng4 make water", (Terrain, dict(engineer="eng4", to="water"))),
        ("new city with eng4", (NewCity, dict(engineer="eng4"))),
        ("new city Nova Roma with eng4", (NewCity, dict(engineer="eng4", name="Nova Roma"))),
        ("found city O'Hara with eng4", (NewCity, dict(engineer="eng4", name="O'Hara"))),
        ("eng4 builds city Nova", (NewCity, dict(engineer="eng4", name="Nova"))),
        ("eng4 builds a new city", (NewCity, dict(engineer="eng4"))),
    ],
)
def test_every_form_is_read(line, want):
    cls, fields = want
    order = read(line)
    assert order == cls(player="red", seq=3, line=1, **fields), order
    again = read(order.canonical())  # what the receipt quotes reads back the same
    assert again == order


def test_unload_to_a_square_or_a_city():
    order = read("unload tr3 to D3")
    assert isinstance(order, Unload) and order.target_name == "D3" and order.units == ("tr3",)
    assert read("unload inf1 -> b2").target_name == "B2"
    assert read("unload tr3 to G7").target_name == "G7"  # the city named after its square


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ("laod inf1 on tr3", "load inf1 on tr3"),
        ("unlaod tr3 to D3", "unload tr3 to D3"),
        ("terain eng4", "terrain eng4"),
    ],
)
def test_a_misspelt_order_word_gets_a_suggestion(line, fixed):
    problem = read(line)
    assert problem.reason == "not_an_order" and problem.suggestions == (fixed,)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("load inf1 on tr7", "no_such_unit"),  # blue's: never said to exist
        ("load inf9 on tr3", "no_such_unit"),
        ("unload tr3 to ZZ99", "no_such_square"),
        ("terrain tr7", "no_such_unit"),
        ("new city B2 with eng4", "not_an_order"),  # a square's name reads as no name
        ("new city build with eng4", "bad_city_name"),
        ("new city b with eng4", "bad_city_name"),
        ("new city g7 with eng4", "not_an_order"),
        ("eng4 builds city Move", "bad_city_name"),
        ("new city Nova with eng4 eng5", "not_an_order"),
    ],
)
def test_what_reading_refuses(line, reason):
    problem = read(line)
    assert problem.reason == reason, problem


def test_a_taken_name_is_refused_whatever_its_case():
    s = board()
    s.cities[next(iter(s.cities))].name = "Nova"
    (problem,) = read_orders(s, "red", "eng4 builds city NOVA").problems
    assert problem.reason == "city_name_taken" and problem.facts == {"name": "NOVA"}


def test_a_city_name_is_not_read_as_a_build_order():
    """ "eng4 builds city Nova" is a new city, not Nova as a unit type."""
    assert isinstance(read("eng4 builds city Nova"), NewCity)
    assert read("B2 builds infantry").kind == "infantry"


# -- the property --------------------------------------------------------------------------


SEA = ["F2", "F3", "F4", "E4", "E5", "D5", "C5", "G3", "H2"]  # off red's island, most of them


def _random_orders(s: State, rng: Rng) -> list[str]:
    """Red's orders of every carrying kind, aimed where they may do
    something: infantry onto a transport's square or next to it, loads
    and unloads next to land, ships to the sea; some sure to be refused."""
    kinds = tables().units
    red = sorted(u.id for u in s.units.values() if u.owner == "red")
    ships = [i for i in red if kinds[s.units[i].kind].ship]
    lines = []
    for _ in range(5):
        uid = rng.choice(red)
        there = s.grid.name(s.units[rng.choice(ships)].square) if ships else "E3"
        nearby = [s.grid.name(n) for n in s.grid.neighbours(s.units[uid].square)]
        what = rng.below(6)
        if what == 0 and ships:
            lines.append(f"load {uid} on {rng.choice(ships)}")
        elif what == 1:
            lines.append(f"unload {uid}" + (f" to {rng.choice(nearby)}" if rng.coin() else ""))
        elif what == 2 and uid in ships:
            lines.append(f"move {uid} to {rng.choice(SEA)}")
        else:
            lines.append(f"move {uid} to {rng.choice([there, there, *nearby])}")
    return lines


def _blue(s: State, rng: Rng) -> str:
    """Blue's destroyer closes in on a red ship and fires."""
    ships = sorted(u.id for u in s.units.values() if u.owner == "red" and u.kind != "infantry")
    ships = [i for i in ships if tables().unit(s.units[i].kind).ship]
    return f"attack {s.grid.name(s.units[rng.choice(ships)].square)} with dd9" if ships else ""


def _check(s: State) -> None:
    kinds = tables().units
    aboard: Counter[str] = Counter()
    for u in s.units.values():
        if u.carried_by is None:
            assert kinds[u.kind].domain != "land" or u.square in s.board.land, u
            continue
        carrier = s.units.get(u.carried_by)
        assert carrier is not None and carrier.square == u.square, u
        assert carrier.owner == u.owner
        assert capacity(kinds[carrier.kind], kinds[u.kind]) > 0, u
        aboard[carrier.id] += 1
    for cid, count in aboard.items():
        c = s.units[cid]
        assert count <= max(n for _, n in kinds[c.kind].carries), (cid, count)


@pytest.mark.parametrize("seed", range(4))
def test_carried_units_stay_with_their_carrier_and_within_its_room(seed):
    rng = Rng(seed)
    s = board()
    relate(s, "red", "blue", "war")
    for i in range(8):
        unit(s, "red", "infantry", rng.choice(["C2", "D2", "C3", "B4"]), f"inf{20 + i}")
    unit(s, "red", "transport", "E3", "tr9")
    unit(s, "red", "helicopter", "C3", "hel10")
    unit(s, "red", "carrier", "G3", "cv11")
    unit(s, "blue", "destroyer", "H5", "dd9")
    seen: Counter[str] = Counter()
    for tick in range(30):
        sheets = [read_orders(s, "red", "\n".join(_random_orders(s, rng)), tick)]
        if tick % 5 == 4 and "dd9" in s.units:
            sheets.append(read_orders(s, "blue", _blue(s, rng), tick))
        for u in s.units.values():
            u.mobility = max(u.mobility, tables().unit(u.kind).mobility)  # keep them going
        result = run_tick(s, [OrderSheet(x.player, x.orders) for x in sheets], seed * 100 + tick)
        s = result.state
        seen.update(e.kind for e in result.events)
        _check(s)
    assert seen["boarded"] >= 3 and seen["moved"] >= 10, seen  # the property was put to work
