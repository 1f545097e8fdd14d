"""Received mail: the spool the SMTP side writes before its 250, the inbox
the worker reads, and the worker's claims on mails (exactly-once
processing). The leases and nodes that hold claims: nodes.py; the SMTP
side's own writer to the spool: spool.py."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, case, delete, func, or_, select, update
from sqlalchemy.dialects import postgresql

from pbem.store.database import NONE, Database, Hot
from pbem.store.rows import ClaimLost, InboxRow, MailStuck, StoreError
from pbem.store.schema import RECEIVED, inbox, spool

_P = bindparam
SPOOL_BY_SHA = Hot(select(spool.c.id).where(spool.c.sha256 == _P("sha256")))
# on SQLite the same bytes again insert nothing (the column is unique)
SPOOL_ADD = Hot(
    spool.insert().prefix_with("OR IGNORE", dialect="sqlite"),
    columns=[c for c in RECEIVED if c != "id"],
)
INBOX_FINISH = Hot(
    update(inbox).where(
        inbox.c.id == _P("inbox_id"),
        inbox.c.state == "new",
        or_(
            _P("holder", type_=inbox.c.claimed_by.type).is_(None),
            inbox.c.claimed_by == _P("holder"),
        ),
    ),
    columns=("state", "note", "processed_at", "claimed_by"),
)
INBOX_EARLIER = Hot(
    select(inbox.c.id)
    .where(inbox.c.message_id == _P("mid"), inbox.c.id < _P("before"), inbox.c.state != "new")
    .order_by(inbox.c.id)
    .limit(1)
)


# on PostgreSQL: another node spooling the same bytes at the same moment
# makes this insert wait for that one's commit, then insert nothing
SPOOL_ADD_SHARED = Hot(
    postgresql.insert(spool).on_conflict_do_nothing(index_elements=["sha256"]),
    columns=[c for c in RECEIVED if c != "id"],
)


def spool_mails(
    add: Callable[[Hot, dict[str, Any]], Any], mails: Sequence[dict[str, Any]], sqlite: bool
) -> list[tuple[int, bool]]:
    """Spool received mails through ``add`` (which runs a hot statement in
    the caller's transaction): (number, True if new) for each; the same
    bytes again insert nothing and give the first copy's number. On SQLite
    the insert itself skips a copy (one statement a new mail); elsewhere
    the copy is looked for first (an insert that skips a copy there would
    still take a number from the sequence, leaving a gap)."""
    out: list[tuple[int, bool]] = []
    for m in mails:
        found = None if sqlite else add(SPOOL_BY_SHA, {"sha256": m["sha256"]}).fetchone()
        if found is None:
            added = add(SPOOL_ADD if sqlite else SPOOL_ADD_SHARED, spooled_row(m))
            if added.rowcount == 1:
                out.append((int(added.lastrowid), True))
                continue
            found = add(SPOOL_BY_SHA, {"sha256": m["sha256"]}).fetchone()
        out.append((found[0], False))
    return out


def spooled_row(m: dict[str, Any]) -> dict[str, Any]:
    """The spool's columns of a received mail."""
    return {
        "received_at": m["received_at"],
        "mail_from": m["mail_from"],
        "rcpt_to": json.dumps(list(m["rcpt_to"])),
        "raw": m["raw"],
        "sha256": m["sha256"],
        "message_id": m.get("message_id"),
        "peer": m.get("peer"),
    }


def inbox_row(spooled: Any, first: int | None, when: datetime) -> dict[str, Any]:
    """The inbox's row for a spooled mail: new, or a duplicate of mail
    ``first`` (the same bytes). Every row has the same keys, so many go
    in one statement."""
    row = {c: getattr(spooled, c) for c in RECEIVED}
    row.update(state="new", attempts=0, note=None, processed_at=None, error=None)
    if first is not None:
        row.update(state="duplicate", note=f"same bytes as mail #{first}", processed_at=when)
    return row


class ReceivedMail(Database):
    """The spool, the inbox and claims."""

    # -- the spool ----------------------------------------------------------------

    def try_store_mails(self, mails: Sequence[dict[str, Any]]) -> list[tuple[int, bool]] | None:
        """store_mails, or None at once if another writer holds the lock
        (for a store made with ``wait_in_python``)."""
        try:
            return self.store_mails(mails)
        except StoreError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return None
            raise

    def store_mails(self, mails: Sequence[dict[str, Any]]) -> list[tuple[int, bool]]:
        """Store several received mails in one transaction (one fsync). Each
        dict: received_at, mail_from, rcpt_to (list), raw, sha256,
        message_id. Returns (mail number, True if new) for each; the same
        bytes twice are stored once. The mail goes to the spool; the worker
        moves it into the inbox (``move_spooled``) under the same number."""
        if self.spool is not self:
            return self.spool.store_mails(mails)
        # spooling checks nothing another writer changes: on a shared
        # database it waits for no one (the unique bytes settle races)
        with self.tx(lock=NONE) as conn:
            return spool_mails(lambda h, v: self.run(conn, h, **v), mails, self._sqlite)

    def move_spooled(self, limit: int = 500) -> int:
        """Move spooled mail into the inbox, oldest first, keeping each
        mail's number; returns how many. The spool is only read (no lock on
        it), the inbox written in one transaction. Bytes the inbox holds
        already (a re-send after the spool forgot the first copy) are
        recorded as a duplicate of the first, never processed again."""
        if self.shared:
            with self.tx() as conn:
                return self._move(conn, self._unspool(conn, limit), None)[0]
        rows = self._spooled_rows(limit)
        if not rows:
            return 0
        with self.tx() as conn:
            return self._move(conn, rows, None)[0]

    def _unspool(self, conn: Connection, limit: int) -> list[Any]:
        """On a shared database: take spooled mail out of the spool, oldest
        first, in the caller's transaction (which moves it into the inbox).
        Mail numbers come from a sequence, and two nodes' commits can land
        in the other order, so there is no "highest number moved" to go
        by: what is moved leaves the spool. Rows another transaction holds
        are skipped, never waited for."""
        oldest = (
            select(spool.c.id).order_by(spool.c.id).limit(limit).with_for_update(skip_locked=True)
        )
        taken = conn.execute(delete(spool).where(spool.c.id.in_(oldest)).returning(*spool.c))
        return sorted(taken.all(), key=lambda r: r.id)

    def _moved(self) -> int:
        """The highest mail number in the inbox."""
        with self.tx(write=False) as conn:
            return conn.execute(select(func.max(inbox.c.id))).scalar() or 0

    def _spooled_rows(self, limit: int) -> list[Any]:
        moved = self._moved()
        with self.spool.tx(write=False) as conn:
            return conn.execute(
                select(spool).where(spool.c.id > moved).order_by(spool.c.id).limit(limit)
            ).all()

    def _move(
        self,
        conn: Connection,
        rows: Sequence[Any],
        at: datetime | None,
        vet: Callable[[Any], None] | None = None,
    ) -> tuple[int, list[int]]:
        """Put spooled ``rows`` into the inbox under their numbers, in the
        caller's transaction: (how many, the numbers of those quarantined).
        ``vet`` (the crash tests' fault point) sees each row first.

        All in one statement; if that fails, mail by mail, each in a
        savepoint of its own: a mail that fails alone is put in the inbox
        quarantined, with why (every mail answered 250 gets a row and a
        final state), and the others move on. A mail that cannot even be
        quarantined raises MailStuck: the caller's transaction rolls back
        (on a shared database the spool keeps the mail) and nothing is
        lost."""
        if self.shared:
            fresh = list(rows)  # taken out of the spool: each is new here
        else:
            moved = conn.execute(select(func.max(inbox.c.id))).scalar() or 0
            fresh = [r for r in rows if r.id > moved]
        if not fresh:
            return 0, []
        firsts = dict(
            conn.execute(
                select(inbox.c.sha256, func.min(inbox.c.id))
                .where(inbox.c.sha256.in_([r.sha256 for r in fresh]))
                .group_by(inbox.c.sha256)
            ).all()
        )
        when, check = at or fresh[-1].received_at, vet or (lambda row: None)
        values = []
        for r in fresh:
            values.append(inbox_row(r, firsts.get(r.sha256), when))
            firsts.setdefault(r.sha256, r.id)  # the same bytes later in this batch
        try:
            with conn.begin_nested():
                for r in fresh:
                    check(r)
                conn.execute(inbox.insert(), values)
            return len(fresh), []
        except Exception:  # some mail of the batch: found below, mail by mail
            if conn.invalidated:  # the connection is gone, not a mail
                raise
        quarantined = []
        for r, row in zip(fresh, values, strict=True):
            try:
                with conn.begin_nested():
                    check(r)
                    conn.execute(inbox.insert(), [row])
                continue
            except Exception as exc:
                if conn.invalidated:
                    raise
                why = f"moving it into the inbox failed: {type(exc).__name__}: {exc}"
            # kept quarantined, with why (`pbem retry` puts it back in the queue)
            row.update(state="quarantined", note=None, processed_at=when, error=why[:4000])
            try:
                with conn.begin_nested():
                    conn.execute(inbox.insert(), [row])
            except Exception as exc:
                raise MailStuck(r.id, f"{why}; quarantining it failed too: {exc}") from exc
            quarantined.append(r.id)
        return len(fresh), quarantined

    def checkpoint_spool(self) -> None:
        """Copy the spool's write-ahead log into its file, as far as no
        reader needs it (never waiting), so the SMTP side, which writes the
        spool while clients wait, never has to."""
        if not self.spool._sqlite:
            return
        raw = self.spool.engine.raw_connection()  # outside any transaction
        try:
            raw.driver_connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except Exception as exc:  # busy: the next one will do
            raise StoreError(str(exc)) from exc
        finally:
            raw.close()

    def spooled(self) -> int:
        """Mail received but not yet moved into the inbox."""
        if self.shared:
            with self.tx(write=False) as conn:
                return conn.execute(select(func.count()).select_from(spool)).scalar_one()
        moved = self._moved()
        with self.spool.tx(write=False) as conn:
            return conn.execute(
                select(func.count()).select_from(spool).where(spool.c.id > moved)
            ).scalar_one()

    def prune_spool(self, before: datetime) -> int:
        """Forget spooled copies that are in the inbox and older than
        ``before`` (the inbox keeps the mail). The newest spooled row always
        stays: SQLite numbers a new row one above the highest left, and a
        number at or below the inbox's highest would never be moved. (A
        shared database keeps nothing to forget: moving empties its spool.)"""
        if self.shared:
            return 0
        moved = self._moved()
        with self.spool.tx() as conn:
            newest = select(func.max(spool.c.id)).scalar_subquery()
            result = conn.execute(
                spool.delete().where(
                    spool.c.id <= moved, spool.c.received_at < before, spool.c.id < newest
                )
            )
            return result.rowcount

    # -- claims: exactly-once processing -------------------------------------------

    def take_mail(
        self,
        holder: str,
        limit: int,
        lease: float,
        wall: float,
        at: datetime,
        max_claims: int,
        vet: Callable[[Any], None] | None = None,
    ) -> tuple[list[InboxRow], list[InboxRow]]:
        """In one write transaction: move spooled mail into the inbox (a
        mail that cannot be moved is quarantined there: ``_move``), then
        claim up to ``limit`` mails in no final state that nobody else holds
        a live claim on (``wall``: the machine's clock, seconds), for
        ``holder`` until ``wall + lease``. A mail claimed ``max_claims``
        times already (the worker died on it each time) is quarantined
        instead. Returns (claimed, quarantined now)."""
        rows = [] if self.shared else self._spooled_rows(limit)
        stuck: list[int] = []
        with self.tx() as conn:
            if self.shared:
                rows = self._unspool(conn, limit)
            if rows:
                stuck = self._move(conn, rows, at, vet)[1]
            ids = self._claimable(conn, holder, limit, wall)
            tired = self._quarantine_tired(conn, ids, holder, at, max_claims) if ids else set()
            if ids:
                conn.execute(
                    update(inbox)
                    .where(inbox.c.id.in_([i for i in ids if i not in tired]))
                    .values(
                        claimed_by=holder,
                        lease_until=wall + lease,
                        # a claim counts once per worker (a worker that failed
                        # and claims again does not count again)
                        claims=inbox.c.claims + case((inbox.c.claimed_by == holder, 0), else_=1),
                    )
                )
            wanted = sorted({*ids, *stuck})
            got = conn.execute(select(inbox).where(inbox.c.id.in_(wanted)).order_by(inbox.c.id))
            out = [InboxRow.of(r) for r in got] if wanted else []
        return [r for r in out if r.state == "new"], [r for r in out if r.state != "new"]

    def _claimable(self, conn: Connection, holder: str, limit: int, wall: float) -> list[int]:
        """Mails in no final state that nobody else holds a live claim on."""
        free = (
            (inbox.c.claimed_by.is_(None))
            | (inbox.c.claimed_by == holder)
            | (inbox.c.lease_until < wall)
        )
        return list(
            conn.execute(
                select(inbox.c.id)
                .where(inbox.c.state == "new", free)
                .order_by(inbox.c.id)
                .limit(limit)
            ).scalars()
        )

    def _quarantine_tired(
        self, conn: Connection, ids: list[int], holder: str, at: datetime, max_claims: int
    ) -> set[int]:
        """Quarantine those of ``ids`` that ``max_claims`` other claims
        already failed on; returns them."""
        tired = set(
            conn.execute(
                select(inbox.c.id).where(
                    inbox.c.id.in_(ids),
                    inbox.c.claims >= max_claims,
                    inbox.c.claimed_by.is_(None) | (inbox.c.claimed_by != holder),
                )
            ).scalars()
        )
        if tired:
            conn.execute(
                update(inbox)
                .where(inbox.c.id.in_(sorted(tired)))
                .values(
                    state="quarantined",
                    processed_at=at,
                    claimed_by=None,
                    error=func.coalesce(inbox.c.error, "")
                    + f"processing it stopped the worker {max_claims} times",
                )
            )
        return tired

    # -- the inbox ------------------------------------------------------------------

    def pending_mail(self, limit: int = 100) -> list[InboxRow]:
        """Stored mails not yet in a final state, oldest first."""
        with self.tx(write=False) as conn:
            rows = conn.execute(
                select(inbox).where(inbox.c.state == "new").order_by(inbox.c.id).limit(limit)
            ).all()
        return [InboxRow.of(r) for r in rows]

    def mail(self, conn: Connection | None, inbox_id: int) -> InboxRow | None:
        def run(c: Connection) -> InboxRow | None:
            r = c.execute(select(inbox).where(inbox.c.id == inbox_id)).first()
            return None if r is None else InboxRow.of(r)

        if conn is not None:
            return run(conn)
        with self.tx(write=False) as c:
            return run(c)

    def finish_mail(
        self,
        conn: Connection,
        inbox_id: int,
        state: str,
        note: str | None,
        at: datetime,
        holder: str | None = None,
    ) -> None:
        """Put a mail in its final state, in the caller's transaction, only
        if it is still unfinished and (with ``holder``) still claimed by
        that worker; else ClaimLost, and the caller rolls back everything
        it did for the mail. (Within Database.later the UPDATE and so the
        ClaimLost may come with the next statement.)"""

        def check(done: int) -> None:
            if done != 1:
                raise ClaimLost(f"mail #{inbox_id} is no longer ours to finish")

        self.run_later(
            conn,
            INBOX_FINISH,
            check,
            inbox_id=inbox_id,
            holder=holder,
            state=state,
            note=note,
            processed_at=at,
            claimed_by=None,
        )

    def fail_mail(
        self,
        inbox_id: int,
        error: str,
        quarantine_after: int,
        at: datetime,
        holder: str | None = None,
    ) -> int:
        """Count a failed attempt; after ``quarantine_after`` the mail is
        quarantined. Returns the attempts so far (0: the mail was not ours)."""
        with self.tx() as conn:
            row = conn.execute(
                select(inbox.c.attempts, inbox.c.state, inbox.c.claimed_by).where(
                    inbox.c.id == inbox_id
                )
            ).first()
            if row is None or row.state != "new" or (holder and row.claimed_by != holder):
                return 0
            attempts = row.attempts + 1
            values: dict[str, Any] = {"attempts": attempts, "error": error}
            if attempts >= quarantine_after:
                values.update(state="quarantined", processed_at=at, claimed_by=None)
            conn.execute(update(inbox).where(inbox.c.id == inbox_id).values(**values))
        return attempts

    def retry_mail(self, inbox_id: int) -> bool:
        """Put a quarantined mail back in the queue with fresh attempts."""
        with self.tx() as conn:
            result = conn.execute(
                update(inbox)
                .where(inbox.c.id == inbox_id, inbox.c.state == "quarantined")
                .values(
                    state="new",
                    attempts=0,
                    claims=0,
                    error=None,
                    processed_at=None,
                    claimed_by=None,
                )
            )
            return result.rowcount == 1

    def first_finished_by_message_id(
        self, conn: Connection, message_ids: set[str]
    ) -> dict[str, int]:
        """For each Message-ID, the number of the first finished mail (any
        state but new) that has it; those with none are left out."""
        if not message_ids:
            return {}
        rows = conn.execute(
            select(inbox.c.message_id, func.min(inbox.c.id))
            .where(inbox.c.message_id.in_(sorted(message_ids)), inbox.c.state != "new")
            .group_by(inbox.c.message_id)
        )
        return {mid: int(first) for mid, first in rows}

    def earlier_with_message_id(self, conn: Connection, message_id: str, before: int) -> int | None:
        r = self.run(conn, INBOX_EARLIER, mid=message_id, before=before).fetchone()
        return None if r is None else r[0]

    def mail_states(self) -> dict[str, int]:
        """How many mails are in each state; mail still in the spool is new.
        (The spool is counted first: a mail moved in between is then counted
        twice, never missed.)"""
        waiting = self.spooled()
        with self.tx(write=False) as conn:
            rows = conn.execute(select(inbox.c.state, func.count()).group_by(inbox.c.state)).all()
        states = {state: count for state, count in rows}
        if waiting:
            states["new"] = states.get("new", 0) + waiting
        return states

    def mails(
        self, state: str | None = None, since: datetime | None = None, last: int | None = None
    ) -> list[InboxRow]:
        """Mail in the inbox, oldest first: in ``state``, received since ``since``, the last."""
        with self.tx(write=False) as conn:
            q = select(inbox).order_by(inbox.c.id.desc())
            q = q.where(inbox.c.state == state) if state else q
            q = q if since is None else q.where(inbox.c.received_at >= since)
            q = q if last is None else q.limit(last)
            return [InboxRow.of(r) for r in reversed(conn.execute(q).all())]
