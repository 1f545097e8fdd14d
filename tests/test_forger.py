"""A forger who mails wrong passwords with a player's From: address pauses
password checks from that address (no fast guessing against the slow
hash), but cannot lock the real player out: the player is told once, with
the time checks resume in their own time zone, and their reply address
keeps working throughout. Played through the real server by mail."""

from __future__ import annotations

import re
from datetime import timedelta
from zoneinfo import ZoneInfo

from pbem.mail.credentials import BLOCK_AFTER
from tests.mailharness import Harness

BOB = "bob@example.org"  # plays alpha in America/New_York
ALPHA = "alpha@judge.example"
PAUSED = "password checks from it are paused until"


def _forge(judge: Harness, n: int) -> None:
    with judge.smtp() as s:
        for i in range(n):
            m = judge.message(BOB, ALPHA, f"PASSWORD guess{i}\nVega attacks Rigel\n")
            s.send_message(m)
    judge.settle(60)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _notices(judge: Harness) -> list[str]:
    return [_flat(judge.text(m)) for m in judge.outbox(to=BOB) if PAUSED in _flat(judge.text(m))]


def test_forged_mails_cannot_lock_the_real_player_out(judge):
    start = judge.clock.now()
    _forge(judge, BLOCK_AFTER + 5)
    # told once, when the pause began (held by the daily cap like any reply)
    notices = _notices(judge)
    assert len(notices) == 1
    notice = notices[0]
    until = re.search(PAUSED + r" (.+?)\. ", notice)[1]
    resume = (start + timedelta(hours=1)).astimezone(ZoneInfo("America/New_York"))
    assert until == f"{resume:%a %d %b %Y %H:%M} {resume.tzname()} (America/New_York)"
    assert "reply address is checked without the password" in notice
    assert "guess" not in notice  # no password is ever repeated
    # the mails after the 20th are refused without a word each
    mails = judge.app.store.mails()
    assert [m.state for m in mails[-5:]] == ["refused"] * 5
    assert all("paused" in (m.note or "") for m in mails[-5:])
    replies = judge.app.store.outbox_rows(to_addr=BOB)
    assert len([r for r in replies if r.kind in ("receipt", "refusal")]) == BLOCK_AFTER
    # the notice's Reply-To is bob's reply address: orders sent to it count
    notice_mail = next(m for m in judge.outbox(to=BOB) if PAUSED in _flat(judge.text(m)))
    reply_to = str(notice_mail["Reply-To"])
    assert reply_to.startswith("alpha+bob.")
    judge.send(BOB, reply_to, "Vega holds\n", subject="Re: orders")
    assert judge.app.store.mails()[-1].state == "applied"
    # even his right password is not checked until the pause ends ...
    judge.send(BOB, ALPHA, f"PASSWORD {judge.password(BOB)}\nVega holds\n")
    assert judge.app.store.mails()[-1].state == "refused"
    # ... and is again once it has
    judge.clock.set(start + timedelta(hours=1, seconds=1))
    judge.send(BOB, ALPHA, f"PASSWORD {judge.password(BOB)}\nVega holds\n")
    assert judge.app.store.mails()[-1].state == "applied"


def test_nineteen_wrong_passwords_pause_nothing(judge):
    _forge(judge, BLOCK_AFTER - 1)
    assert _notices(judge) == []
    judge.send(BOB, ALPHA, f"PASSWORD {judge.password(BOB)}\nVega holds\n")
    assert judge.app.store.mails()[-1].state == "applied"


RING_YAML = """\
server:
  domain: judge.example
  listen: {host: 127.0.0.1, port: 0}
  storage: var/pbem.sqlite
  outbound: {from: judge@judge.example, maildir: var/mail}
  limits: {replies_per_day: 100}
games:
  - name: ring
    game: implosion
    map: ring
    timezone: Europe/Oslo
    players:
      - {name: ann, email: ann@example.org}
      - {name: bob, email: bob@example.org}
"""


def test_the_notice_ends_with_the_games_own_way_of_replying(tmp_path):
    """In Implosion a mail adds orders: the notice's last lines say so, not
    that a reply replaces the orders sent before."""
    judge = Harness(tmp_path, RING_YAML)
    try:
        with judge.smtp() as s:
            for i in range(BLOCK_AFTER):
                s.send_message(judge.message(BOB, "ring@judge.example", f"PASSWORD g{i}\n"))
        judge.settle(60)
        (notice,) = _notices(judge)
        assert "To add orders, reply to this mail with them" in notice
        assert "replaces the orders" not in notice
    finally:
        judge.close()
