"""Strategic Initiative's map on small squares (the default 64 x 64 board,
under 12 pixels a square), read back from its SVG: every city's letter
and every unit's label can be read, none under another mark; a satellite
over a full square is told in the legend, its star over nothing else."""

from __future__ import annotations

import pytest

from adjudicator.strategic import board as boards
from adjudicator.strategic.game import GAME
from adjudicator.strategic.picture import designation_letters, frame_for, type_glyphs
from pbem.mapdraw import picture, to_svg
from tests.test_strategic_map_window import covers, elements, letters_covered, tick

PLAYERS = ["ann", "bob", "cid", "dee", "eve", "fay"]


@pytest.fixture(scope="module")
def small_board():
    """A started six-player game on 64 x 64 (its cities hold their units)
    after a tick in which ann launched a satellite over bob's first city
    (a port holding his ships): the result, and ann's view."""
    grid, cities = boards.generate(len(PLAYERS), 3, None, None)
    state = boards.start(grid, cities, PLAYERS, 3, {})
    target = min(c.square for c in state.cities.values() if c.owner == "bob")
    home = min(c.square for c in state.cities.values() if c.owner == "ann")
    sat = boards.new_unit(state, "ann", "satellite", home)
    result = tick(state, {"ann": f"launch {sat.id} to {state.grid.name(target)}"}, 7)
    seen = result.for_viewer("ann")
    return result, GAME.view(seen.state, "ann"), seen.results


def _inside(box, x0: float, y0: float, side: float) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return x0 <= x <= x0 + side and y0 <= y <= y0 + side


def test_every_city_letter_and_unit_label_reads_on_a_64_square_board(small_board):
    _, view, results = small_board
    scene = picture("strategic", view, results)
    svg = to_svg(scene)
    frame = frame_for(view.board)
    assert frame.cell < 12 and frame.columns == 64
    drawn = elements(svg)
    glyphs = [e for e in drawn if e.role == "glyph"]
    names = {e.text for e in drawn if e.role == "label" and e.kind == "label"}

    def in_square(square: int) -> list[str]:
        i, j = frame.slot(square)
        return [e.text for e in glyphs if _inside(e.box, frame.x(i), frame.y(j), frame.cell)]

    held = 0
    for c in view.board["cities"]:
        if not c["designation"]:
            continue
        letter = designation_letters()[c["designation"]]
        inside = in_square(c["square"])
        held += bool(inside) and letter not in inside
        assert letter in inside or f"{c['name']} ({letter})" in names, (c["name"], inside)
    assert held >= 3  # ann's cities holding her units, bob's port under her satellite
    for e in view.board["units"]:
        if e.get("carried_by"):
            continue
        here = [u for u in view.board["units"] if u["square"] == e["square"]
                and not u.get("carried_by") and u["owner"] == e["owner"]]  # fmt: skip
        label = type_glyphs()[e["kind"]] if len(here) == 1 else str(len(here))
        assert label in in_square(e["square"]), (e["id"], e["at"])
    assert letters_covered(svg) == []


def test_a_star_is_under_no_mark_and_a_full_square_puts_it_in_the_legend(small_board):
    result, view, results = small_board
    svg = to_svg(picture("strategic", view, results))
    drawn = elements(svg)
    for n, e in enumerate(drawn):
        if e.kind == "satellite":
            assert not [later for later in drawn[n + 1 :] if covers(later, e.box)], e.box
    (sat,) = view.board["satellites"]
    city = next(c for c in view.board["cities"] if c["square"] == sat["square"])
    words = [e.text for _, entries in picture("strategic", view, results).legend for e in entries]
    where = f"{city['name']} ({city['at']})"
    assert f"{sat['id']}: satellite over {where}, the middle of its sight" in words
