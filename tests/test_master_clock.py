"""The game master's hold on the clock and the game's end: DEADLINE sets
the deadline to a time (earlier too, never past), EXTEND only moves it
later, END GAME waits for the master to confirm it, REPLACE sends the new
player the start mail of the seat; by mail and by `pbem master`."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from pbem.cli.main import main
from pbem.serving.logs import announced
from tests.mailharness import ANN, BOB, GM, served

h = served()


def test_deadline_sets_a_time_in_the_games_time_zone_and_everyone_is_told(h):
    # alpha plays in Europe/Oslo: 18:00 there is 17:00 UTC in November
    assert "the deadline of alpha is now Mon 23 Nov 2026 18:00 CET" in h.as_master(
        "DEADLINE 2026-11-23 18:00"
    )
    assert h.game().deadline == datetime(2026, 11, 23, 17, 0, tzinfo=UTC)
    notice = h.last(BOB, "notice")  # bob reads it in his own time zone
    assert "moved the deadline of alpha later" in notice
    assert "Mon 23 Nov 2026 12:00 EST (America/New_York)" in notice
    h.as_master("DEADLINE 2026-11-22T08:00-05:00")  # ISO, with an offset
    assert h.game().deadline == datetime(2026, 11, 22, 13, 0, tzinfo=UTC)
    h.as_master("DEADLINE 2026-11-22 09:30 UTC")
    assert h.game().deadline == datetime(2026, 11, 22, 9, 30, tzinfo=UTC)


def test_deadline_brings_the_turn_forward_but_never_into_the_past(h):
    before = h.game().deadline
    assert before == datetime(2026, 11, 21, 23, 50, tzinfo=UTC) and h.clock.now().hour == 12
    refused = h.as_master("DEADLINE 2026-11-21 11:00 UTC")
    assert "has passed: it is now Sat 21 Nov 2026 13:00 CET" in refused
    assert "the deadline is Sun 22 Nov 2026 00:50 CET" in refused
    assert h.game().deadline == before
    assert "the deadline of alpha is now" in h.as_master("DEADLINE 2026-11-21 15:00")
    assert h.game().deadline == datetime(2026, 11, 21, 14, 0, tzinfo=UTC)
    notice = h.last(ANN, "notice")
    assert "brought the deadline of alpha forward" in notice and "due earlier" in notice
    assert "Sat 21 Nov 2026 15:00 CET" in notice
    h.clock.set(datetime(2026, 11, 21, 14, 0, tzinfo=UTC))
    h.tick()
    assert h.game().turn == 2


def test_deadline_says_which_forms_it_reads(h):
    before = h.game().deadline
    for wrong in ("Sun 18:00", "tomorrow", "2026-11-31 18:00", "2026-11-23 18:00 Mars/Base"):
        reply = h.as_master(f"DEADLINE {wrong}")
        assert "DEADLINE:" in reply, reply
    assert "2026-11-29 18:00 (in the game's time zone)" in h.as_master("DEADLINE Sun 18:00")
    assert "does not exist in Europe/Oslo" in h.as_master("DEADLINE 2027-03-28 02:30")
    assert h.game().deadline == before


def test_extend_only_moves_later_and_points_to_deadline(h):
    before = h.game().deadline
    reply = h.as_master("EXTEND -6h")
    assert "EXTEND only moves the deadline later" in reply and "DEADLINE 2026-11-22 18:00" in reply
    assert "DEADLINE" in h.as_master("EXTEND 2026-11-29T18:00")
    assert h.game().deadline == before


def test_the_command_line_sets_the_deadline_and_reads_minus_as_a_duration(h, capsys):
    config = str(h.root / "games.yaml")
    assert main(["master", "alpha", "extend", "-6h", "--config", config]) == 2
    assert "DEADLINE" in capsys.readouterr().err
    # the command line runs on the real clock: a day three days from now
    day = (datetime.now(UTC) + timedelta(days=3)).date()
    when = datetime(day.year, day.month, day.day, 18, 0, tzinfo=ZoneInfo("Europe/Oslo"))
    assert main(["master", "alpha", "deadline", f"{day}", "18:00", "--config", config]) == 0
    assert f"{when:%a %d %b %Y} 18:00" in capsys.readouterr().out
    assert h.game().deadline == when
    assert main(["master", "alpha", "deadline", "2020-11-21T13:00+01:00", "--config", config]) == 2
    assert "has passed" in capsys.readouterr().err
    assert main(["master", "alpha", "deadline", "--config", config]) == 2
    assert "2026-11-29 18:00" in capsys.readouterr().err


def test_end_game_by_mail_waits_for_the_master_to_confirm(h):
    reply = h.as_master("END GAME")
    assert "END GAME alpha: waits for your confirmation" in reply
    assert h.game().status == "running"
    ask = h.last(GM, "confirm")
    assert "END GAME alpha" in ask and "cannot be undone" in ask
    # a confirmation from anyone but the master's address does nothing
    h.confirm(GM, by="mallory@example.org")
    assert "only a mail from that address confirms it" in h.last("mallory@example.org")
    assert h.game().status == "running"
    h.confirm(GM)
    assert "END GAME alpha: alpha is over" in h.last(GM)
    assert h.game().status == "finished"
    assert any(m["Subject"] == "[alpha] game over" for m in h.outbox("report", ANN))
    # a finished game is no longer announced when the server starts
    lines = announced(h.app)
    assert not any("alpha" in line for line in lines)
    assert any("beta: send orders to beta@judge.example" in line for line in lines)


def test_end_on_the_command_line_asks_first(h, capsys, monkeypatch):
    config = str(h.root / "games.yaml")
    monkeypatch.setattr("sys.stdin", io.StringIO("no\n"))
    assert main(["master", "alpha", "end", "--config", config]) == 1
    out = capsys.readouterr().out
    assert "cannot be undone" in out and "End alpha now?" in out and "nothing was done" in out
    assert h.game().status == "running"
    monkeypatch.setattr("sys.stdin", io.StringIO("yes\n"))
    assert main(["master", "alpha", "end", "--config", config]) == 0
    assert h.game().status == "finished"
    assert main(["master", "beta", "end", "--yes", "--config", config]) == 0
    assert h.game("beta").status == "finished"
    assert announced(h.app) == []


def test_replace_sends_the_new_player_the_start_mail_of_the_seat(h):
    assert "and the start mail of the seat" in h.as_master("REPLACE cid WITH new@example.org")
    password = h.last("new@example.org", "password")
    assert "A second mail tells you what you play" in password
    started = h.outbox("started", "new@example.org")
    assert len(started) == 1
    mail = started[0]
    assert mail["Subject"].startswith("[alpha] you take over cid (")
    text = h.text(mail)
    assert "is under way" in text and "You play cid (" in text
    assert "The phase being played is tick 1" in text
    assert "Sun 22 Nov 2026 00:50 CET (Europe/Oslo)" in text
    assert "Your units and the orders they may give:" in text
    assert "map.png" in [p.get_filename() for p in mail.iter_attachments()]
    assert str(mail["Reply-To"]).startswith("alpha+cid.")
