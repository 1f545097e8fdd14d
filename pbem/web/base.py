"""What every page handler shares: the pbem context and the wake-up of
the mail sender, as keys of the aiohttp application; running storage work
in a thread; a small HTML page."""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from typing import Any

from aiohttp import web

from pbem.app import App

PBEM = web.AppKey("pbem", App)
WAKE = web.AppKey("wake", Callable[[], None])


async def in_thread(call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)`` in a worker thread (storage: never on the loop)."""
    return await asyncio.to_thread(call, *args)


def page(title: str, body_html: str, status: int = 200, root: str = "../") -> web.Response:
    """A small HTML page; ``body_html`` is already escaped by the caller.
    ``root``: the way from the page's address to the site's root, for the
    style sheet (no inline style: the pages' CSP allows none)."""
    text = (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title>"
        f'<link rel="stylesheet" href="{html.escape(root)}static/site.css">'
        f"</head><body><main><h1>{html.escape(title)}</h1>\n{body_html}\n</main></body></html>\n"
    )
    return web.Response(text=text, status=status, content_type="text/html", charset="utf-8")
