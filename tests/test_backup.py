"""`pbem backup`: an SQLite store and its spool copied while a real
`pbem serve` takes mail, the copies readable by their owner alone, and a
server started on the restored copies serving what they hold."""

from __future__ import annotations

import email
import email.policy
import email.utils
import shutil
import smtplib
import stat
import threading
from datetime import UTC, datetime
from pathlib import Path

from pbem.store import Store
from tests.mailharness import GAMES_YAML, _copy_set_up, run_command, wait_for
from tests.serveproc import Serve

ANN, ALPHA = "ann@example.org", "alpha@judge.example"
SET_UP_AT = datetime.now(UTC).replace(microsecond=0)  # the real server runs on the real clock


def _password(store: Store, to: str) -> str:
    row = next(r for r in store.outbox_rows("password", to))
    text = email.message_from_bytes(row.message, policy=email.policy.default)
    return text.get_body(("plain",)).get_content().split("PASSWORD ", 1)[1].split()[0]


def _raw(body: str, n: int) -> bytes:
    mid = email.utils.make_msgid(domain="example.org")
    head = f"From: {ANN}\r\nTo: {ALPHA}\r\nSubject: orders {n}\r\nMessage-ID: {mid}\r\n\r\n"
    return (head + body.replace("\n", "\r\n")).encode()


def _set_up(root: Path) -> None:
    (root / "games.yaml").write_text(GAMES_YAML)
    _copy_set_up(root, GAMES_YAML, SET_UP_AT)


def test_a_backup_taken_under_mail_restores_and_serves(tmp_path: Path):
    live, kept, restored = tmp_path / "live", tmp_path / "backup", tmp_path / "restored"
    for d in (live, restored):
        d.mkdir()
    _set_up(live)
    store = Store.at(live / "var" / "pbem.sqlite")
    password = _password(store, ANN)
    server = Serve(live)
    sent, stop = [0], threading.Event()

    def send() -> None:  # mail keeps coming while the backup is taken
        with smtplib.SMTP("127.0.0.1", server.port, timeout=30) as s:
            while not stop.is_set() or sent[0] < 20:
                sent[0] += 1
                s.sendmail(ANN, [ALPHA], _raw(f"PASSWORD {password}\nSol holds\n", sent[0]))

    sender = threading.Thread(target=send)
    sender.start()
    try:
        wait_for(lambda: sent[0] >= 10, 30, "mail flowing")
        status, warned = run_command("backup", str(kept), "--config", str(live / "games.yaml"))
        stop.set()
        sender.join(60)
        assert status == 0 and not warned
        copies = [kept / "pbem.sqlite", kept / "pbem-spool.sqlite"]
        for copy in copies:
            assert stat.S_IMODE(copy.stat().st_mode) == 0o600, copy
        assert not list(kept.glob("*-wal")), "a copy stands alone"
        # a second backup to the same place never overwrites the first
        again, _ = run_command("backup", str(kept), "--config", str(live / "games.yaml"))
        assert again == 2
    finally:
        stop.set()
        sender.join(60)
        server.stop()
        store.close()
    # what the copy holds: every mail stored by then, in the inbox or its spool
    copy = Store.at(kept / "pbem.sqlite")
    held = len(copy.mails()) + copy.spooled()
    copy.close()
    assert 10 <= held <= sent[0], (held, sent[0])
    # restored as the guide says: both files back under the names storage expects
    shutil.copy(live / "games.yaml", restored / "games.yaml")
    (restored / "var").mkdir()
    shutil.copy(kept / "pbem.sqlite", restored / "var" / "pbem.sqlite")
    shutil.copy(kept / "pbem-spool.sqlite", restored / "var" / "pbem-spool.sqlite")
    back = Serve(restored)
    store = Store.at(restored / "var" / "pbem.sqlite")
    try:
        with smtplib.SMTP("127.0.0.1", back.port, timeout=30) as s:
            s.sendmail(ANN, [ALPHA], _raw(f"PASSWORD {password}\nSol x Alnitak\n", 0))
        wait_for(
            lambda: any(
                b"Sol attacks Alnitak" in r.message for r in store.outbox_rows("receipt", ANN)
            ),
            60,
            "the receipt from the restored server",
        )
        wait_for(lambda: store.mail_states().get("new", 0) == 0, 60, "every mail processed")
        assert len(store.mails()) == held + 1  # nothing of the copy lost, the new mail added
    finally:
        back.stop()
        store.close()


def test_a_backup_of_a_database_server_points_at_pg_dump(tmp_path: Path, capsys):
    (tmp_path / "games.yaml").write_text(
        GAMES_YAML.replace("storage: var/pbem.sqlite", "storage: postgresql://pbem@db/pbem")
    )
    status, _ = run_command("backup", str(tmp_path / "b"), "--config", str(tmp_path / "games.yaml"))
    assert status == 2
    assert "pg_dump" in capsys.readouterr().err
    assert not (tmp_path / "b").exists()
