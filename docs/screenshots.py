"""``make screenshots``: pictures of the web pages for the README, taken
by the headless Chromium the browser tests use (tests/browser.py), of the
same site: a server with games in several phases. Writes
docs/screenshots/*.png; run it again after changing a page.

    .venv/bin/python docs/screenshots.py [FOLDER]
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import DESKTOP, PHONE, Browser, orders, played_site  # noqa: E402

TALLEST = 1400  # CSS pixels of a page shown; the rest is cut


def shoot(
    browser: Browser, url: str, path: Path, size: tuple[int, int], tallest: int = TALLEST
) -> None:
    browser.resize(*size)
    browser.open(url)
    browser.wait(lambda: browser.js("return document.fonts.status") == "loaded", "fonts")
    if browser.find_all(".countdown"):
        browser.wait(browser.find(".countdown").is_displayed, "the countdown")
    errors = browser.errors()
    if errors:
        raise SystemExit(f"{url}: the console says {errors}")
    browser.screenshot(path, full=True, tallest=tallest)
    small(path)
    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {url}")


def small(path: Path) -> None:
    """The PNG in 256 colours: a page is text and flat colours, and the
    repository keeps every version of the pictures."""
    from PIL import Image

    with Image.open(path) as picture:
        fewer = picture.convert("RGB").quantize(256)
    fewer.save(path, optimize=True)


def sign_in(site, browser: Browser, address: str, game: str) -> None:  # noqa: ANN001
    """Sign ``address`` in, as a player does: SIGNIN by mail, the link, the button."""
    site.send(address, "judge@judge.example", f"SIGNIN {game}\n", subject="sign in")
    mail = site.text(site.outbox("signin", address)[-1])
    browser.open(re.search(r"http://\S+/signin/\S+", mail)[0])
    browser.click("button[type=submit]")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        site = played_site(Path(tmp))
        browser = Browser()
        try:
            web = f"http://127.0.0.1:{site.server.web.port}"
            shoot(browser, f"{web}/", out / "list.png", DESKTOP)
            shoot(browser, f"{web}/games/alpha", out / "game.png", DESKTOP)
            shoot(browser, f"{web}/games/alpha/turns/1", out / "turn.png", DESKTOP)
            shoot(browser, f"{web}/games/dip", out / "phone.png", PHONE)
            orders(site, "ann@example.org", "Sol attacks Barnard")
            browser.resize(*DESKTOP)
            sign_in(site, browser, "ann@example.org", "alpha")
            shoot(browser, f"{web}/games/alpha", out / "signed-in.png", DESKTOP, 2000)
        finally:
            browser.close()
            site.close()


if __name__ == "__main__":
    main()
