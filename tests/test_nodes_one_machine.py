"""Several nodes on one machine, from one games.yaml (docs/deploy.md,
"Several nodes on one machine"): each node's flags give it SMTP, LMTP, web
and metrics addresses of its own, both take mail, and a node started on
an address another holds says so in one plain line naming the flag that
moves it, exits 2 (the systemd units do not restart on it) and takes
nothing from the node that holds it, a unix socket included."""

from __future__ import annotations

import smtplib
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.store import Store
from pbem.store.schema import inbox
from tests.mailharness import GAMES_YAML, free_port, wait_for
from tests.pgserver import PostgresServer
from tests.serveproc import Serve, kill_all

ALPHA = "alpha@judge.example"


@pytest.fixture(autouse=True)
def _no_orphans():
    yield
    kill_all()


def setup(postgres: PostgresServer, root: Path, name: str, lmtp: str) -> str:
    """A database of its own and a games.yaml whose lmtp, web and metrics
    every node shares unless its flags move them."""
    postgres.sql(f"CREATE DATABASE {name}")
    url = postgres.url(name)
    text = GAMES_YAML.replace("storage: var/pbem.sqlite", f"storage: {url}")
    shared = (
        f"  lmtp: {lmtp}\n"
        f"  web: {{listen: {{host: 127.0.0.1, port: {free_port()}}}}}\n"
        f"  metrics: {{listen: {{host: 127.0.0.1, port: {free_port()}}}}}\n"
    )
    (root / "games.yaml").write_text(text.replace("games:\n", shared + "games:\n", 1))
    return url


def flags(lmtp: str, web: int, metrics: int) -> tuple[str, ...]:
    return ("--lmtp", lmtp, "--web-port", str(web), "--metrics-port", str(metrics))


def refused(root: Path, *args: str) -> str:
    """`pbem serve ARGS` that must not start: its one line."""
    done = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "serve", str(root / "games.yaml"), *args],
        cwd=root, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def lmtp_help(where: str | tuple[str, int], sender: str) -> None:
    """A HELP mail over LMTP, accepted."""
    if isinstance(where, tuple):
        client = smtplib.LMTP(*where, timeout=20)
    else:
        client = smtplib.LMTP(where, timeout=20)
    with client:
        mail = f"From: {sender}\r\nSubject: help\r\n\r\nHELP\r\n".encode()
        refusals = client.sendmail(sender, [ALPHA], mail)
        assert refusals == {}


def answered(url: str, senders: set[str]) -> None:
    """Every one of ``senders``'s mails is processed (the worker of some
    node read it and answered it)."""
    store = Store(url)
    try:

        def done() -> bool:
            with store.tx(write=False) as conn:
                rows = conn.execute(select(inbox.c.mail_from, inbox.c.state)).all()
            states = {sender: state for sender, state in rows}
            return set(states) >= senders and all(states[s] != "new" for s in senders)

        wait_for(done, 60, f"the mails of {sorted(senders)} to be processed")
    finally:
        store.close()


def test_two_nodes_on_one_machine_each_on_addresses_of_its_own(postgres, tmp_path):
    url = setup(postgres, tmp_path, "onemachine", "127.0.0.1:2999")
    ports = [(free_port(), free_port(), free_port()) for _ in range(2)]
    nodes = [
        Serve(tmp_path, args=flags(f"127.0.0.1:{lmtp}", web, metrics))
        for lmtp, web, metrics in ports
    ]
    for i, (lmtp, _, _) in enumerate(ports):
        lmtp_help(("127.0.0.1", lmtp), f"node{i}@example.org")
    answered(url, {"node0@example.org", "node1@example.org"})
    for _, web, metrics in ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics}/healthz", timeout=10) as r:
            assert r.status == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/", timeout=10) as r:
            assert r.status == 200 and b"alpha" in r.read()
    out = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "nodes", "--config", "games.yaml"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    assert "2 nodes alive" in out, out
    for lmtp, _, _ in ports:
        assert f"lmtp 127.0.0.1:{lmtp}" in out, out

    # a third node on each of the first node's addresses in turn
    (lmtp, web, metrics), smtp = ports[0], nodes[0].port
    fresh = flags(f"127.0.0.1:{free_port()}", free_port(), free_port())
    said = refused(tmp_path, "--port", str(smtp), *fresh)
    assert said == (
        f"pbem: port {smtp} on 127.0.0.1 is in use (another pbem serve, or another mail "
        f"server?). Stop it, or choose another port: pbem serve --port {smtp + 1} (make run "
        f"PORT={smtp + 1}; or listen: {{port: {smtp + 1}}} in games.yaml)"
    )
    port = str(free_port())
    said = refused(tmp_path, "--port", port, *flags(f"127.0.0.1:{lmtp}", *fresh[3::2]))
    assert said == (
        f"pbem: port {lmtp} on 127.0.0.1, for LMTP, is in use (another pbem serve, or another "
        f"mail server?). Stop it, or choose another port: pbem serve --lmtp "
        f"127.0.0.1:{lmtp + 1} (lmtp: 127.0.0.1:{lmtp + 1} in games.yaml)"
    )
    said = refused(tmp_path, "--port", port, *fresh[:2], "--web-port", str(web), *fresh[4:])
    assert f"port {web} on 127.0.0.1, for the web pages, is in use" in said
    assert f"pbem serve --web-port {web + 1}" in said
    said = refused(tmp_path, "--port", port, *fresh[:4], "--metrics-port", str(metrics))
    assert f"port {metrics} on 127.0.0.1, for health and metrics, is in use" in said
    assert f"pbem serve --metrics-port {metrics + 1}" in said
    # without flags, the games.yaml's own addresses are free: only the
    # ones a node holds are refused, and the nodes go on taking mail
    lmtp_help(("127.0.0.1", lmtp), "after@example.org")
    answered(url, {"after@example.org"})
    for node in nodes:
        assert node.proc.poll() is None, node.output()


def test_a_unix_socket_in_use_is_not_taken_from_its_node(postgres, tmp_path):
    """A node's LMTP socket stays its own: a second node on the same path
    is refused; a socket file left by a node that died is taken."""
    sock = tmp_path / "run" / "lmtp"
    url = setup(postgres, tmp_path, "sockets", str(sock))
    first = Serve(tmp_path, args=flags(str(sock), free_port(), free_port()))
    said = refused(tmp_path, "--port", str(free_port()), *flags(str(sock), 0, 0)[:2])
    assert said == (
        f"pbem: the LMTP socket {sock} is in use (another pbem serve answers on it). Stop it, "
        f"or give this node a socket of its own: pbem serve --lmtp {sock}2"
    )
    lmtp_help(str(sock), "first@example.org")  # still the first node's
    answered(url, {"first@example.org"})
    first.kill()  # its socket file stays behind, nobody answering on it
    assert sock.exists()
    second = Serve(tmp_path, args=flags(str(sock), free_port(), free_port()))
    time.sleep(0.2)
    lmtp_help(str(sock), "second@example.org")
    answered(url, {"second@example.org"})
    assert "in use" not in second.output()
