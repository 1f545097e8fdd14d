"""No backscatter: the guide's Postfix (docs/deploy.md, step 3) checks
each recipient of the judge's domain while the sender is still on the
line, by asking pbem over LMTP (reject_unverified_recipient). Mail to an
address pbem does not have is refused at RCPT, so Postfix never accepts
it and never bounces it to a (possibly forged) sender; the game's
addresses, reply addresses and bounce addresses are taken; with pbem down
an address not yet known gets a temporary refusal (the sender's server
tries again), never a permanent one."""

from __future__ import annotations

import smtplib
import time

import pytest

from pbem.mail import bounces
from tests.test_postfix import Site

# the guide's lines (docs/deploy.md, "Recipients checked at RCPT")
GUIDE = (
    "smtpd_recipient_restrictions = "
    "check_recipient_access inline:{ judge.example=reject_unverified_recipient }",
    "unverified_recipient_reject_code = 550",
    "unverified_recipient_defer_code = 450",
    "address_verify_negative_expire_time = 10m",
    "address_verify_negative_refresh_time = 5m",
)
VICTIM = "victim@example.org"


def rcpt(site: Site, to: str, sender: str = VICTIM) -> tuple[int, str]:
    """The answer of the judge's Postfix to RCPT TO: ``to``."""
    with smtplib.SMTP("127.0.0.1", site.postfix.port, timeout=60) as s:
        s.ehlo("mail.example.org")
        s.mail(sender)
        code, said = s.rcpt(to)
        s.rset()
    return code, said.decode(errors="replace")


def test_unknown_addresses_are_refused_at_rcpt_and_nothing_is_bounced(tmp_path):
    site = Site(tmp_path, postfix=GUIDE)
    try:
        judge = site.judge
        code, said = rcpt(site, "nobody@judge.example")
        assert code == 550, said
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            with smtplib.SMTP("127.0.0.1", site.postfix.port, timeout=60) as s:
                s.sendmail(VICTIM, ["nobody@judge.example"], b"Subject: x\r\n\r\nspam\r\n")
        # the game's address, a player's reply address, the judge's own, and
        # the return path of an outgoing mail (where its bounce comes)
        with judge.app.store.tx(write=False) as conn:
            ann = next(p for p in judge.app.store.players(conn, "alpha") if p.name == "ann")
        sent = judge.app.store.outbox_rows("password", "ann@example.org")[0]
        for to in (
            "alpha@judge.example",
            judge.app.reply_address(ann),
            "judge@judge.example",
            bounces.return_path(judge.app, sent),
        ):
            code, said = rcpt(site, to, "ann@example.org")
            assert code == 250, (to, said)
        time.sleep(3)  # what Postfix would have bounced by now, had it taken the mail
        assert site.postfix.queued(VICTIM) == 0 and site.postfix.queued("") == 0
        assert site.remote.to(VICTIM) == []
        assert "nobody@judge.example" in site.postfix.log()  # the refusal, logged
    finally:
        site.close()


def test_with_pbem_down_an_unknown_address_waits_never_a_permanent_refusal(tmp_path):
    site = Site(tmp_path, postfix=GUIDE)
    try:
        site.judge.close()  # pbem stops: LMTP does not answer
        code, said = rcpt(site, "beta@judge.example", "ann@example.org")
        assert 400 <= code < 500, said
    finally:
        site.postfix.stop()
        site.remote_server.stop()
