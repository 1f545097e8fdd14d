"""The budget of one mail in a real `pbem serve` process, whose worker
bounds a mail's reading with a CPU timer as well: a flood of commands, a
From: of a megabyte of quotes and a mail of many slow parts, each followed
by a player's order whose receipt is in the outbox within a second."""

from __future__ import annotations

import email.utils
import smtplib
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.store import Store
from tests.mailharness import _copy_set_up, wait_for
from tests.serveproc import Serve, kill_all
from tests.test_mail_budget import ALPHA, BOB, SERVER, STRANGER, YAML, _hostile, _many_parts

SET_UP_AT = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture(autouse=True)
def _no_orphans():
    yield
    kill_all()


def _password(store: Store, to: str) -> str:
    row = next(r for r in store.outbox_rows("password", to))
    text = email.message_from_bytes(row.message, policy=email.policy.default)
    return text.get_body(("plain",)).get_content().split("PASSWORD ", 1)[1].split()[0]


def _raw(sender: str, to: str, body: str) -> bytes:
    mid = email.utils.make_msgid(domain="example.org")
    head = f"From: {sender}\r\nTo: {to}\r\nSubject: orders\r\nMessage-ID: {mid}\r\n\r\n"
    return (head + body.replace("\n", "\r\n")).encode()


@pytest.mark.serial
def test_a_real_server_answers_the_next_mail_within_a_second(tmp_path: Path):
    (tmp_path / "games.yaml").write_text(YAML)
    _copy_set_up(tmp_path, YAML, SET_UP_AT)
    store = Store.at(tmp_path / "var" / "pbem.sqlite")
    server = Serve(tmp_path)
    try:
        order = f"PASSWORD {_password(store, BOB)}\nVega holds\n"
        heavy = {
            "LIST flood": _raw(STRANGER, SERVER, "".join(f"LIST {i}\n" for i in range(1000))),
            "HELP flood": _raw(STRANGER, ALPHA, "HELP\n" * 1000),
            "From of quotes": _hostile("From", '"', 990_000),
            "slow parts": _many_parts(490),
        }

        def receipts() -> int:
            return len(store.outbox_rows("receipt", BOB))

        with smtplib.SMTP("127.0.0.1", server.port, timeout=30) as s:  # warm: a first order
            s.sendmail(BOB, [ALPHA], _raw(BOB, ALPHA, order))
        wait_for(lambda: receipts() == 1, 60, "the first receipt")
        for what, raw in heavy.items():
            before = receipts()
            with smtplib.SMTP("127.0.0.1", server.port, timeout=30) as s:
                s.sendmail(STRANGER, [ALPHA], raw)
                started = time.monotonic()
                s.sendmail(BOB, [ALPHA], _raw(BOB, ALPHA, order))
            wait_for(lambda: receipts() > before, 60, what)  # noqa: B023 (waited for at once)
            took = time.monotonic() - started
            assert took < 1.0, f"after the {what}, bob's receipt took {took:.2f} s"
        states = store.mail_states()
        assert set(states) <= {"applied", "answered", "refused"}, states
    finally:
        server.stop()
        store.close()
