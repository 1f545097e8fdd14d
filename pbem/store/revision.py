"""The schema's revision against this version of pbem's: only ``pbem
migrate`` changes a schema that has one (and a brand-new empty store is
built by ``pbem serve`` or ``pbem migrate``); every other command on a
store behind or ahead of this version is told so, plainly, and stops."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, inspect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from pbem.store.database import engine_url, is_url, shown
from pbem.store.rows import StoreError


class Unreachable(StoreError):
    """The database cannot be reached (or logged in to): the one line to
    say, with the driver's reason."""


class WrongRevision(StoreError):
    """The schema is not the one this version of pbem reads: what to do."""


def reason(exc: BaseException) -> str:
    """The driver's reason for a failure, on one line."""
    orig = getattr(exc, "orig", None) or exc
    lines = [line.strip() for line in str(orig).splitlines() if line.strip()]
    return lines[0] if lines else type(orig).__name__


def unreachable(database: Any, exc: BaseException) -> Unreachable:
    return Unreachable(f"the database at {shown(database.url)} is unreachable: {reason(exc)}")


def revision(database: Any) -> str | None:
    """The migration the schema is at (None: a store with no schema yet).
    Unreachable when the database cannot be reached."""
    try:
        return database._revision()  # type: ignore[no-any-return]
    except DBAPIError as exc:
        raise unreachable(database, exc) from exc


def check(database: Any, create: bool = False) -> None:
    """Raise WrongRevision unless the schema is this version's newest (a
    store with no schema yet is built when ``create``, else refused)."""
    from pbem.store.database import head_revision

    at = revision(database)
    head = head_revision()
    sqlite = database.engine.url
    where = sqlite.database if sqlite.get_backend_name() == "sqlite" else shown(database.url)
    if at is None and create:
        database.migrate()
        return
    if at is None:
        raise WrongRevision(
            f"the store at {where} has no tables yet: `pbem serve` builds it "
            "as it starts, or run `pbem migrate`"
        )
    if at != head:
        raise WrongRevision(_mismatch(where, at, head))
    if database.spool is not database:  # an SQLite file's spool beside it
        check(database.spool, create=True)


def storage_problem(storage: str | Path, timeout: float = 5.0) -> str | None:
    """What keeps pbem from keeping its mail in ``storage`` (None: nothing):
    a database it cannot reach or log in to, or an SQLite file whose
    folder cannot be made or written. Changes nothing."""
    import os

    if is_url(storage):
        url = engine_url(str(storage))
        args = {} if url.startswith("sqlite") else {"connect_timeout": max(1, int(timeout))}
        try:
            probe = create_engine(url, connect_args=args, poolclass=NullPool)
        except Exception as exc:  # a URL SQLAlchemy cannot read, a driver missing
            return f"{shown(str(storage))} cannot be used: {exc}"
        try:
            with probe.connect() as conn:
                return _behind(conn, shown(str(storage)))
        except Exception as exc:
            return f"the database at {shown(str(storage))} is unreachable: {reason(exc)}"
        finally:
            probe.dispose()
    path = Path(storage)
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        return f"cannot keep {path}: {folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot keep {path}: {folder} cannot be written to"
    if path.exists() and (path.is_dir() or not os.access(path, os.R_OK | os.W_OK)):
        what = "is a folder" if path.is_dir() else "cannot be read and written"
        return f"cannot keep {path}: it {what}"
    if path.is_file():
        probe = create_engine(f"sqlite:///{path}", poolclass=NullPool)
        try:
            with probe.connect() as conn:
                return _behind(conn, str(path))
        except DBAPIError as exc:
            return f"cannot read {path}: {reason(exc)}"
        finally:
            probe.dispose()
    return None


def _behind(conn: Any, where: str) -> str | None:
    """What a store with a schema not this version's needs (None: its
    schema is this version's newest, or it has none yet)."""
    from pbem.store.database import head_revision

    if not inspect(conn).has_table("alembic_version"):
        return None
    found = conn.exec_driver_sql("SELECT version_num FROM alembic_version").all()
    at, head = (found[0][0] if len(found) == 1 else None), head_revision()
    if at is None or at == head:
        return None
    return _mismatch(where, at, head)


def _mismatch(where: str, at: str, head: str) -> str:
    if at < head:
        return (
            f"the store at {where} is at revision {at}; this version of pbem "
            f"needs {head}: run `pbem migrate`"
        )
    return (
        f"the store at {where} is at revision {at}, newer than this version "
        f"of pbem knows (up to {head}): install the newer version of pbem "
        "that migrated it"
    )
