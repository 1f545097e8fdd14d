"""Nothing hidden leaks onto the web, as a bounded property test over real
servers: games played by real mail with orders hypothesis draws from the
players' legal ones, every public page, map, feed and calendar read over
HTTP after every mail and every turn.

- Fog of war (Strategic Initiative, the straits scenario: both nations'
  forces in the field): no page or feed an observer can fetch ever names a
  unit (its id), or the square of a unit standing outside a city, while
  the game runs.
- Orders of the phase being played: no page shows them before the turn
  ran (Office Wars); once it ran, the phase's page shows them.
"""

from __future__ import annotations

import html
import re
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pbem.web.cache
from adjudicator import GAMES
from tests.mailharness import SERVER_YAML, Harness

ROOT = Path(__file__).resolve().parent.parent
WEB = "  web: {listen: {host: 127.0.0.1, port: 0}, rate: 0}\n"
SERVER = SERVER_YAML.replace("games:\n", WEB + "games:\n")
STRAITS = f"""\
  - name: straits
    game: strategic
    position: {ROOT}/scenarios/straits.yaml
    tick: 15m
    players:
      - {{name: kim, email: kim@example.org}}
      - {{name: lee, email: lee@example.org}}
"""
ALPHA = """\
  - name: alpha
    game: officewars
    map: six
    deadline: "0 12 * * *"
    players:
      - {name: ann, email: ann@example.org}
      - {name: bob, email: bob@example.org}
      - {name: cid, email: cid@example.org}
"""
PROPERTY = settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(autouse=True)
def fresh_versions(monkeypatch):
    monkeypatch.setattr(pbem.web.cache, "VERSION_FRESH", 0.0)  # every request looks


def get(h: Harness, path: str) -> tuple[int, str]:
    url = f"http://127.0.0.1:{h.server.web.port}{path}"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read().decode()


def everything(h: Harness, game: str) -> dict[str, str]:
    """Every page of ``game`` an anonymous reader can fetch, by address."""
    paths = ["/", f"/games/{game}", f"/games/{game}/map.svg", f"/games/{game}/feed.atom"]
    paths.append(f"/games/{game}/calendar.ics")
    _, page = get(h, f"/games/{game}")
    for turn in sorted(set(re.findall(rf'games/{game}/turns/(\d+)"', page))):
        paths += [f"/games/{game}/turns/{turn}", f"/games/{game}/turns/{turn}/map.svg"]
    out = {}
    for path in paths:
        status, body = get(h, path)
        assert status == 200, path
        out[path] = html.unescape(body)  # as read: &#39; is an apostrophe
    return out


def state_of(h: Harness, game: str):
    row = h.game(game)
    engine = GAMES[row.kind]
    return engine, engine.load_state(row.state)


def pick(options: dict, draw, most: int) -> list[str]:
    """Up to ``most`` of a player's legal orders, one per unit, drawn."""
    units = sorted(options)
    chosen = draw(st.lists(st.sampled_from(units), max_size=most, unique=True)) if units else []
    return [draw(st.sampled_from(sorted(options[u]))) for u in chosen]


def send(h: Harness, email: str, game: str, lines: list[str]) -> None:
    body = "\n".join([f"PASSWORD {h.password(email, game)}", *lines])
    h.send(email, f"{game}@judge.example", body)


# -- the fog of war --------------------------------------------------------------------


def secrets(engine, state) -> set[str]:
    """What names a unit to an observer: its id, and the square it stands
    on unless a city (whose square is public) is there."""
    board = engine.view(state, None).board  # the game master's: everything
    cities = {c["at"] for c in board["cities"]}
    out = set()
    for u in board["units"]:
        out.add(str(u["id"]))
        if u["at"] not in cities:
            out.add(u["at"])
    return out


def war_orders(engine, state, nation: str, draw) -> list[str]:
    """A few moves and attacks of ``nation``'s units toward squares drawn
    anywhere on the board (most out of its sight)."""
    units = sorted(u["id"] for u in engine.view(state, None).board["units"] if u["owner"] == nation)
    squares = st.integers(0, state.grid.size - 1).map(state.grid.name)
    order = st.tuples(st.sampled_from(["move {} to {}", "attack {1} with {0}"]),
                      st.sampled_from(units), squares)  # fmt: skip
    return [form.format(unit, to) for form, unit, to in draw(st.lists(order, max_size=4))]


def leaks(pages: dict[str, str], hidden: set[str]) -> list[tuple[str, str]]:
    found = []
    for path, body in pages.items():
        for word in hidden:
            if re.search(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", body):
                found.append((path, word))
    return found


@contextmanager
def server(games_yaml: str) -> Iterator[Harness]:
    """A server of its own in a new folder: hypothesis runs a test's body
    many times within one pytest test, so a fixture's folder would be
    shared by them all."""
    with tempfile.TemporaryDirectory() as folder:
        h = Harness(Path(folder), games_yaml)
        try:
            yield h
        finally:
            h.close()


@PROPERTY
@given(data=st.data())
def test_no_page_of_a_fog_of_war_game_names_what_observers_cannot_see(data):
    with server(SERVER + STRAITS) as h:
        hidden: set[str] = set()
        for _ in range(2):  # ticks
            engine, state = state_of(h, "straits")
            hidden |= secrets(engine, state)
            for name, email in (("kim", "kim@example.org"), ("lee", "lee@example.org")):
                send(h, email, "straits", war_orders(engine, state, name, data.draw))
                assert leaks(everything(h, "straits"), hidden) == []
            h.clock.set(h.game("straits").deadline)
            h.tick()
        engine, state = state_of(h, "straits")
        hidden |= secrets(engine, state)
        pages = everything(h, "straits")
        assert any("/turns/" in p for p in pages)  # played ticks were looked at too
        assert leaks(pages, hidden) == []


# -- orders before their deadline -----------------------------------------------------


PLAYERS = (("ann", "ann@example.org"), ("bob", "bob@example.org"), ("cid", "cid@example.org"))


@PROPERTY
@given(data=st.data())
def test_no_page_shows_an_order_before_its_turn_ran(data):
    with server(SERVER + ALPHA) as h:
        for _ in range(2):  # turns
            engine, state = state_of(h, "alpha")
            sent: list[str] = []
            for name, email in PLAYERS:
                mine = pick(dict(engine.view(state, name).options), data.draw, 2)
                send(h, email, "alpha", mine)
                sent += [o for o in mine if " holds" not in o]  # "X holds" is everyone's default
                current = everything(h, "alpha")
                for path in ("/", "/games/alpha", "/games/alpha/map.svg",
                             "/games/alpha/calendar.ics"):  # fmt: skip
                    shown = [o for o in sent if o in current[path]]
                    assert shown == [], (path, shown)
            played = h.game("alpha").turn
            h.clock.set(h.game("alpha").deadline)
            h.tick()
            _, page = get(h, f"/games/alpha/turns/{played}")
            page = html.unescape(page)
            for order in sent:  # now the orders are the phase's history
                assert order in page
