"""Who may act for a seat: a reply address made for that player, or the
player's password (the master password for the game master), and, with a
trusted relay, the relay's verdict that the sender's domain signed the
mail. Wrong credentials are counted per address: the game master is told
after a few, and past many the slow password check is not run for that
address for a while (no guessing at speed)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import timedelta

from pbem.app import Recipient
from pbem.commands import GameContext
from pbem.mail import auth
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


def relay_refused(ctx: GameContext) -> str | None:
    """The trusted relay's name, if there is one and it did not find the
    mail signed by the sender's domain."""
    relay = ctx.app.config.server.trusted_relay
    verdict = ctx.mail.headers.get("authentication-results")
    if relay and not auth.relay_verified(verdict, relay, ctx.sender):
        return relay
    return None


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
