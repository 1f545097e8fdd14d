"""Mail the server writes: the headers every one of them carries.

Every mail has a Message-ID and a Date, ``Auto-Submitted`` (so that other
robots do not answer it), and ``X-Pbem-Server`` (so that a copy coming back
is recognised as our own and dropped). Replies carry In-Reply-To and
References. Addresses are checked before they reach a header or an SMTP
command: CR, LF, <, >, spaces and the like are refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
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
    """(Message-ID, the mail's bytes)."""
    msg = EmailMessage()
    msg["From"] = f"{sender_name} <{safe_address(sender)}>"
    msg["To"] = safe_address(to)
    msg["Subject"] = subject.replace("\r", " ").replace("\n", " ")[:200]
    msg["Date"] = format_datetime(when)
    message_id = make_msgid(idstring="pbem", domain=domain)
    msg["Message-ID"] = message_id
    msg["Auto-Submitted"] = auto
    msg["X-Pbem-Server"] = domain
    if reply_to:
        msg["Reply-To"] = safe_address(reply_to)
    if in_reply_to and re.fullmatch(r"<[^<>\s]+>", in_reply_to):
        msg["In-Reply-To"] = in_reply_to
        refs = [r for r in references if re.fullmatch(r"<[^<>\s]+>", r)][-10:]
        msg["References"] = " ".join([*refs, in_reply_to] if in_reply_to not in refs else refs)
    msg.set_content(text)
    if html is not None:
        msg.add_alternative(html, subtype="html")
    return message_id, msg.as_bytes()
