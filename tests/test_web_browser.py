"""The web pages in a real browser: headless Chromium (Debian's, driven by
Selenium: tests/browser.py) against the real web server of a pbem server
with games in several phases, as a reader sees them: no console errors (a
script that throws, a picture the Content-Security-Policy refuses, a file
missing), the map drawn and visible, the countdown counting, history
links back and forth, a phone's width without horizontal scroll."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pbem.mail.lists import unsubscribe_token
from tests.browser import PHONE, Browser
from tests.mailharness import SERVER_YAML, Harness

WATCHER = "watcher@example.org"
WEB = "  web: {listen: {host: 127.0.0.1, port: 0}}\n"
SITE = SERVER_YAML.replace("games:\n", WEB + "games:\n") + f"""\
  - name: alpha
    game: officewars
    map: six
    deadline: "50 0,12 * * *"
    players:
      - {{name: ann, email: ann@example.org}}
      - {{name: bob, email: bob@example.org}}
      - {{name: cid, email: cid@example.org}}
    observers: [{WATCHER}]
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A server whose clock starts at the real time (the countdown in the
    browser counts against the browser's own clock), its games played a
    few turns."""
    now = datetime.now(UTC).replace(microsecond=0)
    h = Harness(tmp_path_factory.mktemp("site"), SITE, start=now)
    yield h
    h.close()


@pytest.fixture(scope="module")
def browser():
    b = Browser()
    yield b
    b.close()


@pytest.fixture
def phone(browser):
    browser.resize(*PHONE)
    yield browser
    browser.resize(1280, 900)


def url(site: Harness, path: str) -> str:
    return f"http://127.0.0.1:{site.server.web.port}{path}"


def test_the_unsubscribe_page_works_in_a_browser(site, browser):
    token = unsubscribe_token(site.app.secret, "alpha", WATCHER)
    browser.open(url(site, f"/unsubscribe/{token}"))
    assert browser.title == "Unsubscribe from alpha"
    assert browser.errors() == []
    browser.click("button[type=submit]")
    assert "Unsubscribed from alpha" in browser.text("h1")
    assert browser.errors() == []
    site.settle()
    assert site.outbox("unsubscribed", WATCHER)


def test_the_unsubscribe_page_fits_a_phone(site, phone):
    token = unsubscribe_token(site.app.secret, "alpha", WATCHER)
    phone.open(url(site, f"/unsubscribe/{token}"))
    assert phone.js("return window.innerWidth") == PHONE[0]
    assert phone.overflow() == 0
