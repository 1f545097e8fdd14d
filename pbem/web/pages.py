"""The game pages: ``/`` the list of games, ``/games/<name>`` a game's
page, ``/games/<name>/map.svg`` its map now, ``/games/<name>/turns/<n>``
a past phase (history.py builds it) with its map.

Every page is built for a viewer: the observers' view unless a sign-in
says otherwise (``Seats.find``: given the request and the game, the
name of the player whose own view it is, or None), and kept rendered in
memory (cache.py) under the page, the game, the viewer and the game's
version: an unchanged page costs no rendering, and within a second of the
last look no storage either.

Caching by readers: the current phase's pages are ``no-cache`` with an
ETag that changes when the game does (a conditional GET answers 304); a
finished phase's page and map never change (``public, max-age``); a
player's own view is ``private``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from aiohttp import web

from pbem.app import App
from pbem.reports import OBSERVER
from pbem.web import history, render, views
from pbem.web.base import PBEM, in_thread
from pbem.web.cache import Pages, Rendered, Versions

SeatFinder = Callable[[web.Request, str], Awaitable[str | None]]


class Seats:
    """Who reads a game: ``find(request, game)`` gives the name of the
    player whose own view the request gets (a signed-in player of that
    game), or None for the observers' view. None set: everyone is an
    observer. The sign-in sets ``find`` (it may, on a running app)."""

    def __init__(self) -> None:
        self.find: SeatFinder | None = None


SEATS = web.AppKey("seats", Seats)
CACHE = web.AppKey("pages", Pages)
VERSIONS = web.AppKey("versions", Versions)

NAME = r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}"
TURN = r"[0-9]{1,9}"
CURRENT = "no-cache"  # kept, but asked again each time (the ETag answers 304)
FINISHED = "public, max-age=86400"  # a phase played never changes
OWN = "private, no-cache"  # a signed-in player's own view: no shared cache
SVG = "image/svg+xml; charset=utf-8"
LIST_REFRESH = 60  # seconds: the list drops games over for longer than they are kept


def add_routes(web_app: web.Application) -> None:
    web_app[SEATS] = Seats()
    web_app[CACHE] = Pages()
    web_app[VERSIONS] = Versions()
    web_app.router.add_get("/", game_list)
    web_app.router.add_get(f"/games/{{name:{NAME}}}", game_page)
    web_app.router.add_get(f"/games/{{name:{NAME}}}/map.svg", game_map)
    web_app.router.add_get(f"/games/{{name:{NAME}}}/turns/{{turn:{TURN}}}", turn_page)
    web_app.router.add_get(f"/games/{{name:{NAME}}}/turns/{{turn:{TURN}}}/map.svg", turn_map)


# -- answering -----------------------------------------------------------------------


def _headers(page: Rendered) -> dict[str, str]:
    return {"ETag": page.etag, "Cache-Control": page.cache_control, "Vary": "Cookie"} | dict(
        page.headers
    )


def answer(request: web.Request, page: Rendered) -> web.Response:
    """``page``, or 304 when the reader has it already (If-None-Match)."""
    headers = _headers(page)
    wanted = request.headers.get("If-None-Match", "")
    if page.status == 200 and wanted and _matches(wanted, page.etag):
        return web.Response(status=304, headers=headers)
    return web.Response(
        body=page.body, status=page.status, headers={**headers, "Content-Type": page.content_type}
    )


def _matches(wanted: str, etag: str) -> bool:
    tags = [t.strip().removeprefix("W/") for t in wanted.split(",")]
    return "*" in tags or etag in tags


def not_found(root: str, app: App) -> Rendered:
    """The one answer for a game that does not exist and for a private
    game the reader does not sit in."""
    return render.html(
        "web/error.html.j2",
        {
            **site(app, root),
            "heading": "No such game",
            "text": "There is no game of that name here, or none you may see.",
        },
        "no-cache",
        status=404,
    )


def site(app: App, root: str) -> dict[str, Any]:
    """What every page's layout needs."""
    return {"site": app.domain, "server": app.config.server.address, "root": root}


async def viewer_of(request: web.Request, name: str) -> str:
    """The viewer a request reads ``name`` as: a signed-in player of it, or
    the observers."""
    find = request.app[SEATS].find
    seat = await find(request, name) if find is not None else None
    return seat or OBSERVER


class Opened(NamedTuple):
    app: App
    name: str  # the game's
    viewer: str  # a player's name, or OBSERVER
    version: Any  # the game's (pbem/store/pages.py)


def visible(app: App, name: str, viewer: str) -> bool:
    """Whether ``viewer`` may see the game ``name`` at all, by games.yaml
    alone: a game it names, not private, or private and the viewer one of
    its players (a viewer other than the observers is a seat of the game:
    ``Seats.find``)."""
    cfg = app.game_config(name)
    return cfg is not None and (cfg.visibility != "private" or viewer != OBSERVER)


async def opened(request: web.Request, root: str) -> Opened:
    """What every handler of a game's addresses starts from: the game
    named in the address, read by this request's viewer, at its version
    now. A game that does not exist, and a private game the reader does
    not sit in, are answered 404 from here, by the same steps (the
    viewer, the version, then the one 404; nothing rendered or kept), so
    neither the answer nor the work behind it tells them apart
    (``root``: the way from the address to the site's root)."""
    app, name = request.app[PBEM], request.match_info["name"]
    viewer = await viewer_of(request, name)
    version = await game_version(request, name)
    if version is None or not visible(app, name, viewer):
        raise await no_such_game(request, root)
    return Opened(app, name, viewer, version)


async def no_such_game(request: web.Request, root: str) -> web.HTTPNotFound:
    """The 404 a game's handler raises: ``not_found``'s page."""
    page = await in_thread(not_found, root, request.app[PBEM])
    return web.HTTPNotFound(
        text=page.body.decode(), content_type="text/html", headers=_headers(page)
    )


async def game_version(request: web.Request, name: str) -> Any:
    app = request.app[PBEM]

    def read() -> Any:
        with app.store.tx(write=False) as conn:
            return app.store.game_version(conn, name)

    return await request.app[VERSIONS].of(("game", name), read)


async def kept(request: web.Request, key: tuple[Any, ...], make: Callable[[], Rendered]) -> Any:
    return answer(request, await request.app[CACHE].get(key, make))


# -- the list ------------------------------------------------------------------------


async def game_list(request: web.Request) -> web.Response:
    app = request.app[PBEM]

    def read() -> Any:
        with app.store.tx(write=False) as conn:
            return app.store.list_version(conn)

    version = await request.app[VERSIONS].of(("list",), read)
    key = ("list", version, int(time.time() // LIST_REFRESH))

    def make() -> Rendered:
        with app.store.tx(write=False) as conn:
            data = views.game_list(app, conn)
        return render.html("web/list.html.j2", {**site(app, "./"), **data}, CURRENT)

    return await kept(request, key, make)


# -- a game's page and its map -------------------------------------------------------


async def game_page(request: web.Request) -> web.Response:
    app, name, viewer, version = await opened(request, "../")

    def make() -> Rendered:
        with app.store.tx(write=False) as conn:
            seen = views.seen_game(app, conn, name, viewer)
            if seen is None:
                return not_found("../", app)
            data = views.game_page(app, conn, seen)
        if data["phase"]:
            svg, data["alt"] = history.current_map(app, seen)
            data["map_width"] = render.map_width(svg)
        else:
            data["alt"] = ""
        policy = CURRENT if viewer == OBSERVER else OWN
        return render.html("web/game.html.j2", {**site(app, "../"), **data}, policy)

    return await kept(request, ("game", name, viewer, version), make)


async def game_map(request: web.Request) -> web.Response:
    app, name, viewer, version = await opened(request, "../../")

    def make() -> Rendered:
        with app.store.tx(write=False) as conn:
            seen = views.seen_game(app, conn, name, viewer)
        if seen is None or seen.row.status == "forming":
            return not_found("../../", app)
        svg, _ = history.current_map(app, seen)
        return Rendered(svg.encode("utf-8"), SVG, CURRENT if viewer == OBSERVER else OWN)

    # the map changes only with the turn (not with orders coming in)
    return await kept(
        request, ("map", name, viewer, version[1], version[2], version[5], version[-1]), make
    )


# -- a past phase --------------------------------------------------------------------


async def turn_page(request: web.Request) -> web.Response:
    return await _turn(request, "page")


async def turn_map(request: web.Request) -> web.Response:
    return await _turn(request, "map")


async def _turn(request: web.Request, what: str) -> web.Response:
    """A played phase's page or map: the same for ever once played, so
    kept under the phase alone (the game's version only says whether the
    game and the phase exist yet)."""
    turn = int(request.match_info["turn"])
    root = "../../../" if what == "page" else "../../../../"
    app, name, viewer, version = await opened(request, root)
    if turn >= version[1] and version[2] != "finished":
        raise await no_such_game(request, root)

    def make() -> Rendered:
        policy = FINISHED if viewer == OBSERVER else OWN
        made = history.played(app, name, turn, viewer, what, site(app, root), policy)
        return made if made is not None else not_found(root, app)

    return await kept(request, ("turn", what, name, turn, viewer, version[5]), make)
