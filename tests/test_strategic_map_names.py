"""The map attached to a report mail is named by the turn as the subject
names it: a Strategic Initiative tick by its clock ("day 1, 00:15":
map-day1-0015.png and .svg), in the tick's mail and in HISTORY's copy of
it; the start mail's map by the clock of the position it shows
(map-day1-0000.png); every other game keeps map-<turn> and map.png."""

from __future__ import annotations

from datetime import timedelta

import pytest

from adjudicator import GAMES
from adjudicator.strategic.game import GAME
from tests.mailharness import SERVER_YAML, Harness

ISLES = "isles@judge.example"
ANN = "ann@example.org"

YAML = (
    SERVER_YAML
    + """\
  - name: isles
    game: strategic
    map: islands
    tick: 15m
    players:
      - {name: ann, email: ann@example.org}
      - {name: bob, email: bob@example.org}
    master: {email: gm@example.org, password: gm-secret}
    options: {width: 40, height: 40, length: 40}
    seed: 7
"""
)


def files(mail) -> list[str]:
    return sorted(p.get_filename() for p in mail.walk() if p.get_filename())


def test_a_tick_reports_map_is_named_by_the_ticks_clock(tmp_path):
    h = Harness(tmp_path, YAML)
    try:
        h.clock.set(h.game("isles").deadline - timedelta(seconds=1))
        h.send(ANN, ISLES, f"PASSWORD {h.password(ANN, 'isles')}\nstatus\n")
        h.clock.set(h.game("isles").deadline + timedelta(seconds=1))
        h.tick()
        (mail,) = h.outbox("report", ANN)
        assert str(mail["Subject"]) == "[isles] day 1, 00:15 situation report"
        assert files(mail) == ["map-day1-0015.png", "map-day1-0015.svg"]
        h.send(ANN, ISLES, f"PASSWORD {h.password(ANN, 'isles')}\nHISTORY day 1, 00:15\n")
        (again,) = h.outbox("history", ANN)
        assert files(again) == ["map-day1-0015.png", "map-day1-0015.svg"]
    finally:
        h.close()


def test_the_start_mails_map_is_named_by_the_clock_of_the_start(tmp_path):
    h = Harness(tmp_path, YAML)
    try:
        (mail,) = h.outbox("started", ANN)
        assert "map-day1-0000.png" in files(mail) and "map.png" not in files(mail)
    finally:
        h.close()


def test_a_seat_taken_over_gets_the_map_its_tick_report_had():
    """After tick 5 (day 1, 01:15) the position is the one tick 5's report
    drew, and its map has that report's name."""
    state = GAME.start(GAME.load_map("islands"), ["a", "b"], {}, 1)
    assert GAME.start_map_file(state) == "map-day1-0000"
    state.tick = 4
    before = GAME.phase(state)  # tick 5 played from here
    state.tick = 5
    assert GAME.start_map_file(state) == GAME.map_file(*before)
    assert GAME.start_map_file(state) == "map-day1-0115"


CLOCKS = [(0, "map-day1-0015"), (95, "map-day2-0000"), (96, "map-day2-0015"),
          (959, "map-day11-0000")]  # fmt: skip


@pytest.mark.parametrize("tick, name", CLOCKS)
def test_the_name_is_the_clock_of_the_tick_played(tick, name):
    state = GAME.start(GAME.load_map("islands"), ["a", "b"], {}, 1)
    state.tick = tick
    number, phase = GAME.phase(state)
    assert GAME.map_file(number, phase) == name


@pytest.mark.parametrize("kind", sorted(k for k in GAMES if k != "strategic"))
def test_every_other_game_keeps_map_and_the_turn(kind):
    game = GAMES[kind]
    board = game.load_map(game.maps()[0])
    names = [f"p{i}" for i in range(min(game.map_players(board), 6))]
    number, phase = game.phase(game.start(board, names, {}, 1))
    assert game.map_file(number, phase) == f"map-{number}"
    assert game.start_map_file(game.start(board, names, {}, 1)) == "map"
