"""A private game by mail: to anyone who is not its player, observer or
game master it does not exist, and its observer password cannot be
guessed through the judge. Real mail through a real SMTP session, a real
SQLite file, the clock moved by the test."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from pbem.commands.observing import ALERT_AFTER, TRIES
from pbem.commands.observing import UNSEEN_PER_MAIL as PER_MAIL
from pbem.store.schema import auth_failures
from tests.mailharness import GAMES_YAML, PRIVATE_GAME, Harness, on_both_backends

SERVER = "judge@judge.example"
STRANGER = "stranger@example.net"
FAN = "fan@example.net"
GM = "gm@example.org"
UNSET = """\
  - name: delta
    game: officewars
    map: six
    visibility: private
    master: {email: gm@example.org, password: gm-secret}
    players:
      - {name: ann, email: ann@example.org}
      - {name: bob, email: bob@example.org}
"""


@pytest.fixture
def judge(tmp_path, storage):
    harness = Harness(tmp_path, GAMES_YAML + PRIVATE_GAME + UNSET, storage=storage)
    try:
        yield harness
    finally:
        harness.close()


def answer(h: Harness, sender: str, body: str) -> str:
    """The receipt ``body`` from ``sender`` gets, its received line (number
    and time) taken out."""
    h.send(sender, SERVER, body, subject="a question")
    return re.sub(r"^Your mail was received as #\d+ at [^\n]*\n", "", h.last(sender))


def failures(h: Harness) -> int:
    with h.app.store.tx(write=False) as conn:
        return conn.execute(select(func.count()).select_from(auth_failures)).scalar_one()


@pytest.mark.parametrize(
    "command",
    ["WATCH {}", "CALENDAR {}", "JOIN {}", "JOIN {} as visitor", "HISTORY {}", "STATUS {}"],
)
def test_to_a_stranger_a_private_game_reads_as_a_name_no_game_has(judge, command):
    private = answer(judge, STRANGER, command.format("gamma") + "\n")
    unknown = answer(judge, STRANGER, command.format("zzzzz") + "\n")
    assert "zzzzz" in unknown
    assert private.replace("gamma", "zzzzz") == unknown
    assert private.encode() == unknown.replace("zzzzz", "gamma").encode()


def test_list_leaves_a_private_game_out_for_a_stranger_and_shows_it_to_its_own(judge):
    assert "gamma" not in answer(judge, STRANGER, "LIST\n")
    assert "alpha" in answer(judge, STRANGER, "LIST\n")
    judge.send("eve@example.org", SERVER, "LIST\n")
    assert "gamma" in judge.last("eve@example.org")  # a player of it


def test_one_mail_of_three_thousand_watch_guesses_is_one_unchecked_request(judge):
    guesses = [f"WATCH gamma guess{i:04}" for i in range(3000)]
    guesses[1500] = "WATCH gamma fans-only"  # the right one, among them
    judge.send(STRANGER, SERVER, "\n".join(guesses) + "\n")
    text = judge.last(STRANGER)
    assert "wrong" not in text and "fans-only" not in text
    (ask,) = judge.outbox("confirm", STRANGER)  # one request, of the first line
    assert "fans-only" not in ask.as_string() and "WATCH gamma" in judge.text(ask)
    assert "line 2: WATCH gamma: a mail asks WATCH of a game once; not read" in text
    assert failures(judge) == 0  # nothing checked when it comes
    with judge.app.store.tx(write=False) as conn:
        waiting = judge.app.store.pending_confirmations(conn, STRANGER)
    assert [w.text for w in waiting] == ["WATCH gamma guess0000"]  # the first line, alone


def test_many_guessing_mails_learn_nothing_and_the_owner_still_watches(judge):
    answers = set()
    for i in range(30):  # forged: the fan's own address, guesses that are never confirmed
        guess = "fans-only" if i == 17 else f"guess{i:02}"
        sent = judge.send(FAN, SERVER, f"WATCH gamma {guess}\n")
        (mail,) = [m for m in judge.outbox(to=FAN) if m["In-Reply-To"] == sent["Message-ID"]]
        text = judge.text(mail).split("--\r\nThis is the last reply")[0]  # the cap's note
        text = re.sub(r"[a-z2-7]{32}", "TOKEN", text.rstrip())
        answers.add(re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "TIME", text))
    assert len(answers) == 1, answers  # the right guess is answered as every other
    assert "wrong" not in answers.pop()
    assert failures(judge) == 0
    judge.clock.advance(minutes=5)
    judge.send_confirmed(FAN, SERVER, "WATCH gamma fans-only\n")
    assert f"{FAN} is now watching gamma" in judge.last(FAN)


def test_confirmed_wrong_passwords_stop_being_checked_for_that_address_alone(judge):
    for i in range(TRIES):
        judge.send_confirmed(STRANGER, SERVER, f"WATCH gamma guess{i}\n")
        assert "no game by that name has that observer password" in judge.last(STRANGER)
    judge.send_confirmed(STRANGER, SERVER, "WATCH gamma fans-only\n")
    text = judge.last(STRANGER)
    assert "not checked now" in text and "now watching" not in text
    judge.send_confirmed(FAN, SERVER, "WATCH gamma fans-only\n")  # another address
    assert f"{FAN} is now watching gamma" in judge.last(FAN)
    judge.clock.advance(hours=1, minutes=1)
    judge.send_confirmed(STRANGER, SERVER, "WATCH gamma fans-only\n")
    assert f"{STRANGER} is now watching gamma" in judge.last(STRANGER)


def test_the_game_master_is_told_once_when_many_guess(judge):
    for i in range(ALERT_AFTER + 2):
        guesser = f"g{i}@example.net"
        judge.send_confirmed(guesser, SERVER, f"WATCH delta guess{i}\n")
    alerts = [m for m in judge.outbox("alert", GM) if "observer passwords" in m["Subject"]]
    assert len(alerts) == 1


def test_a_private_game_without_one_gets_an_observer_password_its_master_reads(judge):
    judge.send(GM, "delta@judge.example", "PASSWORD gm-secret\nSTATUS\n")
    found = re.search(r"observer password: ([a-z2-7]{16}) \(made by the server", judge.last(GM))
    assert found, judge.last(GM)
    judge.send_confirmed(FAN, SERVER, f"WATCH delta {found[1]}\n")
    assert f"{FAN} is now watching delta" in judge.last(FAN)


@on_both_backends
def test_a_name_no_game_may_have_or_an_overlong_password_is_answered_at_once(judge):
    long_name, long_password = "n" * 60, "p" * 150
    text = answer(judge, STRANGER, f"WATCH {long_name} secret\nWATCH gamma {long_password}\n")
    assert f"line 1: WATCH: there is no game called '{long_name}'" in text
    assert "line 2: WATCH gamma: an observer password has at most 100 characters" in text
    assert judge.outbox("confirm", STRANGER) == []


def test_a_mail_asks_watch_with_a_password_of_a_few_unseen_games_at_most(judge):
    names = ["gamma", *(f"nosuch{i}" for i in range(9))]
    text = answer(judge, STRANGER, "".join(f"WATCH {n} guess\n" for n in names))
    with judge.app.store.tx(write=False) as conn:
        waiting = judge.app.store.pending_confirmations(conn, STRANGER)
    assert [w.game for w in waiting] == ["gamma", "nosuch0", "nosuch1"]
    assert f"line 4: WATCH nosuch2: a mail asks WATCH with a password of at most {PER_MAIL}" in text
