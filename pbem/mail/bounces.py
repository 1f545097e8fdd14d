"""Bounces: the return path of every mail we send, what a bounce that
comes back to it means, and the addresses no longer mailed.

**The return path (VERP).** Every mail leaves with the envelope sender
``bounces+<token>@<domain>``; the token is ``<outbox number in base 36>.<mac>``,
the mac an HMAC under the server secret of that number and the recipient's
address, so a bounce sent back to it names the exact mail and recipient
even when its body names nothing usable (an alias expanded elsewhere, an
X.400 address, no address at all), and nobody can make one up. A token
that does not verify is recorded (``unverified``) and changes nothing.

**Counting.** A bounce tied to a mail by its token counts as a permanent
failure of that recipient unless the report says the failure is temporary
(4.x.x, "delayed": recorded as ``temporary``) or not a failure at all.
Nothing else counts but the relay's own 5xx refusal of a recipient (our
own outbound connection heard it). A bounce that comes back to any other
address (the server's, a game's) counts for nothing, whatever it names:
anyone can write a delivery report, and a Message-ID it quotes proves
nothing (it may have been seen, or guessed). It is recorded
(``elsewhere``, with the mail of ours it names, if any), logged, and
changes nobody's reachability. Each mail counts once however many
reports it brings.

**Unreachable.** After ``limits.unreachable_after`` permanent failures
(games.yaml; default 3) an address is marked unreachable: the game master
of every game it plays in is told once; it is dropped from every game it
watches; mail to it is no longer sent (each such mail stays in the outbox
with the status ``unreachable``, so nothing is lost from the record).

**The way back.** The address's next authenticated mail (orders or a
command with the right password or reply address) marks it reachable, and
its count starts afresh; the receipt to that mail is sent. The operator
can do the same with ``pbem reachable ADDRESS``.
"""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from pbem.app import App
from pbem.mail.auth import mac
from pbem.mail.parsed import ParsedMail
from pbem.store import InboxRow, OutboxRow

log = logging.getLogger("pbem.bounces")

TAG = "bounces"
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _base36(n: int) -> str:
    out = ""
    while True:
        n, d = divmod(n, 36)
        out = _DIGITS[d] + out
        if n == 0:
            return out


def token(secret: str, outbox_id: int, address: str) -> str:
    """The token of a mail's return path: its number and a mac of the
    number and recipient (lower case letters and digits, 33 at most)."""
    return f"{_base36(outbox_id)}.{mac(secret, 15, 'bounce', outbox_id, address.lower())}"


def return_path(app: App, row: OutboxRow) -> str:
    """The envelope sender of the outbox mail ``row``."""
    return f"{TAG}+{token(app.secret, row.id, row.to_addr)}@{app.domain}"


def verify(app: App, conn: Connection, value: str) -> OutboxRow | None:
    """The outbox mail a return-path token names, if the token is ours."""
    number, dot, _ = value.lower().partition(".")
    if not dot or not number or len(number) > 12 or not number.isalnum():
        return None
    try:
        outbox_id = int(number, 36)
    except ValueError:
        return None
    row = app.store.outbox_mail(conn, outbox_id)
    if row is None:
        return None
    expected = token(app.secret, row.id, row.to_addr)
    return row if hmac.compare_digest(expected, value.lower()) else None


# -- a bounce received ---------------------------------------------------------------


@dataclass(frozen=True)
class Settled:
    state: str  # bounce or ignored
    note: str


def settle(
    app: App, conn: Connection, row: InboxRow, mail: ParsedMail, tokens: list[str], now: datetime
) -> Settled:
    """Record a bounce (or any mail to a bounce address): against the mail
    its token names; one with no token is recorded and counts for nothing.
    Never answered, whatever it is."""
    if tokens:
        return _to_return_path(app, conn, row, mail, tokens[0], now)
    return _to_elsewhere(app, conn, row, mail, now)


def _to_return_path(
    app: App, conn: Connection, row: InboxRow, mail: ParsedMail, value: str, now: datetime
) -> Settled:
    sent = verify(app, conn, value)
    if sent is None:
        app.store.add_bounce(conn, now, "unverified", inbox_id=row.id, note=f"token {value[:60]}")
        return Settled("bounce", "to a bounce address whose token does not verify: ignored")
    if not mail.bounce:
        why = mail.auto or "not a delivery report"
        app.store.add_bounce(
            conn, now, "none", inbox_id=row.id, outbox_id=sent.id, address=sent.to_addr, note=why
        )
        return Settled("ignored", f"to the return path of outbox #{sent.id}: {why}")
    kind = "permanent" if mail.failure in ("permanent", None) else mail.failure
    assert kind is not None
    note = _describe(mail)
    app.store.add_bounce(
        conn, now, kind, inbox_id=row.id, outbox_id=sent.id, address=sent.to_addr, note=note
    )
    if kind == "permanent":
        count_failure(app, conn, sent.to_addr, now)
    return Settled("bounce", f"{kind} failure of outbox #{sent.id} to {sent.to_addr}: {note}")


def _to_elsewhere(
    app: App, conn: Connection, row: InboxRow, mail: ParsedMail, now: datetime
) -> Settled:
    """A bounce that came to an address other than a return path: recorded
    (with the mail of ours its Message-IDs name, if any) and counted for
    nothing, since anyone can write one."""
    note = _describe(mail)
    found = app.store.bounced_mail(conn, mail.bounced_ids)
    outbox_id, to = found if found is not None else (None, None)
    app.store.add_bounce(
        conn, now, "elsewhere", inbox_id=row.id, outbox_id=outbox_id, address=to, note=note
    )
    named = f"outbox #{outbox_id} to {to}" if found is not None else "no mail of ours"
    log.info("mail #%d: a bounce not to a return path, naming %s: not counted", row.id, named)
    return Settled("bounce", f"{mail.bounce}; not to a return path (names {named}): not counted")


def _describe(mail: ParsedMail) -> str:
    parts = [mail.bounce or "a bounce"]
    if mail.failed:
        parts.append("failed: " + ", ".join(mail.failed[:5]))
    if mail.delayed:
        parts.append("delayed: " + ", ".join(mail.delayed[:5]))
    return "; ".join(parts)


def refused_by_relay(app: App, conn: Connection, row: OutboxRow, why: str) -> None:
    """The relay refused the recipient of ``row`` for good (5xx at RCPT)."""
    app.store.add_bounce(
        conn, app.clock.now(), "permanent", outbox_id=row.id, address=row.to_addr, note=why
    )
    count_failure(app, conn, row.to_addr, app.clock.now())


# -- unreachable and back --------------------------------------------------------------


def count_failure(app: App, conn: Connection, address: str, now: datetime) -> None:
    """One more permanent failure of ``address``; at the limit it is no
    longer mailed, and whoever should know is told, once."""
    limit = app.config.server.limits.unreachable_after
    if app.store.permanent_failures(conn, address) < limit:
        return
    if not app.store.mark_unreachable(conn, address, now):
        return
    log.warning("%s is unreachable: %d mails to it failed for good", address, limit)
    dropped = app.store.unwatch_everywhere(conn, address)
    seats = [p for p in app.store.players_by_email(conn, address) if p.status == "active"]
    for game in sorted({p.game for p in seats}):
        names = ", ".join(sorted(p.name for p in seats if p.game == game))
        app.alert_master(
            conn,
            game,
            f"{names} of {game} is unreachable",
            f"{limit} mails to {address} ({names} in {game}) failed for good, so the "
            "server no longer mails that address: reports, receipts and notices to it "
            "are kept but not sent.\n\nIt is mailed again as soon as it sends a mail "
            "with its password or reply address, or when you run "
            f"`pbem reachable {address}`. You can also give the seat to someone "
            "else (REPLACE) or remove it (REMOVE).",
        )
    for game in dropped:
        log.warning("observer %s dropped from %s: its mail bounces", address, game)


def welcome_back(app: App, conn: Connection, address: str) -> bool:
    """``address`` proved it reads its mail (an authenticated mail from
    it): its permanent failures are forgotten and, if it was unreachable,
    it is mailed again (True)."""
    if not app.store.counted_failures(conn, address):
        return False
    return app.store.mark_reachable(conn, address)


def back_in_reach(part: Any) -> None:
    """A step of a game's section (pbem/mail/section.py), once the sender's
    credentials are right: an authenticated mail proves its address reads
    its mail, so if its mail bounced it is mailed again."""
    welcome_back(part.ctx.app, part.ctx.conn, part.ctx.sender)
