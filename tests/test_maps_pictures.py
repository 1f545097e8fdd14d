"""Every game's map as a player reads it: at the start and after turns of
random legal orders, no label over another label or over a mark, a legend
entry for every mark drawn, an arrow for every order; Implosion's rings
untangled; `pbem maps` for every game; the demo's report shows its map in
a browser."""

from __future__ import annotations

import base64
import re

import pytest

from adjudicator.base import Rng
from adjudicator.implosion import GAME as IMPLOSION
from adjudicator.implosion.picture import Polar
from adjudicator.officewars import GAME as OFFICEWARS
from adjudicator.territory import GAME as TERRITORY
from pbem.cli.demo import standalone_html
from pbem.cli.main import main
from pbem.mapdraw import picture, to_png, to_svg
from tests.maps_svg import assert_readable, crossings

SIX = ["ann", "bob", "cid", "dee", "eve", "fay"]


def random_orders(kind, game, state, player, rng):
    view = game.view(state, player)
    if kind == "territory":
        names = [s["name"] for s in view.board["states"]]
        return [f"{s} -> {rng.choice(names)}" for s in view.options]
    return [rng.choice(list(opts)) for opts in view.options.values() if opts]


def play(kind, game, board, players, turns, seed):
    """(state, results) at the start and after each turn."""
    state = game.start(board, players, {}, seed)
    rng = Rng(seed)
    out = [(state, ())]
    for turn in range(turns):
        sheets = [game.read_orders(state, p, "\n".join(random_orders(kind, game, state, p, rng)),
                                   turn) for p in players]  # fmt: skip
        result = game.adjudicate(state, sheets, turn)
        state = result.state
        out.append((state, result.results))
    return out


def check(kind, game, state, results, every_label=True):
    scene = picture(kind, game.view(state, None), results)
    drawn = assert_readable(to_svg(scene), to_png(scene), scene.width)
    if every_label:
        assert not any("left out" in e.text for _, es in scene.legend for e in es)
    return scene, drawn


def arrows(scene):
    return [i for i in scene.items if i.role == "order"]


@pytest.mark.parametrize("seed", [1, 2])
def test_office_wars_six_reads_well_turn_by_turn(seed):
    for state, results in play("officewars", OFFICEWARS, OFFICEWARS.load_map("six"), SIX, 5,
                               seed):  # fmt: skip
        scene, drawn = check("officewars", OFFICEWARS, state, results)
        assert len(drawn.labels) == 36
        moving = [r for r in results if r.order.to_dict().get("kind") in ("move", "attack")]
        drawn_arrows = arrows(scene)
        assert len(drawn_arrows) == len(moving)
        assert sum(bool(a.dash) for a in drawn_arrows) == sum(not r.succeeded for r in moving)


def test_office_wars_twelve_names_every_system():
    (state, _), *_ = play("officewars", OFFICEWARS, OFFICEWARS.load_map("twelve"),
                          [f"p{i}" for i in range(12)], 0, 0)  # fmt: skip
    _, drawn = check("officewars", OFFICEWARS, state, ())
    assert len(drawn.labels) == 72


def test_territory_names_every_state_metz_marseille_toulon_too():
    for state, results in play("territory", TERRITORY, TERRITORY.load_map("france"), SIX, 4, 3):
        scene, drawn = check("territory", TERRITORY, state, results)
        names = {label.rsplit(" +", 1)[0] for label in drawn.labels}
        assert {"Metz", "Nancy", "Marseille", "Toulon", "Montpellier"} <= names
        assert len(drawn.labels) == 30
        # each name with its production: "Paris +3"
        assert all(re.fullmatch(r".+ \+\d+", label) for label in drawn.labels), drawn.labels
        sent = [r for r in results if r.order.to_dict().get("kind") == "send"
                and r.reason not in ("too_few", "not_yours")]  # fmt: skip
        assert len(arrows(scene)) == len(sent)


@pytest.mark.parametrize("players", [2, 4, 7])
def test_implosion_reads_well_turn_by_turn(players):
    names = SIX[:players] if players <= 6 else [f"p{i}" for i in range(players)]
    for state, results in play("implosion", IMPLOSION, IMPLOSION.load_map("ring"), names, 4, 2):
        scene, drawn = check("implosion", IMPLOSION, state, results, every_label=False)
        named = set(drawn.labels)
        assert set(state.units) <= named <= {n.name for n in state.board.nodes}
        assert len(named) >= len(state.board.nodes) - 3  # a name with no clear place is left out
        if len(named) < len(state.board.nodes):
            assert any("left out" in e.text for _, es in scene.legend for e in es)
        moved = [r for r in results if r.reason not in ("nothing_to_move", "no_room")]
        assert len(arrows(scene)) == len(moved)


def test_a_big_implosion_board_names_the_occupied_nodes_first():
    names = [f"p{i}" for i in range(64)]
    state = IMPLOSION.start(IMPLOSION.load_map("ring"), names, {}, 0)
    scene, drawn = check("implosion", IMPLOSION, state, (), every_label=False)
    assert set(state.units) <= set(drawn.labels) <= {n.name for n in state.board.nodes}
    left_out = any("some nodes left out" in e.text for _, es in scene.legend for e in es)
    assert left_out == (len(drawn.labels) < len(state.board.nodes))


# -- untangled rings ----------------------------------------------------------------


@pytest.mark.parametrize("players, seed", [(2, 0), (3, 1), (4, 2), (5, 7), (6, 3), (8, 4), (64, 1)])
def test_implosion_links_never_cross(players, seed):
    state = IMPLOSION.start(IMPLOSION.load_map("ring"), [f"p{i}" for i in range(players)], {},
                            seed)  # fmt: skip
    view = IMPLOSION.view(state, None)
    polar = Polar(view.board["nodes"])
    links = [polar.link(a, b) for a, b in view.board["connections"]]
    assert crossings(links) == set()
    # the same drawn in the SVG, as written
    scene = picture("implosion", view, ())
    drawn = assert_readable(to_svg(scene), to_png(scene), scene.width)
    assert crossings([pts for kind, pts, _ in drawn.lines if kind == "link"]) == set()


def test_straight_links_would_tangle_the_rings():
    """Why the links along a ring are drawn as arcs of it: straight, the
    small inner rings' chords cut across the links inside them."""
    state = IMPLOSION.start(IMPLOSION.load_map("ring"), ["p0", "p1", "p2", "p3"], {}, 2)
    view = IMPLOSION.view(state, None)
    polar = Polar(view.board["nodes"])
    straight = [(polar.node(a), polar.node(b)) for a, b in view.board["connections"]]
    assert crossings(straight)


# -- pbem maps and the demo's report ---------------------------------------------------


def test_pbem_maps_lists_and_draws_every_game(capsys, tmp_path):
    assert main(["maps"]) == 0
    out = capsys.readouterr().out
    for line in ("standard: Europe, 1901, 75 provinces, 34 supply centres, 7 powers",
                 "ring: made for each game from its players and seed, 2 to 64 players",
                 "six: The Six Offices, 36 systems, 6 players",
                 "france: France, thirty states, 30 states, 6 players"):  # fmt: skip
        assert line in out
    for game in ("empire", "implosion", "officewars", "territory"):
        assert main(["maps", game, "--picture", str(tmp_path)]) == 0
        out = capsys.readouterr().out
        for name in re.findall(r"^(\w+): ", out, re.M):
            png = tmp_path / f"{game}-{name}.png"
            assert png.read_bytes().startswith(b"\x89PNG")
            svg = (tmp_path / f"{game}-{name}.svg").read_text()
            # a ring of six players is a little wider: twelve rim nodes
            assert_readable(svg, png.read_bytes(), 816 if game == "implosion" else 800)


def test_pbem_maps_refuses_a_player_count_the_game_cannot_take(capsys, tmp_path):
    assert main(["maps", "territory", "--picture", str(tmp_path), "--players", "3"]) == 2
    assert "Territory takes exactly 6 players, not 3" in capsys.readouterr().err


def test_the_saved_report_shows_its_map_in_a_browser():
    png = b"\x89PNG\r\n\x1a\nfake"
    html = '<p><img src="cid:map@pbem" alt="The map"></p>'
    saved = standalone_html(html, png)
    (uri,) = re.findall(r'src="([^"]+)"', saved)
    assert uri.startswith("data:image/png;base64,") and "cid:" not in saved
    assert base64.b64decode(uri.split(",", 1)[1]) == png


def test_territory_a_battle_between_touching_states_is_two_clear_arrows():
    """Marseille and Toulon all but touch: their troops sent at each other
    are two bowed arrows, each long enough to see, never on one line."""
    from dataclasses import replace
    from math import hypot

    from adjudicator.territory.picture import R

    board = TERRITORY.load_map("france")
    state = TERRITORY.start(board, [f"p{i}" for i in range(1, 7)], {}, 3)
    mine = {v: k for k, v in state.owners.items()}
    owners = {k: v for k, v in state.owners.items() if v not in ("p1", "p2")}
    owners.update(Marseille="p1", Toulon="p2")
    troops = {**state.troops, "Marseille": 20, "Toulon": 18}
    state = replace(state, owners=owners, troops=troops)
    sheets = [TERRITORY.read_orders(state, "p1", "Marseille -> Toulon"),
              TERRITORY.read_orders(state, "p2", "Toulon -> Marseille")]  # fmt: skip
    assert mine and all(not s.problems for s in sheets)
    result = TERRITORY.adjudicate(state, sheets, 1)
    scene = TERRITORY.picture(TERRITORY.view(result.state, None), result.results)
    drawn = arrows(scene)
    assert len(drawn) == 2
    for line in drawn:
        steps = zip(line.points, line.points[1:], strict=False)
        length = sum(hypot(b[0] - a[0], b[1] - a[1]) for a, b in steps)
        assert length > 2 * R, line.points
    assert drawn[0].points[1] != drawn[1].points[1]  # bowed to different sides
