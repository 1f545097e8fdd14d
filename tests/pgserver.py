"""A real PostgreSQL server for tests: Debian's postgresql (the Makefile
installs it), a cluster made by initdb in a temporary folder, listening on
a loopback port, removed afterwards.

One server per test process (pytest-xdist runs two); each test that asks
for ``pg_url`` gets a database of its own, copied from a template that the
migrations built once, so a test starts from the newest schema in a few
milliseconds.

PostgreSQL refuses to run as root: as root the server runs as the
``postgres`` user the package made, in a folder handed to it.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.mailharness import free_port

TEMPLATE = "pbem_template"


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return found[-1].parent if found else None


def need_postgres() -> Path:
    """PostgreSQL must be there under `make test` (which installs it); a
    bare pytest on a machine without it skips these tests."""
    bin_dir = binaries()
    if bin_dir is not None:
        return bin_dir
    if os.environ.get("PBEM_NEED_POSTGRES"):
        pytest.fail("PostgreSQL is not installed: run the tests with `make test`")
    pytest.skip("needs Debian's postgresql (make test installs it)")


class PostgresServer:
    """One PostgreSQL cluster in a temporary folder. ``durable=False``
    (tests) turns fsync off: these tests kill pbem, never the database.
    The benchmark keeps fsync on, as SQLite's synchronous=FULL is."""

    def __init__(self, bin_dir: Path, durable: bool = False) -> None:
        self.bin = bin_dir
        self.durable = durable
        self.port = free_port()
        # the postgres user must reach the folder: not under a 0700 one
        self.root = Path(tempfile.mkdtemp(prefix="pbem-pg-", dir="/var/tmp"))
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self._names = itertools.count(1)
        self.as_root = os.geteuid() == 0
        # whose server it is: a test process killed before it could stop
        # its server leaves it to the next one to remove (stop_orphans)
        (self.root / "owner.pid").write_text(str(os.getpid()))
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)

    def start(self) -> PostgresServer:
        stop_orphans(self.bin)
        made = self._run(
            "initdb", "-D", str(self.data), "-U", "pbem", "--auth=trust", "-E", "UTF8",
            "--locale=C", "--no-sync",
        )  # fmt: skip
        if made.returncode != 0:
            raise RuntimeError(f"initdb failed:\n{made.stdout}\n{made.stderr}")
        options = [
            f"-p {self.port}",
            "-c listen_addresses=127.0.0.1",
            f"-c unix_socket_directories={self.root}",
            "-c max_connections=200",
            "-c shared_buffers=64MB",
        ]
        if not self.durable:
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        started = self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
            "-o", " ".join(options), "start",
        )  # fmt: skip
        if started.returncode != 0:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start:\n{started.stderr}\n{log}")
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://pbem@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str, database: str = "postgres") -> str:
        """Run one statement with psql; its output."""
        done = self._run(
            "psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "pbem", "-d", database,
            "-v", "ON_ERROR_STOP=1", "-At", "-c", statement,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {statement}\n{done.stderr}")
        return done.stdout

    def template(self) -> None:
        """The template every test database is copied from: the newest
        schema, built by the migrations."""
        from pbem.store import Store

        self.sql(f"CREATE DATABASE {TEMPLATE}")
        store = Store(self.url(TEMPLATE))
        try:
            store.migrate()
        finally:
            store.close()

    def fresh(self) -> str:
        """A new database with the newest schema; its URL."""
        name = f"t{os.getpid()}_{next(self._names)}"
        for attempt in range(20):
            try:
                self.sql(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
                break
            except RuntimeError:  # the template is briefly in use
                if attempt == 19:
                    raise
                time.sleep(0.1)
        return self.url(name)

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


def stop_orphans(bin_dir: Path) -> None:
    """Stop and remove the servers of test processes that are gone."""
    for owner in Path("/var/tmp").glob("pbem-pg-*/owner.pid"):
        try:
            pid = int(owner.read_text())
            os.kill(pid, 0)
            continue  # its test process is still running
        except ProcessLookupError:
            pass
        except (ValueError, OSError):
            continue
        data = owner.parent / "data"
        if data.exists():
            cmd = [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]
            if os.geteuid() == 0:
                cmd = ["runuser", "-u", "postgres", "--", *cmd]
            subprocess.run(cmd, capture_output=True, timeout=60, check=False)
        shutil.rmtree(owner.parent, ignore_errors=True)
