"""The daily caps on replies, in two pools counted apart, so that no one
can flood an inbox through the judge, no mail loop runs away, and a
forged From never spends a player's own replies:

- replies to mail that proved who sent it (a player's or the game
  master's password, a reply address of ours, a reply to a confirmation
  token), and the server's own notices (alerts, digests): at most
  ``limits.proven_replies_per_day`` a day to one address (200 by default:
  a player in several games revising orders all day never reaches it);
- replies to mail that proved nothing (anyone can write any From):
  at most ``limits.replies_per_day`` (10 by default). Such a reply is
  short, quotes none of the mail's lines (only their numbers) and is
  never larger than the mail that caused it plus ``ALLOWANCE`` bytes
  (pbem/mail/compose.py cuts it), so the judge never amplifies spam.

The last reply before a cap says so; every reply over it is held (kept in
the outbox, never sent alone), and after midnight (UTC), when the caps
reset, everything held for an address, from both pools, goes out as one
digest. Orders in mails whose receipts are held are recorded all the
same: the caps hold replies, never the processing of mail.

Mail that is not a reply is not counted: turn reports, deadline reminders,
the mail a game starts with, passwords, press and reactions.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
from collections.abc import Sequence
from datetime import datetime, time, timedelta
from typing import Any

from sqlalchemy import Connection

from pbem.app import App
from pbem.store import ClaimLost, OutboxRow
from pbem.words import wrap

# calendar: CALENDAR answers the From address, which anyone can write
# confirm: the request to confirm a JOIN, LEAVE, WATCH or UNWATCH goes to the From address too
# signin: SIGNIN's link, to the From address as well
CAPPED = frozenset({"receipt", "refusal", "alert", "digest", "calendar", "confirm", "signin"})
LAST_NOTE = (
    "\n\n--\nThis is the last reply this server sends to {to} today: further replies "
    "today are held; your orders are still being recorded. Everything held comes "
    "in one mail after midnight (UTC).\n"
)
# the server's own notices (to a game master, to a player the master
# removed; digests): counted with the replies to proven mail, unless the
# caller says the mail that caused it proved nothing
NOTICES = frozenset({"alert", "digest"})
# a reply to mail that proved nothing is at most this many bytes larger than that mail
ALLOWANCE = 4096
DIGEST_MOST = 100  # held replies shown in full in one digest; the rest are listed


def day(at: datetime) -> str:
    return at.strftime("%Y-%m-%d")


def proven_pool(kind: str, proven: bool | None) -> bool:
    """Whether a mail of ``kind`` counts among the replies to proven mail:
    as its caller says (``proven``), else by its kind (notices do)."""
    return kind in NOTICES if proven is None else proven


def slot(app: App, conn: Connection, kind: str, to: str, proven: bool | None = None) -> str:
    """Count a mail of ``kind`` to ``to`` against today's cap of its pool
    (``proven``: it answers mail that proved who sent it; None: by its
    kind): "send", "last" (the last one today: it must say so), or "held"."""
    if kind not in CAPPED:
        return "send"
    limits = app.config.server.limits
    if proven_pool(kind, proven):
        cap, key = limits.proven_replies_per_day, to.lower()
    else:
        cap, key = limits.replies_per_day, unproven_key(to)
    count = app.store.count_reply(conn, key, day(app.clock.now()), cap)
    if count is None:
        return "held"
    return "last" if count == cap else "send"


def unproven_key(to: str) -> str:
    """The count of replies to mail that proved nothing, kept beside the
    other under a key of its own (an address fits in 254 characters; a
    key that would not is a digest of the address)."""
    key = "~" + to.lower()
    if len(key) > 254:
        key = "~#" + hashlib.sha256(to.lower().encode()).hexdigest()
    return key


def release_held(app: App) -> int:
    """One digest per address of the replies held on an earlier day (UTC);
    returns how many digests were queued."""
    now = app.clock.now()
    midnight = datetime.combine(now.date(), time(0), tzinfo=now.tzinfo)
    groups: dict[str, list[OutboxRow]] = {}
    for row in app.store.held_mail(midnight):
        groups.setdefault(row.to_addr.lower(), []).append(row)
    made = 0
    for rows in groups.values():
        try:
            with app.store.tx() as conn:
                _digest(app, conn, rows)
            made += 1
        except ClaimLost:
            pass  # another sender made it
    return made


# The closing paragraphs of held replies that only make sense in a mail of
# their own ("reply to this mail"): a digest drops them from each held reply
# and ends with one closing of its own (templates/mail/receipt.txt.j2,
# notice.txt.j2).
CLOSINGS = (
    "To add orders, reply to this mail",
    "To change your orders, reply to this mail",
    "Reply to this mail to send orders",
)
ONE_HELD = (
    "Here it is, as it was written then (a deadline in it may have passed "
    "since). The mail it answers was processed when it came; orders in it "
    "were recorded then."
)
MANY_HELD = (
    "Here they are, oldest first, as they were written then (a deadline in "
    "them may have passed since). The mails they answer were processed when "
    "they came; orders in them were recorded then."
)
SEVERAL_GAMES = (
    "These replies concern more than one game, so this mail has no reply "
    "address: to send orders, reply to the latest report or receipt of that "
    "game (no password needed), or mail the game's address with a line "
    "PASSWORD <your password>."
)


def _digest(app: App, conn: Connection, rows: Sequence[OutboxRow]) -> None:
    parts, reply_tos, closings = [], [], {}
    for n, row in enumerate(rows, 1):
        mail = email.message_from_bytes(row.message, policy=email.policy.default)
        text, closing = substance(_body(mail))
        if mail["Reply-To"]:
            reply_tos.append(str(mail["Reply-To"]))
            if closing:
                closings[str(mail["Reply-To"])] = closing
        when = row.created_at.strftime("%Y-%m-%d %H:%M UTC")
        if n <= DIGEST_MOST:
            parts.append(f"=== {n}. {mail['Subject']} ({when}) ===\n\n{text}\n")
        else:
            parts.append(f"=== {n}. {mail['Subject']} ({when}) (not shown)")
    days = sorted({day(r.created_at) for r in rows})
    held = f"{len(rows)} repl{'y' if len(rows) == 1 else 'ies'}"
    reply_to = reply_tos[-1] if len(set(reply_tos)) == 1 else None
    if reply_to:
        end = closings.get(reply_to, "")
    else:
        end = SEVERAL_GAMES if reply_tos else ""
    intro = f"The daily cap on replies held {held} to you on {', '.join(days)}. " + (
        ONE_HELD if len(rows) == 1 else MANY_HELD
    )
    if end and not reply_to:
        end = wrap(end, hang="")
    text = wrap(intro, hang="") + "\n\n" + "\n".join(parts) + (f"\n\n{end}\n" if end else "")
    subject = f"{held} held from {', '.join(days)}"
    app.queue(
        conn,
        "digest",
        rows[0].to_addr,
        subject,
        "alert",
        {"subject": subject, "text": text, "game": None},
        reply_to=reply_to,
        auto="auto-replied",
    )
    digest_id = app.store.last_outbox_id(conn)
    app.store.mark_digested(conn, [r.id for r in rows], digest_id)


def substance(body: str) -> tuple[str, str | None]:
    """A held reply's text without what made sense only as a mail of its
    own: the note that the cap was reached and the closing "reply to this
    mail" paragraph. Returns the text and that closing (None if none)."""
    note = LAST_NOTE.split("{to}")[0]
    if (cut := body.find(note)) >= 0:
        body = body[:cut]
    body = body.rstrip()
    for opener in CLOSINGS:
        at = body.rfind("\n\n" + opener)
        if at >= 0:
            return body[:at].rstrip(), body[at:].strip()
    return body, None


def _body(mail: Any) -> str:
    try:
        part = mail.get_body(("plain",))
        text = part.get_content() if part is not None else ""
        return text.replace("\r\n", "\n")
    except Exception:
        return ""


def midnight_after(at: datetime) -> datetime:
    return datetime.combine(at.date(), time(0), tzinfo=at.tzinfo) + timedelta(days=1)
