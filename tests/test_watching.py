"""What an operator watches a running `pbem serve` by: its log (a time
stamp and a level on every line, from each of its processes; a line per
mail processed and per mail sent; no SMTP chatter), its health check and
metrics over HTTP, and the alerts mailed to the operator."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.mailharness import GAMES_YAML, wait_for
from tests.serveproc import Serve, kill_all
from tests.test_mail_faults import orders_mail, password, send, set_up, store_of

STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")


@pytest.fixture(autouse=True)
def _no_orphans():
    yield
    kill_all()


def _root(tmp_path: Path, extra: str = "") -> Path:
    yaml = GAMES_YAML.replace("  timezone: Europe/Oslo\n", "  timezone: Europe/Oslo\n" + extra, 1)
    (tmp_path / "games.yaml").write_text(yaml)
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
