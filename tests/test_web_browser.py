"""The web pages in a real browser: headless Chromium (Debian's, driven by
Selenium: tests/browser.py) against the real web server of a pbem server
with games in several phases, as a reader sees them: no console errors (a
script that throws, a picture or style the Content-Security-Policy
refuses, a file missing), the map drawn and visible, the countdown
counting, history links back and forth, a phone's width without
horizontal scroll, the deadline there without JavaScript, and a player
signing in with the link SIGNIN mails."""

from __future__ import annotations

import io
import re
import time
from datetime import UTC, datetime

import pytest
from PIL import Image

from pbem.mail.lists import unsubscribe_token
from tests.browser import DESKTOP, PHONE, WATCHER, Browser, orders, played_site
from tests.mailharness import Harness

PAGES = ("/", "/games/alpha", "/games/alpha/turns/1", "/games/alpha/turns/2", "/games/dip")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    h = played_site(tmp_path_factory.mktemp("site"))
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
    browser.resize(*DESKTOP)


def url(site: Harness, path: str) -> str:
    return f"http://127.0.0.1:{site.server.web.port}{path}"


def map_shown(b: Browser) -> dict:
    """The page's map: loaded, its size on the page, and whether the
    reader sees it (displayed, in the page's flow, not transparent)."""
    return b.js(
        """
        const img = document.querySelector('figure img');
        if (!img) return null;
        const box = img.getBoundingClientRect(), style = getComputedStyle(img);
        return {loaded: img.complete && img.naturalWidth > 0, width: box.width,
                height: box.height, left: box.left, right: box.right,
                shown: style.display !== 'none' && style.visibility === 'visible'
                       && style.opacity === '1', alt: img.alt, src: img.currentSrc};
        """
    )


def colours(b: Browser, css: str) -> int:
    """How many colours the element ``css`` shows on the screen."""
    element = b.find(css)
    b.js("arguments[0].scrollIntoView()", element)
    picture = Image.open(io.BytesIO(element.screenshot_as_png)).convert("RGB")
    return len(picture.resize((200, 200)).getcolors(200 * 200) or [])


# -- every page ------------------------------------------------------------------------


@pytest.mark.parametrize("path", PAGES)
def test_every_page_loads_without_a_console_error(site, browser, path):
    browser.open(url(site, path))
    assert browser.errors() == []
    assert browser.find("header nav") and browser.find("main h1") and browser.find("footer")
    assert browser.cookies() == []  # no cookie for a reader who did not sign in


def test_the_list_shows_the_games_and_leads_to_them(site, browser):
    browser.open(url(site, "/"))
    table = browser.text("main")
    assert "alpha" in table and "dip" in table and "open" in table
    assert "3 seats open" in table and "JOIN open" in table
    browser.click("main a[href$='games/dip']")
    assert browser.url == url(site, "/games/dip")
    assert "dip" in browser.text("h1") and browser.errors() == []


@pytest.mark.parametrize("game", ["alpha", "dip"])
def test_the_map_is_drawn_and_visible(site, browser, game):
    browser.open(url(site, f"/games/{game}"))
    shown = map_shown(browser)
    assert shown is not None, "no map on the page"
    assert shown["loaded"] and shown["shown"], shown
    assert shown["width"] > 300 and shown["height"] > 150, shown
    assert shown["src"].endswith(f"/games/{game}/map.svg")
    assert colours(browser, "figure img") > 8  # a picture, not an empty box
    assert browser.errors() == []


def test_the_maps_alt_text_lists_the_units(site, browser):
    browser.open(url(site, "/games/alpha"))
    alt = map_shown(browser)["alt"]
    assert "Sol" in alt and len(alt) > 40, alt


def test_the_countdown_counts_down_to_the_deadline(site, browser):
    browser.open(url(site, "/games/alpha"))
    countdown = browser.find(".countdown")
    browser.wait(countdown.is_displayed, "the countdown to show")
    first = countdown.text
    assert first.startswith("Time left: "), first
    deadline = datetime.fromisoformat(
        browser.find("time[data-countdown]").get_attribute("datetime")
    )
    assert deadline == site.game().deadline
    browser.wait(lambda: countdown.text != first, "the countdown to move", timeout=5)
    left = seconds_left(countdown.text)
    expected = (deadline - datetime.now(UTC)).total_seconds()
    assert abs(left - expected) < 5, (countdown.text, expected)
    time.sleep(2.2)
    assert 1 <= left - seconds_left(countdown.text) <= 4
    assert browser.errors() == []


def seconds_left(text: str) -> int:
    found = re.search(r"Time left: (?:(\d+) days? )?(\d+) h (\d+) min (\d+) s", text)
    assert found, text
    days, hours, minutes, seconds = (int(x or 0) for x in found.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def test_without_javascript_the_deadline_is_printed(site, browser):
    browser.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.open(url(site, "/games/alpha"))
        deadline = site.game().deadline
        assert f"{deadline:%a %d %b %Y %H:%M} UTC" in browser.text("main")
        assert not browser.find(".countdown").is_displayed()
        assert map_shown(browser)["loaded"]
    finally:
        browser.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def test_history_links_go_back_and_forth(site, browser):
    browser.open(url(site, "/games/alpha"))
    history = [a.text for a in browser.find_all("#history ~ ol a")]
    assert history == ["tick 2", "tick 1"], history
    browser.click("#history ~ ol li:last-child a")
    assert browser.url == url(site, "/games/alpha/turns/1")
    assert "tick 1" in browser.text("h1") and "Sol attacks Alnitak" in browser.text("main")
    assert map_shown(browser)["loaded"] and browser.errors() == []
    browser.click("nav.phases a[rel=next]")
    assert browser.url == url(site, "/games/alpha/turns/2")
    assert map_shown(browser)["loaded"] and browser.errors() == []
    browser.click("nav.phases a[rel=prev]")
    assert browser.url == url(site, "/games/alpha/turns/1")
    assert browser.find_all("nav.phases a[rel=prev]") == []  # the first phase
    browser.click("nav.phases a[rel=next]")
    browser.click("nav.phases a:last-child")  # on to the phase being played
    assert browser.url == url(site, "/games/alpha")
    browser.back()
    assert browser.url == url(site, "/games/alpha/turns/2")


def test_press_is_shown_as_text(site, browser):
    browser.open(url(site, "/games/alpha"))
    assert "Hello <b>all</b> & good luck" in browser.text("main")
    assert browser.find_all("main blockquote b") == []


# -- a phone -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", PAGES)
def test_a_phone_scrolls_no_page_sideways(site, phone, path):
    phone.open(url(site, path))
    assert phone.js("return window.innerWidth") == PHONE[0]  # the viewport meta tag read
    assert phone.overflow() == 0
    shown = map_shown(phone)
    if shown is not None:
        assert shown["left"] >= 0 and shown["right"] <= PHONE[0], shown
    assert phone.errors() == []


# -- signing in ----------------------------------------------------------------------------


def test_a_player_signs_in_with_the_mailed_link_and_out_again(site, browser):
    orders(site, "cid@example.org", "Rigel holds")
    site.send("cid@example.org", "judge@judge.example", "SIGNIN alpha\n", subject="sign in")
    mail = site.text(site.outbox("signin", "cid@example.org")[-1])
    link = re.search(r"http://\S+/signin/\S+", mail)[0]
    assert link.startswith(url(site, "/signin/"))  # the port the web server took
    browser.open(link)
    assert "cid@example.org" in browser.text("main") and browser.cookies() == []
    assert browser.find("header nav") and browser.errors() == []
    browser.click("button[type=submit]")
    assert browser.url == url(site, "/games/alpha")
    assert "You are signed in as cid" in browser.text("main")
    assert "Rigel holds" in browser.text("#mine ~ pre, #mine + *, main")
    assert browser.errors() == []
    (cookie,) = browser.cookies()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and not cookie["secure"]
    assert browser.js("return document.cookie") == ""  # no script reads it
    browser.open(url(site, "/games/alpha/turns/2"))  # a played phase: cid's own report
    assert "You are signed in as cid" in browser.text("main") and browser.errors() == []
    browser.click("form.note button[type=submit]")
    assert "signed out" in browser.text("main")
    assert browser.errors() == []
    assert browser.cookies() == []
    browser.open(url(site, "/games/alpha"))
    assert "signed in" not in browser.text("main") and "Rigel holds" not in browser.text("main")
    browser.open(link)  # the link is used up
    assert "already used" in browser.text("h1")


def test_the_unsubscribe_page_works_in_a_browser(site, browser):
    token = unsubscribe_token(site.app.secret, "alpha", WATCHER)
    browser.open(url(site, f"/unsubscribe/{token}"))
    assert browser.title.startswith("Unsubscribe from alpha")
    assert browser.errors() == []
    browser.click("button[type=submit]")
    assert "Unsubscribed from alpha" in browser.text("h1")
    assert browser.errors() == []
