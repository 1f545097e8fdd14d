"""Deadlines: the real scheduler, driven by a clock the tests move, over a
real server and SQLite file (the tests marked on_both_backends: PostgreSQL
too). Storage holds every deadline; a turn runs once however it is
triggered; mail after the deadline is too late."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from pbem.config import GameConfig
from pbem.lifecycle.opening import open_app
from pbem.turns.clock import FakeClock
from pbem.turns.deadlines import cron_after, next_deadline
from pbem.turns.runner import TurnRunner
from tests.mailharness import GAMES_YAML, Harness, on_both_backends, wait_for, with_storage

ALPHA = "alpha@judge.example"
ANN, BOB, CID = "ann@example.org", "bob@example.org", "cid@example.org"
OSLO = ZoneInfo("Europe/Oslo")


def yaml_with(**changes: str) -> str:
    text = GAMES_YAML
    for old, new in changes.items():
        text = text.replace(old, new)
    return text


NEW_YORK = yaml_with(
    **{
        'deadline: "50 0,12 * * *"\n    timezone: Europe/Oslo': 'deadline: "50 12 * * *"\n'
        "    timezone: America/New_York\n    observers: [obs@example.org]\n"
        "    min_phase: 5h  # the first phase: at least half of it (2.5 h) from the start"
    }
)


# alpha with early turns: READY from everyone runs the turn
EARLY = yaml_with(
    **{"master: {email: gm@example.org": "early: true\n    master: {email: gm@example.org"}
)


@pytest.fixture
def ny(tmp_path):
    h = Harness(tmp_path, NEW_YORK)
    yield h
    h.close()


def test_the_deadline_is_1250_in_the_games_time_zone(ny):
    # the clock starts at 12:00 UTC, 07:00 in New York: the deadline is 12:50 EST
    assert ny.game().deadline == datetime(2026, 11, 21, 17, 50, tzinfo=UTC)
    ny.advance(hours=5, minutes=49, seconds=59)
    assert ny.game().turn == 1 and not ny.outbox("report")
    ny.advance(seconds=1)
    assert ny.game().turn == 2
    assert ny.game().deadline == datetime(2026, 11, 22, 17, 50, tzinfo=UTC)
    # every player, the observer and the game master have the report
    readers = sorted(r.to_addr for r in ny.app.store.outbox_rows("report"))
    assert readers == sorted([ANN, BOB, CID, "obs@example.org", "gm@example.org"])
    ny.advance(hours=1)
    assert ny.game().turn == 2  # nothing more is due


def test_the_first_phase_is_not_cut_short(tmp_path):
    """A daily game started at 07:00 for a 12:50 deadline gets the next
    day's 12:50: at least half a phase to read the start mail and answer."""
    yaml = yaml_with(**{'deadline: "50 0,12 * * *"': 'deadline: "50 12 * * *"'})
    h = Harness(tmp_path, yaml, start=datetime(2026, 11, 21, 6, 0, tzinfo=UTC))
    try:
        assert h.game().deadline == datetime(2026, 11, 22, 11, 50, tzinfo=UTC)
        assert "Sun 22 Nov 2026 12:50 CET" in h.text(h.outbox("started", ANN)[0])
    finally:
        h.close()


def test_a_deadline_across_the_autumn_clock_change(tmp_path):
    # Oslo leaves summer time on 25 October 2026: 12:50 is 10:50 UTC before, 11:50 after
    yaml = yaml_with(**{'deadline: "50 0,12 * * *"': 'deadline: "50 12 * * *"\n    min_phase: 2h'})
    h = Harness(tmp_path, yaml, start=datetime(2026, 10, 24, 9, 0, tzinfo=UTC))
    try:
        assert h.game().deadline == datetime(2026, 10, 24, 10, 50, tzinfo=UTC)
        h.advance(hours=1, minutes=50)
        assert h.game().turn == 2
        assert h.game().deadline == datetime(2026, 10, 25, 11, 50, tzinfo=UTC)
        h.clock.set(datetime(2026, 10, 25, 10, 50, tzinfo=UTC))  # 12:50 by summer time
        h.tick()
        assert h.game().turn == 2
        h.clock.set(datetime(2026, 10, 25, 11, 50, tzinfo=UTC))
        h.tick()
        assert h.game().turn == 3
        assert h.game().deadline.astimezone(OSLO).strftime("%d %H:%M") == "26 12:50"
    finally:
        h.close()


@pytest.mark.parametrize(
    ("start", "days"),
    [
        (datetime(2026, 3, 27, 12, tzinfo=UTC), (28, 29, 30, 31)),
        (datetime(2026, 10, 23, 12, tzinfo=UTC), (24, 25, 26, 27)),
    ],
    ids=["spring-forward", "fall-back"],
)
@pytest.mark.parametrize("expr", ["30 2 * * *", "50 12 * * *", "0 3 * * *"])
def test_one_deadline_a_day_on_the_days_clocks_change(start, days, expr):
    cfg = GameConfig("x", "officewars", "six", expr, "Europe/Oslo", ())
    seen, t = [], start
    for _ in range(4):
        t2 = cron_after(cfg, t)
        assert t2 > t
        seen.append(t2.astimezone(OSLO).day)
        t = t2
    assert tuple(seen) == days


def test_after_a_late_turn_the_next_deadline_leaves_time_to_answer():
    cfg = GameConfig("x", "officewars", "six", "50 0,12 * * *", "Europe/Oslo", ())
    missed = datetime(2026, 11, 21, 11, 50, tzinfo=UTC)  # 12:50 Oslo
    # the server came back at 23:40 UTC, ten minutes before the 00:50 deadline
    now = datetime(2026, 11, 21, 23, 40, tzinfo=UTC)
    assert next_deadline(cfg, now) == datetime(2026, 11, 21, 23, 50, tzinfo=UTC)
    assert next_deadline(cfg, now, missed) == datetime(2026, 11, 22, 11, 50, tzinfo=UTC)


@on_both_backends
def test_a_restart_between_deadlines_resumes_the_schedule(tmp_path, storage):
    h = Harness(tmp_path, storage=storage)
    deadline = h.game().deadline
    h.advance(hours=2)
    now = h.clock.now()
    h.close()
    h = Harness(tmp_path, start=now, storage=storage)
    try:
        assert h.game().deadline == deadline  # from storage, not recomputed
        assert h.server.deadlines.jobs["deadline:alpha"] == deadline
        h.clock.set(deadline - timedelta(seconds=1))
        h.tick()
        assert h.game().turn == 1
        h.clock.set(deadline)
        h.tick()
        assert h.game().turn == 2
    finally:
        h.close()


def test_deadlines_missed_while_down_run_one_turn_after_the_start(tmp_path):
    h = Harness(tmp_path)
    first = h.game().deadline
    h.close()
    # down for three days: six deadlines missed
    h = Harness(tmp_path, start=first + timedelta(days=3, minutes=5))
    try:
        # the settling time first: mail an MTA held meanwhile comes in
        assert h.game().turn == 1
        h.advance(minutes=5)
        assert h.game().turn == 2, "one turn after the start, not six"
        assert h.game().deadline - h.clock.now() >= timedelta(hours=6)
        text = h.text(h.report(ANN))
        assert "This turn ran late" in text
        h.tick()
        h.advance(minutes=30)
        assert h.game().turn == 2
    finally:
        h.close()


@on_both_backends
def test_orders_one_second_before_the_deadline_count_and_after_are_too_late(tmp_path, storage):
    h = Harness(tmp_path, storage=storage)
    try:
        deadline = h.game().deadline
        pw = h.password(ANN)
        h.clock.set(deadline - timedelta(seconds=1))
        h.send(ANN, ALPHA, f"PASSWORD {pw}\nSol attacks Alnitak\n")
        assert "line 2: Sol attacks Alnitak" in h.last(ANN)
        h.clock.set(deadline + timedelta(seconds=1))
        h.send(ANN, ALPHA, f"PASSWORD {pw}\nSol holds\n")  # the turn has not run yet
        reply = h.last(ANN)
        assert "too late for tick 1" in reply and "Nothing was applied" in reply
        h.tick()
        assert h.game().turn == 2
        report = h.text(h.report(ANN))
        assert "Sol attacks Alnitak" in report and "Sol holds" not in report.split("==")[2]
        # the next turn takes orders again
        h.send(ANN, ALPHA, f"PASSWORD {pw}\nAlnitak holds\n")
        assert "line 2: Alnitak holds" in h.last(ANN)
    finally:
        h.close()


@on_both_backends
def test_a_deadline_and_ready_racing_make_one_turn(tmp_path, storage):
    """Two runners on two connections, as two processes would be, both
    sure that turn 1 is due: exactly one resolves it; one set of reports."""
    yaml = EARLY if storage is None else with_storage(EARLY, storage)
    (tmp_path / "games.yaml").write_text(yaml)
    clock = FakeClock()
    apps = [open_app(tmp_path / "games.yaml", clock=clock) for _ in range(2)]
    clock.set(_deadline(apps[0]))
    results: list = []
    barrier = threading.Barrier(2)

    def race(app, why):
        barrier.wait()
        results.append(TurnRunner(app).run("alpha", 1, why))

    threads = [
        threading.Thread(target=race, args=(apps[0], "deadline")),
        threading.Thread(target=race, args=(apps[1], "ready")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(r is not None for r in results) == [False, True]
    reports = apps[0].store.outbox_rows("report")
    assert sorted(r.to_addr for r in reports) == sorted([ANN, BOB, CID, "gm@example.org"])
    with apps[0].store.tx(write=False) as conn:
        assert [t for t, _ in apps[0].store.turn_states(conn, "alpha")] == [1, 2]
    for app in apps:
        app.store.close()


def _deadline(app):
    with app.store.tx(write=False) as conn:
        return app.store.game(conn, "alpha").deadline


def test_every_player_ready_runs_the_turn_early(tmp_path):
    h = Harness(tmp_path, EARLY)
    try:
        for who, order in ((ANN, "Sol holds"), (BOB, "READY"), (CID, "READY")):
            h.send(who, ALPHA, f"PASSWORD {h.password(who)}\n{order}\n")
        assert h.game().turn == 1  # ann has orders but is not READY
        h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nREADY\n")
        wait_for(lambda: h.game().turn == 2, 10, "the early turn")  # no deadline, no tick
        text = h.text(h.report(ANN))
        assert "early: every player was READY" in text
        assert h.game().deadline > h.clock.now()
    finally:
        h.close()


def test_an_early_phase_keeps_its_normal_length():
    """A turn resolved early (ADJUDICATE, or every player READY) does not
    leave the next phase with what was left until the next cron slot."""
    from dataclasses import replace

    cfg = GameConfig("x", "officewars", "six", "50 0,12 * * *", "Europe/Oslo", ())
    now = datetime(2026, 11, 21, 11, 22, tzinfo=UTC)  # 12:22 Oslo, 28 minutes before 12:50
    assert next_deadline(cfg, now) == datetime(2026, 11, 21, 11, 50, tzinfo=UTC)
    assert next_deadline(cfg, now, early=True) == datetime(2026, 11, 21, 23, 50, tzinfo=UTC)
    daily = replace(cfg, min_phase=timedelta(days=1))
    assert next_deadline(daily, now, early=True) == datetime(2026, 11, 22, 11, 50, tzinfo=UTC)
    short = replace(cfg, min_phase=timedelta(minutes=10))
    assert next_deadline(short, now, early=True) == datetime(2026, 11, 21, 11, 50, tzinfo=UTC)


def test_all_ready_28_minutes_before_the_slot_gives_a_whole_phase(tmp_path):
    h = Harness(tmp_path, EARLY.replace("early: true", "early: true\n    min_phase: 20h"))
    try:
        h.clock.set(h.game().deadline - timedelta(minutes=28))
        for who in (ANN, BOB, CID):
            h.send(who, ALPHA, f"PASSWORD {h.password(who)}\nREADY\n")
        wait_for(lambda: h.game().turn == 2, 10, "the early turn")
        left = h.game().deadline - h.clock.now()
        assert timedelta(hours=20) <= left <= timedelta(hours=24, minutes=28), left
        assert h.game().deadline.astimezone(OSLO).strftime("%H:%M") in ("00:50", "12:50")
    finally:
        h.close()


def test_players_without_orders_are_reminded_and_their_missed_turns_counted(tmp_path):
    h = Harness(tmp_path)
    try:
        deadline = h.game().deadline
        h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nSol holds\n")
        h.clock.set(deadline - timedelta(hours=2, minutes=1))
        h.tick()
        assert not h.outbox("reminder")
        h.clock.set(deadline - timedelta(hours=1, minutes=59))
        h.tick()

        def reminded():
            return sorted(m["To"] for m in h.outbox("reminder") if "[alpha]" in m["Subject"])

        assert reminded() == [BOB, CID]
        h.tick()  # once only
        assert reminded() == [BOB, CID]
        h.clock.set(deadline)
        h.tick()
        gm = h.text(h.report("gm@example.org"))
        assert "missed" in gm
        with h.app.store.tx(write=False) as conn:
            missed = {p.name: p.missed for p in h.app.store.players(conn, "alpha")}
        assert missed == {"ann": 0, "bob": 1, "cid": 1}
    finally:
        h.close()


def test_no_reminder_in_turns_shorter_than_its_lead(tmp_path):
    hourly = yaml_with(**{'deadline: "50 0,12 * * *"': 'deadline: "0 * * * *"'})
    h = Harness(tmp_path, hourly)
    try:
        for _ in range(3):
            h.clock.set(h.game().deadline - timedelta(minutes=30))
            h.tick()
            h.clock.set(h.game().deadline)
            h.tick()
        assert h.game().turn == 4
        assert not [m for m in h.outbox("reminder") if "[alpha]" in m["Subject"]]
    finally:
        h.close()
