"""Outbound mail through a relay: an aiosmtpd fake relay that answers the
codes a test chooses."""

from __future__ import annotations

import pytest
from aiosmtpd.controller import Controller

from pbem.lifecycle.opening import open_app
from pbem.mail.outbox import Sender
from pbem.turns.clock import FakeClock
from tests.mailharness import GAMES_YAML, free_port


class Relay:
    """Answers DATA with the next code in ``codes`` (then 250)."""

    def __init__(self) -> None:
        self.codes: list[str] = []
        self.received: list[bytes] = []

    async def handle_DATA(self, server, session, envelope):
        if self.codes:
            return self.codes.pop(0)
        self.received.append(envelope.original_content)
        return "250 OK"


@pytest.fixture
def relay():
    handler = Relay()
    handler.port = closed_port()
    controller = Controller(handler, hostname="127.0.0.1", port=handler.port)
    controller.start()
    try:
        yield handler
    finally:
        controller.stop()


def closed_port() -> int:
    return free_port()  # outside the ports a bind to port 0 hands out


def app_with_relay(tmp_path, port: int):
    text = GAMES_YAML.replace(
        "outbound: {from: judge@judge.example, maildir: var/mail}",
        f"outbound: {{from: judge@judge.example, host: 127.0.0.1, port: {port}}}",
    )
    (tmp_path / "games.yaml").write_text(text)
    clock = FakeClock()
    return open_app(tmp_path / "games.yaml", clock=clock), clock


def text(row) -> str:
    import email
    import email.policy

    msg = email.message_from_bytes(row.message, policy=email.policy.default)
    return msg.get_body(("plain",)).get_content()


def statuses(app, kind="password"):
    return [r.status for r in app.store.outbox_rows(kind)]


def test_relay_delivers_everything_once(tmp_path, relay):
    app, _ = app_with_relay(tmp_path, relay.port)
    assert Sender(app).run_due() == 10  # a password mail and a start mail a player
    assert statuses(app) == ["sent"] * 5
    assert len(relay.received) == 10
    assert Sender(app).run_due() == 0
    assert b"Auto-Submitted: auto-generated" in relay.received[0]
    assert b"Message-ID: <" in relay.received[0]


def test_each_mail_sent_has_a_log_line_with_the_relays_queue_id(tmp_path, relay, caplog):
    """One line a mail handed to the relay: its outbox number, kind and
    address, and the relay's answer (the queue ID its own log knows it by)."""
    import logging

    caplog.set_level(logging.INFO, logger="pbem.outbox")
    relay.codes = ["250 2.0.0 Ok: queued as 4Xy2Kq2B1mz9t"]
    app, _ = app_with_relay(tmp_path, relay.port)
    assert Sender(app).run_due() == 10
    sent = [r.getMessage() for r in caplog.records if r.getMessage().startswith("sent #")]
    assert len(sent) == 10, sent
    assert sent[0] == (
        "sent #1 (password) to ann@example.org: relay answered 250 2.0.0 Ok: queued as "
        "4Xy2Kq2B1mz9t"
    ), sent


def test_451_is_retried_with_backoff(tmp_path, relay):
    app, clock = app_with_relay(tmp_path, relay.port)
    relay.codes = ["451 4.3.0 try later", "451 4.3.0 try later"]
    sender = Sender(app)
    sender.run_due()
    rows = app.store.outbox_rows("password")
    assert [r.status for r in rows].count("sent") == 3
    waiting = [r for r in rows if r.status == "pending"]
    assert [r.attempts for r in waiting] == [1, 1]
    assert all((r.next_attempt_at - clock.now()).total_seconds() == 30 for r in waiting)
    assert sender.run_due() == 0  # not due yet
    clock.advance(seconds=31)
    assert sender.run_due() == 2
    assert statuses(app) == ["sent"] * 5
    assert len(relay.received) == 10


def test_relay_unreachable_for_an_hour(tmp_path):
    port = closed_port()
    app, clock = app_with_relay(tmp_path, port)
    sender = Sender(app)
    waits = []
    for _ in range(8):
        sender.run_due()
        row = app.store.outbox_rows("password")[0]
        waits.append(round((row.next_attempt_at - clock.now()).total_seconds()))
        clock.set(row.next_attempt_at)
    assert waits == [30, 60, 120, 240, 480, 960, 1920, 3600]  # doubling, at most an hour
    assert statuses(app) == ["pending"] * 5
    # the relay comes back: the queue drains, each mail once
    handler = Relay()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        sender.run_due()
        assert statuses(app) == ["sent"] * 5 and len(handler.received) == 10
    finally:
        controller.stop()


def test_550_fails_at_once_and_tells_the_game_master(tmp_path, relay):
    app, _ = app_with_relay(tmp_path, relay.port)
    relay.codes = ["550 5.1.1 no such user"]
    Sender(app).run_due()
    rows = app.store.outbox_rows("password")
    failed = [r for r in rows if r.status == "failed"]
    assert len(failed) == 1 and "550" in failed[0].last_error
    alerts = app.store.outbox_rows("alert")
    assert len(alerts) == 1 and alerts[0].to_addr == "gm@example.org"
    assert "to ann@example.org is refused. The relay refused it for good" in text(alerts[0])
    assert "550 5.1.1 no such user" in text(alerts[0])


def test_dead_letter_after_five_days(tmp_path):
    app, clock = app_with_relay(tmp_path, closed_port())
    sender = Sender(app)
    sender.run_due()
    clock.advance(days=5, seconds=1)
    sender.run_due()
    assert statuses(app) == ["dead"] * 5
    alerts = app.store.outbox_rows("alert")
    assert {a.to_addr for a in alerts} == {"gm@example.org"}
    assert all("could not be delivered in 5 days" in text(a) for a in alerts)
