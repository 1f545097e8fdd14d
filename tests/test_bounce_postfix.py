"""Postfix's own delivery status notifications come back to each mail's
return path and are tied to that mail and its recipient: a real Postfix
(Debian's, on loopback ports) relays the judge's mail to a players' server
that refuses one mailbox, and hands its reports to pbem by LMTP."""

from __future__ import annotations

import pytest

import tests.test_postfix as base
from pbem.mail import bounces
from tests.mailharness import wait_for
from tests.test_postfix import Site

GONE, GM = "gone@example.org", "gm@example.org"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site of tests/test_postfix.py, with an address unreachable after
    two mails failed for good."""
    strict = base.SERVER_YAML.replace(
        "  storage:", "  limits: {unreachable_after: 2}\n  storage:", 1
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(base, "SERVER_YAML", strict)
        s = Site(tmp_path_factory.mktemp("postfix-bounces"))
    try:
        yield s
    finally:
        s.close()


def test_postfixs_reports_are_tied_to_each_mail_by_its_return_path(site):
    judge = site.judge
    sent = judge.app.store.outbox_rows(to_addr=GONE)
    assert len(sent) == 2  # the password and the start mail

    def tied():
        judge.settle()
        return judge.app.store.bounce_rows(GONE)

    wait_for(lambda: len(tied()) == len(sent), 60, "Postfix's reports to be tied")
    rows = tied()
    assert sorted(b["outbox_id"] for b in rows) == sorted(r.id for r in sent)
    assert {b["kind"] for b in rows} == {"permanent"}
    reports = {m.id: m for m in judge.app.store.mails() if m.state == "bounce"}
    for bounce in rows:
        dsn = reports[bounce["inbox_id"]]
        (outbox,) = [r for r in sent if r.id == bounce["outbox_id"]]
        assert dsn.rcpt_to == (bounces.return_path(judge.app, outbox),)  # Postfix used it
        assert dsn.mail_from in ("", "<>")
    # two failures: gone@ is no longer mailed, and the game master was told once
    assert [a for a, _ in judge.app.store.unreachable_addresses()] == [GONE]
    alert = site.delivered(GM, "unreachable")
    assert "cid of alpha is unreachable" in str(alert["Subject"])
    assert len([m for _, m in site.remote.to(GM) if b"unreachable" in m]) == 1
