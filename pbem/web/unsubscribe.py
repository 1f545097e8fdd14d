"""The unsubscribe links of observers' mail (List-Unsubscribe, RFC 8058).

``GET /unsubscribe/<token>`` shows a page with one button and changes
nothing: link checkers and mail scanners fetch every link they see.
``POST /unsubscribe/<token>`` unsubscribes at once: the button, and the
one-click POST (``List-Unsubscribe=One-Click``) mail providers send. The
answer is the same whatever the token: a forged or stale one does nothing
and says nothing about who observes what (pbem/mail/unsubscribe.py).
"""

from __future__ import annotations

import html

from aiohttp import web

from pbem.mail import lists
from pbem.mail.unsubscribe import unsubscribe
from pbem.web.base import PBEM, WAKE, in_thread, page

ROUTE = "/unsubscribe/{token}"


def add_routes(web_app: web.Application) -> None:
    web_app.router.add_get(ROUTE, ask)
    web_app.router.add_post(ROUTE, act)


def _game(request: web.Request) -> str:
    """The game the token names; 404 for what is no token at all."""
    game = lists.token_game(request.match_info["token"])
    if game is None:
        raise web.HTTPNotFound(text="No such page.\n")
    return game


async def ask(request: web.Request) -> web.Response:
    game = html.escape(_game(request))
    return page(
        f"Unsubscribe from {game}",
        f"<p>Press the button to stop the mail of the game <b>{game}</b> (its turn "
        "reports and notices) to the address this link was mailed to.</p>\n"
        '<form method=post><input type=hidden name="List-Unsubscribe" value="One-Click">'
        "<button type=submit>Unsubscribe</button></form>\n"
        "<p>Nothing changes until you press it. To watch the game again later, mail "
        f"<code>WATCH {game}</code> to the server.</p>",
    )


async def act(request: web.Request) -> web.Response:
    game = _game(request)
    await request.read()  # the form (List-Unsubscribe=One-Click); nothing else is needed
    app = request.app[PBEM]
    token = request.match_info["token"].lower()

    def apply() -> str | None:
        with app.store.tx() as conn:
            return unsubscribe(app, conn, token, by_mail=False)

    if await in_thread(apply):
        request.app[WAKE]()  # the mail that tells the observer
    safe = html.escape(game)
    return page(
        f"Unsubscribed from {safe}",
        f"<p>If this link was mailed to an observer of <b>{safe}</b>, that address no "
        "longer receives the game's mail, and a mail tells it so, once.</p>\n"
        f"<p>To watch the game again, mail <code>WATCH {safe}</code> to the server.</p>",
    )
