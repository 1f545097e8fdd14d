"""The web server: an aiohttp application on the loop of `pbem serve`.

Handlers reach the pbem context as ``request.app[PBEM]``; anything that
touches storage runs in a thread (``in_thread``), so the SMTP server on the
same loop never waits on it. Every answer carries the headers of a page
that holds a secret in its address: nothing is cached or sent on as a
referrer, nothing is loaded from elsewhere, and no page may be framed.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from pbem.app import App
from pbem.web import unsubscribe
from pbem.web.base import PBEM, WAKE

log = logging.getLogger("pbem.web")

MAX_BODY = 64 * 1024  # a form's worth; more is refused with 413

SAFE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
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


def application(app: App, wake: Callable[[], None] = lambda: None) -> web.Application:
    """The aiohttp application: every family's routes, the pbem context."""
    web_app = web.Application(middlewares=[safe_headers], client_max_size=MAX_BODY)
    web_app[PBEM] = app
    web_app[WAKE] = wake
    unsubscribe.add_routes(web_app)
    return web_app


class WebServer:
    """Started and stopped with the SMTP server (pbem/serving/server.py)."""

    def __init__(self, app: App, wake: Callable[[], None] = lambda: None) -> None:
        web_config = app.config.server.web
        assert web_config is not None
        self.host, self.port = web_config.host, web_config.port
        self._runner = web.AppRunner(application(app, wake), access_log=None)

    async def start(self) -> None:
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]  # the port taken (port 0: a free one)
        log.info("web server on http://%s:%s/", self.host, self.port)

    async def stop(self) -> None:
        await self._runner.cleanup()
