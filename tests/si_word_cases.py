"""Strategic Initiative ticks that make the engine say every result code and
every kind of event it has, on small hand-made positions (the boards of
si_war_boards): what tests/test_strategic_words.py checks is worded, from
real results and events, not from a list written by hand."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from adjudicator.base import Order, OrderSheet, TurnResult
from adjudicator.strategic.orders import (
    Attack,
    Build,
    Cancel,
    Declare,
    Load,
    Move,
    Refuel,
    Status,
    Unload,
)
from adjudicator.strategic.state import Standing, State
from adjudicator.strategic.tick import run_tick
from tests.si_cases import case_id, every_case
from tests.si_war_boards import position, relate, sq, unit

# One island from B2 to N4 with sea all round: red's fort B2 and port B3 in
# the west, blue's fort N2 and port N3 in the east, a neutral inland fort F3
# between them, and the sea to the south for ships.
ROWS = [
    "................",
    ".F###########F..",
    ".P###F#######P..",
    ".##############.",
    "................",
    "................",
]
NATIONS = ("red", "blue", "green")


def board(**owners: str) -> State:
    """The island with red's and blue's cities and green watching nothing
    yet; every owned city builds infantry (a fort) or a supply ship (a port)."""
    s = position(ROWS, NATIONS, B2="red", B3="red", N2="blue", N3="blue", **owners)
    for city in s.cities.values():
        if city.owner is not None:
            city.build = "infantry" if city.designation == "fort" else "supply_ship"
    return s


def at_war(s: State, a: str = "red", b: str = "blue") -> State:
    relate(s, a, b, "war")
    return s


@dataclass(frozen=True)
class Case:
    """A position, the orders of one tick (by red unless they say), and
    what the case is there to make the engine say."""

    name: str
    make: Callable[[], tuple[State, list[Order]]]


def order(cls: type, s: State, player: str = "red", **facts) -> Order:
    """An order as reading makes it; ``target`` a square's name."""
    if "target" in facts:
        name = facts.pop("target")
        facts.update(target=sq(s, name), target_name=name)
    if "units" in facts:
        facts["units"] = tuple(facts["units"])
    return cls(player=player, seq=1, line=1, **facts)


def run(s: State, orders: list[Order], seed: int = 5) -> TurnResult:
    sheets = [OrderSheet(p, tuple(o for o in orders if o.player == p)) for p in NATIONS]
    return run_tick(s, sheets, seed)


# -- moving ------------------------------------------------------------------------


def _moved():
    s = board()
    inf = unit(s, "red", "infantry", "C2")
    return s, [order(Move, s, units=[inf.id], target="D2")]


def _standing():
    s = board()
    inf = unit(s, "red", "infantry", "C2")
    return s, [order(Move, s, units=[inf.id], target="K2")]


def _moved_part():
    s = board()
    inf = unit(s, "red", "infantry", "C4")
    ship = unit(s, "red", "transport", "C5")
    return s, [order(Move, s, units=[inf.id, ship.id], target="D4")]


def _captured():
    """Red's infantry takes the neutral fort; green's, next to it, sees it."""
    s = board()
    inf = unit(s, "red", "infantry", "E3")
    unit(s, "green", "infantry", "G3")
    return s, [order(Move, s, units=[inf.id], target="F3")]


def _cancelled():
    s = board()
    inf = unit(s, "red", "infantry", "C2", mobility=0)
    s.standing.append(Standing("red", (inf.id,), sq(s, "K2"), "move", 0))
    return s, [order(Cancel, s, of=inf.id)]


def _standing_dropped():
    s = board()
    inf = unit(s, "red", "infantry", "J2", mobility=0)  # next to K2: it sees it held
    unit(s, "blue", "infantry", "K2")
    s.standing.append(Standing("red", (inf.id,), sq(s, "K2"), "move", 0))
    return s, []


# -- fighting ----------------------------------------------------------------------


def _fight(hp: int, watcher: str):
    """Red's infantry at H3 attacks blue's at I3 (``hp``: 1 dies at the
    first shot, 5 fires back); green's infantry watches from ``watcher``."""
    s = at_war(board())
    red = unit(s, "red", "infantry", "H3")
    unit(s, "blue", "infantry", "I3", hp=hp, ammo=0 if hp == 1 else 1)
    unit(s, "green", "infantry", watcher)
    return s, [order(Attack, s, units=[red.id], target="I3")]


def _destroyed():
    """Green, between them at I4, sees it all."""
    return _fight(1, "I4")


def _destroyed_from_the_fog():
    """Green at J4 sees blue's infantry hit and destroyed, not red's that fired."""
    return _fight(1, "J4")


def _attacked():
    """Blue's infantry fires back; green at I4 sees it all."""
    return _fight(5, "I4")


def _not_attacked():
    """Red's infantry moves next to blue's, and has no ammo there."""
    s = at_war(board())
    red = unit(s, "red", "infantry", "G3", ammo=0, mobility=6)
    unit(s, "blue", "infantry", "I3")
    s.nations["red"].tech = Fraction(0)
    s.cities = {k: c for k, c in s.cities.items() if c.owner != "red"}  # out of supply: no ammo
    return s, [order(Attack, s, units=[red.id], target="I3")]


def _cannon_seen_by(kind: str, where: str):
    """A destroyer of red's at O4 attacks blue's port N3, which fires its
    cannon; green's unit of ``kind`` watches from ``where``."""
    s = at_war(board())
    ship = unit(s, "red", "destroyer", "O4")
    unit(s, "blue", "infantry", "N3")
    unit(s, "green", kind, where)
    return s, [order(Attack, s, units=[ship.id], target="N3")]


def _cannon():
    """Green's patrol boat at P4 sees the port fire and the ship."""
    return _cannon_seen_by("patrol_boat", "P4")


def _cannon_into_the_fog():
    """Green's infantry inland sees blue's port fire, not the ship it fires at."""
    return _cannon_seen_by("infantry", "M2")


# -- refusals of moves and attacks ---------------------------------------------------


def _refusals():
    s = board()
    inf = unit(s, "red", "infantry", "C2")
    weak = unit(s, "red", "infantry", "E2", hp=3)
    ship = unit(s, "red", "transport", "C5")
    plane = unit(s, "red", "satellite", "B2")
    blue = unit(s, "blue", "infantry", "K2")
    unit(s, "red", "infantry", "J3")  # scouts: a target is refused for what is
    unit(s, "red", "infantry", "M3")  # there only if red sees it (K2, N2)
    return s, [
        order(Move, s, units=[blue.id], target="D2"),  # not_your_unit
        order(Move, s, units=[plane.id], target="C2"),  # cannot_move
        order(Move, s, units=[inf.id], target="C2"),  # already_there
        order(Move, s, units=[ship.id], target="D2"),  # no_path
        order(Move, s, units=[inf.id], target="K2"),  # occupied
        order(Move, s, units=[inf.id], target="N2"),  # not_at_war
        order(Move, s, units=[weak.id], target="F3"),  # cannot_capture
        order(Attack, s, units=[inf.id], target="K2"),  # not_at_war (units)
        order(Attack, s, units=[inf.id], target="D3"),  # nothing_to_attack
        order(Cancel, s, of=inf.id),  # no_standing
    ]


def _blocked():
    """Blue's infantry fill the only way east along a one-square isthmus,
    next to red's (in sight: a way is planned from what the nation sees)."""
    s = position(["..........", ".##...##..", "...###....", ".........."], NATIONS)
    inf = unit(s, "red", "infantry", "D3")
    unit(s, "blue", "infantry", "E3")
    return s, [order(Move, s, units=[inf.id], target="H2")]


def _cannot_attack():
    s = at_war(board())
    ship = unit(s, "red", "transport", "C5")
    unit(s, "blue", "destroyer", "D5")
    return s, [order(Attack, s, units=[ship.id], target="D5")]


def _cannot_pay():
    s = board()
    inf = unit(s, "red", "infantry", "E3")
    s.nations["red"].command = 0  # the tick brings 2; a capture costs 4
    return s, [order(Move, s, units=[inf.id], target="F3")]


# -- builds ------------------------------------------------------------------------


def _builds():
    s = board(F3="red")
    return s, [
        order(Build, s, city="B2", kind="infantry", next=True),  # next_build_set
        order(Build, s, city="B3", kind="patrol_boat"),  # build_set
        order(Build, s, city="B2", kind="", next=True),  # next_build_cleared
        order(Build, s, city="Nowhere", kind="infantry"),  # no_such_city
        order(Build, s, city="N2", kind="infantry"),  # not_your_city
        order(Build, s, city="B2", kind="zeppelin_x"),  # no_such_unit_type
        order(Build, s, city="B2", kind="tank"),  # tech_too_low
        order(Build, s, city="B3", kind="cruiser", next=True),  # next_tech_too_high
        order(Build, s, city="F3", kind="transport"),  # port_needs_coast
        order(Build, s, city="B2", kind="transport", next=True),  # next_not_built_there
        order(Build, s, city="B2", kind="fort"),  # name_a_unit
        order(Build, s, city="B2", kind="base", next=True),  # base_is_not_next
    ]


def _built():
    """Blue's fort N2 finishes an infantry; red's fort B2 finishes one too,
    but red's power is past its limit of 10 (two cities): it is skipped."""
    s = board()
    s.cities[sq(s, "N2")].progress = 8 * 60 - 15
    s.cities[sq(s, "B2")].progress = 8 * 60 - 15
    unit(s, "red", "transport", "A5")  # power 12 of 10
    return s, []


def _build_started_and_dropped():
    s = board(F3="red")
    s.cities[sq(s, "F3")].build = None
    fort = s.cities[sq(s, "B2")]
    fort.next_build = "infantry"
    return s, [order(Build, s, city="B2", kind="base")]


def _technology():
    s = board()
    s.nations["red"].tech = Fraction(1) - Fraction(1, 10**6)
    s.nations["blue"].tech = Fraction(4)  # the leak brings red past 1
    return s, []


# -- air units ---------------------------------------------------------------------


def _air_refusals():
    """Red has no airport: its fighter has nowhere to refuel."""
    s = board()
    ftr = unit(s, "red", "fighter", "H5", fuel=3)
    zep = unit(s, "red", "zeppelin", "D2")
    return s, [
        order(Refuel, s, units=[zep.id]),  # cannot_refuel
        order(Refuel, s, units=[ftr.id]),  # no_refuelling_place
        order(Move, s, units=[ftr.id], target="O5"),  # beyond_fuel
    ]


def _crashed():
    s = board()
    ftr = unit(s, "red", "fighter", "C4", fuel=1)
    return s, [order(Move, s, units=[ftr.id], target="D5")]


def _refuelling():
    s = board(F3="red")
    s.cities[sq(s, "F3")].designation = "airport"
    ftr = unit(s, "red", "fighter", "D5", fuel=3, ammo=0)
    return s, [order(Refuel, s, units=[ftr.id])]


def _flak_and_bombing():
    """Red's heavy bomber over the sea at O1 bombs blue's fort N2: the fort's
    flak fires first. Green's infantry at M3 sees the fort, not the bomber."""
    s = at_war(board())
    hb = unit(s, "red", "heavy_bomber", "O1")
    unit(s, "blue", "infantry", "N2")
    unit(s, "green", "infantry", "M3")
    return s, [order(Attack, s, units=[hb.id], target="N2")]


# -- group orders that leave units out (groups.py) -----------------------------------


def aboard(s: State, owner: str, kind: str, carrier, uid: str | None = None):
    u = unit(s, owner, kind, s.grid.name(carrier.square), uid=uid)
    u.carried_by = carrier.id
    return u


def _left_out():
    """Each group order does what it can and names each unit it left out:
    a satellite in a move, a plane beyond its fuel, another's unit, a
    plane with nowhere to refuel, a zeppelin (no fuel), carried units sent
    to attack, units that cannot board or find no room, a transport too
    far to unload, a unit that carries nothing and is not carried."""
    s = at_war(board(F3="red"))
    s.cities[sq(s, "F3")].designation = "airport"
    inf = unit(s, "red", "infantry", "C2")
    sat = unit(s, "red", "satellite", "B2")
    far = unit(s, "red", "fighter", "H5", fuel=1)
    near = unit(s, "red", "fighter", "D5", fuel=3)
    lost = unit(s, "red", "fighter", "P6", fuel=1)
    zep = unit(s, "red", "zeppelin", "D2")
    blue = unit(s, "blue", "infantry", "K2")
    scout = unit(s, "red", "infantry", "J2")
    cv = unit(s, "red", "carrier", "K5")
    ftr = aboard(s, "red", "fighter", cv)
    tr = unit(s, "red", "transport", "C5")
    rider = aboard(s, "red", "infantry", tr)
    step = unit(s, "red", "infantry", "C4")
    away = unit(s, "red", "infantry", "H3")
    full = unit(s, "red", "transport", "E5")
    for _ in range(5):
        aboard(s, "red", "infantry", full)
    one, two = unit(s, "red", "infantry", "E4"), unit(s, "red", "infantry", "E4")
    tr3 = unit(s, "red", "transport", "H6")
    aboard(s, "red", "infantry", tr3)
    return s, [
        order(Move, s, units=[inf.id, sat.id, far.id, blue.id], target="D2"),
        order(Refuel, s, units=[near.id, zep.id, lost.id]),
        order(Attack, s, units=[scout.id, ftr.id, rider.id], target="K2"),
        order(Load, s, units=[step.id, away.id, near.id, rider.id], carrier=tr.id),
        order(Load, s, units=[one.id, two.id], carrier=full.id),
        order(Unload, s, units=[tr3.id, inf.id], target="D4"),
        order(Attack, s, units=[ftr.id], target="K2"),  # take_off_first
        order(Unload, s, units=[tr3.id], target="D4"),  # unload_beside
    ]


# -- diplomacy and the rest ---------------------------------------------------------


def _diplomacy():
    s = board()
    relate(s, "red", "green", "friendly")
    return s, [
        order(Declare, s, toward="blue", level="war"),  # declared, relation
        order(Declare, s, toward="green", level="war"),  # declared with notice
        order(Declare, s, toward="nobody", level="war"),  # no_such_nation
        order(Declare, s, toward="red", level="war"),  # toward_yourself
        order(Declare, s, toward="blue", level="hostile"),  # no_such_level
        order(Declare, s, toward="blue", level="war"),  # already_declared
        order(Status, s),  # status
    ]


def _not_in_game():
    s = board()
    s.nations["red"].status = "removed"
    return s, [order(Status, s)]


def _game_over():
    s = board()
    s.length = 1
    return s, []


CASES = [
    Case(f.__name__.strip("_"), f)
    for f in (
        _moved, _standing, _moved_part, _captured, _cancelled, _standing_dropped,
        _destroyed, _destroyed_from_the_fog, _attacked, _not_attacked, _cannon,
        _cannon_into_the_fog, _refusals, _blocked,
        _cannot_attack, _cannot_pay, _builds, _built,
        _build_started_and_dropped, _technology, _diplomacy, _not_in_game, _game_over,
        _air_refusals, _crashed, _refuelling, _flak_and_bombing, _left_out,
    )
]  # fmt: skip


def every_tick() -> Iterator[tuple[str, State, TurnResult]]:
    """Each case's position and the tick run on it, then every tick of the
    rule cases (tests/cases/strategic/: real ticks too)."""
    for case in CASES:
        s, orders = case.make()
        yield case.name, s, run(s, orders)
    for path, played in every_case():
        for turn in played.turns:
            yield case_id(path), played.before, turn
