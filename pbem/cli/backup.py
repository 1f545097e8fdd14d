"""`pbem backup FILE`: a copy of an SQLite store while the server runs.

SQLite's online backup copies the database page by page, consistent as of
one moment, while the SMTP side and the worker go on writing. The spool
(mail answered 250 and not yet moved into the inbox) is copied the same
way, beside the copy, so nothing acknowledged is missing from the pair.
Both copies are made readable by their owner alone before a byte goes
in: they hold the players' password hashes and the server's secret.

A store on PostgreSQL is backed up with pg_dump (docs/deploy.md).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
from pathlib import Path
from typing import TextIO

from pbem.cli.errors import InputError
from pbem.config import load_config

PAGES = 256  # copied per step: the writers wait at most for one step's lock


def spool_of(path: Path) -> Path:
    """The spool beside a store (``pbem.sqlite`` spools to ``pbem-spool.sqlite``)."""
    return path.with_name(f"{path.stem}-spool{path.suffix}")


def cmd_backup(args: argparse.Namespace, out: TextIO) -> int:
    config = load_config(args.config)
    storage = str(config.server.storage)
    if "://" in storage:
        raise InputError(
            "the storage is a database server: back it up with pg_dump (docs/deploy.md, "
            "Backups and restore)"
        )
    source = Path(storage)
    if not source.is_file():
        raise InputError(f"no store at {source}: nothing to back up")
    target = Path(args.file)
    if target.is_dir() or not target.suffix:  # a folder (made if need be)
        target = target / source.name
    pairs = [(source, target), (spool_of(source), spool_of(target))]
    for _, copy in pairs:
        if copy.exists():
            raise InputError(f"{copy} exists: a backup never overwrites a file")
    for original, copy in pairs:
        if original.is_file():
            _copy(original, copy)
            print(f"{original} -> {copy}", file=out)
    print(
        f"backed up: to restore, stop pbem, put {target.name} back as {source.name} "
        f"and {spool_of(target).name} as {spool_of(source).name} (no -wal or -shm "
        "files beside them), and start it",
        file=out,
    )
    return 0


def _copy(original: Path, copy: Path) -> None:
    """One SQLite file copied online into a new file of mode 0600."""
    copy.parent.mkdir(parents=True, exist_ok=True)
    os.close(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    source = sqlite3.connect(f"file:{original}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(copy)
        try:
            source.backup(target, pages=PAGES)
            # a copy that stands alone: no write-ahead log beside it
            target.execute("PRAGMA journal_mode=DELETE")
        finally:
            target.close()
    except BaseException:
        copy.unlink(missing_ok=True)
        raise
    finally:
        source.close()
