"""The Strategic Initiative picture: the wrapping grid as one nation sees it.

Water and land in two colours, the squares out of sight now darker (the
fog of war); column letters and row numbers along the edges, so a player
can type a square from the map; every city a square in its owner's colour
(white: neutral; grey: out of sight, its owner not known) with its
designation's letter; units as marks in their owner's colour, a box or a
circle as the unit table's domain says (land, sea), with their type's
letters, or how many share the square; units only remembered (out of
sight now, drawn as last seen) pale with their owner's colour round them;
this tick's moves, loads and attacks as arrows, the short way round the grid (to
one edge and on from the other), a ring round a unit that arrived. Squares
devastated by ICBMs (those the viewer is shown) are scorched; the viewer's
own launched satellites are a star over their target in its colour, with
the edge of what they see drawn round it (nobody else's map shows them).

Drawn from the view alone (``View.board``, sight.py): what the viewer may
not see never reaches the picture. The wrapping grid is cut open where it
splits the least land, from the public terrain alone (window.py): in
water where it can be, so no island is drawn in two pieces, and the same
window in every picture of a game; the letters and numbers on the edges
name the squares wherever they fall. What must still cross the cut (an
arrow, a satellite's sight) is drawn on both sides of it.

Big boards stay small pictures: the ground is one box of its commonest
colour and one box for each run of squares of another colour in a row,
the same runs of the rows below merged into one box.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from math import ceil
from typing import Any

from adjudicator.base import OrderResult, View
from adjudicator.drawing import (
    INK,
    NEUTRAL,
    WIDTH,
    Box,
    Circle,
    Item,
    LegendEntry,
    Line,
    Point,
    Scene,
    Text,
    Want,
    colour,
    failed_entry,
    ink_on,
    left_out_entries,
    player_entries,
    sample_line,
    used,
)
from adjudicator.strategic.arrows import orders
from adjudicator.strategic.frame import Frame
from adjudicator.strategic.grid import column_name
from adjudicator.strategic.rules import MINUTES_PER_TICK, TICKS_PER_DAY, tables
from adjudicator.strategic.squares import Layout
from adjudicator.strategic.window import window

SIDE, TOP = 26.0, 18.0  # room for the row numbers left and right, the letters above and below
MOST_HEIGHT = 1000.0  # a tall board is narrowed to stay this high
MOST_CELL = 40.0
GLYPHS_FROM = 9.0  # a square this many pixels wide shows a unit's letters and a city's
NAMES_FROM = 8.0  # every city named; from OWN_NAMES_FROM only the viewer's; below, none
OWN_NAMES_FROM = 4.0
CITY_LEAST = 4.5  # a city stays this big on the biggest boards

# the ground: (land, out of sight) -> colour, kind, legend words
GROUND = {
    (False, False): ("#a9cfe8", "water", "water"),
    (True, False): ("#e8dfc2", "land", "land"),
    (False, True): ("#8197a6", "water-fog", "water out of sight now"),
    (True, True): ("#aba696", "land-fog", "land out of sight now"),
}
GRID_LINE = "#dde4e9"
COORDINATE = "#555555"
UNKNOWN = "#7a7a7a"  # a city out of sight: its owner is not known
PALE = "#ffffff"  # a remembered unit is its owner's colour mixed with this
CITY_KINDS = ("city", "neutral-city", "unknown-city")
DEVASTATED = "#5b4636"  # a square devastated by an ICBM: scorched


@dataclass(frozen=True)
class Mark:
    """How a unit of a domain is drawn: its shape and the legend's words."""

    shape: str  # box or circle
    kind: str
    words: str


LAND_MARK = Mark("box", "unit", "unit on land: its owner's colour, its type or how many")
MARKS = {
    "land": LAND_MARK,
    "amphibious": LAND_MARK,
    "sea": Mark("circle", "ship", "ship: its owner's colour, its type or how many"),
    "air": Mark("diamond", "plane", "plane: its owner's colour, its type or how many"),
}
REMEMBERED = "remembered"


# --------------------------------------------------------------------------
# Where the grid goes


def frame_for(board: Mapping[str, Any]) -> Frame:
    """The grid fitted to the picture's width (a tall one to MOST_HEIGHT),
    cut open where it splits the least land (window.py)."""
    columns, rows = board["width"], board["height"]
    cell = min((WIDTH - 2 * SIDE) / columns, MOST_HEIGHT / rows, MOST_CELL)
    left = (WIDTH - columns * cell) / 2
    first_column, first_row = window(board["land"], columns, rows)
    return Frame(columns, rows, cell, left, TOP, first_column, first_row)


# --------------------------------------------------------------------------
# The picture


def draw(view: View, results: Sequence[OrderResult]) -> Scene:
    """The map of ``view`` (a nation's, an observer's or the game
    master's) with the moves and attacks of ``results`` on it."""
    board: Mapping[str, Any] = view.board
    frame = frame_for(board)
    scene = Scene(_title(view), frame.bottom + TOP)
    colours = nation_colours(board)
    grounds = ground(scene, frame, board)
    devastation(scene, frame, board)
    grid_lines(scene, frame)
    coordinates(scene, frame, board["grid"])
    layout = layout_of(frame, board)
    letters, glyphs, beside = cities(scene, frame, board, colours, layout)
    scorched_cities(scene, frame, board)
    scene.add(*orders(frame, board, results, colours))
    satellites(scene, frame, board, colours)  # the edges of their sight, under letters and marks
    scene.add(*glyphs)  # the cities' letters over the arrows that pass
    drawn = units(scene, frame, board["units"], colours, layout)
    stars, away = _stars(frame, board, colours, layout)
    scene.add(*stars)  # in the middle, or in a corner of its own beside the units' marks
    every_name = want_names(scene, frame, board, beside)
    scene.legend = legend(scene, board, colours, grounds, letters, drawn, every_name)
    scene.legend[1][1].extend(([held_entry()] if beside else []) + away_entries(away))  # "Map"
    return scene


def _title(view: View) -> str:
    day, rest = divmod(view.turn, TICKS_PER_DAY)
    minutes = rest * MINUTES_PER_TICK
    clock = f"day {day + 1}, {minutes // 60:02d}:{minutes % 60:02d}"
    nation = view.board.get("nation")
    whose = f": the map of {nation['name']}" if nation else ""
    return f"Strategic Initiative, tick {view.turn} ({clock}){whose}"


def nation_colours(board: Mapping[str, Any]) -> dict[str, str]:
    """Every nation's colour by name, the viewer's first."""
    nations = ([board["nation"]] if board.get("nation") else []) + list(board["nations"])
    return {n["name"]: colour(n["colour"]) for n in nations}


# --------------------------------------------------------------------------
# The ground


def ground(scene: Scene, frame: Frame, board: Mapping[str, Any]) -> list[tuple[bool, bool]]:
    """Land and water, in sight and out of it: one box of the commonest
    of the four under the whole grid, one box for each run of another
    (runs alike in rows one under another are one box). Returns which of
    the four are drawn."""
    band = _band(frame.cell)
    rows = list(_classes(frame, board["land"], board["seen"], band))
    counts: dict[tuple[bool, bool], int] = {}
    for row in rows:
        for start, end, cls in row:
            counts[cls] = counts.get(cls, 0) + end - start
    common = max(sorted(counts), key=lambda c: counts[c])
    fill, kind, _ = GROUND[common]
    scene.add(Box(frame.x(0), frame.y(0), frame.right - frame.x(0), frame.bottom - frame.y(0),
                  fill, kind, fill, 0, "ground"))  # fmt: skip
    for (start, end, cls), first, last in _merged(rows, common):
        fill, kind, _ = GROUND[cls]
        x0, y0 = frame.x(start), frame.y(first * band)
        y1 = frame.y(min(last * band, frame.rows))
        scene.add(Box(x0, y0, frame.x(end) - x0, y1 - y0, fill, kind, fill, 0, "ground"))
    return sorted(counts)


def _band(cell: float) -> int:
    """How many squares each way one piece of ground stands for: 1, or on
    a board of squares under 1.5 pixels (over 500 a side) a few, each
    drawn as its middle square is."""
    return 1 if cell >= 1.5 else ceil(1.5 / cell)


Run = tuple[int, int, tuple[bool, bool]]  # first column, column after, (land, out of sight)


FOGGED = bytes(range(2, 256)) + b"\x00\x01"  # a square's class, out of sight: + 2
RUN = re.compile(rb"(.)\1*", re.S)
CLASSES = [(False, False), (True, False), (False, True), (True, True)]  # (land, out of sight)


def _classes(frame: Frame, land: frozenset[int], seen: frozenset[int], band: int = 1,
             ) -> Iterator[list[Run]]:  # fmt: skip
    """Each row drawn (each band of ``band`` rows), as runs of squares
    alike (a square's class is 1 for land plus 2 out of sight, worked out
    for the whole board at once; a band's squares as its middle ones)."""
    size = frame.columns * frame.rows
    classes = bytearray(_land_bytes(land, size))
    if len(seen) < size:
        classes = bytearray(classes.translate(FOGGED))
        for sq in seen:
            classes[sq] -= 2
    w, first, middle = frame.columns, frame.first_column, band // 2
    for j in range(0, frame.rows, band):
        base = ((min(j + middle, frame.rows - 1) + frame.first_row) % frame.rows) * w
        row = (classes[base + first : base + w] + classes[base : base + first])[middle::band]
        spans = [m.span() for m in RUN.finditer(row)]
        yield [(a * band, min(b * band, w), CLASSES[row[a]]) for a, b in spans]


@lru_cache(maxsize=8)
def _land_bytes(land: frozenset[int], size: int) -> bytes:
    """1 for each square of land, 0 for water (a board's land is the same
    every tick: worked out once)."""
    out = bytearray(size)
    for sq in land:
        out[sq] = 1
    return bytes(out)


def _merged(rows: Sequence[Sequence[Run]], common: tuple[bool, bool],
            ) -> list[tuple[Run, int, int]]:  # fmt: skip
    """The runs not of the ``common`` kind, each with the first row it
    starts in and the row after its last (a run the next row repeats goes
    on down)."""
    out: list[tuple[Run, int, int]] = []
    open_runs: dict[Run, int] = {}
    for j, row in enumerate(rows):
        now = {run: open_runs.pop(run, j) for run in row if run[2] != common}
        out.extend((run, first, j) for run, first in open_runs.items())
        open_runs = now
    out.extend((run, first, len(rows)) for run, first in open_runs.items())
    return sorted(out, key=lambda r: (r[1], r[0][0]))


def devastation(scene: Scene, frame: Frame, board: Mapping[str, Any]) -> None:
    """Each devastated square the view holds, scorched (under the grid
    lines, cities and units: a devastated city stays a city)."""
    for square in sorted(board.get("devastated", ())):
        i, j = frame.slot(square)
        x, y = frame.x(i), frame.y(j)
        scene.add(Box(x, y, frame.x(i + 1) - x, frame.y(j + 1) - y, DEVASTATED, "devastated",
                      DEVASTATED, 0, "mark", "devastated by an ICBM"))  # fmt: skip


def scorched_cities(scene: Scene, frame: Frame, board: Mapping[str, Any]) -> None:
    """A devastated square holding a city (it stays a city, drawn over the
    scorched ground) gets a scorched rim round its square."""
    wasted = board.get("devastated", frozenset())
    width = max(1.0, min(3.0, frame.cell * 0.14))
    for c in board["cities"]:
        if c["square"] in wasted:
            i, j = frame.slot(c["square"])
            x0, y0, x1, y1 = frame.x(i), frame.y(j), frame.x(i + 1), frame.y(j + 1)
            d = width / 2
            corners = ((x0 + d, y0 + d), (x1 - d, y0 + d), (x1 - d, y1 - d), (x0 + d, y1 - d),
                       (x0 + d, y0 + d))  # fmt: skip
            scene.add(Line(corners, DEVASTATED, "devastated", width, role="order"))


# --------------------------------------------------------------------------
# Launched satellites (the viewer's own: the view holds no other)


def satellites(scene: Scene, frame: Frame, board: Mapping[str, Any],
               colours: Mapping[str, str]) -> None:  # fmt: skip
    """The edge of the squares each satellite sees, in its owner's colour:
    one box, or where it runs over the cut of the grid (window.py) its
    pieces on each side, open along the grid's edge where the sight goes
    on from the other side. (The star over its target is drawn with the
    square's other marks: :func:`occupants`.)"""
    width = max(1.0, min(2.0, frame.cell * 0.15))
    for sat in board.get("satellites", ()):
        fill = colours.get(sat["owner"], INK)
        for i0, j0, i1, j1, shut in _pieces(frame, sat["square"], sat["radius"]):
            box = (frame.x(i0), frame.y(j0), frame.x(i1), frame.y(j1))
            scene.add(*_open_edge(box, shut, fill, width))


def _edge(x0: float, y0: float, x1: float, y1: float, fill: str, width: float) -> Line:
    """The dashed edge of a satellite's sight."""
    corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0))
    return Line(corners, fill, "satellite-view", width, (4.0, 3.0), role="order")


def _open_edge(box: tuple[float, float, float, float], shut: tuple[bool, bool, bool, bool],
               fill: str, width: float) -> list[Line]:  # fmt: skip
    """The edge of a piece of a satellite's sight, its sides (top, right,
    bottom, left) drawn where ``shut``: a line for each run of them."""
    x0, y0, x1, y1 = box
    if all(shut):
        return [_edge(x0, y0, x1, y1, fill, width)]
    corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    start = next((k for k in range(4) if not shut[k - 1]), 0)  # a side drawn after an open one
    lines, run = [], [corners[start]]
    for k in range(start, start + 4):
        if shut[k % 4]:
            run.append(corners[(k + 1) % 4])
            continue
        if len(run) > 1:
            lines.append(Line(tuple(run), fill, "satellite-view", width, (4.0, 3.0), role="order"))
        run = [corners[(k + 1) % 4]]
    if len(run) > 1:
        lines.append(Line(tuple(run), fill, "satellite-view", width, (4.0, 3.0), role="order"))
    return lines


Piece = tuple[int, int, int, int, tuple[bool, bool, bool, bool]]


def _pieces(frame: Frame, square: int, radius: int) -> list[Piece]:
    """The squares within ``radius`` of ``square`` as boxes of drawn
    columns and rows (first, last + 1): one, or up to four cut by the
    edges of the grid drawn; with each, which of its sides (top, right,
    bottom, left) are the sight's own edge, not the cut."""
    i, j = frame.slot(square)
    return [(a, b, c, d, (top, right, bottom, left))
            for a, c, left, right in _spans(i, radius, frame.columns)
            for b, d, top, bottom in _spans(j, radius, frame.rows)]  # fmt: skip


def _spans(at: int, radius: int, n: int) -> list[tuple[int, int, bool, bool]]:
    """The drawn positions within ``radius`` of ``at`` on a wrapping axis
    of ``n``, as one or two spans (first, last + 1), each with whether its
    first and last ends are the sight's edge (not the cut)."""
    if 2 * radius + 1 >= n:
        return [(0, n, False, False)]
    first, last = at - radius, at + radius + 1
    if first < 0:
        return [(0, last, False, True), (n + first, n, True, False)]
    if last > n:
        return [(first, n, True, False), (0, last - n, False, True)]
    return [(first, last, True, True)]


def _stars(frame: Frame, board: Mapping[str, Any], colours: Mapping[str, str],
           layout: Layout) -> tuple[list[Item], list[tuple[str, str]]]:  # fmt: skip
    """A star over each satellite's target in its owner's colour, in the
    spot the square's layout gives it; and the satellites whose square has
    no room for a star (each its colour and the legend's words)."""
    out: list[Item] = []
    away: list[tuple[str, str]] = []
    where = {c["square"]: f"{c['name']} ({c['at']})" for c in board["cities"]}
    for sat in board.get("satellites", ()):
        fill = colours.get(sat["owner"], INK)
        title = f"{sat['id']}: satellite over {sat['at']}, sees {sat['radius']} around"
        spot = layout.star(sat["square"])
        if spot is None:
            over = where.get(sat["square"], sat["at"])
            away.append((fill, f"{sat['id']}: satellite over {over}, the middle of its sight"))
            continue
        out += _star(spot.x, spot.y, frame.cell * spot.scale, fill, title)
    return out, away


def away_entries(away: Sequence[tuple[str, str]]) -> list[LegendEntry]:
    """A legend line for each satellite whose target square is too full
    for its star on a small board's map: where it is."""
    return [LegendEntry(words, tuple(_star(15.0, 8.0, 16.0, fill, "")), frozenset())
            for fill, words in away]  # fmt: skip


def _star(x: float, y: float, cell: float, fill: str, title: str) -> list[Item]:
    """A satellite: a ring in its owner's colour with four rays, inside a
    square of side ``cell`` round (x, y)."""
    r = max(cell * 0.3, 2.0)
    width = max(1.0, min(2.0, cell * 0.12))
    out: list[Item] = [Circle(x, y, r, fill, "satellite", INK, width * 0.6, "order", title)]
    for dx, dy in ((1, 1), (-1, 1), (1, -1), (-1, -1)):
        out.append(Line(((x + dx * r * 0.8, y + dy * r * 0.8), (x + dx * r * 1.6,
                    y + dy * r * 1.6)), fill, "satellite", width, role="order"))  # fmt: skip
    return out


def grid_lines(scene: Scene, frame: Frame) -> None:
    """Thin lines between the squares (on a big board every few squares,
    at the letters and numbers), and round the grid: two lines in all, each
    going up one gap and down the next along the grid's edge."""
    top, bottom, left, right = frame.y(0), frame.bottom, frame.x(0), frame.right
    columns = [frame.x(i) for i in _lined(frame.columns, frame.first_column, frame.cell)]
    rows = [frame.y(j) for j in _lined(frame.rows, frame.first_row, frame.cell)]
    width = 0.5 if frame.cell >= 7 else 0.4
    for ends, across, vertical in (((top, bottom), columns, True), ((left, right), rows, False)):
        points: list[Point] = []
        for n, at in enumerate(across):
            near, far = ends if n % 2 == 0 else ends[::-1]
            points += [(at, near), (at, far)] if vertical else [(near, at), (far, at)]
        scene.add(Line(tuple(points), GRID_LINE, "grid", width, role="grid"))


def _lined(n: int, first: int, cell: float) -> list[int]:
    """The gaps drawn as lines along an axis of ``n`` squares: every one,
    or on a big board every few (where the labels are), and both edges."""
    every = _step(cell, 1) if cell < 7 else 1
    return [0, *(i for i in range(1, n) if (i + first) % every == 0), n]


def _step(cell: float, chars: int) -> int:
    """Label every how many squares, so labels of ``chars`` characters at
    the coordinates' size do not touch."""
    need = max(11.0, chars * 5.2 + 4)
    for step in (1, 2, 4, 8, 16, 32, 64):
        if step * cell >= need:
            return step
    return 128


def coordinates(scene: Scene, frame: Frame, grid: Any) -> None:
    """The columns' letters above and below the grid, the rows' numbers
    left and right of it (a square is named by both: K12)."""
    size = 8.0
    every_column = _step(frame.cell, len(column_name(frame.columns - 1)))
    every_row = _step(frame.cell, 2)
    top, bottom = frame.y(0) - TOP / 2, frame.bottom + TOP / 2
    for i in range(frame.columns):
        column = (i + frame.first_column) % frame.columns
        if column % every_column == 0:
            x = (frame.x(i) + frame.x(i + 1)) / 2
            for y in (top, bottom):
                scene.add(_coordinate(x, y, column_name(column), size))
    left, right = frame.x(0) - SIDE / 2, frame.right + SIDE / 2
    for j in range(frame.rows):
        row = (j + frame.first_row) % frame.rows
        if row % every_row == 0:
            y = (frame.y(j) + frame.y(j + 1)) / 2
            for x in (left, right):
                scene.add(_coordinate(x, y, str(row + 1), size))


def _coordinate(x: float, y: float, text: str, size: float) -> Text:
    return Text(x, y, text, size, "coordinate", COORDINATE, None, "label")


# --------------------------------------------------------------------------
# Cities


@cache
def designation_letters() -> dict[str, str]:
    """Each city designation's letter (F fort, P port...), from its name."""
    out: dict[str, str] = {}
    for key, city in tables().cities.items():
        letters = [ch.upper() for ch in city.name if ch.isalpha()]
        out[key] = next((ch for ch in letters if ch not in out.values()), key[:1].upper())
    return out


def layout_of(frame: Frame, board: Mapping[str, Any]) -> Layout:
    """Where each square's city letter, units' marks and satellite's star
    go (squares.py)."""
    groups: dict[int, set[tuple[bool, str]]] = {}
    for e in board["units"]:
        if not e.get("carried_by"):
            groups.setdefault(e["square"], set()).add((e["status"] == REMEMBERED, e["owner"]))
    return Layout(frame.centre, frame.cell, frame.cell / 2 >= GLYPHS_FROM,
                  {c["square"] for c in board["cities"]},
                  {sat["square"] for sat in board.get("satellites", ())},
                  {sq: len(g) for sq, g in groups.items()})  # fmt: skip


def cities(scene: Scene, frame: Frame, board: Mapping[str, Any], colours: Mapping[str, str],
           layout: Layout) -> tuple[set[str], list[Item], dict[int, str]]:  # fmt: skip
    """Every city (their squares are public; owner and designation where
    known); returns the designations whose letters are shown, the letters
    (drawn later, over any arrow that passes), and the letters given after
    a city's name instead, by square. A city whose square holds units has
    its letter in a corner beside them, or where a square is too small for
    that, is a frame round the unit, its letter after its name."""
    stroke = 1.2 if frame.cell >= GLYPHS_FROM else 0.6
    letters: set[str] = set()
    glyphs: list[Item] = []
    beside: dict[int, str] = {}
    for c in board["cities"]:
        fill, kind = city_look(c, colours)
        x, y = frame.centre(c["square"])
        spot = layout.city(c["square"])
        held = frame.cell >= GLYPHS_FROM and layout.letter_in_name(c["square"])
        side = frame.cell + 3 if held else max(frame.cell, CITY_LEAST)  # a frame round the unit
        scene.add(Box(x - side / 2, y - side / 2, side, side, fill, kind, INK, stroke,
                      title=city_title(c)))  # fmt: skip
        if held and c["designation"]:
            letters.add(c["designation"])
            beside[c["square"]] = designation_letters()[c["designation"]]
        elif c["designation"] and frame.cell * spot.scale >= GLYPHS_FROM:
            letters.add(c["designation"])
            letter = designation_letters()[c["designation"]]
            size = min(11.0, frame.cell * spot.scale * 0.6)
            # on a patch of its own colour: an arrow passing under it does not cross it
            glyphs.append(Text(spot.x, spot.y, letter, size, kind, ink_on(fill), fill, "glyph"))
    return letters, glyphs, beside


def city_look(c: Mapping[str, Any], colours: Mapping[str, str]) -> tuple[str, str]:
    """A city's fill and kind: its owner's colour, neutral, or not known."""
    if not c["known"]:
        return UNKNOWN, "unknown-city"
    if c["owner"] is None:
        return NEUTRAL, "neutral-city"
    return colours.get(c["owner"], "#999999"), "city"


def city_title(c: Mapping[str, Any]) -> str:
    where = f"{c['name']} ({c['at']})"
    if not c["known"]:
        return f"{where}: out of sight"
    what = tables().cities[c["designation"]].name
    return f"{where}: {what} of {c['owner']}" if c["owner"] else f"{where}: neutral {what}"


def want_names(scene: Scene, frame: Frame, board: Mapping[str, Any],
               beside: Mapping[int, str]) -> bool | None:  # fmt: skip
    """The cities' names, wanted beside them as the scale allows: every
    city's (True), the viewer's own only (False), or none (None). A city
    whose letter its units' mark leaves no room for (``beside``) has it
    after its name (Kalram F), and its name is placed before the others
    of its kind (the viewer's, the rest)."""
    if frame.cell < OWN_NAMES_FROM:
        return None
    nation = board.get("nation")
    mine = nation["name"] if nation else None
    every = frame.cell >= NAMES_FROM
    named = [c for c in board["cities"] if every or (mine and c["owner"] == mine)]
    named.sort(key=lambda c: (c["owner"] != mine, c["square"] not in beside, c["square"]))
    clear = max(frame.cell, CITY_LEAST) / 2 + 1
    size = 9.0 if frame.cell >= NAMES_FROM else 8.0
    for c in named:
        text = f"{c['name']} ({beside[c['square']]})" if c["square"] in beside else c["name"]
        held = frame.cell / 2 + 2.5 if c["square"] in beside else clear  # round the frame
        scene.names.append(Want(*frame.centre(c["square"]), held, text, size))
    return every


# --------------------------------------------------------------------------
# Units


@cache
def type_glyphs() -> dict[str, str]:
    """The letters on a unit's mark: the first two of its id's prefix
    (inf: in), another pair where two types would share them."""
    out: dict[str, str] = {}
    owner: dict[str, str] = {}  # letters -> the prefix that has them
    for key, u in tables().units.items():
        short = u.short.lower()
        tries = [short[:2], *(short[0] + ch for ch in short[2:]), short[:3], key[:3]]
        out[key] = next((t for t in tries if owner.get(t, short) == short), key)
        owner.setdefault(out[key], short)
    return out


def mark_of(kind: str) -> Mark:
    """How a unit type is drawn, by its domain in the unit table."""
    unit = tables().units.get(kind)
    return MARKS.get(unit.domain, LAND_MARK) if unit else LAND_MARK


def units(scene: Scene, frame: Frame, entries: Sequence[Mapping[str, Any]],
          colours: Mapping[str, str], layout: Layout) -> set[str]:  # fmt: skip
    """Every unit in the view: one mark for each owner's units in a square
    (seen now, or remembered), side by side where several share it (four
    at most, beside the square's city and star: squares.py); returns the
    unit types whose letters are shown."""
    by_square: dict[int, dict[tuple[bool, str], list[Mapping[str, Any]]]] = {}
    for e in entries:
        if e.get("carried_by"):
            continue  # aboard another unit: its carrier is drawn
        key = (e["status"] == REMEMBERED, e["owner"])
        by_square.setdefault(e["square"], {}).setdefault(key, []).append(e)
    shown: set[str] = set()
    for square in sorted(by_square):
        groups = sorted(by_square[square].items())
        spots = layout.groups(square)
        if len(groups) > len(spots):  # more owners than corners: the last mark stands for the rest
            last = len(spots) - 1
            groups[last:] = [(groups[last][0], [e for _, g in groups[last:] for e in g])]
        for spot, ((remembered, owner), group) in zip(spots, groups, strict=True):
            fill = colours.get(owner, "#999999")
            cell = frame.cell * spot.scale
            scene.add(*_unit_mark(spot.x, spot.y, cell, group, fill, remembered))
            if len(group) == 1 and cell >= GLYPHS_FROM:
                shown.add(group[0]["kind"])
    return shown


def _unit_mark(x: float, y: float, cell: float, group: Sequence[Mapping[str, Any]], fill: str,
               remembered: bool) -> list[Item]:  # fmt: skip
    """One mark for a group of units of one owner in one square."""
    shapes = {mark_of(e["kind"]).shape for e in group}
    if len(shapes) == 1:
        mark = mark_of(group[0]["kind"])
    else:  # planes with land units or a ship: drawn as those (a number)
        mark = MARKS["sea"] if "circle" in shapes else LAND_MARK
    title = f"{group[0]['at']}: " + "; ".join(unit_title(e) for e in group)
    if remembered:
        face, stroke, width, kind = _pale(fill), fill, 1.4, REMEMBERED
    else:
        face, stroke, width, kind = fill, INK, 0.8, mark.kind
    if cell < GLYPHS_FROM:
        width = min(width, 0.5)
    out: list[Item]
    if mark.shape == "circle":
        r = max(cell * 0.46, 1.4)
        out = [Circle(x, y, r, face, kind, stroke, width, title=title)]
    else:
        s = max(cell * (0.98 if mark.shape == "diamond" else 0.84), 2.6)
        out = [Box(x - s / 2, y - s / 2, s, s, face, kind, stroke, width, title=title,
                   diamond=mark.shape == "diamond")]  # fmt: skip
    if cell >= GLYPHS_FROM:
        text = str(len(group)) if len(group) > 1 else type_glyphs()[group[0]["kind"]]
        ink = "#555555" if remembered else ink_on(face)
        out.append(Text(x, y, text, min(11.0, cell * 0.62), kind, ink, None, "glyph"))
    return out


def unit_title(e: Mapping[str, Any]) -> str:
    """A unit as its mark's tooltip tells it (only what the view holds)."""
    text = f"{e['id']} {e['name']} of {e['owner']}, HP {e['hp']}"
    if e["status"] == "own":
        text += f"/{e['full_hp']}, ammo {e['ammo']}, mobility {e['mobility']}"
    elif e["status"] == REMEMBERED:
        text += f", last seen at tick {e['tick']}"
    return text


def _pale(fill: str) -> str:
    """The colour at three tenths of its strength, on white."""
    if not (fill.startswith("#") and len(fill) == 7):
        return "#eeeeee"
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(v * 0.3 + 255 * 0.7):02x}" for v in (r, g, b))


# --------------------------------------------------------------------------
# The legend


def legend(scene: Scene, board: Mapping[str, Any], colours: Mapping[str, str],
           grounds: Iterable[tuple[bool, bool]], letters: set[str], types: set[str],
           every_name: bool | None) -> list[tuple[str, list[LegendEntry]]]:  # fmt: skip
    """Every nation's colour; the ground, cities, units and orders drawn;
    the letters shown on cities and units."""
    nation = board.get("nation")
    mine = nation["name"] if nation else None
    marks = [_ground_entry(cls) for cls in grounds]
    marks += city_entries() + unit_entries() + order_entries() + launch_entries()
    marks = used(marks, scene) + failed_entry(scene)
    if every_name is not None:
        marks += left_out_entries("names of {} left out for room", "cities",
                                  None if every_name else "cities not yours")  # fmt: skip
    kinds = [_letter_entry(d) for d in sorted(letters, key=list(designation_letters()).index)]
    kinds += [_type_entry(t) for t in sorted(types, key=list(tables().units).index)]
    out = [("Nations", player_entries(colours, lambda n: _nation_label(board, n, mine))),
           ("Map", marks)]  # fmt: skip
    if kinds:
        out.append(("Letters", kinds))
    return out


def _nation_label(board: Mapping[str, Any], name: str, mine: str | None) -> str:
    if name == mine:
        return f"{name} (you)"
    if mine is None:
        return name
    theirs = {n["name"]: n["toward_you"] for n in board["nations"]}
    ours = board["nation"]["relations"]
    at_war = "war" in (theirs.get(name), ours.get(name))
    return f"{name} (at war)" if at_war else name


def _ground_entry(cls: tuple[bool, bool]) -> LegendEntry:
    fill, kind, words = GROUND[cls]
    return LegendEntry(words, (Box(6, 0, 16, 16, fill, kind, INK, 0.5),), frozenset())


def city_entries() -> list[LegendEntry]:
    looks = (
        ("city: its owner's colour, its designation's letter", "#bbbbbb", "city"),
        ("neutral city", NEUTRAL, "neutral-city"),
        ("city out of sight: owner not known", UNKNOWN, "unknown-city"),
    )
    return [LegendEntry(words, (Box(7, 1, 14, 14, fill, kind, INK, 1.2),), frozenset({kind}))
            for words, fill, kind in looks]  # fmt: skip


def held_entry() -> LegendEntry:
    """The legend's words for a city holding units on small squares."""
    held = (Box(5, -1, 18, 18, "#bbbbbb", "city", INK, 1.2),
            Box(7.5, 1.5, 13, 13, "#bbbbbb", "unit", INK, 0.8))  # fmt: skip
    words = "city holding units: a frame round them, its letter after its name"
    return LegendEntry(words, held, frozenset())


def unit_entries() -> list[LegendEntry]:
    out = []
    for mark in (LAND_MARK, MARKS["sea"], MARKS["air"]):
        out.append(LegendEntry(mark.words, _sample(mark, "#bbbbbb", INK, 0.8, "2"),
                               frozenset({mark.kind})))  # fmt: skip
    out.append(LegendEntry("remembered: out of sight now, as last seen",
                           _sample(LAND_MARK, _pale("#999999"), "#999999", 1.4, "", REMEMBERED),
                           frozenset({REMEMBERED})))  # fmt: skip
    return out


def launch_entries() -> list[LegendEntry]:
    """The legend's words for what ICBMs and satellites leave on the map."""
    return [
        LegendEntry("devastated by an ICBM", (Box(7, 1, 14, 14, DEVASTATED, "devastated",
                                                  INK, 0.5),), frozenset({"devastated"})),
        LegendEntry("launched satellite (on its owner's map only) and the edge of what it sees",
                    (*_star(15.0, 8.0, 16.0, "#999999", ""),
                     _edge(1, 0, 29, 16, "#999999", 1.2)),
                    frozenset({"satellite", "satellite-view"})),
    ]  # fmt: skip


def order_entries() -> list[LegendEntry]:
    ring = (Circle(15, 8, 7, "none", "arrived", INK, 1.5),)
    load = sample_line("load", width=2.0, head="open")
    return [
        LegendEntry("move", sample_line("move", width=2.0), frozenset({"move"})),
        LegendEntry("load: boarding a carrier", load, frozenset({"load"})),
        LegendEntry("attack: the square attacked", _attack_sample(), frozenset({"attack"})),
        LegendEntry("arrived this tick", ring, frozenset({"arrived"})),
    ]


def _attack_sample() -> tuple[Item, ...]:
    line = Line(((1, 8), (22, 8)), INK, "attack", 2.0)
    ring = Circle(22, 8, 5, "none", "attack", INK, 1.5)
    ticks = tuple(Line(((22 + dx * 2.5, 8 + dy * 2.5), (22 + dx * 7.5, 8 + dy * 7.5)), INK,
                       "attack", 1.5) for dx, dy in ((1, 0), (0, 1), (0, -1)))  # fmt: skip
    return (line, ring, *ticks)


def _sample(mark: Mark, face: str, stroke: str, width: float, text: str,
            kind: str | None = None) -> tuple[Item, ...]:  # fmt: skip
    kind = kind or mark.kind
    shape: Item = (
        Circle(15, 8, 7, face, kind, stroke, width)
        if mark.shape == "circle"
        else Box(7, 0, 16, 16, face, kind, stroke, width, diamond=True)
        if mark.shape == "diamond"
        else Box(8, 1, 14, 14, face, kind, stroke, width)
    )
    return (shape, Text(15, 8, text, 9, kind, ink_on(face), None, "glyph")) if text else (shape,)


def _letter_entry(designation: str) -> LegendEntry:
    letter = designation_letters()[designation]
    sample = (Box(7, 1, 14, 14, NEUTRAL, "city", INK, 1.2),
              Text(14, 8, letter, 9, "city", INK, None, "glyph"))  # fmt: skip
    return LegendEntry(tables().cities[designation].name, sample, frozenset())


def _type_entry(kind: str) -> LegendEntry:
    sample = _sample(mark_of(kind), NEUTRAL, INK, 0.8, type_glyphs()[kind])
    return LegendEntry(tables().units[kind].name, sample, frozenset())
