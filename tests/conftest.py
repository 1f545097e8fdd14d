"""Fixtures shared by the tests: a running mail server (``judge``), and the
storage backends the storage tests run on.

PostgreSQL: one real server per test process (``postgres``, started on the
first test that asks for it, its template database migrated once, stopped
and removed at the end); each test that asks for ``pg_url`` gets a database
of its own with the newest schema and no rows. Copying the template takes
half a second, emptying a database a few milliseconds: a database a test
passed on is emptied and handed to the next one; one a test failed on, or
whose schema or settings it changed, is dropped. ``store`` and
``judge_both`` are parametrised over both backends: a test that takes them
runs once on an SQLite file and once on PostgreSQL; so does a test marked
``on_both_backends`` whose server takes ``storage``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbem.store.schema import metadata
from tests.mailharness import BACKENDS, Harness
from tests.pgserver import TEMPLATE, PostgresServer, need_postgres


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    """Keep each phase's report on the test, for fixtures to read."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


class Databases:
    """The test databases of this process's PostgreSQL server: a clean one
    for each test, reused when the test passed and left the schema be."""

    def __init__(self, server: PostgresServer) -> None:
        self.server = server
        self.free: list[str] = []
        self.head = server.sql("SELECT version_num FROM alembic_version", TEMPLATE).strip()

    def take(self) -> str:
        return self.free.pop() if self.free else self.server.fresh()

    def give_back(self, url: str, reuse: bool) -> None:
        name = url.rsplit("/", 1)[1]
        if reuse and self._emptied(url):
            self.free.append(url)
        else:
            self.server.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def _emptied(self, url: str) -> bool:
        """Empty the database for the next test (its rows deleted, its
        numbering restarted); False if it cannot serve as new."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            tables = {
                r[0]
                for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            }
            version = conn.execute("SELECT version_num FROM alembic_version").fetchall()
            settings = conn.execute(
                "SELECT count(*) FROM pg_db_role_setting s JOIN pg_database d"
                " ON d.oid = s.setdatabase WHERE d.datname = %s",
                (name,),
            ).fetchone()[0]
            if tables != set(metadata.tables) | {"alembic_version"} or version != [(self.head,)]:
                return False
            if settings:  # ALTER DATABASE ... SET: not as new
                return False
            with conn.transaction():
                for table in reversed(metadata.sorted_tables):
                    conn.execute(f"DELETE FROM {table.name}")
                for (sequence,) in conn.execute("SELECT sequencename FROM pg_sequences").fetchall():
                    conn.execute(f"ALTER SEQUENCE {sequence} RESTART")
        return True


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """This test process's PostgreSQL server, its template migrated."""
    server = PostgresServer(need_postgres()).start()
    try:
        server.template()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_databases(postgres: PostgresServer) -> Databases:
    return Databases(postgres)


@pytest.fixture
def pg_url(pg_databases: Databases, request: pytest.FixtureRequest) -> Iterator[str]:
    """A database of this test's own with the newest schema and no rows."""
    databases = pg_databases
    url = databases.take()
    yield url
    call = getattr(request.node, "report_call", None)
    databases.give_back(url, reuse=call is not None and call.passed)


def _storage(request: pytest.FixtureRequest, backend: str) -> str | None:
    """games.yaml's storage for ``backend``: None (the SQLite file the
    games.yaml names) or a PostgreSQL database of the test's own."""
    return None if backend == "sqlite" else request.getfixturevalue("pg_url")


@pytest.fixture
def storage(request: pytest.FixtureRequest) -> str | None:
    """A test server's storage: SQLite, unless the test is marked
    ``on_both_backends`` (tests/mailharness.py), which runs it on each."""
    return _storage(request, getattr(request, "param", "sqlite"))


@pytest.fixture
def judge(tmp_path: Path, storage: str | None) -> Iterator[Harness]:
    """A running pbem mail server (on SQLite, or on each backend for a
    test marked ``on_both_backends``); always stopped."""
    harness = Harness(tmp_path, storage=storage)
    try:
        yield harness
    finally:
        harness.close()


@pytest.fixture(params=BACKENDS)
def judge_both(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Harness]:
    """``judge`` on each backend in turn: the same games.yaml, its storage
    an SQLite file, then a PostgreSQL database."""
    harness = Harness(tmp_path, storage=_storage(request, request.param))
    try:
        yield harness
    finally:
        harness.close()


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator:
    """A migrated, empty store on each backend in turn; closed afterwards."""
    from pbem.store import Store

    url = _storage(request, request.param)
    opened = Store.at(tmp_path / "db.sqlite") if url is None else Store(url)
    opened.migrate()
    try:
        yield opened
    finally:
        opened.close()
