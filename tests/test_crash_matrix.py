"""The crash matrix: a real `pbem serve` under a load of order mails from
several SMTP sessions at once, SIGKILL of the server alone, the worker
alone, or both, early, in the middle, or while the worker drains the
backlog; an immediate restart; every mail that got no 250 sent again. Every
mail that got 250 reaches exactly one final state with exactly one receipt,
no submission is made twice, and the mail numbers have no gaps or repeats.

A few hundred mails a cell keep the suite fast; PBEM_CRASH_MAILS=2000 runs
the full load (bench/crash.py runs it too). `make test` runs three cells,
each target killed once and each moment once; the other six are marked
long (`make test-all`, CI)."""

from __future__ import annotations

import email
import email.policy
import os
import signal
import smtplib
import threading
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.store.schema import submissions
from tests.mailharness import GAMES_YAML, _copy_set_up, wait_for
from tests.test_mail_faults import SET_UP_AT, Proc, free_port, store_of

N = int(os.environ.get("PBEM_CRASH_MAILS", "150"))
SESSIONS = 4
PLAYERS = {"ann": "Sol holds", "bob": "Vega holds", "cid": "Rigel holds"}
WIDE = GAMES_YAML.replace("idle_timeout: 5}", "idle_timeout: 5, replies_per_day: 1000000}")
AT = {"early": 0.1, "middle": 0.5, "draining": 1.0}


def _passwords(root: Path) -> dict[str, str]:
    import re

    out = {}
    for name in PLAYERS:
        row = store_of(root).outbox_rows("password", f"{name}@example.org")[0]
        body = email.message_from_bytes(row.message, policy=email.policy.default)
        out[name] = re.search(r"PASSWORD (\S+)", body.get_body(("plain",)).get_content())[1]
    return out


def _mails(pw: dict[str, str]) -> list[tuple[str, bytes]]:
    names = list(PLAYERS)
    out = []
    for i in range(N):
        who = names[i % len(names)]
        raw = (
            f"From: {who}@example.org\r\nTo: alpha@judge.example\r\nSubject: orders {i}\r\n"
            f"Message-ID: <crash.{i}@example.org>\r\n\r\nPASSWORD {pw[who]}\r\n"
            f"{PLAYERS[who]}\r\n"
        )
        out.append((f"{who}@example.org", raw.encode()))
    return out


class Load:
    """SESSIONS SMTP sessions sending their share of the mails; which got
    250 is recorded. A session that loses its server stops."""

    def __init__(self, port: int, mails: list[tuple[str, bytes]]) -> None:
        self.port, self.mails = port, mails
        self.ok: set[int] = set()
        self._lock = threading.Lock()
        self.threads = [
            threading.Thread(target=self._session, args=(list(range(k, len(mails), SESSIONS)),))
            for k in range(SESSIONS)
        ]

    def start(self) -> Load:
        for t in self.threads:
            t.start()
        return self

    def join(self) -> None:
        for t in self.threads:
            t.join(120)

    def _session(self, share: list[int]) -> None:
        try:
            with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as s:
                for i in share:
                    sender, raw = self.mails[i]
                    s.sendmail(sender, ["alpha@judge.example"], raw)
                    with self._lock:
                        self.ok.add(i)
        except (smtplib.SMTPException, OSError):
            pass  # the server died: what got no 250 is sent again


def _worker_pid(root: Path, server: Proc) -> int:
    def holder() -> int | None:
        lease = store_of(root).lease_of("worker")
        if lease is None:
            return None
        try:
            with open(f"/proc/{lease.pid}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            return None
        return lease.pid if parent == server.proc.pid else None

    return wait_for(holder, 20, "the worker process")


def _processed(root: Path) -> int:
    states = store_of(root).mail_states()
    return sum(v for k, v in states.items() if k != "new")


@pytest.fixture
def root(tmp_path):
    """The game set up as a first start leaves it, made once a test
    process and copied (the cells' servers start on a game set up)."""
    (tmp_path / "games.yaml").write_text(WIDE)
    _copy_set_up(tmp_path, WIDE, SET_UP_AT)
    assert (tmp_path / "var" / "pbem.sqlite").is_file()
    return tmp_path


TARGETS = ["server", "worker", "both"]
# the cells `make test` runs: every target once, every moment once
REPRESENTATIVE = {("worker", "early"), ("server", "middle"), ("both", "draining")}
CELLS = [
    pytest.param(
        target,
        moment,
        id=f"{target}-{moment}",
        marks=() if (target, moment) in REPRESENTATIVE else pytest.mark.long,
    )
    for target in TARGETS
    for moment in AT
]


@pytest.mark.parametrize(("target", "moment"), CELLS)
def test_crash_matrix(root, target, moment):
    port = free_port()
    server = Proc(root, port)
    mails = _mails(_passwords(root))
    load = Load(port, mails).start()  # accepted while the worker starts, as after a restart
    wait_for(
        lambda: len(load.ok) >= int(N * AT[moment]) or not any(t.is_alive() for t in load.threads),
        120,
        f"{moment} moment",
    )
    if target in ("worker", "both"):
        os.kill(_worker_pid(root, server), signal.SIGKILL)
    if target in ("server", "both"):
        os.kill(server.proc.pid, signal.SIGKILL)
        server.wait_dead()
        server = Proc(root, port)  # restarted at once
    load.join()
    try:
        missing = [i for i in range(N) if i not in load.ok]
        again = Load(port, [mails[i] for i in missing]).start()
        again.join()
        assert len(again.ok) == len(missing)  # every mail got its 250 in the end
        wait_for(lambda: _processed(root) >= N, 120, "every mail processed")
        _check(root)
    finally:
        server.stop()


def _check(root: Path) -> None:
    store = store_of(root)
    rows = store.mails()
    # sequence numbers without gaps or repeats; one row a mail; one final state
    assert [r.id for r in rows] == list(range(1, N + 1))
    ids = Counter(r.message_id for r in rows)
    assert len(ids) == N and set(ids.values()) == {1}
    assert {r.state for r in rows} == {"applied"}, Counter(r.state for r in rows)
    # exactly one receipt a mail
    receipts = Counter(
        email.message_from_bytes(r.message, policy=email.policy.default)["In-Reply-To"]
        for r in store.outbox_rows("receipt")
    )
    assert set(receipts) == set(ids) and set(receipts.values()) == {1}
    # no submission twice: one per mail, numbered by the mail
    with store.tx(write=False) as conn:
        seqs = conn.execute(select(submissions.c.seq)).scalars().all()
    assert sorted(seqs) == list(range(1, N + 1))
