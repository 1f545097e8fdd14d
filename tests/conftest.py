"""Fixtures shared by the tests: a running mail server (``judge``), and the
storage backends the storage tests run on.

PostgreSQL: one real server per test process (``postgres``, started on the
first test that asks for it, its template database migrated once, stopped
and removed at the end); each test that asks for ``pg_url`` gets a database
of its own, copied from the template, dropped afterwards. ``store`` and
``storage`` are parametrised over both backends: a test that takes them
runs once on an SQLite file and once on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mailharness import Harness
from tests.pgserver import PostgresServer, need_postgres

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture
def judge(tmp_path):
    """A running pbem mail server on an SQLite file; always stopped."""
    harness = Harness(tmp_path)
    try:
        yield harness
    finally:
        harness.close()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """This test process's PostgreSQL server, its template migrated."""
    server = PostgresServer(need_postgres()).start()
    try:
        server.template()
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(postgres: PostgresServer) -> Iterator[str]:
    """A new database with the newest schema, dropped after the test."""
    url = postgres.fresh()
    yield url
    name = url.rsplit("/", 1)[1]
    postgres.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> str | None:
    """games.yaml's storage for a test server, on each backend in turn:
    None (the SQLite file the games.yaml names) or a PostgreSQL URL."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("pg_url")


@pytest.fixture
def store(storage: str | None, tmp_path: Path) -> Iterator:
    """A migrated, empty store on each backend in turn; closed afterwards."""
    from pbem.store import Store

    opened = Store.at(tmp_path / "db.sqlite") if storage is None else Store(storage)
    opened.migrate()
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def judge_both(storage: str | None, tmp_path: Path) -> Iterator[Harness]:
    """``judge`` on each backend in turn: the same games.yaml, its storage
    an SQLite file, then a PostgreSQL database."""
    harness = Harness(tmp_path, storage=storage)
    try:
        yield harness
    finally:
        harness.close()
