"""Who plays which power, by mail and in games.yaml: the game master's
``power:``, the players' ``preferences:`` and PREFERENCE while the game
forms; `pbem check` on them."""

from __future__ import annotations

import pytest

from adjudicator.base import Rng
from pbem.cli.main import main
from tests.mailharness import Harness, empire_yaml, server_yaml

LISTED = empire_yaml(
    "seed: 3",
    players=["ann, power: eng", "bob, preferences: [England, Tur]", "cid", "dee", "eve"],
)
FORMING = empire_yaml("seed: 11", "seats: 5", players=["ann", "bob, power: France"])
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def test_games_yaml_gives_a_power_and_honours_a_list(tmp_path):
    h = Harness(tmp_path, LISTED)
    try:
        got = h.powers()
        assert got["ann"] == "England" and got["bob"] == "Turkey"
        rest = [p for p in Rng(3).shuffled(POWERS) if p not in ("England", "Turkey")]
        assert [got[n] for n in ("cid", "dee", "eve")] == rest[:3]  # dealt by the seed
        started = " ".join(h.last("bob@example.org", "started").split())
        assert "You play bob (Turkey)" in started
        assert (
            "You asked for England first; England went to ann, whose power the game master "
            "gave, and you play Turkey, your second choice." in started
        )
        assert "ties settled by the game's seed" in started
        ann = h.last("ann@example.org", "started")
        assert "You play ann (England)" in ann and "You asked" not in ann
        reply = h.play("bob", "PREFERENCE England")
        assert "PREFERENCE: dip has started and its powers are given; you play Turkey" in reply
    finally:
        h.close()


def test_preference_by_mail_while_the_game_forms(tmp_path):
    h = Harness(tmp_path, FORMING)
    try:
        reply = h.play("ann", "PREFERENCE spain, Italy")
        assert "PREFERENCE: there is no power 'spain' (the powers: Austria, England" in reply
        assert "nothing was recorded" in reply
        reply = h.play("ann", "preference ger ITA aus")
        assert "PREFERENCE recorded for dip: Germany, Italy, Austria, in that order" in reply
        assert "It counts when the game starts" in reply
        reply = h.play("ann", "PREFERENCE Germany Italy\nA PAR - BUR")
        assert "recorded for dip: Germany, Italy" in reply
        assert "Until then only PREFERENCE counts: the rest was not read" in reply
        reply = h.play("bob", "PREFERENCE Germany")
        assert "the game master gave you France" in reply
        assert "dip has not started yet" in h.play("bob", "A PAR - BUR")

        h.send_confirmed("cid@example.org", "judge@judge.example", "JOIN dip\n")
        reply = h.play("cid", "PREFERENCE Germany, France, Rus")
        assert "recorded for dip: Germany, France, Russia" in reply
        h.send_confirmed("dee@example.org", "judge@judge.example", "JOIN dip\n")
        h.play("dee", "PREFERENCE Germany")
        h.send_confirmed("eve@example.org", "judge@judge.example", "JOIN dip\n")
        assert h.game("dip").status == "running"

        got = h.powers()
        # Germany is first on three lists; dee has no other wish: dee Germany
        # (1), ann Italy (2), cid Russia (3; France is bob's) sum to 6, and
        # ann Germany would leave dee unranked (8): the lowest sum wins
        assert (got["ann"], got["bob"], got["cid"], got["dee"]) == (
            "Italy", "France", "Russia", "Germany"
        )  # fmt: skip
        lines = {n: " ".join(h.last(f"{n}@example.org", "started").split()) for n in got}
        assert (
            "You play dee (Germany). You asked for Germany first, and you play it."
            in (lines["dee"])
        )
        assert (
            "You asked for Germany first; Germany went to dee, who also ranked it first, and "
            "you play Italy, your second choice. The powers go where they place the players "
            "highest on their lists, all lists taken together (the lowest sum of ranks), ties "
            "settled by the game's seed." in lines["ann"]
        )
        assert "and you play Russia, your third choice" in lines["cid"]
        assert "You asked" not in lines["eve"] and "You asked" not in lines["bob"]
    finally:
        h.close()


def test_the_same_seed_and_lists_give_the_same_powers(tmp_path):
    runs = []
    for i in range(2):
        h = Harness(tmp_path / str(i), LISTED)
        try:
            runs.append(h.powers())
        finally:
            h.close()
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    "player, problem",
    [
        ("power: Englnad", "ann: power: there is no power 'Englnad' (did you mean: England?)"),
        ("preferences: [Fra, Spain]", "ann: preferences: there is no power 'Spain' (the powers:"),
        ("preferences: [Fra, france]", "ann: preferences: France is on the list twice"),
        ("preferences: France", "ann: preferences must be a list of powers"),
        ("power: France, preferences: [Italy]", "ann: give power or preferences, not both"),
    ],
)
def test_pbem_check_names_each_bad_power(tmp_path, capsys, player, problem):
    path = tmp_path / "games.yaml"
    path.write_text(LISTED.replace("power: eng", player))
    assert main(["check", str(path)]) == 2
    assert problem in capsys.readouterr().err


def test_pbem_check_refuses_one_power_twice_and_powers_elsewhere(tmp_path, capsys):
    path = tmp_path / "games.yaml"
    twice = LISTED.replace("preferences: [England, Tur]", "power: England")
    path.write_text(twice)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 14: game dip: England is given to both ann and bob" in err
    office = server_yaml() + (
        "  - name: alpha\n    game: officewars\n    map: six\n    players:\n"
        "      - {name: ann, email: ann@example.org, power: red}\n"
        "      - {name: bob, email: bob@example.org}\n"
    )
    path.write_text(office)
    assert main(["check", str(path)]) == 2
    assert "ann: power: Office Wars players do not choose what they play" in (
        capsys.readouterr().err
    )
    path.write_text(LISTED)
    assert main(["check", str(path)]) == 0
