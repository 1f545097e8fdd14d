"""Mail commands are one registry: a command declared in its family's
module is in HELP, in the mail guide and dispatched, to whom it is for,
with nothing else changed; no two commands share a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.commands import REGISTRY, GameContext, Use, Where, Who, press, read_commands
from pbem.commands.registry import Family, Registry
from pbem.mail import pipeline
from tests.mailharness import Harness

ROOT = Path(__file__).resolve().parent.parent
ALPHA, SERVER = "alpha@judge.example", "judge@judge.example"
ANN, GM = "ann@example.org", "gm@example.org"


@pytest.fixture
def wave():
    """WAVE (alias GREET), declared in the press family as a new command is."""
    before = list(press.family.commands)

    @press.family.command(
        "WAVE",
        who=Who.PLAYER,
        args="[name]",
        aliases=("GREET",),
        help="wave at the other players of the game",
    )
    def _wave(ctx: GameContext, use: Use) -> None:
        ctx.say(f"line {use.line}: {ctx.me.name} waves at {use.arg or 'everyone'} in {ctx.phase}")

    yield
    press.family.commands[:] = before


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def test_a_new_command_is_in_help_and_the_guide_and_dispatched(wave, h):
    assert f"  {'WAVE [name]':<24} wave at the other players of the game" in REGISTRY.help_lines()
    assert "| `WAVE [name]` | wave at the other players of the game |" in REGISTRY.player_table()
    h.send("stranger@example.net", SERVER, "HELP\n")
    assert "WAVE [name]" in h.last("stranger@example.net")

    pw = h.password(ANN)
    h.send(ANN, ALPHA, f"PASSWORD {pw}\nwave bob\nGreet\nSol holds\n")
    body = h.last(ANN)
    assert "line 2: ann waves at bob in tick 1" in body
    assert "line 3: ann waves at everyone in tick 1" in body
    assert "line 4: Sol holds" in body  # the orders between them are still orders

    h.send(GM, ALPHA, "PASSWORD gm-secret\nWAVE\n")  # a player's command, from the master
    assert "line 2: WAVE is not available here" in h.last(GM)


def test_the_guide_shows_the_commands_of_the_registry():
    guide = (ROOT / "docs" / "mail.md").read_text()
    assert REGISTRY.write_tables(guide) == guide, (
        "docs/mail.md's command tables differ from the registry: run "
        "`python -m pbem.commands docs/mail.md`"
    )


def test_no_two_commands_share_a_name_or_alias():
    words = [w for c in REGISTRY.commands for w in c.words()]
    assert len(words) == len(set(words)), sorted(w for w in words if words.count(w) > 1)
    first, second = Family("one"), Family("two")
    first.declare("WAVE", who=Who.PLAYER, help="wave")
    second.declare("SALUTE", who=Who.PLAYER, help="salute", aliases=("WAVE",))
    with pytest.raises(ValueError, match="WAVE is a command of one and two"):
        Registry((first, second)).get("WAVE")


@pytest.mark.parametrize("command", REGISTRY.commands, ids=lambda c: c.name)
def test_every_command_is_in_help_and_the_guide_and_has_a_way_to_run(command):
    assert any(
        line.split() and line.split()[0] == command.name.split()[0]
        for line in REGISTRY.help_lines()[1:]
    )
    assert command.help in "\n".join(REGISTRY.help_lines())
    guide = (ROOT / "docs" / "mail.md").read_text()
    assert command.guide_usage() in guide
    if command.where is Where.MAIL:  # read by the parser itself
        assert command.name in ("GAME", "PASSWORD", "ORDERS")
    elif command.who:
        assert command.handler is not None
    parsed = read_commands([(1, f"{command.name.lower()} x")], "alpha")
    assert [(1, f"{command.name.lower()} x")] not in [s.orders for s in parsed.sections.values()]


def test_the_master_only_list_is_the_masters_own_commands():
    assert REGISTRY.master_only == {
        "PAUSE",
        "RESUME",
        "EXTEND",
        "DEADLINE",
        "ADJUDICATE",
        "REPLACE",
        "REMOVE",
        "END GAME",
        "ROLLBACK",
    }
    assert "STATUS" in REGISTRY.for_master() and "HISTORY" in REGISTRY.for_master()


def test_the_architecture_names_a_mails_steps_in_the_order_they_run():
    """docs/architecture.md's picture of a mail's way lists pipeline.STEPS
    as they are, in order."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    names = [step.__name__ for step in pipeline.STEPS]
    at = [text.find(name) for name in names]
    assert -1 not in at, [n for n, i in zip(names, at, strict=True) if i == -1]
    assert at == sorted(at), names
