"""`pbem play` as a player's mail client, against a real server: a
stranger (an address, not seated) can JOIN a lobby and, with --confirm,
answer the mail that asks to confirm it; an answer the server held under
the day's reply cap is said to be held, not shown as if it had gone."""

from __future__ import annotations

from pbem.cli.main import main
from tests.mailharness import Harness, shipped_yaml

FAN = "fan@example.net"


def play(h: Harness, capsys, *args: str) -> tuple[int, str, str]:
    config = str(h.root / "games.yaml")
    code = main(["play", *args, "--config", config, "--port", str(h.port), "--wait", "20"])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_stranger_joins_a_lobby_and_confirms_with_pbem_play(tmp_path, capsys):
    h = Harness(tmp_path, shipped_yaml(0))
    try:
        code, out, err = play(h, capsys, "terra", FAN, "JOIN terra")
        assert code == 0, err
        assert "JOIN terra as fan" in out and "only you can confirm it" in out, out
        assert "--confirm" in err  # how to answer it
        code, out, err = play(h, capsys, "terra", FAN, "JOIN terra", "--confirm")
        assert code == 0, err
        assert err.count("sent as fan@example.net") == 2, err
        assert "confirm+" in err  # the second mail went to the confirm address
        assert "terra" in out and "seat" in out.lower(), out
        with h.app.store.tx(write=False) as conn:
            seated = {p.email for g in ("terra", "terra-1") for p in h.app.store.players(conn, g)}
        assert FAN in seated, seated
        code, _, err = play(h, capsys, "terra", "nobody", "HELP")
        assert code == 2 and "give an address to mail it as someone not seated" in err
        assert "terra has no player 'nobody' (players: " in err  # as `pbem password` says
    finally:
        h.close()


def test_an_answer_held_by_the_reply_cap_is_said_to_be_held(tmp_path, capsys):
    h = Harness(tmp_path, shipped_yaml(0))
    try:
        cap = h.app.config.server.limits.replies_per_day
        for n in range(cap):
            code, _, err = play(h, capsys, "alpha", FAN, f"HELP {n}")
            assert code == 0 and "held" not in err, (n, err)
        code, out, err = play(h, capsys, "alpha", FAN, "HELP again")
        assert code == 0
        assert "the server held this answer" in err, err
        assert out  # the answer itself, as it will go out
    finally:
        h.close()
