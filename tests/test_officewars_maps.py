"""Office Wars maps: the shipped ones, refusals of malformed ones, the generator."""

from __future__ import annotations

import pytest

from adjudicator.base import GameError
from adjudicator.officewars import GAME
from adjudicator.officewars.board import generate_board, load_board


def test_shipped_maps():
    assert set(GAME.maps()) >= {"six", "twelve"}
    six, twelve = GAME.load_map("six"), GAME.load_map("twelve")
    assert len(six.homes) == 6 and 30 <= len(six.systems) <= 42
    assert len(twelve.homes) == 12 and len(twelve.systems) >= 60
    for board in (six, twelve):
        degrees = [len(v) for v in board.adjacency.values()]
        assert min(degrees) >= 2


GOOD = """\
name: tiny
systems:
  Sol: {aliases: [Sun], at: [0, 0]}
  Vega: {at: [1, 0]}
  Rigel: {}
connections:
  - Sol - Vega
  - [Vega, Rigel]
homes: [Sol, Rigel]
"""


def test_good_map_loads():
    board = load_board(GOOD)
    assert board.adjacency["Vega"] == ("Rigel", "Sol")
    assert board.lookup("sun") == ("Sol",)
    assert board.homes == ("Sol", "Rigel")


@pytest.mark.parametrize(
    "change, message",
    [
        (
            ("  - Sol - Vega", "  - Sol - Deneb"),
            "line 7: connection Sol - Deneb: unknown system 'Deneb'",
        ),
        (
            ("  - [Vega, Rigel]", "  - Sol - Sol"),
            "line 8: connection Sol - Sol: a system cannot connect",
        ),
        (("  - [Vega, Rigel]", "  - Vega - Sol"), "line 8: connection Vega - Sol is listed twice"),
        (
            ("homes: [Sol, Rigel]", "homes: [Sol, Deneb]"),
            "line 9: home world 'Deneb' is not a system",
        ),
        (("homes: [Sol, Rigel]", ""), "homes: a list of home worlds is needed"),
        (
            ("  Rigel: {}", "  Rigel: {aliases: [sun]}"),
            "name 'sun' of system Rigel is already used by system Sol",
        ),
        (("  - [Vega, Rigel]", "  - Vega"), "line 8: connection 'Vega': write it as 'A - B'"),
        (
            ("  Vega: {at: [1, 0]}", "  Vega: {at: [1]}"),
            "line 4: system Vega: 'at' must be two numbers",
        ),
        (("name: tiny", "name: tiny\ncolour: red"), "line 2: unknown key 'colour'"),
    ],
)
def test_malformed_maps_are_refused_with_the_line(change, message):
    old, new = change
    with pytest.raises(GameError) as caught:
        load_board(GOOD.replace(old, new), source="tiny.yaml")
    assert message in str(caught.value)


def test_disconnected_map_is_refused():
    text = GOOD.replace("  - [Vega, Rigel]\n", "") + ""
    with pytest.raises(
        GameError, match="line 6: the map is not connected: no path from Sol to Rigel$"
    ):
        load_board(text)


def test_every_problem_is_listed_at_once():
    text = GOOD.replace("Sol - Vega", "Sol - Deneb").replace("[Sol, Rigel]", "[Sol, Altair]")
    with pytest.raises(GameError) as caught:
        load_board(text)
    assert "Deneb" in str(caught.value) and "Altair" in str(caught.value)


def test_not_yaml():
    with pytest.raises(GameError, match="line 3: not valid YAML"):
        load_board("name: x\nsystems: [a\n")


@pytest.mark.parametrize("size, players", [(2, 2), (37, 6), (500, 12), (1000, 40)])
def test_generator_is_connected_and_deterministic(size, players):
    board = generate_board(size, players, seed=3)
    assert len(board.systems) == size and len(set(board.homes)) == players
    assert board == generate_board(size, players, seed=3)
    # connected: the loader's own check accepts it
    again = load_board_from(board)
    assert again.connections == board.connections
    degrees = [len(v) for v in board.adjacency.values()]
    assert min(degrees) >= 1 and max(degrees) <= 8


def test_generator_differs_by_seed():
    assert generate_board(100, 4, 1).connections != generate_board(100, 4, 2).connections


def load_board_from(board):
    from adjudicator.officewars.board import board_from_data

    return board_from_data(board.to_dict())


def test_a_map_with_more_home_worlds_than_colours_takes_as_many_players_as_there_are_colours():
    board = generate_board(100, 20, 1)
    most = GAME.seats.maximum
    assert len(board.homes) > most
    with pytest.raises(GameError, match=f"takes 2 to {most} players, not 20"):
        GAME.start(board, [f"p{i}" for i in range(20)], {}, 0)
    state = GAME.start(board, [f"p{i}" for i in range(most)], {}, 0)
    assert len({p.colour for p in state.players}) == most
    assert GAME.map_players(board) == most
