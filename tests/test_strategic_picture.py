"""The Strategic Initiative map as a player reads it (adjudicator/strategic/
picture.py), drawn from real started games and real ticks: every kind drawn
explained in the legend; remembered units drawn unlike units in sight; no
unit, and no city's owner, that the viewer cannot see in the picture; the
same view, the same picture; the observer's, the game master's and the
biggest board's maps; arrows the short way round the wrapping grid."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adjudicator.base import OrderResult, OrderSheet, Rng, View
from adjudicator.drawing import Box, Circle, Line, Text
from adjudicator.strategic import board as boards
from adjudicator.strategic import sight
from adjudicator.strategic.arrows import route
from adjudicator.strategic.game import GAME
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.orders import Attack, Declare, Move
from adjudicator.strategic.picture import (
    GROUND,
    UNKNOWN,
    Frame,
    designation_letters,
    draw,
    frame_for,
    type_glyphs,
)
from adjudicator.strategic.resolve import Reason
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import State
from adjudicator.strategic.tick import run_tick
from pbem.mapdraw import to_png, to_svg
from pbem.pictures.labels import place_names
from tests.maps_svg import assert_readable

SIX = ["ann", "bob", "cid", "dee", "eve", "fay"]
ROOT = Path(__file__).resolve().parent.parent


# -- real games --------------------------------------------------------------------


def started(seed: int, players: list[str] = SIX, **size: int) -> State:
    grid, cities = boards.generate(len(players), seed, size.get("width"), size.get("height"))
    return boards.start(grid, cities, players, seed, {})


def sheet(player: str, *orders) -> OrderSheet:
    return OrderSheet(player, tuple(orders))


def water_near(state: State, square: int, distance: int) -> list[int]:
    """Empty water squares exactly ``distance`` from ``square``, in order."""
    grid = state.grid
    taken = {u.square for u in state.units.values()}
    return [q for q in grid.within(square, distance)
            if grid.distance(q, square) == distance and q not in state.board.land
            and q not in taken]  # fmt: skip


def transport_of(state: State, nation: str) -> int:
    """Where the nation's first transport is (in its home port at the start)."""
    return min(u.square for u in state.units.values()
               if u.owner == nation and u.kind == "transport")  # fmt: skip


def war(seed: int) -> list[tuple[State, tuple[OrderResult, ...]]]:
    """A started six-player game in which ann's ships (put near bob's home
    port with three days' mobility, as if built there) declare war on bob,
    attack his destroyer off the port, then steam away out of sight:
    (state, results) after each tick."""
    state = started(seed)
    port = transport_of(state, "bob")
    target = boards.new_unit(state, "bob", "destroyer", water_near(state, port, 1)[0]).square
    spots = water_near(state, target, 2)
    fleet = [boards.new_unit(state, "ann", kind, spot)
             for kind, spot in zip(("destroyer", "battleship", "patrol_boat"), spots,
                                   strict=False)]  # fmt: skip
    for ship in fleet:
        ship.mobility *= 3
    ids = tuple(u.id for u in fleet)
    name = state.grid.name
    far = water_near(state, target, 12) or water_near(state, target, 9)
    ticks = [
        [Declare(player="ann", seq=1, toward="bob", level="war"),
         Attack(player="ann", seq=2, units=ids[:2], target=target, target_name=name(target))],
        [Move(player="ann", seq=3, units=ids[2:], target=spots[-1], target_name=name(spots[-1]))],
        [Move(player="ann", seq=4, units=ids, target=far[0], target_name=name(far[0]))],
    ]  # fmt: skip
    out = []
    for n, orders in enumerate(ticks + [[]] * 3):
        result = run_tick(state, [sheet("ann", *orders)] if orders else [], seed * 100 + n)
        state = result.state
        out.append((state, result.results))
    return out


@pytest.fixture(scope="module")
def war_game():
    return war(3)


def mine(results, player):
    return tuple(r for r in results if r.visible_to is None or player in r.visible_to)


def scene_of(view: View, results=()):
    return draw(view, results)


def texts_of(scene) -> list[str]:
    out = [scene.title]
    for item in scene.items:
        if isinstance(item, Text):
            out.append(item.text)
        elif isinstance(item, Box | Circle):
            out.append(item.title)
    out += [w.text for w in scene.names]
    out += [e.text for _, entries in scene.legend for e in entries]
    return out


# -- the legend --------------------------------------------------------------------


def test_every_kind_drawn_is_in_the_legend(war_game):
    """docs/reports.md: a legend under the map explains every mark drawn."""
    for state, results in [war_game[0], war_game[-1]]:
        for viewer in ("ann", "bob", None):
            scene = draw(GAME.view(state, viewer), mine(results, viewer) if viewer else results)
            kinds = {k.removesuffix("-failed") for k in scene.kinds()}
            assert kinds <= scene.legend_kinds(), kinds - scene.legend_kinds()
            shown = {e.text for _, entries in scene.legend for e in entries}
            for item in scene.items:
                if item.role == "ground":
                    assert GROUND[_ground_key(item.kind)][2] in shown


def _ground_key(kind: str) -> tuple[bool, bool]:
    return next(k for k, (_, name, _) in GROUND.items() if name == kind)


def test_the_letters_on_the_map_are_in_the_legend(war_game):
    """A city's designation letter and a unit's type letters are explained."""
    state, results = war_game[0]
    scene = draw(GAME.view(state, "ann"), mine(results, "ann"))
    shown = {e.text for _, entries in scene.legend for e in entries}
    glyphs = {i.text for i in scene.items if isinstance(i, Text) and i.role == "glyph"}
    for key, letter in designation_letters().items():
        if letter in glyphs:
            assert tables().cities[key].name in shown
    for key, letters in type_glyphs().items():
        if letters in glyphs:
            assert tables().units[key].name in shown
    assert len(set(type_glyphs().values())) == len({u.short for u in tables().units.values()})


def test_the_map_reads_at_800_pixels(war_game):
    """Every map: 800 px wide, no name over a name or mark, legend complete."""
    state, results = war_game[0]
    scene = draw(GAME.view(state, "ann"), mine(results, "ann"))
    place_names(scene)
    assert_readable(to_svg(scene), to_png(scene))


# -- the fog of war ----------------------------------------------------------------


def test_remembered_units_are_drawn_unlike_units_in_sight(war_game):
    """RULINGS.md, memory: a unit once seen is shown where and as it was last
    seen; the map shows it pale, as remembered, and says so in the legend."""
    state, _ = war_game[-1]
    board = GAME.view(state, "ann").board
    remembered = [u for u in board["units"] if u["status"] == "remembered"]
    assert remembered, "ann's ships left bob's port: his units are remembered"
    scene = draw(GAME.view(state, "ann"), ())
    marks = {i.kind: i for i in scene.items if i.role == "mark" and i.title}
    for u in remembered:
        drawn = [i for i in scene.items if i.role == "mark" and u["id"] in i.title]
        assert [i.kind for i in drawn] == ["remembered"]
        assert "last seen" in drawn[0].title
        in_sight = marks.get("ship") or marks["unit"]
        assert (drawn[0].fill, drawn[0].stroke) != (in_sight.fill, in_sight.stroke)
    assert "remembered" in scene.legend_kinds()


def test_fog_darkens_what_is_out_of_sight_now(war_game):
    state, _ = war_game[0]
    board = GAME.view(state, "ann").board
    frame = frame_for(board)
    scene = draw(GAME.view(state, "ann"), ())
    for square in (next(iter(board["seen"])), next(q for q in range(64) if q not in board["seen"])):
        x, y = frame.centre(square)
        under = [i for i in scene.items if i.role == "ground" and i.x <= x <= i.x + i.w
                 and i.y <= y <= i.y + i.h]  # fmt: skip
        key = (square in board["land"], square not in board["seen"])
        assert under[-1].fill == GROUND[key][0], (square, key)


def hidden_units(state: State, nation: str) -> list[str]:
    seen = sight.visible(state, nation)
    memory = state.nations[nation].memory
    return [u.id for u in state.units.values()
            if u.owner != nation and u.square not in seen and u.id not in memory]  # fmt: skip


def test_nothing_the_viewer_cannot_see_is_in_the_picture():
    """Hidden information (issue 17): no map of a player ever names a unit
    or square that player cannot see or remember, nor a city's owner out of
    sight (three seeded wars, every player, every tick)."""
    for seed in (3, 11, 29):
        for state, results in war(seed):
            for nation in sorted(state.nations):
                view = GAME.view(state, nation)
                scene = draw(view, mine(results, nation))
                text = "\n".join(texts_of(scene))
                for uid in hidden_units(state, nation):
                    assert not re.search(rf"\b{uid}\b", text), (seed, nation, uid)
                _cities_out_of_sight_hide_their_owner(state, nation, view, scene)
                _no_mark_where_the_view_has_none(view, scene)


def _cities_out_of_sight_hide_their_owner(state, nation, view, scene):
    seen = view.board["seen"]
    by_title = {i.title.split(" (")[0]: i for i in scene.items
                if isinstance(i, Box) and i.kind.endswith("city")}  # fmt: skip
    for city in state.cities.values():
        drawn = by_title[city.name]
        if city.owner != nation and city.square not in seen:
            assert drawn.fill == UNKNOWN and drawn.kind == "unknown-city"
            assert city.owner is None or city.owner not in drawn.title
            assert city.designation not in drawn.title


def _no_mark_where_the_view_has_none(view, scene):
    """Every unit mark stands where the view holds a unit (of that owner)."""
    frame = frame_for(view.board)
    at = {frame.centre(u["square"]) for u in view.board["units"]}
    for item in scene.items:
        if item.role == "mark" and item.kind in ("unit", "ship", "plane", "remembered"):
            x, y = (item.x, item.y) if isinstance(item, Circle) else (
                item.x + item.w / 2, item.y + item.h / 2)  # fmt: skip
            assert any(abs(x - a) <= frame.cell / 2 and abs(y - b) <= frame.cell / 2
                       for a, b in at), item  # fmt: skip


def test_an_observer_sees_the_board_and_no_unit():
    """An observer's board: no nation, nothing in sight, no units."""
    state = war(3)[0][0]
    board = dict(GAME.view(state, None).board)
    board.update(viewer="#observer", nation=None, seen=frozenset(),
                 units=[], cities=[sight.city_entry(state, c, False, False)
                                   for c in state.cities.values()])  # fmt: skip
    view = View("strategic", state.tick, "tick", (), (), board)
    scene = draw(view, ())
    assert not [i for i in scene.items if i.role == "mark" and i.kind != "unknown-city"]
    assert {i.kind for i in scene.items if i.role == "ground"} <= {"land-fog", "water-fog"}
    place_names(scene)
    assert_readable(to_svg(scene), to_png(scene))


def test_the_game_master_sees_every_unit_and_owner(war_game):
    state, results = war_game[0]
    scene = draw(GAME.view(state, None), results)
    titles = "\n".join(texts_of(scene))
    for uid in state.units:
        assert re.search(rf"\b{uid}\b", titles), uid
    assert not [i for i in scene.items if i.kind in ("unknown-city", "remembered")]
    assert {i.kind for i in scene.items if i.role == "ground"} <= {"land", "water"}
    assert [i for i in scene.items if i.role == "order"], "the master sees ann's attack"


def test_several_units_in_a_square_are_one_mark_with_their_count():
    """The start puts two infantry in each nation's first fort: one mark,
    "2" on it, its tooltip naming both."""
    state = started(3)
    fort = next(u.square for u in state.units.values() if u.owner == "ann"
                and u.kind == "infantry")  # fmt: skip
    frame = frame_for(GAME.view(state, "ann").board)
    scene = draw(GAME.view(state, "ann"), ())
    x, y = frame.centre(fort)
    marks = [i for i in scene.items if i.role == "mark" and i.kind == "unit"
             and abs(i.x + i.w / 2 - x) < 1 and abs(i.y + i.h / 2 - y) < 1]  # fmt: skip
    assert len(marks) == 1 and marks[0].title.count("infantry") == 2
    glyphs = [i.text for i in scene.items if i.role == "glyph" and (i.x, i.y) == (x, y)]
    assert glyphs == ["2"]


def test_planes_are_diamonds_apart_from_land_units_and_ships():
    """The straits scenario: kim's five planes at Calder are one diamond
    with "5" on it, explained in the legend; a fighter aboard the carrier
    is drawn only as the carrier (a circle); in the SVG a diamond is a
    polygon."""
    state = GAME.load_position((ROOT / "scenarios" / "straits.yaml").read_text())
    view = GAME.view(state, "kim")
    scene = draw(view, ())
    frame = frame_for(view.board)
    planes = [i for i in scene.items if i.role == "mark" and i.kind == "plane"]
    assert len(planes) == 1 and isinstance(planes[0], Box) and planes[0].diamond
    x, y = frame.centre(state.grid.parse("F10"))  # in the corner of the city it stands in
    assert (planes[0].x + planes[0].w / 2, planes[0].y + planes[0].h / 2) == (
        x + frame.cell / 4, y + frame.cell / 4)  # fmt: skip
    assert planes[0].title.count("of kim") == 5 and "ftr12" not in planes[0].title
    carrier = [i for i in scene.items if i.role == "mark" and "cv11" in i.title]
    assert len(carrier) == 1 and isinstance(carrier[0], Circle)
    assert "plane" in scene.legend_kinds()
    shown = {e.text for _, entries in scene.legend for e in entries}
    assert "plane: its owner's colour, its type or how many" in shown
    svg = to_svg(scene)
    assert re.search(r'<polygon class="[^"]*plane[^"]*" points=', svg), svg[:400]
    assert_readable(svg, to_png(scene))


def test_every_map_of_a_game_is_cut_open_at_the_same_place():
    """The grid wraps: every map of a game, a player's, an observer's and
    the game master's, is cut open at the same column and row, chosen from
    the public terrain (window.py); more in test_strategic_map_window.py."""
    state = started(3)
    frames = {(f.first_column, f.first_row) for f in
              (frame_for(GAME.view(state, n).board) for n in [*SIX, None, "nobody"])}  # fmt: skip
    assert len(frames) == 1


# -- this tick's orders ------------------------------------------------------------


def test_the_attack_and_the_moves_are_arrows_in_the_players_colour(war_game):
    state, results = war_game[0]
    attack = next(r for r in results if isinstance(r.order, Attack))
    assert attack.reason != Reason.NOT_AT_WAR, attack
    scene = draw(GAME.view(state, "ann"), mine(results, "ann"))
    arrows = [i for i in scene.items if i.role == "order"]
    assert {a.kind.removesuffix("-failed") for a in arrows} == {"attack"}
    assert {a.stroke for a in arrows} == {"#d62728"}  # ann is red
    bob = draw(GAME.view(state, "bob"), mine(results, "bob"))
    assert not [i for i in bob.items if i.role == "order"]
    standing = war_game[2]
    scene = draw(GAME.view(standing[0], "ann"), mine(standing[1], "ann"))
    assert any(i.kind == "move" for i in scene.items if i.role == "order")


def test_a_result_not_for_the_viewer_draws_nothing(war_game):
    """Results the host hands the picture are the viewer's; a picture still
    draws none that is not (another player's, the observer's)."""
    state, results = war_game[0]
    view = GAME.view(state, "bob")
    scene = draw(view, results)  # ann's results, unfiltered
    assert not [i for i in scene.items if i.role == "order"]


def test_an_arrow_goes_the_short_way_round_the_grid():
    """RULINGS.md: the grid wraps on both edges. A move from the last
    column to the first is drawn out of the right edge and in at the left."""
    frame = Frame(10, 10, 20.0, 100.0, 18.0)
    grid = Grid(10, 10)
    start, target = grid.square(9, 4), grid.square(0, 4)
    lines = route(frame, start, target, "#d62728", True, "move")
    assert len(lines) == 2
    out, into = lines
    assert out.head == "" and into.head == "arrow"
    assert out.points[-1][0] == pytest.approx(frame.right)
    assert into.points[0][0] == pytest.approx(frame.x(0))
    assert out.points[0][0] > frame.x(9) and into.points[-1][0] < frame.x(1)
    inside = route(frame, grid.square(2, 2), grid.square(5, 6), "#d62728", False, "attack")
    assert len(inside) == 1 and inside[0].kind == "attack-failed" and inside[0].dash


def test_a_move_result_that_says_where_units_started_draws_from_there(war_game):
    state, _ = war_game[1]
    view = GAME.view(state, "ann")
    ship = next(u for u in view.board["units"] if u["status"] == "own" and u["kind"] ==
                "patrol_boat")  # fmt: skip
    grid = state.grid
    start = grid.square(*(v + 3 for v in grid.at(ship["square"])))
    order = Move(player="ann", seq=9, units=(ship["id"],), target=ship["square"],
                 target_name=ship["at"])  # fmt: skip
    res = OrderResult(order, True, Reason.MOVED, {"arrived": [ship["id"]],
                      "from": {ship["id"]: grid.name(start)}}, frozenset({"ann"}))  # fmt: skip
    scene = draw(view, [res])
    (line,) = [i for i in scene.items if isinstance(i, Line) and i.role == "order"]
    frame = frame_for(view.board)
    assert line.points[0][0] > frame.centre(ship["square"])[0]


def test_a_unit_boarding_a_transport_beside_it_is_an_arrow_to_the_transport():
    """straits: kim's infantry on the land next to its transport at K12
    boards it (load): an arrow with an open head from its square to the
    transport's, and the legend says what it is."""
    state = GAME.load_position((ROOT / "scenarios" / "straits.yaml").read_text())
    state.units["inf1"].square = state.grid.parse("J11")
    sheet = GAME.read_orders(state, "kim", "load inf1 on tr15")
    result = GAME.adjudicate(state, [sheet], 3)
    (res,) = result.for_viewer("kim").results
    assert res.reason == Reason.LOADED and res.facts["from"] == {"inf1": "J11"}
    view = GAME.view(result.state, "kim")
    scene = draw(view, result.for_viewer("kim").results)
    frame = frame_for(view.board)
    (line,) = [i for i in scene.items if isinstance(i, Line) and i.role == "order"]
    assert line.kind == "load" and line.head == "open"
    assert {frame.slot(q) for q in (state.grid.parse("J11"), state.grid.parse("K12"))} == {
        (int((x - frame.left) // frame.cell), int((y - frame.top) // frame.cell))
        for x, y in line.points}  # fmt: skip
    assert "load: boarding a carrier" in texts_of(scene)


# -- same view, same picture; the biggest board ------------------------------------


def test_the_same_view_draws_the_same_picture(war_game):
    state, results = war_game[0]
    one = to_svg(draw(GAME.view(state, "ann"), mine(results, "ann")))
    two = to_svg(draw(GAME.view(state.copy(), "ann"), mine(results, "ann")))
    assert one == two


def test_a_256_square_board_draws_small():
    """The biggest board: 24 players on 256 x 256, names left off, the
    ground in boxes of runs (far fewer than its 65,536 squares)."""
    state = started(5, [f"p{i}" for i in range(24)], width=256, height=256)
    rng = Rng(5)
    land = sorted(state.board.land)
    for i in range(400):
        boards.new_unit(state, f"p{i % 24}", "infantry", land[rng.below(len(land))])
    for viewer in ("p0", None):
        scene = draw(GAME.view(state, viewer), ())
        assert not scene.names or viewer == "p0"
        assert sum(1 for i in scene.items if i.role == "ground") < 9000
        place_names(scene)
        svg = to_svg(scene)
        assert len(svg) < 2_500_000
        assert_readable(svg, to_png(scene))


def test_a_board_of_1024_squares_a_side_is_drawn_in_bands():
    """The generator allows sides up to 1024 (under a pixel a square): the
    ground is drawn a band of squares at a time, as the band's middle
    squares are, so the picture stays a few thousand boxes."""
    n, grid, rng = 1024, Grid(1024, 1024), Rng(2)
    land = set()
    for _ in range(2000):
        c, r = rng.below(n), rng.below(n)
        land.update(grid.square(c + dc, r + dr) for dc in range(-4, 5) for dr in range(-3, 4))
    seen = frozenset(grid.square(c, r) for c in range(100) for r in range(200))
    board = {"width": n, "height": n, "grid": grid, "land": frozenset(land), "seen": seen,
             "viewer": "ann", "units": [], "cities": [], "nation": None, "nations": []}  # fmt: skip
    scene = draw(View("strategic", 1, "tick", (), (), board), ())
    grounds = [i for i in scene.items if i.role == "ground"]
    assert len(grounds) < 9000
    assert {i.kind for i in grounds} == {"land", "water", "land-fog", "water-fog"}
    frame = frame_for(board)
    assert frame.bottom - frame.y(0) <= 1000 and frame.right - frame.x(0) <= 800
    place_names(scene)
    assert_readable(to_svg(scene), to_png(scene))
