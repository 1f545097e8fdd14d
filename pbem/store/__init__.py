"""Storage: every SQL statement of pbem lives in this package.

SQLite by default (WAL, synchronous FULL, so a commit survives a power cut),
through SQLAlchemy Core so that another database can follow by URL; the
schema is built and changed only by Alembic migrations (``migrate``).
Every transaction on SQLite starts with BEGIN IMMEDIATE: writers queue for
the lock up front instead of failing half way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    case,
    create_engine,
    delete,
    event,
    func,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from pbem.store.schema import (
    RECEIVED,
    auth_failures,
    games,
    inbox,
    leases,
    outbox,
    players,
    press,
    reactions,
    ready,
    reply_counts,
    reports,
    scores,
    settings,
    spool,
    submissions,
    turns,
    watchers,
)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


class ClaimLost(Exception):
    """The mail (or outbox row) is finished or claimed by another worker:
    whatever this worker did for it is rolled back."""


class StoreError(Exception):
    """Storage failed (locked too long, disk full, gone). The caller answers
    "try again later", never a permanent failure."""


@dataclass(frozen=True)
class InboxRow:
    id: int
    received_at: datetime
    mail_from: str
    rcpt_to: tuple[str, ...]
    raw: bytes
    sha256: str
    message_id: str | None
    state: str
    attempts: int
    error: str | None = None
    note: str | None = None
    claims: int = 0  # workers that claimed it


@dataclass(frozen=True)
class LeaseRow:
    name: str
    holder: str
    pid: int
    host: str
    since: float
    until: float


@dataclass(frozen=True)
class PlayerRow:
    id: int
    game: str
    name: str
    email: str
    timezone: str | None
    password_hash: str
    token_version: int
    status: str
    missed: int = 0


@dataclass(frozen=True)
class GameRow:
    name: str
    kind: str
    state: str
    turn: int
    seed: int
    status: str
    created_at: datetime | None = None
    deadline: datetime | None = None
    turn_started_at: datetime | None = None
    reminded_for: datetime | None = None
    finished_at: datetime | None = None


def _game_row(r: Any) -> GameRow:
    return GameRow(
        r.name,
        r.kind,
        r.state,
        r.turn,
        r.seed,
        r.status,
        _aware(r.created_at),
        _aware(r.deadline),
        _aware(r.turn_started_at),
        _aware(r.reminded_for),
        _aware(r.finished_at),
    )


@dataclass(frozen=True)
class ReportRow:
    game: str
    turn: int
    reader: str
    subject: str
    text: str
    html: str
    svg: str
    png: bytes


@dataclass(frozen=True)
class OutboxRow:
    id: int
    kind: str
    to_addr: str
    message_id: str
    message: bytes
    status: str
    attempts: int
    next_attempt_at: datetime
    created_at: datetime
    last_error: str | None


def _aware(value: datetime | None) -> datetime | None:
    """SQLite gives back naive datetimes; everything stored is UTC."""
    if value is None or value.tzinfo is not None:
        return value
    from datetime import UTC

    return value.replace(tzinfo=UTC)


# Statements of the mail path, built once: building a statement costs more
# than running it on SQLite.
_P = bindparam
_SPOOL_BY_SHA = select(spool.c.id).where(spool.c.sha256 == _P("sha256"))
_SPOOL_INSERT = spool.insert()
_INBOX_FINISH = (
    update(inbox)
    .where(inbox.c.id == _P("inbox_id"))
    .values(state=_P("state"), note=_P("note"), processed_at=_P("at"))
)
_INBOX_EARLIER = (
    select(inbox.c.id)
    .where(inbox.c.message_id == _P("mid"), inbox.c.id < _P("before"), inbox.c.state != "new")
    .order_by(inbox.c.id)
    .limit(1)
)
_GAME = select(games).where(games.c.name == _P("name"))
_PLAYERS_OF = select(players).where(players.c.game == _P("game")).order_by(players.c.id)
_PLAYERS_BY_EMAIL = select(players).where(func.lower(players.c.email) == _P("email"))
_SUBMISSION_INSERT = submissions.insert()
_SUBMISSION_CURRENT = (
    select(submissions.c.seq, submissions.c.text)
    .where(
        submissions.c.game == _P("game"),
        submissions.c.turn == _P("turn"),
        submissions.c.player == _P("player"),
    )
    .order_by(submissions.c.seq.desc(), submissions.c.id.desc())
    .limit(1)
)
_AUTH_RECENT = (
    select(func.count())
    .select_from(auth_failures)
    .where(auth_failures.c.address == _P("address"), auth_failures.c.at > _P("since"))
)
_OUTBOX_INSERT = outbox.insert()


class Store:
    """The database. Thread-safe: every call takes its own connection."""

    def __init__(
        self, url: str, wait_in_python: bool = False, spool_url: str | None = None
    ) -> None:
        """``wait_in_python``: wait for the write lock with short sleeps of
        our own instead of SQLite's busy handler, whose sleeps grow to tens
        of milliseconds; for the SMTP side, where every wait is a client's.
        ``spool_url``: where received mail is spooled (default: this
        database's own spool table)."""
        self.url = url
        self.spool_url = spool_url or url
        self.wait_in_python = wait_in_python
        self._spool: Store | None = None
        self._datetime_processor: Any = None
        sqlite = url.startswith("sqlite")
        self.engine: Engine = create_engine(
            url,
            pool_size=8,
            max_overflow=8,
            pool_timeout=60,
            connect_args=(
                {"timeout": 0 if wait_in_python else 30, "check_same_thread": False}
                if sqlite
                else {}
            ),
        )
        if sqlite:
            event.listen(self.engine, "connect", _sqlite_connect)
            event.listen(self.engine, "begin", _sqlite_begin)
            # WAL is a property of the file: set once, not on every connection
            raw = self.engine.raw_connection()
            try:
                raw.driver_connection.execute("PRAGMA journal_mode=WAL")
            finally:
                raw.close()

    # -- SQLite's own cursor for the statements every mail runs ----------------
    # They run inside the SQLAlchemy transaction of ``conn`` (the same
    # connection); values pass through the columns' own SQLAlchemy type
    # processors, so what is written reads back exactly as through Core.
    # Through Core each statement costs ten times as much; the mail path runs
    # several per mail.

    @property
    def _sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @staticmethod
    def _cursor(conn: Connection) -> Any:
        return conn.connection.driver_connection.cursor()

    @property
    def _bind_datetime(self) -> Any:
        if self._datetime_processor is None:
            process = inbox.c.received_at.type.bind_processor(self.engine.dialect)
            self._datetime_processor = process or (lambda value: value)
        return self._datetime_processor

    @classmethod
    def at(cls, path: str | Path) -> Store:
        """A store in an SQLite file, its folder made if need be, with its
        spool in a file beside it (``pbem.sqlite`` spools to
        ``pbem-spool.sqlite``)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        spool = path.with_name(f"{path.stem}-spool{path.suffix}")
        return cls(f"sqlite:///{path}", spool_url=f"sqlite:///{spool}")

    @property
    def spool(self) -> Store:
        """The store that received mail is written to first."""
        if self.spool_url == self.url:
            return self
        if self._spool is None:
            self._spool = Store(self.spool_url, wait_in_python=self.wait_in_python)
        return self._spool

    def migrate(self) -> None:
        """Bring the schema to the newest migration (the spool's too: a
        spool file has the same schema, and uses its spool table)."""
        cfg = AlembicConfig()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        with self.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
        if self.spool is not self:
            self.spool.migrate()

    def close(self) -> None:
        self.engine.dispose()
        if self._spool is not None:
            self._spool.close()

    @contextmanager
    def tx(self, write: bool = True) -> Iterator[Connection]:
        """One transaction; StoreError when the database fails. A read
        (``write=False``) takes no lock on SQLite: in WAL mode it reads a
        snapshot while writers go on."""
        try:
            with self.engine.connect() as plain:
                conn = plain if write else plain.execution_options(pbem_read=True)
                with conn.begin():
                    yield conn
        except IntegrityError:
            raise
        except Exception as exc:
            if isinstance(exc, StoreError):
                raise
            from sqlalchemy.exc import DBAPIError, OperationalError

            if isinstance(exc, OperationalError | DBAPIError):
                raise StoreError(str(exc.orig) if exc.orig else str(exc)) from exc
            raise

    # -- settings ---------------------------------------------------------------

    def setting(self, key: str, make: Any = None) -> str | None:
        """The value of ``key``; if absent and ``make`` is given, store
        make() first (once, even with several processes)."""
        with self.tx() as conn:
            row = conn.execute(select(settings.c.value).where(settings.c.key == key)).first()
            if row is not None:
                return row[0]
            if make is None:
                return None
            value = make()
            conn.execute(settings.insert().values(key=key, value=value))
            return value

    # -- inbox --------------------------------------------------------------------

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
        out: list[tuple[int, bool]] = []
        with self.tx() as conn:
            if self.engine.dialect.name == "sqlite":
                return self._store_mails_sqlite(conn, mails)
            for m in mails:
                found = conn.execute(_SPOOL_BY_SHA, {"sha256": m["sha256"]}).first()
                if found is not None:
                    out.append((found[0], False))
                    continue
                result = conn.execute(
                    _SPOOL_INSERT,
                    {
                        "received_at": m["received_at"],
                        "mail_from": m["mail_from"],
                        "rcpt_to": json.dumps(list(m["rcpt_to"])),
                        "raw": m["raw"],
                        "sha256": m["sha256"],
                        "message_id": m.get("message_id"),
                    },
                )
                out.append((int(result.inserted_primary_key[0]), True))
        return out

    def move_spooled(self, limit: int = 500) -> int:
        """Move spooled mail into the inbox, oldest first, keeping each
        mail's number; returns how many. The spool is only read (no lock on
        it), the inbox written in one transaction. Bytes the inbox holds
        already (a re-send after the spool forgot the first copy) are
        recorded as a duplicate of the first, never processed again."""
        rows = self._spooled_rows(limit)
        if not rows:
            return 0
        with self.tx() as conn:
            return self._move(conn, rows, None)

    def _spooled_rows(self, limit: int) -> list[Any]:
        with self.tx(write=False) as conn:
            moved = conn.execute(select(func.max(inbox.c.id))).scalar() or 0
        with self.spool.tx(write=False) as conn:
            return conn.execute(
                select(spool).where(spool.c.id > moved).order_by(spool.c.id).limit(limit)
            ).all()

    def _move(self, conn: Connection, rows: Sequence[Any], at: datetime | None) -> int:
        moved = conn.execute(select(func.max(inbox.c.id))).scalar() or 0
        fresh = [r for r in rows if r.id > moved]
        if not fresh:
            return 0
        known = dict(
            conn.execute(
                select(inbox.c.sha256, func.min(inbox.c.id))
                .where(inbox.c.sha256.in_([r.sha256 for r in fresh]))
                .group_by(inbox.c.sha256)
            ).all()
        )
        when = at or fresh[-1].received_at
        values = []
        for r in fresh:
            row = {**{c: getattr(r, c) for c in RECEIVED}, "state": "new", "attempts": 0}
            first = known.get(r.sha256)
            if first is not None:
                row.update(
                    state="duplicate", note=f"same bytes as mail #{first}", processed_at=when
                )
            values.append(row)
        conn.execute(inbox.insert(), values)
        return len(fresh)

    # -- claims: exactly-once processing -------------------------------------------

    def take_mail(
        self, holder: str, limit: int, lease: float, wall: float, at: datetime, max_claims: int
    ) -> tuple[list[InboxRow], list[InboxRow]]:
        """In one write transaction: move spooled mail into the inbox, then
        claim up to ``limit`` mails in no final state that nobody else holds
        a live claim on (``wall``: the machine's clock, seconds), for
        ``holder`` until ``wall + lease``. A mail claimed ``max_claims``
        times already (the worker died on it each time) is quarantined
        instead. Returns (claimed, quarantined)."""
        rows = self._spooled_rows(limit)
        with self.tx() as conn:
            if rows:
                self._move(conn, rows, at)
            free = (
                (inbox.c.claimed_by.is_(None))
                | (inbox.c.claimed_by == holder)
                | (inbox.c.lease_until < wall)
            )
            ids = (
                conn.execute(
                    select(inbox.c.id)
                    .where(inbox.c.state == "new", free)
                    .order_by(inbox.c.id)
                    .limit(limit)
                )
                .scalars()
                .all()
            )
            if not ids:
                return [], []
            tired = (
                conn.execute(
                    select(inbox.c.id).where(
                        inbox.c.id.in_(ids),
                        inbox.c.claims >= max_claims,
                        inbox.c.claimed_by.is_(None) | (inbox.c.claimed_by != holder),
                    )
                )
                .scalars()
                .all()
            )
            if tired:
                conn.execute(
                    update(inbox)
                    .where(inbox.c.id.in_(tired))
                    .values(
                        state="quarantined",
                        processed_at=at,
                        claimed_by=None,
                        error=func.coalesce(inbox.c.error, "")
                        + f"processing it stopped the worker {max_claims} times",
                    )
                )
            conn.execute(
                update(inbox)
                .where(inbox.c.id.in_([i for i in ids if i not in set(tired)]))
                .values(
                    claimed_by=holder,
                    lease_until=wall + lease,
                    # a claim counts once per worker (a worker that failed
                    # and claims again does not count again)
                    claims=inbox.c.claims + case((inbox.c.claimed_by == holder, 0), else_=1),
                )
            )
            got = conn.execute(select(inbox).where(inbox.c.id.in_(ids)).order_by(inbox.c.id))
            out = [_inbox_row(r) for r in got]
        return [r for r in out if r.state == "new"], [r for r in out if r.state != "new"]

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
        with self.tx(write=False) as conn:
            moved = conn.execute(select(func.max(inbox.c.id))).scalar() or 0
        with self.spool.tx(write=False) as conn:
            return conn.execute(
                select(func.count()).select_from(spool).where(spool.c.id > moved)
            ).scalar_one()

    def prune_spool(self, before: datetime) -> int:
        """Forget spooled copies that are in the inbox and older than
        ``before`` (the inbox keeps the mail). The newest spooled row always
        stays: SQLite numbers a new row one above the highest left, and a
        number at or below the inbox's highest would never be moved."""
        with self.tx(write=False) as conn:
            moved = conn.execute(select(func.max(inbox.c.id))).scalar() or 0
        with self.spool.tx() as conn:
            newest = select(func.max(spool.c.id)).scalar_subquery()
            result = conn.execute(
                spool.delete().where(
                    spool.c.id <= moved, spool.c.received_at < before, spool.c.id < newest
                )
            )
            return result.rowcount

    def _store_mails_sqlite(
        self, conn: Connection, mails: Sequence[dict[str, Any]]
    ) -> list[tuple[int, bool]]:
        """The same on SQLite through its own cursor, in the same transaction:
        this runs for every mail while a client waits, and the driver's
        cursor costs a tenth of a statement through SQLAlchemy. Values are
        converted by the columns' own SQLAlchemy types, so rows read back
        exactly as those written the other way."""
        cursor = conn.connection.driver_connection.cursor()
        try:
            return _spool_rows(cursor, mails, self._bind_datetime)
        finally:
            cursor.close()

    def pending_mail(self, limit: int = 100) -> list[InboxRow]:
        """Stored mails not yet in a final state, oldest first."""
        with self.tx(write=False) as conn:
            rows = conn.execute(
                select(inbox).where(inbox.c.state == "new").order_by(inbox.c.id).limit(limit)
            ).all()
        return [_inbox_row(r) for r in rows]

    def mail(self, conn: Connection | None, inbox_id: int) -> InboxRow | None:
        def run(c: Connection) -> InboxRow | None:
            r = c.execute(select(inbox).where(inbox.c.id == inbox_id)).first()
            return None if r is None else _inbox_row(r)

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
        it did for the mail."""
        if self._sqlite:
            cursor = self._cursor(conn)
            cursor.execute(
                "UPDATE inbox SET state = ?, note = ?, processed_at = ?, claimed_by = NULL "
                "WHERE id = ? AND state = 'new' AND (? IS NULL OR claimed_by = ?)",
                (state, note, self._bind_datetime(at), inbox_id, holder, holder),
            )
            done = cursor.rowcount
        else:
            done = conn.execute(
                update(inbox)
                .where(inbox.c.id == inbox_id, inbox.c.state == "new")
                .where(True if holder is None else inbox.c.claimed_by == holder)
                .values(state=state, note=note, processed_at=at, claimed_by=None)
            ).rowcount
        if done != 1:
            raise ClaimLost(f"mail #{inbox_id} is no longer ours to finish")

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

    def earlier_with_message_id(self, conn: Connection, message_id: str, before: int) -> int | None:
        if self._sqlite:
            r = (
                self._cursor(conn)
                .execute(
                    "SELECT id FROM inbox WHERE message_id = ? AND id < ? AND state != 'new' "
                    "ORDER BY id LIMIT 1",
                    (message_id, before),
                )
                .fetchone()
            )
        else:
            r = conn.execute(_INBOX_EARLIER, {"mid": message_id, "before": before}).first()
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

    def mails(self, state: str | None = None) -> list[InboxRow]:
        with self.tx(write=False) as conn:
            q = select(inbox).order_by(inbox.c.id)
            if state:
                q = q.where(inbox.c.state == state)
            return [_inbox_row(r) for r in conn.execute(q).all()]

    # -- leases: one worker per store ------------------------------------------------

    def take_lease(
        self,
        name: str,
        holder: str,
        pid: int,
        host: str,
        wall: float,
        seconds: float,
        dead: Callable[[int, str], bool],
    ) -> LeaseRow | None:
        """Take or renew the lease ``name`` for ``holder`` until ``wall +
        seconds``. Another holder's lease is taken over when it has lapsed or
        ``dead(pid, host)`` says its process is gone. Returns None when the
        lease is ours, else the live holder's row."""
        with self.tx() as conn:
            r = conn.execute(select(leases).where(leases.c.name == name)).first()
            if r is not None and r.holder != holder and r.until >= wall and not dead(r.pid, r.host):
                return LeaseRow(r.name, r.holder, r.pid, r.host, r.since, r.until)
            values = {"holder": holder, "pid": pid, "host": host, "until": wall + seconds}
            if r is None:
                conn.execute(leases.insert().values(name=name, since=wall, **values))
            elif r.holder == holder:
                conn.execute(update(leases).where(leases.c.name == name).values(**values))
            else:  # taken over: the claims of the worker gone are free again
                conn.execute(
                    update(leases).where(leases.c.name == name).values(since=wall, **values)
                )
                for table in (inbox, outbox):
                    conn.execute(
                        update(table)
                        .where(table.c.claimed_by == r.holder)
                        .values(claimed_by=None, lease_until=None)
                    )
        return None

    def release_lease(self, name: str, holder: str) -> None:
        with self.tx() as conn:
            conn.execute(delete(leases).where(leases.c.name == name, leases.c.holder == holder))

    def lease_of(self, name: str) -> LeaseRow | None:
        with self.tx(write=False) as conn:
            r = conn.execute(select(leases).where(leases.c.name == name)).first()
        return None if r is None else LeaseRow(r.name, r.holder, r.pid, r.host, r.since, r.until)

    # -- games and players ----------------------------------------------------------

    def game(self, conn: Connection, name: str) -> GameRow | None:
        r = conn.execute(_GAME, {"name": name}).first()
        return None if r is None else _game_row(r)

    def all_games(self, conn: Connection) -> list[GameRow]:
        rows = conn.execute(select(games).order_by(games.c.name)).all()
        return [_game_row(r) for r in rows]

    def add_game(
        self,
        conn: Connection,
        name: str,
        kind: str,
        state: str,
        turn: int,
        seed: int,
        at: datetime,
        status: str = "running",
    ) -> None:
        conn.execute(
            games.insert().values(
                name=name,
                kind=kind,
                state=state,
                turn=turn,
                seed=seed,
                status=status,
                created_at=at,
            )
        )

    def add_player(
        self, conn: Connection, game: str, name: str, email: str, tz: str | None, password_hash: str
    ) -> None:
        conn.execute(
            players.insert().values(
                game=game,
                name=name,
                email=email,
                timezone=tz,
                password_hash=password_hash,
                token_version=0,
                status="active",
            )
        )

    def players(self, conn: Connection, game: str | None = None) -> list[PlayerRow]:
        if game is not None:
            return [PlayerRow(*r) for r in conn.execute(_PLAYERS_OF, {"game": game}).all()]
        q = select(players).order_by(players.c.game, players.c.id)
        return [PlayerRow(*r) for r in conn.execute(q).all()]

    def players_by_email(self, conn: Connection, email: str) -> list[PlayerRow]:
        rows = conn.execute(_PLAYERS_BY_EMAIL, {"email": email.lower()}).all()
        return [PlayerRow(*r) for r in rows]

    def set_game_state(
        self, conn: Connection, name: str, state: str, status: str | None = None
    ) -> None:
        values: dict[str, Any] = {"state": state}
        if status is not None:
            values["status"] = status
        conn.execute(update(games).where(games.c.name == name).values(**values))

    def start_turn(self, conn: Connection, game: str, turn: int, state: str, at: datetime) -> None:
        """Record the state a turn starts from."""
        conn.execute(turns.insert().values(game=game, turn=turn, state=state, started_at=at))

    def set_game(self, conn: Connection, name: str, **values: Any) -> None:
        conn.execute(update(games).where(games.c.name == name).values(**values))

    def advance_game(self, conn: Connection, name: str, from_turn: int, **values: Any) -> bool:
        """The compare-and-set of a turn: change the game only if it is
        still running at ``from_turn``. False if another trigger won."""
        done = conn.execute(
            update(games)
            .where(games.c.name == name, games.c.turn == from_turn, games.c.status == "running")
            .values(**values)
        )
        return done.rowcount == 1

    def finish_turn(
        self, conn: Connection, game: str, turn: int, result: str, at: datetime
    ) -> None:
        conn.execute(
            update(turns)
            .where(turns.c.game == game, turns.c.turn == turn)
            .values(result=result, adjudicated_at=at)
        )

    def turn_result(self, conn: Connection, game: str, turn: int) -> str | None:
        return conn.execute(
            select(turns.c.result).where(turns.c.game == game, turns.c.turn == turn)
        ).scalar()

    def submissions_for(
        self, conn: Connection, game: str, turn: int, before: datetime | None
    ) -> dict[str, tuple[int, str, datetime]]:
        """Each player's standing order text for a turn, as received before
        ``before``: player -> (seq, text, received_at)."""
        q = select(
            submissions.c.player, submissions.c.seq, submissions.c.text, submissions.c.received_at
        ).where(submissions.c.game == game, submissions.c.turn == turn)
        if before is not None:
            q = q.where(submissions.c.received_at < before)
        out: dict[str, tuple[int, str, datetime]] = {}
        for player, seq, text, at in conn.execute(
            q.order_by(submissions.c.seq, submissions.c.id)
        ).all():
            out[player] = (seq, text, _aware(at))  # type: ignore[assignment]
        return {k: v for k, v in out.items() if v[1]}  # an empty text: withdrawn (CLEAR)

    def submission_queue(
        self,
        conn: Connection,
        game: str,
        turn: int,
        player: str | None = None,
        before: datetime | None = None,
    ) -> dict[str, list[tuple[int, str, datetime]]]:
        """Every order text of each player for a turn, in the order received,
        since their last withdrawal (an empty text, from CLEAR): the orders
        of games that run orders as received. player -> [(seq, text, at)]."""
        q = select(
            submissions.c.player, submissions.c.seq, submissions.c.text, submissions.c.received_at
        ).where(submissions.c.game == game, submissions.c.turn == turn)
        if player is not None:
            q = q.where(submissions.c.player == player)
        if before is not None:
            q = q.where(submissions.c.received_at < before)
        out: dict[str, list[tuple[int, str, datetime]]] = {}
        for who, seq, text, at in conn.execute(q.order_by(submissions.c.seq, submissions.c.id)):
            if text == "":
                out[who] = []
            else:
                out.setdefault(who, []).append((seq, text, _aware(at)))  # type: ignore[arg-type]
        return {k: v for k, v in out.items() if v}

    def ready_players(self, conn: Connection, game: str, turn: int) -> set[str]:
        rows = conn.execute(
            select(ready.c.player).where(ready.c.game == game, ready.c.turn == turn)
        ).all()
        return {r[0] for r in rows}

    def add_missed(self, conn: Connection, game: str, names: Sequence[str]) -> None:
        if names:
            conn.execute(
                update(players)
                .where(players.c.game == game, players.c.name.in_(list(names)))
                .values(missed=players.c.missed + 1)
            )

    def add_press(
        self, conn: Connection, game: str, turn: int, sender: str | None, text: str, at: datetime
    ) -> None:
        conn.execute(
            press.insert().values(game=game, turn=turn, sender=sender, text=text, sent_at=at)
        )

    def press_of(self, conn: Connection, game: str, turn: int) -> list[tuple[str | None, str]]:
        rows = conn.execute(
            select(press.c.sender, press.c.text)
            .where(press.c.game == game, press.c.turn == turn)
            .order_by(press.c.id)
        ).all()
        return [(r[0], r[1]) for r in rows]

    def last_reaction(self, conn: Connection, game: str, email: str) -> datetime | None:
        at = conn.execute(
            select(func.max(reactions.c.at)).where(
                reactions.c.game == game, reactions.c.email == email.lower()
            )
        ).scalar()
        return _aware(at)

    def add_reaction(
        self, conn: Connection, game: str, email: str, text: str, at: datetime
    ) -> None:
        conn.execute(reactions.insert().values(game=game, email=email.lower(), text=text, at=at))

    # -- the scoreboard -------------------------------------------------------------------

    def add_scores(
        self, conn: Connection, game: str, rows: Sequence[tuple[str, str, int]], at: datetime
    ) -> None:
        """(email, player, points) of a finished game, once."""
        for email, player, points in rows:
            exists = conn.execute(
                select(scores.c.id).where(scores.c.game == game, scores.c.email == email.lower())
            ).first()
            if exists is None:
                conn.execute(
                    scores.insert().values(
                        game=game, email=email.lower(), player=player, points=points, at=at
                    )
                )

    def ranking(self, conn: Connection) -> list[tuple[str, int, int]]:
        """(email, score, games) best first, for every player with a score
        above 0: each game's points in the order the games ended, the score
        never below 0."""
        rows = conn.execute(
            select(scores.c.email, scores.c.points).order_by(scores.c.at, scores.c.id)
        ).all()
        totals: dict[str, int] = {}
        games: dict[str, int] = {}
        for email, points in rows:
            totals[email] = max(0, totals.get(email, 0) + points)
            games[email] = games.get(email, 0) + 1
        return sorted(
            ((e, t, games[e]) for e, t in totals.items() if t > 0), key=lambda r: (-r[1], r[0])
        )

    # -- reports ----------------------------------------------------------------------

    def add_report(self, conn: Connection, report: ReportRow, at: datetime) -> None:
        conn.execute(
            delete(reports).where(
                reports.c.game == report.game,
                reports.c.turn == report.turn,
                reports.c.reader == report.reader,
            )
        )
        conn.execute(
            reports.insert().values(
                game=report.game,
                turn=report.turn,
                reader=report.reader,
                subject=report.subject,
                text=report.text,
                html=report.html,
                svg=report.svg,
                png=report.png,
                created_at=at,
            )
        )

    def report(
        self, conn: Connection, game: str, reader: str, turn: int | None = None
    ) -> ReportRow | None:
        """A reader's report of a turn (the latest when ``turn`` is None)."""
        q = select(reports).where(reports.c.game == game, reports.c.reader == reader)
        if turn is not None:
            q = q.where(reports.c.turn == turn)
        r = conn.execute(q.order_by(reports.c.turn.desc()).limit(1)).first()
        if r is None:
            return None
        return ReportRow(r.game, r.turn, r.reader, r.subject, r.text, r.html, r.svg, r.png)

    def report_turns(self, conn: Connection, game: str) -> list[int]:
        rows = conn.execute(
            select(reports.c.turn).where(reports.c.game == game).distinct().order_by(reports.c.turn)
        ).all()
        return [r[0] for r in rows]

    def turn_states(self, conn: Connection, game: str) -> list[tuple[int, str]]:
        rows = conn.execute(
            select(turns.c.turn, turns.c.state).where(turns.c.game == game).order_by(turns.c.turn)
        ).all()
        return [(r[0], r[1]) for r in rows]

    def bump_token(self, conn: Connection, player_id: int) -> None:
        conn.execute(
            update(players)
            .where(players.c.id == player_id)
            .values(token_version=players.c.token_version + 1)
        )

    def delete_player(self, conn: Connection, player_id: int) -> None:
        conn.execute(delete(players).where(players.c.id == player_id))

    def set_player(self, conn: Connection, player_id: int, **values: Any) -> None:
        conn.execute(update(players).where(players.c.id == player_id).values(**values))

    # -- submissions ----------------------------------------------------------------

    def add_submission(
        self, conn: Connection, game: str, turn: int, player: str, seq: int, text: str, at: datetime
    ) -> None:
        if self._sqlite:
            self._cursor(conn).execute(
                "INSERT INTO submissions (game, turn, player, seq, text, received_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game, turn, player, seq, text, self._bind_datetime(at)),
            )
            return
        conn.execute(
            _SUBMISSION_INSERT,
            {
                "game": game,
                "turn": turn,
                "player": player,
                "seq": seq,
                "text": text,
                "received_at": at,
            },
        )

    def current_submission(
        self, conn: Connection, game: str, turn: int, player: str
    ) -> tuple[int, str] | None:
        """The standing order text of a player for a turn: (seq, text)."""
        if self._sqlite:
            r = (
                self._cursor(conn)
                .execute(
                    "SELECT seq, text FROM submissions WHERE game = ? AND turn = ? AND player = ? "
                    "ORDER BY seq DESC, id DESC LIMIT 1",
                    (game, turn, player),
                )
                .fetchone()
            )
        else:
            r = conn.execute(
                _SUBMISSION_CURRENT, {"game": game, "turn": turn, "player": player}
            ).first()
        return None if r is None else (r[0], r[1])

    def set_ready(self, conn: Connection, game: str, turn: int, player: str) -> None:
        exists = conn.execute(
            select(ready).where(
                ready.c.game == game, ready.c.turn == turn, ready.c.player == player
            )
        ).first()
        if exists is None:
            conn.execute(ready.insert().values(game=game, turn=turn, player=player))

    # -- watchers ---------------------------------------------------------------------

    def watch(self, conn: Connection, game: str, email: str, on: bool) -> bool:
        """Start or stop watching; False if nothing changed."""
        found = conn.execute(
            select(watchers).where(watchers.c.game == game, watchers.c.email == email.lower())
        ).first()
        if on and found is None:
            conn.execute(watchers.insert().values(game=game, email=email.lower()))
            return True
        if not on and found is not None:
            conn.execute(
                watchers.delete().where(watchers.c.game == game, watchers.c.email == email.lower())
            )
            return True
        return False

    def watchers(self, conn: Connection, game: str) -> list[str]:
        return [
            r[0]
            for r in conn.execute(select(watchers.c.email).where(watchers.c.game == game)).all()
        ]

    # -- authentication failures ----------------------------------------------------

    def add_auth_failure(
        self, conn: Connection, address: str, game: str | None, at: datetime
    ) -> int:
        """Record a failure; returns failures from this address in the last hour."""
        conn.execute(auth_failures.insert().values(address=address.lower(), game=game, at=at))
        return self.recent_auth_failures(conn, address, at)

    def recent_auth_failures(self, conn: Connection, address: str, at: datetime) -> int:
        return conn.execute(
            _AUTH_RECENT, {"address": address.lower(), "since": at - timedelta(hours=1)}
        ).scalar_one()

    def auth_failure_times(self, conn: Connection, address: str, at: datetime) -> list[datetime]:
        """When the failures from ``address`` in the hour before ``at`` came, oldest first."""
        rows = conn.execute(
            select(auth_failures.c.at)
            .where(
                auth_failures.c.address == address.lower(),
                auth_failures.c.at > at - timedelta(hours=1),
            )
            .order_by(auth_failures.c.at)
        ).all()
        return [t for r in rows if (t := _aware(r[0])) is not None]

    # -- outbox ---------------------------------------------------------------------------

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
    ) -> int:
        """A mail to send (``status`` pending), or one held by the daily cap
        (held) for the next day's digest."""
        if self._sqlite:
            cursor = self._cursor(conn)
            when = self._bind_datetime(at)
            cursor.execute(
                "INSERT INTO outbox (created_at, kind, to_addr, message_id, message, status, "
                "attempts, next_attempt_at, inbox_id) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)",
                (when, kind, to_addr, message_id, message, status, when, inbox_id),
            )
            return int(cursor.lastrowid)
        result = conn.execute(
            _OUTBOX_INSERT,
            {
                "created_at": at,
                "kind": kind,
                "to_addr": to_addr,
                "message_id": message_id,
                "message": message,
                "status": status,
                "attempts": 0,
                "next_attempt_at": at,
                "inbox_id": inbox_id,
            },
        )
        return int(result.inserted_primary_key[0])

    def count_reply(self, conn: Connection, address: str, day: str, cap: int) -> int | None:
        """Count one more reply to ``address`` on ``day`` (UTC, YYYY-MM-DD)
        and return how many that makes, or None (nothing counted) if
        ``cap`` replies went there that day already."""
        cursor = self._cursor(conn) if self._sqlite else None
        if cursor is not None:
            row = cursor.execute(
                "SELECT count FROM reply_counts WHERE address = ? AND day = ?", (address, day)
            ).fetchone()
        else:
            row = conn.execute(
                select(reply_counts.c.count).where(
                    reply_counts.c.address == address, reply_counts.c.day == day
                )
            ).first()
        count = 0 if row is None else row[0]
        if count >= cap:
            return None
        if cursor is not None:
            cursor.execute(
                "INSERT INTO reply_counts (address, day, count) VALUES (?, ?, 1) "
                "ON CONFLICT (address, day) DO UPDATE SET count = count + 1",
                (address, day),
            )
        elif row is None:
            conn.execute(reply_counts.insert().values(address=address, day=day, count=1))
        else:
            conn.execute(
                update(reply_counts)
                .where(reply_counts.c.address == address, reply_counts.c.day == day)
                .values(count=reply_counts.c.count + 1)
            )
        return count + 1

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
        return [_outbox_row(r) for r in rows]

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

    def take_reply(self, conn: Connection, address: str, day: str, cap: int) -> bool:
        """Count one more reply to ``address`` on ``day`` (UTC, YYYY-MM-DD),
        unless ``cap`` replies went there that day already: then False."""
        if self._sqlite:
            cursor = self._cursor(conn)
            row = cursor.execute(
                "SELECT count FROM reply_counts WHERE address = ? AND day = ?", (address, day)
            ).fetchone()
            if row is not None and row[0] >= cap:
                return False
            cursor.execute(
                "INSERT INTO reply_counts (address, day, count) VALUES (?, ?, 1) "
                "ON CONFLICT (address, day) DO UPDATE SET count = count + 1",
                (address, day),
            )
            return True
        row = conn.execute(
            select(reply_counts.c.count).where(
                reply_counts.c.address == address, reply_counts.c.day == day
            )
        ).first()
        if row is None:
            conn.execute(reply_counts.insert().values(address=address, day=day, count=1))
            return True
        if row[0] >= cap:
            return False
        conn.execute(
            update(reply_counts)
            .where(reply_counts.c.address == address, reply_counts.c.day == day)
            .values(count=reply_counts.c.count + 1)
        )
        return True

    def due_mail(self, now: datetime, limit: int = 50) -> list[OutboxRow]:
        with self.tx(write=False) as conn:
            rows = conn.execute(
                select(outbox)
                .where(outbox.c.status == "pending", outbox.c.next_attempt_at <= now)
                .order_by(outbox.c.id)
                .limit(limit)
            ).all()
        return [_outbox_row(r) for r in rows]

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
        with self.tx() as conn:
            ids = (
                conn.execute(
                    select(outbox.c.id)
                    .where(outbox.c.status == "pending", outbox.c.next_attempt_at <= now, free)
                    .order_by(outbox.c.id)
                    .limit(limit)
                )
                .scalars()
                .all()
            )
            if not ids:
                return []
            conn.execute(
                update(outbox)
                .where(outbox.c.id.in_(ids))
                .values(claimed_by=holder, lease_until=wall + lease)
            )
            rows = conn.execute(select(outbox).where(outbox.c.id.in_(ids)).order_by(outbox.c.id))
            return [_outbox_row(r) for r in rows]

    def outbox_rows(self, kind: str | None = None, to_addr: str | None = None) -> list[OutboxRow]:
        with self.tx(write=False) as conn:
            q = select(outbox).order_by(outbox.c.id)
            if kind:
                q = q.where(outbox.c.kind == kind)
            if to_addr:
                q = q.where(func.lower(outbox.c.to_addr) == to_addr.lower())
            return [_outbox_row(r) for r in conn.execute(q).all()]

    def match_bounce(
        self, conn: Connection, message_ids: Sequence[str], note: str
    ) -> tuple[int, str] | None:
        """The first of our mails a bounce names, marked with ``note``:
        (outbox id, address)."""
        for mid in message_ids:
            r = conn.execute(
                select(outbox.c.id, outbox.c.to_addr).where(outbox.c.message_id == mid)
            ).first()
            if r is not None:
                conn.execute(update(outbox).where(outbox.c.id == r.id).values(last_error=note))
                return r.id, r.to_addr
        return None

    def mark_sent(self, outbox_id: int, at: datetime, holder: str | None = None) -> bool:
        return self.mark_sent_many([outbox_id], at, holder) == 1

    def mark_sent_many(
        self, outbox_ids: Sequence[int], at: datetime, holder: str | None = None
    ) -> int:
        """Mark mails sent that are still pending (and, with ``holder``,
        still claimed by that sender); returns how many."""
        with self.tx() as conn:
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
        with self.tx() as conn:
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


def _spool_rows(cursor: Any, mails: Sequence[dict[str, Any]], when: Any) -> list[tuple[int, bool]]:
    """Insert received mails into the spool through an SQLite cursor, inside
    the caller's transaction: (number, True if new) for each; the same bytes
    again insert nothing and give the first copy's number."""
    out: list[tuple[int, bool]] = []
    for m in mails:
        cursor.execute(
            "INSERT OR IGNORE INTO spool (received_at, mail_from, rcpt_to, raw, sha256, "
            "message_id) VALUES (?, ?, ?, ?, ?, ?)",
            (
                when(m["received_at"]),
                m["mail_from"],
                json.dumps(list(m["rcpt_to"])),
                m["raw"],
                m["sha256"],
                m.get("message_id"),
            ),
        )
        if cursor.rowcount == 1:
            out.append((int(cursor.lastrowid), True))
        else:
            found = cursor.execute(
                "SELECT id FROM spool WHERE sha256 = ?", (m["sha256"],)
            ).fetchone()
            out.append((found[0], False))
    return out


def _inbox_row(r: Any) -> InboxRow:
    return InboxRow(
        r.id,
        _aware(r.received_at),
        r.mail_from,
        tuple(json.loads(r.rcpt_to)),
        bytes(r.raw),
        r.sha256,
        r.message_id,
        r.state,
        r.attempts,
        r.error,
        r.note,
        r.claims,
    )


def _outbox_row(r: Any) -> OutboxRow:
    return OutboxRow(
        r.id,
        r.kind,
        r.to_addr,
        r.message_id,
        bytes(r.message),
        r.status,
        r.attempts,
        _aware(r.next_attempt_at),
        _aware(r.created_at),
        r.last_error,
    )


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # let SQLAlchemy's "begin" event issue BEGIN (IMMEDIATE) itself
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    if conn.get_execution_options().get("pbem_read"):
        conn.exec_driver_sql("BEGIN")
    else:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


class SpoolWriter:
    """The SMTP side's one writer to the spool, for SQLite: a connection of
    its own, held open, with no pool or events between it and SQLite, since
    a client waits on every commit. Other databases go through ``Store``."""

    def __init__(self, store: Store) -> None:
        self.store = store.spool
        self._raw: Any = None
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
        writer holds the lock."""
        if self._raw is None:
            return self.store.try_store_mails(mails)
        import sqlite3

        when = self.store._bind_datetime
        cursor = self._raw.cursor()
        try:
            cursor.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return None
            raise StoreError(str(exc)) from exc
        try:
            out = _spool_rows(cursor, mails, when)
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

    def close(self) -> None:
        if self._raw is not None:
            self._raw.close()
        self.store.close()
