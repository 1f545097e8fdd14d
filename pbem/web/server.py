"""The web server: an aiohttp application, in a process of its own under
`pbem serve` (pbem/serving/webproc.py), on the SMTP server's loop in tests.

Handlers reach the pbem context as ``request.app[PBEM]``; anything that
touches storage runs in a thread (``in_thread``), so the loop (and in
tests the SMTP server on it) never waits on it. Every answer carries a
Content-Security-Policy that lets a page load only this server's own
script, style sheet and pictures, sends no referrer, may not be framed,
and is not stored unless its handler says how (the game pages do:
pages.py), and names no library or version (``Server: pbem``). aiohttp's
own answers to what never reaches a handler (a malformed request line, a
header over its limit) and to a handler's crash are ours too
(``_Protocol``): the same headers, a status line's words for text, nothing
of the request echoed. Requests are limited
per client address (limits.py). The static files (the style sheet, the
countdown's script) are read once at start and served from memory.
"""

from __future__ import annotations

import hashlib
import logging
import socket
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from pbem.app import App
from pbem.store import StoreError
from pbem.web import feeds, pages, signin, unsubscribe
from pbem.web.base import PBEM, WAKE
from pbem.web.limits import Limiter
from pbem.web.limits import middleware as limited

log = logging.getLogger("pbem.web")

MAX_BODY = 64 * 1024  # a form's worth; more is refused with 413

SAFE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Server": "pbem",  # not the library's name and version
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def safe_headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as exc:  # 404, 405, 413...: the same headers
        for key, value in SAFE_HEADERS.items():
            exc.headers.setdefault(key, value)
        raise
    for key, value in SAFE_HEADERS.items():
        response.headers.setdefault(key, value)
    return response


@web.middleware
async def storage_trouble(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Storage that fails (locked too long, gone) is a moment's trouble:
    503 with Retry-After, never a 500 with a traceback."""
    try:
        return await handler(request)
    except StoreError:
        log.warning("web: storage failed for %s", request.path, exc_info=True)
        raise web.HTTPServiceUnavailable(
            text="The server cannot read its storage just now: try again in a minute.\n",
            headers={"Retry-After": "60"},
        ) from None


STATIC = Path(__file__).resolve().parent / "static"
STATIC_TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml; charset=utf-8",
}
# what browsers ask for on every site without being told: answered, so no
# reader's console shows a 404 for it
ALIASES = {"favicon.svg": "/favicon.ico"}


def static_routes(web_app: web.Application) -> None:
    """``/static/<file>``: the files of pbem/web/static/, from memory."""
    for path in sorted(STATIC.iterdir()):
        if path.suffix in STATIC_TYPES:
            body = path.read_bytes()
            etag = '"' + hashlib.sha256(body).hexdigest()[:24] + '"'

            async def serve(
                request: web.Request,
                body: bytes = body,
                etag: str = etag,
                kind: str = STATIC_TYPES[path.suffix],
            ) -> web.Response:
                headers = {"ETag": etag, "Cache-Control": "public, max-age=3600"}
                if etag in request.headers.get("If-None-Match", ""):
                    return web.Response(status=304, headers=headers)
                return web.Response(body=body, headers={**headers, "Content-Type": kind})

            web_app.router.add_get(f"/static/{path.name}", serve)
            if path.name in ALIASES:
                web_app.router.add_get(ALIASES[path.name], serve)


def application(app: App, wake: Callable[[], None] = lambda: None) -> web.Application:
    """The aiohttp application: every family's routes, the pbem context."""
    web_config = app.config.server.web
    middlewares = [safe_headers, storage_trouble]
    if web_config is not None and web_config.rate > 0:
        middlewares.append(limited(Limiter(web_config.rate, web_config.burst)))
    # /games/alpha/ is /games/alpha (a redirect, only where no route answers)
    middlewares.append(web.normalize_path_middleware(append_slash=False, remove_slash=True))
    web_app = web.Application(middlewares=middlewares, client_max_size=MAX_BODY)
    web_app[PBEM] = app
    web_app[WAKE] = wake
    unsubscribe.add_routes(web_app)
    pages.add_routes(web_app)
    feeds.add_routes(web_app)
    static_routes(web_app)
    signin.add_routes(web_app)
    return web_app


def bare_error(status: int) -> web.Response:
    """An error answer of ours for what no handler answered: the status's
    own words, the safe headers, the connection closed after it."""
    try:
        words = f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        words = str(status)
    response = web.Response(
        status=status, text=words + "\n", content_type="text/plain", headers=SAFE_HEADERS
    )
    response.force_close()
    return response


class _Protocol(RequestHandler):
    """aiohttp's connection handler, answering its own errors our way. The
    library's answer (``handle_error``) carries its name and version and
    echoes what it could not parse; it still logs the error and checks
    that no answer was begun, then ours replaces its answer."""

    def handle_error(
        self,
        request: Any,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        super().handle_error(request, status, exc, message)
        return bare_error(status)


class _Server(web.Server):
    """aiohttp's server, making connections of ``_Protocol``."""

    def __call__(self) -> RequestHandler:
        return _Protocol(self, loop=self._loop, **self._kwargs)


class WebServer:
    """Started and stopped with the SMTP server (pbem/serving/server.py)."""

    def __init__(
        self, app: App, wake: Callable[[], None] = lambda: None, sock: socket.socket | None = None
    ) -> None:
        web_config = app.config.server.web
        assert web_config is not None
        self.host, self.port = web_config.host, web_config.port
        self._app = app
        self._sock = sock  # bound already (by the SMTP process: pbem/serving/webproc.py)
        self._runner = web.AppRunner(application(app, wake), access_log=None)

    async def start(self) -> None:
        await self._runner.setup()
        server = self._runner.server
        assert type(server) is web.Server, type(server)
        server.__class__ = _Server  # its connections answer aiohttp's own errors our way
        site: web.BaseSite = (
            web.SockSite(self._runner, self._sock)
            if self._sock is not None
            else web.TCPSite(self._runner, self.host, self.port)
        )
        await site.start()
        self.port = self._runner.addresses[0][1]  # the port taken (port 0: a free one)
        log.info("web server on http://%s:%s/", self.host, self.port)

    async def stop(self) -> None:
        await self._runner.cleanup()
