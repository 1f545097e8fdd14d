"""Mail the server writes: the headers every one of them carries.

Every mail has a Message-ID and a Date, ``Auto-Submitted`` (so that other
robots do not answer it), and ``X-Pbem-Server`` (so that a copy coming back
is recognised as our own and dropped). Replies carry In-Reply-To and
References. Addresses are checked before they reach a header or an SMTP
command: CR, LF, <, >, spaces and the like are refused.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Sequence
from datetime import datetime
from email.header import Header
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

SAFE_ADDRESS = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")


class BadAddress(ValueError):
    pass


def safe_address(address: str) -> str:
    """``address`` if it is a plain addr-spec that can go into an SMTP
    command and a header, else BadAddress."""
    if not SAFE_ADDRESS.match(address or "") or len(address) > 254:
        raise BadAddress(f"{address!r} is not a plain email address")
    return address


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
) -> tuple[str, bytes]:
    """(Message-ID, the mail's bytes). A text-only mail is written directly
    (quoted-printable UTF-8): the email package's header objects cost more
    than everything else a receipt needs."""
    message_id = make_msgid(idstring="pbem", domain=domain)
    headers = [
        ("From", f"{sender_name} <{safe_address(sender)}>"),
        ("To", safe_address(to)),
        ("Subject", _subject(subject)),
        ("Date", format_datetime(when)),
        ("Message-ID", message_id),
        ("Auto-Submitted", auto),
        ("X-Pbem-Server", domain),
    ]
    if reply_to:
        headers.append(("Reply-To", safe_address(reply_to)))
    if in_reply_to and _MSGID.fullmatch(in_reply_to):
        refs = [r for r in references if _MSGID.fullmatch(r)][-10:]
        if in_reply_to not in refs:
            refs.append(in_reply_to)
        headers.append(("In-Reply-To", in_reply_to))
        headers.append(("References", "\r\n ".join(refs)))  # folded: lines stay short
    if html is None:
        body = binascii.b2a_qp(text.replace("\r\n", "\n").encode("utf-8")).replace(b"\n", b"\r\n")
        head = "".join(f"{k}: {v}\r\n" for k, v in headers)
        head += (
            "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        )
        return message_id, head.encode("ascii") + body + (
            b"" if body.endswith(b"\r\n") else b"\r\n"
        )
    msg = EmailMessage()
    for k, v in headers:
        msg[k] = v
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    return message_id, msg.as_bytes()


_MSGID = re.compile(r"<[^<>\s]{1,500}>")


def _subject(subject: str) -> str:
    subject = " ".join(subject.replace("\r", " ").replace("\n", " ").split())[:200]
    if subject.isascii():
        return subject
    return Header(subject, "utf-8").encode()
