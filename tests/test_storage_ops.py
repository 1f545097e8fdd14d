"""The store as an operator meets it: only `pbem migrate` changes a schema
(an old and a new version of pbem on one PostgreSQL), every command says
in one line when the database is down, and no wait on a database that does
not answer is unbounded (a listener that never answers, a PostgreSQL
stopped with SIGSTOP under `pbem serve`)."""

from __future__ import annotations

import os
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pbem.store import Store
from pbem.store.database import head_revision
from tests.mailharness import GAMES_YAML, free_port, wait_for
from tests.pgserver import PostgresServer, need_postgres
from tests.serveproc import Serve, kill_all

ROOT = Path(__file__).resolve().parent.parent
ALPHA = "alpha@judge.example"


@pytest.fixture(autouse=True)
def _no_orphans():
    yield
    kill_all()


def games_yaml(root: Path, storage: str, extra: str = "") -> Path:
    text = GAMES_YAML.replace("storage: var/pbem.sqlite", f"storage: {storage}{extra}")
    (root / "games.yaml").write_text(text)
    return root / "games.yaml"


def pbem(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """`pbem ARGS` as the operator runs it: a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "pbem.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def command(capsys: pytest.CaptureFixture, root: Path, *args: str) -> subprocess.CompletedProcess:
    """`pbem ARGS --config ROOT/games.yaml` through the CLI's main(), in
    this process (quicker than a process of its own), as a finished one."""
    from pbem.cli.main import main

    code = main([*args, "--config", str(root / "games.yaml")])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


def one_plain_line(done: subprocess.CompletedProcess) -> str:
    """The one line a failed command printed (no traceback)."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


COMMANDS = [
    ["nodes"],
    ["inbox"],
    ["retry", "1"],
    ["master", "alpha", "status"],
    ["seat", "alpha", "eve", "eve@example.org"],
    ["report", "alpha"],
    ["reachable"],
    ["play", "alpha", "ann", "STATUS"],
    ["rank"],
]


def test_every_command_says_in_one_line_that_the_database_is_unreachable(capsys, tmp_path):
    """Nothing listens on the port: each command that opens the store
    prints one line (the URL without its password, the driver's reason)
    and exits 1; `pbem check` finds the file fine and the storage not."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens on it
    games_yaml(tmp_path, f"postgresql://pbem:hunter2@127.0.0.1:{port}/pbem")
    said = [one_plain_line(command(capsys, tmp_path, *argv)) for argv in COMMANDS]
    said += [
        one_plain_line(pbem(argv, "games.yaml", cwd=tmp_path)) for argv in ("migrate", "serve")
    ]
    for line in said:
        assert line.startswith(
            f"pbem: the database at postgresql://pbem:***@127.0.0.1:{port}/pbem is unreachable: "
        ), line
        assert "refused" in line and "hunter2" not in line
    done = pbem("check", "games.yaml", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "games.yaml: OK" not in done.stdout
    assert done.stdout.startswith("games.yaml: the file is fine; its storage is not\n")
    said = f"storage: the database at postgresql://pbem:***@127.0.0.1:{port}/pbem is unreachable"
    assert said in done.stdout
    assert "hunter2" not in done.stdout


class Silent:
    """A database that does not answer: a TCP listener on 127.0.0.1 that
    accepts every connection and never says a word."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.mark.serial
def test_a_database_that_never_answers_fails_a_command_within_the_connect_timeout(tmp_path):
    silent = Silent()
    try:
        games_yaml(
            tmp_path,
            f"postgresql://pbem@127.0.0.1:{silent.port}/pbem",
            "\n  storage_timeouts: {connect: 2}",
        )
        started = time.monotonic()
        line = one_plain_line(pbem("nodes", "--config", "games.yaml", cwd=tmp_path))
        took = time.monotonic() - started
        assert line.startswith(
            f"pbem: the database at postgresql://pbem@127.0.0.1:{silent.port}/pbem is unreachable: "
        ), line
        assert "timeout" in line, line
        assert took < 2 + 8, took  # the connect timeout, and the start of Python
    finally:
        silent.close()


def test_only_migrate_changes_the_schema_of_a_shared_database(capsys, postgres, tmp_path):
    """An old node is this code without its newest migration applied: the
    store one revision behind. `pbem serve` and the commands refuse it,
    plainly, and change nothing; `pbem migrate` brings it up; the nodes
    then start. A store one revision ahead (a newer pbem migrated it) is
    refused, naming the revision and this version's newest."""
    postgres.sql("CREATE DATABASE upgrade")
    url = postgres.url("upgrade")
    games_yaml(tmp_path, url)
    store = Store(url)
    head = head_revision()
    before = f"{int(head) - 1:04d}"
    try:
        assert pbem("migrate", "games.yaml", cwd=tmp_path).returncode == 0
        store.alembic("downgrade", before)
        behind = (
            f"pbem: the store at {url} is at revision {before}; this version of pbem "
            f"needs {head}: run `pbem migrate`"
        )
        port = free_port()
        line = one_plain_line(pbem("serve", "games.yaml", "--port", str(port), cwd=tmp_path))
        assert line == behind
        for argv in COMMANDS:
            assert one_plain_line(command(capsys, tmp_path, *argv)) == behind
        assert store._revision() == before  # none of them migrated it
        done = pbem("check", "games.yaml", cwd=tmp_path)
        assert done.returncode == 1 and behind.removeprefix("pbem: ") in done.stdout

        done = pbem("migrate", "games.yaml", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert f"was at revision {before}; it is now at {head}" in done.stdout
        assert store._revision() == head
        nodes = [Serve(tmp_path), Serve(tmp_path)]
        with smtplib.SMTP("127.0.0.1", nodes[0].port, timeout=20) as s:
            s.sendmail("ann@example.org", [ALPHA], b"Subject: x\r\n\r\nHELP\r\n")
        wait_for(
            lambda: "2 nodes alive" in command(capsys, tmp_path, "nodes").stdout,
            30,
            "both nodes' heartbeats",
        )
        for node in nodes:
            node.stop()

        ahead = f"{int(head) + 1:04d}"
        postgres.sql(f"UPDATE alembic_version SET version_num = '{ahead}'", "upgrade")
        line = one_plain_line(command(capsys, tmp_path, "nodes"))
        assert line == (
            f"pbem: the store at {url} is at revision {ahead}, newer than this version of "
            f"pbem knows (up to {head}): install the newer version of pbem that migrated it"
        )
        assert one_plain_line(pbem("migrate", "games.yaml", cwd=tmp_path)) == line
        assert one_plain_line(pbem("serve", "games.yaml", cwd=tmp_path)) == line
    finally:
        store.close()


def test_the_newest_migration_keeps_the_previous_release_working():
    """Expand, then contract: the newest migration only adds (a nullable
    column, a table, an index), so nodes of the previous release go on
    working on the new schema while the nodes restart one by one."""
    text = max((ROOT / "pbem/store/migrations/versions").glob("[0-9]*_*.py")).read_text()
    upgrade = text.split("def upgrade", 1)[1].split("def downgrade", 1)[0]
    for taking_away in ("drop_column", "drop_table", "alter_column", "rename", "drop_index"):
        assert taking_away not in upgrade, taking_away
    # a column added to a table the previous release writes must not need a
    # value that release does not give (a new table is the new release's own)
    for added in upgrade.split("op.add_column(")[1:]:
        column = added.split("\n\n")[0]
        assert "nullable=False" not in column or "server_default" in column, column


def _processes(postmaster: int) -> list[int]:
    """The server's processes: the postmaster and its children."""
    found = [postmaster]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == postmaster:
                found.append(int(entry.name))
    return found


def _signal(server: PostgresServer, sig: int) -> None:
    pidfile = server.data / "postmaster.pid"
    if not pidfile.exists():
        return  # stopped
    postmaster = int(pidfile.read_text().split()[0])
    for pid in _processes(postmaster):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


@pytest.mark.serial
def test_a_hung_postgresql_gives_451_within_seconds_and_mail_flows_again(tmp_path):
    """A PostgreSQL of its own, stopped with SIGSTOP while `pbem serve`
    takes mail: each SMTP client is answered 451 within the spool timeout
    and a margin (no session held until the database comes back); after
    SIGCONT mail is taken again. Then the server stopped: the commands
    say so in one line."""
    server = PostgresServer(need_postgres()).start()
    try:
        server.sql("CREATE DATABASE hung")
        games_yaml(tmp_path, server.url("hung"), "\n  storage_timeouts: {connect: 2, spool: 2}")
        node = Serve(tmp_path)
        mail = b"Subject: x\r\n\r\nHELP\r\n"
        with smtplib.SMTP("127.0.0.1", node.port, timeout=30) as s:
            s.sendmail("ann@example.org", [ALPHA], mail)  # the spool's connection made
        _signal(server, signal.SIGSTOP)
        try:
            for n in range(2):
                started = time.monotonic()
                with smtplib.SMTP("127.0.0.1", node.port, timeout=30) as s:
                    with pytest.raises(smtplib.SMTPDataError) as refused:
                        s.sendmail("ann@example.org", [ALPHA], mail + b"%d\r\n" % n)
                assert refused.value.smtp_code == 451, refused.value
                assert time.monotonic() - started < 2 + 3  # games.yaml's spool: 2
        finally:
            _signal(server, signal.SIGCONT)

        def taken() -> bool:
            try:
                with smtplib.SMTP("127.0.0.1", node.port, timeout=30) as s:
                    s.sendmail("ann@example.org", [ALPHA], mail + b"again\r\n")
                return True
            except smtplib.SMTPDataError:
                return False

        wait_for(taken, 30, "mail taken again after SIGCONT")
        node.stop()
        server._run("pg_ctl", "-D", str(server.data), "-m", "fast", "-w", "stop")
        line = one_plain_line(pbem("inbox", "--config", "games.yaml", cwd=tmp_path))
        assert line.startswith(f"pbem: the database at {server.url('hung')} is unreachable: ")
    finally:
        _signal(server, signal.SIGCONT)
        server.stop()


def test_postgresql_statements_have_the_configured_timeout(pg_url):
    """games.yaml's statement timeout is PostgreSQL's statement_timeout on
    every connection of the store."""
    from pbem.config.model import StorageTimeouts

    store = Store.open(pg_url, timeouts=StorageTimeouts(connect=3, statement=7, spool=2))
    try:
        with store.tx(write=False) as conn:
            assert conn.exec_driver_sql("SHOW statement_timeout").scalar() == "7s"
    finally:
        store.close()
