"""Small hand-made Strategic Initiative positions for the war tests
(supply, moving, attacking): a board drawn as text, nations, units."""

from __future__ import annotations

from fractions import Fraction

from adjudicator.base import Rng
from adjudicator.strategic.board import full_fuel
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import Board, City, Nation, State, Unit

# Islands on a board of 24 x 12 (cells of supply range wrap at both
# edges), with cities of every designation: the property tests' board.
ISLANDS = [
    "..........##......##....",
    "..P###....#F#....#T#....",
    "..####......#....###....",
    "...#F#....P##...........",
    "........................",
    "......###.......##P.....",
    "......#T#.......####....",
    "......###........#F#....",
    "........................",
    "..#B##.......##.........",
    "..####......#P#.........",
    "........................",
]

CITY_LETTERS = {"F": "fort", "P": "port", "A": "airport", "T": "tech", "B": "base"}


def position(rows: list[str], nations: tuple[str, ...] = ("red", "blue"), **owners: str) -> State:
    """A state from rows of text: ``.`` water, ``#`` land, F P A T B a city
    (fort, port, airport, tech centre, base), neutral unless ``owners``
    names its square (``C3="red"``). Cities are named after their square."""
    grid = Grid(len(rows[0]), len(rows))
    land: set[int] = set()
    cities: dict[int, City] = {}
    for r, row in enumerate(rows):
        assert len(row) == grid.width, row
        for c, ch in enumerate(row):
            sq = grid.square(c, r)
            if ch == ".":
                continue
            land.add(sq)
            if ch in CITY_LETTERS:
                name = grid.name(sq)
                cities[sq] = City(name, sq, owners.get(name), CITY_LETTERS[ch], None)
    people = {n: Nation(n, n, 512, Fraction(0)) for n in nations}
    return State(Board(grid, frozenset(land)), people, cities, {})


def unit(
    state: State, owner: str, kind: str, where: str, uid: str | None = None, **kw: int
) -> Unit:
    """Put a unit of ``kind`` on the square named ``where``, at full HP,
    ammo and fuel and the table's mobility unless ``kw`` says otherwise."""
    t = tables().unit(kind)
    state.counter += 1
    u = Unit(
        id=uid or f"{t.short}{state.counter}",
        owner=owner,
        kind=kind,
        square=sq(state, where),
        hp=kw.pop("hp", t.hp),
        ammo=kw.pop("ammo", t.ammo),
        mobility=kw.pop("mobility", t.mobility),
        fuel=kw.pop("fuel", full_fuel(t)),
        built=kw.pop("built", state.counter),
    )
    assert not kw, kw
    state.units[u.id] = u
    return u


def scatter(state: State, kinds: list[str], count: int, rng: Rng,
            nations: tuple[str, ...]) -> None:  # fmt: skip
    """``count`` units, of ``kinds`` and ``nations`` in turn, each on a free
    square of its own (ships at sea, the others on land), drawn from ``rng``."""
    land = sorted(state.board.land)
    sea = [s for s in range(state.grid.size) if s not in state.board.land]
    for i in range(count):
        kind = kinds[i % len(kinds)]
        spots = sea if tables().unit(kind).ship else land
        taken = {u.square for u in state.units.values()} | set(state.cities)
        where = rng.choice([s for s in spots if s not in taken])
        unit(state, nations[i % len(nations)], kind, state.grid.name(where))


def sq(state: State, name: str) -> int:
    square = state.grid.parse(name)
    assert square is not None, name
    return square


def relate(state: State, a: str, b: str, level: str) -> None:
    """Both directions at ``level`` (in effect and declared)."""
    for x, y in ((a, b), (b, a)):
        state.nations[x].relations[y] = level
        state.nations[x].declared[y] = level


def names(state: State, squares) -> list[str]:
    return [state.grid.name(s) for s in squares]
