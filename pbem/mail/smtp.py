"""The inbound SMTP (and LMTP) server: a thin handler over aiosmtpd.

- RCPT: addresses that are not ours are refused with 550; too many
  recipients with 452.
- DATA: the raw bytes are committed to the spool, then 250 is answered.
  Commits are grouped: every mail that arrived in one turn of the event
  loop is stored in one transaction, one fsync for all, and each session
  gets its 250 after that commit (see Committer).
- Any fault of ours (storage down, a bug) answers 451: the sender keeps the
  mail and tries again. No exception text ever reaches the client.
- Limits: message size (552), recipients, commands of one kind per session
  (421), concurrent connections (421 at once), idle timeout; lines longer
  than 1,000 octets are accepted.
- Each mail is stored with the address of the connection it came over
  (``peer``): an Authentication-Results header counts only on mail from
  the trusted relay's addresses (pbem/mail/auth.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import logging
import re
from collections.abc import Callable
from typing import Any

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbem.app import App
from pbem.serving.trouble import Trouble
from pbem.store import SpoolWriter, Store, StoreError

log = logging.getLogger("pbem.smtp")

TEMPFAIL = "451 4.3.0 Temporary local problem, please try again later"
# (no control character: PostgreSQL's text holds no NUL, and a Message-ID has none)
_MESSAGE_ID = re.compile(rb"(?im)^message-id:[ \t]*(<[^>\x00-\x1f\x7f]{1,500}>)")


class Committer:
    """Commits received mail in groups, on the event loop itself.

    Every DATA of one loop turn joins a group; the group is written in one
    transaction, one fsync, and each session gets its 250 after that
    commit. Working on the loop avoids handing each mail to another thread
    and back (a thread switch can cost milliseconds under load); the write
    itself takes a fraction of a millisecond. When another process holds
    the write lock, the group waits on the loop in short steps, never
    blocking it, and after ``MAX_WAIT`` seconds the sessions get 451.
    """

    MAX_WAIT = 20.0
    STEP = 0.0005

    def __init__(self, app: App) -> None:
        self.app = app
        # the spool, through a store of its own that never waits inside SQLite
        spool = Store(app.store.spool_url, wait_in_python=True, timeouts=app.store.timeouts)
        self.spool = SpoolWriter(spool)
        self._pending: list[tuple[dict[str, Any], asyncio.Future]] = []
        self._scheduled = False
        self._waiting_since: float | None = None
        self.commits = 0  # groups committed
        self.committed = 0  # mails in them
        self.largest = 0  # the largest group
        self.trouble = Trouble(app, "the SMTP side storing received mail")

    def submit(self, mail: dict[str, Any]) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._pending.append((mail, future))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        return future

    def stats(self) -> str:
        """How the group commit went: mails, commits, group sizes."""
        mean = self.committed / self.commits if self.commits else 0.0
        return (
            f"accepted {self.committed} mail(s) in {self.commits} commit(s): "
            f"{mean:.1f} a commit on average, at most {self.largest}"
        )

    def stop(self) -> None:
        for _, fut in self._pending:
            if not fut.done():
                fut.set_exception(StoreError("server stopping"))
        self._pending = []
        self.spool.close()

    def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        self._scheduled = False
        batch = [(m, f) for m, f in self._pending if not f.cancelled()]
        self._pending = []
        if not batch:
            return
        try:
            self.app.fault("store_down", StoreError("fault injected: store_down"))
            ids = self.spool.try_store([m for m, _ in batch])
        except Exception as exc:  # every session of the group answers 451
            self.trouble.failed(exc)  # said once, then with a count; a full disk at once
            self._waiting_since = None
            for _, fut in batch:
                if not fut.done():
                    fut.set_exception(StoreError("storage failed"))
            return
        if ids is None:  # the lock is taken: try again shortly, with any newcomers
            now = loop.time()
            self._waiting_since = self._waiting_since or now
            if now - self._waiting_since > self.MAX_WAIT:
                self._waiting_since = None
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(StoreError("storage locked too long"))
                return
            self._pending[:0] = batch
            if not self._scheduled:
                self._scheduled = True
                loop.call_later(self.STEP, self._flush)
            return
        self._waiting_since = None
        self.trouble.worked()
        self.commits += 1
        self.committed += len(batch)
        self.largest = max(self.largest, len(batch))
        for (_, fut), result in zip(batch, ids, strict=True):
            if not fut.done():
                fut.set_result(result)


SHUTDOWN = b"421 4.3.2 Service shutting down, try again later\r\n"


class Gate:
    """Holds the open sessions, counted against a cap; on a stop, closes
    those a client keeps open (a relay caches its connection between mails)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.sessions: set[SMTP] = set()
        self.closing = False  # a stop is under way: a connection made now is dropped

    @property
    def open(self) -> int:
        return len(self.sessions)

    async def close(self, timeout: float = 5.0) -> None:
        """Say 421 to every open session and close it; wait (at most
        ``timeout`` seconds) until each is gone, its socket closed. A
        connection the listening socket took just before it closed, whose
        session starts only now, is dropped as it starts (``closing``):
        the short wait at the end lets it start and go."""
        self.closing = True
        for session in list(self.sessions):
            transport = session.transport
            if transport is not None and not transport.is_closing():
                transport.write(SHUTDOWN)
                transport.close()
        until = asyncio.get_running_loop().time() + timeout
        while self.sessions and asyncio.get_running_loop().time() < until:
            await asyncio.sleep(0.01)
        for session in list(self.sessions):  # still there: their sockets closed at once
            if session.transport is not None:
                session.transport.abort()
        await asyncio.sleep(0.05)


class Handler:
    def __init__(
        self, app: App, committer: Committer, wake: Callable[[], None], lmtp: bool = False
    ) -> None:
        self.app = app
        self.committer = committer
        self.wake = wake
        self.lmtp = lmtp

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        limits = self.app.config.server.limits
        if len(envelope.rcpt_tos) >= limits.max_recipients:
            return "452 4.5.3 Too many recipients"
        if self.app.recipient(address) is None:
            return f"550 5.1.1 <{_printable(address)}>: no such game or address here"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if isinstance(raw, str):  # pragma: no cover - decode_data is off
            raw = raw.encode("utf-8", "surrogateescape")
        head = raw[:65536].split(b"\r\n\r\n", 1)[0]
        m = _MESSAGE_ID.search(head)
        mail = {
            "received_at": self.app.clock.now(),
            "mail_from": _no_controls(envelope.mail_from or ""),
            "rcpt_to": list(envelope.rcpt_tos),
            "raw": raw,
            "sha256": hashlib.sha256(raw).hexdigest(),
            "message_id": m[1].decode("ascii", "replace") if m else None,
            "peer": peer_address(session.peer),
        }
        self.app.fault("before_commit")
        try:
            inbox_id, _new = await self.committer.submit(mail)
        except Exception:
            return self._status(envelope, TEMPFAIL)
        self.app.fault("after_commit")
        self.wake()
        return self._status(envelope, f"250 2.0.0 OK queued as #{inbox_id}")

    def _status(self, envelope: Envelope, status: str) -> str:
        if self.lmtp:  # LMTP: one status per recipient
            return "\r\n".join([status] * max(1, len(envelope.rcpt_tos)))
        return status

    async def handle_exception(self, error: Exception) -> str:
        log.exception("SMTP session error", exc_info=error)
        return TEMPFAIL


UNIX = "unix:"  # the peer of a connection over a local socket, which has no address


def peer_address(peer: Any) -> str:
    """The address a connection came from, as stored with its mail: an IP
    address (an IPv4 address mapped into IPv6 as IPv4), or ``unix:`` for
    a local socket."""
    if not isinstance(peer, tuple) or not peer:
        return UNIX
    host = str(peer[0]).partition("%")[0]  # an IPv6 scope is no part of the address
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return _printable(host)[:64] or UNIX
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ip)


def _no_controls(text: str) -> str:
    """An envelope address as stored: no control characters (PostgreSQL's
    text holds no NUL; the bytes of the mail itself are kept as sent)."""
    return "".join(c for c in text if c >= " " and c != "\x7f")[:512]  # its column


def _printable(text: str) -> str:
    return "".join(c for c in text if 32 < ord(c) < 127)[:200]


_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_SIMPLE_PATH = re.compile(
    rf"[ \t]*<({_ATOM}(?:\.{_ATOM})*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)>[ \t]*(.*)\Z", re.S
)


def protocol_class(base: type[SMTP]) -> type[SMTP]:
    class Protocol(base):  # type: ignore[valid-type, misc]
        # Real mail has lines far over 1,000 octets (HTML); the message size
        # limit bounds them anyway.
        line_length_limit = 1 << 20

        def __init__(self, handler: Handler, gate: Gate, **kwargs: Any) -> None:
            super().__init__(handler, **kwargs)
            self._gate = gate
            self._counted = False
            self._refused = False

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            if self._gate.closing:  # taken as the server stopped: dropped
                self._refused = True
                transport.abort()
                return
            if not self._counted and self._gate.open >= self._gate.cap:
                self._refused = True
                transport.write(b"421 4.7.0 Too many connections, try again later\r\n")
                transport.close()
                return
            if not self._counted:
                self._gate.sessions.add(self)
                self._counted = True
            super().connection_made(transport)

        def connection_lost(self, error: Exception | None) -> None:
            if self._refused:
                return
            if self._counted:
                self._gate.sessions.discard(self)
                self._counted = False
            super().connection_lost(error)

        def _getaddr(self, arg: str) -> tuple[str | None, str | None]:
            """The address of MAIL FROM / RCPT TO: a plain <local@domain>
            by a regular expression; anything else (quoted local parts,
            address literals, routes, the null path) by aiosmtpd's own
            parser, which costs more than all the rest of a mail's SMTP."""
            m = _SIMPLE_PATH.match(arg)
            if m is None:
                return super()._getaddr(arg)
            local = m[1].rpartition("@")[0]
            if self.local_part_limit and len(local) > self.local_part_limit:
                return None, None
            return m[1], m[2]

        def eof_received(self) -> bool | None:
            if self._refused:
                return False
            return super().eof_received()

    return Protocol


def smtp_factory(app: App, handler: Handler, gate: Gate, lmtp: bool = False) -> Callable[[], SMTP]:
    limits = app.config.server.limits
    cls = protocol_class(LMTP if lmtp else SMTP)
    call_limits = {
        "NOOP": 100,
        "RSET": 100,
        "VRFY": 10,
        "EXPN": 10,
        "HELP": 10,
        "*": limits.max_commands,
    }

    def make() -> SMTP:
        return cls(
            handler,
            gate,
            data_size_limit=limits.max_message_size,
            enable_SMTPUTF8=True,
            decode_data=False,
            hostname=app.domain,
            ident="pbem",
            timeout=limits.idle_timeout,
            command_call_limit=call_limits,
        )

    return make
