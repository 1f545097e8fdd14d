"""The web server's edges, over raw sockets and real HTTP against the
aiohttp server `pbem serve` runs: aiohttp's own answers to requests it
cannot read carry the pages' safe headers, name no library or version and
echo nothing of the request; a game that does not exist and a private game
the reader may not see answer the same 404, byte for byte, by the same
steps."""

from __future__ import annotations

import http.client
import socket

import pytest

import pbem.web.cache
from pbem.web import pages
from pbem.web.server import SAFE_HEADERS
from tests.mailharness import GAMES_YAML, PRIVATE_GAME, Harness

WEB = "  web: {listen: {host: 127.0.0.1, port: 0}, rate: 0}\n"
YAML = GAMES_YAML.replace("  limits:", WEB + "  limits:", 1) + PRIVATE_GAME
MARK = "zqxjMARKzqxj"  # what the request carries, that no answer may echo


@pytest.fixture
def h(tmp_path, monkeypatch):
    monkeypatch.setattr(pbem.web.cache, "VERSION_FRESH", 0.0)  # each request looks
    harness = Harness(tmp_path, YAML)
    yield harness
    harness.close()


def raw(h: Harness, request: bytes) -> bytes:
    """Every byte the server answers ``request`` with, until it closes."""
    with socket.create_connection(("127.0.0.1", h.server.web.port), timeout=10) as s:
        s.sendall(request)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    return got


def head_of(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status.split()[1]), headers, body


BROKEN = {
    "a header over 8 KB": (
        f"GET /{MARK} HTTP/1.1\r\nHost: x\r\nX-{MARK}: {MARK * 1000}\r\n\r\n".encode()
    ),
    "a request line over 8 KB": f"GET /{MARK * 1000} HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
    "a malformed request line": f"G\x01T /{MARK} HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
    "no HTTP at all": f"{MARK} {MARK}\r\n\r\n".encode(),
    "a bad header line": f"GET / HTTP/1.1\r\nHost: x\r\n{MARK}\r\n\r\n".encode(),
    "a bad version": f"GET / HTTP/9.{MARK}\r\n\r\n".encode(),
    "a bad chunk": (
        f"POST /signout HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n{MARK}\r\n\r\n"
    ).encode(),
}


@pytest.mark.parametrize("request_bytes", list(BROKEN.values()), ids=list(BROKEN))
def test_aiohttps_own_errors_are_answered_our_way(h, request_bytes):
    answer = raw(h, request_bytes)
    status, headers, body = head_of(answer)
    assert 400 <= status < 500, answer[:300]
    for name, value in SAFE_HEADERS.items():
        assert headers.get(name.lower()) == value, (name, headers)
    assert headers["server"] == "pbem"
    lowered = answer.lower()
    assert b"aiohttp" not in lowered and b"python" not in lowered, answer[:300]
    assert MARK.lower().encode() not in lowered, answer[:300]  # nothing of the request echoed
    assert body.decode().startswith(str(status)) and len(body) < 100, body


def test_an_answer_of_a_handler_names_no_library(h):
    status, headers, _ = head_of(
        raw(h, b"GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    )
    assert status == 404 and headers["server"] == "pbem"
    assert headers["content-security-policy"] == SAFE_HEADERS["Content-Security-Policy"]


def get(h: Harness, path: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", h.server.web.port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


UNKNOWN_AND_PRIVATE = [
    ("/games/nosuch", "/games/gamma"),
    ("/games/nosuch/map.svg", "/games/gamma/map.svg"),
    ("/games/nosuch/feed.atom", "/games/gamma/feed.atom"),
    ("/games/nosuch/calendar.ics", "/games/gamma/calendar.ics"),
    ("/games/nosuch/turns/0", "/games/gamma/turns/0"),
    ("/games/nosuch/turns/0/map.svg", "/games/gamma/turns/0/map.svg"),
]


@pytest.mark.parametrize("unknown, private", UNKNOWN_AND_PRIVATE)
def test_unknown_and_private_games_answer_the_same_404(h, unknown, private):
    """Byte for byte (but the Date), and by the same steps: neither is
    rendered as a page of the game nor kept among the pages (the 404 comes
    from ``pages.opened`` before anything of the game is read)."""
    kept = h.server.web._runner.app[pages.CACHE]
    before = kept.renders
    a_status, a_headers, a_body = get(h, unknown)
    b_status, b_headers, b_body = get(h, private)
    assert a_status == b_status == 404
    assert a_body == b_body and b"No such game" in a_body
    a_headers.pop("Date"), b_headers.pop("Date")
    assert a_headers == b_headers
    assert kept.renders == before  # no page of either was made, or kept
    assert get(h, "/games/alpha")[0] == 200 and kept.renders == before + 1  # a page is
