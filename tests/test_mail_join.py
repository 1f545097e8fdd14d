"""Games open for players: JOIN takes a seat; the last seat starts the game."""

from __future__ import annotations

import pytest

from tests.mailharness import GAMES_YAML, Harness

OPEN_GAME = """\
  - name: gamma
    game: officewars
    map: six
    seats: 3
    players:
      - {name: ann, email: ann@example.org}
"""
SERVER = "judge@judge.example"


@pytest.fixture
def judge(tmp_path):
    harness = Harness(tmp_path, GAMES_YAML + OPEN_GAME)
    try:
        yield harness
    finally:
        harness.close()


def test_join_fills_the_seats_and_starts_the_game(judge):
    judge.send("x@example.net", SERVER, "LIST\n")
    assert "gamma            Office Wars, open: 1 of 3 seats taken (JOIN gamma)" in judge.last(
        "x@example.net"
    )
    (welcome,) = [m for m in judge.outbox("password", "ann@example.org") if "gamma" in m["Subject"]]
    assert "2 more players to come" in " ".join(welcome.get_body(("plain",)).get_content().split())

    pw = judge.password("ann@example.org", "gamma")
    judge.send("ann@example.org", "gamma@judge.example", f"PASSWORD {pw}\nSol holds\n")
    assert "gamma has not started yet: 1 of 3 players have joined" in judge.last("ann@example.org")

    judge.send_confirmed("bob@example.org", SERVER, "JOIN gamma as Bobby\n")
    assert "you play as Bobby (2 of 3 seats taken)" in judge.last("bob@example.org")
    assert (
        "You play as Bobby"
        in judge.outbox("password", "bob@example.org")[-1].get_body(("plain",)).get_content()
    )
    judge.send("bob@example.org", SERVER, "JOIN gamma\n")
    assert "bob@example.org has a seat in gamma already" in judge.last("bob@example.org")
    judge.send("eve@example.org", SERVER, "JOIN gamma as bobby\n")
    assert "the name 'bobby' is taken" in judge.last("eve@example.org")

    judge.send_confirmed("cid@example.org", SERVER, "JOIN gamma\n")
    assert "you play as cid; every seat is taken and the game has started" in judge.last(
        "cid@example.org"
    )
    for who in ("ann", "bob", "cid"):
        started = judge.last(f"{who}@example.org", "started")
        assert "Players, in seat order: ann (red), Bobby (blue), cid" in started
    started = judge.outbox("started", "bob@example.org")[-1]
    assert "you play Bobby (blue)" in started["Subject"]
    assert str(started["Reply-To"]).startswith("gamma+bobby.")
    files = {part.get_filename() for part in started.iter_attachments()}
    assert files == {"map.png", "rules-officewars.txt", "deadlines.ics"}

    judge.send("ann@example.org", "gamma@judge.example", f"PASSWORD {pw}\nSol x Alnitak\n")
    assert "line 2: Sol attacks Alnitak" in judge.last("ann@example.org")
    judge.send("eve@example.org", SERVER, "JOIN gamma\nJOIN nowhere\n")
    body = judge.last("eve@example.org")
    assert "JOIN gamma: the game has started" in body
    assert "there is no game called 'nowhere'" in body


def test_join_refuses_a_bad_name(judge):
    judge.send("dee@example.org", SERVER, "JOIN gamma as 9lives\n")
    assert "'9lives' cannot be a player's name" in judge.last("dee@example.org")
