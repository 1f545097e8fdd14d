"""Every mail the server writes is composed here: the receipts, refusals,
notices and alerts (``Composer.queue``, rendered from templates/mail/), and
the turn reports (``report``), all with the same headers.

Every mail has a Message-ID nobody can predict (``new_message_id``), a
Date, ``Auto-Submitted`` (RFC 3834: ``auto-replied`` on an answer to a
mail, ``auto-generated`` on the rest, so that other robots do not answer
it), and ``X-Pbem-Server`` (so that a copy coming back is recognised as
our own and dropped). Mail about one game carries that game's list
headers (pbem/mail/lists.py: List-Id, List-Help, List-Unsubscribe for
observers, Precedence). Replies carry In-Reply-To and References.
Addresses are checked before they reach a header or an SMTP command: CR,
LF, <, >, spaces and the like are refused.
"""

from __future__ import annotations

import base64
import binascii
import email
import email.policy
import functools
import re
import secrets
from collections.abc import Sequence
from datetime import datetime
from email.header import Header
from email.utils import format_datetime
from typing import Any

from sqlalchemy import Connection

from pbem.app import App
from pbem.mail import lists, replycap
from pbem.words import templates

SAFE_ADDRESS = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")


class BadAddress(ValueError):
    pass


def safe_address(address: str) -> str:
    """``address`` if it is a plain addr-spec that can go into an SMTP
    command and a header, else BadAddress."""
    if not SAFE_ADDRESS.match(address or "") or len(address) > 254:
        raise BadAddress(f"{address!r} is not a plain email address")
    return address


def new_message_id(domain: str) -> str:
    """A Message-ID nobody can predict: 144 bits from the operating
    system's generator (``secrets``), in 24 URL-safe characters, and the
    domain; no time, process number or counter. (``email.utils.make_msgid``
    takes its random part from the ``random`` module, whose state a few
    hundred of our Message-IDs would give away.)"""
    return f"<{secrets.token_urlsafe(18)}@{domain}>"


def headers(
    *,
    sender: str,
    to: str,
    subject: str,
    domain: str,
    when: datetime,
    reply_to: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    auto: str = "auto-replied",
    sender_name: str = "pbem",
    extra: Sequence[tuple[str, str]] = (),
    thread: str | None = None,
) -> tuple[str, list[tuple[str, str]]]:
    """(Message-ID, the headers) every mail of the server carries, in order.
    ``extra``: more headers (a game's list headers); ``thread``: the
    Message-ID a mail that answers none names in References (a game's
    thread root, pbem/mail/lists.py)."""
    message_id = new_message_id(domain)
    out = [
        ("From", f"{sender_name} <{safe_address(sender)}>"),
        ("To", safe_address(to)),
        ("Subject", _subject(subject)),
        ("Date", format_datetime(when)),
        ("Message-ID", message_id),
        ("Auto-Submitted", auto),
        ("X-Pbem-Server", domain),
        *extra,
    ]
    if reply_to:
        out.append(("Reply-To", safe_address(reply_to)))
    if in_reply_to and _MSGID.fullmatch(in_reply_to):
        refs = [r for r in references if _MSGID.fullmatch(r)][-10:]
        if in_reply_to not in refs:
            refs.append(in_reply_to)
        out.append(("In-Reply-To", in_reply_to))
        out.append(("References", "\r\n ".join(refs)))  # folded: lines stay short
    elif thread and _MSGID.fullmatch(thread):
        out.append(("References", thread))
    return message_id, out


def compose(
    *,
    sender: str,
    to: str,
    subject: str,
    text: str,
    domain: str,
    when: datetime,
    html: str | None = None,
    reply_to: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    auto: str = "auto-replied",
    sender_name: str = "pbem",
    extra: Sequence[tuple[str, str]] = (),
    thread: str | None = None,
) -> tuple[str, bytes]:
    """(Message-ID, the mail's bytes). A text-only mail is written directly
    (quoted-printable UTF-8): the email package's header objects cost more
    than everything else a receipt needs."""
    message_id, head_lines = headers(
        sender=sender,
        to=to,
        subject=subject,
        domain=domain,
        when=when,
        reply_to=reply_to,
        in_reply_to=in_reply_to,
        references=references,
        auto=auto,
        sender_name=sender_name,
        extra=extra,
        thread=thread,
    )
    if html is None:
        body = binascii.b2a_qp(text.replace("\r\n", "\n").encode("utf-8")).replace(b"\n", b"\r\n")
        head = _head(head_lines) + (
            b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        )
        return message_id, head + body + (b"" if body.endswith(b"\r\n") else b"\r\n")
    body = _alternative(text, html, _text_part(html, "html"))
    return message_id, _head(head_lines) + _MIME + body


def compose_report(
    *,
    sender: str,
    to: str,
    subject: str,
    domain: str,
    when: datetime,
    reply_to: str | None,
    text: str,
    html: str,
    inline: tuple[bytes, str, str],
    files: Sequence[tuple[bytes, str, str, dict[str, str]]] = (),
    auto: str = "auto-generated",
    extra: Sequence[tuple[str, str]] = (),
    thread: str | None = None,
) -> tuple[str, bytes]:
    """A turn report: multipart/mixed of multipart/alternative (text; HTML
    related to the inline PNG ``inline``: bytes, content id, file name),
    then ``files`` (bytes, MIME type, file name, parameters) attached."""
    message_id, head_lines = headers(
        sender=sender,
        to=to,
        subject=subject,
        domain=domain,
        when=when,
        reply_to=reply_to,
        auto=auto,
        extra=extra,
        thread=thread,
    )
    png, cid, filename = inline
    picture = _file_part(png, "image/png", filename, {}, f"Content-ID: {cid}\r\n".encode("ascii"))
    related = _multipart("related", [_text_part(html, "html"), picture])
    parts = [_alternative(text, html, related)]
    parts += [_file_part(data, mime, name, params) for data, mime, name, params in files]
    return message_id, _head(head_lines) + _MIME + _multipart("mixed", parts)


def _head(head_lines: Sequence[tuple[str, str]]) -> bytes:
    """The headers as written, CRLF line ends: every value is ASCII and
    already folded where it must be. Not through the email package, whose
    folding writes a long address (an unsubscribe URL) as encoded words
    that no mail program reads as a URL."""
    return "".join(f"{k}: {_crlf(v)}\r\n" for k, v in head_lines).encode("ascii")


def _crlf(value: str) -> str:
    return value.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\r\n")


# -- MIME bodies, written directly ------------------------------------------------------
#
# A report is composed once per reader: through the email package's message
# objects that cost more than drawing its map. The parts are written here
# instead, each as its own bytes (Content-* headers, a blank line, the body;
# CRLF line ends: a relay reads a mail of bare LFs as one line too long).
# Every boundary holds "=_", which neither quoted-printable nor base64 ever
# writes, and a random token no text part contains (checked for the parts
# left 7bit).

_MIME = b"MIME-Version: 1.0\r\n"


def _alternative(text: str, html: str, html_part: bytes) -> bytes:
    """multipart/alternative: ``text``, then the HTML part as given."""
    return _multipart("alternative", [_text_part(text, "plain"), html_part])


def _multipart(subtype: str, parts: Sequence[bytes]) -> bytes:
    """A multipart entity of ``parts`` (each: its headers and body)."""
    while True:
        boundary = f"=_{secrets.token_hex(12)}"
        if not any(boundary.encode("ascii") in part for part in parts):
            break  # pragma: no cover - a 96-bit token is never met again
    mark = b"--" + boundary.encode("ascii")
    out = [f'Content-Type: multipart/{subtype};\r\n boundary="{boundary}"\r\n\r\n'.encode()]
    # the line end before a boundary belongs to the boundary (RFC 2046)
    for part in parts:
        out += [mark, b"\r\n", part, b"\r\n"]
    out += [mark, b"--\r\n"]
    return b"".join(out)


def _text_part(text: str, subtype: str) -> bytes:
    """A text part, UTF-8: 7bit when it is short-lined ASCII (readable as
    it is), else quoted-printable."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.endswith("\n"):
        text += "\n"
    if text.isascii() and max(map(len, text.split("\n"))) <= 78:
        cte, body = "7bit", text.encode("ascii")
    else:
        cte, body = "quoted-printable", binascii.b2a_qp(text.encode("utf-8"))
    head = (
        f'Content-Type: text/{subtype}; charset="utf-8"\r\nContent-Transfer-Encoding: {cte}\r\n\r\n'
    )
    return head.encode("ascii") + body.replace(b"\n", b"\r\n")


def _file_part(
    data: bytes, mime: str, filename: str, params: dict[str, str], extra: bytes = b""
) -> bytes:
    """An attached file: as it is when it is text of short ASCII lines
    (an SVG map, a calendar), else base64. The same map goes to every
    reader of a turn: its encoding is kept for the next one."""
    kind = mime + "".join(f'; {k}="{v}"' for k, v in params.items() if _TOKEN.fullmatch(v))
    cte, body = _encoded(data)
    head = (
        f"Content-Type: {kind}\r\nContent-Transfer-Encoding: {cte}\r\n"
        f'Content-Disposition: attachment; filename="{_filename(filename)}"\r\n'
    ).encode("ascii")
    return head + extra + b"\r\n" + body


_TOKEN = re.compile(r"[A-Za-z0-9._+-]{1,64}")


def _filename(name: str) -> str:
    """A file name as a quoted header value (ours are ASCII words)."""
    return "".join(c for c in name if c.isascii() and c.isprintable() and c not in '"\\')


_SHORT_ASCII_LINES = re.compile(rb"(?:[\t\x20-\x7e]{0,900}\r?\n)*[\t\x20-\x7e]{0,900}")


@functools.lru_cache(maxsize=16)
def _encoded(data: bytes) -> tuple[str, bytes]:
    """(Content-Transfer-Encoding, the body) of an attached file."""
    if _SHORT_ASCII_LINES.fullmatch(data):
        return "7bit", data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    return "base64", base64.encodebytes(data).replace(b"\n", b"\r\n")


_MSGID = re.compile(r"<[!-;=?-~]{1,500}>")  # printable ASCII: it goes into our headers as is


def _subject(subject: str) -> str:
    subject = " ".join(subject.replace("\r", " ").replace("\n", " ").split())[:200]
    if subject.isascii():
        return subject
    return Header(subject, "utf-8").encode()


# what a reply to mail that proved nothing says where it was cut to its size
CUT = (
    "\n\n[The rest is left out: a reply to a mail that proves nothing of its "
    "sender is never much larger than that mail. Write with your password, "
    "or reply to a mail of this server, for a full answer.]\n"
)
LEFT_OUT = (
    "\n\n[The file is left out: a reply to a mail that proves nothing of its "
    "sender is never much larger than that mail.]\n"
)


class Composer:
    """Renders the server's mails and commits them to the outbox (the
    context hands it out as ``app.queue`` and ``app.alert_master``)."""

    def queue(
        self,
        app: App,
        conn: Connection,
        kind: str,
        to: str,
        subject: str,
        template: str,
        data: dict[str, Any],
        *,
        reply_to: str | None = None,
        in_reply_to: str | None = None,
        references: tuple[str, ...] = (),
        inbox_id: int | None = None,
        auto: str = "auto-replied",
        attachments: Sequence[tuple[bytes, str, str]] = (),
        hide: Sequence[str] = (),
        game: str | None = None,
        proven: bool | None = None,
        cause: int | None = None,
    ) -> str:
        """Render a mail from templates/mail/<template>.txt.j2 and commit it
        to the outbox in the caller's transaction. Returns its Message-ID.

        The template is told ``reply_to``: a mail may say "reply to this
        mail" only when a reply does what it says (comes back to the
        player's own reply address). ``attachments``: (bytes, MIME type,
        file name) each. ``hide``: secrets (the passwords a mail carried)
        that the reply never repeats, in its subject or its text. Replies count
        toward the daily caps on replies (pbem/mail/replycap.py), in the pool
        ``proven`` names (True: the mail answered proved who sent it; None:
        the pool of its kind, replycap.slot): the
        last one says so, and those over it are held for a digest. A reply
        to mail that proved nothing is never larger than that mail
        (``cause``, its size in bytes) plus replycap.ALLOWANCE: what would
        not fit is cut. ``game``: the game the mail is about, if one (its
        list headers, pbem/mail/lists.py)."""
        text = (
            templates()
            .get_template(f"mail/{template}.txt.j2")
            .render(server=app.config.server, **{"reply_to": reply_to, **data})
        )
        subject, text = hidden(subject, hide), hidden(text, hide)
        slot = replycap.slot(app, conn, kind, to, proven)  # the daily caps on replies
        if slot == "last":
            text += replycap.LAST_NOTE.format(to=to)

        def write(text: str, attachments: Sequence[tuple[bytes, str, str]]) -> tuple[str, bytes]:
            message_id, raw = compose(
                sender=app.config.server.address,
                to=to,
                subject=subject,
                text=text,
                domain=app.domain,
                when=app.clock.now(),
                reply_to=reply_to,
                in_reply_to=in_reply_to,
                references=references,
                auto=auto,
                extra=game_headers(app, conn, game, to, kind) if game else (),
                thread=lists.thread_root(app, game) if game else None,
            )
            return message_id, _attach(raw, attachments) if attachments else raw

        message_id, raw = write(text, attachments)
        if not replycap.proven_pool(kind, proven) and kind in replycap.CAPPED:
            budget = (cause or 0) + replycap.ALLOWANCE
            if len(raw) > budget and attachments:
                text, attachments = text + LEFT_OUT, ()
                message_id, raw = write(text, attachments)
            whole, keep = text, len(text)
            while len(raw) > budget and keep > 0:  # a character may take 3 bytes (QP): again
                keep = max(0, keep - (len(raw) - budget) - len(CUT) - 64)
                message_id, raw = write(whole[:keep].rstrip() + CUT if keep else CUT, attachments)
        app.store.queue_mail(
            conn,
            kind,
            to,
            message_id,
            raw,
            app.clock.now(),
            inbox_id,
            status="held" if slot == "held" else "pending",
        )
        return message_id

    def alert_master(
        self, app: App, conn: Connection, game: str | None, subject: str, text: str
    ) -> None:
        """Tell the game master (of ``game``, or of every game)."""
        masters = {
            g.master_email
            for g in app.config.games
            if g.master_email and (game is None or g.name == game)
        }
        for address in sorted(masters):
            self.queue(
                app,
                conn,
                "alert",
                address,
                f"[pbem] {subject}",
                "alert",
                {"subject": subject, "text": text, "game": game},
                auto="auto-generated",
                game=game,
            )


def game_headers(
    app: App, conn: Connection, game: str, to: str, kind: str
) -> list[tuple[str, str]]:
    """The list headers of a mail about ``game`` to ``to``: Precedence
    and, to an observer, an unsubscribe on what goes to the whole game (a
    receipt answers the observer's own mail: it is looked up no further)."""
    posted = kind in lists.LIST_KINDS
    return lists.list_headers(
        app,
        game,
        to,
        observer=posted and lists.is_observer(app, conn, game, to),
        precedence=posted,
    )


def hidden(text: str, secrets_: Sequence[str]) -> str:
    """``text`` with every secret in it (a whole word, any case) written as
    ********. Words under six characters are left: no password the server
    makes is that short, and a wrong guess such as "wrong" is a word our
    own sentences use."""
    lowered = text.lower()
    found = {x for x in secrets_ if len(x) >= 6 and x.lower() in lowered}
    for secret in sorted(found, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(secret)}(?![\w-])", "********", text, flags=re.I)
    return text


def _attach(raw: bytes, attachments: Sequence[tuple[bytes, str, str]]) -> bytes:
    """A composed text mail with files attached (multipart/mixed)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    for data, mime, filename in attachments:
        maintype, _, subtype = mime.partition("/")
        if maintype == "text":
            msg.add_attachment(data.decode("utf-8"), subtype=subtype, filename=filename)
        else:
            msg.add_attachment(data, maintype, subtype, filename=filename)
    # CRLF: relays refuse bare LF; the headers kept as written (see _head)
    return msg.as_bytes(policy=_KEEP_HEADERS)


_KEEP_HEADERS = email.policy.SMTP.clone(refold_source="none")
