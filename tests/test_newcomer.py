"""What a new player meets first, by mail through the real server: the
password mail, the start mail, replies that do what their text says, no
password ever repeated, and being told what the game master does."""

from __future__ import annotations

import re

import pytest

from tests.mailharness import (
    ALPHA,
    ANN,
    BOB,
    CID,
    EVENINGS,
    GAMES_YAML,
    GM,
    Harness,
    empire_yaml,
    served,
    wait_for,
)

GAMES_YAML_TERRA = (
    GAMES_YAML
    + """\
  - name: terra
    game: territory
    map: france
"""
)
SERVER = "judge@judge.example"

h = served()


def reply(h: Harness, mail, sender: str, body: str) -> None:
    """Answer a mail as a mail program does: to its Reply-To."""
    assert mail["Reply-To"], f"no Reply-To on {mail['Subject']!r}"
    h.send(sender, str(mail["Reply-To"]), body, subject="Re: " + str(mail["Subject"]))


def body(h: Harness, mail) -> str:
    return h.text(mail).replace("\r\n", "\n")


def test_a_reply_to_the_password_mail_gives_orders(h):
    mail = h.outbox("password", ANN)[0]
    assert "alpha" in mail["Subject"]
    reply(h, mail, ANN, "Sol x Alnitak\n")
    assert "line 1: Sol attacks Alnitak" in h.last(ANN)


def test_a_game_with_every_player_listed_starts_and_says_so(h):
    for who in (ANN, BOB, CID):
        password_mail = body(h, h.outbox("password", who)[0])
        assert "more player" not in password_mail
        assert "A second mail tells you what you play" in password_mail
        started = [m for m in h.outbox("started", who) if "[alpha]" in m["Subject"]]
        assert len(started) == 1, who
    ann = h.outbox("started", ANN)[0]
    assert "[alpha]" in ann["Subject"]
    text = body(h, ann)
    assert "you play ann (" in ann["Subject"]
    assert re.search(r"You play ann \(\w+\)\.", text)
    assert "Players, in seat order: ann (" in text and "bob (" in text
    assert "(Europe/Oslo)" in text  # ann's deadline in the game's zone
    assert "(America/New_York)" in body(h, h.outbox("started", BOB)[0])  # bob's own
    examples = text.split("Two orders your units could give now:\n")[1].split("\n\n")[0]
    lines = [x.strip() for x in examples.splitlines()]
    assert len(lines) == 2 and all(x.startswith("Sol ") for x in lines), lines
    assert 'Orders, with your own systems: "Sol holds"' in text
    assert {p.get_filename() for p in ann.iter_attachments()} == {
        "map.png",
        "rules-officewars.txt",
        "deadlines.ics",  # the first deadline, for the calendar (tests/test_calendar_mail.py)
    }
    png = next(p for p in ann.iter_attachments() if p.get_filename() == "map.png")
    assert png.get_content()[:8] == b"\x89PNG\r\n\x1a\n"
    reply(h, ann, ANN, "Sol x Alnitak\n")  # the start mail's Reply-To works
    assert "line 1: Sol attacks Alnitak" in h.last(ANN)


def test_a_password_in_the_subject_is_never_repeated(h):
    pw = h.password(ANN)
    h.send(ANN, ALPHA, "Sol x Alnitak\n", subject=f"orders password {pw}")
    receipt = h.outbox("receipt", ANN)[-1]
    assert pw not in str(receipt["Subject"]) and pw not in body(h, receipt)
    assert "line 1: Sol attacks Alnitak" in body(h, receipt)
    assert receipt["Subject"] == "Re: orders password ********"
    h.send(ANN, ALPHA, f"PASSWORD {pw}\nPASWORD {pw}\nSol holds\n")
    assert pw not in h.outbox("receipt", ANN)[-1].as_string()


def test_a_reply_to_press_reaches_the_sender(h):
    pw = h.password(ANN)
    h.send(ANN, ALPHA, f"PASSWORD {pw}\nPRESS bob\nAn alliance?\nENDPRESS\n")
    press = h.outbox("press", BOB)[-1]
    assert "reply to this mail with a line PRESS ann" in body(h, press)
    reply(h, press, BOB, "PRESS ann\nGladly.\n")
    assert "press sent to ann" in h.last(BOB)
    assert "Gladly." in h.last(ANN, "press")


@pytest.mark.parametrize(
    ("sender", "to", "text"),
    [
        ("stranger@example.net", SERVER, "HELP\n"),
        ("fan@example.net", SERVER, "WATCH alpha\n"),
        (ANN, ALPHA, "PASSWORD not-the-password\nSol holds\n"),
        (GM, ALPHA, "PASSWORD gm-secret\nSTATUS\n"),
    ],
)
def test_no_mail_promises_a_reply_it_cannot_keep(h, sender, to, text):
    h.send(sender, to, text)
    answers = h.outbox(to=sender)
    assert answers  # a receipt, or (WATCH) the mail that asks to confirm it
    for answer in answers:
        if answer["Reply-To"] is None:
            assert "reply to this mail" not in body(h, answer).lower()


def test_status_names_each_player_with_the_colour_they_play(h):
    pw = h.password(ANN)
    h.send(ANN, ALPHA, f"PASSWORD {pw}\nSTATUS\n")
    text = h.last(ANN)
    assert re.search(r"tick 1: you play ann \(\w+\)", text)
    assert re.search(r"\n  bob \(\w+\) +systems 1", text)


def notices(h: Harness, who: str) -> list[str]:
    return [body(h, m) for m in h.outbox("notice", who)]


def test_players_are_told_what_the_master_does(h):
    pw = "gm-secret"
    h.send(GM, ALPHA, f"PASSWORD {pw}\nEXTEND 1d\n")
    for who in (ANN, BOB, CID):
        told = notices(h, who)[-1]
        assert "extended the deadline of alpha by 1 day" in told
        assert "The deadline is now" in told
    assert "(America/New_York)" in notices(h, BOB)[-1]
    assert "(Europe/Oslo)" in notices(h, ANN)[-1]

    h.send(GM, ALPHA, f"PASSWORD {pw}\nPAUSE\n")
    assert "has paused alpha" in notices(h, ANN)[-1]
    assert "No deadline runs while the game is paused" in notices(h, ANN)[-1]
    h.send(GM, ALPHA, f"PASSWORD {pw}\nRESUME\n")
    assert "has resumed alpha" in notices(h, ANN)[-1]
    assert "The deadline is now" in notices(h, ANN)[-1]

    h.send(GM, ALPHA, f"PASSWORD {pw}\nREPLACE cid WITH cyd@example.org\n")
    assert "the seat of cid in alpha to a new player" in notices(h, ANN)[-1]
    assert "You have been replaced" in h.last(CID, "alert")
    assert h.outbox("password", "cyd@example.org")[-1]["Reply-To"]

    h.send(GM, ALPHA, f"PASSWORD {pw}\nREMOVE bob\n")
    assert "bob has been removed from alpha" in notices(h, ANN)[-1]
    assert "has taken you (bob) out of alpha" in h.last(BOB, "alert")
    # the notice's Reply-To is the player's own: a reply gives orders
    reply(h, h.outbox("notice", ANN)[-1], ANN, "Sol x Alnitak\n")
    assert "line 1: Sol attacks Alnitak" in h.last(ANN)


def test_end_game_by_the_master_says_what_it_is(h):
    h.send(GM, ALPHA, "PASSWORD gm-secret\nEND GAME\n")
    h.confirm(GM)  # END GAME waits for the master to confirm it
    over = h.last(ANN, "report")
    assert "was ended by its game master" in over and "nobody wins it" in over
    assert "Winners" not in over and "everyone" not in over
    assert re.search(r"Final standings:\r?\n  ann \(\w+\) +systems 1", over)


def test_every_mail_has_crlf_line_ends(h):
    """A relay reads a mail of bare LFs as one line too long (500)."""
    h.clock.set(h.game().deadline)
    h.tick()
    kinds = {r.kind for r in h.app.store.outbox_rows()}
    assert {"password", "started", "report"} <= kinds
    for row in h.app.store.outbox_rows():
        assert b"\n" not in row.message.replace(b"\r\n", b""), row.kind


dip = served(
    empire_yaml(
        *EVENINGS,
        "seed: 3",
        "visibility: private",
        "observer_password: sesame-fans",
        "master: {email: gm@example.org, password: gm-secret}",
    )
)


def test_an_empire_player_is_told_their_power(dip):
    power = dip.powers()["ann"]
    started = dip.outbox("started", ANN)[-1]
    assert f"you play ann ({power})" in started["Subject"]
    text = body(dip, started)
    assert f"You play ann ({power})." in text and '"A PAR - BUR"' in text
    dip.send(ANN, "dip@judge.example", f"PASSWORD {dip.password(ANN, 'dip')}\nSTATUS\n")
    assert f"S1901M: you play ann ({power})" in dip.last(ANN)


def test_history_names_phases_as_the_game_does(dip):
    pw = dip.password(ANN, "dip")
    dip.send(GM, "dip@judge.example", "PASSWORD gm-secret\nADJUDICATE\n")
    dip.wait_turn = None

    wait_for(lambda: dip.game("dip").turn == 2, 10, "the forced phase")
    dip.send(GM, "dip@judge.example", "PASSWORD gm-secret\nADJUDICATE\n")
    wait_for(lambda: dip.game("dip").turn == 3, 10, "the second forced phase")
    dip.settle()
    dip.send(ANN, "dip@judge.example", f"PASSWORD {pw}\nHISTORY S1901M\n")
    assert "the report of S1901M is on its way" in dip.last(ANN)
    assert "S1901M results (again)" in dip.outbox("history", ANN)[-1]["Subject"]
    dip.send(ANN, SERVER, f"PASSWORD {pw}\nHISTORY dip s1901m\n")
    assert "S1901M results (again)" in dip.outbox("history", ANN)[-1]["Subject"]
    dip.send(ANN, "dip@judge.example", f"PASSWORD {pw}\nHISTORY\n")
    latest = dip.outbox("history", ANN)[-1]["Subject"]
    assert "S1901M" not in latest and "(again)" in latest
    dip.send(ANN, "dip@judge.example", f"PASSWORD {pw}\nHISTORY S1999M\n")
    assert "no report of a phase called 's1999m' (reports kept: S1901M, F1901M)" in dip.last(ANN)
    assert len(dip.outbox("history", ANN)) == 3


def test_a_private_game_is_watched_only_with_its_observer_password(dip):
    fan = "fan@example.net"
    dip.send(fan, SERVER, "WATCH dip\n")  # to a stranger a private game does not exist
    assert "WATCH: there is no game called 'dip'" in dip.last(fan)
    dip.send_confirmed(fan, SERVER, "WATCH dip wrong-guess\n")  # checked on confirmation
    assert "WATCH dip: no game by that name has that observer password" in dip.last(fan)
    dip.send(fan, SERVER, "HISTORY dip\n")
    assert "there is no game called 'dip' here" in dip.last(fan)
    dip.send(fan, SERVER, "LIST\n")
    assert " dip " not in dip.last(fan)
    dip.send_confirmed(fan, SERVER, "WATCH dip sesame-fans\n")
    reply = dip.outbox("receipt", fan)[-1]
    assert "fan@example.net is now watching dip" in body(dip, reply)
    assert "sesame-fans" not in reply.as_string()
    dip.send(fan, SERVER, "LIST\n")
    assert "(private)" in dip.last(fan)


def test_counts_read_in_good_english():
    from pbem.words import plural, templates

    assert [plural(n, "system") for n in (0, 1, 2)] == ["0 systems", "1 system", "2 systems"]
    assert plural(1, "reply") == "1 reply" and plural(3, "reply") == "3 replies"
    assert plural(2, "day") == "2 days" and plural(2, "match") == "2 matches"
    assert templates().from_string('{{ 1 | plural("day") }}').render() == "1 day"


def test_the_master_status_names_seats_and_the_local_deadline(h):
    h.send(GM, ALPHA, "PASSWORD gm-secret\nSTATUS\n")
    text = h.last(GM)
    assert re.search(r"deadline \d{4}-\d\d-\d\d \d\d:\d\d UTC \(\w{3} .*\(Europe/Oslo\)\)", text)
    assert re.search(r"\n  ann \(\w+\) +ann@example.org", text)


def test_the_start_mail_examples_are_orders_the_game_reads(tmp_path):
    """Territory describes a state's options ("-> any state"): the start
    mail shows no such line as an example."""
    h = Harness(tmp_path, GAMES_YAML_TERRA)
    try:
        for i in range(6):
            h.send_confirmed(f"p{i}@example.net", SERVER, "JOIN terra\n")
        text = body(h, h.outbox("started", "p0@example.net")[-1])
        assert "any state" not in text.split("your units could give now")[-1].split("\n\n")[0]
        assert '"Lyon -> Paris"' in text
    finally:
        h.close()


IMPLOSION_YAML = """\
server:
  domain: judge.example
  listen: {host: 127.0.0.1, port: 0}
  storage: var/pbem.sqlite
  outbound: {from: judge@judge.example, maildir: var/mail}
games:
  - name: ring
    game: implosion
    map: ring
    timezone: Europe/Oslo
    players:
      - {name: ann, email: ann@example.org}
      - {name: bob, email: bob@example.org}
      - {name: cid, email: cid@example.org}
    master: {email: gm@example.org, password: gm-secret}
"""


def test_implosion_players_are_named_by_a_colour_in_words(tmp_path):
    """Implosion's colours are generated (#rrggbb): the start mail, STATUS
    and the report name them in words a player can match to the map."""
    h = Harness(tmp_path, IMPLOSION_YAML)
    try:
        started = h.outbox("started", ANN)[0]
        assert "you play ann (red)" in started["Subject"]
        text = body(h, started)
        assert "Players, in seat order: ann (red), bob (dark green), cid (blue)." in text
        reply(h, started, ANN, "STATUS\n")
        status = h.last(ANN)
        assert "you play ann (red)" in status and "bob (dark green)" in status
        assert not re.search(r"#[0-9a-f]{6}", status)
        h.send(GM, "ring@judge.example", "PASSWORD gm-secret\nADJUDICATE\n")
        wait_for(lambda: h.outbox("report", ANN), 10, "the report")
        report = h.text(h.report(ANN, "ring"))
        assert "cid (blue)" in report and not re.search(r"#[0-9a-f]{6}", report)
    finally:
        h.close()


def test_the_masters_extend_and_resume_say_the_deadline_in_the_games_zone(h):
    extended = " ".join(h.as_master("EXTEND 12h").split())
    deadline = h.game().deadline
    assert re.search(r"the deadline of alpha is now \w{3} \d\d \w{3} \d{4} \d\d:\d\d CET", extended)
    assert f"(Europe/Oslo), {deadline:%H:%M} UTC" in extended
    h.as_master("PAUSE")
    resumed = " ".join(h.as_master("RESUME").split())
    assert "alpha runs again; the deadline is" in resumed and "(Europe/Oslo)" in resumed


def test_the_reminder_says_what_silence_costs_and_its_reply_works(h):
    from datetime import timedelta

    h.clock.set(h.game().deadline - timedelta(hours=1, minutes=59))
    h.tick()
    (reminder,) = [m for m in h.outbox("reminder", BOB) if "[alpha]" in m["Subject"]]
    text = " ".join(body(h, reminder).split())
    assert "(America/New_York)" in text  # bob's own time zone
    assert "your units hold, and a missed turn is counted" in text
    assert "with a line PASSWORD and your password" in text
    reply(h, reminder, BOB, "Vega holds\n")  # "Reply to this mail ... (no password needed)"
    assert "line 1: Vega holds" in h.last(BOB)
