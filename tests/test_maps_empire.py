"""The Empire map as a player reads it, phase by phase: a scripted 1901
with moves, supports, convoys, a cut support, bounces, a dislodgement with
its retreat options, the retreat, and the Winter's builds. Each picture is
checked from its SVG (no label over a label or a mark, a legend entry for
every mark, an arrow for every order, dashed where it failed). The board
of areas itself is checked in tests/test_empire_board_map.py."""

from __future__ import annotations

import dataclasses

import pytest

from adjudicator.drawing import Text, fit
from adjudicator.empire import GAME
from adjudicator.empire.areas import shipped_areas, spots
from adjudicator.empire.board import province_of
from adjudicator.empire.game import COLOURS
from pbem.mapdraw import picture, to_png, to_svg
from pbem.pictures.measure import bounds
from tests.maps_svg import assert_readable, overlap

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
PHASES = {
    "S1901M": {
        "England": "F lon - nth\nF edi - nwg\nA lvp - yor",
        "France": "A par - bur\nA mar S A par - bur\nF bre - mao",
        "Germany": "A mun - bur\nF kie - den\nA ber - kie",
        "Italy": "A ven - tyr\nA rom - apu\nF nap - ion",
        "Austria": "A vie - gal\nA bud - ser\nF tri - alb",
        "Russia": "A war - gal\nA mos - ukr\nF sev - bla\nF stp/sc - bot",
        "Turkey": "F ank - bla\nA con - bul\nA smy - arm",
    },
    "F1901M": {
        "England": "A yor - nwy\nF nth C A yor - nwy",
        "France": "A bur - mun\nA mar - spa\nF mao - por",
        "Italy": "A tyr S A bur - mun\nA apu - tun via convoy\nF ion C A apu - tun",
        "Germany": "A kie - hol\nA mun H\nF den - swe",
        "Austria": "A ser - rum\nF alb - gre",
        "Russia": "A ukr - rum\nF sev S A ukr - rum\nF bot - swe",
        "Turkey": "A bul - gre\nA arm - sev\nF ank - con",
    },
    "F1901R": {"Germany": "A mun - ber"},
    "W1901A": {"Austria": "build F tri", "France": "build A par\nbuild F bre",
               "England": "build F lon"},
}  # fmt: skip


def play():
    """Each phase's (code, state after it, results), from the start."""
    state = GAME.start(GAME.load_map("standard"), [p.lower() for p in POWERS], {}, 0)
    player = {p.power: p.name for p in state.players}
    out = [("start", state, ())]
    for code, orders in PHASES.items():
        assert state.code == code
        sheets = [GAME.read_orders(state, player[pw], text) for pw, text in orders.items()]
        assert all(not s.problems for s in sheets), [s.problems for s in sheets]
        result = GAME.adjudicate(state, sheets)
        state = result.state
        out.append((code, state, result.results))
    return out


PLAYED = play()


def draw(state, results):
    scene = picture("empire", GAME.view(state, None), results)
    svg = to_svg(scene)
    return scene, svg, assert_readable(svg, to_png(scene))


AREAS = shipped_areas("standard")
SPOTS = spots(AREAS, fit([(0.0, 0.0), (AREAS.width, AREAS.height)])[0])


def centre(scene, location):
    """Where a location's unit stands, in pixels (a coast's own spot)."""
    return SPOTS.get(location, SPOTS[province_of(location)])


def near(point, target, within):
    return ((point[0] - target[0]) ** 2 + (point[1] - target[1]) ** 2) ** 0.5 <= within


@pytest.mark.parametrize("code", [code for code, _, _ in PLAYED])
def test_every_phase_reads_well(code):
    (state, results) = next((s, r) for c, s, r in PLAYED if c == code)
    scene, svg, drawn = draw(state, results)
    # every province named inside its area, and the coasts of SPA, STP and BUL
    names = {t for t in drawn.labels if t.isupper()}
    assert names == {p.abbr.upper() for p in state.board.provinces}
    assert {t for t in drawn.labels if t.islower()} == {"nc", "sc", "ec"}
    texts = [i for i in scene.items if isinstance(i, Text) and i.role == "label"]
    assert len(texts) == len(names) + 6
    boxes = [bounds(t) for t in texts]
    for i, one in enumerate(boxes):
        assert not any(overlap(one, two) for two in boxes[i + 1 :]), texts[i].text
    # every unit a square in its power's colour with its letter on top
    units = [i for i in scene.items if i.role == "mark" and i.kind in ("army", "fleet")]
    assert len(units) == len(state.units)
    letters = [i for i in scene.items if isinstance(i, Text) and i.text in ("A", "F")]
    for box in units:
        (letter,) = [
            t for t in letters if near((t.x, t.y), (box.x + box.w / 2, box.y + box.h / 2), 1)
        ]
        assert letter.text == ("A" if box.kind == "army" else "F")
        assert scene.items.index(letter) > scene.items.index(box)
    # nothing but labels and marks drawn after the units: no arrow hides a letter
    last_unit = max(scene.items.index(u) for u in units)
    assert all(i.role != "order" or i.kind in ("removed", "disbanded")
               for i in scene.items[last_unit:])  # fmt: skip
    # supply centres in their owner's colour
    for abbr, power in state.owners.items():
        name = state.board.province[abbr].name
        fills = {i.fill for i in scene.items
                 if getattr(i, "title", "").startswith(name + ",") and i.kind == "centre"
                 and i.fill != "#ffffff"}  # fmt: skip
        assert fills == {COLOURS[power]}, abbr


def orders_drawn(scene, kind):
    return [i for i in scene.items if i.role == "order" and i.kind.removesuffix("-failed") == kind]


def test_spring_moves_and_support_are_arrows_dashed_where_they_failed():
    _, state, results = PLAYED[1]
    scene, _, drawn = draw(state, results)
    moves = [r for r in results if r.order.to_dict()["kind"] == "move"]
    arrows = orders_drawn(scene, "move")
    assert len(arrows) == len(moves) == 21
    for r in moves:
        d = r.order.to_dict()
        start = centre(scene, d["unit"].split()[1].lower())
        end = centre(scene, d["to"])
        (line,) = [
            a for a in arrows if near(a.points[0], start, 16) and near(a.points[-1], end, 20)
        ]
        assert bool(line.dash) == (not r.succeeded) == (r.reason == "bounce"), d
        assert line.kind == ("move" if r.succeeded else "move-failed")
    (support,) = orders_drawn(scene, "support")
    assert support.head == "dot" and not support.dash
    assert {"move", "move-failed", "support"} <= drawn.kinds
    assert {"move", "support", "failed"} <= drawn.legend


def test_fall_convoys_cut_support_and_dislodgement_with_retreat_options():
    _, state, results = PLAYED[2]
    scene, _, drawn = draw(state, results)
    kinds = {r.order.to_dict()["kind"] for r in results}
    assert kinds == {"move", "support", "convoy", "hold"}
    convoys = orders_drawn(scene, "convoy")
    assert len(convoys) == 2 and all(c.kind == "convoy" for c in convoys)
    supports = {(bool(s.dash), s.kind) for s in orders_drawn(scene, "support")}
    assert supports == {(False, "support"), (True, "support-failed")}  # TYR supported, SEV cut
    # the German army dislodged from MUN stands beside it, not under the French one
    (gone,) = [i for i in scene.items if i.role == "mark" and i.kind == "dislodged"]
    assert "A MUN (Germany), dislodged" in gone.title
    (french,) = [u for u in scene.items if u.role == "mark" and u.kind == "army"
                 and "A MUN (France)" in u.title]  # fmt: skip
    assert not overlap(gone.box(), french.box())
    assert near((gone.x + gone.w / 2, gone.y + gone.h / 2), centre(scene, "mun"), 30)
    # an arrow to each retreat option, from the dislodged unit
    options = next(r.facts["retreats"] for r in results if "retreats" in r.facts)
    assert sorted(options) == ["ber", "boh", "kie", "ruh", "sil"]
    arrows = [i for i in scene.items if i.kind == "retreat-option"]
    assert len(arrows) == len(options)
    for option in options:
        assert any(near(a.points[-1], centre(scene, option), 20) for a in arrows), option
    assert all(near(a.points[0], (gone.x + gone.w / 2, gone.y + gone.h / 2), 14) for a in arrows)
    assert {"dislodged", "retreat-option", "convoy", "support", "failed"} <= drawn.legend


def test_retreat_and_builds():
    _, state, results = PLAYED[3]
    scene, _, drawn = draw(state, results)
    (arrow,) = orders_drawn(scene, "retreat")
    assert near(arrow.points[-1], centre(scene, "ber"), 20) and "retreat" in drawn.legend
    _, state, results = PLAYED[4]
    scene, _, drawn = draw(state, results)
    built = [r for r in results if r.reason == "built"]
    marks = [i for i in scene.items if i.kind == "built" and i.role == "mark"]
    assert len(marks) == len(built) == 4 and "built" in drawn.legend


def test_start_has_no_orders_and_a_legend_of_what_is_there():
    _, state, _ = PLAYED[0]
    scene, _, drawn = draw(state, ())
    assert not [k for k in drawn.kinds if k in ("move", "support", "convoy")]
    assert {"army", "fleet", "sea", "land", "centre", "free-centre"} <= drawn.legend
    # the areas of the board: every province one, and the land no unit enters
    shapes = [i for i in scene.items if i.role == "area"]
    assert {s.title for s in shapes if s.kind in ("land", "sea")} == {
        p.name for p in state.board.provinces
    }
    assert {s.kind for s in shapes if not s.title} == {"impassable"}


def test_a_retreat_phase_view_alone_shows_the_dislodged_unit_and_its_options():
    """Drawn with no results (a start-of-phase picture): the view's own
    list of the dislodged units and where they may go."""
    _, state, results = PLAYED[2]
    view = GAME.view(state, None)
    retreats = {"mun": {"power": "Germany", "unit": "A MUN", "from": "bur",
                        "options": ["ber", "boh", "kie", "ruh", "sil"]}}  # fmt: skip
    board = {**view.board, "retreats": retreats}
    scene = picture("empire", dataclasses.replace(view, board=board), ())
    assert_readable(to_svg(scene), to_png(scene))
    (gone,) = [i for i in scene.items if i.role == "mark" and i.kind == "dislodged"]
    assert "A MUN (Germany), dislodged: BER, BOH, KIE, RUH, SIL" in gone.title
    assert len([i for i in scene.items if i.kind == "retreat-option"]) == 5
    assert not [i for i in scene.items if i.kind in ("move", "support", "convoy")]
    # the game's own view of the retreat phase draws the same
    assert view.board["retreats"]["mun"]["options"] == retreats["mun"]["options"]
    again = picture("empire", view, ())
    assert [i.title for i in again.items if i.kind == "dislodged" and i.role == "mark"] == [
        gone.title
    ]
