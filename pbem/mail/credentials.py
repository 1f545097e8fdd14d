"""Who may act for a seat: a reply address made for that player, or the
player's password (the master password for the game master), and, with a
trusted relay, the relay's verdict that the sender's domain signed the
mail, or, where DKIM is required and no relay stands in front, our own
DKIM check (pbem/mail/dkim.py). Wrong credentials are counted per address: the game master is told
after a few, and past many the slow password check is not run for that
address for a while (no guessing at speed)."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from pbem.app import Recipient
from pbem.commands import GameContext
from pbem.mail import auth, dkim
from pbem.store import PlayerRow
from pbem.turns.localtime import local
from pbem.words import wrap

FAILURES_BEFORE_ALERT = 5  # wrong credentials from one address in an hour
BLOCK_AFTER = 20  # failures in an hour after which passwords from it are not checked
# (the slow hash is not run for that address for a while: no guessing at
# speed). The address is told once, with the time checks resume; its
# reply addresses (checked without a password) keep working.
PAUSED = "password checks from this address are paused"


@dataclass
class Credentials:
    """What a mail carries to show who sent it."""

    passwords: list[str]  # PASSWORD lines and the subject's, in that order
    token: Recipient | None  # the reply address it was sent to, for this game
    players: list[PlayerRow]  # the seats of its sender's address
    dkim: Callable[[], dkim.Verdict] | None = None  # its DKIM verdict, worked out when asked


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
    """One of the mail's first three passwords is the seat's."""
    tries = creds.passwords[:3]
    verifier = ctx.app.verifier
    if any(verifier.known(pw, seat.password_hash) for pw in tries):
        return True
    failures = ctx.app.store.recent_auth_failures(ctx.conn, ctx.sender, ctx.now) if tries else 0
    if not tries or failures >= BLOCK_AFTER:
        return False  # nothing to check, or too many failures: no more slow checks
    return any(verifier.check(pw, seat.password_hash) for pw in tries)


def master_password_ok(ctx: GameContext, creds: Credentials) -> bool:
    expected = ctx.cfg.master_password or ""
    return any(hmac.compare_digest(p, expected) for p in creds.passwords[:3])


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


def blocked(ctx: GameContext, sender: str) -> bool:
    """Too many wrong passwords came from ``sender`` lately: its
    passwords are not checked for now."""
    return ctx.app.store.recent_auth_failures(ctx.conn, sender, ctx.now) >= BLOCK_AFTER


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


def paused_refusal(ctx: GameContext, sender: str, player: PlayerRow | None) -> str:
    """The one refusal that says password checks from ``sender`` are
    paused, until when, and what still works."""
    times = ctx.app.store.auth_failure_times(ctx.conn, sender, ctx.now)
    until = times[max(0, len(times) - BLOCK_AFTER)] + timedelta(hours=1)
    when = local(until, (player.timezone if player else "") or ctx.cfg.timezone or "UTC")
    way = (
        "Replying to this mail, or to any mail from this server, still works: "
        "its reply address is checked without the password."
        if player
        else "The command line on the server (pbem master) still works."
    )
    return wrap(  # a paragraph of its own, wrapped for a mail window
        f"nothing was applied: {BLOCK_AFTER} mails in the last hour came from this "
        "address with a wrong password (or none), so password checks from it are "
        f"paused until {when}. Mails with a password sent before then are not "
        f"answered. {way} If you did not send those mails, someone else used your address.",
        hang="",
    )
