"""On time is on time through a real Postfix: pbem is down across a
deadline, a player's orders wait in Postfix's queue from before it, pbem
starts again, the turn waits its settling time, the queue is flushed
(`postqueue -f`, as docs/deploy.md tells operators) and the orders count
for the turn by the time Postfix received them (its Received header)."""

from __future__ import annotations

import smtplib
import time
from datetime import UTC, datetime, timedelta

import pytest

from pbem.store import Store
from tests.mailharness import Harness, wait_for
from tests.test_postfix import Site

RELAY = "mx.judge.example"  # Postfix's myhostname: the Received header's "by"


@pytest.fixture
def site(tmp_path):
    s = Site(tmp_path, f"  trusted_relay: {{authserv_id: {RELAY}, addresses: [127.0.0.1]}}\n")
    try:
        yield s
    finally:
        s.close()


def test_orders_postfix_held_across_the_deadline_count_for_it(site):
    password = (
        site.delivered("ann@example.org", "password")
        .get_body(("plain",))
        .get_content()
        .split("PASSWORD ")[1]
        .split()[0]
    )
    site.judge.close()  # pbem is down (an upgrade, its database gone)
    with smtplib.SMTP("127.0.0.1", site.postfix.port, timeout=10) as s:
        s.sendmail(
            "ann@example.org",
            ["alpha@judge.example"],
            (
                # the relay's verdict, as its DKIM milter would add it
                f"Authentication-Results: {RELAY}; dkim=pass header.d=example.org\r\n"
                "From: Ann <ann@example.org>\r\nTo: alpha@judge.example\r\n"
                "Subject: orders\r\nMessage-ID: <held-1@example.org>\r\n\r\n"
                f"PASSWORD {password}\r\nSol attacks Alnitak\r\n"
            ).encode(),
        )
    sent = datetime.now(UTC)
    wait_for(lambda: site.postfix.queued("ann@example.org") == 1, 20, "Postfix to hold the mail")
    # the turn's deadline: two seconds after Postfix took the mail
    deadline = sent.replace(microsecond=0) + timedelta(seconds=2)
    store = Store.at(site.root / "var" / "pbem.sqlite")
    try:
        with store.tx() as conn:
            store.set_game(conn, "alpha", deadline=deadline)
    finally:
        store.close()
    time.sleep(max(0.0, (deadline - datetime.now(UTC)).total_seconds()) + 1.0)
    judge = site.judge = Harness(site.root, site.yaml, start=datetime.now(UTC))
    assert judge.game().turn == 1, "the deadline passed while pbem was down: the turn waits"
    site.postfix.flush_until_delivered("ann@example.org")
    judge.settle()
    (row,) = [m for m in judge.app.store.mails() if m.mail_from == "ann@example.org"]
    assert row.received_at > deadline and row.state == "applied"
    receipt = site.delivered("ann@example.org", "orders").get_body(("plain",)).get_content()
    assert "+ Sol attacks Alnitak" in receipt
    assert f"reached our mail relay ({RELAY})" in receipt
    assert "so it counts for tick 1" in receipt
    judge.advance(minutes=5, seconds=1)  # the settling time over
    assert judge.game().turn == 2
    report = site.delivered("ann@example.org", "tick 1").get_body(("plain",)).get_content()
    assert "Sol attacks Alnitak" in report
