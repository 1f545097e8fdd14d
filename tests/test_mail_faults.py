"""Crashes and faults: real server processes killed with SIGKILL at named
fault points, then restarted; a poison mail; storage failing."""

from __future__ import annotations

import smtplib
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.store import Store
from tests.mailharness import (
    GAMES_YAML,
    Harness,
    _copy_set_up,
    free_port,
    on_both_backends,
    wait_for,
)
from tests.serveproc import Serve as Proc
from tests.serveproc import kill_all

ANN = "ann@example.org"
ALPHA = "alpha@judge.example"


@pytest.fixture(autouse=True)
def _no_orphans():
    """A test that fails half-way (a timeout on a loaded machine) leaves no
    server running after it: its worker ends with it."""
    yield
    kill_all()


@pytest.fixture
def root(tmp_path):
    (tmp_path / "games.yaml").write_text(GAMES_YAML)
    return tmp_path


# when this module's tests set their game up: the servers they start run on
# the real clock, a few seconds or minutes later
SET_UP_AT = datetime.now(UTC).replace(microsecond=0)


def set_up(root: Path) -> None:
    """The game as a first start of `pbem serve` leaves it (seats taken, the
    passwords in the outbox), made once a test process by the real
    open_app and copied: a test whose subject is a later start needs no
    server started and stopped before it."""
    _copy_set_up(root, GAMES_YAML, SET_UP_AT)
    assert (root / "var" / "pbem.sqlite").is_file()


def store_of(root: Path) -> Store:
    return Store.at(root / "var" / "pbem.sqlite")


def password(store: Store) -> str:
    import email
    import email.policy
    import re

    row = next(r for r in store.outbox_rows("password", ANN))
    body = email.message_from_bytes(row.message, policy=email.policy.default)
    return re.search(r"PASSWORD (\S+)", body.get_body(("plain",)).get_content())[1]


def orders_mail(pw: str, tag: str) -> bytes:
    return (
        f"From: {ANN}\r\nTo: {ALPHA}\r\nSubject: {tag}\r\nMessage-ID: <{tag}@example.org>"
        f"\r\n\r\nPASSWORD {pw}\r\nSol x Alnitak\r\n"
    ).encode()


def send(port: int, raw: bytes) -> int:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as s:
        return s.sendmail(ANN, [ALPHA], raw) or 250


def receipts(store: Store) -> list:
    return [r for r in store.outbox_rows("receipt", ANN)]


@pytest.mark.parametrize("fault", ["after_commit", "before_commit"])
def test_sigkill_around_the_commit_then_resend(root, fault):
    port = free_port()
    set_up(root)
    pw = password(store_of(root))
    raw = orders_mail(pw, f"kill-{fault}")

    dying = Proc(root, port, fault)
    with pytest.raises((smtplib.SMTPServerDisconnected, ConnectionError)):
        send(port, raw)
    assert dying.wait_dead() == -9
    # committed (in the spool) exactly when the fault came after the commit
    stored = store_of(root).mail_states()
    assert stored == ({"new": 1} if fault == "after_commit" else {})

    again = Proc(root, port)
    try:
        assert send(port, raw) == 250  # the sender's MTA tries again
        store = store_of(root)
        wait_for(lambda: receipts(store), 15, "a receipt")
        time.sleep(0.5)
        mails = store.mails()
        assert [m.state for m in mails] == ["applied"]
        assert len(receipts(store)) == 1
    finally:
        again.stop()


def test_sigkill_mid_processing_reprocesses_once(root):
    port = free_port()
    set_up(root)
    pw = password(store_of(root))
    dying = Proc(root, port, "during_process")
    try:
        send(port, orders_mail(pw, "mid"))
    except smtplib.SMTPServerDisconnected:
        pass  # the worker may kill the process before QUIT is answered
    assert dying.wait_dead() == -9
    assert [m.state for m in store_of(root).mails()] == ["new"]
    again = Proc(root, port)
    try:
        store = store_of(root)
        wait_for(lambda: receipts(store), 15, "a receipt")
        assert [m.state for m in store.mails()] == ["applied"]
        assert len(receipts(store)) == 1
    finally:
        again.stop()


@on_both_backends
def test_poison_mail_is_quarantined_and_others_flow(tmp_path, storage):
    judge = Harness(tmp_path, storage=storage)
    try:
        judge.app.faults = frozenset({"poison"})
        pw = judge.password(ANN)
        judge.send(ANN, ALPHA, f"PASSWORD {pw}\nSol holds\n", subject="poison pill")
        judge.send(ANN, ALPHA, f"PASSWORD {pw}\nSol x Alnitak\n", subject="good")
        states = {m.note or m.state: m for m in judge.app.store.mails()}
        rows = judge.app.store.mails()
        assert [r.state for r in rows] == ["quarantined", "applied"]
        assert rows[0].attempts == 2 and "poison" in rows[0].error
        alert = judge.last("gm@example.org", "alert")
        assert f"Mail #{rows[0].id} from {ANN} failed 2 times" in alert
        assert f"pbem retry {rows[0].id}" in alert
        del states
        # the cause is fixed; the game master retries it
        judge.app.faults = frozenset()
        assert judge.app.store.retry_mail(rows[0].id)
        judge.server.worker.wake()
        judge.settle()
        assert [r.state for r in judge.app.store.mails()] == ["applied", "applied"]
        assert not judge.app.store.retry_mail(rows[0].id)
    finally:
        judge.close()


def test_storage_down_answers_451_then_accepts(tmp_path):
    judge = Harness(tmp_path)
    try:
        judge.app.faults = frozenset({"store_down"})
        with judge.smtp() as s:
            with pytest.raises(smtplib.SMTPDataError) as caught:
                s.sendmail(ANN, [ALPHA], b"Subject: x\r\n\r\nSol holds\r\n")
        assert caught.value.smtp_code == 451
        assert b"Temporary local problem" in caught.value.smtp_error
        assert b"fault" not in caught.value.smtp_error  # no internal text
        judge.app.faults = frozenset()
        with judge.smtp() as s:
            s.sendmail(ANN, [ALPHA], b"Subject: x\r\n\r\nSol holds\r\n")
        judge.settle()
        assert len(judge.app.store.mails()) == 1
    finally:
        judge.close()


def test_handler_bug_answers_451_without_its_text(tmp_path):
    judge = Harness(tmp_path)
    try:

        def broken(address: str):
            raise RuntimeError("secret internal detail")

        judge.app.recipient = broken  # a bug in our own code at RCPT
        with judge.smtp() as s:
            s.ehlo()
            s.mail(ANN)
            code, msg = s.rcpt(ALPHA)
        assert code == 451 and b"secret" not in msg
    finally:
        judge.close()


def _turn_record(store: Store) -> tuple[str, str, str]:
    """The resolved turn as stored: its record without timestamps, the new
    state, and how many reports were queued."""
    import json

    with store.tx(write=False) as conn:
        result = json.loads(store.turn_result(conn, "alpha", 1))
        game = store.game(conn, "alpha")
    assert game.turn == 2
    for key in ("deadline", "late"):
        result.pop(key)
    return json.dumps(result, sort_keys=True), game.state, str(len(store.outbox_rows("report")))


def test_sigkill_during_adjudication_resolves_the_turn_once_identically(root, tmp_path_factory):
    """The server dies inside the turn's transaction, after the turn and its
    reports are made and before the commit; restarted, it resolves the turn
    once, to the same result as a run that was never interrupted."""
    import shutil
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    from pbem.store.schema import games

    port = free_port()
    first = Proc(root, port)
    assert send(port, orders_mail(password(store_of(root)), "before-turn")) == 250
    wait_for(lambda: receipts(store_of(root)), 20, "the receipt")
    first.stop()
    store = store_of(root)
    with store.tx() as conn:  # the deadline has passed while the server was down
        past = datetime.now(UTC) - timedelta(minutes=1)
        conn.execute(update(games).where(games.c.name == "alpha").values(deadline=past))
    store.close()
    # the turn at once on start, with no settling time for mail held meanwhile
    yaml = root / "games.yaml"
    yaml.write_text(
        yaml.read_text().replace("  storage:", "  settle_after_outage: 0\n  storage:", 1)
    )
    # an untouched copy, for the uninterrupted run
    twin = tmp_path_factory.mktemp("twin")
    shutil.copytree(root, twin, dirs_exist_ok=True)

    dying = Proc(root, port, "during_turn")
    dying.wait_dead()
    with store_of(root).tx(write=False) as conn:
        assert store_of(root).game(conn, "alpha").turn == 1  # nothing of the turn committed
    assert not store_of(root).outbox_rows("report")

    again = Proc(root, port)
    wait_for(lambda: store_of(root).outbox_rows("report"), 30, "the turn after restart")
    again.stop()
    calm = Proc(twin, free_port())
    wait_for(lambda: store_of(twin).outbox_rows("report"), 30, "the uninterrupted turn")
    calm.stop()
    assert _turn_record(store_of(root)) == _turn_record(store_of(twin))


def test_a_real_server_process_resolves_a_deadline_when_the_scheduler_fires(root):
    """`pbem serve` as in production: the scheduler in the SMTP process wakes
    the worker process at the stored deadline, which resolves the turn and
    writes every report into the Maildir."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    from pbem.store.schema import games

    port = free_port()
    set_up(root)
    store = store_of(root)
    # far enough ahead that the server is surely up (and the turn not run)
    # first, even on a busy machine
    soon = datetime.now(UTC) + timedelta(seconds=6)
    with store.tx() as conn:
        conn.execute(update(games).where(games.c.name == "alpha").values(deadline=soon))
    store.close()
    # a server slower to start than that (a loaded machine) would find the
    # deadline passed before it took mail and wait the settling time for
    # mail an MTA held: this test is about the scheduler, not that wait
    yaml = root / "games.yaml"
    yaml.write_text(
        yaml.read_text().replace("  storage:", "  settle_after_outage: 0\n  storage:", 1)
    )
    server = Proc(root, port)
    try:
        with store_of(root).tx(write=False) as conn:
            assert store_of(root).game(conn, "alpha").turn == 1  # not yet
        wait_for(lambda: store_of(root).outbox_rows("report"), 30, "the turn at its deadline")
        with store_of(root).tx(write=False) as conn:
            game = store_of(root).game(conn, "alpha")
        assert game.turn == 2 and game.deadline > soon
        maildir = root / "var" / "mail" / "new"
        wait_for(
            lambda: (
                maildir.is_dir()  # made by the first delivery, a moment after the queue
                and sum(b"results" in p.read_bytes() for p in maildir.iterdir()) >= 4
            ),
            30,
            "the reports in the Maildir",
        )
    finally:
        server.stop()
