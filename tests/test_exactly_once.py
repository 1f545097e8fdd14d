"""Exactly once: claims with a lease, finishing under the claim, one worker
per store, a worker that dies with its server, and duplicates recognised
across the whole history (not only while the spool remembers)."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from pbem.serving.lease import process_gone
from pbem.store import ClaimLost, Store
from pbem.store.schema import spool
from tests.mailharness import GAMES_YAML, wait_for
from tests.test_mail_faults import ALPHA, ANN, Proc, free_port, orders_mail, password, store_of

AT = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def _mail(n: int) -> dict:
    return {
        "received_at": AT,
        "mail_from": ANN,
        "rcpt_to": [ALPHA],
        "raw": f"Subject: {n}\r\n\r\nhello\r\n".encode(),
        "sha256": f"{n:064x}",
        "message_id": None,
    }


def test_a_claimed_mail_is_finished_only_by_its_claimant(store):
    store.store_mails([_mail(1), _mail(2)])
    now = time.time()
    mine, _ = store.take_mail("A", 10, 60, now, AT, 5)
    assert [r.id for r in mine] == [1, 2]
    theirs, _ = store.take_mail("B", 10, 60, now + 1, AT, 5)
    assert theirs == []  # A's claims are live
    # A stalls past its lease: B claims both
    theirs, _ = store.take_mail("B", 10, 60, now + 61, AT, 5)
    assert [r.id for r in theirs] == [1, 2]
    with store.tx() as conn, pytest.raises(ClaimLost):
        store.finish_mail(conn, 1, "applied", None, AT, "A")  # A is too late
    with store.tx() as conn:
        store.finish_mail(conn, 1, "applied", None, AT, "B")
    with store.tx() as conn, pytest.raises(ClaimLost):
        store.finish_mail(conn, 1, "applied", None, AT, "B")  # never twice
    assert [m.state for m in store.mails()] == ["applied", "new"]


def test_a_mail_whose_worker_keeps_dying_is_quarantined(store):
    store.store_mails([_mail(1)])
    now = time.time()
    for n in range(5):  # each worker claims it and dies before finishing
        claimed, _ = store.take_mail(f"W{n}", 10, 60, now + 100 * n, AT, 5)
        assert [r.id for r in claimed] == [1]
        # a worker that failed and claims again does not count again
        claimed, _ = store.take_mail(f"W{n}", 10, 60, now + 100 * n + 1, AT, 5)
        assert [r.claims for r in claimed] == [n + 1]
    claimed, tired = store.take_mail("W5", 10, 60, now + 600, AT, 5)
    assert claimed == [] and [r.id for r in tired] == [1]
    (row,) = store.mails()
    assert row.state == "quarantined" and "stopped the worker 5 times" in row.error


def _spooled(store: Store) -> int:
    with store.spool.tx(write=False) as conn:
        return conn.execute(select(func.count()).select_from(spool)).scalar_one()


def test_same_bytes_after_the_spool_forgot_them_are_a_duplicate(judge):
    """An MTA retrying after a lost 250, two days later: the spool has
    forgotten the bytes, the inbox has not. Recorded as a duplicate, never
    processed again, and mail after it flows."""
    pw = judge.password(ANN)
    first = orders_mail(pw, "first")
    assert judge.send_raw(first, ANN)[0] == 250
    assert judge.send_raw(orders_mail(pw, "second"), ANN)[0] == 250
    assert _spooled(judge.app.store) == 2
    judge.advance(days=2)  # the turns of those days run
    judge.worker.wake()  # idle, it prunes the spool (the newest copy stays)
    wait_for(lambda: _spooled(judge.app.store) == 1, 10, "the spool pruned")
    assert judge.send_raw(first, ANN)[0] == 250
    assert judge.send_raw(orders_mail(pw, "third"), ANN)[0] == 250
    rows = judge.app.store.mails()
    assert [(r.id, r.state) for r in rows] == [
        (1, "applied"),
        (2, "applied"),
        (3, "duplicate"),
        (4, "refused"),  # processed: Sol already took Alnitak on turn 1
    ]
    assert "Your mail was received as #4" in judge.last(ANN)
    assert rows[2].note == "same bytes as mail #1"
    receipts = [m["In-Reply-To"] for m in judge.outbox("receipt", ANN)]
    assert receipts.count("<first@example.org>") == 1
    assert "<third@example.org>" in receipts


def _in_spool(store: Store, raw: bytes) -> bool:
    with store.spool.tx(write=False) as conn:
        found = select(spool.c.id).where(spool.c.sha256 == hashlib.sha256(raw).hexdigest())
        return conn.execute(found).first() is not None


def test_a_resent_mail_is_processed_once(judge_both):
    """The same bytes again, at once and after two days (an MTA that lost
    the 250): answered 250 each time, processed and answered once; a copy
    the store keeps is recorded as a duplicate of the first."""
    judge = judge_both
    pw = judge.password(ANN)
    first, second = orders_mail(pw, "first"), orders_mail(pw, "second")
    for raw in (first, first, second):
        assert judge.send_raw(raw, ANN)[0] == 250
    judge.advance(days=2)
    judge.worker.wake()  # idle, it prunes what the spool keeps
    wait_for(lambda: not _in_spool(judge.app.store, first), 10, "the spool to forget")
    for raw in (first, orders_mail(pw, "third")):
        assert judge.send_raw(raw, ANN)[0] == 250
    rows = judge.app.store.mails()
    copies = [r for r in rows if r.raw == first]
    assert copies[0] == rows[0] and copies[0].state == "applied"
    assert len(copies) >= 2  # the store forgot the bytes at least once: kept as a copy
    assert all(r.state == "duplicate" for r in copies[1:])
    assert all(r.note == f"same bytes as mail #{rows[0].id}" for r in copies[1:])
    assert [r.state for r in rows if r.raw not in (first, second)] == ["refused"]
    receipts = [m["In-Reply-To"] for m in judge.outbox("receipt", ANN)]
    assert [receipts.count(f"<{n}@example.org>") for n in ("first", "second", "third")] == [1] * 3


def _worker_of(proc: Proc, root) -> int:
    """The pid of the server's worker process, as its lease names it."""

    def holder() -> int | None:
        lease = store_of(root).lease_of("worker")
        if lease is None:
            return None
        try:
            with open(f"/proc/{lease.pid}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:  # a worker killed before: its lease not yet taken over
            return None
        return lease.pid if parent == proc.proc.pid else None

    return wait_for(holder, 30, "the worker process")  # spawned: slow on a busy host


WIDE = GAMES_YAML.replace("idle_timeout: 5}", "idle_timeout: 5, replies_per_day: 100000}")


@pytest.fixture
def root(tmp_path):
    (tmp_path / "games.yaml").write_text(WIDE)
    return tmp_path


@pytest.mark.serial
def test_the_worker_dies_within_a_second_of_its_server(root):
    server = Proc(root, free_port())
    worker = _worker_of(server, root)
    os.kill(server.proc.pid, signal.SIGKILL)
    server.wait_dead()
    started = time.monotonic()
    wait_for(lambda: process_gone(worker, socket.gethostname()), 5, "the orphan worker to end")
    assert time.monotonic() - started < 2.0  # within a second, and a margin for a busy host


def test_a_second_server_waits_for_the_live_worker_and_says_which(root):
    first = Proc(root, free_port())
    second = None
    try:
        pw = password(store_of(root))
        worker = _worker_of(first, root)
        second_port = free_port()
        second = Proc(root, second_port)
        wait_for(lambda: f"process {worker} on" in second.output(), 10, "the holder named")
        # mail accepted by the second server is processed once, by the first's worker
        from tests.test_mail_faults import send

        assert send(second_port, orders_mail(pw, "to-second")) == 250
        wait_for(lambda: store_of(root).outbox_rows("receipt", ANN), 15, "a receipt")
        # the first server dies: the second's worker takes over at once
        os.kill(first.proc.pid, signal.SIGKILL)
        first.wait_dead()
        wait_for(lambda: "free again" in second.output(), 10, "the takeover")
        assert send(second_port, orders_mail(pw, "after")) == 250
        wait_for(lambda: len(store_of(root).outbox_rows("receipt", ANN)) == 2, 15, "receipt 2")
        states = [m.state for m in store_of(root).mails()]
        assert states == ["applied", "applied"]
        lease = store_of(root).lease_of("worker")
        assert lease is not None and lease.pid == _worker_of(second, root)
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_a_lapsed_or_dead_holder_is_taken_over(store):
    host = socket.gethostname()
    now = time.time()
    assert store.take_lease("worker", "A", 1, host, now, 10, lambda p, h: False) is None
    held = store.take_lease("worker", "B", 2, host, now + 1, 10, lambda p, h: False)
    assert held is not None and held.holder == "A" and held.pid == 1
    assert store.take_lease("worker", "B", 2, host, now + 1, 10, lambda p, h: p == 1) is None
    assert store.take_lease("worker", "A", 1, host, now + 2, 10, lambda p, h: False) is not None
    assert store.take_lease("worker", "C", 3, host, now + 12, 10, lambda p, h: False) is None
