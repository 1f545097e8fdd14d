"""The web pages of a real `pbem serve` run in a process of their own,
beside the mail worker and at low priority, on a socket the SMTP
process binds and keeps. Killed, the pages' process is started again on
the same port and a request made meanwhile is answered; the SMTP side and
the worker never notice; a stopped server leaves no process behind."""

from __future__ import annotations

import email
import email.policy
import http.client
import os
import re
import signal
import smtplib
from pathlib import Path

import pytest

from tests.mailharness import GAMES_YAML, wait_for
from tests.serveproc import Serve, kill_all

ANN, JUDGE = "ann@example.org", "judge@judge.example"
HELP = b"From: ann@example.org\r\nSubject: x\r\n\r\nHELP\r\n"
WEB = "  web: {listen: {host: 127.0.0.1, port: 0}}\n"


@pytest.fixture(autouse=True)
def _no_orphans():
    yield
    kill_all()


def children(pid: int) -> dict[int, str]:
    """The child processes of ``pid`` still running: their names (what
    ps and top show)."""
    found = {}
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        try:
            stat = Path(f"/proc/{child}/stat").read_text()
        except FileNotFoundError:
            continue
        name, rest = stat[stat.index("(") + 1 :].rsplit(")", 1)
        if rest.split()[0] != "Z":
            found[int(child)] = name
    return found


def named(serve: Serve, name: str) -> int:
    """The one child of the server called ``name`` (waited for)."""

    def one() -> int | None:
        pids = [pid for pid, comm in children(serve.proc.pid).items() if comm == name]
        return pids[0] if len(pids) == 1 else None

    return wait_for(one, 30, f"the server's {name} process")


def nice(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        return answer.status, answer.read().decode()
    finally:
        conn.close()


def replies(root: Path) -> list[email.message.EmailMessage]:
    new = root / "var" / "mail" / "new"
    mails = [
        email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        for path in (new.iterdir() if new.exists() else [])
    ]
    return [m for m in mails if m["To"] == ANN]


def test_the_pages_process_is_restarted_on_the_same_port_and_mail_goes_on(tmp_path):
    (tmp_path / "games.yaml").write_text(GAMES_YAML.replace("  limits:", WEB + "  limits:"))
    serve = Serve(tmp_path)
    port = int(re.search(r"web: http://127\.0\.0\.1:(\d+)/", serve.output())[1])
    status, body = get(port, "/games/alpha")
    assert status == 200 and "alpha" in body

    web, worker = named(serve, "pbem-web"), named(serve, "pbem-worker")
    assert (nice(serve.proc.pid), nice(web), nice(worker)) == (0, 15, 19)  # the SMTP side first

    os.kill(web, signal.SIGKILL)
    with smtplib.SMTP("127.0.0.1", serve.port, timeout=10) as smtp:  # the SMTP side answers
        assert smtp.sendmail(ANN, [JUDGE], HELP) == {}
    # made while no process serves the pages: waits in the socket's queue
    status, body = get(port, "/games/alpha")
    assert status == 200 and "alpha" in body
    again = named(serve, "pbem-web")
    assert again != web and named(serve, "pbem-worker") == worker
    assert "the web pages' process exited (-9); restarting it" in serve.output()
    wait_for(lambda: replies(tmp_path), 60, "the answer to HELP")

    serve.stop()
    assert serve.proc.returncode == 0, serve.output()
    wait_for(lambda: not alive(again) and not alive(worker), 10, "the children to end")
