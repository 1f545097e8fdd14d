"""Double opt-in: a command that acts on the sender's address alone (JOIN,
LEAVE, WATCH, UNWATCH) is not done when it comes. It is checked, stored
as waiting, and a mail to the From address asks for confirmation: a reply
to it (its Reply-To is ``confirm+<token>@domain``) or a line ``CONFIRM
<token>`` in a mail from that address does the command, checked again at
that moment; doing nothing lets it expire (games.yaml ``limits:
confirm_within``, 48 hours by default). So a forged From can neither seat
someone in a game nor make them leave nor sign them up for reports.

The token is 160 random bits (base32, lower case: it survives an address
lower-cased on the way); the store keeps only its SHA-256. It confirms
once, only from the address it was mailed to, and only until it expires.
A newer request for the same address, command and game replaces the
older one. Automatic mail (vacation replies, bounces) never gets here:
the pipeline drops it first (pbem/mail/pipeline.py).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbem.commands.context import Context
from pbem.commands.registry import Family, Use, Where, Who
from pbem.store import ConfirmationRow, Request
from pbem.words import plural

family = Family("confirm")


@dataclass(frozen=True)
class Verdict:
    """What a command asked for would do, checked when it comes: either an
    answer at once (a refusal, or nothing to change: no confirmation
    needed), or what to store and say in the mail that asks to confirm."""

    game: str = ""  # the game as written: with address and command, one request waits
    answer: str | None = None  # the reply now; nothing to confirm
    text: str = ""  # the command line to store and run on confirmation
    shown: str = ""  # the same as shown in mail (no password in it)
    plan: str = ""  # what it will do, in words


@dataclass(frozen=True)
class Confirmable:
    check: Callable[[Context, str], Verdict]  # when asked: changes nothing
    apply: Callable[[Context, str], str]  # when confirmed: checks again, does it, the result


CONFIRMABLE: dict[str, Confirmable] = {}


def confirmable(
    name: str, check: Callable[[Context, str], Verdict], apply: Callable[[Context, str], str]
) -> None:
    """Declare that command NAME waits for confirmation (lobby.py, master.py)."""
    CONFIRMABLE[name] = Confirmable(check, apply)


@dataclass(frozen=True)
class Pending:
    """A command of this mail that waits for confirmation."""

    line: int
    verdict: Verdict


def ask(ctx: Context, use: Use) -> None:
    """The handler of a command that waits for confirmation: answered at
    once if it cannot be done (or changes nothing), else kept for the
    mail that asks to confirm it (``ask_by_mail``)."""
    verdict = CONFIRMABLE[use.name].check(ctx, use.arg)
    if verdict.answer is not None:
        ctx.say(f"line {use.line}: {verdict.answer}")
        return
    ctx.pending.append(Pending(use.line, verdict))


# -- asking --------------------------------------------------------------------------


def new_token() -> str:
    """160 random bits in lower-case base32 (32 characters)."""
    return base64.b32encode(secrets.token_bytes(20)).decode("ascii").lower()


def digest(token: str) -> str:
    return hashlib.sha256(token.strip().lower().encode("ascii", "replace")).hexdigest()


def ask_by_mail(ctx: Context, pending: list[Pending]) -> list[str]:
    """Store the mail's waiting commands under one new token and mail the
    sender the request to confirm them; the receipt's lines about them."""
    app, now = ctx.app, ctx.now
    within = app.config.server.limits.confirm_within
    token, expires = new_token(), now + within
    app.store.purge_confirmations(ctx.conn, now - timedelta(days=7))
    requests = [Request(_name(p.verdict.text), p.verdict.game, p.verdict.text) for p in pending]
    app.store.ask_confirmation(
        ctx.conn, digest(token), ctx.sender, requests, ctx.row.id, now, expires
    )
    shown = ", ".join(p.verdict.shown for p in pending)
    app.queue(
        ctx.conn,
        "confirm",
        ctx.sender,
        f"Please confirm: {shown}",
        "confirm",
        {
            "address": ctx.sender,
            "asked": [p.verdict for p in pending],
            "token": token,
            "confirm_address": f"confirm+{token}@{app.domain}",
            "expires": expires.strftime("%Y-%m-%d %H:%M UTC"),
            "within": duration(within),
            "received": ctx.row.received_at.strftime("%Y-%m-%d %H:%M UTC"),
        },
        reply_to=f"confirm+{token}@{app.domain}",
        in_reply_to=ctx.mail.message_id,
        inbox_id=ctx.row.id,
        proven=ctx.proven,
        cause=len(ctx.row.raw),
    )
    return [
        f"line {p.line}: {p.verdict.shown}: waits for your confirmation; a mail of its "
        "own asks for it"
        for p in pending
    ]


def _name(text: str) -> str:
    """The command of a stored request: its first word, or its first two
    (END GAME)."""
    words = text.upper().split()
    return " ".join(words[:2]) if " ".join(words[:2]) in CONFIRMABLE else words[0]


def duration(span: timedelta) -> str:
    """48 hours, 30 minutes, 7 days."""
    minutes = int(span.total_seconds() // 60)
    if minutes % (24 * 60) == 0 and minutes >= 3 * 24 * 60:
        return plural(minutes // (24 * 60), "day")
    if minutes % 60 == 0:
        return plural(minutes // 60, "hour")
    return plural(minutes, "minute")


# -- confirming -------------------------------------------------------------------------


@dataclass
class Outcome:
    lines: list[str]
    done: bool  # something was confirmed (and done, or refused on its new check)


def settle(ctx: Context, token: str) -> Outcome:
    """A confirmation of ``token`` from the mail's sender: every request
    still waiting under it is checked again and done; anything else is
    refused without effect."""
    rows = ctx.app.store.confirmations(ctx.conn, digest(token))
    if not rows:
        return Outcome(
            [
                "CONFIRM: nothing waits for this confirmation (a request is kept "
                f"{duration(ctx.app.config.server.limits.confirm_within)}); nothing was done"
            ],
            False,
        )
    if rows[0].address != ctx.sender.lower():
        return Outcome(
            [
                "CONFIRM: this confirmation was mailed to another address; only a "
                "mail from that address confirms it. Nothing was done."
            ],
            False,
        )
    waiting = [r for r in rows if r.state == "pending" and ctx.now < r.expires_at]
    lines = [_not_waiting(r, ctx.now) for r in rows if r not in waiting]
    ctx.app.store.mark_confirmed(ctx.conn, [r.id for r in waiting], ctx.now)
    for r in waiting:
        arg = " ".join(r.text.split()[len(r.command.split()) :])
        lines.append(CONFIRMABLE[r.command].apply(ctx, arg))
    return Outcome(lines, bool(waiting))


def _not_waiting(r: ConfirmationRow, now: datetime) -> str:
    """Why a request under a token is not done now."""
    shown = _shown(r)
    if r.state == "confirmed" and r.done_at is not None:
        return f"{shown}: confirmed already, at {r.done_at:%Y-%m-%d %H:%M} UTC; nothing more done"
    if r.state == "replaced":
        return (
            f"{shown}: a later request replaced this one; nothing was done (confirm the "
            "latest mail that asks)"
        )
    return (
        f"{shown}: the request expired at {r.expires_at:%Y-%m-%d %H:%M} UTC; nothing was "
        f"done. Send {r.command} again to be asked anew."
    )


def _shown(r: ConfirmationRow) -> str:
    """A stored request as mail shows it: a WATCH's password left out."""
    words = r.text.split()
    return " ".join(words[:2]) if r.command == "WATCH" else r.text


@family.command(
    "CONFIRM",
    who=Who.ANYONE,
    where=Where.SERVER,
    args="token",
    help="do what a mail from this server asked you to confirm",
    doc="confirm a JOIN, LEAVE, WATCH or UNWATCH (or a game master's END GAME): the token "
    "is in the mail that asks (replying to that mail does the same)",
)
def confirm(ctx: Context, use: Use) -> None:
    token = use.arg.split()[0] if use.arg.split() else ""
    if not token:
        ctx.say(f"line {use.line}: CONFIRM: write the token of the mail that asks: CONFIRM <token>")
        return
    outcome = settle(ctx, token)
    ctx.changed = ctx.changed or outcome.done
    ctx.say(*(f"line {use.line}: {line}" for line in outcome.lines))


def reply_lines(ctx: Context, token: str) -> Outcome:
    """A reply to ``confirm+<token>@domain``: the outcome, and the answer
    mailed back to the sender."""
    outcome = settle(ctx, token)
    subject = ctx.mail.subject or "your confirmation"
    if not subject.lower().startswith("re:"):
        subject = "Re: " + subject
    ctx.app.queue(
        ctx.conn,
        "receipt",
        ctx.sender,
        subject,
        "confirmed",
        {"lines": outcome.lines, "done": outcome.done, "received": ctx.now},
        in_reply_to=ctx.mail.message_id,
        references=ctx.mail.references,
        inbox_id=ctx.row.id,
        proven=outcome.done,  # a live token: only the address it went to has it
    )
    return outcome
