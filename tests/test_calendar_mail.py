"""Deadline calendars on real mail, through the real server: one calendar
per player across their games on every turn report, the same event updated
(never a second) when the game master moves a deadline, a turn run early
cancelling its event, the right wall-clock time across a change of clocks,
and CALENDAR by mail (who may ask for which games)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import icalendar
import pytest

from tests.mailharness import GAMES_YAML, PRIVATE_GAME, Harness, wait_for

ALPHA, JUDGE = "alpha@judge.example", "judge@judge.example"
ANN, BOB, CID, DEE = "ann@example.org", "bob@example.org", "cid@example.org", "dee@example.org"
GM, OBS, EVE, STRANGER = "gm@example.org", "obs@example.org", "eve@example.org", "zed@example.org"
OSLO = "Europe/Oslo"

MORE_GAMES = (
    PRIVATE_GAME
    + """\
  - name: isles
    game: strategic
    map: islands
    tick: 15m
    players:
      - {name: ann, email: ann@example.org}
      - {name: eve, email: eve@example.org}
    options: {width: 40, height: 40, length: 40}
    seed: 7
"""
)


def calendar_of(mail: EmailMessage) -> icalendar.Calendar:
    """The mail's one calendar attachment, parsed."""
    (part,) = [p for p in mail.walk() if p.get_content_type() == "text/calendar"]
    assert part.get_filename() == "deadlines.ics"
    assert part.get_content_disposition() == "attachment"
    return icalendar.Calendar.from_ical(part.get_content())


def events(cal: icalendar.Calendar) -> dict[str, icalendar.Event]:
    """The calendar's events by game; no game twice."""
    out = {}
    for ev in cal.walk("VEVENT"):
        game = str(ev["categories"].cats[1])
        assert game not in out, f"two events of {game}"
        out[game] = ev
    return out


def ask(h: Harness, sender: str, line: str = "CALENDAR") -> tuple[str, EmailMessage | None]:
    """Send a CALENDAR line; the receipt's text and the calendar mail, if one came."""
    before = len(h.outbox("calendar", sender))
    h.send(sender, JUDGE, line + "\n")
    mails = h.outbox("calendar", sender)
    return h.last(sender), (mails[-1] if len(mails) > before else None)


def gm(h: Harness, lines: str) -> str:
    h.send(GM, ALPHA, f"PASSWORD gm-secret\n{lines}\n")
    return h.last(GM)


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def test_each_reader_gets_one_calendar_of_all_their_games(h):
    h.send_confirmed(OBS, JUDGE, "WATCH alpha\n")
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nSol attacks Alnitak\n")
    h.clock.set(h.game().deadline)
    h.tick()
    alpha, beta = h.game("alpha"), h.game("beta")
    assert alpha.turn == 2 and beta.turn == 2  # beta's first deadline had passed too
    ann = events(calendar_of(h.report(ANN, "beta")))  # the later of ann's two reports
    assert sorted(ann) == ["alpha", "beta"]  # ann plays both: one calendar
    assert ann["alpha"].decoded("dtstart") == alpha.deadline
    assert ann["beta"].decoded("dtstart") == beta.deadline
    assert ann["alpha"]["uid"].endswith("-turn2@judge.example")
    assert ann["beta"]["uid"].endswith("-turn2@judge.example")
    assert ann["alpha"]["uid"].startswith("deadline-alpha-")
    assert ann["alpha"]["dtstart"].params["TZID"] == OSLO
    assert ann["alpha"]["summary"] == "alpha: orders due for tick 2"
    for reader in (BOB, CID, GM, OBS):  # alpha only: its players, its master, its observer
        assert sorted(events(calendar_of(h.report(reader)))) == ["alpha"], reader
    text = h.text(h.report(ANN))
    assert "deadlines.ics, attached, has the deadlines of all your games" in text
    assert "deadlines.ics" in h.report(ANN).get_body(("html",)).get_content()


def test_the_start_mail_carries_the_calendar(h):
    starts = {str(m["Subject"]).split("]")[0][1:]: m for m in h.outbox("started", ANN)}
    assert sorted(starts) == ["alpha", "beta"]
    for game, mail in starts.items():
        found = events(calendar_of(mail))
        assert found[game].decoded("dtstart") == h.game(game).deadline
        assert "are in deadlines.ics, attached, for your calendar" in " ".join(h.text(mail).split())
    assert sorted(events(calendar_of(starts["beta"]))) == ["alpha", "beta"]  # alpha began first


def test_history_carries_the_calendar_as_it_stands_now(h):
    h.clock.set(h.game().deadline)
    h.tick()
    gm(h, "EXTEND 6h")
    h.send(CID, ALPHA, f"PASSWORD {h.password(CID)}\nHISTORY tick 1\n")
    (again,) = h.outbox("history", CID)
    assert again["Subject"] == "[alpha] tick 1 results (again)"
    was = events(calendar_of(h.report(CID)))["alpha"]
    now = events(calendar_of(again))["alpha"]
    assert now["uid"] == was["uid"] and now["sequence"] > was["sequence"]
    assert (
        now.decoded("dtstart") == h.game().deadline == was.decoded("dtstart") + timedelta(hours=6)
    )


def test_a_moved_deadline_is_the_same_event_revised(h):
    _, mail = ask(h, ANN)
    first = events(calendar_of(mail))["alpha"]
    deadline = h.game().deadline
    h.clock.advance(minutes=5)
    assert "the deadline of alpha is now" in gm(h, "EXTEND 12h")
    _, mail = ask(h, ANN)
    moved = events(calendar_of(mail))["alpha"]
    assert moved["uid"] == first["uid"]
    assert moved["sequence"] > first["sequence"]
    assert moved.decoded("dtstamp") > first.decoded("dtstamp")
    assert moved.decoded("dtstart") == deadline + timedelta(hours=12)
    assert moved["status"] == "CONFIRMED"
    # paused: the same event, cancelled; resumed: the same event again
    assert "alpha is paused" in gm(h, "PAUSE")
    _, mail = ask(h, ANN)
    paused = events(calendar_of(mail))["alpha"]
    assert (paused["uid"], paused["status"]) == (first["uid"], "CANCELLED")
    assert paused["sequence"] > moved["sequence"] and paused.walk("VALARM") == []
    gm(h, "RESUME")
    _, mail = ask(h, ANN)
    back = events(calendar_of(mail))["alpha"]
    assert (back["uid"], back["status"]) == (first["uid"], "CONFIRMED")
    assert back["sequence"] > paused["sequence"]
    assert back.decoded("dtstart") == h.game().deadline


def test_a_turn_run_early_cancels_its_event(h):
    _, mail = ask(h, BOB)
    old = events(calendar_of(mail))["alpha"]
    assert "resolved now" in gm(h, "ADJUDICATE")
    wait_for(lambda: h.game().turn == 2, 10, "the forced turn")
    h.settle()
    cal = calendar_of(h.report(BOB))
    by_uid = {str(e["uid"]): e for e in cal.walk("VEVENT")}
    assert len(by_uid) == 2
    cancelled = by_uid[str(old["uid"])]
    assert cancelled["status"] == "CANCELLED"
    assert cancelled["sequence"] > old["sequence"]
    assert cancelled.decoded("dtstart") == old.decoded("dtstart")
    assert "the turn ran early" in cancelled["summary"]
    (new,) = [e for u, e in by_uid.items() if u != old["uid"]]
    assert new["status"] == "CONFIRMED" and new.decoded("dtstart") == h.game().deadline


def test_a_game_ended_by_its_master_cancels_its_event(h):
    _, mail = ask(h, ANN)
    old = events(calendar_of(mail))["alpha"]
    assert "waits for your confirmation" in gm(h, "END GAME")
    h.confirm("gm@example.org")
    (over,) = [m for m in h.outbox("report", ANN) if m["Subject"] == "[alpha] game over"]
    assert "deadlines.ics, attached, cancels its deadline in your calendar." in h.text(over)
    (ev,) = calendar_of(over).walk("VEVENT")
    assert (ev["uid"], ev["status"]) == (old["uid"], "CANCELLED")
    assert ev["sequence"] > old["sequence"] and ev.walk("VALARM") == []
    assert ev.decoded("dtstart") == old.decoded("dtstart")
    assert ev["summary"] == "alpha: no deadline for tick 1 (the game is over)"
    _, mail = ask(h, ANN)
    assert sorted(events(calendar_of(mail))) == ["beta"]  # alpha has no deadline now


def test_the_wall_clock_time_holds_across_the_change_of_clocks(tmp_path):
    """alpha's deadlines are 00:50 and 12:50 in Oslo; summer time begins at
    02:00 on 29 March 2026: 00:50 that night is 23:50 UTC the day before,
    12:50 is 10:50 UTC."""
    h = Harness(tmp_path, start=datetime(2026, 3, 28, 5, 0, tzinfo=UTC))
    try:
        assert h.game().deadline == datetime(2026, 3, 28, 11, 50, tzinfo=UTC)
        seen = []
        for _ in range(2):
            h.clock.set(h.game().deadline)
            h.tick()
            ev = events(calendar_of(h.report(CID)))["alpha"]
            zone = icalendar.Calendar.from_ical(calendar_of(h.report(CID)).to_ical())
            (tz,) = zone.walk("VTIMEZONE")
            assert tz["tzid"] == OSLO
            rules = tz.to_tz(lookup_tzid=False)  # the calendar's own rules
            wall = ev.decoded("dtstart").replace(tzinfo=None)
            seen.append((ev["dtstart"].to_ical(), wall.replace(tzinfo=rules).astimezone(UTC)))
        assert seen == [
            (b"20260329T005000", datetime(2026, 3, 28, 23, 50, tzinfo=UTC)),
            (b"20260329T125000", datetime(2026, 3, 29, 10, 50, tzinfo=UTC)),
        ]
        assert h.game().deadline == datetime(2026, 3, 29, 10, 50, tzinfo=UTC)
    finally:
        h.close()


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """alpha and beta, a private game (gamma), and a game on a clock (isles)."""
    harness = Harness(tmp_path_factory.mktemp("calendars"), GAMES_YAML + MORE_GAMES)
    yield harness
    harness.close()


def test_calendar_by_mail_covers_every_game_of_the_sender(many):
    h = many
    receipt, mail = ask(h, ANN)
    assert mail is not None
    assert (
        "CALENDAR: deadlines.ics with 3 deadlines (alpha, beta, gamma) is on its way "
        "to ann@example.org" in receipt
    )
    assert mail["To"] == ANN and mail["Subject"] == "[pbem] your deadlines"
    assert mail["Auto-Submitted"] == "auto-replied"
    found = events(calendar_of(mail))
    assert sorted(found) == ["alpha", "beta", "gamma"]  # not isles: it runs on a clock
    assert found["gamma"]["class"] == "PRIVATE" and found["alpha"]["class"] == "PUBLIC"
    for game, ev in found.items():
        assert ev.decoded("dtstart") == h.game(game).deadline
        (alarm,) = ev.walk("VALARM")
        assert alarm.decoded("trigger") == timedelta(hours=-1)
    body = h.text(mail)
    assert "alpha (Office Wars): orders for tick 1 due" in body
    assert "deadlines.ics, attached" in body


def test_calendar_for_nobody_and_for_named_games(many):
    h = many
    receipt, mail = ask(h, STRANGER)
    assert mail is None
    assert "zed@example.org plays, watches or masters no game with a deadline" in receipt
    receipt, mail = ask(h, STRANGER, "CALENDAR beta, alpha")
    assert sorted(events(calendar_of(mail))) == ["alpha", "beta"]  # public games
    receipt, mail = ask(h, STRANGER, "CALENDAR gamma nosuch isles")
    assert mail is None
    assert "CALENDAR gamma: there is no game called 'gamma'" in receipt  # to a stranger
    assert "CALENDAR nosuch: there is no game called 'nosuch'" in receipt
    assert "CALENDAR isles: the game runs on a clock" in receipt
    receipt, mail = ask(h, EVE, "CALENDAR gamma")  # a player of the private game
    assert sorted(events(calendar_of(mail))) == ["gamma"]


def test_an_observer_gets_the_games_they_watch(many):
    h = many
    h.send_confirmed(OBS, JUDGE, "WATCH gamma fans-only\n")
    assert "now watching gamma" in h.last(OBS)
    _, mail = ask(h, OBS)
    assert sorted(events(calendar_of(mail))) == ["gamma"]
    _, mail = ask(h, OBS, "CALENDAR gamma")
    assert sorted(events(calendar_of(mail))) == ["gamma"]
    h.send_confirmed(OBS, JUDGE, "UNWATCH gamma\n")
    receipt, mail = ask(h, OBS, "CALENDAR gamma")
    assert mail is None and "there is no game called 'gamma'" in receipt


def test_a_game_on_a_clock_mails_no_calendar(many):
    h = many
    h.send(ANN, "isles@judge.example", f"PASSWORD {h.password(ANN, 'isles')}\nstatus\n")
    h.clock.set(h.game("isles").deadline)
    h.tick()
    mails = [m for m in h.outbox("report") if "[isles]" in m["Subject"]]
    assert [m["To"] for m in mails] == [ANN]  # the situation report ann asked for
    for mail in mails:
        assert not [p for p in mail.walk() if p.get_content_type() == "text/calendar"]


def test_calendar_mail_counts_toward_the_daily_cap(tmp_path):
    """Anyone can write a From address: CALENDAR's mails to it are capped
    like receipts, so a forger cannot flood its owner with calendars."""
    capped = GAMES_YAML.replace("idle_timeout: 5}", "idle_timeout: 5, replies_per_day: 4}")
    h = Harness(tmp_path, capped)
    try:
        for _ in range(3):
            h.send(ANN, JUDGE, "CALENDAR\n")
        kinds = [(r.kind, r.status) for r in h.app.store.outbox_rows(to_addr=ANN)]
        kinds = [k for k in kinds if k[0] in ("calendar", "receipt")]
        assert kinds == [
            ("calendar", "sent"),
            ("receipt", "sent"),
            ("calendar", "sent"),
            ("receipt", "sent"),  # the last today, and says so
            ("calendar", "held"),
            ("receipt", "held"),
        ]
        second = h.text(h.outbox("receipt", ANN)[1])
        assert "This is the last reply this server sends to ann@example.org today" in second
    finally:
        h.close()
