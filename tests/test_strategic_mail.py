"""Strategic Initiative by mail, through the real server: a tick is a clock
tick (orders are never too late, they run at the next tick), a tick mails
only the players it concerns, everyone's situation report comes every 16
ticks, STATUS is the game's order for one, and games.yaml gives the tick's
length, the board's size and the game's length."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest

from adjudicator.strategic.game import GAME
from adjudicator.strategic.rules import tables
from pbem.cli.main import main
from pbem.config import ConfigError, load_config
from tests.mailharness import SERVER_YAML, Harness

ISLES = "isles@judge.example"
ANN, BOB, GM, OBS = "ann@example.org", "bob@example.org", "gm@example.org", "obs@example.org"

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
    observers: [obs@example.org]
    options: {width: 40, height: 40, length: 40}
    seed: 7
"""
)


@pytest.fixture(scope="module")
def isles(tmp_path_factory):
    h = Harness(tmp_path_factory.mktemp("isles"), YAML)
    yield h
    h.close()


def reports(h: Harness, to: str) -> list[str]:
    return [str(m["Subject"]) for m in h.outbox("report", to)]


def state(h: Harness):
    engine = h.app.engine("strategic")
    return engine.load_state(h.game("isles").state)


def record(h: Harness, turn: int) -> dict:
    with h.app.store.tx(write=False) as conn:
        return json.loads(h.app.store.turn_result(conn, "isles", turn))


def own(h: Harness, player: str) -> list[str]:
    return sorted(u.id for u in state(h).units.values() if u.owner == player)


def test_a_clock_game_played_by_mail(isles):
    """One game through the real server, step by step (each step needs the
    ticks before it, so they run in one test)."""
    start_mail_says_how_a_clock_game_runs(isles)
    a_tick_runs_the_orders_read_by_then_and_later_ones_at_the_next(isles)
    a_tick_mails_only_those_it_concerns(isles)
    no_mail_of_a_clock_game_asks_for_orders(isles)
    history_mails_back_a_tick_report_by_its_clock(isles)


def start_mail_says_how_a_clock_game_runs(isles):
    text = " ".join(isles.text(isles.outbox("started", ANN)[0]).split())
    assert "a tick every 15 minutes, the first (day 1, 00:15) at Sat 21 Nov 2026 12:15" in text
    assert "Orders run at the next tick, in the order received" in text
    assert "Units without orders hold" not in text
    for u in state(isles).units.values():  # a newcomer learns the ids orders use
        if u.owner == "ann":
            assert f"{u.id} {tables().unit(u.kind).name}" in text
        else:
            assert not re.search(rf"\b{u.id}\b", text)  # nor of units out of sight
    for c in state(isles).cities.values():
        if c.owner == "ann":
            assert f"{c.name} at {state(isles).grid.name(c.square)}" in text
    assert isles.game("isles").deadline - isles.clock.now() == timedelta(minutes=15)
    assert '"declare war on bob"' in text  # an example names a nation in the game
    bobs = " ".join(isles.text(isles.outbox("started", BOB)[0]).split())
    assert '"declare war on ann"' in bobs
    assert "New to the game? Units gain mobility only every 16 ticks" in text
    assert "with ticks of 15 minutes little moves for a while: a quick game" in text


def a_tick_runs_the_orders_read_by_then_and_later_ones_at_the_next(isles):
    """RULINGS.md / the issue: orders given between ticks run at the next
    tick, in the order received; an order after a tick's deadline is not
    "too late", it counts as long as the tick has not run."""
    pw = isles.password(ANN, "isles")
    deadline = isles.game("isles").deadline
    first, second = own(isles, "ann")[:2]
    isles.clock.set(deadline - timedelta(seconds=1))
    isles.send(ANN, ISLES, f"PASSWORD {pw}\nstatus\n")
    receipt = " ".join(isles.last(ANN).split())
    assert "These orders run at the next tick (day 1, 00:15)" in receipt
    assert "Next tick: Sat 21 Nov 2026 12:15 UTC" in receipt
    assert "line 2: status" in receipt  # the game's order: a situation report at the tick
    assert "you play ann (red)" in receipt  # and the host's STATUS answers at once
    isles.clock.set(deadline + timedelta(seconds=1))  # past the deadline, the tick not yet run
    isles.send(ANN, ISLES, f"PASSWORD {pw}\ncancel {first}\n")
    receipt = isles.last(ANN)
    assert "too late" not in receipt
    assert "line 2: cancel " + first in receipt
    isles.tick()
    assert isles.game("isles").turn == 1
    mine = reports(isles, ANN)
    assert mine == ["[isles] day 1, 00:15 situation report"]  # STATUS: one mail, the fuller
    assert [r["text"] for r in record(isles, 0)["results"]] == ["status", f"cancel {first}"]
    # a mail after the tick runs at the next one
    isles.send(ANN, ISLES, f"PASSWORD {pw}\ncancel {second}\n")
    assert "These orders run at the next tick (day 1, 00:30)" in " ".join(isles.last(ANN).split())
    isles.advance(minutes=15)
    assert reports(isles, ANN)[-1] == "[isles] day 1, 00:30 tick report"
    assert [r["text"] for r in record(isles, 1)["results"]] == [f"cancel {second}"]


def a_tick_mails_only_those_it_concerns(isles):
    """At most one mail a tick, to a player the tick concerns; the game
    master and the observers only get the situation reports."""
    settled: dict[str, int] = {}
    while isles.game("isles").turn < 15:
        if isles.game("isles").turn == 4:
            settled = {who: len(reports(isles, who)) for who in (ANN, BOB)}
        if isles.game("isles").turn == 5:  # public press, mailed to ann at once
            pw = isles.password(BOB, "isles")
            isles.send(BOB, ISLES, f"PASSWORD {pw}\nPRESS ALL\nfair winds, from bob\nENDPRESS\n")
        before = {who: len(reports(isles, who)) for who in (ANN, BOB, GM, OBS)}
        isles.advance(minutes=15)
        after = {who: len(reports(isles, who)) for who in (ANN, BOB, GM, OBS)}
        assert all(after[w] - before[w] <= 1 for w in after)
        assert after[GM] == before[GM] and after[OBS] == before[OBS]
    # nobody gave orders since tick 2, nothing came into sight: quiet ticks mail nobody
    quiet = {who: len(reports(isles, who)) for who in (ANN, BOB)}
    assert quiet == settled
    isles.advance(minutes=15)  # tick 16: everyone's situation report
    assert isles.game("isles").turn == 16
    for who in (ANN, BOB, GM, OBS):
        assert reports(isles, who)[-1] == "[isles] day 1, 04:00 situation report", who
    # the observer, mailed every 16 ticks, still reads the public press of tick 5
    assert "fair winds, from bob" in isles.text(isles.report(OBS, "isles"))
    assert "fair winds, from bob" in isles.last(ANN, "press")
    assert {w: len(reports(isles, w)) for w in (ANN, BOB)} == {w: quiet[w] + 1 for w in quiet}


def no_mail_of_a_clock_game_asks_for_orders(isles):
    """Nobody owes orders for a tick: no reminders, no missed turns."""
    assert not isles.outbox("reminder")
    with isles.app.store.tx(write=False) as conn:
        assert all(p.missed == 0 for p in isles.app.store.players(conn, "isles"))


def write(tmp_path, text: str):
    path = tmp_path / "games.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("tick", "cron"),
    [
        ("15m", "*/15 * * * *"),
        ("1m", "* * * * *"),
        ("1h", "0 * * * *"),
        ("4h", "0 */4 * * *"),
        ("24h", "0 0 * * *"),
    ],  # fmt: skip
)
def test_the_tick_length_becomes_the_deadlines(tmp_path, tick, cron):
    config = load_config(write(tmp_path, YAML.replace("tick: 15m", f"tick: {tick}")))
    assert config.game("isles").deadline == cron


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ("tick: 7m", "a tick of 7m does not divide the day evenly"),
        ("tick: 5h", "a tick of 5h does not divide the day evenly"),
        ("tick: soon", "tick must be a duration"),
        ('tick: 15m\n    deadline: "*/15 * * * *"', "give tick or deadline, not both"),
    ],
)
def test_a_bad_tick_is_named(tmp_path, change, problem):
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, YAML.replace("tick: 15m", change)))
    assert problem in str(caught.value)


def test_only_a_clock_game_has_ticks(tmp_path):
    text = YAML.replace("game: strategic\n    map: islands", "game: officewars\n    map: six")
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text))
    assert "Office Wars has turns, not ticks: give a deadline" in str(caught.value)


def test_the_board_size_and_length_come_from_the_options(isles):
    s = state(isles)
    assert (s.grid.width, s.grid.height, s.length) == (40, 40, 40)


def test_a_game_master_runs_one_tick_from_a_position(tmp_path, capsys):
    """pbem adjudicate --game strategic --position FILE --orders FILE: the
    next position and every event with who may see it (JSON with --json),
    with the seed the server would draw."""
    started = GAME.start(GAME.load_map("islands"), ["ann", "bob"], {"width": 40, "height": 40}, 7)
    (tmp_path / "pos.txt").write_text(GAME.dump_position(started))
    first = min(u.id for u in started.units.values() if u.owner == "ann")
    (tmp_path / "orders.txt").write_text(f"ann: cancel {first}\nann: declare war on bob\n")
    argv = ["adjudicate", "--game", "strategic", "--position", str(tmp_path / "pos.txt"),
            "--orders", str(tmp_path / "orders.txt")]  # fmt: skip
    assert main([*argv, "--out", str(tmp_path / "next.txt")]) == 0
    text = capsys.readouterr().out
    assert "(seen by ann, bob)" in text  # the declaration: both nations are told
    after = GAME.load_position((tmp_path / "next.txt").read_text())
    assert after.tick == 1 and after.nations["ann"].declared == {"bob": "war"}
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["position"] == (tmp_path / "next.txt").read_text()  # the same seed, the same tick
    declared = next(e for e in data["events"] if e["kind"] == "declared")
    assert declared["visible_to"] == ["ann", "bob"]
    assert [r["visible_to"] for r in data["results"]] == [["ann"], ["ann"]]


def history_mails_back_a_tick_report_by_its_clock(isles):
    """HISTORY names a tick by its game clock; the phases come from the
    turns' records, not from reading back every tick's position."""
    pw = isles.password(ANN, "isles")
    isles.send(ANN, ISLES, f"PASSWORD {pw}\nHISTORY day 1, 00:15\n")
    assert "the report of day 1, 00:15 is on its way" in isles.last(ANN)
    again = isles.outbox("history", ANN)
    assert [m["Subject"] for m in again] == ["[isles] day 1, 00:15 situation report (again)"]
    isles.send(ANN, ISLES, f"PASSWORD {pw}\nHISTORY day 1, 00:45\n")  # it mailed ann nothing
    kept = "(reports kept: day 1, 00:15, day 1, 00:30, day 1, 04:00)"
    assert f"no report of a phase called 'day 1, 00:45' {kept}" in isles.last(ANN)
    # bob's list holds only his own reports: which ticks mailed ann is not his to know
    isles.send(BOB, ISLES, f"PASSWORD {isles.password(BOB, 'isles')}\nHISTORY day 1, 00:30\n")
    assert "day 1, 00:30" not in isles.last(BOB).split("reports kept:")[1]


def test_an_attack_by_units_that_never_attack_is_refused_on_the_receipt(isles):
    """By mail: a transport (attack 0) sent to attack is refused on the
    receipt, where it was accepted and failed at the tick; in a group it
    is left out on the receipt and the others' order stands."""
    s = state(isles)
    mine = sorted(s.units.values(), key=lambda u: u.id)
    tr = next(u.id for u in mine if u.owner == "bob" and u.kind == "transport")
    inf = next(u.id for u in mine if u.owner == "bob" and u.kind == "infantry")
    pw = isles.password(BOB, "isles")
    isles.send(BOB, ISLES, f"PASSWORD {pw}\nattack A1 with {tr}\nattack A1 with {inf} {tr}\n")
    receipt = " ".join(isles.last(BOB).split())
    assert (
        f'line 2: "attack A1 with {tr}": refused, as it could do nothing: units of these types'
        f" never attack (attack 0): transport ({tr}); attack with units that have an attack,"
        " and move these with a move order"
    ) in receipt
    assert f"line 3: attack A1 with {inf} " in receipt  # understood, without the transport
    assert (
        "Note: line 3: left out of this attack, as units of these types never attack"
        f" (attack 0): transport ({tr}); the others named attack"
    ) in receipt


def test_a_group_order_names_each_unit_it_left_out_in_the_tick_report(isles):
    """By mail: an unload naming a transport that carries nothing and an
    infantry that is not aboard is refused, at no cost, and bob's tick
    report names each with its reason (where it said only the first)."""
    s = state(isles)
    mine = sorted(s.units.values(), key=lambda u: u.id)
    tr = next(u.id for u in mine if u.owner == "bob" and u.kind == "transport")
    inf = next(u.id for u in mine if u.owner == "bob" and u.kind == "infantry")
    command = s.nations["bob"].command
    pw = isles.password(BOB, "isles")
    isles.send(BOB, ISLES, f"PASSWORD {pw}\nunload {tr} {inf}\n")
    isles.advance(minutes=15)
    report = " ".join(isles.text(isles.report(BOB, "isles")).split())
    assert (
        f"unload {tr} {inf}: refused: none of {tr}, {inf} could carry it out (nothing paid);"
        f" not for {tr}: it neither carries nor is carried by anything; not for {inf}: it"
        " neither carries nor is carried by anything"
    ) in report
    gained = state(isles).nations["bob"].command - command
    assert 0 < gained <= 15  # the tick's command points, nothing paid for the unload
