"""Strategic Initiative's map and start (RULINGS.md, Strategic Initiative:
"The map is generated from a seed and the player count and stored with the
game: islands in water, about 30% land; a home island per player with 6
cities (designated fort, port, tech centre, fort, port, airport); at least 6
neutral cities per player elsewhere; every home at least 8 squares from the
next. Each nation starts with 512 command points, technology 0, 2 infantry in
its first fort and 1 transport in its first port; every city's first build is
the cheapest unit its designation allows at technology 0 (an airport, which
has none, builds nothing until technology allows). games.yaml may change
these."). Every ruling is checked over many seeds and player counts."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cache

import pytest

from adjudicator.base import GameError
from adjudicator.strategic import position
from adjudicator.strategic.board import (
    HOME_DESIGNATIONS,
    _reserved,
    default_size,
    generate,
    start,
    text_map,
)
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import Board

# (players, seed, width, height): bounded so the file runs in a few seconds
CASES = [(p, s, None, None) for p in (1, 2, 3, 4, 5, 6, 7, 9) for s in (1, 2, 3)]
CASES += [(12, 4, None, None), (13, 5, None, None), (6, 6, 96, 40), (4, 7, 40, 80)]
CASES += [(24, 8, 256, 256)]  # the size the benchmark plays


@cache
def made(players, seed, width, height):
    board, cities = generate(players, seed, width, height)
    return board, cities, components(board)


def components(board: Board) -> dict[int, int]:
    """Each land square's island (8-connected land, wrapping), by a flood
    of our own, not the generator's."""
    island: dict[int, int] = {}
    for first in sorted(board.land):
        if first in island:
            continue
        island[first] = first
        todo = [first]
        while todo:
            for n in board.grid.neighbours(todo.pop()):
                if n in board.land and n not in island:
                    island[n] = first
                    todo.append(n)
    return island


def players_of(case):
    return [f"player{i}" for i in range(case[0])]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_islands_in_water_about_30_percent_land(case):
    """RULINGS.md: "islands in water, about 30% land"; no island encloses water a ship
    could never leave (the sea is one body)."""
    board, _, island = made(*case)
    share = len(board.land) / board.grid.size
    assert 0.28 <= share <= 0.32, share
    assert len(set(island.values())) >= 3 * case[0]
    water = [sq for sq in range(board.grid.size) if sq not in board.land]
    seen = {water[0]}
    todo = [water[0]]
    while todo:
        for n in board.grid.neighbours(todo.pop()):
            if n not in board.land and n not in seen:
                seen.add(n)
                todo.append(n)
    assert len(seen) == len(water), "a lake no ship can reach"


@pytest.mark.parametrize("case", CASES, ids=str)
def test_a_home_island_per_player_with_six_cities_in_order(case):
    """RULINGS.md: "a home island per player with 6 cities (designated fort, port, tech
    centre, fort, port, airport)": the six of a seat are on one island, no
    other city is, and each seat has its own island."""
    board, cities, island = made(*case)
    homes = {}
    for seat in range(case[0]):
        mine = [c for c in cities if c.home == seat]
        assert tuple(c.designation for c in mine) == HOME_DESIGNATIONS
        assert len({island[c.square] for c in mine}) == 1
        homes[seat] = island[mine[0].square]
    assert len(set(homes.values())) == case[0]
    for c in cities:
        if c.home is None:
            assert island[c.square] not in homes.values(), c


@pytest.mark.parametrize("case", CASES, ids=str)
def test_every_home_at_least_8_squares_from_the_next(case):
    """RULINGS.md: "every home at least 8 squares from the next": the land of one home
    island is 8 squares or more (wrapping) from the land of every other."""
    board, cities, island = made(*case)
    grid = board.grid
    home_ids = {island[c.square] for c in cities if c.home is not None}
    lands = [[sq for sq, i in island.items() if i == h] for h in sorted(home_ids)]
    for k, a in enumerate(lands):
        for b in lands[k + 1 :]:
            nearest = min(grid.distance(x, y) for x in a for y in b)
            assert nearest >= 8, nearest


@pytest.mark.parametrize("case", CASES, ids=str)
def test_at_least_six_neutral_cities_per_player_ports_on_a_coast(case):
    """RULINGS.md: "at least 6 neutral cities per player elsewhere"; "Ports must be
    designated next to water"; cities are land, never side by side."""
    board, cities, _ = made(*case)
    assert sum(c.home is None for c in cities) >= 6 * case[0]
    assert len({c.square for c in cities}) == len(cities)
    squares = {c.square for c in cities}
    for c in cities:
        assert c.square in board.land
        assert c.designation in tables().cities
        if tables().cities[c.designation].needs_coast:
            assert board.coastal(c.square), c
        assert not squares & set(board.grid.neighbours(c.square)), c


@pytest.mark.parametrize("case", CASES, ids=str)
def test_city_names_a_person_can_type(case):
    """Cities have names a person can type: letters only, short, unique in
    the game ignoring case, none the beginning of another, none a word of
    the orders (a unit type, a relation, a verb)."""
    _, cities, _ = made(*case)
    names = [c.name.lower() for c in cities]
    assert len(set(names)) == len(names)
    for c in cities:
        assert re.fullmatch(r"[A-Z][a-z]{3,8}", c.name), c.name
    for a in names:
        assert not any(b != a and b.startswith(a) for b in names), a
    assert not set(names) & _reserved()
    assert {"infantry", "war", "move", "fort"} <= _reserved()


@pytest.mark.parametrize("case", CASES[:6] + CASES[-3:-1], ids=str)
def test_the_same_seed_makes_the_same_game_byte_for_byte(case):
    """RULINGS.md: "deterministic from player count, size and seed": the whole start,
    written as a position, is the same text every time; another seed makes
    another map."""
    players, seed, width, height = case
    texts = []
    for _ in range(2):
        board, cities = generate(players, seed, width, height)
        texts.append(position.dump(start(board, cities, players_of(case), seed)))
    assert texts[0] == texts[1]
    other = generate(players, seed + 100, width, height)
    assert position.dump(start(*other, players_of(case), seed)) != texts[0]


@pytest.mark.parametrize("case", CASES[::3], ids=str)
def test_the_start(case):
    """RULINGS.md: "Each nation starts with 512 command points, technology 0, 2 infantry
    in its first fort and 1 transport in its first port; every city's first
    build is the cheapest unit its designation allows at technology 0 (an
    airport ... builds nothing)"; neutral cities have no owner and no build;
    relations start Neutral; ids are the type's short name and the game's
    counter, which is each unit's ``built``."""
    board, cities, _ = made(*case)
    names = players_of(case)
    state = start(board, cities, names, 99)
    first_builds = {"fort": "infantry", "port": "supply_ship", "tech": "engineer", "airport": None}
    for seat, player in enumerate(names):
        nation = state.nations[player]
        assert (nation.command, nation.tech, nation.relations, nation.declared) == (
            512, Fraction(0), {}, {}
        )  # fmt: skip
        home = [c for c in cities if c.home == seat]
        fort, port = home[0].square, home[1].square
        assert [(u.kind, u.id) for u in state.units_at(fort)] == [
            ("infantry", f"inf{3 * seat + 2}"), ("infantry", f"inf{3 * seat + 1}")
        ]  # fmt: skip
        ships = [(u.kind, u.id) for u in state.units_at(port)]
        assert ships == [("transport", f"tr{3 * seat + 3}")]
        for spot in home:
            city = state.cities[spot.square]
            assert (city.owner, city.build, city.progress) == (
                player, first_builds[spot.designation], 0
            )  # fmt: skip
    for u in state.units.values():
        kind = tables().unit(u.kind)
        assert (u.hp, u.ammo, u.mobility, u.fuel) == (kind.hp, kind.ammo, kind.mobility, 0)
        assert u.id.endswith(str(u.built))
    assert state.counter == 3 * len(names) == len(state.units)
    for spot in cities:
        if spot.home is None:
            city = state.cities[spot.square]
            assert (city.owner, city.build, city.designation) == (None, None, spot.designation)
    assert len({n.colour for n in state.nations.values()}) == len(names)
    assert (state.tick, state.seed, state.length, state.standing) == (0, 99, 960, [])


def test_games_yaml_may_change_the_start_figures():
    """RULINGS.md: "games.yaml may change these": command_start and length; the options
    are kept in the state; bad values are refused by name."""
    board, cities, _ = made(2, 1, None, None)
    state = start(board, cities, ["ann", "bob"], 5, {"command_start": 300, "length": 480})
    assert [n.command for n in state.nations.values()] == [300, 300]
    assert state.length == 480 and state.options == {"command_start": 300, "length": 480}
    with pytest.raises(GameError, match="command_start must be a whole number from 0 to 1024"):
        start(board, cities, ["ann", "bob"], 5, {"command_start": 2000})
    with pytest.raises(GameError, match="length must be"):
        start(board, cities, ["ann", "bob"], 5, {"length": "long"})
    with pytest.raises(GameError, match="this map has 2 homes"):
        start(board, cities, ["ann"], 5)
    with pytest.raises(GameError, match="this map has 2 homes"):
        start(board, cities, ["ann", "ANN"], 5)


def test_default_sizes_and_boards_too_small():
    """The default board grows with the player count; a board too small for
    its homes is refused with what each needs."""
    assert [default_size(p) for p in (1, 2, 6, 24)] == [(32, 32), (40, 40), (64, 64), (128, 128)]
    assert generate(6, 1)[0].grid.width == 64
    with pytest.raises(GameError, match="too small for 6 players: each home island needs 17"):
        generate(6, 1, 40, 40)
    with pytest.raises(GameError, match="each side from 17"):
        generate(1, 1, 10, 40)
    with pytest.raises(GameError, match="at least 1 player"):
        generate(0, 1)


def test_the_text_map_shows_land_water_and_cities():
    """The text picture: one line a row, . water, # land, a city by its
    designation's letter (capital: owned)."""
    board, cities, _ = made(2, 1, None, None)
    state = start(board, cities, ["ann", "bob"], 1)
    lines = text_map(state).splitlines()
    assert len(lines) == 40 and all(len(line) == 40 for line in lines)
    text = "".join(lines)
    assert text.count("F") == 4 and text.count("P") == 4 and text.count("A") == 2
    assert sum(ch in "fptab" for ch in text) == sum(c.home is None for c in cities)
    assert text.count(".") == 40 * 40 - len(board.land)
