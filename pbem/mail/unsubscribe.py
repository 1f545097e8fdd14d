"""Unsubscribing an observer from a game's mail: by mail to the address
``unsubscribe+<token>@domain`` of a mail's List-Unsubscribe header (a step
of the mail's way, pbem/mail/pipeline.py, after automatic mail is dropped:
a vacation reply or a bounce never unsubscribes anyone), or by the
one-click POST to the web server (pbem/web/).

The token (pbem/mail/lists.py) names the game and, by its HMAC, the
observer; the observer is unsubscribed and told once. A token that names
nobody (forged, mistyped, or of an observer already gone) does nothing and
is answered as any other: nobody learns from it who observes what.
"""

from __future__ import annotations

from sqlalchemy import Connection

from pbem.app import App
from pbem.mail import lists


def unsubscribe(app: App, conn: Connection, token: str, *, by_mail: bool) -> str | None:
    """Unsubscribe the observer ``token`` was made for, in the caller's
    transaction, and tell them; their address, or None if nothing changed."""
    game = lists.token_game(token)
    if game is None or app.game_config(game) is None or app.store.game(conn, game) is None:
        return None
    owner = lists.token_owner(app.secret, token, lists.observers(app, conn, game))
    if owner is None or not app.store.unsubscribe(conn, game, owner, app.clock.now()):
        return None
    app.queue(
        conn,
        "unsubscribed",
        owner,
        f"[{game}] you are unsubscribed",
        "unsubscribed",
        {"game": game, "address": owner, "by_mail": by_mail},
        auto="auto-replied" if by_mail else "auto-generated",
        game=game,
    )
    return owner
