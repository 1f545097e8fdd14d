"""SIGNIN: a link that signs a player in to the web pages, to see their own
view of a game (their units, what they see of others', their own orders of
the phase being played) where everyone else sees the observers' view.

The link goes to the mail's From address, and only when that address plays
one of the server's games: a forged From sends the link to the address's
owner, never to the forger. It works once, within ``LINK_LIFE`` of being
mailed; only the SHA-256 of its token is stored (pbem/store/signin.py).
Following it (pbem/web/signin.py) starts a session scoped to that address.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import Connection

from pbem.app import App
from pbem.commands.context import Context
from pbem.commands.registry import Family, Use, Where, Who

family = Family("signin")

LINK_LIFE = timedelta(hours=1)
PATH = "signin/"  # under the web pages' address


def token_hash(token: str) -> str:
    """What is stored of a link's or a session's token."""
    return hashlib.sha256(token.encode()).hexdigest()


def seats_of(app: App, conn: Connection, address: str) -> dict[str, str]:
    """The games ``address`` plays (a seat not taken from it), each with
    the player's name in it."""
    return {
        p.game: p.name
        for p in app.store.players_by_email(conn, address.lower())
        if p.status != "removed" and app.game_config(p.game) is not None
    }


def web_address(app: App, conn: Connection) -> str | None:
    """Where readers reach the web pages: games.yaml's ``web.url``, else
    the address the web server said it listens on when it started (its
    port may be the command line's, or any free one), else games.yaml's
    ``listen``; None when there are no pages."""
    web = app.config.server.web
    if web is None:
        return None
    base = web.url or app.store.web_address(conn) or f"http://{web.host}:{web.port}/"
    return base if base.endswith("/") else base + "/"


@family.command(
    "SIGNIN",
    who=Who.ANYONE,
    where=Where.SERVER,
    args="[game]",
    help="mail a link that signs you in to the game pages, to see your own view",
    doc="mail you a link (it works once, within an hour) that signs your address in to the "
    "server's web pages: a game's page then shows your own view of it, your orders of the "
    "phase being played included; the page has a button to sign out. `SIGNIN game` leads to "
    "that game's page. The link goes to the address you play from, never elsewhere",
    usage="`SIGNIN [game]`",
)
def signin_command(ctx: Context, use: Use) -> None:
    words = use.arg.replace(",", " ").split()
    base = web_address(ctx.app, ctx.conn)
    if base is None:
        ctx.say(f"line {use.line}: SIGNIN: this server has no web pages to sign in to")
        return
    if len(words) > 1:
        ctx.say(f"line {use.line}: SIGNIN takes one game at most (SIGNIN <game>)")
        return
    game = words[0].lower() if words else None
    address = ctx.sender.lower()
    seats = seats_of(ctx.app, ctx.conn, address)
    if game is not None and game not in seats:
        ctx.say(
            f"line {use.line}: SIGNIN {game}: {address} plays no game called {game!r}; "
            "a sign-in link goes only to a player, at the address they play from"
        )
        return
    if not seats:
        ctx.say(
            f"line {use.line}: SIGNIN: {address} plays no game here; a sign-in link goes only "
            "to a player (anyone may read the pages without one)"
        )
        return
    _mail(ctx, address, game, base)
    ctx.say(
        f"line {use.line}: SIGNIN: a sign-in link (it works once, within an hour) is on its "
        f"way to {address}"
    )
    ctx.changed = True


def _mail(ctx: Context, address: str, game: str | None, base: str) -> None:
    """Store the link's hash and queue the mail that carries the link."""
    token = secrets.token_urlsafe(32)
    now = ctx.now
    ctx.app.store.add_signin_link(ctx.conn, token_hash(token), address, game, now, now + LINK_LIFE)
    ctx.app.queue(
        ctx.conn,
        "signin",
        address,
        f"[pbem] sign in to the game pages{f' of {game}' if game else ''}",
        "signin",
        {
            "link": f"{base}{PATH}{token}",
            "game": game,
            "address": address,
            "minutes": int(LINK_LIFE.total_seconds() // 60),
        },
        auto="auto-replied",
        proven=ctx.proven,
        cause=len(ctx.row.raw),
    )
