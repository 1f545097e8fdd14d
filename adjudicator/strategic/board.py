"""The board of a Strategic Initiative game and its start (RULINGS.md,
Strategic Initiative: the board and the start).

:func:`generate` makes the map from the player count, the size and a seed,
the same map every time for the same three: islands in water on a grid that
wraps on both edges, about 30% land; one home island per player with 6
cities, every home island at least 8 squares from every other; and at least
6 neutral cities per player on the other islands. The default size grows
with the player count (:func:`default_size`). Every city has a name a person
can type: letters only, made of syllables, unique in the game ignoring case,
and none the beginning of another.

:func:`start` turns the map into the position before tick 1: each nation's
command points and technology, the home cities' designations and first
builds, and the first units.
"""

from __future__ import annotations

import colorsys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import isqrt
from typing import Any

from adjudicator.base import GameError, Rng
from adjudicator.drawing import COLOURS
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.rules import GAME_TICKS, LEVELS, UnitType, tables
from adjudicator.strategic.state import Board, City, Nation, State, Unit

LAND_SHARE = Fraction(30, 100)
AREA_PER_PLAYER = 640  # squares of board per player in the default size
HOME_DESIGNATIONS = ("fort", "port", "tech", "fort", "port", "airport")  # around the island
HOME_APART = 8  # the least distance from a home island's land to another's
HOME_RADIUS = 4  # a home island lies within this distance of its centre
HOME_SIZE = (26, 34)  # the squares of land of a home island, least and most
WINDOW = 5  # an island grows from its last few new squares' sides: winding coasts
NEUTRAL_PER_PLAYER = 6  # neutral cities, at least, per player
NEUTRAL_LAND_PER_CITY = 40  # and one per this much neutral land where that is more
# a neutral city's designation, drawn with these weights (a port only on a coast)
NEUTRAL_DESIGNATIONS = (("fort", 3), ("port", 3), ("tech", 2), ("airport", 2), ("base", 1))
START_UNITS = (("fort", "infantry", 2), ("port", "transport", 1))  # in the first such city
MOST_SIDE = 1024  # the widest or highest board
CELL = 2 * HOME_RADIUS + 1 + HOME_APART  # the least cell a home island needs


@dataclass(frozen=True)
class CitySpot:
    """A city of a generated map: where it stands, what it is named and
    designated, and whose home it is (the seat's index; None: neutral)."""

    name: str
    square: int
    designation: str
    home: int | None = None


def default_size(players: int) -> tuple[int, int]:
    """The board for ``players``: square, about 640 squares a player, the
    side rounded up to a multiple of 8 and at least 32 (2 players 40 x 40,
    6 players 64 x 64, 24 players 128 x 128)."""
    area = max(1, players) * AREA_PER_PLAYER
    side = isqrt(area)
    side += side * side < area
    side = max(32, -(-side // 8) * 8)
    return side, side


def generate(
    players: int, seed: int, width: int | None = None, height: int | None = None
) -> tuple[Board, list[CitySpot]]:
    """The map for ``players`` from ``seed``: the board and its cities,
    the home cities first (seat by seat, in HOME_DESIGNATIONS order around
    each island), then the neutral cities by square. The size defaults to
    :func:`default_size`. Raises GameError when the board is too small."""
    if players < 1:
        raise GameError("a game needs at least 1 player")
    dw, dh = default_size(players)
    work = _Work(width or dw, height or dh, Rng(seed))
    homes = [
        _home_island(work, centre, i + 1) for i, centre in enumerate(_home_centres(work, players))
    ]
    _neutral_islands(work, players)
    neutral = _neutral_cities(work, players, [s for ring in homes for s in ring])
    names = _names(6 * players + len(neutral), work.rng)
    spots = [
        CitySpot(names[6 * i + k], sq, HOME_DESIGNATIONS[k], i)
        for i, ring in enumerate(homes)
        for k, sq in enumerate(ring)
    ]
    names = names[6 * players :]
    spots += [CitySpot(names[k], sq, _designation(work, sq)) for k, sq in enumerate(neutral)]
    land = frozenset(sq for sq, ident in enumerate(work.island) if ident)
    return Board(Grid(work.width, work.height), land), spots


# -- working on the grid -------------------------------------------------------


class _Work:
    """The map being made: which island each square belongs to (0: water)."""

    def __init__(self, width: int, height: int, rng: Rng) -> None:
        if not (CELL <= width <= MOST_SIDE and CELL <= height <= MOST_SIDE):
            raise GameError(
                f"a board of {width} x {height} cannot be: each side from {CELL} to {MOST_SIDE}"
            )
        self.width, self.height, self.rng = width, height, rng
        self.size = width * height
        self.island = [0] * self.size
        self.land = 0

    def at(self, square: int, dx: int, dy: int) -> int:
        row, column = divmod(square, self.width)
        return ((row + dy) % self.height) * self.width + (column + dx) % self.width

    def around(self, square: int) -> tuple[int, ...]:
        """The 8 neighbours."""
        w = self.width
        row, c = divmod(square, w)
        up, mid, down = ((row - 1) % self.height) * w, row * w, ((row + 1) % self.height) * w
        left, right = (c - 1) % w, (c + 1) % w
        return (up + left, up + c, up + right, mid + left, mid + right,
                down + left, down + c, down + right)  # fmt: skip

    def free(self, square: int) -> bool:
        """Water with no land of an island around it (a new island may grow
        here without touching another)."""
        island = self.island
        return not island[square] and not any(island[n] for n in self.around(square))

    def coastal(self, square: int) -> bool:
        return any(not self.island[n] for n in self.around(square))

    def commit(self, squares: list[int], ident: int) -> None:
        for sq in squares:
            self.island[sq] = ident
        self.land += len(squares)


def _blob(work: _Work, seed: int, target: int, radius: int) -> dict[int, tuple[int, int]]:
    """An island grown at random from ``seed`` over free water, up to
    ``target`` squares within ``radius`` of it, its enclosed water filled:
    each square with its offset from the seed. Not yet on the map. Empty
    when it would ring another island in (a lagoon no ship could leave) or
    a wide lagoon."""
    rng = work.rng
    off = {seed: (0, 0)}
    candidates: list[tuple[int, int, int]] = []
    _add_cross(work, candidates, seed, 0, 0)
    while len(off) < target and candidates:
        i = len(candidates) - 1 - rng.below(min(len(candidates), WINDOW))
        candidates[i], candidates[-1] = candidates[-1], candidates[i]
        sq, dx, dy = candidates.pop()
        if sq in off or dx * dx + dy * dy > radius * radius or not work.free(sq):
            continue
        off[sq] = (dx, dy)
        _add_cross(work, candidates, sq, dx, dy)
    if len(off) >= 8 and not _fill_lakes(work, seed, off):  # fewer cannot enclose water
        return {}
    return off


CROSS = ((0, -1), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 0), (0, 1))


def _add_cross(work: _Work, out: list[tuple[int, int, int]], sq: int, dx: int, dy: int) -> None:
    """The 4 sides of ``sq`` as candidates, starting at a random side (a
    fixed order would sweep the island row by row into a rectangle)."""
    w, h = work.width, work.height
    row, column = divmod(sq, w)
    first = work.rng.below(4)
    for ex, ey in CROSS[first : first + 4]:
        out.append((((row + ey) % h) * w + (column + ex) % w, dx + ex, dy + ey))


def _fill_lakes(work: _Work, seed: int, off: dict[int, tuple[int, int]]) -> bool:
    """Water the island encloses (ships could never reach it) becomes land;
    False (and nothing filled) if another island stands in it or the water
    is a large part of the island (filled, it would make a solid block)."""
    x0 = min(d[0] for d in off.values()) - 2
    y0 = min(d[1] for d in off.values()) - 2
    bw = max(d[0] for d in off.values()) - x0 + 3
    bh = max(d[1] for d in off.values()) - y0 + 3
    # a local box: the island with a ring of water and a ring of walls around
    # it; water reached from the ring by 8-step moves is open sea
    cells = bytearray(bw * bh)
    for x, y in off.values():
        cells[(y - y0) * bw + x - x0] = 1
    for k in range(bw):
        cells[k] = cells[(bh - 1) * bw + k] = 2
    for k in range(bh):
        cells[k * bw] = cells[k * bw + bw - 1] = 2
    todo = [bw + 1]
    cells[bw + 1] = 2
    steps = (-bw - 1, -bw, -bw + 1, -1, 1, bw - 1, bw, bw + 1)
    while todo:
        at = todo.pop()
        for step in steps:
            if not cells[at + step]:
                cells[at + step] = 2
                todo.append(at + step)
    enclosed = [(k % bw + x0, k // bw + y0) for k, c in enumerate(cells) if not c]
    squares = [work.at(seed, x, y) for x, y in enclosed]
    if len(enclosed) > max(4, len(off) // 4) or any(work.island[sq] for sq in squares):
        return False  # a solid block, or another island walled in
    off.update(zip(squares, enclosed, strict=True))
    return True


# -- home islands ----------------------------------------------------------------


def _home_centres(work: _Work, players: int) -> list[int]:
    """One centre per player, each in its own cell of a lattice over the
    board, moved at random within the cell only so far that home islands
    stay HOME_APART from each other (across the wrapping edges too)."""
    cols, rows = _lattice(work.width, work.height, players)
    rng = work.rng
    cells = rng.shuffled([(c, r) for r in range(rows) for c in range(cols)])[:players]
    jx = (work.width // cols - CELL) // 2
    jy = (work.height // rows - CELL) // 2
    out = []
    for c, r in cells:
        x0, x1 = c * work.width // cols, (c + 1) * work.width // cols
        y0, y1 = r * work.height // rows, (r + 1) * work.height // rows
        x = x0 + (x1 - x0) // 2 + rng.below(2 * jx + 1) - jx
        y = y0 + (y1 - y0) // 2 + rng.below(2 * jy + 1) - jy
        out.append(work.at(0, x, y))
    return out


def _lattice(width: int, height: int, players: int) -> tuple[int, int]:
    """Columns and rows of cells, one home each, as square as they come."""
    best: tuple[int, int, int] | None = None
    for cols in range(1, players + 1):
        rows = -(-players // cols)
        side = min(width // cols, height // rows)
        if best is None or side > best[0]:
            best = (side, cols, rows)
    assert best is not None
    side, cols, rows = best
    if side < CELL:
        raise GameError(
            f"a board of {width} x {height} is too small for {players} players: each "
            f"home island needs {CELL} x {CELL} squares"
        )
    return cols, rows


def _home_island(work: _Work, centre: int, ident: int) -> list[int]:
    """Grow the home island at ``centre`` and choose its 6 cities, all on
    its coast, in order around it with no two side by side. The squares of
    the cities, in HOME_DESIGNATIONS order."""
    least, most = HOME_SIZE
    for _ in range(100):
        off = _blob(work, centre, least + work.rng.below(most - least + 1), HOME_RADIUS)
        if len(off) < least:
            continue
        ring = _ring(work, off)
        if ring:
            work.commit(list(off), ident)
            return ring
    raise GameError("no home island could be made here")  # pragma: no cover - never seen


def _ring(work: _Work, off: dict[int, tuple[int, int]]) -> list[int] | None:
    """Six coastal squares of the island, one in each sixth of its coast
    taken around the centre, none next to another (None if there are not)."""
    coast = sorted((sq for sq in off if any(n not in off for n in work.around(sq))),
                   key=lambda sq: _angle(*off[sq]))  # fmt: skip
    n = len(coast)
    start = work.rng.below(n)
    chosen: list[int] = []
    for k in range(len(HOME_DESIGNATIONS)):
        for j in range(k * n // 6, (k + 1) * n // 6):
            sq = coast[(start + j) % n]
            if all(_apart(off[sq], off[c]) >= 2 for c in chosen):
                chosen.append(sq)
                break
        else:
            return None
    return chosen


def _apart(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _angle(dx: int, dy: int) -> Fraction:
    """The direction of (dx, dy) as an exact number in [0, 4), growing with
    the angle (a diamond angle: no floating point, the same everywhere)."""
    if dx == dy == 0:
        return Fraction(0)
    if dy >= 0:
        return Fraction(dy, dx + dy) if dx >= 0 else 1 + Fraction(-dx, dy - dx)
    return 2 + Fraction(-dy, -dx - dy) if dx < 0 else 3 + Fraction(dx, dx - dy)


# -- neutral islands and cities --------------------------------------------------


def _neutral_islands(work: _Work, players: int) -> None:
    """Islands at random places and of random sizes until land is about
    LAND_SHARE of the board (or no free water is left to start one)."""
    target = int(work.size * LAND_SHARE)
    most = (min(work.width, work.height) - 3) // 2  # never round the board onto itself
    ident = players + 1
    rng = work.rng
    misses = 0
    while work.land < target and misses < 2000:
        seed = rng.below(work.size)
        if not work.free(seed):
            misses += 1
            continue
        size = min(_island_size(rng), target - work.land + 2)
        off = _blob(work, seed, size, min(most, max(2, 2 * isqrt(size))))
        if len(off) < 3:
            misses += 1
            continue
        work.commit(sorted(off), ident)
        ident += 1


def _island_size(rng: Rng) -> int:
    """Mostly small islands, some middling, a few large."""
    kind = rng.below(8)
    if kind < 5:
        return 3 + rng.below(10)
    if kind < 7:
        return 13 + rng.below(30)
    return 43 + rng.below(80)


def _neutral_cities(work: _Work, players: int, homes: list[int]) -> list[int]:
    """The neutral cities' squares, by square: at least NEUTRAL_PER_PLAYER
    a player (more on a board with much land), no two within 2 squares of
    each other where there is room (else never side by side), one island
    each before any island gets a second."""
    candidates = [sq for sq, ident in enumerate(work.island) if ident > players]
    wanted = max(NEUTRAL_PER_PLAYER * players, len(candidates) // NEUTRAL_LAND_PER_CITY)
    order = work.rng.shuffled(candidates)
    chosen: list[int] = []
    for spacing, one_each in ((2, True), (2, False), (1, False)):
        near = bytearray(work.size)
        for sq in homes + chosen:
            _mark(work, near, sq, spacing)
        islands = {work.island[sq] for sq in chosen}
        for sq in order:
            if len(chosen) >= wanted:
                break
            if near[sq] or (one_each and work.island[sq] in islands):
                continue
            chosen.append(sq)
            islands.add(work.island[sq])
            _mark(work, near, sq, spacing)
    if len(chosen) < wanted:
        raise GameError(
            f"a board of {work.width} x {work.height} has room for only {len(chosen)} "
            f"neutral cities; {players} players need {wanted}: make it larger"
        )
    return sorted(chosen)


def _mark(work: _Work, near: bytearray, square: int, radius: int) -> None:
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            near[work.at(square, dx, dy)] = 1


def _designation(work: _Work, square: int) -> str:
    """A neutral city's designation, at random by NEUTRAL_DESIGNATIONS'
    weights, among those its square allows (a port only on a coast)."""
    cities = tables().cities
    coastal = work.coastal(square)
    allowed = [(d, w) for d, w in NEUTRAL_DESIGNATIONS if coastal or not cities[d].needs_coast]
    pick = work.rng.below(sum(w for _, w in allowed))
    for d, w in allowed:
        if pick < w:
            return d
        pick -= w
    raise AssertionError("unreachable")  # pragma: no cover


# -- names -----------------------------------------------------------------------

ONSETS = ("b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
          "br", "dr", "gr", "kr", "tr", "st", "sh", "ch", "th")  # fmt: skip
VOWELS = ("a", "e", "i", "o", "u", "a", "o", "e")
CODAS = ("", "", "", "", "n", "r", "l", "s", "m")
INNER_CODAS = ("n", "r", "l", "m")
ORDER_WORDS = ("move", "attack", "build", "next", "cancel", "declare", "status", "with",
               "toward", "towards", "into", "help", "units", "cities", "city", "stop",
               "alliance", "peace", "builds")  # fmt: skip


def _reserved() -> set[str]:
    """Words the orders use, which no city may be named."""
    t = tables()
    words = {w.lower() for w in ORDER_WORDS + LEVELS}
    for u in t.units.values():
        words |= {u.key.replace("_", ""), u.name.replace(" ", ""), u.short}
    for c in t.cities.values():
        words |= {c.key, c.name.replace(" ", "")}
    return words


def _names(count: int, rng: Rng) -> list[str]:
    """``count`` city names: 2 or 3 syllables, 4 to 9 letters, capitalised,
    unique ignoring case, none the beginning of another, none an order's
    word."""
    taken: set[str] = set()
    prefixes: set[str] = set()
    reserved = _reserved()
    out: list[str] = []
    while len(out) < count:
        word = _word(rng)
        if not 4 <= len(word) <= 9 or word in reserved or word in prefixes:
            continue
        if any(word[:k] in taken for k in range(1, len(word) + 1)):
            continue
        taken.add(word)
        prefixes.update(word[:k] for k in range(1, len(word) + 1))
        out.append(word.capitalize())
    return out


def _word(rng: Rng) -> str:
    """Syllables of an onset and a vowel; an ending consonant at the end,
    and inside the word only before a single consonant."""
    onsets = [rng.choice(ONSETS) for _ in range(2 + (rng.below(4) == 0))]
    out = ""
    for k, onset in enumerate(onsets):
        out += onset + rng.choice(VOWELS)
        last = k == len(onsets) - 1
        if last or (len(onsets[k + 1]) == 1 and rng.below(3) == 0):
            out += rng.choice(CODAS if last else INNER_CODAS)
    return out


# -- the start -------------------------------------------------------------------


def colour(i: int, count: int) -> str:
    """Seat i's colour: the named colours first, then evenly spread hues
    as #rrggbb beyond them."""
    names = list(COLOURS)
    if i < len(names):
        return names[i]
    extra = count - len(names)
    r, g, b = colorsys.hsv_to_rgb((i - len(names)) / extra, 0.6, 0.9 if i % 2 else 0.65)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def start(
    board: Board,
    cities: Sequence[CitySpot],
    players: Sequence[str],
    seed: int,
    options: Mapping[str, Any] | None = None,
) -> State:
    """The position before tick 1 (RULINGS.md): player i plays the home of
    seat i; each nation has ``command_start`` command points (512 unless
    ``options`` says) and technology 0, its first fort holds 2 infantry and
    its first port a transport; every home city builds the cheapest unit
    its designation allows at technology 0 (an airport nothing yet);
    neutral cities have no owner and build nothing. ``options`` may set
    ``command_start`` and ``length`` (ticks); all options are kept."""
    options = dict(options or {})
    command, length = _start_figures(options)
    seats = sorted({c.home for c in cities if c.home is not None})
    if len(players) != len(seats) or len({p.lower() for p in players}) != len(players):
        raise GameError(f"this map has {len(seats)} homes; give as many players, each once")
    nations = {
        p: Nation(name=p, colour=colour(i, len(players)), command=command, tech=Fraction(0))
        for i, p in enumerate(players)
    }
    state = State(board, nations, {}, {}, seed=seed, length=length, options=options)
    for spot in sorted(cities, key=lambda c: c.square):
        owner = None if spot.home is None else players[spot.home]
        build = first_build(spot.designation) if owner else None
        state.cities[spot.square] = City(spot.name, spot.square, owner, spot.designation, build)
    for i, player in enumerate(players):
        home = [c for c in cities if c.home == i]
        for designation, kind, count in START_UNITS:
            first = next(c for c in home if c.designation == designation)
            for _ in range(count):
                new_unit(state, player, kind, first.square)
    return state


def _start_figures(options: Mapping[str, Any]) -> tuple[int, int]:
    t = tables()
    command = options.get("command_start", t.command_start)
    length = options.get("length", GAME_TICKS)
    if type(command) is not int or not 0 <= command <= t.command_most:
        raise GameError(f"command_start must be a whole number from 0 to {t.command_most}")
    if type(length) is not int or length < 1:
        raise GameError("length must be a whole number of ticks, at least 1")
    return command, length


def first_build(designation: str) -> str | None:
    """The cheapest unit a city of ``designation`` builds at technology 0
    (None: it builds nothing yet)."""
    found = [u for u in tables().buildable(designation) if u.tech <= 0 and u.part == 1]
    return found[0].key if found else None


def full_fuel(kind: UnitType) -> int:
    """An air unit's fuel when refuelled: its table mobility (RULINGS.md);
    units that need no fuel have none."""
    return kind.mobility if kind.domain == "air" and "no_fuel" not in kind.flags else 0


def new_unit(state: State, owner: str, kind: str, square: int) -> Unit:
    """A new unit of ``owner`` in ``square``, as built (RULINGS.md: full HP,
    full ammo, full fuel, mobility the table's value), numbered by the
    game's counter (``inf7``: the 7th unit of the game), added to the state."""
    t = tables().unit(kind)
    state.counter += 1
    while f"{t.short}{state.counter}" in state.units:  # a hand-made position's ids
        state.counter += 1
    unit = Unit(
        id=f"{t.short}{state.counter}", owner=owner, kind=kind, square=square, hp=t.hp,
        ammo=t.ammo, mobility=t.mobility, fuel=full_fuel(t), built=state.counter,
    )  # fmt: skip
    state.units[unit.id] = unit
    return unit


def text_map(state: State) -> str:
    """The board as text, one line a row: ``.`` water, ``#`` land, a city
    by the first letter of its designation (capital: owned, small: neutral).
    For looking at a map; players see theirs as a picture."""
    grid = state.grid
    chars = ["#" if sq in state.board.land else "." for sq in range(grid.size)]
    for sq, city in state.cities.items():
        letter = city.designation[0]
        chars[sq] = letter.upper() if city.owner else letter
    w = grid.width
    return "\n".join("".join(chars[r * w : (r + 1) * w]) for r in range(grid.height)) + "\n"
