"""The connection to the database: engine, transactions, migrations, and the
one fast path for the statements every mail runs (``Hot``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.expression import Executable

from pbem.store.rows import StoreError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def head_revision() -> str:
    """The newest migration: the highest number of a file in versions/
    (each file's revision is its number, its down_revision the number
    before: tests/test_store.py checks this against alembic's own
    reading)."""
    return max(p.name.split("_", 1)[0] for p in (MIGRATIONS / "versions").glob("[0-9]*_*.py"))


# PostgreSQL: the advisory lock every write transaction takes (see
# Database.tx), a number of our own in the database's one lock space
WRITE_LOCK = 0x7062656D  # "pbem"
# How a write transaction on a database shared by several nodes waits for
# the others: EXCLUSIVE (SQLite's one writer: everything that reads, checks,
# then writes game state), SHARED (turns: each locks its own game's row, so
# turns of different games run at once, never beside an exclusive writer),
# or NONE (writes that touch nothing another writer checks: spooling a
# received mail, a node's heartbeat).
EXCLUSIVE, SHARED, NONE = "exclusive", "shared", "none"


def is_url(storage: str | Path) -> bool:
    """Whether games.yaml's ``storage`` is a database URL (else a path)."""
    return isinstance(storage, str) and "://" in storage


def engine_url(url: str) -> str:
    """The URL SQLAlchemy is handed: ``postgresql://`` and ``postgres://``
    mean the psycopg (3) driver, the one pbem installs."""
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


def shown(url: str) -> str:
    """A URL fit for a log or a screen: no password."""
    from sqlalchemy.engine import make_url

    try:
        text = make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(a database URL that cannot be read)"
    # as games.yaml writes it: the driver is pbem's business
    return text.replace("postgresql+psycopg://", "postgresql://", 1)


class Hot:
    """A statement the mail path runs for every mail, written once in
    SQLAlchemy Core. ``Database.run`` executes it through Core, or on
    SQLite through the connection's own DBAPI cursor: the statement is
    compiled once for the dialect and each value passes through its
    column's own SQLAlchemy type processor, so what is written reads back
    exactly as through Core, at a tenth of Core's cost a statement."""

    def __init__(self, statement: Executable, columns: Sequence[str] = ()) -> None:
        """``columns``: those an INSERT or UPDATE sets, from parameters of
        their own names (SQLAlchemy reserves a column's name for that)."""
        self.statement = statement
        self.columns = list(columns)
        self._compiled: dict[str, tuple[str, list[tuple[str, Any]], dict[str, Any]]] = {}

    def _for(self, dialect: Any) -> tuple[str, list[tuple[str, Any]], dict[str, Any]]:
        """(SQL text, (name, processor) for each placeholder, fixed values).
        Compiled with positional placeholders whatever the driver's own
        style (psycopg takes both); an INSERT elsewhere than on SQLite
        returns the new row's id (RETURNING: the driver has no lastrowid)."""
        found = self._compiled.get(dialect.name)
        if found is None:
            statement = self.statement
            table = getattr(statement, "table", None)
            if dialect.name != "sqlite" and isinstance(statement, Insert) and "id" in table.c:
                statement = statement.returning(table.c.id)  # type: ignore[union-attr]
            if not dialect.positional:
                dialect = type(dialect)(paramstyle="format")
            compiled = statement.compile(dialect=dialect, column_keys=self.columns or None)
            names = compiled.positiontup or []
            binds = [
                (n, compiled.binds[n].type.dialect_impl(dialect).bind_processor(dialect))
                for n in names
            ]
            fixed = {n: compiled.params[n] for n in names if not compiled.binds[n].required}
            found = self._compiled[dialect.name] = (compiled.string, binds, fixed)
        return found

    def on_cursor(self, cursor: Any, dialect: Any, params: Mapping[str, Any]) -> Any:
        """Run on a DBAPI cursor; returns something with the cursor's face
        (fetchone, rowcount, lastrowid)."""
        sql, binds, fixed = self._for(dialect)
        values = {**fixed, **params} if fixed else params
        cursor.execute(sql, [values[n] if p is None else p(values[n]) for n, p in binds])
        return cursor if dialect.name == "sqlite" else _Returned(cursor)


def _checked(ran: list[tuple[Any, Callable[[int], None] | None]]) -> None:
    for result, check in ran:
        if check is not None:
            check(result.rowcount)


class _Returned:
    """A cursor whose INSERT returned its row's id (lastrowid)."""

    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor

    @property
    def rowcount(self) -> int:
        """Read when asked: in a pipeline, once the results are in."""
        return int(self.cursor.rowcount)

    def fetchone(self) -> Any:
        return self.cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self.cursor.fetchall())

    @property
    def lastrowid(self) -> int:
        return int(self.cursor.fetchone()[0])


class _CoreRan:
    """A Core result with the cursor's face: fetchone, rowcount, lastrowid."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.rowcount = result.rowcount

    def fetchone(self) -> Any:
        return self.result.first()

    def fetchall(self) -> list[Any]:
        return list(self.result.all())

    @property
    def lastrowid(self) -> int:
        return int(self.result.inserted_primary_key[0])


class Database:
    """An engine and its transactions. Thread-safe: every call takes its own
    connection."""

    def __init__(
        self,
        url: str,
        wait_in_python: bool = False,
        spool_url: str | None = None,
        timeouts: Any = None,
    ) -> None:
        """``wait_in_python``: wait for the write lock with short sleeps of
        our own instead of SQLite's busy handler, whose sleeps grow to tens
        of milliseconds; for the SMTP side, where every wait is a client's.
        ``spool_url``: where received mail is spooled (default: this
        database's own spool table). ``timeouts``: games.yaml's
        storage_timeouts (connect, statement, spool; seconds)."""
        url = engine_url(url)
        self.url = url
        self.timeouts = timeouts
        self.statement_timeout = float(getattr(timeouts, "statement", 60))
        self.spool_timeout = float(getattr(timeouts, "spool", 5))
        self.spool_url = engine_url(spool_url) if spool_url else url
        self.wait_in_python = wait_in_python
        self._spool: Any = None
        # writes left for later (run_later), by the driver connection they wait on
        self._later: dict[int, list[tuple[Hot, dict[str, Any], Any]]] = {}
        self._known: dict[int, dict[Any, Any]] = {}  # see known()
        sqlite = url.startswith("sqlite")
        self.engine: Engine = create_engine(
            url,
            pool_size=8,
            max_overflow=8,
            pool_timeout=60,
            # a server's connection can be cut (a restart, a failover): test
            # each one as it leaves the pool, and never hand out a dead one
            pool_pre_ping=not sqlite,
            connect_args=(
                {"timeout": 0 if wait_in_python else 30, "check_same_thread": False}
                if sqlite
                else {
                    "connect_timeout": int(getattr(timeouts, "connect", 10)),
                    "application_name": application_name(),
                    # times come back in UTC, whatever the server's own zone;
                    # no statement waits (on a lock, a hung disk) for ever
                    "options": "-c timezone=UTC -c statement_timeout="
                    f"{int(self.statement_timeout * 1000)}",
                }
            ),
        )
        # run Hot statements on the driver's own cursor (see Hot); a
        # benchmark may turn it off to weigh it
        self.hot_cursor = True
        if not sqlite:
            event.listen(self.engine, "connect", _server_connect)
            return
        event.listen(self.engine, "connect", _sqlite_connect)
        event.listen(self.engine, "begin", _sqlite_begin)
        # WAL is a property of the file: set once, not on every connection
        raw = self.engine.raw_connection()
        try:
            raw.driver_connection.execute("PRAGMA journal_mode=WAL")
        finally:
            raw.close()

    @classmethod
    def open(cls, storage: str | Path, timeouts: Any = None) -> Any:
        """The store games.yaml's ``storage`` names: a database URL, or an
        SQLite file (see ``at``)."""
        if is_url(storage):
            return cls(str(storage), timeouts=timeouts)
        return cls.at(storage, timeouts)

    @classmethod
    def at(cls, path: str | Path, timeouts: Any = None) -> Any:
        """A store in an SQLite file, its folder made if need be, with its
        spool in a file beside it (``pbem.sqlite`` spools to
        ``pbem-spool.sqlite``)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        spool = path.with_name(f"{path.stem}-spool{path.suffix}")
        return cls(f"sqlite:///{path}", spool_url=f"sqlite:///{spool}", timeouts=timeouts)

    @property
    def _sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @property
    def shared(self) -> bool:
        """Whether several nodes may work on this store at once (a database
        server: PostgreSQL). An SQLite file has one worker at a time."""
        return not self._sqlite

    @property
    def spool(self) -> Any:
        """The store that received mail is written to first (of this
        store's own class)."""
        if self.spool_url == self.url:
            return self
        if self._spool is None:
            self._spool = type(self)(
                self.spool_url, wait_in_python=self.wait_in_python, timeouts=self.timeouts
            )
        return self._spool

    def migrate(self) -> None:
        """Bring the schema to the newest migration (the spool's too: a
        spool file has the same schema, and uses its spool table). A
        schema at the newest already is left alone without loading alembic
        at all: every process of a server opens the store as it starts,
        and a restart after a crash should be quick."""
        if self._revision() != head_revision():
            self.alembic("upgrade", "head")
        if self.spool is not self:
            self.spool.migrate()

    def _revision(self) -> str | None:
        """The migration the schema is at (None: none yet). Raises the
        driver's error if the database cannot be reached."""
        from sqlalchemy import inspect

        with self.engine.connect() as conn:
            if not inspect(conn).has_table("alembic_version"):
                return None
            found = conn.exec_driver_sql("SELECT version_num FROM alembic_version").all()
        return found[0][0] if len(found) == 1 else None

    def alembic(self, how: str, revision: str) -> None:
        """Run the migrations up (``how`` "upgrade") or down ("downgrade")
        to ``revision``, in one transaction.

        On PostgreSQL under the write lock: several nodes starting at once,
        one migrates (its DDL is transactional), the others wait, then find
        it done. On SQLite with foreign keys off meanwhile: SQLite changes a
        table by building a new one and dropping the old, and rows pointing
        at the old one (orders at their mail) would stop the drop; they are
        checked once the new table has taken the old one's name."""
        from alembic import command  # only here: most starts find nothing to do
        from alembic.config import Config as AlembicConfig

        cfg = AlembicConfig()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        with self.engine.connect() as conn:
            raw = conn.connection.driver_connection
            if self._sqlite:  # only outside a transaction does SQLite take it
                raw.execute("PRAGMA foreign_keys=OFF")
            try:
                with conn.begin():
                    if not self._sqlite:  # a migration may take long: no timeout
                        conn.exec_driver_sql("SET LOCAL statement_timeout = 0")
                        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
                    cfg.attributes["connection"] = conn
                    getattr(command, how)(cfg, revision)
                    if self._sqlite and conn.exec_driver_sql("PRAGMA foreign_key_check").first():
                        raise StoreError(f"{how} to {revision} left rows pointing nowhere")
            finally:
                if self._sqlite:
                    raw.execute("PRAGMA foreign_keys=ON")

    def close(self) -> None:
        self.engine.dispose()
        if self._spool is not None:
            self._spool.close()

    @contextmanager
    def tx(self, write: bool = True, lock: str = EXCLUSIVE) -> Iterator[Connection]:
        """One transaction; StoreError when the database fails. A read
        (``write=False``) takes no lock on SQLite: in WAL mode it reads a
        snapshot while writers go on.

        A write on SQLite holds the file's one write lock (BEGIN
        IMMEDIATE). On a shared database it first takes the advisory lock
        ``lock`` says (EXCLUSIVE, SHARED or NONE; see WRITE_LOCK), held to
        the transaction's end: so every check-then-write of the host runs
        as it does on SQLite, whichever node runs it."""
        try:
            with self.engine.connect() as plain:
                conn = plain if write else plain.execution_options(pbem_read=True)
                with conn.begin():
                    if write and lock != NONE and not self._sqlite:
                        how = "pg_advisory_xact_lock" + ("_shared" if lock == SHARED else "")
                        conn.exec_driver_sql(f"SELECT {how}({WRITE_LOCK})")
                    yield conn
        except IntegrityError:
            raise
        except StoreError:
            raise
        except (OperationalError, DBAPIError) as exc:
            raise StoreError(str(exc.orig) if exc.orig else str(exc)) from exc

    def run(self, conn: Connection, hot: Hot, **params: Any) -> Any:
        """Run a hot statement in ``conn``'s transaction: on the driver's
        own cursor (or through Core, when ``hot_cursor`` is off). Returns
        something with fetchone(), rowcount and lastrowid. Writes left for
        later (``run_later``) go to the server first, in the same round
        trip."""
        if not self.hot_cursor:
            return _CoreRan(conn.execute(hot.statement, params))
        raw = conn.connection.driver_connection
        pending = self._later.get(id(raw))
        if not pending:
            return hot.on_cursor(raw.cursor(), self.engine.dialect, params)
        with raw.pipeline():
            ran = self._send(raw, pending)
            out = hot.on_cursor(raw.cursor(), self.engine.dialect, params)
        _checked(ran)
        return out

    def run_later(
        self,
        conn: Connection,
        hot: Hot,
        check: Callable[[int], None] | None = None,
        **params: Any,
    ) -> Any:
        """A write whose result nothing waits for: inside ``later`` (on
        PostgreSQL) it goes to the server with the next statement, or when
        ``later`` ends, saving a round trip each; elsewhere it runs now.
        ``check`` is given the rows it changed, and raises if that is wrong;
        so it may raise at the next statement, or when ``later`` ends.
        Returns what ``run`` does when it ran now; None when it waits."""
        raw = conn.connection.driver_connection if self.hot_cursor else None
        pending = self._later.get(id(raw))
        if pending is None:
            ran = self.run(conn, hot, **params)
            if check is not None:
                check(ran.rowcount)
            return ran
        pending.append((hot, params, check))
        return None

    @contextmanager
    def later(self, conn: Connection) -> Iterator[Callable[[], None]]:
        """Within: writes of ``run_later`` on ``conn`` wait for the next
        statement of any kind (they go first, in order, so nothing reads
        past them) and are sent at the latest when the block ends. Yields a
        flush, to send them earlier; the block ending by an exception drops
        them (its transaction is rolled back). Only on PostgreSQL, whose
        driver pipelines statements; elsewhere every write runs at once."""
        if self._sqlite or not self.hot_cursor:
            yield lambda: None
            return
        raw = conn.connection.driver_connection
        key = id(raw)
        self._later[key] = []
        self._known[key] = {}

        def flush(*_args: Any) -> None:
            pending = self._later.get(key)
            if pending:
                with raw.pipeline():
                    ran = self._send(raw, pending)
                _checked(ran)

        event.listen(conn, "before_cursor_execute", flush)
        try:
            yield flush
            flush()
        finally:
            self._later.pop(key, None)
            self._known.pop(key, None)
            event.remove(conn, "before_cursor_execute", flush)

    def known(self, conn: Connection) -> dict[Any, Any] | None:
        """Within ``later``: what the store's methods remember they read or
        wrote in this transaction, for the next mail of the batch to find
        without a round trip (the transaction holds the write lock: only
        those methods change it, and each keeps it true); else None."""
        if not self._known:
            return None
        return self._known.get(id(conn.connection.driver_connection))

    def _send(self, raw: Any, pending: list[tuple[Hot, dict[str, Any], Any]]) -> list[Any]:
        """Send the pending writes (in a pipeline); (result, check) each."""
        ran = [(hot.on_cursor(raw.cursor(), self.engine.dialect, p), c) for hot, p, c in pending]
        pending.clear()
        return ran


def application_name() -> str:
    """How this process shows in the database server's list of sessions
    (pg_stat_activity): pbem, its host and process."""
    import os
    import socket

    return f"pbem {socket.gethostname()[:40]} {os.getpid()}"


def _server_connect(dbapi_connection: Any, _record: Any) -> None:
    """PostgreSQL: large values (mails, maps) compressed with LZ4 where the
    server has it, several times cheaper than its default (pglz); a
    server built without it keeps its default."""
    import psycopg

    try:
        dbapi_connection.execute("SET default_toast_compression = lz4")
        dbapi_connection.commit()
    except psycopg.Error:
        dbapi_connection.rollback()


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
