"""Who may see a game, and WATCH's observer password.

A private game (games.yaml ``visibility: private``) exists, by mail, only
for its players, its observers and its game master (``insider``): to
anyone else LIST leaves it out, and WATCH without a password, JOIN,
CALENDAR, HISTORY and STATUS answer exactly as they answer a name no game
has (``unknown``).

Its observer password is games.yaml's ``observer_password``, or, when the
game sets none, one made from the server's secret (``observer_password``):
long enough that nobody guesses it, and shown to the game master by
STATUS. Guessing is made slow and silent:

- a WATCH with a password, of any game not public, is never answered right
  or wrong when it comes: it waits for confirmation like any WATCH, and
  the password is checked only when the address it came from confirms it
  (pbem/commands/confirm.py). A forged From therefore learns nothing and
  can make no failure count against the address it names;
- failures are counted per address and game name; after ``TRIES`` in an
  hour, that address's confirmations for that name are not checked ("not
  checked now"), neither right nor wrong; another address (the game's
  real observer) is checked as before;
- the game master is told once an hour when ``ALERT_AFTER`` wrong
  passwords for the game came, from anywhere;
- a mail asks WATCH of a game once, and WATCH with a password of games
  the sender may not see for ``UNSEEN_PER_MAIL`` games at most
  (pbem/commands/lobby.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from pbem.commands.confirm import Verdict
from pbem.commands.context import Context, GameReply
from pbem.config import GAME_NAME, GameConfig
from pbem.mail import lists

TRIES = 3  # wrong observer passwords an hour from one address, for one game name
ALERT_AFTER = 10  # wrong observer passwords an hour for one game: its master is told
FAILURE_KEY = "watch "  # failures kept apart from players' passwords (auth_failures)
WRONG = "no game by that name has that observer password; nothing was done"
UNSEEN_PER_MAIL = 3  # WATCHes with a password of games the sender may not see, a mail
LONGEST = 100  # characters of an observer password (a request is kept with it)


def unknown(name: str) -> str:
    """What a command says of a name no game has (as written)."""
    return f"there is no game called {name!r}"


def no_such_game(server: str, name: str) -> GameReply:
    """A game's section of a receipt when no game has that name (or, to a
    stranger, the game is private: the same words)."""
    return GameReply(name, error=f"{unknown(name)} here (send LIST to {server} for the games)")


def insider(ctx: Context, game: str) -> bool:
    """Whether the sender plays, watches or masters ``game``."""
    cfg = ctx.app.game_config(game)
    sender = ctx.sender.lower()
    if cfg is None:
        return False
    if cfg.master_email and cfg.master_email.lower() == sender:
        return True
    if any(p.email.lower() == sender for p in ctx.app.store.players(ctx.conn, game)):
        return True
    return sender in {a.lower() for a in lists.observers(ctx.app, ctx.conn, game)}


def hidden(ctx: Context, game: str) -> bool:
    """Whether ``game`` is private and the sender none of its own."""
    cfg = ctx.app.game_config(game)
    return cfg is not None and cfg.visibility == "private" and not insider(ctx, game)


def observer_password(secret: str, cfg: GameConfig) -> str | None:
    """A private game's observer password: games.yaml's, or one made from
    the server's secret (16 characters, 80 bits) when it sets none."""
    if cfg.visibility != "private":
        return None
    if cfg.observer_password:
        return cfg.observer_password
    made = hmac.new(secret.encode(), f"observer password {cfg.name}".encode(), hashlib.sha256)
    return base64.b32encode(made.digest()[:10]).decode("ascii").lower()


def ask_with_password(game: str, given: str) -> Verdict:
    """WATCH game password, of a game the sender may not see (private, or
    none at all): one answer whatever the name and password, the password
    checked only on confirmation. (A name no game may have, and a password
    too long to be one, are answered at once: that tells nothing of a game.)"""
    if not GAME_NAME.match(game):
        return Verdict(game, f"WATCH: {unknown(game)}")
    if len(given) > LONGEST:
        return Verdict(game, f"WATCH {game}: an observer password has at most {LONGEST} characters")
    plan = (
        f"send you every turn report of {game} as an observer, until you UNWATCH "
        f"{game}, if a game of that name has that observer password (checked when "
        "you confirm)"
    )
    return Verdict(game, None, f"WATCH {game} {given}", f"WATCH {game}", plan)


def confirmed_with_password(ctx: Context, game: str, given: str) -> str | None:
    """A confirmed WATCH with a password of a game the sender may not see:
    the refusal, or None when the password is the game's (watch it)."""
    app, conn, now = ctx.app, ctx.conn, ctx.now
    key, name = _key(ctx.sender), game[:40]
    if app.store.recent_failures_for(conn, key, name, now) >= TRIES:
        return (
            f"WATCH {game}: not checked now: {TRIES} wrong observer passwords for this "
            f"name came from {ctx.sender} in the last hour; try again later"
        )
    cfg = app.game_config(game)
    right = None if cfg is None else observer_password(app.secret, cfg)
    if (
        app.store.game(conn, game) is not None
        and right
        and hmac.compare_digest(given.encode(), right.encode())
    ):
        return None
    app.store.add_auth_failure(conn, key, name, now)
    if right and app.store.game_failures(conn, FAILURE_KEY, name, now) == ALERT_AFTER:
        app.alert_master(
            conn,
            game,
            f"{game}: observer passwords guessed",
            f"{ALERT_AFTER} wrong observer passwords for {game} were confirmed in the last "
            f"hour (the last from {ctx.sender}). Each address is checked at most {TRIES} "
            "times an hour. If the observer password may be known, change it in games.yaml "
            "(observer_password).",
        )
    return f"WATCH {game}: {WRONG}"


def _key(address: str) -> str:
    """The address's count of wrong observer passwords, kept apart from its
    players' passwords (it fits the 254 characters of an address)."""
    key = FAILURE_KEY + address.lower()
    if len(key) > 254:
        key = FAILURE_KEY + hashlib.sha256(address.lower().encode()).hexdigest()
    return key
