"""The list headers of a game's mail, and the tokens that unsubscribe.

Each game is a mailing list of its own to the readers' mail programs:

- ``List-Id: "Office Wars game alpha" <alpha.judge.example>`` (RFC 2919) on
  every mail about one game (reports, receipts for that game, notices,
  press, reminders), so a filter or a folder can take one game's mail;
- ``List-Help`` (RFC 2369): a mail to the server asking for HELP;
- ``References: <alpha.game@judge.example>`` on the game's mail that
  answers no mail: mail programs that thread by References show a game's
  reports and notices as one thread;
- for an observer (who reads a game and plays no seat in it), on what the
  game sends to all (and a report mailed again on request)
  ``List-Unsubscribe``: a mailto: ``unsubscribe+<token>@domain`` and, when
  the operator configured a public web address (``server.web.url``), the
  URL of the page that unsubscribes; ``List-Unsubscribe-Post:
  List-Unsubscribe=One-Click`` (RFC 8058) only when that URL is HTTPS, as
  the RFC requires;
- ``Precedence: list`` on what goes to the whole game (reports, notices,
  press, reactions): what mailing lists mark so, and what vacation
  responders leave unanswered. Not on mail to one person about their own
  business (receipts, refusals, passwords, start mails, reminders), which
  some mail programs would otherwise file with the bulk mail.

A token is the game's name and an HMAC of (game, address) under the
server's secret: the server makes it, checks it without storing it, and
nobody without the secret can make one for another address.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Iterable

from sqlalchemy import Connection

from pbem.app import App
from pbem.mail.auth import mac

# outbox kinds that go to the whole game, as a list's posts do
LIST_KINDS = frozenset({"report", "notice", "press", "reaction"})

_TOKEN = re.compile(r"([a-z0-9][a-z0-9-]{0,39})\.([a-z2-7]{32})")


def unsubscribe_token(secret: str, game: str, address: str) -> str:
    """``<game>.<HMAC>``: lower case only (addresses are read lower-cased)."""
    return f"{game}.{_mac(secret, game, address)}"


def _mac(secret: str, game: str, address: str) -> str:
    return mac(secret, 20, "unsubscribe", game, address.lower())


def token_game(token: str) -> str | None:
    """The game a token names, if it has a token's form at all."""
    m = _TOKEN.fullmatch(token.lower())
    return m[1] if m else None


def token_owner(secret: str, token: str, candidates: Iterable[str]) -> str | None:
    """Which of ``candidates`` (the game's observers) the token was made for."""
    game = token_game(token)
    if game is None:
        return None
    given = token.lower()
    found = None
    for address in candidates:  # every one compared: the time says nothing
        if hmac.compare_digest(unsubscribe_token(secret, game, address).encode(), given.encode()):
            found = address
    return found


def observers(app: App, conn: Connection, game: str) -> list[str]:
    """Who reads ``game`` as an observer: games.yaml's observers and those
    who WATCH it, less those who unsubscribed; sorted, without repeats
    (the first spelling of an address kept)."""
    cfg = app.game_config(game)
    gone = app.store.unsubscribed(conn, game)
    found: dict[str, str] = {}
    for address in [*(cfg.observers if cfg else ()), *app.store.watchers(conn, game)]:
        if address.lower() not in gone:
            found.setdefault(address.lower(), address)
    return sorted(found.values(), key=str.lower)


def is_observer(app: App, conn: Connection, game: str, address: str) -> bool:
    """Whether ``address`` reads ``game`` as an observer, not as one of its
    players (a player who also WATCHes is a player)."""
    lower = address.lower()
    if lower not in {a.lower() for a in observers(app, conn, game)}:
        return False
    seated = app.store.players(conn, game)
    return not any(p.email.lower() == lower and p.status == "active" for p in seated)


def list_id(app: App, game: str) -> str:
    cfg = app.game_config(game)
    title = app.engine(cfg.game).title if cfg else "pbem"
    phrase = f"{title} game {game}".replace("\\", "").replace('"', "")
    return f'"{phrase}" <{game}.{app.domain}>'


def unsubscribe_address(app: App, game: str, address: str) -> str:
    """The address that unsubscribes ``address`` from ``game``'s mail."""
    return f"unsubscribe+{unsubscribe_token(app.secret, game, address)}@{app.domain}"


def unsubscribe_url(app: App, token: str) -> str | None:
    web = app.config.server.web
    return f"{web.url.rstrip('/')}/unsubscribe/{token}" if web and web.url else None


def list_headers(
    app: App, game: str, to: str, *, observer: bool = False, precedence: bool = False
) -> list[tuple[str, str]]:
    """The list headers of a mail about ``game`` to ``to``."""
    help_to = app.config.server.address
    out = [
        ("List-Id", list_id(app, game)),
        ("List-Help", f"<mailto:{help_to}?subject=help&body=HELP>"),
    ]
    if observer:
        token = unsubscribe_token(app.secret, game, to)
        targets = [f"<mailto:{unsubscribe_address(app, game, to)}>"]
        url = unsubscribe_url(app, token)
        if url:
            targets.append(f"<{url}>")
        out.append(("List-Unsubscribe", ",\r\n ".join(targets)))  # folded: lines stay short
        if url and url.startswith("https://"):
            out.append(("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"))
    if precedence:
        out.append(("Precedence", "list"))
    return out


def thread_root(app: App, game: str) -> str:
    """The Message-ID that a game's mail names as its thread's root."""
    return f"<{game}.game@{app.domain}>"
