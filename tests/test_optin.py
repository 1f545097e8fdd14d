"""Double opt-in: JOIN, LEAVE, WATCH and UNWATCH act on the From address
alone, which anyone can forge; so each waits until a reply from that
address to the token mailed there confirms it. Real mail through a real
SMTP session (tests/mailharness.py), a real SQLite file (or PostgreSQL:
the tests marked on_both_backends), the clock moved by the test."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.commands.confirm import digest
from pbem.store.schema import confirmations
from tests.mailharness import GAMES_YAML, Harness, on_both_backends

OPEN_GAME = """\
  - name: gamma
    game: officewars
    map: six
    seats: 3
    players:
      - {name: ann, email: ann@example.org}
"""
SERVER = "judge@judge.example"
BOB = "rob@example.net"
EVE = "eve@example.net"


@pytest.fixture
def judge(tmp_path, storage):
    harness = Harness(tmp_path, GAMES_YAML + OPEN_GAME, storage=storage)
    try:
        yield harness
    finally:
        harness.close()


def seated(h: Harness, game: str = "gamma") -> list[str]:
    with h.app.store.tx(write=False) as conn:
        return sorted(p.email for p in h.app.store.players(conn, game))


def watching(h: Harness, game: str = "alpha") -> list[str]:
    with h.app.store.tx(write=False) as conn:
        return h.app.store.watchers(conn, game)


def asks(h: Harness, to: str) -> list:
    return h.outbox("confirm", to)


def token_of(mail) -> str:
    m = re.fullmatch(r"confirm\+([a-z2-7]{32})@judge\.example", str(mail["Reply-To"]))
    assert m, mail["Reply-To"]
    return m[1]


@on_both_backends
def test_a_forged_join_changes_nothing_until_the_address_confirms(judge):
    # eve writes rob's address as the sender, through a real SMTP session
    judge.send(BOB, SERVER, "JOIN gamma as Bobby\n")
    assert seated(judge) == ["ann@example.org"]
    assert judge.outbox("password", BOB) == [] and judge.outbox("receipt", BOB) == []
    (ask,) = asks(judge, BOB)
    text = judge.text(ask)
    flat = " ".join(text.split())
    assert ask["Subject"] == "Please confirm: JOIN gamma as Bobby"
    assert "received a mail from your address, rob@example.net" in flat
    assert "It has not been done: only you can confirm it." in flat
    assert "It will take a seat as Bobby in gamma (Office Wars); seats taken so far: 1 of 3" in flat
    assert "Your password comes in a mail of its own." in flat
    token = token_of(ask)
    assert f"CONFIRM {token}" in text
    assert "If you did not ask for this, do nothing: nothing happens" in flat
    assert "expires at 2026-11-23 12:00 UTC (48 hours from when it came)" in flat
    assert ask["Auto-Submitted"] == "auto-replied"
    assert judge.states() == {"applied": 1}
    # the store keeps the token's digest, never the token
    with judge.app.store.tx(write=False) as conn:
        stored = conn.execute(select(confirmations.c.token)).scalars().all()
    assert stored == [digest(token)] and token not in stored

    judge.confirm(BOB)  # rob, who reads his mail, replies
    assert seated(judge) == ["ann@example.org", BOB]
    assert "JOIN gamma: you play as Bobby (2 of 3 seats taken)" in judge.last(BOB)
    assert "You play as Bobby" in judge.text(judge.outbox("password", BOB)[-1])


def test_confirmation_from_another_address_is_refused_and_the_token_still_works(judge):
    judge.send(BOB, SERVER, "JOIN gamma\n")
    judge.confirm(BOB, by=EVE)
    assert seated(judge) == ["ann@example.org"]
    reply = judge.last(EVE)
    assert "mailed to another address" in reply and "Nothing was done" in reply
    assert BOB not in reply  # the refusal does not say whose it is
    token = token_of(asks(judge, BOB)[-1])
    judge.send(EVE, SERVER, f"CONFIRM {token}\n")
    assert "mailed to another address" in judge.last(EVE)
    assert seated(judge) == ["ann@example.org"]
    judge.send(BOB, SERVER, f"CONFIRM {token.upper()}\n")  # the line, any case
    assert seated(judge) == ["ann@example.org", BOB]
    assert "line 1: JOIN gamma: you play as rob (2 of 3 seats taken)" in judge.last(BOB)


@on_both_backends
def test_a_token_confirms_once(judge):
    judge.send(BOB, SERVER, "JOIN gamma\n")
    judge.confirm(BOB)
    join_ask = asks(judge, BOB)[-1]
    judge.send_confirmed(BOB, SERVER, "LEAVE gamma\n")
    assert "you have left gamma" in judge.last(BOB)
    assert seated(judge) == ["ann@example.org"]
    # the old JOIN mail replied to again (a replay, or a second click)
    judge.send(BOB, str(join_ask["Reply-To"]), "yes\n", subject="Re: again")
    assert seated(judge) == ["ann@example.org"]
    assert "JOIN gamma as rob: confirmed already" in judge.last(BOB)
    assert len(judge.outbox("password", BOB)) == 1


def test_an_expired_request_does_nothing(judge):
    judge.send(BOB, SERVER, "JOIN gamma\n")
    judge.clock.advance(hours=48, minutes=1)
    judge.confirm(BOB)
    assert seated(judge) == ["ann@example.org"]
    reply = judge.last(BOB)
    assert "the request expired at 2026-11-23 12:00 UTC; nothing was done" in reply
    assert "Send JOIN again" in reply
    judge.send_confirmed(BOB, SERVER, "JOIN gamma\n")  # asked anew, confirmed in time
    assert seated(judge) == ["ann@example.org", BOB]


def test_the_time_to_confirm_is_configurable(tmp_path):
    yaml = (
        GAMES_YAML.replace("idle_timeout: 5}", "idle_timeout: 5, confirm_within: 30m}") + OPEN_GAME
    )
    h = Harness(tmp_path, yaml)
    try:
        h.send(BOB, SERVER, "JOIN gamma\n")
        assert "(30 minutes from when it came)" in " ".join(h.text(asks(h, BOB)[-1]).split())
        h.clock.advance(minutes=31)
        h.confirm(BOB)
        assert "expired" in h.last(BOB) and seated(h) == ["ann@example.org"]
    finally:
        h.close()


def test_automatic_mail_to_the_confirm_address_never_confirms(judge):
    judge.send(BOB, SERVER, "JOIN gamma\n")
    address = str(asks(judge, BOB)[-1]["Reply-To"])
    judge.send(BOB, address, "I am away.\n", subject="Away", Auto_Submitted="auto-replied")
    judge.send(BOB, address, "I am away until Monday.\n", subject="Out of Office: Confirm")
    judge.send(BOB, address, "Gone.\n", subject="Re: Confirm", X_Autoreply="yes")
    dsn = (
        "From: MAILER-DAEMON@mx.example.org\r\n"
        f"To: {address}\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nThe mail could not be delivered.\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.org\r\n\r\n"
        f"Final-Recipient: rfc822; {BOB}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        "--b--\r\n"
    ).encode()
    code, _ = judge.send_raw(dsn, mail_from="", rcpt=(address,))
    assert code == 250
    assert seated(judge) == ["ann@example.org"]
    assert judge.outbox("receipt", BOB) == [] and len(asks(judge, BOB)) == 1
    states = judge.states()
    assert states.get("applied") == 1 and "refused" not in states
    judge.confirm(BOB)  # rob himself, later: it still works
    assert seated(judge) == ["ann@example.org", BOB]


def test_a_reply_only_confirms_what_it_quotes_is_not_read(judge):
    judge.send(BOB, SERVER, "JOIN gamma as Bobby\n")
    address = str(asks(judge, BOB)[-1]["Reply-To"])
    judge.send(BOB, address, "yes\nJOIN gamma as Zed\nWATCH alpha\n> JOIN gamma\n")
    assert seated(judge) == ["ann@example.org", BOB]
    with judge.app.store.tx(write=False) as conn:
        assert [p.name for p in judge.app.store.players(conn, "gamma")] == ["ann", "Bobby"]
        assert judge.app.store.pending_confirmations(conn, BOB) == []
    assert len(asks(judge, BOB)) == 1 and watching(judge) == []


def test_a_newer_request_replaces_the_older_and_many_do_not_flood(judge):
    for n in range(25):
        judge.send(BOB, SERVER, f"JOIN gamma as Bob{n}\n")
    with judge.app.store.tx(write=False) as conn:
        waiting = judge.app.store.pending_confirmations(conn, BOB)
    assert [w.text for w in waiting] == ["JOIN gamma as Bob24"]
    cap = judge.app.config.server.limits.replies_per_day
    sent = [r for r in judge.app.store.outbox_rows(None, BOB) if r.status != "held"]
    assert len(sent) == cap  # the rest are held for one digest after midnight
    judge.confirm(BOB, index=0)  # the first request: replaced
    assert "a later request replaced this one; nothing was done" in judge.last(BOB)
    assert seated(judge) == ["ann@example.org"]
    # the newest one still confirms (by CONFIRM: its mail is among those held)
    judge.clock.advance(hours=24)
    newest = [r for r in judge.app.store.outbox_rows("confirm", BOB)][-1]
    token = re.search(rb"confirm\+([a-z2-7]{32})@", newest.message)[1].decode()
    judge.send(BOB, SERVER, f"CONFIRM {token}\n")
    with judge.app.store.tx(write=False) as conn:
        assert [p.name for p in judge.app.store.players(conn, "gamma")] == ["ann", "Bob24"]


def test_confirming_checks_again_at_that_moment(judge):
    judge.send(BOB, SERVER, "JOIN gamma\n")  # waits
    judge.send_confirmed("cid@example.org", SERVER, "JOIN gamma\n")
    judge.send_confirmed("dee@example.org", SERVER, "JOIN gamma\n")  # the last seat: started
    assert judge.game("gamma").status == "running"
    judge.confirm(BOB)
    assert "JOIN gamma: the game has started; ask its game master for a seat" in judge.last(BOB)
    assert BOB not in seated(judge) and judge.outbox("password", BOB) == []


def test_a_refused_join_is_answered_at_once_and_asks_nothing(judge):
    judge.send(BOB, SERVER, "JOIN nowhere\nJOIN gamma as 9lives\n")
    body = judge.last(BOB)
    assert "line 1: JOIN nowhere: there is no game called 'nowhere'" in body
    assert "line 2: JOIN gamma: '9lives' cannot be a player's name" in body
    assert asks(judge, BOB) == []


def test_a_mail_with_other_business_gets_its_receipt_too(judge):
    judge.send(BOB, SERVER, "LIST\nJOIN gamma\nWATCH alpha\n")
    body = judge.last(BOB)
    assert "gamma            Office Wars, open: 1 of 3 seats taken" in body
    assert "line 2: JOIN gamma as rob: waits for your confirmation" in body
    assert "line 3: WATCH alpha: waits for your confirmation" in body
    (ask,) = asks(judge, BOB)  # one mail asks for both
    assert ask["Subject"] == "Please confirm: JOIN gamma as rob, WATCH alpha"
    assert "send you every turn report of alpha as an observer" in " ".join(judge.text(ask).split())
    judge.confirm(BOB)
    reply = judge.last(BOB)
    assert (
        "JOIN gamma: you play as rob" in reply and "rob@example.net is now watching alpha" in reply
    )
    assert watching(judge) == [BOB] and BOB in seated(judge)


def test_a_forged_leave_keeps_the_seat_until_confirmed(judge):
    judge.send_confirmed(BOB, SERVER, "JOIN gamma\n")
    judge.send(BOB, SERVER, "LEAVE gamma\n")  # forged
    assert BOB in seated(judge)
    ask = asks(judge, BOB)[-1]
    assert ask["Subject"] == "Please confirm: LEAVE gamma"
    assert "give up your seat in gamma, where you are rob" in " ".join(judge.text(ask).split())
    judge.confirm(BOB, by=EVE)
    assert BOB in seated(judge)
    judge.confirm(BOB)
    assert BOB not in seated(judge)
    assert "LEAVE gamma: you have left gamma (1 seat taken)" in judge.last(BOB)


def test_forged_watch_and_unwatch_change_nothing_until_confirmed(judge):
    fan = "fan@example.net"
    judge.send(fan, SERVER, "WATCH alpha\n")
    assert watching(judge) == []
    judge.confirm(fan, by=EVE)
    assert watching(judge) == []
    judge.confirm(fan)
    assert watching(judge) == [fan]
    assert "fan@example.net is now watching alpha" in judge.last(fan)
    judge.send(fan, SERVER, "WATCH alpha\n")  # nothing to change: answered, nothing asked
    assert "(no change)" in judge.last(fan) and len(asks(judge, fan)) == 1
    judge.send(fan, SERVER, "UNWATCH alpha\n")
    assert watching(judge) == [fan]
    assert asks(judge, fan)[-1]["Subject"] == "Please confirm: UNWATCH alpha"
    judge.confirm(fan)
    assert watching(judge) == []
    assert "no longer watching alpha" in judge.last(fan)


def test_an_unknown_token_confirms_nothing(judge):
    judge.send(BOB, "confirm+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@judge.example", "yes\n")
    assert "nothing waits for this confirmation" in judge.last(BOB)
    judge.send(BOB, SERVER, "CONFIRM\n")
    assert "write the token of the mail that asks" in judge.last(BOB)
