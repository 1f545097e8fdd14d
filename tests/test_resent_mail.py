"""A mail sent again (an MTA whose 250 was lost) in the same batch as new
mail, and mail that cannot be moved into the inbox: the new mail is
processed, the copy recorded as a duplicate, a mail that fails alone is
quarantined with why, and the worker goes on. A failure that repeats is
said once, to the log and to the game masters, and tried again less
often."""

from __future__ import annotations

import email
import email.policy
import logging
import os
import signal
import time
from datetime import UTC, datetime, timedelta

import pytest

from pbem.store import Store
from tests.mailharness import GAMES_YAML, Harness, on_both_backends, wait_for
from tests.serveproc import Serve as Proc
from tests.serveproc import kill_all
from tests.test_exactly_once import _worker_of
from tests.test_mail_faults import ALPHA, ANN, orders_mail, password, send, set_up, store_of

GM = "gm@example.org"


@pytest.fixture(autouse=True)
def _no_orphans():
    yield
    kill_all()


def replied_to(store: Store) -> list[str]:
    """The Message-IDs the receipts to ann answer, in order."""
    out = []
    for row in store.outbox_rows("receipt", ANN):
        m = email.message_from_bytes(row.message, policy=email.policy.default)
        out.append(str(m["In-Reply-To"]))
    return out


def _forget(store: Store) -> None:
    """A day on: the spool forgets what the inbox holds (prune_spool, as
    the idle worker does; the newest spooled copy stays)."""
    store.prune_spool(datetime.now(UTC) + timedelta(days=1))


class Paused:
    """The server's worker process stopped (SIGSTOP) while mail arrives,
    then let go (SIGCONT): what arrived meanwhile is one batch."""

    def __init__(self, worker: int) -> None:
        self.worker = worker

    def __enter__(self) -> None:
        os.kill(self.worker, signal.SIGSTOP)

    def __exit__(self, *exc: object) -> None:
        os.kill(self.worker, signal.SIGCONT)


def test_a_copy_moved_in_one_batch_with_new_mail_stops_nothing(tmp_path):
    """The same bytes again, after the spool forgot them, arriving with new
    mail while the worker is busy: the copy first, then (the other way
    round) after the new mail. The new mail gets its receipt, each copy is
    recorded a duplicate of the first with its note, and mail sent later
    is processed too."""
    root = tmp_path
    (root / "games.yaml").write_text(GAMES_YAML)
    set_up(root)
    store = store_of(root)
    pw = password(store)
    mails = {tag: orders_mail(pw, tag) for tag in ("a", "b", "c", "d", "e")}
    server = Proc(root)
    worker = _worker_of(server, root)
    for tag in ("a", "b"):
        assert send(server.port, mails[tag]) == 250
    wait_for(lambda: len(replied_to(store)) == 2, 30, "receipts to a and b")
    _forget(store)  # a is forgotten; b, the newest, stays
    with Paused(worker):
        assert send(server.port, mails["a"]) == 250  # the copy first
        assert send(server.port, mails["c"]) == 250
    wait_for(lambda: "<c@example.org>" in replied_to(store), 30, "a receipt to c")
    _forget(store)  # b is forgotten now
    with Paused(worker):
        assert send(server.port, mails["d"]) == 250
        assert send(server.port, mails["b"]) == 250  # the copy after
    wait_for(lambda: "<d@example.org>" in replied_to(store), 30, "a receipt to d")
    assert send(server.port, mails["e"]) == 250
    wait_for(lambda: "<e@example.org>" in replied_to(store), 30, "a receipt to e")
    rows = {r.id: r for r in store.mails()}
    assert [(r.id, r.state) for r in rows.values() if r.state == "duplicate"] == [
        (3, "duplicate"),
        (6, "duplicate"),
    ]
    assert rows[3].raw == mails["a"] and rows[3].note == "same bytes as mail #1"
    assert rows[6].raw == mails["b"] and rows[6].note == "same bytes as mail #2"
    assert rows[3].processed_at is not None and rows[6].processed_at is not None
    assert sorted(replied_to(store)) == [f"<{t}@example.org>" for t in "abcde"]
    assert "the mail worker failed" not in server.output()
    store.close()


def _spooled(n: int, raw: bytes | None = None) -> dict:
    import hashlib

    raw = raw or f"Subject: {n}\r\n\r\nhello\r\n".encode()
    return {
        "received_at": datetime(2026, 11, 21, 12, 0, tzinfo=UTC),
        "mail_from": ANN,
        "rcpt_to": [ALPHA],
        "raw": raw,
        "sha256": hashlib.sha256(raw).hexdigest(),
        "message_id": None,
    }


def _finish_all(store: Store, holder: str = "w") -> None:
    at = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    claimed, _ = store.take_mail(holder, 100, 60, time.time(), at, 5)
    with store.tx() as conn:
        for row in claimed:
            store.finish_mail(conn, row.id, "applied", None, at, holder)


@pytest.mark.parametrize("order", ["copy first", "copy last"])
def test_a_batch_of_copies_and_new_mail_moves_whole(store, order):
    """On both backends: copies of finished mail moved in one batch with
    new mail, either way round, each recorded a duplicate with its note
    and time; the new mail claimed."""
    store.store_mails([_spooled(1), _spooled(2)])
    _finish_all(store)
    _forget(store)  # SQLite: the spool keeps only mail 2; PostgreSQL's spool is empty
    copies = [_spooled(1)] + ([_spooled(2)] if store.shared else [])
    batch = copies + [_spooled(3)] if order == "copy first" else [_spooled(3)] + copies
    store.store_mails(batch)
    at = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    claimed, quarantined = store.take_mail("w", 100, 60, time.time(), at, 5)
    assert quarantined == []
    assert [store.mail(None, r.id).raw for r in claimed] == [_spooled(3)["raw"]]
    duplicates = store.mails("duplicate")
    assert len(duplicates) == len(copies)
    for row in duplicates:
        first = 1 if row.raw == _spooled(1)["raw"] else 2
        assert row.note == f"same bytes as mail #{first}" and row.processed_at == at


def test_a_mail_that_cannot_move_is_quarantined_and_the_rest_move(store):
    """A mail the inbox will not take (here the fault point refuses it):
    quarantined there with why, under its number, and the mails before
    and after it move on, in the same transaction as (on PostgreSQL)
    their leaving the spool."""
    from pbem.store import StoreError

    def vet(row):
        if b"bad" in bytes(row.raw):
            raise StoreError("this one will not go in")

    bad = b"Subject: bad\r\n\r\nx\r\n"
    store.store_mails([_spooled(1), _spooled(2, bad), _spooled(3)])
    at = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    claimed, quarantined = store.take_mail("w", 100, 60, time.time(), at, 5, vet)
    assert [r.raw for r in quarantined] == [bad]
    (row,) = quarantined
    assert row.state == "quarantined" and row.processed_at == at
    assert "moving it into the inbox failed: StoreError: this one will not go in" in row.error
    assert [r.id for r in claimed] == sorted(r.id for r in claimed) and len(claimed) == 2
    assert store.mail_states() == {"new": 2, "quarantined": 1}
    # retried, it moves no more: it is in the inbox already, and processed
    assert store.retry_mail(row.id)
    claimed, quarantined = store.take_mail("w", 100, 60, time.time(), at, 5, vet)
    assert quarantined == [] and row.id in [r.id for r in claimed]


def _lines(caplog, text: str) -> int:
    return sum(text in r.getMessage() for r in caplog.records)


@on_both_backends
def test_a_mail_that_never_moves_is_quarantined_once_and_said_once(tmp_path, storage, caplog):
    """The fault point makes one mail fail to move into the inbox every
    time: it is quarantined with why, the log says so once, the game
    master gets one alert with its number, and the others are processed."""
    caplog.set_level(logging.INFO)
    judge = Harness(tmp_path, storage=storage)
    try:
        judge.app.faults = frozenset({"poison_move"})
        pw = judge.password(ANN)
        judge.send(ANN, ALPHA, f"PASSWORD {pw}\nSol holds\n", subject="poison pill")
        judge.send(ANN, ALPHA, f"PASSWORD {pw}\nSol x Alnitak\n", subject="good")
        for _ in range(3):  # wake-ups after it: nothing more is said
            judge.worker.wake()
            judge.settle()
        rows = judge.app.store.mails()
        assert [r.state for r in rows] == ["quarantined", "applied"]
        bad = rows[0].id
        assert "moving it into the inbox failed" in rows[0].error
        assert "fault injected" in rows[0].error
        assert _lines(caplog, f"mail #{bad} could not be moved into the inbox") == 1
        assert _lines(caplog, f"mail #{bad}") == 1  # that line, and no loop of failures
        assert _lines(caplog, "pbem-work failed") == 0
        alerts = [judge.text(m) for m in judge.outbox("alert", GM)]
        about = [a for a in alerts if f"Mail #{bad} " in a]
        assert len(about) == 1 and f"pbem retry {bad}" in about[0]
        # the cause is fixed; the game master retries it
        judge.app.faults = frozenset()
        assert judge.app.store.retry_mail(bad)
        judge.worker.wake()
        judge.settle()
        assert [r.state for r in judge.app.store.mails()] == ["applied", "applied"]
    finally:
        judge.close()


def test_a_mail_whose_processing_always_fails_is_said_once_not_in_a_loop(tmp_path, caplog):
    """A mail that makes its processing fail every time (the fault point):
    each attempt logged once, its quarantine once, one alert to the game
    master with its number; wake-ups after it say nothing more, and mail
    after it is processed."""
    caplog.set_level(logging.INFO)
    judge = Harness(tmp_path)
    try:
        judge.app.faults = frozenset({"poison"})
        pw = judge.password(ANN)
        judge.send(ANN, ALPHA, f"PASSWORD {pw}\nSol holds\n", subject="poison pill")
        for _ in range(3):
            judge.worker.wake()
            judge.settle()
        judge.send(ANN, ALPHA, f"PASSWORD {pw}\nSol x Alnitak\n", subject="good")
        rows = judge.app.store.mails()
        assert [r.state for r in rows] == ["quarantined", "applied"]
        bad = rows[0].id
        assert _lines(caplog, f"mail #{bad} failed: RuntimeError: fault injected") == 2
        assert _lines(caplog, f"mail #{bad} failed 2 times and is quarantined") == 1
        assert _lines(caplog, "pbem-work failed") == 0  # the worker itself never failed
        alerts = [judge.text(m) for m in judge.outbox("alert", GM)]
        assert sum(f"Mail #{bad} " in a for a in alerts) == 1
    finally:
        judge.close()


def test_a_worker_that_keeps_failing_says_so_once_and_backs_off(tmp_path, caplog):
    """The worker fails every time (the fault point): the first failure
    is logged, the third says it once more, with what to do, and the game
    masters are told once; then it tries less often, saying nothing, and
    when the cause is gone it says once that it works again. The mail
    waiting meanwhile is processed."""
    caplog.set_level(logging.INFO)
    judge = Harness(tmp_path)
    try:
        trouble = judge.worker.worker.trouble
        trouble.backoff = (0.5, 1.0)  # backing off as the server does, in shorter steps
        pw = judge.password(ANN)
        judge.app.faults = frozenset({"worker_fails"})
        with judge.smtp() as s:
            s.sendmail(ANN, [ALPHA], orders_mail(pw, "waiting"))
        while trouble.failures < trouble.report_after:
            judge.worker.wake()
            time.sleep(0.01)
        wait_for(lambda: trouble.failures >= trouble.report_after + 1, 30, "one try after")
        assert _lines(caplog, "pbem-work failed") == 2
        assert _lines(caplog, "pbem-work failed 3 times in a row") == 1
        alerts = [judge.text(m) for m in judge.outbox("alert", GM)]
        assert sum("failed 3 times in a row" in a for a in alerts) == 1
        assert "pbem inbox" in alerts[-1]
        judge.app.faults = frozenset()
        wait_for(lambda: "<waiting@example.org>" in replied_to(judge.app.store), 60, "a receipt")
        wait_for(lambda: _lines(caplog, "pbem-work works again"), 10, "the recovery said")
        judge.settle()
        assert _lines(caplog, "pbem-work works again") == 1
        assert _lines(caplog, "pbem-work failed") == 2
    finally:
        judge.close()


def test_a_server_whose_worker_keeps_failing_says_so_once(tmp_path):
    """The same in a real `pbem serve`, its worker a process of its own:
    the failure logged once, then once more when it has lasted (with the
    game masters told once); not a line a second."""
    root = tmp_path
    (root / "games.yaml").write_text(GAMES_YAML)
    set_up(root)
    store = store_of(root)
    server = Proc(root, fault="worker_fails")
    assert send(server.port, orders_mail(password(store), "waiting")) == 250

    def alerts() -> list[str]:
        return [
            email.message_from_bytes(r.message, policy=email.policy.default)["Subject"]
            for r in store.outbox_rows("alert", GM)
        ]

    wait_for(lambda: any("failing" in a for a in alerts()), 60, "the game master told")
    out = server.output()
    assert out.count("the mail worker failed; trying again shortly") == 1, out
    assert out.count("the mail worker failed 3 times in a row") == 1, out
    assert sum("failing" in a for a in alerts()) == 1
    assert store.mail_states() == {"new": 1}  # kept, for when the cause is gone
    server.stop()
    store.close()


def test_a_mail_that_cannot_even_be_quarantined_stays_in_the_spool(store):
    """On PostgreSQL moving takes mail out of the spool in the same
    transaction: a mail the inbox takes neither as it is nor quarantined
    (here its number is taken already) rolls that transaction back whole,
    and the spool still holds it."""
    from pbem.store import MailStuck
    from pbem.store.schema import inbox, spool

    if not store.shared:
        pytest.skip("on SQLite the spool is only read as mail moves")
    store.store_mails([_spooled(1)])
    with store.tx() as conn:  # the number taken already: a broken inbox
        conn.execute(
            inbox.insert(), [{**_spooled(9), "id": 1, "state": "applied", "rcpt_to": "[]"}]
        )
    at = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    with pytest.raises(MailStuck) as stuck:
        store.take_mail("w", 100, 60, time.time(), at, 5)
    assert stuck.value.mail == 1 and "quarantining it failed too" in str(stuck.value)
    with store.tx(write=False) as conn:
        assert conn.execute(spool.select()).all() != []  # kept, to be tried again


def test_a_failure_naming_a_mail_is_told_with_its_number(tmp_path, caplog):
    """What the worker's loop says of a failure about one mail: the third
    in a row names the mail and what to do, once, and the game masters get
    one alert with its number."""
    from pbem.lifecycle.opening import open_app
    from pbem.serving.trouble import Trouble
    from pbem.store import MailStuck
    from pbem.turns.clock import FakeClock

    caplog.set_level(logging.INFO)
    (tmp_path / "games.yaml").write_text(GAMES_YAML)
    app = open_app(tmp_path / "games.yaml", clock=FakeClock())
    try:
        trouble = Trouble(app, "the mail worker")
        waits = [trouble.failed(MailStuck(7, "storage refused it")) for _ in range(6)]
        assert waits[:2] == [0.0, 0.0] and waits[2:] == sorted(waits[2:]) and waits[2] > 0
        assert _lines(caplog, "the mail worker failed on mail #7; trying again") == 1
        (said,) = [r.getMessage() for r in caplog.records if "3 times in a row" in r.getMessage()]
        assert "on mail #7" in said and "pbem retry 7" in said
        alerts = [
            email.message_from_bytes(r.message, policy=email.policy.default)
            .get_body(("plain",))
            .get_content()
            for r in app.store.outbox_rows("alert", GM)
        ]
        assert len(alerts) == 1 and "mail #7" in alerts[0] and "pbem retry 7" in alerts[0]
        trouble.worked()
        trouble.worked()
        assert _lines(caplog, "works again, after 6 failures in a row") == 1
        assert len([r for r in caplog.records if r.name == "pbem.server"]) == 3
    finally:
        app.store.close()
