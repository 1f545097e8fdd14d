"""Observers leave a game's mail: by mail to the unsubscribe address of a
report's List-Unsubscribe, or by the one-click POST to the real aiohttp
server `pbem serve` runs on 127.0.0.1. A GET never unsubscribes; a forged
or wrong token does nothing and tells nothing; an automatic mail never
unsubscribes; the observer is told once."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from email.message import EmailMessage

import pytest

from pbem.config import ConfigError, parse_config
from pbem.mail.calendar import Deadlines
from pbem.mail.lists import unsubscribe_token
from tests.mailharness import GAMES_YAML, Harness, on_both_backends
from tests.test_list_headers import WATCHER, YAML, check

ALPHA = "alpha@judge.example"
ANN, FAN = "ann@example.org", "fan@example.org"


@pytest.fixture
def h(tmp_path, storage):
    harness = Harness(tmp_path, YAML, storage=storage)
    yield harness
    harness.close()


def next_turn(h: Harness) -> None:
    h.clock.set(h.game().deadline)
    h.tick()


def reports(h: Harness, to: str) -> int:
    return len([m for m in h.outbox("report", to) if "[alpha]" in m["Subject"]])


def targets(mail: EmailMessage) -> tuple[str, str]:
    """(the mailto address, the URL) of a mail's List-Unsubscribe."""
    found = re.fullmatch(r"<mailto:([^>]+)>, <([^>]+)>", str(mail["List-Unsubscribe"]))
    assert found, mail["List-Unsubscribe"]
    return found[1], found[2]


def local(h: Harness, url: str) -> str:
    """The public URL of a report, on the test's own web server."""
    path = url.removeprefix("https://judge.example/pbem")
    return f"http://127.0.0.1:{h.server.web.port}{path}"


def http(url: str, data: bytes | None = None) -> tuple[int, str, dict[str, str]]:
    """(status, body, headers) of a GET, or of a POST when ``data`` is given."""
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    if data is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read().decode(), dict(error.headers)


ONE_CLICK = b"List-Unsubscribe=One-Click"


def told(h: Harness, to: str = WATCHER) -> list[EmailMessage]:
    return h.outbox("unsubscribed", to)


@on_both_backends
def test_by_mail_to_the_unsubscribe_address(h):
    next_turn(h)
    assert reports(h, WATCHER) == 1
    mailto, _ = targets(h.report(WATCHER))
    h.send(WATCHER, mailto, "", subject="unsubscribe")
    [notice] = told(h)
    check(notice, auto="auto-replied")  # no List-Unsubscribe: no longer an observer
    assert "watcher@example.org no longer receives the mail of alpha" in h.text(notice)
    assert "WATCH alpha" in h.text(notice)
    next_turn(h)
    assert reports(h, WATCHER) == 1  # nothing more
    assert reports(h, ANN) == 2
    h.send(WATCHER, mailto, "", subject="unsubscribe")  # again: told once
    assert len(told(h)) == 1
    assert h.outbox("receipt", WATCHER) == []


def test_from_any_address_the_token_decides(h):
    """A mail program may send from another identity: the token alone says
    who leaves, and only that observer is told."""
    next_turn(h)
    mailto, _ = targets(h.report(WATCHER))
    h.send("other-identity@example.net", mailto.upper(), "")  # case does not matter
    assert len(told(h)) == 1 and h.outbox(to="other-identity@example.net") == []


def test_forged_and_wrong_tokens_do_nothing(h):
    next_turn(h)
    before = len(h.app.store.outbox_rows())
    fake = unsubscribe_token("11" * 32, "alpha", WATCHER)  # not this server's secret
    player = unsubscribe_token(h.app.secret, "alpha", ANN)  # a player: no observer
    other = unsubscribe_token(h.app.secret, "beta", WATCHER)  # a game it does not watch
    nowhere = unsubscribe_token(h.app.secret, "zeta", WATCHER)  # no such game
    for token in (fake, player, other, nowhere, "alpha", "alpha.x", "x" * 120):
        h.send(FAN, f"unsubscribe+{token}@judge.example", "")
    assert len(h.app.store.outbox_rows()) == before  # nobody answered, nobody told
    next_turn(h)
    assert reports(h, WATCHER) == 2 and reports(h, ANN) == 2


def test_automatic_mail_never_unsubscribes(h):
    next_turn(h)
    mailto, _ = targets(h.report(WATCHER))
    h.send(WATCHER, mailto, "I am away until Monday.", Auto_Submitted="auto-replied")
    h.send(WATCHER, mailto, "Away.", subject="Out of office", Precedence="bulk")
    dsn = (
        f"From: MAILER-DAEMON@example.org\r\nTo: {mailto}\r\nSubject: Undelivered Mail\r\n"
        "Message-ID: <dsn-1@example.org>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nYour mail could not be delivered.\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; example.org\r\n"
        f"\r\nFinal-Recipient: rfc822; {WATCHER}\r\nAction: failed\r\nStatus: 5.1.1\r\n--b--\r\n"
    ).encode()
    h.send_raw(dsn, "", (mailto,))
    assert told(h) == []
    next_turn(h)
    assert reports(h, WATCHER) == 2


@on_both_backends
def test_one_click_post_unsubscribes_once(h):
    next_turn(h)
    _, url = targets(h.report(WATCHER))
    assert url.startswith("https://judge.example/pbem/unsubscribe/alpha.")
    status, body, headers = http(local(h, url), ONE_CLICK)
    assert status == 200 and "no longer receives" in body
    assert headers["Cache-Control"] == "no-store" and headers["Referrer-Policy"] == "no-referrer"
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    h.settle()
    [notice] = told(h)
    check(notice, auto="auto-generated")  # asked by a click, not by a mail
    assert "Unsubscribe button" in h.text(notice)
    again = http(local(h, url), ONE_CLICK)
    assert again[:2] == (200, body)  # the same answer; no second mail
    h.settle()
    assert len(told(h)) == 1
    next_turn(h)
    assert reports(h, WATCHER) == 1


def test_get_never_unsubscribes(h):
    next_turn(h)
    _, url = targets(h.report(WATCHER))
    for _ in range(3):  # a link scanner, a preview, the reader
        status, body, headers = http(local(h, url))
        assert status == 200 and "<form method=post>" in body and "Unsubscribe" in body
        assert headers["Cache-Control"] == "no-store"
    head = urllib.request.Request(local(h, url), method="HEAD")
    with urllib.request.urlopen(head, timeout=10) as response:
        assert response.status == 200
    h.settle()
    assert told(h) == []
    next_turn(h)
    assert reports(h, WATCHER) == 2


def test_a_forged_post_does_nothing_and_answers_the_same(h):
    next_turn(h)
    _, url = targets(h.report(WATCHER))
    base = local(h, url).rpartition("/")[0]
    forged = unsubscribe_token("22" * 32, "alpha", WATCHER)
    flipped = url.rpartition("/")[2][:-1] + ("a" if not url.endswith("a") else "b")
    answers = {http(f"{base}/{t}", ONE_CLICK)[:2] for t in (forged, flipped)}
    real = http(local(h, url), ONE_CLICK)[:2]
    assert answers == {real}  # nothing tells a forged token from a real one
    assert http(f"{base}/not-a-token", ONE_CLICK)[0] == 404
    assert http(f"{base}/{'a' * 5000}", ONE_CLICK)[0] in (404, 414)
    assert http(local(h, url), b"x" * 200_000)[0] == 413  # no flood of a body
    h.settle()
    assert len(told(h)) == 1  # the real one only


def test_a_watcher_leaves_and_may_come_back(h):
    h.send_confirmed(FAN, "judge@judge.example", "WATCH alpha\n")
    next_turn(h)
    assert reports(h, FAN) == 1
    _, url = targets(h.report(FAN, "alpha"))
    assert http(local(h, url), ONE_CLICK)[0] == 200
    h.settle()
    assert len(told(h, FAN)) == 1
    with h.app.store.tx(write=False) as conn:
        assert FAN not in h.app.store.watchers(conn, "alpha")
    next_turn(h)
    assert reports(h, FAN) == 1
    h.send_confirmed(WATCHER, "judge@judge.example", "WATCH alpha\n")  # games.yaml's observer, back
    h.send_confirmed(FAN, "judge@judge.example", "WATCH alpha\n")
    next_turn(h)
    assert reports(h, FAN) == 2 and reports(h, WATCHER) == 3


@on_both_backends
def test_games_yaml_observer_stays_out_after_a_restart(tmp_path, storage):
    h = Harness(tmp_path, YAML, storage=storage)
    try:
        next_turn(h)
        mailto, _ = targets(h.report(WATCHER))
        h.send(WATCHER, mailto, "")
        assert len(told(h)) == 1
    finally:
        h.close()
    h = Harness(tmp_path, YAML, storage=storage)  # the same storage, still listed
    try:
        next_turn(h)
        assert reports(h, WATCHER) == 1
        h.send(WATCHER, ALPHA, "HISTORY\n")  # no longer an observer of alpha
        assert h.outbox("history", WATCHER) == []
    finally:
        h.close()


def test_without_a_web_section_no_http_server(tmp_path):
    h = Harness(tmp_path, GAMES_YAML)
    try:
        assert h.server.web is None
    finally:
        h.close()


@pytest.mark.parametrize(
    ("web", "problem"),
    [
        ("  web: 8080\n", "line 7: server web must be a mapping"),
        ("  web: {port: 80}\n", "line 7: server web: unknown key 'port'"),
        ("  web:\n    listen: {port: 99999}\n", "line 8: web listen port (0: any free port)"),
        ("  web:\n    listen: {hots: x}\n", "line 8: web listen: unknown key 'hots'"),
        ("  web:\n    url: ftp://judge.example/\n", "line 8: web url 'ftp://judge.example/'"),
        ('  web:\n    url: "https://x.example/a b"\n', "line 8: web url"),
        ("  web:\n    url: https://x.example/?next=<a>\n", "line 8: web url"),
    ],
)
def test_config_errors_are_named_with_their_line(tmp_path, web, problem):
    text = GAMES_YAML.replace("  limits:", web + "  limits:", 1)
    assert text.splitlines()[6].startswith("  web:")  # line 7 is the web section
    with pytest.raises(ConfigError) as info:
        parse_config(text, tmp_path / "games.yaml")
    assert any(problem in p and p.startswith("games.yaml, line") for p in info.value.problems), (
        info.value.problems
    )


def test_the_web_section_read(tmp_path):
    text = GAMES_YAML.replace(
        "  limits:",
        "  web:\n    listen: {host: 0.0.0.0, port: 8080}\n    url: https://judge.example/pbem/\n"
        "  limits:",
        1,
    )
    web = parse_config(text, tmp_path / "games.yaml").server.web
    assert (web.host, web.port, web.url) == ("0.0.0.0", 8080, "https://judge.example/pbem/")
    assert parse_config(GAMES_YAML, tmp_path / "games.yaml").server.web is None


def test_an_unsubscribed_observer_leaves_the_games_calendar(h):
    def games_of(address: str) -> set[str]:
        with h.app.store.tx(write=False) as conn:
            return {d.game for d in Deadlines(h.app, conn).of(address)}

    assert "alpha" in games_of(WATCHER)
    next_turn(h)
    mailto, _ = targets(h.report(WATCHER))
    h.send(WATCHER, mailto, "")
    assert "alpha" not in games_of(WATCHER) and "alpha" in games_of(ANN)


def test_check_says_where_the_web_server_listens(tmp_path, capsys):
    from pbem.cli.main import main

    text = GAMES_YAML.replace(
        "  limits:", "  web: {listen: {port: 8080}, url: 'https://judge.example/'}\n  limits:", 1
    )
    (tmp_path / "games.yaml").write_text(text)
    assert main(["check", str(tmp_path / "games.yaml")]) == 0
    said = capsys.readouterr().out
    assert "web on 127.0.0.1:8080, public address https://judge.example/ (one-click" in said
