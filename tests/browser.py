"""A real browser for the tests of the web pages: Debian's headless
Chromium, driven through its chromium-driver by Selenium (`make test`
installs both; nothing is downloaded when the tests run).

``Browser`` opens one Chromium and keeps it for a test module (starting one
takes a second); each page is read as a person's browser reads it: the
console's errors (a script that fails, an image refused by the page's
Content-Security-Policy, a 404 for a style sheet) are collected, the width
of the window can be that of a phone, and a screenshot is a PNG.

A machine without chromium and chromium-driver skips the browser tests,
unless ``PBEM_NEED_BROWSER`` is set (``make test`` sets it): then they fail.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.mailharness import SERVER_YAML, Harness

CHROMIUM = ("/usr/bin/chromium", "/usr/lib/chromium/chromium")
DRIVER = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")

PHONE = (375, 812)  # a phone's CSS pixels, portrait
DESKTOP = (1280, 900)


def _first(paths: tuple[str, ...], name: str) -> str | None:
    found = [p for p in paths if Path(p).exists()]
    return found[0] if found else shutil.which(name)


def need_browser() -> tuple[str, str]:
    """(chromium, chromedriver), or the test is skipped (failed under
    ``PBEM_NEED_BROWSER``) when either is missing."""
    chromium, driver = _first(CHROMIUM, "chromium"), _first(DRIVER, "chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:  # pragma: no cover - the test extras install it
        chromium = None
    if chromium and driver:
        return chromium, driver
    if os.environ.get("PBEM_NEED_BROWSER"):
        pytest.fail(
            "chromium and chromium-driver are not installed: run the tests with `make test`"
        )
    pytest.skip("needs Debian's chromium and chromium-driver (make test installs them)")


class Browser:
    """One headless Chromium. ``open(url)`` loads a page and waits for it;
    ``errors()`` is what its console said at level error since the last
    ``open``."""

    def __init__(self, size: tuple[int, int] = DESKTOP) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        chromium, driver = need_browser()
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for arg in (
            "--headless=new",
            "--no-sandbox",  # the tests run as root
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",  # no requests but the page's own
            "--lang=en-GB",
            f"--window-size={size[0]},{size[1]}",
        ):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # Chromium's scratch files in a folder of its own, removed on close
        # (left in /tmp they would pile up, one folder a browser)
        self._scratch = tempfile.TemporaryDirectory(prefix="pbem-browser-")
        env = {**os.environ, "TMPDIR": self._scratch.name}
        # the driver named: Selenium looks for no other and downloads nothing
        service = Service(executable_path=driver, env=env)
        self.driver = webdriver.Chrome(options=options, service=service)
        self.driver.set_page_load_timeout(30)
        self.width = size[0]
        self.resize(*size)

    def close(self) -> None:
        self.driver.quit()
        self._scratch.cleanup()

    # -- pages -------------------------------------------------------------------

    def open(self, url: str) -> None:
        """Load ``url`` (waits for its load event); the console starts empty."""
        self.driver.get_log("browser")  # what earlier pages said is read and dropped
        self.driver.get(url)
        self.wait(lambda: self.js("return document.readyState") == "complete", "the page to load")

    @property
    def url(self) -> str:
        return self.driver.current_url

    @property
    def title(self) -> str:
        return self.driver.title

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def find(self, css: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css: str) -> list[Any]:
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css: str = "body") -> str:
        return self.find(css).text

    def click(self, css: str) -> None:
        """Click what ``css`` finds, and wait for the page it leads to."""
        before = self.js("return window.performance.timeOrigin")
        self.driver.get_log("browser")
        self.find(css).click()
        self.wait(
            lambda: (
                self.js("return window.performance.timeOrigin") != before
                and self.js("return document.readyState") == "complete"
            ),
            f"the page after clicking {css}",
        )

    def back(self) -> None:
        self.driver.back()
        self.wait(lambda: self.js("return document.readyState") == "complete", "going back")

    def errors(self) -> list[str]:
        """The console's errors since the page was opened: failed loads,
        refusals by the Content-Security-Policy, scripts that threw."""
        return [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def cookies(self) -> list[dict[str, Any]]:
        return self.driver.get_cookies()

    # -- the window ----------------------------------------------------------------

    def resize(self, width: int, height: int) -> None:
        """The page's viewport ``width`` by ``height`` CSS pixels, as a
        phone's (touch, its viewport meta tag read) when narrow."""
        phone = width < 600
        self.driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 2 if phone else 1,
             "mobile": phone},
        )  # fmt: skip
        self.width = width

    def overflow(self) -> int:
        """How many CSS pixels the page is wider than the window's width
        (0: no horizontal scroll). A page without a viewport meta tag is
        laid out 980 pixels wide on a phone: that counts as too wide."""
        return (
            int(
                self.js(
                    "return Math.max(document.documentElement.scrollWidth,"
                    " document.body ? document.body.scrollWidth : 0, window.innerWidth)"
                )
            )
            - self.width
        )

    def screenshot(self, path: Path, full: bool = True, tallest: int = 20000) -> Path:
        """The page as a PNG; ``full``: all of it (down to ``tallest`` CSS
        pixels), not only the window."""
        import base64

        if full:
            metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
            size = metrics["cssContentSize"]
            shot = self.driver.execute_cdp_cmd(
                "Page.captureScreenshot",
                {"format": "png", "captureBeyondViewport": True,
                 "clip": {"x": 0, "y": 0, "width": size["width"],
                          "height": min(size["height"], tallest),
                          "scale": 1}},
            )  # fmt: skip
            path.write_bytes(base64.b64decode(shot["data"]))
        else:
            self.driver.save_screenshot(str(path))
        return path

    # -- waiting -------------------------------------------------------------------

    def wait(self, predicate: Callable[[], Any], what: str, timeout: float = 15) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what} at {self.url}")
            time.sleep(0.05)


# -- a site to read: games in several phases -----------------------------------------------

WATCHER = "watcher@example.org"
WEB = "  web: {listen: {host: 127.0.0.1, port: 0}, rate: 0}\n"
EMPIRE = ["austria", "england", "france", "germany", "italy", "russia", "turkey"]
SITE = (
    SERVER_YAML.replace("games:\n", WEB + "games:\n")
    + f"""\
  - name: alpha
    game: officewars
    map: six
    deadline: "50 0,12 * * *"
    timezone: Europe/Oslo
    players:
      - {{name: ann, email: ann@example.org}}
      - {{name: bob, email: bob@example.org}}
      - {{name: cid, email: cid@example.org}}
    observers: [{WATCHER}]
  - name: dip
    game: empire
    map: standard
    deadline: "55 0,12 * * *"
    timezone: Europe/Oslo
    players:
"""
    + "".join(f"      - {{name: {n}, email: {n}@example.org}}\n" for n in EMPIRE)
    + """\
  - name: open
    game: officewars
    map: six
    seats: 4
    players:
      - {name: dee, email: dee@example.org}
"""
)


def orders(h: Harness, sender: str, text: str, game: str = "alpha") -> None:
    h.send(sender, f"{game}@judge.example", f"PASSWORD {h.password(sender, game)}\n{text}\n")


def played_site(root: Path) -> Harness:
    """A server whose clock starts at the real time (the countdown in a
    browser counts against the browser's own clock): alpha (Office Wars)
    with two phases played, orders and press; dip (Empire) one phase
    played; open waiting for players. The caller closes it."""
    now = datetime.now(UTC).replace(microsecond=0)
    h = Harness(root, SITE, start=now)
    orders(h, "ann@example.org", "Sol attacks Alnitak")
    wanted = {"alpha": 3, "dip": 2}
    while due := [h.game(g).deadline for g, turn in wanted.items() if h.game(g).turn < turn]:
        h.clock.set(min(due))  # each turn on time, in the order of the deadlines
        h.tick()
    assert h.game().turn == 3 and h.game("dip").turn == 2
    orders(h, "bob@example.org", "PRESS ALL\nHello <b>all</b> & good luck\nENDPRESS")
    assert "Hello" in h.text(h.outbox("press", "ann@example.org")[-1])
    return h
