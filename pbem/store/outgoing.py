"""Outgoing mail: the outbox the sender drains, the daily count of replies
to each address, replies held by that cap and the digests that send them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update

from pbem.store.database import NONE, Database, Hot
from pbem.store.rows import ClaimLost, OutboxRow, StoreError
from pbem.store.schema import outbox, reply_counts

_P = bindparam
OUTBOX_ADD = Hot(
    outbox.insert(),
    columns=(
        "created_at",
        "kind",
        "to_addr",
        "message_id",
        "message",
        "status",
        "attempts",
        "next_attempt_at",
        "inbox_id",
    ),
)
_THIS_COUNT = (reply_counts.c.address == _P("to")) & (reply_counts.c.day == _P("on"))
REPLY_COUNT = Hot(select(reply_counts.c.count).where(_THIS_COUNT))
REPLY_COUNT_FIRST = Hot(reply_counts.insert(), columns=("address", "day", "count"))
# one more reply, while under the cap: the day's count after it, or no row
# (none counted yet that day, or the cap reached): one statement a reply
REPLY_COUNT_BUMP = Hot(
    update(reply_counts)
    .where(_THIS_COUNT, reply_counts.c.count < _P("cap"))
    .values(count=reply_counts.c.count + 1)
    .returning(reply_counts.c.count)
)


def _outbox_row(
    kind: str,
    to_addr: str,
    message_id: str,
    message: bytes,
    at: datetime,
    inbox_id: int | None = None,
    status: str = "pending",
) -> dict[str, Any]:
    """An outbox row of a mail queued now: due at once, never tried."""
    return {
        "created_at": at,
        "kind": kind,
        "to_addr": to_addr,
        "message_id": message_id,
        "message": message,
        "status": status,
        "attempts": 0,
        "next_attempt_at": at,
        "inbox_id": inbox_id,
    }


def _one_row(changed: int) -> None:
    if changed != 1:
        raise StoreError("a reply count changed under the write lock")


class OutgoingMail(Database):
    """The outbox, reply counts, held replies and digests."""

    # -- queueing and the daily cap --------------------------------------------------

    def queue_mail(
        self,
        conn: Connection,
        kind: str,
        to_addr: str,
        message_id: str,
        message: bytes,
        at: datetime,
        inbox_id: int | None = None,
        status: str = "pending",
    ) -> int | None:
        """A mail to send (``status`` pending), or one held by the daily cap
        (held) for the next day's digest. Its number, unless the insert was
        left for later (Database.later)."""
        row = _outbox_row(kind, to_addr, message_id, message, at, inbox_id, status)
        ran = self.run_later(conn, OUTBOX_ADD, **row)
        return None if ran is None else int(ran.lastrowid)

    def queue_mails(
        self, conn: Connection, kind: str, mails: Sequence[tuple[str, str, bytes]], at: datetime
    ) -> None:
        """Several mails to send, each (to, Message-ID, bytes): one statement."""
        if mails:
            rows = [_outbox_row(kind, to, message_id, raw, at) for to, message_id, raw in mails]
            conn.execute(outbox.insert(), rows)

    def count_reply(self, conn: Connection, address: str, day: str, cap: int) -> int | None:
        """Count one more reply to ``address`` on ``day`` (UTC, YYYY-MM-DD)
        and return how many that makes, or None (nothing counted) if
        ``cap`` replies went there that day already."""
        bumped = self._bump(conn, address, day, cap)
        if bumped is not None:
            return bumped
        if self._replies(conn, address, day) is not None or cap <= 0:
            return None  # the cap is reached
        self._first(conn, address, day)
        return 1

    def take_reply(self, conn: Connection, address: str, day: str, cap: int) -> bool:
        """Count one more reply to ``address`` on ``day`` (UTC, YYYY-MM-DD),
        unless ``cap`` replies went there that day already: then False.
        (The first reply of a day always counts.)"""
        if self._bump(conn, address, day, cap) is not None:
            return True
        if self._replies(conn, address, day) is not None:
            return False  # the cap is reached
        self._first(conn, address, day)
        return True

    def _replies(self, conn: Connection, address: str, day: str) -> int | None:
        """Replies counted to ``address`` on ``day``; None: no row yet."""
        known = self.known(conn)
        if known is not None and ("replies", address, day) in known:
            return known["replies", address, day]  # type: ignore[no-any-return]
        row = self.run(conn, REPLY_COUNT, to=address, on=day).fetchone()
        count = None if row is None else int(row[0])
        if known is not None:
            known["replies", address, day] = count
        return count

    def _bump(self, conn: Connection, address: str, day: str, cap: int) -> int | None:
        """One more reply counted if under ``cap``: the count it makes.
        When this transaction knows the count already (Database.known),
        the UPDATE waits for the next round trip; it must then change the
        one row, or the batch fails."""
        known = self.known(conn)
        key = ("replies", address, day)
        if known is not None and known.get(key) is not None:
            if known[key] >= cap:
                return None
            self.run_later(conn, REPLY_COUNT_BUMP, _one_row, to=address, on=day, cap=cap)
            known[key] += 1
            return known[key]  # type: ignore[no-any-return]
        # every row read, so SQLite finishes the statement before the commit
        rows = self.run(conn, REPLY_COUNT_BUMP, to=address, on=day, cap=cap).fetchall()
        if not rows:
            return None  # no row yet, or the cap reached: _replies tells which
        if known is not None:
            known[key] = int(rows[0][0])
        return int(rows[0][0])

    def _first(self, conn: Connection, address: str, day: str) -> None:
        self.run(conn, REPLY_COUNT_FIRST, address=address, day=day, count=1)
        known = self.known(conn)
        if known is not None:
            known["replies", address, day] = 1

    def last_outbox_id(self, conn: Connection) -> int:
        return conn.execute(select(func.max(outbox.c.id))).scalar() or 0

    def held_mail(self, before: datetime) -> list[OutboxRow]:
        """Replies held by the daily cap on a day before ``before``."""
        with self.tx(write=False) as conn:
            rows = conn.execute(
                select(outbox)
                .where(outbox.c.status == "held", outbox.c.created_at < before)
                .order_by(outbox.c.id)
            ).all()
        return [OutboxRow.of(r) for r in rows]

    def mark_digested(self, conn: Connection, ids: Sequence[int], digest_id: int) -> None:
        """Held replies sent in the digest ``digest_id``; ClaimLost if any
        of them is no longer held (another sender made the digest)."""
        done = conn.execute(
            update(outbox)
            .where(outbox.c.id.in_(list(ids)), outbox.c.status == "held")
            .values(status="digested", last_error=f"sent in digest #{digest_id}")
        ).rowcount
        if done != len(ids):
            raise ClaimLost("those held replies went out in another digest")

    # -- sending ----------------------------------------------------------------------------

    def due_mail(self, now: datetime, limit: int = 50) -> list[OutboxRow]:
        with self.tx(write=False) as conn:
            rows = conn.execute(
                select(outbox)
                .where(outbox.c.status == "pending", outbox.c.next_attempt_at <= now)
                .order_by(outbox.c.id)
                .limit(limit)
            ).all()
        return [OutboxRow.of(r) for r in rows]

    def claim_due(
        self, holder: str, now: datetime, limit: int, wall: float, lease: float
    ) -> list[OutboxRow]:
        """Claim up to ``limit`` due mails that no other sender holds a live
        claim on, for ``holder`` until ``wall + lease``."""
        free = (
            outbox.c.claimed_by.is_(None)
            | (outbox.c.claimed_by == holder)
            | (outbox.c.lease_until < wall)
        )
        due = (
            select(outbox.c.id)
            .where(outbox.c.status == "pending", outbox.c.next_attempt_at <= now, free)
            .order_by(outbox.c.id)
            .limit(limit)
        )
        # on a shared store, senders never wait for the write lock: the rows
        # they claim are locked for the claim alone, and rows another
        # sender is claiming are skipped
        with self.tx(lock=NONE) as conn:
            if self.shared:
                due = due.with_for_update(skip_locked=True)
            ids = list(conn.execute(due).scalars())
            if not ids:
                return []
            conn.execute(
                update(outbox)
                .where(outbox.c.id.in_(ids))
                .values(claimed_by=holder, lease_until=wall + lease)
            )
            rows = conn.execute(select(outbox).where(outbox.c.id.in_(ids)).order_by(outbox.c.id))
            return [OutboxRow.of(r) for r in rows]

    def outbox_rows(self, kind: str | None = None, to_addr: str | None = None) -> list[OutboxRow]:
        with self.tx(write=False) as conn:
            q = select(outbox).order_by(outbox.c.id)
            if kind:
                q = q.where(outbox.c.kind == kind)
            if to_addr:
                q = q.where(func.lower(outbox.c.to_addr) == to_addr.lower())
            return [OutboxRow.of(r) for r in conn.execute(q).all()]

    def bounced_mail(self, conn: Connection, message_ids: Sequence[str]) -> tuple[int, str] | None:
        """The first of our mails a bounce's Message-IDs name: (outbox id,
        address). Only looked up: such a bounce proves nothing."""
        for mid in message_ids:
            r = conn.execute(
                select(outbox.c.id, outbox.c.to_addr)
                .where(outbox.c.message_id == mid)
                .order_by(outbox.c.id)
            ).first()
            if r is not None:
                return r.id, r.to_addr
        return None

    def mark_sent(self, outbox_id: int, at: datetime, holder: str | None = None) -> bool:
        return self.mark_sent_many([outbox_id], at, holder) == 1

    def mark_sent_many(
        self, outbox_ids: Sequence[int], at: datetime, holder: str | None = None
    ) -> int:
        """Mark mails sent that are still pending (and, with ``holder``,
        still claimed by that sender); returns how many. (Touches only
        rows it names, each checked in the statement: no write lock.)"""
        with self.tx(lock=NONE) as conn:
            q = update(outbox).where(
                outbox.c.id.in_(list(outbox_ids)), outbox.c.status == "pending"
            )
            if holder is not None:
                q = q.where(outbox.c.claimed_by == holder)
            return conn.execute(
                q.values(status="sent", sent_at=at, attempts=outbox.c.attempts + 1, claimed_by=None)
            ).rowcount

    def mark_retry(
        self, outbox_id: int, error: str, next_at: datetime, holder: str | None = None
    ) -> None:
        with self.tx(lock=NONE) as conn:
            q = update(outbox).where(outbox.c.id == outbox_id, outbox.c.status == "pending")
            if holder is not None:
                q = q.where(outbox.c.claimed_by == holder)
            conn.execute(
                q.values(
                    attempts=outbox.c.attempts + 1,
                    last_error=error,
                    next_attempt_at=next_at,
                    claimed_by=None,
                )
            )

    def mark_failed(self, conn: Connection, outbox_id: int, status: str, error: str) -> None:
        conn.execute(
            update(outbox)
            .where(outbox.c.id == outbox_id)
            .values(
                status=status, last_error=error, attempts=outbox.c.attempts + 1, claimed_by=None
            )
        )
