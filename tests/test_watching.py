"""What an operator watches a running `pbem serve` by: its log (a time
stamp and a level on every line, from each of its processes; a line per
mail processed and per mail sent; no SMTP chatter), its health check and
metrics over HTTP, and the alerts mailed to the operator."""

from __future__ import annotations

import email
import email.policy
import json
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from pbem.store import Store
from tests.mailharness import GAMES_YAML, free_port, wait_for
from tests.pgserver import PostgresServer, need_postgres
from tests.serveproc import Serve, kill_all
from tests.test_mail_faults import orders_mail, password, send, set_up, store_of

OPS = "ops@example.org"
GM = "gm@example.org"
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")


@pytest.fixture(autouse=True)
def _no_orphans():
    yield
    kill_all()


def _root(tmp_path: Path, extra: str = "", storage: str | None = None) -> Path:
    """The games of tests/mailharness.py, ``extra`` lines in the server
    section; on SQLite set up as a first start leaves them."""
    yaml = GAMES_YAML.replace("  timezone: Europe/Oslo\n", "  timezone: Europe/Oslo\n" + extra, 1)
    if storage is not None:
        yaml = yaml.replace("storage: var/pbem.sqlite", f"storage: {storage}")
    (tmp_path / "games.yaml").write_text(yaml)
    if storage is None:
        set_up(tmp_path)
    return tmp_path


def test_every_line_of_the_log_is_stamped_and_each_mail_has_its_line(tmp_path):
    """A server at the default level: every line it writes, from the SMTP
    process and its worker and web processes, starts with the time and the
    level; each mail processed has one line with its number, Message-ID,
    the relay's queue ID (from the topmost Received header) and final
    state; each mail sent has one; aiosmtpd's line per SMTP command is not
    there."""
    root = _root(tmp_path)
    store = store_of(root)
    server = Serve(root, quiet=False)
    raw = orders_mail(password(store), "stamped")
    raw = (
        b"Received: from mx.example.org (mx.example.org [192.0.2.1])\r\n"
        b"\tby relay.judge.example (Postfix) with ESMTP id 4Xy2Kq1QZ8z9s\r\n"
        b"\tfor <alpha@judge.example>; Sat, 28 Nov 2026 05:30:00 +0000\r\n" + raw
    )
    assert send(server.port, raw) == 250
    wait_for(lambda: "sent #" in server.output() and "mail #" in server.output(), 60, "the lines")
    server.stop()
    out = server.output()
    lines = out.splitlines()
    assert lines and all(STAMP.match(line) for line in lines), out
    mail = [line for line in lines if "<stamped@example.org>" in line]
    assert len(mail) == 1, out
    assert re.search(r" INFO pbem\.inbox: mail #\d+ <stamped@example\.org> relay id "
                     r"4Xy2Kq1QZ8z9s applied$", mail[0]), mail  # fmt: skip
    assert re.search(r" INFO pbem\.outbox: sent #\d+ \(receipt\) to ann@example\.org", out), out
    assert "EHLO" not in out and "MAIL FROM" not in out and "mail.log" not in out, out
    store.close()


def _watched(tmp_path: Path, storage: str | None = None) -> tuple[Path, int]:
    """A server's root whose games.yaml has health and metrics on a port of
    their own, and an operator."""
    port = free_port()
    root = _root(
        tmp_path,
        f"  operator: {OPS}\n  metrics: {{listen: {{host: 127.0.0.1, port: {port}}}}}\n",
        storage,
    )
    return root, port


def get(port: int, path: str) -> tuple[int, bytes]:
    """GET with a plain HTTP client: the status and the body (an error's too)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def metric(port: int, name: str) -> float | None:
    """One sample of /metrics (``name`` with its labels), None if absent."""
    status, body = get(port, "/metrics")
    assert status == 200, body
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return None


def test_health_and_metrics_answer_and_count_the_mail_as_it_flows(tmp_path):
    """/healthz and /readyz say the server is alive and ready (each check
    with its value), /metrics counts from the store: the mails processed
    rise as a mail is processed, and the receipt's way out is counted."""
    root, port = _watched(tmp_path)
    store = store_of(root)
    server = Serve(root)
    assert get(port, "/healthz")[0] == 200
    wait_for(lambda: get(port, "/readyz")[0] == 200, 30, "the server ready")
    ready = json.loads(get(port, "/readyz")[1])
    assert ready["ok"] is True
    assert set(ready["checks"]) == {"database", "worker", "backlog", "outbox"}
    assert ready["checks"]["worker"]["process_alive"] is True
    assert ready["checks"]["backlog"]["value"] == 0
    applied = 'pbem_mails_processed_total{state="applied"}'
    before = metric(port, applied) or 0
    assert metric(port, "pbem_worker_up") == 1
    assert metric(port, "pbem_database_up") == 1
    accepted = metric(port, "pbem_mails_accepted_total")
    assert send(server.port, orders_mail(password(store), "counted")) == 250
    wait_for(lambda: metric(port, applied) == before + 1, 30, "the mail counted")
    assert metric(port, "pbem_mails_accepted_total") == accepted + 1
    wait_for(lambda: metric(port, 'pbem_outbox_mails{status="pending"}') == 0, 30, "sent")
    assert metric(port, 'pbem_outbox_mails{status="sent"}') >= 1
    assert metric(port, 'pbem_worker_failures_total{loop="worker"}') == 0
    assert get(port, "/nothing")[0] == 404
    server.stop()
    store.close()


def test_the_operator_is_told_once_when_the_worker_keeps_failing(tmp_path):
    """The worker fails every time (the fault point): the operator gets one
    alert (the game masters none: the operator is who runs the server),
    /readyz says 503 with the worker's check failing, /metrics counts the
    failures."""
    root, port = _watched(tmp_path)
    store = store_of(root)
    server = Serve(root, fault="worker_fails")
    assert send(server.port, orders_mail(password(store), "waiting")) == 250

    def alerts(to: str) -> list[str]:
        return [
            email.message_from_bytes(r.message, policy=email.policy.default)["Subject"]
            for r in store.outbox_rows("alert", to)
        ]

    wait_for(lambda: any("failing" in a for a in alerts(OPS)), 60, "the operator told")
    status, body = get(port, "/readyz")
    assert status == 503, body
    worker = json.loads(body)["checks"]["worker"]
    assert worker["ok"] is False and worker["failures_in_a_row"] >= 3
    assert metric(port, 'pbem_worker_failures_total{loop="worker"}') >= 3
    assert metric(port, "pbem_database_failures_total") >= 3  # the fault is a StoreError
    # a failure after the alert's (the worker's first backoff, 2 s) tells no one again
    wait_for(lambda: metric(port, 'pbem_worker_failures_total{loop="worker"}') >= 4, 60, "more")
    assert sum("failing" in a for a in alerts(OPS)) == 1
    assert not any("failing" in a for a in alerts(GM))
    server.stop()
    store.close()


def test_readyz_fails_and_metrics_answer_while_postgresql_is_down(tmp_path):
    """The database stopped under a running server: /healthz still 200,
    /readyz 503 with the database's check failing and saying why, /metrics
    still answers, with the database down. Started again, the server is
    ready again and the operator gets one mail saying how long it lasted
    (an alert about the database cannot wait in it)."""
    postgres = PostgresServer(need_postgres()).start()
    try:
        postgres.sql("CREATE DATABASE watched")
        root, port = _watched(tmp_path, postgres.url("watched"))
        server = Serve(root)
        wait_for(lambda: get(port, "/readyz")[0] == 200, 30, "the server ready")
        assert metric(port, "pbem_database_up") == 1
        postgres._run("pg_ctl", "-D", str(postgres.data), "-m", "immediate", "-w", "stop")
        wait_for(lambda: get(port, "/readyz")[0] == 503, 30, "readyz failing")
        database = json.loads(get(port, "/readyz")[1])["checks"]["database"]
        assert database["ok"] is False and database["error"], database
        assert get(port, "/healthz")[0] == 200
        assert metric(port, "pbem_database_up") == 0
        assert metric(port, "pbem_mails_accepted_total") is None  # unknown, not zero
        assert "CRITICAL pbem.metrics: the database does not answer" in server.output()
        options = f"-p {postgres.port} -c listen_addresses=127.0.0.1 "
        options += f"-c unix_socket_directories={postgres.root}"
        restarted = postgres._run(
            "pg_ctl", "-D", str(postgres.data), "-l", str(postgres.log), "-w", "-o", options,
            "start",
        )  # fmt: skip
        assert restarted.returncode == 0, restarted.stderr
        wait_for(lambda: get(port, "/readyz")[0] == 200, 60, "ready again")
        store = Store(postgres.url("watched"))
        try:
            wait_for(lambda: store.outbox_rows("alert", OPS), 30, "the operator told")
            told = [r.message for r in store.outbox_rows("alert", OPS)]
            assert len(told) == 1 and b"database was unreachable" in told[0], told
        finally:
            store.close()
    finally:
        kill_all()
        postgres.stop()


def test_the_operator_is_told_once_an_hour_when_the_outbox_backs_up(tmp_path):
    """The relay does not answer: the mail to go out waits. Once the oldest
    has waited longer than max_outbox_minutes the operator is told, once
    (not at every look), and /readyz's outbox check fails."""
    from pbem.serving.metrics import Watch
    from tests.mailharness import Harness

    closed = free_port()  # nothing listens there: the relay is down
    yaml = GAMES_YAML.replace(
        "  outbound: {from: judge@judge.example, maildir: var/mail}\n",
        f"  outbound: {{from: judge@judge.example, host: 127.0.0.1, port: {closed}}}\n"
        f"  operator: {OPS}\n  metrics: {{listen: {{port: 0}}, max_outbox_minutes: 15}}\n",
    )
    judge = Harness(tmp_path, yaml)
    try:
        watch = Watch(judge.app, lambda: True, [0] * 6, judge.app.config.server.metrics)
        watch.check()
        assert judge.outbox("alert", OPS) == []  # waiting, not for long yet
        assert watch.ready()[1]["outbox"]["ok"] is True
        judge.clock.advance(minutes=16)
        watch._last = None  # a fresh reading, on the test's clock
        watch.check()
        watch._last = None
        watch.check()
        alerts = [m["Subject"] for m in judge.outbox("alert", OPS)]
        assert alerts == ["[pbem] the outbox is backing up"], alerts
        ok, checks = watch.ready()
        assert not ok and checks["outbox"]["oldest_pending_seconds"] >= 15 * 60
    finally:
        judge.close()


def test_a_full_disk_is_said_at_once_and_mailed_to_the_operator(tmp_path, caplog):
    """Writing the outgoing mail fails for want of space (the kernel's own
    /dev/full answers ENOSPC): the log says at once, at CRITICAL, that the
    disk is full, and the operator gets one mail about it."""
    import logging

    from tests.mailharness import Harness

    caplog.set_level(logging.INFO)
    first = tmp_path / "var" / "mail" / "tmp" / "pbem-1.judge.example"
    first.parent.mkdir(parents=True)
    first.symlink_to("/dev/full")  # the first mail's write fails: no space left
    yaml = GAMES_YAML.replace(
        "  timezone: Europe/Oslo\n", f"  timezone: Europe/Oslo\n  operator: {OPS}\n", 1
    )
    judge = Harness(tmp_path, yaml)
    try:
        wait_for(lambda: judge.outbox("alert", OPS), 30, "the operator told")
        alerts = [m["Subject"] for m in judge.outbox("alert", OPS)]
        assert alerts == ["[pbem] the disk is full"], alerts
        full = [r for r in caplog.records if "the disk is full" in r.getMessage()]
        assert len(full) == 1 and full[0].levelno == logging.CRITICAL, full
    finally:
        judge.close()


def test_the_turn_lag_histogram_counts_turns_resolved_at_their_deadline(tmp_path):
    """pbem_turn_lag_seconds: from a turn's deadline to its resolving. A
    turn the scheduler runs at its deadline lags seconds; one whose
    deadline passed while the server was down lags until it started and
    settled (docs/deadlines.md)."""
    from datetime import timedelta

    from pbem.serving.metrics import Watch
    from tests.mailharness import Harness

    yaml = GAMES_YAML.replace(
        "  timezone: Europe/Oslo\n", "  timezone: Europe/Oslo\n  metrics: {listen: {port: 0}}\n", 1
    )

    def lag_lines(h: Harness) -> dict[str, float]:
        watch = Watch(h.app, lambda: True, [0] * 6, h.app.config.server.metrics)
        text = watch.metrics().decode()
        return {
            line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("pbem_turn_lag_seconds")
        }

    h = Harness(tmp_path, yaml)
    try:
        assert lag_lines(h)["pbem_turn_lag_seconds_count"] == 0
        deadline = h.game().deadline
        h.clock.advance(seconds=(deadline - h.clock.now()).total_seconds() + 3)
        h.tick()
        assert h.game().turn == 2
        deadline = h.game().deadline
    finally:
        h.close()
    # down across the next deadline for an hour and a half
    h = Harness(tmp_path, yaml, start=deadline + timedelta(minutes=90))
    try:
        h.advance(minutes=6)  # the settling time after the start has passed
        assert h.game().turn == 3
        got = lag_lines(h)
    finally:
        h.close()
    # alpha and beta play on the same deadlines: each turn twice
    assert got["pbem_turn_lag_seconds_count"] == 4, got
    assert got['pbem_turn_lag_seconds_bucket{le="1"}'] == 0, got
    assert got['pbem_turn_lag_seconds_bucket{le="5"}'] == 2, got
    assert got['pbem_turn_lag_seconds_bucket{le="3600"}'] == 2, got
    assert got['pbem_turn_lag_seconds_bucket{le="21600"}'] == 4, got
    assert got['pbem_turn_lag_seconds_bucket{le="+Inf"}'] == 4, got
    late = got["pbem_turn_lag_seconds_sum"] / 2 - 3
    assert 96 * 60 <= late <= 97 * 60, got
