"""Reading a stored mail: who sent it, whether it is automatic, and the new
lines of its text.

Built on the standard library's ``email`` package with the modern policy,
every header bounded before its parser sees it (pbem/mail/headers.py).
Nothing here raises on bad input: whatever could not be read becomes a
note that the reply shows ("part 2 has an unknown charset 'x-foo'").
Mail too complex to read in the time budget (too many parts, too deep) is
refused before the parser sees it. A bounce (or any mail to a bounce
address) is read by flufl.bounce's detectors: which addresses failed for
good, which were only delayed (``read_failures``).
"""

from __future__ import annotations

import email
import email.parser
import email.policy
import functools
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from email.headerregistry import Address
from email.message import Message
from typing import Any

from pbem.mail.body import body_text, split_lines
from pbem.mail.headers import POLICY, readable
from pbem.mail.parsed import MAX_DEPTH, MAX_HEADERS, MAX_PARTS, PARSE_SECONDS, ParsedMail

MAX_HEAD = 16_000  # octets of a bounce's head that its detectors read
MAX_BOUNCE = 64_000  # octets of a bounce that its detectors read

_ADDR_SPEC = re.compile(r"^[^\s<>@\"\\,;:()\[\]]+@[A-Za-z0-9.-]+$")


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
    if raw is None or not readable("From", str(raw), structured=True):
        return None  # longer, or stranger, than any From: a person writes
    return _from_header(str(raw))


@functools.lru_cache(maxsize=4096)
def _from_header(raw: str) -> str | None:
    """A From: header's addr-spec through the modern policy's header
    registry; remembered, as players write from the same header again and
    again and parsing it costs more than the rest of reading a mail."""
    try:
        header = POLICY.header_fetch_parse("From", raw)
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


def parse_mail(
    raw: bytes,
    envelope_from: str = "",
    budget: float = PARSE_SECONDS,
    bounce_address: bool = False,
) -> ParsedMail:
    """Read a stored mail: its line endings normalised, then the limits
    checked (over one, only the headers are read: whether the mail is
    automatic, and whom to tell), then, within ``budget`` seconds where the
    process can bound it, the whole mail, parsed once. A mail to one of our
    bounce addresses (``bounce_address``) is read as a possible bounce
    whoever sent it. What it cost (CPU time of this thread) is ``cpu``."""
    started = time.thread_time()
    out = _parse_mail(raw, envelope_from, budget, bounce_address)
    out.cpu = time.thread_time() - started
    return out


def _parse_mail(raw: bytes, envelope_from: str, budget: float, bounce_address: bool) -> ParsedMail:
    out = ParsedMail()
    text = normalise(raw)
    reason = complexity(text)
    if reason:
        _head_only(text, envelope_from, out)
        out.too_complex = reason
        return out
    # the same bound, kept by the reading itself where no timer can (threads)
    until = time.thread_time() + budget if budget > 0 else None
    try:
        within(budget, lambda: _read(text, envelope_from, out, bounce_address, until))
    except ReadTimeout:
        fresh = ParsedMail()
        _head_only(text, envelope_from, fresh)
        fresh.too_complex = "it takes too long to read"
        return fresh
    return out


def _head_only(text: bytes, envelope_from: str, out: ParsedMail) -> None:
    head = text.split(b"\n\n", 1)[0][:256_000] + b"\n\n"
    _read_headers(email.message_from_bytes(head, policy=POLICY), out)
    out.bounce, out.auto = automatic(envelope_from, out)
    out.loop = "x-pbem-server" in out.headers


def _read(
    text: bytes, envelope_from: str, out: ParsedMail, bounce_address: bool, until: float | None
) -> None:
    try:
        policy = POLICY if until is None else POLICY.clone(until=until)
        msg = email.message_from_bytes(text, policy=policy)
    except Exception as exc:  # the parser is lenient; this is belt and braces
        _head_only(text, envelope_from, out)
        out.notes.append(f"the mail could not be parsed ({type(exc).__name__})")
        return
    # The mail's own headers decide whether and whom to answer: read in
    # full, whatever the budget (their size and syntax are bounded by the
    # limits alone); a budget spent before them must not blank a From or
    # an out-of-office Subject. The parts' headers keep the bounded policy.
    msg.policy = POLICY
    _read_headers(msg, out)
    out.bounce, out.auto = automatic(envelope_from, out)
    out.loop = "x-pbem-server" in out.headers
    if out.bounce or bounce_address:
        read_failures(text, out)
        if out.failure in ("permanent", "temporary") and not out.bounce:
            out.bounce, out.auto = f"a report of a {out.failure} delivery failure", None
    if out.bounce:
        out.bounced_ids = _bounced_ids(msg)
        return
    if out.auto:
        return
    body, source = body_text(msg, out, until)
    out.source = source
    split_lines(body, out)


class ReadTimeout(BaseException):
    """Reading one mail took more CPU time than its budget (a BaseException:
    the parser's own ``except Exception`` must not swallow it)."""


_clock_set = False  # read_clock() has set the alarm's handler


_armed = False  # within() has a read under way: a late alarm after it is ignored


def _expired(_signum: int, _frame: Any) -> None:
    # Python runs a signal's handler between bytecodes, maybe after the
    # timer was disarmed: an alarm that fires once the read is over must
    # not raise into whatever the worker does next.
    if _armed:
        raise ReadTimeout


def _timers() -> bool:
    """Whether a read can be bounded here: the main thread of a process
    with interval timers (the worker process of `pbem serve`)."""
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


@contextmanager
def read_clock() -> Iterator[None]:
    """The alarm that bounds each read, set up once for a batch of mails
    (within() then only arms and disarms it) and put back afterwards."""
    if not _timers():
        yield
        return
    global _clock_set
    previous = signal.signal(signal.SIGPROF, _expired)
    _clock_set = True
    try:
        yield
    finally:
        _clock_set = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def within(seconds: float, work: Callable[[], None]) -> None:
    """Run ``work``, interrupted with ReadTimeout once the process has spent
    ``seconds`` of CPU time on it (the profiling timer: the worker, niced
    below the SMTP side, may wait for a core, and waiting costs a mail
    nothing), where a read can be bounded (see _timers); elsewhere the
    limits alone bound it."""
    if not _timers() or seconds <= 0:
        work()
        return
    global _armed
    with nullcontext() if _clock_set else read_clock():
        _armed = True
        signal.setitimer(signal.ITIMER_PROF, seconds)
        try:
            work()
        finally:
            _armed = False
            signal.setitimer(signal.ITIMER_PROF, 0)


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


def read_failures(text: bytes, out: ParsedMail) -> None:
    """What a bounce reports, by flufl.bounce's detectors (RFC 3464 DSNs and
    the non-standard formats of many mail systems): the addresses that
    failed for good and those delayed; and, when the library names no
    address, the Action fields of the DSN itself. Never raises: a detector
    that fails on a mangled bounce leaves the bounce unread, and so does
    a head longer than any mail system writes. The detectors' work grows
    with what they read (1 MB of From:, or of address lines, costs them
    seconds), so they read the first MAX_BOUNCE octets: the report comes
    before the mail it returns."""
    from flufl.bounce import all_failures  # imported by the first bounce read

    if len(text.split(b"\n\n", 1)[0]) > MAX_HEAD:
        return
    try:
        msg = email.message_from_bytes(text[:MAX_BOUNCE])  # the classic policy, as they expect
        temporary, permanent = all_failures(msg)
        actions = _dsn_actions(msg)
    except Exception:
        return
    out.failed = _addresses(permanent)
    out.delayed = _addresses(temporary)
    if permanent or any(a.startswith(("fail", "error")) for a in actions):
        out.failure = "permanent"
    elif temporary or any(a.startswith("delayed") for a in actions):
        out.failure = "temporary"
    elif actions:
        out.failure = "none"  # delivered, relayed, expanded: not a failure


def read_failures_within(text: bytes, out: ParsedMail, budget: float = PARSE_SECONDS) -> None:
    """read_failures, cut off (reading nothing) after ``budget`` seconds of
    CPU time where a read can be bounded."""
    try:
        within(budget, lambda: read_failures(text, out))
    except ReadTimeout:
        out.failed, out.delayed, out.failure = (), (), None


def bounced_ids(raw: bytes) -> tuple[str, ...]:
    """The Message-IDs a bounce names (see _bounced_ids); never raises."""
    try:
        return _bounced_ids(email.message_from_bytes(raw, policy=POLICY))
    except Exception:
        return ()


def _addresses(found: set[bytes]) -> tuple[str, ...]:
    return tuple(sorted({a.decode("ascii", "replace").lower() for a in found}))[:50]


def _dsn_actions(msg: Message) -> list[str]:
    """The Action of every recipient block of a DSN's delivery-status parts."""
    actions: list[str] = []
    for part in msg.walk():
        if part.get_content_type() != "message/delivery-status" or not part.is_multipart():
            continue
        for block in part.get_payload():
            if isinstance(block, Message) and block.get("action"):
                actions.append(str(block.get("action")).strip().lower())
    return actions


_RETURNED = ("message/rfc822", "text/rfc822-headers", "message/rfc822-headers")


def _bounced_ids(msg: Message) -> tuple[str, ...]:
    """Message-IDs a bounce refers to: in the headers of the returned mail
    (read by the header parser), in a text part that quotes them, and in
    the bounce's own In-Reply-To and References."""
    found: list[str] = []
    try:
        for part in msg.walk():
            ctype = part.get_content_type()
            if ctype in _RETURNED:
                found += _returned_ids(part)
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


def _returned_ids(part: Message) -> list[str]:
    """The Message-ID of a returned mail or of its returned headers."""
    payload = part.get_payload()
    if isinstance(payload, list):  # message/rfc822: the mail, parsed
        heads = [p for p in payload if isinstance(p, Message)]
    else:
        text = payload if isinstance(payload, str) else str(payload)
        heads = [email.parser.HeaderParser(policy=email.policy.compat32).parsestr(text)]
    ids = []
    for head in heads:
        value = str(head.get("message-id", "") or "").strip()
        if value.startswith("<") and value.endswith(">") and " " not in value:
            ids.append(value)
    return ids
