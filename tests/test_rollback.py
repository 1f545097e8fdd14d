"""The game master's ROLLBACK: the last phase resolved is taken back, by
mail and with `pbem master GAME rollback`, in Office Wars and Empire: the
game is back at that phase's start, its orders stand, its reports are
withdrawn (HISTORY and the web pages say so), the deadline is set anew and
everyone is told."""

from __future__ import annotations

import urllib.request
from datetime import timedelta

import pytest

import pbem.web.cache
from pbem.cli.main import main
from tests.mailharness import GAMES_YAML, Harness
from tests.test_empire_mail import YAML as EMPIRE_YAML

ALPHA = "alpha@judge.example"
ANN, BOB, CID, GM, FAN = (
    "ann@example.org",
    "bob@example.org",
    "cid@example.org",
    "gm@example.org",
    "fan@example.org",
)
WEB = "  web: {listen: {host: 127.0.0.1, port: 0}}\n"
YAML = GAMES_YAML.replace("  limits:", WEB + "  limits:", 1).replace(
    "    master: {email: gm@example.org, password: gm-secret}\n",
    "    master: {email: gm@example.org, password: gm-secret}\n    observers: [fan@example.org]\n",
    1,
)


@pytest.fixture
def h(tmp_path, monkeypatch):
    monkeypatch.setattr(pbem.web.cache, "VERSION_FRESH", 0.0)  # each request looks
    harness = Harness(tmp_path, YAML)
    yield harness
    harness.close()


def gm(h: Harness, lines: str, to: str = ALPHA, password: str = "gm-secret") -> str:
    h.send(GM, to, f"PASSWORD {password}\n{lines}\n")
    return h.last(GM)


def send(h: Harness, who: str, text: str) -> str:
    h.send(who, ALPHA, f"PASSWORD {h.password(who)}\n{text}\n")
    return h.last(who)


def next_turn(h: Harness, game: str = "alpha") -> None:
    h.clock.set(h.game(game).deadline)
    h.tick()
    h.settle()


def flat(text: str) -> str:
    return " ".join(text.split())


def page(h: Harness, path: str) -> str:
    url = f"http://127.0.0.1:{h.server.web.port}{path}"
    with urllib.request.urlopen(url, timeout=20) as response:
        return response.read().decode()


def missed(h: Harness) -> dict[str, int]:
    with h.app.store.tx(write=False) as conn:
        return {p.name: p.missed for p in h.app.store.players(conn, "alpha")}


def test_rollback_takes_back_the_last_tick_and_its_orders_stand(h):
    assert "none to roll back" in gm(h, "ROLLBACK")  # the first phase: nothing played
    with h.app.store.tx(write=False) as conn:
        start = h.app.store.turn_states(conn, "alpha")[0][1]
    send(h, ANN, "Sol attacks Alnitak")
    next_turn(h)
    assert h.game().turn == 2 and missed(h) == {"ann": 0, "bob": 1, "cid": 1}
    assert "conquered Alnitak" in h.text(h.report(ANN))
    assert "attacks Alnitak" in page(h, "/games/alpha/turns/1")  # kept in the pages' cache
    assert "attacks Alnitak" in page(h, "/games/alpha/feed.atom")
    send(h, BOB, "Vega holds")  # an order for tick 2, which is taken back with it
    before = len(h.outbox("notice"))
    reply = gm(h, "ROLLBACK")
    assert "tick 1 of alpha is rolled back" in reply and "the deadline is" in reply
    g = h.game()
    assert g.turn == 1 and g.status == "running" and g.state == start
    assert g.deadline - h.clock.now() >= timedelta(hours=12)  # a whole phase again
    assert missed(h) == {"ann": 0, "bob": 0, "cid": 0}  # the missed tick is taken back
    # everyone is told: the players (their orders stand) and the observer
    notices = h.outbox("notice")[before:]
    assert sorted(str(m["To"]) for m in notices) == sorted([ANN, BOB, CID, FAN])
    for m in notices:
        assert "rolled back by the game master" in str(m["Subject"])
        assert "stand" in h.text(m) and "The deadline is now" in h.text(m)
    told = flat(h.text(h.outbox("notice", ANN)[-1]))
    assert "Your orders for tick 1 stand as you sent them" in told
    # ann's orders stand again; bob's for tick 2 do not count
    assert "orders in" in gm(h, "STATUS").split("ann", 1)[1].splitlines()[0]
    # HISTORY and the web pages: the report is withdrawn, the phase played again
    withdrawn = flat(send(h, ANN, "HISTORY tick 1"))
    assert "was withdrawn: the game master rolled the phase back" in withdrawn
    game_page = page(h, "/games/alpha")
    assert "rolled back by the game master" in game_page and "being played now" in game_page
    assert 'href="../games/alpha/turns/1"' not in game_page
    # a rollback again, at the first phase: refused
    assert "none to roll back" in gm(h, "ROLLBACK")
    # ann changes her orders; the phase is played again with them
    send(h, ANN, "Sol attacks Barnard's Star")
    next_turn(h)
    assert h.game().turn == 2
    text = h.text(h.report(ANN))
    assert "conquered Barnard's Star" in text and "conquered Alnitak" not in text
    assert "the report that stands" in flat(send(h, ANN, "HISTORY tick 1"))
    assert "Barnard" in page(h, "/games/alpha/turns/1")
    assert "attacks Alnitak" not in page(h, "/games/alpha/turns/1")
    assert "attacks Alnitak" not in page(h, "/games/alpha/feed.atom")


def test_rollback_then_extend_and_a_finished_game_refuses(h):
    next_turn(h)
    deadline = h.game().deadline
    gm(h, "ROLLBACK\nEXTEND 1d")
    g = h.game()
    assert g.turn == 1 and g.deadline > deadline
    assert "waits for your confirmation" in gm(h, "END GAME")
    h.confirm("gm@example.org")
    assert h.game().status == "finished"
    assert "alpha is over" in gm(h, "ROLLBACK")  # refused plainly
    assert h.game().status == "finished"


def test_rollback_of_a_paused_game_keeps_it_paused(h):
    next_turn(h)
    gm(h, "PAUSE")
    assert "the game stays paused" in gm(h, "ROLLBACK")
    assert h.game().status == "paused" and h.game().turn == 1
    assert "No deadline runs while the game is paused" in flat(h.text(h.outbox("notice", FAN)[-1]))


def test_only_the_master_rolls_back(h):
    next_turn(h)
    assert '"ROLLBACK": this is not an order' in send(h, ANN, "ROLLBACK")
    assert "password is missing or wrong" in gm(h, "ROLLBACK", password="wrong")
    assert h.game().turn == 2


def test_the_command_line_rolls_back(h, capsys):
    config = str(h.root / "games.yaml")
    assert main(["master", "alpha", "rollback", "--config", config]) == 2
    assert "none to roll back" in capsys.readouterr().err
    next_turn(h)
    assert main(["master", "alpha", "rollback", "--config", config]) == 0
    assert "tick 1 of alpha is rolled back" in capsys.readouterr().out
    assert h.game().turn == 1


def test_an_empire_phase_is_rolled_back_and_played_again(tmp_path):
    yaml = EMPIRE_YAML.replace(
        "    seed: 3\n", "    seed: 3\n    master: {email: gm@example.org, password: gm}\n"
    )
    h = Harness(tmp_path, yaml)
    try:
        engine = h.app.engine("empire")
        state = engine.load_state(h.game("dip").state)
        germany = state.player_of["Germany"]
        email = f"{germany}@example.org"
        password = h.password(email, "dip")
        h.send(email, "dip@judge.example", f"PASSWORD {password}\nA MUN - RUH\nF KIE - HOL\n")
        next_turn(h, "dip")
        after = engine.load_state(h.game("dip").state)
        assert after.code == "F1901M" and after.units["hol"]
        h.send(email, "dip@judge.example", f"PASSWORD {password}\nF HOL - NTH\n")
        reply = gm(h, "ROLLBACK", to="dip@judge.example", password="gm")
        assert "S1901M of dip is rolled back" in reply
        back = engine.load_state(h.game("dip").state)
        assert back.code == "S1901M" and "hol" not in back.units
        told = flat(h.text(h.outbox("notice", email)[-1]))
        assert "Spring 1901, movement (S1901M)" in told and "stand" in told
        assert "Orders sent for F1901M no longer count" in told
        # Germany's orders stand: played again without a word from her, the same moves
        h.send(email, "dip@judge.example", f"PASSWORD {password}\nSTATUS\n")
        next_turn(h, "dip")
        again = engine.load_state(h.game("dip").state)
        assert again.code == "F1901M" and again.units["hol"] and again.units["ruh"]
        report = h.text(h.report(email, "dip"))
        assert "A MUN - RUH" in report and "F KIE - HOL" in report
    finally:
        h.close()


def test_a_rollback_is_one_transaction(h):
    """A failure half way through leaves the game as it was."""
    next_turn(h)
    store = h.app.store
    real = store.set_game

    def broken(*args, **kwargs):
        raise RuntimeError("power cut")

    store.set_game = broken
    from pbem.commands.rollback import rollback

    with pytest.raises(RuntimeError):
        with store.tx() as conn:
            rollback(h.app, conn, "alpha")
    store.set_game = real
    assert h.game().turn == 2
    with store.tx(write=False) as conn:
        assert store.rollbacks_of(conn, "alpha") == []
        assert 1 in store.turn_phases(conn, "alpha")
