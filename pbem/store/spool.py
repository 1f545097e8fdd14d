"""The SMTP side's one writer to the spool (``SpoolWriter``): a connection
of its own, outside the store's pool, since a client waits on every
commit. What the spool is and how the worker empties it: received.py."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Sequence
from typing import Any

from pbem.store.database import application_name
from pbem.store.received import ReceivedMail, spool_mails, spooled_row
from pbem.store.rows import StoreError
from pbem.store.schema import RECEIVED


class SpoolWriter:
    """The SMTP side's one writer to the spool: a connection of its own,
    held open, with no pool or events between it and the database, since a
    client waits on every commit (a group commit runs on the event loop).
    On SQLite a sqlite3 connection; on PostgreSQL a psycopg one, which
    spools a whole group in one statement."""

    def __init__(self, store: ReceivedMail) -> None:
        self.store = store.spool
        self._raw: Any = None
        self._pg: Any = None  # the PostgreSQL connection, made when first used
        self._deadline: float | None = None  # when the group being written is late
        self._watch: threading.Thread | None = None
        self._closed = False
        if self.store._sqlite:
            import sqlite3

            path = self.store.engine.url.database
            self._raw = sqlite3.connect(
                path, isolation_level=None, timeout=0, check_same_thread=False
            )
            self._raw.execute("PRAGMA synchronous=FULL")
            # the worker checkpoints the spool (Store.checkpoint_spool); this
            # only bounds the log should the worker not run
            self._raw.execute("PRAGMA wal_autocheckpoint=20000")

    def try_store(self, mails: Sequence[dict[str, Any]]) -> list[tuple[int, bool]] | None:
        """Store the mails in one transaction; None at once if another
        writer holds the lock (SQLite's one writer; PostgreSQL's spool
        waits for no lock)."""
        if self._raw is None:
            return self._store_shared(mails)
        import sqlite3

        dialect = self.store.engine.dialect
        cursor = self._raw.cursor()
        try:
            cursor.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return None
            raise StoreError(str(exc)) from exc
        try:
            out = spool_mails(lambda h, v: h.on_cursor(cursor, dialect, v), mails, sqlite=True)
            cursor.execute("COMMIT")
            return out
        except Exception as exc:
            try:
                cursor.execute("ROLLBACK")
            except Exception:
                pass
            raise StoreError(str(exc)) from exc
        finally:
            cursor.close()

    def _store_shared(self, mails: Sequence[dict[str, Any]]) -> list[tuple[int, bool]]:
        """On PostgreSQL: the group in one statement that inserts the mails
        whose bytes the spool does not hold and reads the numbers of those
        it does, then COMMIT: three round trips however many mails. A
        connection that fails is dropped (the clients get 451) and made
        again for the next group."""
        import psycopg

        distinct = list({m["sha256"]: m for m in reversed(mails)}.values())[::-1]
        self._deadline = time.monotonic() + self.store.spool_timeout
        try:
            conn = self._pg or self._connect()
            with conn.cursor() as cursor:
                cursor.execute(*_group_insert(distinct))
                rows = cursor.fetchall()
            conn.commit()
        except psycopg.Error as exc:
            self._drop()
            raise StoreError(str(exc)) from exc
        finally:
            self._deadline = None
        added = {sha: number for number, sha, new in rows if new}
        known = {sha: number for number, sha, new in rows if not new}
        out = []
        for m in mails:
            number = added.pop(m["sha256"], None)  # the group's first copy is the new one
            if number is None:
                number = known.get(m["sha256"])
                if number is None:  # another node's insert of the same bytes won
                    raise StoreError("the same mail was being stored by another node")
                out.append((number, False))
            else:
                out.append((number, True))
                known[m["sha256"]] = number
        return out

    def _connect(self) -> Any:
        """The connection, and the watch on it: a group that has not
        committed within the spool timeout has its connection cut, so a
        hung database gives every waiting session 451 within seconds and
        never holds the event loop longer. (The server's own
        statement_timeout ends a statement that waits on a lock; a server
        that does not answer at all cannot end it.)"""
        import psycopg

        url = self.store.engine.url.set(drivername="postgresql")
        wait = self.store.spool_timeout
        self._pg = psycopg.connect(
            url.render_as_string(hide_password=False),
            connect_timeout=max(2, int(wait)),
            application_name=application_name(),
            options=f"-c timezone=UTC -c statement_timeout={int(wait * 1000)}",
        )
        if self._watch is None:
            self._watch = threading.Thread(target=self._watching, name="spool-watch", daemon=True)
            self._watch.start()
        return self._pg

    def _watching(self) -> None:
        """Cut the connection of a group past its deadline (shutting its
        socket down wakes the driver's wait with an error)."""
        while not self._closed:
            time.sleep(0.2)
            deadline, conn = self._deadline, self._pg
            if deadline is None or conn is None or time.monotonic() < deadline:
                continue
            if self._deadline is not deadline:
                continue  # that group ended meanwhile
            try:
                socket.socket(fileno=os.dup(conn.pgconn.socket)).shutdown(socket.SHUT_RDWR)
            except Exception:
                pass  # closed meanwhile
            self._deadline = None

    def _drop(self) -> None:
        if self._pg is not None:
            try:
                self._pg.close()
            except Exception:
                pass
            self._pg = None

    def close(self) -> None:
        self._closed = True
        if self._raw is not None:
            self._raw.close()
        self._drop()
        self.store.close()


_SPOOL_COLUMNS = [c for c in RECEIVED if c != "id"]
_SPOOL_TYPES = {"received_at": "timestamptz", "raw": "bytea"}  # the rest: text


def _group_insert(mails: Sequence[dict[str, Any]]) -> tuple[str, list[Any]]:
    """One statement spooling a group of mails with distinct bytes
    (PostgreSQL): it inserts those the spool does not hold, each taking the
    next number, and gives (id, sha256, True) for each of them and
    (id, sha256, False) for each it holds already. (Inserting them all
    with ON CONFLICT alone would take a number for each copy too.)"""
    cols = ", ".join(_SPOOL_COLUMNS)
    row = "(" + ", ".join(f"%s::{_SPOOL_TYPES.get(c, 'text')}" for c in _SPOOL_COLUMNS) + ")"
    sql = (
        f"WITH incoming ({cols}) AS (VALUES {', '.join([row] * len(mails))}), "
        f"added AS (INSERT INTO spool ({cols}) SELECT {cols} FROM incoming "
        "WHERE NOT EXISTS (SELECT 1 FROM spool WHERE spool.sha256 = incoming.sha256) "
        "ON CONFLICT (sha256) DO NOTHING RETURNING id, sha256) "
        "SELECT id, sha256, true FROM added UNION ALL "
        "SELECT id, sha256, false FROM spool WHERE sha256 IN (SELECT sha256 FROM incoming)"
    )
    values = [spooled_row(m)[c] for m in mails for c in _SPOOL_COLUMNS]
    return sql, values
