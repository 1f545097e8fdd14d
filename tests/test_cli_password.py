"""`pbem password GAME PLAYER` prints the password the server mailed that
player for that game, alone on its line (for the README's shell lines),
the right one for a player in two games."""

from __future__ import annotations

from pbem.cli.main import main
from tests.mailharness import Harness

ANN = "ann@example.org"


def test_the_password_of_each_game_alone_on_its_line(tmp_path, capsys):
    h = Harness(tmp_path)
    try:
        config = str(tmp_path / "games.yaml")
        for game in ("alpha", "beta"):  # ann plays both
            assert main(["password", game, "ann", "--config", config]) == 0
            out = capsys.readouterr().out
            assert out == h.password(ANN, game) + "\n"
        assert main(["password", "alpha", ANN, "--config", config]) == 0
        assert capsys.readouterr().out == h.password(ANN, "alpha") + "\n"
        assert h.password(ANN, "alpha") != h.password(ANN, "beta")
        assert main(["password", "alpha", "zed", "--config", config]) == 2
        assert "alpha has no player 'zed' (players: ann, bob, cid)" in capsys.readouterr().err
        assert main(["password", "omega", "ann", "--config", config]) == 2
        assert "there is no game 'omega'" in capsys.readouterr().err
    finally:
        h.close()
