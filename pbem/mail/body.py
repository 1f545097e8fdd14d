"""A mail's body: the text part (or the HTML one as text), decoded within
the limits, and its new lines: quoted replies, signatures and what follows
END are set aside."""

from __future__ import annotations

import re
import time
from email.message import Message
from html.parser import HTMLParser

from pbem.mail.parsed import MAX_DECODED, MAX_PARTS, MAX_TEXT, ParsedMail

HTML_PIECE = 32_000  # characters of HTML read between two looks at the clock
SLOW = "the mail takes too long to read"


def _decode(part: Message, out: ParsedMail, where: str) -> str | None:
    encoded = part.get_payload(decode=False)
    if isinstance(encoded, str) and len(encoded) > MAX_DECODED * 2:
        out.notes.append(f"{where} is over {MAX_DECODED // 2**20} MB; it was not read")
        return None
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        out.notes.append(f"{where} could not be decoded")
        return None
    if payload is None:
        return None
    if len(payload) > MAX_DECODED:
        out.notes.append(f"{where} is over {MAX_DECODED // 2**20} MB once decoded; it was not read")
        return None
    if not isinstance(payload, bytes):
        payload = str(payload).encode("utf-8", "replace")
    charset = None
    try:
        charset = part.get_content_charset()
    except Exception:
        pass
    if charset:
        try:
            return payload.decode(charset, errors="replace")
        except LookupError:
            out.notes.append(
                f"{where} declares an unknown charset {charset!r}; it was read as UTF-8"
            )
        except Exception:
            out.notes.append(f"{where} could not be decoded as {charset!r}; it was read as UTF-8")
        return payload.decode("utf-8", errors="replace")
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return payload.decode("cp1252", errors="replace")


def body_text(msg: Message, out: ParsedMail, until: float | None = None) -> tuple[str, str]:
    """The mail's text and where it came from (plain, html, none), read
    part by part until this thread's CPU clock reaches ``until``."""
    plain: str | None = None
    html: str | None = None
    attachments = 0
    count = 0
    try:
        parts = list(msg.walk())
    except Exception:
        out.notes.append("the MIME structure could not be read")
        parts = [msg]
    for part in parts:
        count += 1
        if until is not None and time.thread_time() > until:
            out.notes.append(f"parts {count} and after were not read: {SLOW}")
            break
        if count > MAX_PARTS:
            out.notes.append(f"only the first {MAX_PARTS} parts were read")
            break
        try:
            if part.is_multipart():
                continue
            ctype = part.get_content_type()
            disposition = (part.get_content_disposition() or "").lower()
        except Exception:
            out.notes.append(f"part {count} could not be read")
            continue
        if ctype.startswith("multipart/"):
            # declared multipart but unreadable as one (no boundary): the
            # body is all there is, so read it as text
            out.notes.append(
                f"part {count} says it is {ctype} but has no parts; it was read as text"
            )
            ctype = "text/plain"
        elif disposition == "attachment" or not ctype.startswith("text/"):
            attachments += 1
            continue
        if ctype == "text/plain" and plain is None:
            plain = _decode(part, out, f"part {count}")
        elif ctype == "text/html" and html is None:
            html = _decode(part, out, f"part {count}")
    if attachments:
        out.notes.append(f"{attachments} attachment(s) or non-text part(s) ignored")
    if plain is not None and plain.strip():
        return plain, "plain"
    if html is not None:
        return html_to_text(html, until, out), "html"
    if plain is not None:
        return plain, "plain"
    if attachments:
        out.notes.append("there is no text part to read orders from")
    return "", "none"


class _HtmlText(HTMLParser):
    BLOCK = {
        "p",
        "div",
        "br",
        "li",
        "tr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "blockquote",
        "table",
        "ul",
        "ol",
        "hr",
    }

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.quote = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("script", "style", "head"):
            self.skip += 1
        if tag == "blockquote":
            self.quote += 1
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head") and self.skip:
            self.skip -= 1
        if tag == "blockquote" and self.quote:
            self.quote -= 1
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.quote:  # quoted earlier mail, as in a reply
            data = "\n".join("> " + line if line.strip() else line for line in data.split("\n"))
        self.parts.append(data)


def html_to_text(html: str, until: float | None = None, out: ParsedMail | None = None) -> str:
    """The text of an HTML mail, a line per block; blockquotes marked as
    quotes so they are never read as orders. Read a piece at a time, up
    to ``until`` on this thread's CPU clock (what was read is kept)."""
    parser = _HtmlText()
    html = html[: MAX_TEXT * 5]
    try:
        for start in range(0, len(html), HTML_PIECE):
            if sum(map(len, parser.parts)) >= MAX_TEXT:
                break  # as much text as is ever read (split_lines)
            if until is not None and time.thread_time() > until:
                if out is not None:
                    out.notes.append(f"the HTML was read only in part: {SLOW}")
                break
            parser.feed(html[start : start + HTML_PIECE])
        parser.close()
    except Exception:
        pass
    text = "".join(parser.parts).replace("\xa0", " ")
    lines = [
        " ".join(line.split()) if not line.startswith(">") else line.rstrip()
        for line in text.split("\n")
    ]
    return "\n".join(lines)


# Where the quoted part of a reply begins
_WROTE = re.compile(
    r"^(on\s.+|le\s.+|am\s.+|el\s.+|op\s.+)\b(wrote|a écrit|schrieb|escribió|"
    r"schreef)\s*:\s*$",
    re.I,
)
_WROTE_END = re.compile(r"(wrote|a écrit|schrieb|escribió|schreef)\s*:\s*$", re.I)
_ORIGINAL = re.compile(
    r"^-{2,}\s*(original message|forwarded message|ursprüngliche nachricht)"
    r"\s*-{2,}$",
    re.I,
)
_OUTLOOK_FROM = re.compile(r"^(from|von|de)\s*:\s*\S", re.I)
_OUTLOOK_NEXT = re.compile(r"^(sent|date|gesendet|envoyé|to|subject)\s*:", re.I)


_PGP_SIGNED = "-----BEGIN PGP SIGNED MESSAGE-----"
_PGP_SIGNATURE = "-----BEGIN PGP SIGNATURE-----"


def _clearsigned(lines: list[str], out: ParsedMail) -> set[int]:
    """A PGP clear-signed text (RFC 4880, 7): the indexes of its armour
    lines (the BEGIN line and its Hash: headers) to set aside; dash-escaped
    lines ("- text") are given back as written. The signature itself is
    set aside where the text ends (see split_lines); it is not checked."""
    begin = next((i for i, line in enumerate(lines) if line.strip() == _PGP_SIGNED), None)
    if begin is None:
        return set()
    armour = {begin}
    i = begin + 1
    while i < len(lines) and lines[i].strip():
        armour.add(i)  # Hash: SHA256 and the like, up to the blank line
        i += 1
    for j in range(i, len(lines)):
        if lines[j].strip() == _PGP_SIGNATURE:
            break
        if lines[j].startswith("- "):
            lines[j] = lines[j][2:]
    out.notes.append("it was signed with PGP; the signature was not checked")
    return armour


def split_lines(text: str, out: ParsedMail) -> None:
    """Keep the new lines of a mail; set aside quotes (>), a quoted earlier
    mail (On ... wrote:, -----Original Message-----, an Outlook header
    block, a line of underscores), the signature after "-- " or a PGP
    signature, PGP clear-signing's armour, and all after a line END."""
    text = text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")[:MAX_TEXT]
    lines = text.split("\n")
    armour = _clearsigned(lines, out)
    stop: int | None = None
    for i, line in enumerate(lines):
        s = line.strip()
        if s.upper() == "END" or line in ("-- ", "--") or _ORIGINAL.match(s) or s == _PGP_SIGNATURE:
            stop = i
            break
        if re.fullmatch(r"_{10,}", s):
            stop = i
            break
        if _WROTE.match(s):
            stop = i
            break
        low = s.lower()
        if low.startswith(("on ", "le ", "am ")) and any(
            _WROTE_END.search(lines[j].strip()) for j in range(i + 1, min(i + 3, len(lines)))
        ):
            stop = i
            break
        if _OUTLOOK_FROM.match(s) and any(
            _OUTLOOK_NEXT.match(lines[j].strip()) for j in range(i + 1, min(i + 4, len(lines)))
        ):
            stop = i
            break
    for i, line in enumerate(lines):
        number = i + 1
        if stop is not None and i >= stop:
            if line.strip():
                out.ignored.append((number, line))
            continue
        if line.lstrip().startswith(">") or i in armour:
            out.ignored.append((number, line))
            continue
        out.lines.append((number, line.rstrip()))
