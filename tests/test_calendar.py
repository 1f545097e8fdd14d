"""The deadline calendar as icalendar writes it, read back with icalendar
field by field: one event a deadline, the time in the game's zone with a
VTIMEZONE that is right on both sides of a change of clocks, an alarm an
hour before, cancelled events without one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar

from pbem.mail.calendar import Deadline, calendar, event_uid, merged
from pbem.store import GameRow

NOW = datetime(2026, 3, 27, 9, 0, tzinfo=UTC)
OSLO = "Europe/Oslo"


def deadline(at: datetime, **fields) -> Deadline:
    values = dict(
        game="alpha",
        title="Office Wars",
        phase="tick 3",
        turn=3,
        at=at,
        zone=OSLO,
        sequence=0,
        uid="deadline-alpha-20260301T000000Z-turn3@judge.example",
        address="alpha@judge.example",
    )
    values.update(fields)
    return Deadline(**values)


def parse(data: bytes) -> icalendar.Calendar:
    text = data.decode("utf-8")
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")  # CRLF lines only
    assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))  # folded
    return icalendar.Calendar.from_ical(data)


def test_an_event_field_by_field():
    at = datetime(2026, 3, 28, 11, 50, tzinfo=UTC)  # 12:50 in Oslo (CET)
    cal = parse(calendar([deadline(at, sequence=4)], domain="judge.example", now=NOW))
    assert cal["version"] == "2.0" and cal["method"] == "PUBLISH"
    assert cal["prodid"] == "-//pbem//deadlines judge.example//EN"
    assert cal["x-wr-calname"] == "pbem deadlines (judge.example)"
    (ev,) = cal.walk("VEVENT")
    assert ev["uid"] == "deadline-alpha-20260301T000000Z-turn3@judge.example"
    assert ev["sequence"] == 4
    assert ev.decoded("dtstamp") == NOW
    start = ev["dtstart"]
    assert start.params["TZID"] == OSLO and start.to_ical() == b"20260328T125000"
    assert ev.decoded("dtstart") == at
    assert ev.decoded("dtend") - ev.decoded("dtstart") == timedelta(minutes=15)
    assert ev["summary"] == "alpha: orders due for tick 3"
    assert ev["description"] == (
        "alpha (Office Wars): orders for tick 3 are due. "
        "Mail them to alpha@judge.example, or reply to a mail of the game."
    )
    assert (ev["status"], ev["transp"], ev["class"]) == ("CONFIRMED", "TRANSPARENT", "PUBLIC")
    assert ev["categories"].cats == ["pbem", "alpha"]
    (alarm,) = ev.walk("VALARM")
    assert alarm["action"] == "DISPLAY"
    assert alarm.decoded("trigger") == timedelta(hours=-1)
    assert alarm["description"] == "alpha: orders for tick 3 are due in an hour"


def test_the_zone_is_written_and_right_across_the_change_of_clocks():
    """Oslo goes to summer time on 29 March 2026: 12:50 is 11:50 UTC the day
    before and 10:50 UTC that day. The calendar's own VTIMEZONE (read with
    icalendar, not the system's zone data) says the same."""
    before = datetime(2026, 3, 28, 11, 50, tzinfo=UTC)
    after = datetime(2026, 3, 29, 10, 50, tzinfo=UTC)
    events = [
        deadline(before),
        deadline(after, turn=4, phase="tick 4", uid="deadline-alpha-x-turn4@judge.example"),
    ]
    cal = parse(calendar(events, domain="judge.example", now=NOW))
    (zone,) = cal.walk("VTIMEZONE")
    assert zone["tzid"] == OSLO
    rules = zone.to_tz(lookup_tzid=False)  # from the calendar's own rules
    starts = [ev["dtstart"] for ev in cal.walk("VEVENT")]
    assert [s.to_ical() for s in starts] == [b"20260328T125000", b"20260329T125000"]
    assert all(s.params["TZID"] == OSLO for s in starts)
    walls = [datetime(2026, 3, 28, 12, 50), datetime(2026, 3, 29, 12, 50)]
    assert [w.replace(tzinfo=rules).astimezone(UTC) for w in walls] == [before, after]
    names = {c["tzname"] for c in zone.walk() if c.name in ("STANDARD", "DAYLIGHT")}
    assert names == {"CET", "CEST"}


def test_a_game_in_utc_needs_no_zone():
    at = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    cal = parse(calendar([deadline(at, zone="UTC")], domain="judge.example", now=NOW))
    assert cal.walk("VTIMEZONE") == []
    (ev,) = cal.walk("VEVENT")
    assert ev["dtstart"].to_ical() == b"20260328T120000Z"


def test_games_in_several_zones_each_get_their_zone_once():
    at = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    events = [
        deadline(at, uid="a@x"),
        deadline(at, game="beta", uid="b@x", zone="America/New_York"),
        deadline(at + timedelta(days=1), game="gamma", uid="c@x", zone="America/New_York"),
    ]
    cal = parse(calendar(events, domain="judge.example", now=NOW))
    assert sorted(z["tzid"] for z in cal.walk("VTIMEZONE")) == ["America/New_York", OSLO]
    by_game = {str(e["summary"]).split(":")[0]: e for e in cal.walk("VEVENT")}
    assert by_game["beta"]["dtstart"].to_ical() == b"20260701T080000"  # EDT
    assert by_game["alpha"]["dtstart"].to_ical() == b"20260701T140000"  # CEST


def test_a_cancelled_event_says_why_and_has_no_alarm():
    at = datetime(2026, 3, 28, 11, 50, tzinfo=UTC)
    d = deadline(at, cancelled="the game is paused", sequence=7, private=True)
    (ev,) = parse(calendar([d], domain="judge.example", now=NOW)).walk("VEVENT")
    assert (ev["status"], ev["sequence"], ev["class"]) == ("CANCELLED", 7, "PRIVATE")
    assert ev["summary"] == "alpha: no deadline for tick 3 (the game is paused)"
    assert "no longer stands: the game is paused" in ev["description"]
    assert ev.walk("VALARM") == []


def test_text_that_needs_escaping_survives():
    at = datetime(2026, 3, 28, 11, 50, tzinfo=UTC)
    d = deadline(at, phase="turn 2 of 10; spring, 1901", title="Empire, \\ standard")
    (ev,) = parse(calendar([d], domain="judge.example", now=NOW)).walk("VEVENT")
    assert ev["summary"] == "alpha: orders due for turn 2 of 10; spring, 1901"
    assert ev["description"].startswith("alpha (Empire, \\ standard): orders for turn 2")


def test_an_event_uid_names_the_game_its_making_and_its_turn():
    made = datetime(2026, 3, 1, 8, 30, tzinfo=ZoneInfo(OSLO))
    row = GameRow("alpha", "officewars", "{}", 3, 1, "running", created_at=made)
    assert (
        event_uid(row, 3, "judge.example") == "deadline-alpha-20260301T073000Z-turn3@judge.example"
    )
    again = GameRow("alpha", "officewars", "{}", 3, 1, "running", created_at=made + timedelta(1))
    assert event_uid(again, 3, "judge.example") != event_uid(row, 3, "judge.example")


def test_merged_keeps_one_event_a_uid():
    at = datetime(2026, 3, 28, 11, 50, tzinfo=UTC)
    first, second = deadline(at, cancelled="ran early"), deadline(at)
    assert merged([first], [second, deadline(at, uid="other@x")]) == [
        first,
        deadline(at, uid="other@x"),
    ]
