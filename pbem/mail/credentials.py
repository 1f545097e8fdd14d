"""Who may act for a seat: a reply address made for that player, or the
player's password (the master password for the game master), and, with a
trusted relay, the relay's verdict that the sender's domain signed the
mail, or, where DKIM is required and no relay stands in front, our own
DKIM check (pbem/mail/dkim.py). Wrong credentials are counted per
address, and the game master is told after a few.

A right password is always accepted, however many wrong ones came "from"
the same address (anyone can forge a From:). What a wrong one may cost is
bounded instead: a mail's first three passwords are read
(pbem/commands/parse.py), each checked only against the seats it could
open (the sender's own; another player's only to tell that player their
password was used elsewhere), a guess known to be wrong costs no check
again (the verifier remembers it), and a mail runs at most a few slow
checks (pbem/mail/budget.py)."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass, field

from pbem.app import Recipient
from pbem.commands import MAX_PASSWORDS, GameContext
from pbem.mail import auth, dkim
from pbem.mail.budget import SLOW_CHECKS, Budget
from pbem.store import PlayerRow

FAILURES_BEFORE_ALERT = 5  # wrong credentials from one address in an hour
# wrong passwords in an hour from an address after which its passwords are
# no longer tried against other players' seats (to tell them theirs was used
# elsewhere): only its own seats' (always) and passwords known right
STRANGER_TRIES = 2
UNCHECKED = (
    "nothing was applied: your password was not checked, as this mail asked for more "
    f"password checks than one mail may ({SLOW_CHECKS}). Send your orders again "
    "in a mail of their own, with one PASSWORD line."
)


@dataclass
class Credentials:
    """What a mail carries to show who sent it."""

    passwords: list[str]  # PASSWORD lines and the subject's, in that order
    token: Recipient | None  # the reply address it was sent to, for this game
    players: list[PlayerRow]  # the seats of its sender's address
    dkim: Callable[[], dkim.Verdict] | None = None  # its DKIM verdict, worked out when asked
    budget: Budget = field(default_factory=Budget)  # what the mail may still cost


def token_ok(ctx: GameContext, creds: Credentials, seat: PlayerRow) -> bool:
    """The mail was sent to a reply address of this seat that still works."""
    token = creds.token
    return (
        token is not None
        and token.player == seat.name.lower()
        and auth.check_token(
            ctx.app.secret, ctx.game, seat.name, seat.token_version, token.token or ""
        )
    )


def password_ok(ctx: GameContext, creds: Credentials, seat: PlayerRow) -> bool:
    """One of the mail's first three passwords is the seat's: a password
    checked right before, at once; a guess known to be wrong, not at all;
    any other by the slow check, while the mail's budget has one left
    (else ``creds.budget.unchecked`` counts it)."""
    tries = creds.passwords[:MAX_PASSWORDS]
    verifier, stored = ctx.app.verifier, seat.password_hash
    if any(verifier.known(pw, stored) for pw in tries):
        return True
    for pw in tries:
        if verifier.known_wrong(pw, stored):
            continue
        if not creds.budget.slow_check():
            return False
        if verifier.check(pw, stored):
            return True
    return False


def password_owner(
    ctx: GameContext, creds: Credentials, seats: list[PlayerRow]
) -> PlayerRow | None:
    """The seat, not the sender's, that one of the mail's passwords opens:
    a password known right for one at once; else, unless wrong passwords
    came from the sender lately (STRANGER_TRIES), by the slow checks the
    mail's budget allows; a search that finds none is counted as a failure
    of the sender's."""
    tries, verifier = creds.passwords[:MAX_PASSWORDS], ctx.app.verifier
    if not tries:
        return None
    known = next(
        (s for s in seats if any(verifier.known(pw, s.password_hash) for pw in tries)), None
    )
    if known is not None:
        return known
    if ctx.app.store.recent_auth_failures(ctx.conn, ctx.sender, ctx.now) >= STRANGER_TRIES:
        return None
    found = next((s for s in seats if password_ok(ctx, creds, s)), None)
    if found is None:
        ctx.app.store.add_auth_failure(ctx.conn, ctx.sender, ctx.game, ctx.now)
    return found


def master_password_ok(ctx: GameContext, creds: Credentials) -> bool:
    """One of the mail's first three passwords is the master password
    (compared in constant time, as bytes: any text at all compares)."""
    expected = (ctx.cfg.master_password or "").encode("utf-8", "surrogatepass")
    return bool(expected) and any(
        hmac.compare_digest(p.encode("utf-8", "surrogatepass"), expected)
        for p in creds.passwords[:MAX_PASSWORDS]
    )


def sender_refused(ctx: GameContext, creds: Credentials) -> str | None:
    """Why nothing of this mail counts for the game, for want of proof
    that the sender's domain sent it; None when there is proof or none is
    asked. With a trusted relay in front: its topmost Authentication-Results
    must show DKIM or DMARC passing for the From: domain. Without one, in a
    game (or on a server) that requires DKIM: our own check must find a
    signature aligned with the From: domain."""
    server = ctx.app.config.server
    relay = server.trusted_relay
    if relay:
        verdict = auth.topmost(ctx.row.raw, "authentication-results")
        if auth.relay_verified(verdict, relay, ctx.sender, ctx.row.peer):
            return None
        return (
            "nothing was applied: this server takes orders only from mail that its "
            f"relay ({relay}) found signed by your domain (DKIM or DMARC), and yours was not."
        )
    if not (server.dkim.require or ctx.cfg.require_dkim) or creds.dkim is None:
        return None
    return dkim_refusal(creds.dkim(), ctx.sender.rpartition("@")[2].lower())


def dkim_refusal(verdict: dkim.Verdict, domain: str) -> str | None:
    """The words for a mail whose DKIM verdict is not a pass."""
    if verdict.passed:
        return None
    if verdict.result == "temperror":
        return (
            f"nothing was applied: this game takes orders only from mail signed (DKIM) by "
            f"your domain, and {verdict.why} just now: a temporary failure of the DNS. "
            "Send the same mail again in a few minutes."
        )
    return (
        "nothing was applied: this game takes orders only from mail signed (DKIM) by "
        f"your address's domain ({domain}), and {verdict.why}. If you sent it, send it "
        "again from your mail provider's own server (or ask it to sign your mail); if "
        "you did not, someone else used your address."
    )


def count_failure(ctx: GameContext, seat: PlayerRow) -> int:
    """A wrong password (or none) for ``seat``: counted, and the game
    master told when they keep coming. How many in the last hour."""
    failures = ctx.app.store.add_auth_failure(ctx.conn, ctx.sender, ctx.game, ctx.now)
    if failures == FAILURES_BEFORE_ALERT:
        ctx.app.alert_master(
            ctx.conn,
            ctx.game,
            f"repeated failed credentials for {ctx.game}",
            f"{failures} mails in the last hour claimed to come from "
            f"{seat.email} ({seat.name}) without the right password "
            "or reply address. Nothing was applied.",
        )
    return failures
