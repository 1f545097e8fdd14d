"""The previous release keeps running on the new schema (expand, then
contract a release later): a node of the previous release, its code as it
was just before the newest migration was added (from git), takes and
answers mail on one real PostgreSQL while this code's `pbem migrate`
brings the schema to the new head under it; a node of this code starts
beside it, both answer mail, then the old one stops and the new one takes
everything (a rolling restart).

Both releases run on this project's Python with their own tree first on
the path (PYTHONPATH): the old tree is exported with `git archive`, so the
test needs a git checkout with the newest migration's history (it skips
in an installed wheel or a shallow clone)."""

from __future__ import annotations

import email
import email.policy
import io
import os
import re
import signal
import smtplib
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.mailharness import GAMES_YAML
from tests.pgserver import PostgresServer
from tests.serveproc import Serve, kill_all

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = Path("pbem/store/migrations/versions")
ANN = "ann@example.org"
ALPHA = "alpha@judge.example"
SERVER = "judge@judge.example"


@pytest.fixture(autouse=True)
def _no_orphans():
    yield
    kill_all()


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, timeout=60, check=False
    )


def previous_release(into: Path) -> str:
    """Export into ``into`` the tree of the commit before the one that
    added the newest migration; that commit's hash. Skips where ROOT is
    not a git checkout holding that history."""
    newest = max((ROOT / VERSIONS).glob("[0-9]*_*.py")).relative_to(ROOT)
    if not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git checkout: the previous release comes from its history")
    found = _git("log", "--diff-filter=A", "--format=%H", "-1", "--", str(newest))
    added = found.stdout.decode().strip()
    parent = _git("rev-parse", "--verify", "--quiet", f"{added}^").stdout.decode().strip()
    if found.returncode != 0 or not added or not parent:
        why = found.stderr.decode().strip()
        pytest.skip(
            f"git in {ROOT} has not the commit before {newest} was added "
            f"(a shallow clone? git fetch --unshallow){': ' + why if why else ''}"
        )
    tar = _git("archive", "--format=tar", parent)
    assert tar.returncode == 0, tar.stderr.decode()
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as archive:
        archive.extractall(into, filter="data")
    return parent


class Release:
    """One release of pbem as an operator runs it: this project's Python,
    the release's tree first on the path (before the editable install's
    finder, which Python asks only after the path)."""

    def __init__(self, tree: Path) -> None:
        self.tree = tree
        self.env = {"PYTHONPATH": str(tree)}

    def head(self) -> str:
        """The newest migration this release knows."""
        return max(p.name.split("_", 1)[0] for p in (self.tree / VERSIONS).glob("[0-9]*_*.py"))

    def run(self, root: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, *args],
            cwd=root,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def pbem(self, root: Path, *args: str) -> subprocess.CompletedProcess:
        return self.run(root, "-m", "pbem.cli", *args)

    def serve(self, root: Path) -> Serve:
        return Serve(root, env=self.env)


# what a node's processes import (the CLI, the server, its worker, the
# store, a game): every one of them must come from the release's tree
IMPORTS = """\
import sys
import pbem.cli.main, pbem.serving.server, pbem.lifecycle.opening, adjudicator.officewars
from pbem.store.database import head_revision
print(head_revision())
for name, module in sorted(sys.modules.items()):
    if name.partition(".")[0] in ("pbem", "adjudicator") and getattr(module, "__file__", None):
        print(module.__file__)
"""


def imports_its_own_code(release: Release, root: Path) -> None:
    done = release.run(root, "-c", IMPORTS)
    assert done.returncode == 0, done.stderr
    head, *files = done.stdout.split()
    assert head == release.head(), (head, release.head())
    assert len(files) > 20, files
    outside = [f for f in files if not Path(f).resolve().is_relative_to(release.tree.resolve())]
    assert not outside, f"not from {release.tree}: {outside}"


def clean(node: Serve) -> None:
    """The node's output (stdout and stderr) holds no traceback."""
    out = node.output()
    if "Traceback" in out:  # the log line before it says what failed
        said = out[max(0, out.index("Traceback") - 300) :][:4000]
        raise AssertionError(f"the node on port {node.port} failed:\n{said}")


def until(what: str, predicate: Callable[[], Any], timeout: float = 60) -> Any:
    """Wait (generously: a loaded machine) for ``predicate`` to hold; a
    node that printed a traceback meanwhile fails the test at once."""
    deadline = time.monotonic() + timeout
    while True:
        for node in Serve.started:
            clean(node)
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"after {timeout:.0f} s, still waiting for {what}")
        time.sleep(0.1)


# a node's live heartbeat rows, by the SMTP port its listen names
LIVE = "listen LIKE %s AND until >= extract(epoch FROM now())"


class Database:
    """The shared database as the test reads it: plain SQL on the columns
    both releases have."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)

    def rows(self, sql: str, *params: Any) -> list[tuple]:
        return self.conn.execute(sql, params).fetchall()

    def revision(self) -> str:
        return self.rows("SELECT version_num FROM alembic_version")[0][0]

    def password(self) -> str:
        for (raw,) in self.rows(
            "SELECT message FROM outbox WHERE kind = 'password' AND to_addr = %s", ANN
        ):
            mail = email.message_from_bytes(raw, policy=email.policy.default)
            if str(mail["Subject"]).endswith(" for alpha"):
                return re.search(r"PASSWORD (\S+)", mail.get_body(("plain",)).get_content())[1]
        raise AssertionError(f"no password mail to {ANN} for alpha")

    def answer(self, tag: str) -> tuple[str, str] | None:
        """The mail ``tag``'s state and its reply's text, once the reply is
        written out (the Maildir); None before."""
        found = self.rows(
            "SELECT i.state, o.message FROM inbox i JOIN outbox o ON o.inbox_id = i.id"
            " WHERE i.message_id = %s AND o.status = 'sent'",
            f"<{tag}@example.org>",
        )
        if not found:
            return None
        assert len(found) == 1, (tag, found)
        state, raw = found[0]
        mail = email.message_from_bytes(raw, policy=email.policy.default)
        return state, mail.get_body(("plain",)).get_content()

    def orders(self, tag: str) -> list[str]:
        """The orders stored from the mail ``tag``."""
        return [
            text
            for (text,) in self.rows(
                "SELECT s.text FROM submissions s JOIN inbox i ON s.seq = i.id"
                " WHERE i.message_id = %s",
                f"<{tag}@example.org>",
            )
        ]

    def processed_by(self, node: Serve) -> int:
        """How many mails the node (known by its SMTP port) has processed,
        as its live heartbeat says."""
        found = self.rows(f"SELECT mails FROM nodes WHERE {LIVE}", f"smtp 127.0.0.1:{node.port}%")
        assert len(found) <= 1, found
        return found[0][0] if found else -1

    def alive(self, node: Serve) -> int:
        """How many live heartbeats name the node's SMTP port."""
        return self.rows(
            f"SELECT count(*) FROM nodes WHERE {LIVE}", f"smtp 127.0.0.1:{node.port}%"
        )[0][0]


def send(node: Serve, tag: str, body: str, to: str = ALPHA) -> None:
    raw = (
        f"From: {ANN}\r\nTo: {to}\r\nSubject: {tag}\r\n"
        f"Message-ID: <{tag}@example.org>\r\n\r\n{body}\r\n"
    )
    with smtplib.SMTP("127.0.0.1", node.port, timeout=30) as s:
        s.sendmail(ANN, [to], raw.encode())


def answered(db: Database, node: Serve, tag: str, body: str, to: str = ALPHA) -> tuple[str, str]:
    """Mail ``tag`` sent to ``node``, processed and answered (by any node)."""
    send(node, tag, body, to)
    return until(f"{tag} (sent to the node on port {node.port}) answered", lambda: db.answer(tag))


def ordered(db: Database, node: Serve, tag: str, password: str) -> None:
    """An order mail to ``node``: applied, its order stored, a receipt."""
    state, reply = answered(db, node, tag, f"PASSWORD {password}\r\nSol x Alnitak")
    assert state == "applied", (tag, state, reply)
    assert "received as #" in reply, reply
    assert db.orders(tag) == ["Sol attacks Alnitak"], db.orders(tag)


def helped(db: Database, node: Serve, tag: str) -> str:
    """A HELP mail to ``node``, to the server's address: answered with the
    commands and the pbem that answered; that pbem."""
    state, reply = answered(db, node, tag, "HELP", SERVER)
    assert state != "quarantined" and "this list of commands" in reply, (tag, state, reply)
    return re.search(r"This server runs pbem (\S+)\.", reply)[1]


def worker_of(node: Serve) -> int | None:
    """The pid of the node's mail worker (its child pbem-worker)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat.split("(", 1)[1].rsplit(")", 1)[0]
        if name == "pbem-worker" and int(stat.rsplit(")", 1)[1].split()[1]) == node.proc.pid:
            return int(entry.name)
    return None


def test_an_old_node_keeps_working_while_the_new_release_migrates_and_takes_over(
    postgres: PostgresServer, tmp_path: Path
):
    old_tree = tmp_path / "previous"
    commit = previous_release(old_tree)
    old, new = Release(old_tree), Release(ROOT)
    assert old.head() < new.head(), (commit, old.head(), new.head())
    run = tmp_path / "run"
    run.mkdir()
    imports_its_own_code(old, run)
    imports_its_own_code(new, run)
    # which pbem answers a HELP: the old tree has no .git to name a commit
    old_version, new_version = (r.pbem(run, "--version").stdout.split()[1] for r in (old, new))
    assert old_version != new_version

    postgres.sql("CREATE DATABASE old_and_new")
    url = postgres.url("old_and_new")
    text = GAMES_YAML.replace("storage: var/pbem.sqlite", f"storage: {url}")
    text = text.replace("idle_timeout: 5}", "idle_timeout: 5, replies_per_day: 1000}")
    (run / "games.yaml").write_text(text)

    # the old release builds its schema: with its `pbem migrate`, or (a
    # release from before that command) as its first node starts
    built = old.pbem(run, "migrate", "games.yaml")
    has_migrate = "invalid choice" not in built.stderr
    assert built.returncode == 0 or not has_migrate, built.stderr
    old_node = old.serve(run)
    db = Database(url)
    try:
        assert db.revision() == old.head()
        password = db.password()
        assert helped(db, old_node, "old-1") == old_version
        ordered(db, old_node, "old-2", password)
        until("the old node's heartbeat to count 2 mails", lambda: db.processed_by(old_node) == 2)

        # the new release migrates the store under the running old node
        migrated = new.pbem(run, "migrate", "games.yaml")
        assert migrated.returncode == 0, migrated.stderr
        said = f"was at revision {old.head()}; it is now at {new.head()}"
        assert said in migrated.stdout, migrated.stdout
        assert db.revision() == new.head()

        # the old node goes on: takes mail, applies orders, answers, beats
        assert helped(db, old_node, "old-3") == old_version
        ordered(db, old_node, "old-4", password)
        until("the old node's heartbeat to count 4 mails", lambda: db.processed_by(old_node) == 4)
        if has_migrate:
            # its worker, restarted on the new schema (a crash, a lost
            # lease), works again: only releases with `pbem migrate` open
            # the store as it is in a server's own processes (earlier ones
            # migrated at every start, and knew no newer revision)
            worker = until("the old node's worker", lambda: worker_of(old_node))
            os.kill(worker, signal.SIGKILL)
            until(
                "the old node's worker restarted",
                lambda: worker_of(old_node) not in (None, worker),
            )
            ordered(db, old_node, "old-5", password)
            # the killed worker's heartbeat reaped (a process known gone)
            until("one live heartbeat of the old node", lambda: db.alive(old_node) == 1)
        clean(old_node)

        # a node of the new release beside it: both alive, both take mail
        new_node = new.serve(run)
        until("the new node's heartbeat", lambda: db.alive(new_node) == 1)
        nodes = new.pbem(run, "nodes", "--config", "games.yaml")
        assert nodes.returncode == 0, nodes.stderr
        assert "2 nodes alive" in nodes.stdout, nodes.stdout
        assert f"smtp 127.0.0.1:{old_node.port}" in nodes.stdout, nodes.stdout
        assert f"smtp 127.0.0.1:{new_node.port}, pbem {new_version}\n" in nodes.stdout
        ordered(db, old_node, "both-1", password)
        ordered(db, new_node, "both-2", password)
        assert helped(db, old_node, "both-3") in (old_version, new_version)
        assert helped(db, new_node, "both-4") in (old_version, new_version)

        # the rolling restart: the old node stops, the new one does it all
        old_node.stop()
        assert old_node.proc.returncode == 0, old_node.output()
        clean(old_node)
        until("the old node's row gone", lambda: db.alive(old_node) == 0, 30)
        before = db.processed_by(new_node)
        ordered(db, new_node, "new-1", password)
        assert helped(db, new_node, "new-2") == new_version
        until("the new node's count of mails", lambda: db.processed_by(new_node) == before + 2)
        nodes = new.pbem(run, "nodes", "--config", "games.yaml")
        assert "1 node alive" in nodes.stdout, nodes.stdout
        new_node.stop()
        assert new_node.proc.returncode == 0, new_node.output()
        clean(new_node)
    finally:
        db.conn.close()
