"""An old and a new node on one PostgreSQL across a migration, for real:
the previous release is this repository as it was just before the newest
migration came to main (its own code, from git, run from a folder of its
own); it serves, the new release's `pbem migrate` moves the schema under
it, and it goes on taking and answering mail beside a new node, until it
is stopped and the new node takes everything (docs/deploy.md, step 9)."""

from __future__ import annotations

import io
import os
import smtplib
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.store import Store
from pbem.store.database import head_revision
from pbem.store.schema import inbox
from tests.mailharness import wait_for
from tests.serveproc import Serve, kill_all
from tests.test_storage_ops import games_yaml

ROOT = Path(__file__).resolve().parent.parent
ALPHA = "alpha@judge.example"


@pytest.fixture(autouse=True)
def _no_orphans():
    yield
    kill_all()


def previous_release(into: Path) -> Path:
    """The tree of main's last commit without the newest migration,
    written into ``into``."""
    newest = max((ROOT / "pbem/store/migrations/versions").glob("[0-9]*_*.py"))
    path = newest.relative_to(ROOT).as_posix()

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, timeout=60)

    shas = git("rev-list", "--first-parent", "HEAD")
    if shas.returncode != 0:
        pytest.skip("not a git checkout: the previous release cannot be built from history")
    for sha in shas.stdout.decode().split():
        if git("cat-file", "-e", f"{sha}:{path}").returncode != 0:
            break
    else:
        pytest.skip(f"no commit of main without {path}")
    archive = git("archive", sha)
    assert archive.returncode == 0, archive.stderr
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def run(*args: str, cwd: Path, old: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if old is not None:
        env["PYTHONPATH"] = str(old)
    return subprocess.run(
        [sys.executable, "-m", "pbem.cli", *args], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip


def send(port: int, sender: str, body: str) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as s:
        s.sendmail(sender, [ALPHA], f"From: {sender}\r\nSubject: x\r\n\r\n{body}\r\n".encode())


def test_an_old_node_keeps_working_across_a_migration_beside_a_new_one(postgres, tmp_path):
    old = previous_release(tmp_path / "old")
    probe = subprocess.run(
        [sys.executable, "-c", "import pbem; print(pbem.__file__)"],
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(old)), capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    assert probe.stdout.startswith(str(old)), probe.stdout  # the old code, not this checkout's
    postgres.sql("CREATE DATABASE oldnew")
    url = postgres.url("oldnew")
    site = tmp_path / "site"
    site.mkdir()
    games_yaml(site, url)
    store = Store(url)
    try:
        done = run("migrate", "games.yaml", cwd=site, old=old)
        assert done.returncode == 0, done.stderr
        before = store._revision()
        assert before is not None and before < head_revision()
        old_node = Serve(site, env={"PYTHONPATH": str(old)})

        def processed(sender: str) -> bool:
            with store.tx(write=False) as conn:
                rows = conn.execute(select(inbox.c.state).where(inbox.c.mail_from == sender))
                states = [r.state for r in rows]
            return bool(states) and "new" not in states

        send(old_node.port, "before@example.org", "HELP")
        wait_for(lambda: processed("before@example.org"), 60, "the old node to answer")

        done = run("migrate", "games.yaml", cwd=site)  # the new release
        assert done.returncode == 0, done.stderr
        assert store._revision() == head_revision()

        # the old node goes on: a help, and a player's order, applied
        send(old_node.port, "during@example.org", "HELP")
        password = run("password", "alpha", "ann", "--config", "games.yaml", cwd=site)
        assert password.returncode == 0, password.stderr
        send(old_node.port, "ann@example.org", f"PASSWORD {password.stdout.strip()}\nSol holds")
        wait_for(lambda: processed("during@example.org"), 60, "the old node after the migration")
        wait_for(lambda: processed("ann@example.org"), 60, "ann's order on the old node")
        with store.tx(write=False) as conn:
            states = [r.state for r in conn.execute(
                select(inbox.c.state).where(inbox.c.mail_from == "ann@example.org"))]  # fmt: skip
        assert states == ["applied"], states

        new_node = Serve(site)
        wait_for(
            lambda: "2 nodes alive" in run("nodes", "--config", "games.yaml", cwd=site).stdout,
            60,
            "both nodes' heartbeats",
        )
        send(new_node.port, "new@example.org", "HELP")
        send(old_node.port, "still-old@example.org", "HELP")
        wait_for(lambda: processed("new@example.org"), 60, "the new node")
        wait_for(lambda: processed("still-old@example.org"), 60, "the old node beside the new")
        old_node.stop()  # the rolling restart: the old node goes
        send(new_node.port, "after@example.org", "HELP")
        wait_for(lambda: processed("after@example.org"), 60, "the new node alone")
        assert "Traceback" not in old_node.output(), old_node.output()
        assert "Traceback" not in new_node.output(), new_node.output()
    finally:
        store.close()
