"""Reading a stored mail: who sent it, whether it is automatic, and the new
lines of its text.

Built on the standard library's ``email`` package with the modern policy.
Nothing here raises on bad input: whatever could not be read becomes a
note that the reply shows ("part 2 has an unknown charset 'x-foo'").
Mail too complex to read in the time budget (too many parts, too deep) is
refused before the parser sees it.
"""

from __future__ import annotations

import email
import email.policy
import functools
import re
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from email.headerregistry import Address
from email.message import Message
from html.parser import HTMLParser
from typing import Any

MAX_PARTS = 500  # MIME parts read; more is "too complex"
MAX_DEPTH = 20  # nesting of multiparts
MAX_HEADERS = 500  # header lines of the mail itself
MAX_DECODED = 4 * 2**20  # octets of one part once decoded; a larger part is not read
MAX_TEXT = 200_000  # characters of body text used for orders
PARSE_SECONDS = 0.5  # the longest one mail may take to read (where it can be bounded)

_ADDR_SPEC = re.compile(r"^[^\s<>@\"\\,;:()\[\]]+@[A-Za-z0-9.-]+$")


@dataclass
class ParsedMail:
    """What processing needs from a mail."""

    from_addr: str | None = None  # the addr-spec, lower-case domain; never the display name
    subject: str = ""
    message_id: str | None = None
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    auto: str | None = None  # why it is automatic mail, if it is
    bounce: str | None = None  # why it is a bounce, if it is
    bounced_ids: tuple[str, ...] = ()  # Message-IDs the bounce names
    loop: bool = False  # carries our own server mark
    lines: list[tuple[int, str]] = field(default_factory=list)  # (line number, text) kept
    ignored: list[tuple[int, str]] = field(default_factory=list)  # quoted, signature, after END
    source: str = "none"  # plain, html, none
    notes: list[str] = field(default_factory=list)  # what could not be read
    too_complex: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


def _addr_spec(value: str) -> str | None:
    value = value.strip()
    if not value or any(c in value for c in "\r\n\x00"):
        return None
    if not _ADDR_SPEC.match(value):
        return None
    local, _, domain = value.rpartition("@")
    return f"{local}@{domain.lower()}"


def sender_address(msg: Message) -> str | None:
    """The From: addr-spec, from the parsed header object (the display name
    never decides who sent it); None if absent, several, or unreadable."""
    try:
        raw = next((v for k, v in msg.raw_items() if k.lower() == "from"), None)
    except Exception:
        return None
    if raw is None:
        return None
    return _from_header(str(raw))


@functools.lru_cache(maxsize=4096)
def _from_header(raw: str) -> str | None:
    """A From: header's addr-spec through the modern policy's header
    registry; remembered, as players write from the same header again and
    again and parsing it costs more than the rest of reading a mail."""
    try:
        header = email.policy.default.header_fetch_parse("From", raw)
    except Exception:  # a header the registry cannot parse at all
        return None
    addresses = getattr(header, "addresses", None)
    if addresses is None or len(addresses) != 1:
        return None
    a = addresses[0]
    if not isinstance(a, Address) or not a.username or not a.domain:
        return None
    return _addr_spec(a.addr_spec)


def normalise(raw: bytes) -> bytes:
    """Line endings as the parser will count them: CRLF and a bare CR are
    each one line end. The limits are checked on this form, so a mail whose
    lines end in bare CR cannot slip past them."""
    if b"\r" not in raw:
        return raw
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


_MULTIPART = re.compile(rb"(?im)^content-type:\s*multipart/")


def complexity(text: bytes) -> str | None:
    """A cheap look before parsing (``text`` normalised): more MIME
    boundary lines than MAX_PARTS allows, more multipart declarations than
    MAX_DEPTH, or more header lines than MAX_HEADERS make a mail too
    complex to read. Linear in the size, whatever the mail holds."""
    if text.count(b"\n--") > 2 * MAX_PARTS + 10:
        return f"it has more than {MAX_PARTS} parts"
    if len(_MULTIPART.findall(text)) > MAX_DEPTH * 2:
        return f"it nests more than {MAX_DEPTH} multipart levels"
    head = text.split(b"\n\n", 1)[0]
    if head.count(b"\n") > MAX_HEADERS:
        return f"it has more than {MAX_HEADERS} header lines"
    return None


def parse_mail(raw: bytes, envelope_from: str = "", budget: float = PARSE_SECONDS) -> ParsedMail:
    """Read a stored mail: its line endings normalised, then the limits
    checked (over one, only the headers are read: whether the mail is
    automatic, and whom to tell), then, within ``budget`` seconds where the
    process can bound it, the whole mail, parsed once."""
    out = ParsedMail()
    text = normalise(raw)
    reason = complexity(text)
    if reason:
        _head_only(text, envelope_from, out)
        out.too_complex = reason
        return out
    try:
        within(budget, lambda: _read(text, envelope_from, out))
    except ReadTimeout:
        fresh = ParsedMail()
        _head_only(text, envelope_from, fresh)
        fresh.too_complex = "it takes too long to read"
        return fresh
    return out


def _head_only(text: bytes, envelope_from: str, out: ParsedMail) -> None:
    head = text.split(b"\n\n", 1)[0][:256_000] + b"\n\n"
    _read_headers(email.message_from_bytes(head, policy=email.policy.default), out)
    out.bounce, out.auto = automatic(envelope_from, out)
    out.loop = "x-pbem-server" in out.headers


def _read(text: bytes, envelope_from: str, out: ParsedMail) -> None:
    try:
        msg = email.message_from_bytes(text, policy=email.policy.default)
    except Exception as exc:  # the parser is lenient; this is belt and braces
        _head_only(text, envelope_from, out)
        out.notes.append(f"the mail could not be parsed ({type(exc).__name__})")
        return
    _read_headers(msg, out)
    out.bounce, out.auto = automatic(envelope_from, out)
    out.loop = "x-pbem-server" in out.headers
    if out.bounce:
        out.bounced_ids = _bounced_ids(msg)
        return
    if out.auto:
        return
    body, source = _body_text(msg, out)
    out.source = source
    _split_lines(body, out)


class ReadTimeout(BaseException):
    """Reading one mail took longer than its budget (a BaseException: the
    parser's own ``except Exception`` must not swallow it)."""


def within(seconds: float, work: Callable[[], None]) -> None:
    """Run ``work``, interrupted with ReadTimeout after ``seconds`` when this
    is the main thread of a process with an interval timer (the worker
    process of `pbem serve`); elsewhere the limits alone bound it."""
    main = threading.current_thread() is threading.main_thread()
    if not main or not hasattr(signal, "setitimer") or seconds <= 0:
        work()
        return

    def expired(_signum: int, _frame: Any) -> None:
        raise ReadTimeout

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:
        return ""
    if value is None:
        return ""
    try:
        return _readable(str(value)).strip()
    except Exception:
        return ""


def _subject(msg: Message) -> str:
    """The Subject: as written when it is plain ASCII (most are), else
    decoded through the modern policy's header object (RFC 2047)."""
    try:
        raw = next((v for k, v in msg.raw_items() if k.lower() == "subject"), None)
    except Exception:
        raw = None
    if isinstance(raw, str) and raw.isascii() and "=?" not in raw:
        return raw.replace("\r", "").replace("\n", "").replace("\x00", "").strip()
    return _header(msg, "Subject")


_PLAIN_HEADERS = (
    "message-id",
    "in-reply-to",
    "references",
    "auto-submitted",
    "precedence",
    "x-autoreply",
    "x-autorespond",
    "x-auto-response-suppress",
    "list-id",
    "content-type",
    "from",
    "x-pbem-server",
    "authentication-results",
    "date",
)


def _readable(text: str) -> str:
    """Text safe to store and show: undecodable bytes (kept by the parser as
    surrogates) become U+FFFD, null bytes go."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace").replace("\x00", "")


def _read_headers(msg: Message, out: ParsedMail) -> None:
    """From and Subject through the modern policy's header objects (RFC 2047,
    address syntax); the headers that are only compared, as their raw text
    (parsing every header object costs more than all the rest)."""
    out.from_addr = sender_address(msg)
    out.subject = _subject(msg)[:500]
    raw: dict[str, str] = {}
    try:
        for name, value in msg.raw_items():
            key = name.lower()
            if key in _PLAIN_HEADERS and key not in raw:
                raw[key] = " ".join(_readable(str(value)).split())[:1000]
    except Exception:
        pass
    out.message_id = raw.get("message-id", "")[:500] or None
    out.in_reply_to = raw.get("in-reply-to", "")[:500] or None
    out.references = tuple(raw.get("references", "").split())[:50]
    out.headers.update({k: v for k, v in raw.items() if v})


_DAEMONS = ("mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon")
# the subjects of out-of-office and other automatic replies, in the
# languages players write in, at the start of the subject (after Re: and the like)
_AUTO_SUBJECT = re.compile(
    r"^\s*((re|aw|sv|vs|antw|r|rif|odp|ynt)\s*:\s*)*("
    r"out of (the )?office|automatic reply|auto[- ]?reply|autoreply|auto[- ]?response|"
    r"automatic response|away from (the )?office|on vacation|vacation reply|"
    r"abwesenheitsnotiz|automatische antwort|abwesend|"
    r"r[ée]ponse automatique|absence du bureau|absent du bureau|message d'absence|"
    r"respuesta autom[áa]tica|fuera de la oficina|"
    r"risposta automatica|fuori sede|fuori ufficio|"
    r"automatisch antwoord|afwezig|"
    r"resposta autom[áa]tica|ausente do escrit[óo]rio|"
    r"automatiskt svar|autosvar|fr[åa]nvaro|automatisk svar|frav[æa]r|"
    r"poza biurem|automatyczna odpowied[źz]|"
    r"automaattinen vastaus|poissa toimistolta|"
    r"otomatik yan[ıi]t|"
    r"автоответ|автоматический ответ|"
    r"自動応答|自动回复"
    r")",
    re.I,
)


def is_daemon(address: str) -> bool:
    """A mail system's own address (MAILER-DAEMON, postmaster): never answered."""
    return address.strip().strip("<>").partition("@")[0].lower() in _DAEMONS


def automatic(envelope_from: str, out: ParsedMail) -> tuple[str | None, str | None]:
    """The one predicate that decides whether a mail must never be answered:
    (why it is a bounce, why it is automatic), each None if not. Every path
    that replies to mail asks it first (through ParsedMail.bounce/auto).

    Bounces: an empty envelope sender or a daemon's (MAILER-DAEMON,
    postmaster), a daemon in From, a delivery report. Automatic: our own
    mail come back, Auto-Submitted other than "no", Precedence
    bulk/junk/list, List-Id, the auto-reply headers (X-Autoreply,
    X-Autorespond, X-Auto-Response-Suppress), an out-of-office Subject."""
    h = out.headers
    sender = envelope_from.strip().strip("<>").lower()
    local = (out.from_addr or "").partition("@")[0].lower()
    if not sender:
        bounce: str | None = "empty envelope sender"
    elif sender.split("@")[0] in _DAEMONS:
        bounce = f"sent by {sender}"
    elif local in _DAEMONS or any(d in h.get("from", "").lower() for d in _DAEMONS[:1]):
        bounce = f"From: {out.from_addr or h.get('from', '')}"
    elif "multipart/report" in h.get("content-type", "").lower():
        bounce = "a delivery report"
    else:
        bounce = None
    if bounce:
        return bounce, None
    return None, _automatic_reason(h, out.subject)


def _automatic_reason(h: dict[str, str], subject: str) -> str | None:
    auto = h.get("auto-submitted", "").lower()
    precedence = h.get("precedence", "").lower()
    if "x-pbem-server" in h:
        return "our own mail came back"
    if auto and auto.split(";")[0].strip() != "no":
        return f"Auto-Submitted: {auto}"
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    for name in ("x-autoreply", "x-autorespond", "x-auto-response-suppress"):
        if name in h:
            return f"an auto-reply ({name})"
    if "list-id" in h:
        return "mailing list traffic"
    if _AUTO_SUBJECT.match(subject):
        return f"an automatic reply (Subject: {subject[:60]})"
    return None


def _bounced_ids(msg: Message) -> tuple[str, ...]:
    """Message-IDs a bounce refers to: in its headers or the returned headers."""
    found: list[str] = []
    try:
        for part in msg.walk():
            ctype = part.get_content_type()
            if ctype in ("message/rfc822", "text/rfc822-headers", "message/rfc822-headers"):
                payload = part.get_payload(decode=False)
                text = payload if isinstance(payload, str) else str(payload)
                found += re.findall(r"(?im)^message-id:\s*(<[^>\s]+>)", text)
            elif ctype == "text/plain":
                body = part.get_payload(decode=True) or b""
                found += [
                    m.decode("ascii", "replace")
                    for m in re.findall(rb"(?im)^message-id:\s*(<[^>\s]+>)", body)
                ]
    except Exception:
        pass
    for name in ("In-Reply-To", "References"):
        found += re.findall(r"<[^>\s]+>", _header(msg, name))
    return tuple(dict.fromkeys(found))[:20]


# ----------------------------------------------------------------------------
# The body


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


def _body_text(msg: Message, out: ParsedMail) -> tuple[str, str]:
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
        return html_to_text(html), "html"
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


def html_to_text(html: str) -> str:
    """The text of an HTML mail, a line per block; blockquotes marked as
    quotes so they are never read as orders."""
    parser = _HtmlText()
    try:
        parser.feed(html[: MAX_TEXT * 5])
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


def _split_lines(text: str, out: ParsedMail) -> None:
    """Keep the new lines of a mail; set aside quotes (>), a quoted earlier
    mail (On ... wrote:, -----Original Message-----, an Outlook header
    block, a line of underscores), the signature after "-- ", and all after
    a line END."""
    text = text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")[:MAX_TEXT]
    lines = text.split("\n")
    stop: int | None = None
    for i, line in enumerate(lines):
        s = line.strip()
        if s.upper() == "END" or line in ("-- ", "--") or _ORIGINAL.match(s):
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
        if line.lstrip().startswith(">"):
            out.ignored.append((number, line))
            continue
        out.lines.append((number, line.rstrip()))
