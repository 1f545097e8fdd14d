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


def test_one_helper_finds_the_seated_player_for_password_and_play():
    """`pbem password` and `pbem play` find a player alike: by name or by
    address in any case; nobody, or more than one, is said plainly."""
    import pytest

    from pbem.lifecycle.seats import NoSuchPlayer, seated_player
    from pbem.store import PlayerRow

    def row(n: int, name: str, address: str) -> PlayerRow:
        return PlayerRow(n, "alpha", name, address, None, "", 0, "active")

    ann, bob = row(1, "ann", ANN), row(2, "bob", "bob@example.org")
    assert seated_player([ann, bob], "alpha", "BOB") is bob
    assert seated_player([ann, bob], "alpha", "Ann@Example.org") is ann
    with pytest.raises(NoSuchPlayer, match=r"^alpha has no player 'zed' \(players: ann, bob\)$"):
        seated_player([ann, bob], "alpha", "zed")
    with pytest.raises(NoSuchPlayer, match=r"no player 'zed' \(players: nobody yet\)"):
        seated_player([], "alpha", "zed")
    # two rows answering to one address (never so in one game's seats):
    # neither is picked silently
    twice = row(3, "ann2", ANN)
    with pytest.raises(NoSuchPlayer) as caught:
        seated_player([ann, twice], "alpha", ANN)
    assert caught.value.ambiguous
    assert str(caught.value) == (
        f"'{ANN}' names more than one player of alpha: ann ({ANN}) and ann2 ({ANN})"
    )
