"""Strategic Initiative's map, read back from its SVG: the window the
wrapping grid is cut open at keeps land together and stays put; no letter
lies under another mark; every move the player ordered is drawn (unloads
too); what crosses the cut is drawn whole on both sides of it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from adjudicator.base import Rng
from adjudicator.strategic import board as boards
from adjudicator.strategic.game import GAME
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.orders import Attack, Move, Unload
from adjudicator.strategic.picture import Frame, frame_for
from adjudicator.strategic.state import Board
from pbem.mapdraw import picture, to_svg

ROOT = Path(__file__).resolve().parent.parent
NS = "{http://www.w3.org/2000/svg}"
Box = tuple[float, float, float, float]


# -- games played ------------------------------------------------------------------


def straits():
    return GAME.load_position((ROOT / "scenarios" / "straits.yaml").read_text())


def isles(players: int = 6):
    """A game as games.yaml's isles starts one (its seed), for ``players``."""
    names = ["kim", "lee", "max", "ann", "bob", "cid"][:players]
    return GAME.start(GAME.load_map("islands"), names, {}, 20261123)


def tick(state, orders: dict[str, str], seed: int):
    sheets = [GAME.read_orders(state, player, text) for player, text in orders.items()]
    assert not [p for s in sheets for p in s.problems], [s.problems for s in sheets]
    return GAME.adjudicate(state, sheets, seed)


STRAITS_TICKS = [
    {"kim": "launch sat18 to Z12\nmove tr15 to O10",
     "lee": "launch sat35 to F10"},
    {"kim": "unload tr15 to P10\nmove dd13 to M7\nmove dd14 to O12\nattack U10 with hb8\n"
            "move sub17 to Q14",
     "lee": "move dd30 to R8\nunload tr32 to W15\nattack L10 with ca31\nmove tk21 to X12\n"
            "attack O10 with nb27"},
]  # fmt: skip


@pytest.fixture(scope="module")
def straits_ticks():
    """straits after each tick of STRAITS_TICKS: (state before, result)."""
    state, out = straits(), []
    for n, orders in enumerate(STRAITS_TICKS):
        result = tick(state, orders, 500 + n)
        out.append((state, result))
        state = result.state
    return out


def isles_ticks(state):
    """Two ticks of a six-player isles: each nation's infantry is put aboard
    its transport in its home port and a destroyer beside it; then the
    transport unloads onto the land next to it and the destroyer sails
    (twice)."""
    for nation in sorted(state.nations):
        own = sorted((u for u in state.units.values() if u.owner == nation), key=lambda u: u.id)
        transport = next(u for u in own if u.kind == "transport")
        for unit in own:
            if unit.kind == "infantry":
                unit.square, unit.carried_by = transport.square, transport.id
        water = [q for q in state.grid.neighbours(transport.square)
                 if q not in state.board.land]  # fmt: skip
        boards.new_unit(state, nation, "destroyer", water[0])
    target = min(c.square for c in state.cities.values() if c.owner == "lee")
    sat = boards.new_unit(state, "kim", "satellite", transport_of(state, "kim"))
    out = []
    for n in range(2):
        orders = {}
        for nation in sorted(state.nations):
            own = sorted((u for u in state.units.values() if u.owner == nation),
                         key=lambda u: u.id)  # fmt: skip
            ship = next(u for u in own if u.kind == "destroyer")
            water = [q for q in state.grid.within(ship.square, 2) if q not in state.board.land
                     and state.grid.distance(q, ship.square) == 2]  # fmt: skip
            lines = [f"move {ship.id} to {state.grid.name(water[n])}"]
            transport = next(u for u in own if u.kind == "transport")
            land = [q for q in state.grid.neighbours(transport.square) if q in state.board.land
                    and q not in state.cities]  # fmt: skip
            if any(u.carried_by == transport.id for u in own) and land:
                lines.append(f"unload {transport.id} to {state.grid.name(land[0])}")
            orders[nation] = "\n".join(lines)
        if n == 0:  # kim's satellite over lee's port, its transport and infantry there
            orders["kim"] += f"\nlaunch {sat.id} to {state.grid.name(target)}"
        result = tick(state, orders, 900 + n)
        out.append((state, result))
        state = result.state
    return out


def transport_of(state, nation: str) -> int:
    return next(u.square for u in state.units.values()
                if u.owner == nation and u.kind == "transport")  # fmt: skip


def svg_of(result, viewer: str) -> str:
    seen = result.for_viewer(viewer)
    return to_svg(picture("strategic", GAME.view(seen.state, viewer), seen.results))


# -- the SVG read back -------------------------------------------------------------


@dataclass
class Element:
    role: str
    kind: str
    box: Box  # what it covers (a line: the box round each of its segments, see covers)
    segments: list[tuple[tuple[float, float], tuple[float, float], float]]
    ring: tuple[float, float, float, float] | None  # an unfilled circle: x, y, r, width
    text: str = ""


def elements(svg: str) -> list[Element]:
    """The picture's elements in drawing order (the legend left out)."""
    out = []
    for el in ET.fromstring(svg):
        role, _, kind = (el.get("class") or " ").partition(" ")
        if role in ("", "legend", "ground", "grid"):
            continue
        if el.get("data-box"):
            box = tuple(float(v) for v in el.get("data-box").split())
            out.append(Element(role, kind, box, [], None, "".join(el.itertext())))
        elif el.tag == NS + "rect":
            x, y, w, h = (float(el.get(a)) for a in ("x", "y", "width", "height"))
            out.append(Element(role, kind, (x, y, x + w, y + h), [], None))
        elif el.tag == NS + "circle":
            x, y, r = (float(el.get(a)) for a in ("cx", "cy", "r"))
            width = float(el.get("stroke-width"))
            ring = (x, y, r, width) if el.get("fill") == "none" else None
            out.append(Element(role, kind, (x - r, y - r, x + r, y + r), [], ring))
        elif el.tag == NS + "polygon":
            out.append(Element(role, kind, _points_box(el.get("points")), [], None))
        elif el.tag == NS + "g":
            line = el.find(NS + "polyline")
            pts = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
            width = float(line.get("stroke-width"))
            segs = [(a, b, width) for a, b in zip(pts, pts[1:], strict=False)]
            head = el.find(NS + "polygon")
            box = _points_box(head.get("points")) if head is not None else (0, 0, 0, 0)
            out.append(Element(role, kind, box, segs, None))
    return out


def _points_box(points: str) -> Box:
    pts = [tuple(map(float, p.split(","))) for p in points.split()]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def segment_meets(a, b, width: float, box: Box) -> bool:
    """Whether a stroke from a to b of ``width`` covers part of the box
    (sampled every half pixel along it)."""
    n = max(1, int(max(abs(b[0] - a[0]), abs(b[1] - a[1])) * 2))
    grown = (box[0] - width / 2, box[1] - width / 2, box[2] + width / 2, box[3] + width / 2)
    for k in range(n + 1):
        x, y = a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n
        if grown[0] < x < grown[2] and grown[1] < y < grown[3]:
            return True
    return False


def ring_meets(ring, box: Box) -> bool:
    """Whether an unfilled circle's stroke crosses the box."""
    x, y, r, width = ring
    near = ((min(max(x, box[0]), box[2]) - x) ** 2 + (min(max(y, box[1]), box[3]) - y) ** 2) ** 0.5
    far = max(((cx - x) ** 2 + (cy - y) ** 2) ** 0.5 for cx in box[::2] for cy in box[1::2])
    return near < r + width / 2 and far > r - width / 2


def covers(element: Element, box: Box) -> bool:
    if element.segments:
        return any(segment_meets(a, b, w, box) for a, b, w in element.segments) or overlap(
            element.box, box)  # fmt: skip
    if element.ring is not None:
        return ring_meets(element.ring, box)
    return overlap(element.box, box)


def letters_covered(svg: str) -> list[str]:
    """Every letter (a city's or a unit's, a name, a coordinate) with a
    mark, a line or another text drawn over it after it."""
    drawn = elements(svg)
    out = []
    for i, text in enumerate(drawn):
        if not text.text:
            continue
        for later in drawn[i + 1 :]:
            if covers(later, text.box):
                out.append(f"{text.kind} {text.text!r} at {text.box} under {later.role} "
                           f"{later.kind} {later.text or later.box}")  # fmt: skip
    return out


# -- no letter under another mark ---------------------------------------------------


def test_no_letter_lies_under_another_mark_in_straits(straits_ticks):
    """Cities holding units (kim's planes at Calder, a captured fort), a
    satellite over a city full of planes (lee's over Calder, kim's over
    Harl), arrows passing over a city, attacks, moves and unloads."""
    for _, result in straits_ticks:
        for viewer in ("kim", "lee"):
            assert letters_covered(svg_of(result, viewer)) == [], viewer


def test_no_letter_lies_under_another_mark_in_six_player_isles():
    state = isles()
    for _, result in isles_ticks(state):
        for viewer in ("kim", "max", "cid"):
            assert letters_covered(svg_of(result, viewer)) == [], viewer


def test_a_city_under_a_unit_keeps_its_letter_where_the_square_has_room(straits_ticks):
    """straits' squares are 23 pixels: a city holding a ship or planes
    shows its letter beside their mark (half a square each)."""
    _, result = straits_ticks[-1]
    svg = svg_of(result, "kim")
    frame = frame_for(GAME.view(result.state, "kim").board)
    texts = [e for e in elements(svg) if e.role == "glyph"]
    for city in ("Calder", "Kell", "Avalon"):  # planes; the infantry that took it; two infantry
        square = result.state.city_named(city).square
        x0, y0 = frame.x(frame.slot(square)[0]), frame.y(frame.slot(square)[1])
        inside = [t.text for t in texts if x0 <= (t.box[0] + t.box[2]) / 2 <= x0 + frame.cell
                  and y0 <= (t.box[1] + t.box[3]) / 2 <= y0 + frame.cell]  # fmt: skip
        assert len(inside) == 2 and {"F", "A"} & set(inside), (city, inside)


# -- every move drawn --------------------------------------------------------------


def _cell_of(frame: Frame, point) -> tuple[int, int]:
    return int((point[0] - frame.left) // frame.cell), int((point[1] - frame.top) // frame.cell)


def ordered_moves(before, result, viewer):
    """(start, target) of each of the viewer's units a move, an unload to
    a square or an attack moved or aimed this tick, from where it stood
    before the tick."""
    out = set()
    for res in result.for_viewer(viewer).results:
        order = res.order
        if not isinstance(order, Move | Attack | Unload) or order.player != viewer:
            continue
        if isinstance(order, Unload):
            if not order.target_name:
                continue
            ids = res.facts.get("units") or [
                u.id for u in before.units.values() if u.carried_by in order.units
            ]
        else:
            ids = order.units
        for uid in ids:
            unit = before.units[uid]
            if unit.square != order.target:
                out.add((unit.square, order.target))
    return out


def drawn_moves(svg: str, frame: Frame) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """The slots each arrow starts and ends in (one cut by the grid's edge
    joined: a piece ending on the edge and one starting on the other)."""
    lines = [e for e in elements(svg) if e.role == "order" and e.segments
             and e.kind.removesuffix("-failed") in ("move", "attack")]  # fmt: skip
    ends = [(_back(*e.segments[0][:2]), e.segments[-1][1]) for e in lines]
    out = {(_cell_of(frame, a), _cell_of(frame, b)) for a, b in ends}
    for a, b in ends:  # a piece out to the edge, joined to its piece in from the other
        for c, d in ends:
            if _on_edge(frame, b) and _on_edge(frame, c) and (a, b) != (c, d):
                out.add((_cell_of(frame, a), _cell_of(frame, d)))
    return out


def _back(a, b):
    """An arrow's start, a pixel and a half back (it starts at the rim of
    its unit's mark, which may be a hair outside the unit's square)."""
    length = max(1e-9, ((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2) ** 0.5)
    return a[0] - (b[0] - a[0]) / length * 1.5, a[1] - (b[1] - a[1]) / length * 1.5


def _on_edge(frame: Frame, p) -> bool:
    return min(abs(p[0] - frame.x(0)), abs(p[0] - frame.right), abs(p[1] - frame.y(0)),
               abs(p[1] - frame.bottom)) < 0.5  # fmt: skip


def test_every_move_the_player_ordered_is_an_arrow(straits_ticks):
    """From where the unit stood to its target: moves that arrived within
    the tick, attacks, and unloads to a square (kim takes Kell with the
    infantry its transport carried there)."""
    before, result = straits_ticks[-1]
    unloads = 0
    for viewer in ("kim", "lee"):
        frame = frame_for(GAME.view(result.state, viewer).board)
        wanted = {(frame.slot(a), frame.slot(b))
                  for a, b in ordered_moves(before, result, viewer)}  # fmt: skip
        drawn = drawn_moves(svg_of(result, viewer), frame)
        assert wanted and wanted <= drawn, (viewer, wanted - drawn)
        unloads += sum(isinstance(r.order, Unload) for r in result.for_viewer(viewer).results)
    assert unloads == 2


def test_every_unload_in_six_player_isles_is_an_arrow():
    state = isles()
    ticks = isles_ticks(state)
    before, result = ticks[0]
    for viewer in ("kim", "max"):
        frame = frame_for(GAME.view(result.state, viewer).board)
        wanted = {(frame.slot(a), frame.slot(b))
                  for a, b in ordered_moves(before, result, viewer)}  # fmt: skip
        assert any(isinstance(r.order, Unload) for r in result.for_viewer(viewer).results)
        assert wanted <= drawn_moves(svg_of(result, viewer), frame), viewer


def test_no_arrow_or_sight_runs_off_the_grid(straits_ticks):
    """Arrows and the edges of satellites' sight stay inside the grid
    drawn: what crosses the cut is drawn on both sides of it."""
    for _, result in straits_ticks:
        for viewer in ("kim", "lee"):
            frame = frame_for(GAME.view(result.state, viewer).board)
            grid = (frame.x(0) - 0.5, frame.y(0) - 0.5, frame.right + 0.5, frame.bottom + 0.5)
            for e in elements(svg_of(result, viewer)):
                kind = e.kind.removesuffix("-failed")
                if e.role != "order" or kind not in ("move", "attack", "satellite-view"):
                    continue
                points = [p for a, b, _ in e.segments for p in (a, b)]
                assert all(grid[0] <= x <= grid[2] and grid[1] <= y <= grid[3]
                           for x, y in points), (viewer, e)  # fmt: skip


# -- the window --------------------------------------------------------------------


def cut_land(land: frozenset[int], grid: Grid, first_column: int, first_row: int) -> int:
    """The squares of land next to land across the cut (the last column or
    row drawn next to the first, the way the grid wraps)."""
    cut = set()
    for sq in land:
        column, row = grid.at(sq)
        for n in grid.neighbours(sq):
            if n not in land:
                continue
            c, r = grid.at(n)
            if (column, c) == ((first_column - 1) % grid.width, first_column) or (
                row, r) == ((first_row - 1) % grid.height, first_row):  # fmt: skip
                cut.add(sq)
    return len(cut)


def split_masses(land: frozenset[int], grid: Grid, frame: Frame) -> list[int]:
    """The squares of each mass of land (joined the wrapping way) that is
    drawn in more than one piece (joined only inside the picture)."""

    def pieces(joined) -> list[set[int]]:
        left, out = set(land), []
        while left:
            todo, mass = [left.pop()], set()
            while todo:
                sq = todo.pop()
                mass.add(sq)
                for n in grid.neighbours(sq):
                    if n in left and joined(sq, n):
                        left.discard(n)
                        todo.append(n)
            out.append(mass)
        return out

    def drawn_next(a: int, b: int) -> bool:
        (i, j), (k, m) = frame.slot(a), frame.slot(b)
        return abs(i - k) <= 1 and abs(j - m) <= 1

    drawn = pieces(drawn_next)
    return [len(mass) for mass in pieces(lambda a, b: True)
            if sum(1 for p in drawn if p <= mass) > 1]  # fmt: skip


def water_bands(land: frozenset[int], grid: Grid) -> tuple[bool, bool]:
    columns = {grid.at(sq)[0] for sq in land}
    rows = {grid.at(sq)[1] for sq in land}
    return len(columns) < grid.width, len(rows) < grid.height


def islands(seed: int, width: int, height: int) -> frozenset[int]:
    """Islands in a corner of a board, all-water bands of columns and rows
    left round them, the whole turned round the wrapping grid at random
    (so the water falls anywhere, across its edges too)."""
    rng = Rng(seed)
    grid = Grid(width, height)
    land = set()
    for _ in range(3 + rng.below(4)):
        column, row = rng.below(width * 2 // 3), rng.below(height * 2 // 3)
        for _ in range(8 + rng.below(20)):
            land.add(grid.square(column, row))
            column = min(max(column + rng.below(3) - 1, 0), width * 2 // 3)
            row = min(max(row + rng.below(3) - 1, 0), height * 2 // 3)
    dc, dr = rng.below(width), rng.below(height)
    return frozenset(grid.square(c + dc, r + dr) for c, r in map(grid.at, land))


def boards_to_try():
    """(name, grid, land) of straits, isles for 2, 3 and 6, boards of
    islands made with water bands, generated boards of several sizes."""
    out = [("straits", straits().grid, straits().board.land)]
    for players in (2, 3, 6):
        state = isles(players)
        out.append((f"isles of {players}", state.grid, state.board.land))
    for seed in range(12):
        width, height = 24 + 7 * seed, 18 + 5 * seed
        out.append((f"islands {seed}", Grid(width, height), islands(seed, width, height)))
    for seed, (players, size) in enumerate(((2, 36), (4, 48), (5, 64))):
        grid_land, _ = boards.generate(players, 40 + seed, size, size)
        out.append((f"generated {seed}", grid_land.grid, grid_land.land))
    return out


def _frame(grid: Grid, land: frozenset[int]) -> Frame:
    return frame_for({"width": grid.width, "height": grid.height, "land": land})


@pytest.mark.parametrize("name, grid, land", boards_to_try(), ids=lambda v: str(v)[:14])
def test_the_cut_splits_no_land_where_water_allows_and_least_land_else(name, grid, land):
    """An all-water band of columns and of rows: no mass of land is drawn
    in two pieces. Without one, no cut splits less land than the one
    chosen."""
    frame = _frame(grid, land)
    columns, rows = water_bands(land, grid)
    if columns and rows:
        assert split_masses(land, grid, frame) == [], name
    chosen = cut_land(land, grid, frame.first_column, frame.first_row)
    best_column = min(cut_land(land, grid, c, frame.first_row) for c in range(grid.width))
    best_row = min(cut_land(land, grid, frame.first_column, r) for r in range(grid.height))
    assert chosen <= min(best_column, best_row), name


def test_straits_is_drawn_with_both_islands_whole_for_both_players(straits_ticks):
    """straits' water runs round both islands: each map is cut in it, A
    and 1 drawn first (the grid's own edge is in the water), rows in order."""
    _, result = straits_ticks[-1]
    for viewer in ("kim", "lee"):
        svg = svg_of(result, viewer)
        rows = [e.text for e in elements(svg) if e.kind == "coordinate" and e.text.isdigit()]
        assert rows[: 2 * 20 : 2] == [str(n) for n in range(1, 21)], rows
        frame = frame_for(GAME.view(result.state, viewer).board)
        assert split_masses(result.state.board.land, result.state.grid, frame) == []


def test_the_window_is_the_same_every_tick_for_every_viewer(straits_ticks):
    """Units move, satellites go up, kim takes Kell: no map of the game is
    cut open anywhere else, a player's, an observer's or the master's."""
    windows = set()
    for before, result in straits_ticks:
        for state in (before, result.state):
            for viewer in ("kim", "lee", None, "nobody"):
                frame = frame_for(GAME.view(state, viewer).board)
                windows.add((frame.first_column, frame.first_row))
    assert straits_ticks[-1][1].state.city_named("Kell").owner == "kim"
    assert len(windows) == 1, windows


def test_the_window_in_isles_is_the_same_for_every_nation_and_tick():
    state = isles()
    windows = set()
    for before, result in isles_ticks(state):
        for nation in sorted(result.state.nations):
            for s in (before, result.state):
                frame = frame_for(GAME.view(s, nation).board)
                windows.add((frame.first_column, frame.first_row))
    assert len(windows) == 1, windows


def test_a_sight_cut_by_the_grid_is_drawn_open_along_the_cut():
    """A satellite over the grid's first column: its sight is drawn in two
    pieces, each open on the grid's edge (the sight goes on from the other
    side), none a closed box."""
    state = straits()
    result = tick(state, {"kim": "launch sat18 to A10"}, 3)
    svg = svg_of(result, "kim")
    frame = frame_for(GAME.view(result.state, "kim").board)
    assert frame.first_column == 0
    edges = [e for e in elements(svg) if e.kind == "satellite-view"]
    assert len(edges) == 2
    for e in edges:
        points = [p for a, b, _ in e.segments for p in (a, b)]
        assert points[0] != points[-1]  # not closed
        on_edge = [p for p in points if abs(p[0] - frame.x(0)) < 0.5
                   or abs(p[0] - frame.right) < 0.5]  # fmt: skip
        vertical = [(a, b) for a, b, _ in e.segments if a[0] == b[0]
                    and abs(a[0] - frame.x(0)) < 0.5 or abs(a[0] - frame.right) < 0.5
                    and a[0] == b[0]]  # fmt: skip
        assert on_edge and not vertical, e


def test_the_board_is_read_from_its_land_alone():
    """The window is a function of the terrain: two boards of the same land
    are cut alike, whatever else differs."""
    grid = Grid(30, 20)
    land = islands(5, 30, 20)
    board = Board(grid, land)
    one = _frame(grid, board.land)
    two = _frame(grid, frozenset(sorted(land)))
    assert (one.first_column, one.first_row) == (two.first_column, two.first_row)


def test_what_crosses_the_cut_is_drawn_on_both_sides_and_no_further():
    """straits is cut at A (water): kim's destroyer at B10 sails to AE10
    across the cut, another attacks lee's at AF10 in the last column. The
    move is an arrow out of the left edge and one in from the right; the
    attack's line and crosshair stay inside the grid."""
    state = straits()
    grid = state.grid
    mover = boards.new_unit(state, "kim", "destroyer", grid.parse("B10"))
    shooter = boards.new_unit(state, "kim", "destroyer", grid.parse("AD12"))
    boards.new_unit(state, "lee", "destroyer", grid.parse("AF10"))
    result = tick(state, {"kim": f"move {mover.id} to AE10\nattack AF10 with {shooter.id}"}, 4)
    assert [r.succeeded for r in result.results] == [True, True], result.results
    svg = svg_of(result, "kim")
    frame = frame_for(GAME.view(result.state, "kim").board)
    box = (frame.x(0) - 0.5, frame.y(0) - 0.5, frame.right + 0.5, frame.bottom + 0.5)
    moves = [e for e in elements(svg) if e.role == "order" and e.kind == "move"]
    assert len(moves) == 2
    assert {_on_edge(frame, e.segments[-1][1]) for e in moves} == {True, False}
    for e in elements(svg):
        if e.role == "order" and e.kind.startswith(("move", "attack")):
            points = [p for a, b, _ in e.segments for p in (a, b)]
            if e.ring is not None:
                x, y, r, w = e.ring
                points = [(x - r - w / 2, y - r - w / 2), (x + r + w / 2, y + r + w / 2)]
            assert all(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in points), e
