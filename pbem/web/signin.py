"""Signing in to the web pages with the link SIGNIN mails
(pbem/commands/signin.py), and signing out.

``GET /signin/<token>`` shows a page with one button and changes nothing
(mail scanners and link previews fetch every link they see, and would use
the link up); ``POST /signin/<token>`` uses the link, once, and starts a
session: a cookie (HttpOnly, SameSite=Strict, Secure when the pages'
address is https) that holds a random token whose SHA-256 the store keeps
with the address it is scoped to. A link used, expired or unknown gets a
page that says which, and how to get a new one. ``/signout`` ends the
session and drops the cookie. Both POSTs (signing in, signing out) are
taken only from this server's own pages: ``Sec-Fetch-Site: same-origin``,
or from a browser that sends none a same-origin ``Origin``; ``Origin:
null`` alone, another site, or neither header gets a page that says so
(403).

The game pages ask :func:`seat` whom a page is for (pbem/web/pages.py's
``Seats.find``): the signed-in address's player in that game, or the
observers. Nobody who did not sign in gets a cookie, and a request without
one costs no look-up.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from pbem.app import App
from pbem.commands.signin import PATH, token_hash
from pbem.web import render
from pbem.web.base import PBEM, in_thread
from pbem.web.pages import SEATS, site

COOKIE = "pbem_session"
SESSION_LIFE = timedelta(days=30)

# what to tell about a link that does not sign in: (status, title, text)
REFUSED = {
    "unknown": (
        404,
        "Unknown sign-in link",
        "This link signs nobody in: it may be mistyped or cut short by a mail program.",
    ),
    "used": (
        410,
        "Sign-in link already used",
        "This link has been used: each link signs in once.",
    ),
    "expired": (
        410,
        "Sign-in link expired",
        "This link has expired: a link works for an hour after it is mailed.",
    ),
}


# a form posted from anywhere but this server's own pages
FOREIGN = (
    403,
    "Sign-in form refused",
    "This server takes its sign-in and sign-out forms only from its own pages "
    "(your browser did not say the form came from here). Open the link from "
    "your mail again and press the button on that page.",
)


def add_routes(web_app: web.Application) -> None:
    """The sign-in's routes; the game pages (added before) learn from it
    whose view a request reads."""
    web_app.router.add_get(f"/{PATH}{{token}}", ask)
    web_app.router.add_post(f"/{PATH}{{token}}", act)
    web_app.router.add_get("/signout", signout_page)
    web_app.router.add_post("/signout", signout)
    web_app[SEATS].find = seat


async def seat(request: web.Request, game: str) -> str | None:
    """The player whose own view of ``game`` the request reads: the
    signed-in address's seat in it; None (the observers' view) for anyone
    else. No cookie: no look-up; one: one query."""
    token = session_token(request)
    if token is None:
        return None
    app = request.app[PBEM]

    def look() -> str | None:
        with app.store.tx(write=False) as conn:
            found = app.store.session_seat(conn, token_hash(token), game, app.clock.now())
        if found is None or found[1] is None or app.game_config(game) is None:
            return None
        return found[1]

    return await in_thread(look)


# -- following the link ----------------------------------------------------------------


def _page(
    app: App, root: str, kind: str, heading: str, status: int = 200, **data: Any
) -> web.Response:
    """A page of templates/web/signin.html.j2, in the site's layout; never
    kept by a cache (it is about one reader, or one link)."""
    rendered = render.html(
        "web/signin.html.j2",
        {**site(app, root), "kind": kind, "heading": heading, **data},
        "no-store",
        status,
    )
    return web.Response(
        body=rendered.body, status=status, content_type="text/html", charset="utf-8"
    )


def _refused(app: App, state: str) -> web.Response:
    status, heading, text = REFUSED[state]
    return _page(app, "../", "refused", heading, status, text=text)


async def ask(request: web.Request) -> web.Response:
    """The page the link opens: who it signs in, and the button."""
    app = request.app[PBEM]
    hashed = token_hash(request.match_info["token"])

    def look() -> web.Response:
        with app.store.tx(write=False) as conn:
            link = app.store.signin_link(conn, hashed)
        state = "unknown" if link is None else link.state(app.clock.now())
        if link is None or state != "valid":
            return _refused(app, state)
        return _page(
            app, "../", "ask", "Sign in to the game pages", address=link.address, game=link.game
        )

    return await in_thread(look)


def _use(app: App, hashed: str, session: str) -> tuple[str, str | None]:
    """Use the link and start the session, in one transaction: (the
    link's state, the game it leads to)."""
    now = app.clock.now()
    with app.store.tx() as conn:
        link = app.store.signin_link(conn, hashed)
        if link is None:
            return "unknown", None
        state = link.state(now)
        if state == "valid" and not app.store.use_signin_link(conn, hashed, now):
            state = "used"  # another request used it first
        if state != "valid":
            return state, None
        app.store.start_session(conn, token_hash(session), link.address, now, now + SESSION_LIFE)
        app.store.purge_signins(conn, now - timedelta(days=1))
    return "valid", link.game


async def act(request: web.Request) -> web.Response:
    """The button: the link is used, the session starts, and the browser
    goes on to the game's page (or the list) with its cookie."""
    _same_site(request, "../")
    app = request.app[PBEM]
    session = secrets.token_urlsafe(32)
    state, game = await in_thread(_use, app, token_hash(request.match_info["token"]), session)
    if state != "valid":
        return await in_thread(_refused, app, state)
    # relative: right behind a proxy that serves the pages under a path of its own
    response = web.Response(status=303, headers={"Location": f"../games/{game}" if game else "../"})
    _set_cookie(app, response, session)
    return response


# -- the session -------------------------------------------------------------------------


def _cookie_path(app: App) -> str:
    web_config = app.config.server.web
    path = urlsplit(web_config.url).path if web_config and web_config.url else "/"
    return path if path.endswith("/") else path + "/"


def _secure(app: App) -> bool:
    web_config = app.config.server.web
    return bool(web_config and web_config.url and web_config.url.startswith("https:"))


def _set_cookie(app: App, response: web.StreamResponse, session: str) -> None:
    response.set_cookie(
        COOKIE,
        session,
        max_age=int(SESSION_LIFE.total_seconds()),
        path=_cookie_path(app),
        secure=_secure(app),
        httponly=True,
        samesite="Strict",
    )


def _same_site(request: web.Request, root: str) -> None:
    """A form is taken only from this server's own pages. A browser that
    sends ``Sec-Fetch-Site`` (which no page can set) says where the form
    was: it must say ``same-origin``. One that does not must send an
    ``Origin`` of this server's (the address the request came to, or the
    pages' public address). ``Origin: null`` (a sandboxed page, a redirect
    from elsewhere) with nothing else, another site's origin, or neither
    header is refused with a page that says so: nobody signs a reader in
    or out from elsewhere. (Our pages send no referrer, so a browser on
    them may send ``Origin: null`` beside its ``same-origin``.)"""
    fetched = request.headers.get("Sec-Fetch-Site")
    origin = request.headers.get("Origin")
    ours = {f"{request.scheme}://{request.host}"}
    web_config = request.app[PBEM].config.server.web
    if web_config and web_config.url:
        parts = urlsplit(web_config.url)
        ours.add(f"{parts.scheme}://{parts.netloc}")
    if fetched is not None:
        same = fetched == "same-origin" and origin in (None, "null", *ours)
    else:
        same = origin in ours
    if not same:
        raise _not_ours(request.app[PBEM], root)


def _not_ours(app: App, root: str) -> web.HTTPForbidden:
    """The 403 for a form that did not come from this server's pages."""
    status, heading, text = FOREIGN
    page = render.html(
        "web/signin.html.j2",
        {**site(app, root), "kind": "refused", "heading": heading, "text": text},
        "no-store",
        status,
    )
    return web.HTTPForbidden(text=page.body.decode(), content_type="text/html")


def session_token(request: web.Request) -> str | None:
    value = request.cookies.get(COOKIE)
    return value if value and len(value) <= 100 else None


# -- signing out ---------------------------------------------------------------------------


async def signout_page(request: web.Request) -> web.Response:
    app = request.app[PBEM]
    token = session_token(request)

    def look() -> web.Response:
        address = None
        if token is not None:
            with app.store.tx(write=False) as conn:
                address = app.store.session_address(conn, token_hash(token), app.clock.now())
        if address is None:
            return _page(app, "./", "not-signed-in", "Not signed in")
        return _page(app, "./", "signed-in", "Sign out", address=address)

    return await in_thread(look)


async def signout(request: web.Request) -> web.Response:
    """End the session (in the store: the cookie signs in nowhere after,
    even kept by someone) and drop the cookie."""
    _same_site(request, "./")
    app = request.app[PBEM]
    token = session_token(request)

    def end() -> web.Response:
        if token is not None:
            with app.store.tx() as conn:
                app.store.end_session(conn, token_hash(token), app.clock.now())
        return _page(app, "./", "signed-out", "Signed out")

    response = await in_thread(end)
    response.del_cookie(COOKIE, path=_cookie_path(app))
    return response
