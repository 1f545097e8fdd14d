"""Several server nodes on one real PostgreSQL: real `pbem serve` processes,
a real SMTP client spreading mail over their ports, one node killed with
SIGKILL under load and restarted; deadlines that fall at the same moment on
three nodes awake; a node's database connection cut mid-transaction."""

from __future__ import annotations

import collections
import email
import email.policy
import json
import os
import queue
import re
import smtplib
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from pbem.store import Store
from pbem.store.schema import games, inbox, outbox, spool, submissions, turns
from tests.mailharness import GAMES_YAML, wait_for
from tests.pgserver import PostgresServer
from tests.serveproc import Serve, kill_all

ANN = "ann@example.org"
ALPHA = "alpha@judge.example"
ROOT = Path(__file__).resolve().parent.parent


def database(postgres: PostgresServer, name: str, url: str | None = None) -> str:
    """A new, empty database (the first node to start migrates it)."""
    postgres.sql(f"CREATE DATABASE {name}")
    return url or postgres.url(name)


def games_yaml(root: Path, storage: str, games: str | None = None) -> None:
    text = GAMES_YAML.replace("storage: var/pbem.sqlite", f"storage: {storage}")
    # thousands of receipts to one player in a day
    text = text.replace("idle_timeout: 5}", "idle_timeout: 5, replies_per_day: 100000}")
    if games is not None:
        text = text.split("games:\n")[0] + "games:\n" + games
    (root / "games.yaml").write_text(text)


Node = Serve  # a node: `pbem serve` on the shared storage


@pytest.fixture(autouse=True)
def _no_orphans():
    yield
    kill_all()


def start_nodes(root: Path, count: int) -> list[Node]:
    """``count`` nodes started at once."""
    nodes: list[Node | None] = [None] * count

    def one(i: int) -> None:
        nodes[i] = Node(root)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert all(nodes), "a node did not start"
    return nodes  # type: ignore[return-value]


def password(store: Store, address: str = ANN, game: str = "alpha") -> str:
    for row in store.outbox_rows("password", address):
        body = email.message_from_bytes(row.message, policy=email.policy.default)
        text = body.get_body(("plain",)).get_content()
        if str(body["Subject"]).endswith(f" for {game}"):
            return re.search(r"PASSWORD (\S+)", text)[1]
    raise AssertionError(f"no password mail to {address} for {game}")


def orders_mail(pw: str, tag: str) -> bytes:
    return (
        f"From: {ANN}\r\nTo: {ALPHA}\r\nSubject: {tag}\r\nMessage-ID: <{tag}@example.org>"
        f"\r\n\r\nPASSWORD {pw}\r\nSol x Alnitak\r\n"
    ).encode()


class Client:
    """A sending MTA with several MX hosts: mails from a queue over a few
    connections, each spread over the nodes' ports; a mail whose node does
    not answer 250 (refused, cut, 4xx) is tried again on the next node."""

    def __init__(self, ports: list[int], connections: int = 6) -> None:
        self.ports = ports
        self.connections = connections
        self.accepted: dict[str, int] = {}  # tag -> the port that said 250
        self.failures = collections.Counter()  # what came back instead
        self.sent = 0
        self._lock = threading.Lock()

    def send_all(self, mails: list[tuple[str, bytes]]) -> None:
        todo: queue.Queue = queue.Queue()
        for m in mails:
            todo.put(m)
        threads = [
            threading.Thread(target=self._run, args=(todo, i), daemon=True)
            for i in range(self.connections)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)

    def _run(self, todo: queue.Queue, index: int) -> None:
        turn = index
        conn: smtplib.SMTP | None = None
        while True:
            try:
                tag, raw = todo.get_nowait()
            except queue.Empty:
                break
            for _ in range(60):
                port = self.ports[turn % len(self.ports)]
                try:
                    if conn is None:
                        conn = smtplib.SMTP("127.0.0.1", port, timeout=20)
                    conn.sendmail(ANN, [ALPHA], raw)
                    with self._lock:
                        self.accepted[tag] = port
                        self.sent += 1
                    turn += 1  # the next mail goes to the next node
                    break
                except (OSError, smtplib.SMTPException) as exc:
                    with self._lock:
                        self.failures[type(exc).__name__ + _code(exc)] += 1
                    if conn is not None:
                        try:
                            conn.close()
                        except OSError:
                            pass
                    conn = None
                    turn += 1
                    time.sleep(0.05)
            else:
                raise AssertionError(f"{tag} was never accepted")
            if conn is not None and self.sent % 25 == index:
                conn.quit()  # connections come and go, as an MTA's do
                conn = None
        if conn is not None:
            try:
                conn.quit()
            except (OSError, smtplib.SMTPException):
                pass


def _code(exc: Exception) -> str:
    code = getattr(exc, "smtp_code", None)
    if code is None and getattr(exc, "recipients", None):
        code = next(iter(exc.recipients.values()))[0]
    return f" {code}" if code else ""


def drained(store: Store) -> bool:
    states = store.mail_states()
    backlog = store.backlog(time.time(), datetime.now(UTC))
    return not states.get("new") and backlog.to_send == 0 and backlog.spooled == 0


def assert_each_once(store: Store, tags: set[str]) -> None:
    """Every mail applied once and answered once; copies recorded as
    duplicates, never processed."""
    with store.tx(write=False) as conn:
        rows = conn.execute(select(inbox.c.id, inbox.c.message_id, inbox.c.state)).all()
        answered = conn.execute(
            select(outbox.c.inbox_id, outbox.c.status, outbox.c.message).where(
                outbox.c.kind == "receipt"
            )
        ).all()
        orders = (
            conn.execute(select(submissions.c.seq).where(submissions.c.game == "alpha"))
            .scalars()
            .all()
        )
    by_tag = collections.defaultdict(list)
    for r in rows:
        by_tag[r.message_id.strip("<>").split("@")[0]].append(r)
    assert set(by_tag) == tags, set(by_tag) ^ tags
    applied = {}
    for tag, copies in by_tag.items():
        states = sorted(c.state for c in copies)
        assert states == ["applied"] + ["duplicate"] * (len(copies) - 1), (tag, states)
        applied[tag] = next(c.id for c in copies if c.state == "applied")
    receipts = collections.Counter(r.inbox_id for r in answered)
    assert set(receipts) == set(applied.values())
    assert max(receipts.values()) == 1, "a mail answered twice"
    assert {r.status for r in answered} == {"sent"}
    assert sorted(orders) == sorted(applied.values())  # each mail's orders stored once
    # the receipts' received numbers: one global order, none twice
    numbers = [_number(r.message) for r in answered]
    assert len(set(numbers)) == len(numbers) == len(tags)


def _number(raw: bytes) -> int:
    text = email.message_from_bytes(raw, policy=email.policy.default)
    body = text.get_body(("plain",)).get_content()
    return int(re.search(r"received as #(\d+)", body)[1])


# `make test` sends 600 mails; the full load, 2,000, is a long run (CI)
LOADS = [pytest.param(600, id="600"), pytest.param(2000, id="2000", marks=pytest.mark.long)]


@pytest.mark.parametrize("count", LOADS)
def test_three_nodes_a_load_of_mails_one_killed_and_restarted(postgres, tmp_path, count):
    games_yaml(tmp_path, database(postgres, "three"))
    nodes = [Node(tmp_path) for _ in range(3)]
    store = Store(postgres.url("three"))
    try:
        _three_nodes(tmp_path, nodes, store, count)
    finally:
        store.close()


def _three_nodes(tmp_path: Path, nodes: list[Node], store: Store, count: int) -> None:
    pw = password(store)
    mails = [(f"m{i:04d}", orders_mail(pw, f"m{i:04d}")) for i in range(count)]
    client = Client([n.port for n in nodes])
    killer_done = threading.Event()

    def kill_and_restart() -> None:
        # killed under the load, after 30% of it; back after 60%
        wait_for(lambda: client.sent >= count * 3 // 10, 120, "30% of the mails accepted")
        victim = nodes[1]
        victim.kill()  # SIGKILL: the worker child dies with it
        wait_for(lambda: client.sent >= count * 6 // 10, 120, "60% of the mails accepted")
        nodes[1] = Node(tmp_path, victim.port)
        killer_done.set()

    killer = threading.Thread(target=kill_and_restart, daemon=True)
    killer.start()
    client.send_all(mails)
    killer.join(120)
    assert killer_done.is_set()
    assert len(client.accepted) == count
    assert client.failures, "the killed node refused or cut nothing"
    wait_for(lambda: drained(store), 120, "every mail processed and answered")
    time.sleep(1.5)  # nothing more comes
    assert_each_once(store, {tag for tag, _ in mails})
    # the mail was spread: every node accepted some
    assert set(client.accepted.values()) == {n.port for n in nodes}
    # the dead node's row is gone; three live ones remain
    live = store.node_rows(time.time())
    assert len([r for r in live if r.until >= time.time()]) == 3
    out = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "nodes", "--config", "games.yaml"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    ).stdout  # fmt: skip
    assert "3 nodes alive" in out, out
    assert out.count("alive, heartbeat") == 3, out
    assert "0 mails to process" in out, out


def storm_games(count: int) -> str:
    """``count`` Office Wars games of two players, deadlines far off (the
    test sets them)."""
    return "".join(
        f"  - name: s{i:02d}\n    game: officewars\n    map: six\n"
        f'    deadline: "0 0 1 1 *"\n    timezone: UTC\n    players:\n'
        f"      - {{name: ann, email: a{i}@example.org}}\n"
        f"      - {{name: bob, email: b{i}@example.org}}\n"
        for i in range(count)
    )


# `make test` runs a storm of 15 games; the full one, 50, is a long run (CI)
STORMS = [pytest.param(15, id="15"), pytest.param(50, id="50", marks=pytest.mark.long)]


@pytest.mark.parametrize("count", STORMS)
def test_deadlines_at_once_on_three_nodes_each_turn_once(postgres, tmp_path, count):
    games_yaml(tmp_path, database(postgres, f"storm{count}"), storm_games(count))
    # a node whose worker starts late (a loaded machine) resolves at once:
    # no settling time for mail held while it was down
    text = (tmp_path / "games.yaml").read_text()
    (tmp_path / "games.yaml").write_text(
        text.replace("  storage:", "  settle_after_outage: 0\n  storage:", 1)
    )
    Node(tmp_path).stop()  # sets the games up (passwords, start mails)
    store = Store(postgres.url(f"storm{count}"))
    try:
        # the deadlines of all the games fall at the same moment, a few
        # seconds on: the three nodes' schedulers read them as they start (a
        # node that starts late finds the turns due and resolves them at once)
        due = datetime.now(UTC) + timedelta(seconds=8)
        with store.tx() as conn:
            assert conn.execute(update(games).values(deadline=due)).rowcount == count
        nodes = start_nodes(tmp_path, 3)
        wait_for(lambda: _resolved(store) == count, 120, f"{count} turns resolved")
        wait_for(lambda: drained(store), 60, "every report sent")
        time.sleep(2)  # the nodes' schedulers have all woken by now
        with store.tx(write=False) as conn:
            records = conn.execute(
                select(turns.c.game, turns.c.turn, turns.c.result).where(
                    turns.c.result.is_not(None)
                )
            ).all()
            reports = conn.execute(
                select(outbox.c.to_addr, outbox.c.status, outbox.c.message).where(
                    outbox.c.kind == "report"
                )
            ).all()
            state = {g.name: g.turn for g in conn.execute(select(games.c.name, games.c.turn))}
        assert sorted(r.game for r in records) == sorted(state)  # one record a game
        assert all(json.loads(r.result)["why"] == "deadline" for r in records)
        assert set(state.values()) == {2}  # each game moved on exactly one turn
        to = collections.Counter(r.to_addr for r in reports)
        players = {f"{p}{i}@example.org" for i in range(count) for p in "ab"}
        assert set(to) == players and set(to.values()) == {1}, to.most_common(3)
        assert {r.status for r in reports} == {"sent"}
        done = store.node_rows(time.time())
        assert sum(r.turns for r in done) == count, [(r.holder, r.turns) for r in done]
        for n in nodes:
            n.stop()
    finally:
        store.close()


def _resolved(store: Store) -> int:
    with store.tx(write=False) as conn:
        return len(conn.execute(select(turns.c.game).where(turns.c.result.is_not(None))).all())


class Proxy:
    """A TCP relay between a node and PostgreSQL that cuts the connection
    the moment the node sends a statement holding ``marker``: the statement
    reaches the server (its transaction has begun and written), its COMMIT
    never does. Then it relays as before."""

    def __init__(self, port: int) -> None:
        self.upstream = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.marker: bytes | None = None
        self.cuts = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, marker: bytes) -> None:
        with self._lock:
            self.marker, self.cuts = marker, 0

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream))
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, watch: bool) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
                if watch and self.marker is not None and self.marker in data:
                    with self._lock:
                        if self.marker is None:
                            continue
                        self.marker = None
                        self.cuts += 1
                    time.sleep(0.05)  # the server has read it and run it
                    break
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self.listener.close()


def test_a_cut_database_connection_answers_451_and_writes_nothing_half(postgres, tmp_path):
    database(postgres, "cut")
    proxy = Proxy(postgres.port)
    games_yaml(tmp_path, f"postgresql://pbem@127.0.0.1:{proxy.port}/cut")
    node = Node(tmp_path)
    store = Store(postgres.url("cut"))
    try:
        pw = password(store)
        # cut while the SMTP side spools the mail, before its COMMIT
        proxy.arm(b"INSERT INTO spool")
        first = orders_mail(pw, "cut-1")
        with smtplib.SMTP("127.0.0.1", node.port, timeout=20) as s:
            with pytest.raises(smtplib.SMTPDataError) as refused:
                s.sendmail(ANN, [ALPHA], first)
        assert proxy.cuts == 1
        assert refused.value.smtp_code == 451, refused.value
        with store.tx(write=False) as conn:
            spooled = conn.execute(select(spool.c.id)).all()
            kept = conn.execute(select(inbox.c.id)).all()
        assert spooled == [] and kept == []  # nothing of it was kept
        # the sender tries again: a fresh connection, 250
        with smtplib.SMTP("127.0.0.1", node.port, timeout=20) as s:
            s.sendmail(ANN, [ALPHA], first)
        wait_for(lambda: drained(store), 60, "the mail processed")
        # cut while the worker finishes a mail, before its COMMIT
        proxy.arm(b"UPDATE inbox SET state")
        with smtplib.SMTP("127.0.0.1", node.port, timeout=20) as s:
            s.sendmail(ANN, [ALPHA], orders_mail(pw, "cut-2"))
        wait_for(lambda: proxy.cuts == 1, 30, "the worker's connection cut")
        wait_for(lambda: drained(store), 60, "the mail processed after the cut")
        # cut while the worker moves a mail from the spool into the inbox:
        # the connection's loss, not the mail's fault, so nothing quarantined
        proxy.arm(b"INSERT INTO inbox")
        with smtplib.SMTP("127.0.0.1", node.port, timeout=20) as s:
            s.sendmail(ANN, [ALPHA], orders_mail(pw, "cut-3"))
        wait_for(lambda: proxy.cuts == 1, 30, "the worker's connection cut as it moves mail")
        wait_for(lambda: drained(store), 60, "the mail processed after that cut")
        time.sleep(1)
        assert_each_once(store, {"cut-1", "cut-2", "cut-3"})
        assert store.mails("quarantined") == []
        out = node.output()
        assert "storing received mail failed; trying again shortly" in out, out
        assert "consuming input failed" in out, out
        assert "worker failed; trying again shortly" in out, out  # then did it once
        node.stop()
    finally:
        store.close()
        proxy.close()


def test_pbem_nodes_names_the_version_each_node_runs(postgres, tmp_path):
    """Each node's heartbeat carries the pbem it runs (`pbem --version`):
    `pbem nodes` shows it, so a node left on an older release is seen."""
    games_yaml(tmp_path, database(postgres, "versions"))
    Node(tmp_path)
    cli = [sys.executable, "-m", "pbem.cli"]
    said = subprocess.run([*cli, "--version"], capture_output=True, text=True, check=True)
    version = said.stdout.split()[1]
    store = Store(postgres.url("versions"))
    try:
        wait_for(lambda: store.node_rows(time.time()), 30, "the node's heartbeat")
        assert [r.version for r in store.node_rows(time.time())] == [version]
    finally:
        store.close()
    out = subprocess.run(
        [*cli, "nodes", "--config", "games.yaml"], cwd=tmp_path, capture_output=True, text=True,
        timeout=60, env=dict(os.environ, PYTHONPATH=str(ROOT)),
    ).stdout  # fmt: skip
    assert f", pbem {version}\n" in out and "1 node alive" in out, out
