"""The game pages over real HTTP: the aiohttp server `pbem serve` runs on
127.0.0.1 beside the real SMTP server, on a real SQLite file, games played
by real mail and the controllable clock. Every page, the feed and the
calendar; their caching headers; 404 for unknown and private games; what
hostile names and press become; 429 past the limit per address; a
player's own view through the seat hook."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.request
from xml.etree import ElementTree as ET

import pytest
from sqlalchemy import select, update

import pbem.web.cache
from pbem.store import StoreError
from pbem.store.schema import turns
from pbem.web import pages
from pbem.web.cache import Pages, Rendered
from tests.mailharness import GAMES_YAML, PRIVATE_GAME, Harness, on_both_backends

ALPHA = "alpha@judge.example"
ANN, BOB = "ann@example.org", "bob@example.org"
WEB = "  web: {listen: {host: 127.0.0.1, port: 0}, url: 'https://judge.example/pbem/'}\n"
OPEN = """\
  - name: delta
    game: officewars
    map: six
    seats: 3
    players:
      - {name: fay, email: fay@example.org}
"""
YAML = GAMES_YAML.replace("  limits:", WEB + "  limits:", 1) + PRIVATE_GAME + OPEN
GM = "gm@example.org"


@pytest.fixture
def h(tmp_path, monkeypatch, storage):
    monkeypatch.setattr(pbem.web.cache, "VERSION_FRESH", 0.0)  # each request looks
    harness = Harness(tmp_path, YAML, storage=storage)
    yield harness
    harness.close()


def get(h: Harness, path: str, **headers: str) -> tuple[int, str, dict[str, str]]:
    """(status, body, headers) of a GET on the test's web server."""
    url = f"http://127.0.0.1:{h.server.web.port}{path}"
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read().decode(), dict(error.headers)


def orders(h: Harness, sender: str, text: str, game: str = "alpha") -> None:
    h.send(sender, f"{game}@judge.example", f"PASSWORD {h.password(sender, game)}\n{text}\n")


def next_turn(h: Harness) -> None:
    h.clock.set(h.game().deadline)
    h.tick()


def cells(body: str, player: str) -> str:
    """The row of ``player`` in the seats' table, as text."""
    found = re.search(rf"<tr><td>{player}</td>(.*?)</tr>", body)
    assert found, body
    return re.sub(r"<[^>]+>", "", found[1])


def test_the_list_names_every_public_game_and_how_to_join(h):
    status, body, headers = get(h, "/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert "/games/alpha" in body and "/games/beta" in body
    assert "gamma" not in body  # private: not listed
    assert "Office Wars" in body and "tick 1" in body
    assert "ann, bob, cid" in body
    assert "Sat 21 Nov 2026 23:50 UTC" in body  # alpha's deadline, in UTC
    assert "Sun 22 Nov 2026 00:50 CET (Europe/Oslo)" in body  # and in its zone
    assert "WATCH game" in body and "JOIN game" in body
    assert "<main" in body and "<header>" in body and "<footer>" in body


def test_a_game_page_says_whose_orders_are_in_never_what(h):
    orders(h, ANN, "Sol attacks Alnitak")
    status, body, headers = get(h, "/games/alpha")
    assert status == 200
    assert cells(body, "ann") == "redin"
    assert cells(body, "bob") == "bluenot yet"
    assert "Alnitak" not in body.split("<figure>")[0] + body.split("</figure>")[1]
    assert "attacks" not in body
    assert '<time datetime="2026-11-21T23:50:00Z" data-countdown>' in body
    assert '<script src="../static/countdown.js" defer></script>' in body
    assert 'src="../games/alpha/map.svg"' in body and "unit of ann" in body  # the alt text
    assert headers["Cache-Control"] == "no-cache" and headers["ETag"]
    assert "Set-Cookie" not in headers


def test_an_address_with_a_slash_at_the_end_goes_to_the_page(h):
    status, body, _ = get(h, "/games/alpha/")
    assert status == 200 and "<h1>alpha <small>Office Wars</small></h1>" in body
    assert get(h, "/games/nosuch/")[0] == 404


def test_the_current_map_is_the_reports_svg(h):
    status, svg, headers = get(h, "/games/alpha/map.svg")
    assert status == 200 and headers["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert svg.startswith("<svg") and "Sol" in svg
    assert headers["Cache-Control"] == "no-cache"


@on_both_backends
def test_a_played_phase_has_its_results_map_and_neighbours(h):
    orders(h, ANN, "Sol attacks Alnitak")
    next_turn(h)
    orders(h, BOB, "Vega holds")
    next_turn(h)
    status, body, headers = get(h, "/games/alpha/turns/1")
    assert status == 200
    assert headers["Cache-Control"] == "public, max-age=86400"
    assert "Sol attacks Alnitak" in body  # the report's orders and results
    report = h.report(ANN, index=0)
    assert "Sol attacks Alnitak" in h.text(report)
    assert 'href="../../../games/alpha/turns/2" rel="next"' in body
    assert "No phase before this one: it is the game's first." in body
    _, second, _ = get(h, "/games/alpha/turns/2")
    assert 'href="../../../games/alpha/turns/1" rel="prev"' in second
    assert "the phase being played" in second
    status, svg, headers = get(h, "/games/alpha/turns/1/map.svg")
    assert status == 200 and svg.startswith("<svg")
    assert headers["Cache-Control"] == "public, max-age=86400"
    _, game, _ = get(h, "/games/alpha")
    assert 'href="../games/alpha/turns/1"' in game and 'href="../games/alpha/turns/2"' in game
    assert get(h, "/games/alpha/turns/3")[0] == 404  # being played: no page yet
    assert get(h, "/games/alpha/turns/99")[0] == 404


def test_missed_turns_are_counted_as_the_report_counted_them(h):
    next_turn(h)
    next_turn(h)
    _, first, _ = get(h, "/games/alpha/turns/1")
    _, second, _ = get(h, "/games/alpha/turns/2")
    assert "turns missed: 1" in first and "turns missed: 2" not in first
    assert "turns missed: 2" in second


@on_both_backends
def test_a_conditional_get_of_an_unchanged_page_is_304(h):
    _, _, headers = get(h, "/games/alpha")
    status, body, again = get(h, "/games/alpha", **{"If-None-Match": headers["ETag"]})
    assert status == 304 and body == "" and again["ETag"] == headers["ETag"]
    orders(h, ANN, "Sol attacks Alnitak")  # the game changed: so does the page
    status, _, changed = get(h, "/games/alpha", **{"If-None-Match": headers["ETag"]})
    assert status == 200 and changed["ETag"] != headers["ETag"]


def test_an_unchanged_page_is_not_rendered_again(h):
    web_app = h.server.web._runner.app
    get(h, "/games/alpha")
    renders = web_app[pages.CACHE].renders
    for _ in range(5):
        assert get(h, "/games/alpha")[0] == 200
    assert web_app[pages.CACHE].renders == renders


def test_unknown_and_private_games_answer_404_alike(h):
    for path in (
        "/games/nosuch",
        "/games/gamma",
        "/games/gamma/map.svg",
        "/games/gamma/feed.atom",
        "/games/gamma/calendar.ics",
        "/games/gamma/turns/1",
        "/games/alpha/turns/abc",
        "/games/../etc/passwd",
    ):
        status, body, headers = get(h, path)
        assert status == 404, path
        assert "Content-Security-Policy" in headers
    assert get(h, "/games/nosuch")[1] == get(h, "/games/gamma")[1]


def test_every_answer_has_the_policy_and_no_cookie(h):
    for path in ("/", "/games/alpha", "/games/alpha/map.svg", "/static/site.css", "/nowhere"):
        _, _, headers = get(h, path)
        csp = headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp, path
        assert "unsafe-inline" not in csp
        assert "Set-Cookie" not in headers


def test_static_files(h):
    status, js, headers = get(h, "/static/countdown.js")
    assert status == 200 and "text/javascript" in headers["Content-Type"]
    assert "data-countdown" in js and headers["Cache-Control"].startswith("public")
    assert get(h, "/static/countdown.js", **{"If-None-Match": headers["ETag"]})[0] == 304
    assert get(h, "/static/nothing.js")[0] == 404


def test_press_and_names_are_escaped(h):
    hostile = "<script>alert(1)</script> & <img src=x onerror=alert(2)>"
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nPRESS ALL\n{hostile}\nENDPRESS\n")
    _, body, _ = get(h, "/games/alpha")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x" in body
    assert "<script>alert" not in body and "<img src=x" not in body
    next_turn(h)
    _, turn, _ = get(h, "/games/alpha/turns/1")
    assert "&lt;script&gt;alert(1)" in turn and "<script>alert" not in turn
    _, feed, _ = get(h, "/games/alpha/feed.atom")
    content = ET.fromstring(feed).find("{http://www.w3.org/2005/Atom}entry/{*}content")
    assert content is not None and "&lt;script&gt;alert(1)" in content.text
    assert "<script>" not in content.text


def test_the_feed_has_an_entry_per_phase(h):
    orders(h, ANN, "Sol attacks Alnitak")
    next_turn(h)
    next_turn(h)
    status, text, headers = get(h, "/games/alpha/feed.atom")
    assert status == 200 and headers["Content-Type"].startswith("application/atom+xml")
    atom = "{http://www.w3.org/2005/Atom}"
    feed = ET.fromstring(text)
    entries = feed.findall(f"{atom}entry")
    assert [e.findtext(f"{atom}title") for e in entries] == [
        "alpha: tick 2 results",
        "alpha: tick 1 results",
    ]
    link = entries[1].find(f"{atom}link")
    assert link is not None and link.get("href") == "https://judge.example/pbem/games/alpha/turns/1"
    assert "Sol attacks Alnitak" in (entries[1].findtext(f"{atom}content") or "")
    assert feed.findtext(f"{atom}id") == "tag:judge.example,2026-11-21:alpha"


def test_the_calendar_has_the_deadline(h):
    status, text, headers = get(h, "/games/alpha/calendar.ics")
    assert status == 200 and headers["Content-Type"].startswith("text/calendar")
    assert "BEGIN:VEVENT" in text and "alpha: orders due for tick 1" in text
    assert "DTSTART;TZID=Europe/Oslo:20261122T005000" in text
    assert "UID:deadline-alpha-" in text


def test_a_players_own_view_through_the_seat_hook(h):
    """The sign-in link's hook: given the request, the player whose view it
    is. Their page shows their own orders of the phase; nobody else's."""
    web_app = h.server.web._runner.app

    async def seat(request, game):
        return request.headers.get("X-Test-Seat")

    web_app[pages.SEATS].find = seat
    orders(h, ANN, "Sol attacks Alnitak")
    orders(h, BOB, "Vega attacks Altair")
    status, mine, headers = get(h, "/games/alpha", **{"X-Test-Seat": "ann"})
    assert (
        status == 200
        and "Sol attacks Alnitak" in mine
        and "Altair" not in mine.split("<figure>")[0]
    )
    assert headers["Cache-Control"] == "private, no-cache"
    _, anonymous, _ = get(h, "/games/alpha")
    assert "Sol attacks Alnitak" not in anonymous and "Your orders" not in anonymous
    # a seat of another game sees this one as nobody does: not at all if private
    assert get(h, "/games/gamma", **{"X-Test-Seat": "cid"})[0] == 404
    assert get(h, "/games/gamma", **{"X-Test-Seat": "eve"})[0] == 200
    next_turn(h)
    status, played, headers = get(h, "/games/alpha/turns/1", **{"X-Test-Seat": "ann"})
    assert status == 200 and "signed in as <strong>ann</strong>" in played
    assert headers["Cache-Control"] == "private, no-cache"
    _, public, headers = get(h, "/games/alpha/turns/1")
    assert "signed in" not in public and headers["Cache-Control"].startswith("public")


def test_a_phase_whose_replay_differs_from_its_record_shows_no_orders(h):
    orders(h, ANN, "Sol attacks Alnitak")
    next_turn(h)
    with h.app.store.tx() as conn:  # the record says another result
        text = conn.execute(
            select(turns.c.result).where(turns.c.game == "alpha", turns.c.turn == 1)
        ).scalar()
        record = json.loads(text)
        record["results"][0]["reason"] = "something else"
        conn.execute(
            update(turns)
            .where(turns.c.game == "alpha", turns.c.turn == 1)
            .values(result=json.dumps(record))
        )
    status, body, _ = get(h, "/games/alpha/turns/1")
    assert status == 200 and "cannot be shown here" in body and "HISTORY alpha" in body
    assert "Alnitak" not in body
    assert get(h, "/games/alpha/turns/1/map.svg")[0] == 404


LIMITED = YAML.replace(
    "url: 'https://judge.example/pbem/'}", "url: 'https://judge.example/pbem/', rate: 1, burst: 3}"
)


def test_too_many_requests_from_one_address(tmp_path):
    h = Harness(tmp_path, LIMITED)
    try:
        answers = [get(h, "/static/site.css") for _ in range(5)]
        assert [a[0] for a in answers[:3]] == [200, 200, 200]
        status, body, headers = answers[3]
        assert status == 429 and int(headers["Retry-After"]) >= 1
        assert "Too many requests" in body and "Content-Security-Policy" in headers
    finally:
        h.close()


def test_a_forming_game_shows_its_open_seats_and_how_to_join(h):
    _, listing, _ = get(h, "/")
    assert "fay" in listing and "2 seats open" in listing and "JOIN delta" in listing
    status, body, _ = get(h, "/games/delta")
    assert status == 200 and "Forming: waiting for players." in body
    assert "<td>fay</td>" in body and "2 seats open" in body and "JOIN delta" in body
    assert "<figure>" not in body and "countdown.js" not in body
    assert get(h, "/games/delta/map.svg")[0] == 404


def test_a_paused_game_and_a_finished_one(h):
    h.send(GM, ALPHA, "PASSWORD gm-secret\nPAUSE\n")
    _, body, _ = get(h, "/games/alpha")
    assert "(paused by the game master)" in body and "countdown.js" not in body
    _, listing, _ = get(h, "/")
    assert "tick 1 (paused)" in listing
    h.send(GM, ALPHA, "PASSWORD gm-secret\nRESUME\n")
    next_turn(h)
    h.send(GM, ALPHA, "PASSWORD gm-secret\nEND GAME\n")
    h.confirm(GM)  # END GAME waits for the master to confirm it
    assert h.game().status == "finished"
    _, body, _ = get(h, "/games/alpha")
    assert "Deadline" not in body and "countdown.js" not in body
    assert 'href="../games/alpha/turns/1"' in body  # its history stays
    _, listing, _ = get(h, "/")
    assert "(over)" in listing
    assert get(h, "/games/alpha/turns/1")[0] == 200
    assert get(h, "/games/alpha/turns/2")[0] == 404


def test_storage_is_asked_at_most_once_a_second_for_a_page(h):
    web_app = h.server.web._runner.app
    versions = web_app[pages.VERSIONS]
    now = [1000.0]
    versions.clock = lambda: now[0]
    versions.fresh = 1.0
    versions.forget()
    reads = versions.reads
    for _ in range(10):
        assert get(h, "/games/alpha")[0] == 200
    assert versions.reads == reads + 1  # one look, then none within the second
    orders(h, ANN, "Sol attacks Alnitak")
    assert cells(get(h, "/games/alpha")[1], "ann") == "rednot yet"  # up to a second old
    now[0] += 1.0
    assert cells(get(h, "/games/alpha")[1], "ann") == "redin"
    assert versions.reads == reads + 2


def test_press_to_some_players_stays_off_the_web(h):
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nPRESS bob\nmeet me at Alnitak\nENDPRESS\n")
    assert "press sent to bob" in h.last(ANN)
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nPRESS ALL\nhello all\nENDPRESS\n")
    _, body, _ = get(h, "/games/alpha")
    assert "hello all" in body and "meet me" not in body
    next_turn(h)
    _, played, _ = get(h, "/games/alpha/turns/1")
    _, feed, _ = get(h, "/games/alpha/feed.atom")
    assert "hello all" in played and "meet me" not in played + feed


# -- the memory the pages are kept in -------------------------------------------------


def test_many_readers_of_a_missing_page_wait_for_one_rendering():
    kept = Pages()

    def make() -> Rendered:
        time.sleep(0.05)
        return Rendered(b"page", "text/plain", "no-cache")

    async def readers() -> list[Rendered]:
        return await asyncio.gather(*(kept.get(("p",), make) for _ in range(50)))

    pages_read = asyncio.run(readers())
    assert kept.renders == 1 and {p.body for p in pages_read} == {b"page"}


def test_kept_pages_stay_within_their_bytes():
    kept = Pages(size=100, budget=1000)

    async def fill() -> None:
        for n in range(20):
            await kept.get(
                n, lambda n=n: Rendered(bytes(300), "text/plain", "no-cache", etag=str(n))
            )

    asyncio.run(fill())
    assert kept.bytes <= 1000 and kept.renders == 20
    asyncio.run(kept.get(19, lambda: Rendered(b"x", "text/plain", "no-cache")))
    assert kept.renders == 20  # the newest is still there
    asyncio.run(kept.get(0, lambda: Rendered(b"x", "text/plain", "no-cache")))
    assert kept.renders == 21  # the oldest was dropped


def test_two_servers_in_one_process_keep_their_own_history(tmp_path, monkeypatch):
    """What a page keeps of a game's played turns is its server's: another
    server of the same process with a game of the same name, made at the
    same moment, has its own."""
    monkeypatch.setattr(pbem.web.cache, "VERSION_FRESH", 0.0)
    first = Harness(tmp_path / "one", YAML)
    try:
        next_turn(first)
        next_turn(first)
        assert 'href="../games/alpha/turns/2"' in get(first, "/games/alpha")[1]
    finally:
        first.close()
    second = Harness(tmp_path / "two", YAML)
    try:
        _, body, _ = get(second, "/games/alpha")
        assert "No phase has been played yet." in body and "/turns/" not in body
    finally:
        second.close()


def test_a_lobby_and_the_game_it_opened_say_to_join_the_lobby(tmp_path, monkeypatch):
    from tests.test_territory_mail import PEOPLE, join
    from tests.test_territory_mail import YAML as TERRA

    monkeypatch.setattr(pbem.web.cache, "VERSION_FRESH", 0.0)
    h = Harness(tmp_path, TERRA.replace("  limits:", WEB + "  limits:", 1))
    try:
        _, listing, _ = get(h, "/")
        assert "<strong>terra</strong> (Territory): mail <code>JOIN terra</code>" in listing
        join(h, PEOPLE[0])
        _, listing, _ = get(h, "/")
        assert "/games/terra-1" in listing and "5 seats open" in listing
        assert "JOIN terra-1" not in listing
        _, page, _ = get(h, "/games/terra-1")
        assert "5 seats open" in page and "<code>JOIN terra</code>" in page
    finally:
        h.close()


def test_storage_trouble_is_a_503_to_try_again(h, monkeypatch):
    def broken(*args, **kwargs):
        raise StoreError("database is locked")

    monkeypatch.setattr(h.app.store, "game_version", broken)
    status, body, headers = get(h, "/games/alpha")
    assert status == 503 and headers["Retry-After"] == "60" and "try again" in body
    assert "Traceback" not in body and "Content-Security-Policy" in headers
    monkeypatch.undo()
    monkeypatch.setattr(pbem.web.cache, "VERSION_FRESH", 0.0)
    assert get(h, "/games/alpha")[0] == 200  # and then it answers again


def test_head_answers_the_headers_alone(h):
    url = f"http://127.0.0.1:{h.server.web.port}/games/alpha"
    with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=20) as answer:
        assert answer.status == 200 and answer.read() == b""
        assert answer.headers["ETag"] == get(h, "/games/alpha")[2]["ETag"]
