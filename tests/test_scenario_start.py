"""A game that starts from a scenario: `position:` in games.yaml names a
position as text (games with positions: Strategic Initiative, Empire) that
the game starts from instead of a map. pbem check reads it and names what is
wrong; the game plays on by mail from the position's tick."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.config import ConfigError, load_config
from tests.mailharness import SERVER_YAML, Harness

SCENARIO = """\
# a Strategic Initiative position
tick: 40
seed: 3
board:
  width: 16
  height: 12
  at: B2
  rows: |
    2  ######......
    3  ######......
    4  ######..####
    5  ........####
nations:
  kim: {colour: red}
  lee: {colour: blue}
cities:
  Avalon: {at: B2, owner: kim, designation: fort, build: infantry}
  Brest: {at: G4, owner: kim, designation: port, build: transport}
  Corin: {at: L4, owner: lee, designation: fort, build: infantry}
units:
  inf1: {owner: kim, type: infantry, at: C3}
  inf2: {owner: lee, type: infantry, at: L5}
"""

SERVER = SERVER_YAML

GAME = """\
  - name: duel
    game: strategic
    position: scenarios/duel.yaml
    tick: 15m
    players:
      - {name: kim, email: kim@example.org}
      - {name: lee, email: lee@example.org}
"""

KIM, LEE, DUEL = "kim@example.org", "lee@example.org", "duel@judge.example"


def configure(tmp_path: Path, game: str = GAME, scenario: str = SCENARIO) -> Path:
    (tmp_path / "scenarios").mkdir(exist_ok=True)
    (tmp_path / "scenarios" / "duel.yaml").write_text(scenario)
    path = tmp_path / "games.yaml"
    path.write_text(SERVER + game)
    return path


def problems(tmp_path: Path, game: str, scenario: str = SCENARIO) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(configure(tmp_path, game, scenario))
    return str(info.value)


def test_a_scenario_game_reads(tmp_path):
    (g,) = load_config(configure(tmp_path)).games
    assert g.position == str(tmp_path / "scenarios" / "duel.yaml")
    assert g.map == ""


@pytest.mark.parametrize(
    ("game", "scenario", "said"),
    [
        (GAME.replace("duel.yaml", "none.yaml"), SCENARIO,
         "the position file 'scenarios/none.yaml' is missing"),
        (GAME, SCENARIO.replace("at: C3", "at: Z99"),
         r"scenarios/duel.yaml: position, line \d+: .*Z99"),
        (GAME.replace("name: lee", "name: max"), SCENARIO,
         "the position scenarios/duel.yaml is played by kim, lee: list exactly these players"),
        (GAME.replace("    tick: 15m\n", "    tick: 15m\n    seats: 3\n"), SCENARIO,
         "list exactly these players"),
        (GAME.replace("    tick: 15m\n", "    tick: 15m\n    map: islands\n"), SCENARIO,
         "give a map or a position to start from, not both"),
        (GAME.replace("game: strategic", "game: officewars").replace("    tick: 15m\n", ""),
         SCENARIO, "Office Wars has no positions as text: give a map"),
    ],
)  # fmt: skip
def test_a_bad_scenario_is_named(tmp_path, game, scenario, said):
    assert re.search(said, problems(tmp_path, game, scenario))


def test_pbem_check_says_a_missing_position_file_once_and_by_name(tmp_path, capsys):
    """The shipped games.yaml copied without its scenarios folder: the
    straits game's one problem is its missing position file, not also a
    missing map (a game from a position has none)."""
    from pbem.cli.main import main

    shipped = (Path(__file__).resolve().parent.parent / "games.yaml").read_text()
    (tmp_path / "games.yaml").write_text(shipped)
    at = next(n for n, line in enumerate(shipped.splitlines(), 1) if "scenarios/straits" in line)
    assert main(["check", str(tmp_path / "games.yaml")]) == 2
    said = [line.strip() for line in capsys.readouterr().err.splitlines()]
    straits = [line for line in said if "game straits:" in line]
    assert straits == [
        f"games.yaml, line {at}: game straits: the position file 'scenarios/straits.yaml' "
        f"is missing (no {tmp_path.resolve() / 'scenarios' / 'straits.yaml'})"
    ], said
    assert not [line for line in said if "map is missing" in line], said


def test_pbem_check_says_the_game_starts_from_its_position(tmp_path, capsys):
    from pbem.cli.main import main

    assert main(["check", str(configure(tmp_path))]) == 0
    assert "game duel (Strategic Initiative) at duel@judge.example: position duel.yaml" in (
        capsys.readouterr().out
    )


def test_a_scenario_game_plays_by_mail_from_its_position(tmp_path):
    """The start mail lists the position's units; orders run at the
    position's next tick (tick 41: day 1, 10:15)."""
    configure(tmp_path)
    h = Harness(tmp_path, (tmp_path / "games.yaml").read_text())
    try:
        start = h.text(h.outbox("started", KIM)[0])
        units = start.split("Your units")[1].split("Attached")[0]
        assert re.search(r"inf1 +infantry +at C3", units)
        assert re.search(r"Avalon +at B2", units)
        assert "inf2" not in units  # lee's, out of kim's sight
        h.send(KIM, DUEL, f"PASSWORD {h.password(KIM, 'duel')}\nmove inf1 to D3\n")
        assert "These orders run at the next tick (day 1, 10:15)" in " ".join(h.last(KIM).split())
        h.clock.set(h.game("duel").deadline)
        h.tick()
        state = h.app.engine("strategic").load_state(h.game("duel").state)
        assert state.tick == 41
        assert state.grid.name(state.units["inf1"].square) == "D3"
    finally:
        h.close()
