"""A real Postfix in front of pbem, for tests: Debian's postfix (the
Makefile installs it), started from a configuration of its own in a
temporary folder, listening on a loopback port, stopped afterwards.

It plays the MTA of a judge's domain: mail for the judge's domain goes to
pbem by LMTP over TCP; pbem relays its own mail through it; mail for the
players' domains goes to a fake remote mail server (aiosmtpd) that keeps
what it accepts and refuses the addresses a test names, so that Postfix
writes its own delivery status notification, as it would for a player's
dead mailbox, and returns it to the mail's envelope sender.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from tests.mailharness import free_port, wait_for

POSTFIX = "/usr/sbin/postfix"


def need_postfix() -> None:
    """Postfix must be there under `make test` (which installs it); a bare
    pytest on a machine without it skips these tests."""
    if Path(POSTFIX).exists() and os.geteuid() == 0:
        return
    if os.environ.get("PBEM_NEED_POSTFIX"):
        pytest.fail("Postfix is not installed, or not run as root: run the tests with `make test`")
    pytest.skip("needs Debian's postfix, run as root (make test installs it)")


@dataclass
class Remote:
    """The players' mail server: keeps what it accepts; refuses ``gone``."""

    gone: set[str] = field(default_factory=set)
    received: list[tuple[str, list[str], bytes]] = field(default_factory=list)

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address.lower() in self.gone:
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 OK"

    def to(self, address: str) -> list[tuple[str, bytes]]:
        """(envelope sender, bytes) of every mail accepted for ``address``."""
        return [(frm, raw) for frm, rcpts, raw in self.received if address in rcpts]


def last_of_each(lines: list[str]) -> list[str]:
    """main.cf's lines with only the last setting of each name. Postfix
    takes the last one too, but every process it starts warns of the others
    in its log; a burst of warnings fills the log socket's queue before
    postlogd reads it (its own warnings included) and Postfix hangs."""
    entries: list[list[str]] = []  # a setting and its continuation lines
    for line in lines:
        if line[:1].isspace() and line.strip() and entries:
            entries[-1].append(line)
        else:
            entries.append([line])

    def name(entry: list[str]) -> str | None:
        first = entry[0]
        return None if first.startswith("#") or "=" not in first else first.split("=")[0].strip()

    names = [name(e) for e in entries]
    return [
        line
        for i, entry in enumerate(entries)
        if names[i] is None or names[i] not in names[i + 1 :]
        for line in entry
    ]


class Postfix:
    """One Postfix instance: ``port`` takes mail by SMTP; ``routes`` maps a
    domain to its next hop (``lmtp:inet:127.0.0.1:2424``,
    ``smtp:[127.0.0.1]:2526``) or nexthops (``smtp:[127.0.0.1]:2526,
    [127.0.0.1]:2527``)."""

    def __init__(
        self,
        domain: str,
        routes: dict[str, str],
        extra: tuple[str, ...] = (),
        services: tuple[str, ...] = (),
    ) -> None:
        """``extra``: more lines of main.cf (the guide's, a test's; of a
        name given twice, the last counts); ``services``: more entries of
        master.cf, each ``name/type = entry``."""
        self.domain = domain
        self.extra = extra
        self.services = services
        self.port = free_port()
        # Postfix's own users must reach the queue: not under a 0700 folder
        self.root = Path(tempfile.mkdtemp(prefix="pbem-postfix-", dir="/var/tmp"))
        self.root.chmod(0o755)
        self.etc = self.root / "etc"
        self._configure(routes)

    def _configure(self, routes: dict[str, str]) -> None:
        for name in ("etc", "spool", "data"):
            (self.root / name).mkdir()
        shutil.chown(self.root / "data", "postfix")
        shutil.copy("/etc/postfix/master.cf.proto", self.etc / "master.cf")
        # an inline map's entry with a comma in it goes in braces
        transport = ", ".join(
            f"{{ {d} = {hop} }}" if "," in hop else f"{d}={hop}" for d, hop in routes.items()
        )
        (self.etc / "main.cf").write_text(
            "\n".join(
                last_of_each(
                    [
                        "compatibility_level = 3.6",
                        f"queue_directory = {self.root}/spool",
                        f"data_directory = {self.root}/data",
                        "mail_owner = postfix",
                        "setgid_group = postdrop",
                        f"myhostname = mx.{self.domain}",
                        f"mydomain = {self.domain}",
                        f"myorigin = {self.domain}",
                        "mydestination =",
                        "alias_maps =",
                        "alias_database =",
                        "local_recipient_maps =",
                        "inet_interfaces = 127.0.0.1",
                        "inet_protocols = ipv4",
                        "mynetworks = 127.0.0.0/8",
                        f"relay_domains = {self.domain}",
                        f"transport_maps = inline:{{ {transport} }}",
                        "smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination",
                        "smtp_dns_support_level = disabled",
                        "disable_dns_lookups = yes",
                        "lmtp_connection_cache_on_demand = no",
                        # the guide's limits on how long Postfix waits on pbem (step 3)
                        "lmtp_connect_timeout = 10s",
                        "lmtp_lhlo_timeout = 30s",
                        "lmtp_mail_timeout = 30s",
                        "lmtp_rcpt_timeout = 30s",
                        "lmtp_data_init_timeout = 30s",
                        "lmtp_data_xfer_timeout = 60s",
                        "lmtp_data_done_timeout = 60s",
                        # a deferred delivery is tried again within seconds, not minutes
                        "queue_run_delay = 1s",
                        "minimal_backoff_time = 1s",
                        "maximal_backoff_time = 2s",
                        f"maillog_file_prefixes = {self.root}",
                        f"maillog_file = {self.root}/maillog",
                        *self.extra,
                        "",
                    ]
                )
            )
        )
        self._postconf("-F", "*/*/chroot = n")  # nothing to copy into a chroot
        self._postconf("-M#", "smtp/inet")  # not port 25: a loopback port of our own
        self._postconf(
            "-Me", f"127.0.0.1:{self.port}/inet = 127.0.0.1:{self.port} inet n - n - - smtpd"
        )
        self._postconf("-Me", "postlog/unix-dgram = postlog unix-dgram n - n - 1 postlogd")
        for service in self.services:
            self._postconf("-Me", service)

    def _postconf(self, *args: str) -> None:
        subprocess.run(["postconf", "-c", str(self.etc), *args], check=True)

    def _postfix(self, command: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [POSTFIX, "-c", str(self.etc), command], capture_output=True, text=True, timeout=60
        )

    def start(self) -> None:
        done = self._postfix("start")
        if done.returncode != 0:
            raise RuntimeError(f"postfix did not start:\n{self.log()}{done.stderr}")
        wait_for(self._listening, 20, "postfix to listen")

    def _listening(self) -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        """Stop it (`postfix stop` waits until every process is gone) and
        remove its folder."""
        if self._postfix("stop").returncode != 0:
            self._postfix("abort")
        shutil.rmtree(self.root, ignore_errors=True)

    def flush(self) -> None:
        """Try every queued mail now (`postqueue -f`), as an operator does
        once pbem takes mail again."""
        subprocess.run(["postqueue", "-c", str(self.etc), "-f"], check=True, timeout=60)

    def flush_until_delivered(self, sender: str, total: float = 60.0, every: float = 5.0) -> None:
        """Flush the queue until no mail from ``sender`` waits in it,
        flushing again every ``every`` seconds (a delivery tried too early,
        and deferred, would otherwise wait for Postfix's next look at its
        deferred queue), for at most ``total`` seconds."""
        until = time.monotonic() + total
        while True:
            self.flush()
            again = min(until, time.monotonic() + every)
            while time.monotonic() < again:
                if self.queued(sender) == 0:
                    return
                time.sleep(0.2)
            if time.monotonic() >= until:
                left = [m["queue_id"] for m in self.queue() if m["sender"] == sender]
                raise TimeoutError(
                    f"Postfix still holds {left} after {total:.0f}s:\n{self.log()[-4000:]}"
                )

    def queued(self, sender: str) -> int:
        """How many mails from ``sender`` wait in the queue."""
        return sum(mail["sender"] == sender for mail in self.queue())

    def queue(self) -> list[dict]:
        """Every mail in the queue, as `postqueue -j` describes it."""
        done = subprocess.run(
            ["postqueue", "-c", str(self.etc), "-j"], capture_output=True, text=True, timeout=60
        )
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    def log(self) -> str:
        path = self.root / "maillog"
        return path.read_text() if path.exists() else ""


class _Sessions(Controller):
    """A Controller that keeps its sessions, to close those a client still
    holds (Postfix caches its connections) before it stops: its own stop
    only stops its loop and cancels its tasks, leaving their sockets open."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sessions: list[Any] = []

    def factory(self) -> Any:
        session = super().factory()
        self.sessions.append(session)
        return session

    def close_sessions(self) -> None:
        """Close every session's connection, in the server's loop."""
        done = threading.Event()

        def close() -> None:
            for session in self.sessions:
                if session.transport is not None:
                    session.transport.abort()
            self.loop.call_soon(done.set)  # after the connections are lost

        self.loop.call_soon_threadsafe(close)
        done.wait(10)


class RemoteServer:
    """The Remote on a loopback port of its own."""

    def __init__(self) -> None:
        self.handler = Remote()
        self.port = free_port()
        self.controller = _Sessions(self.handler, hostname="127.0.0.1", port=self.port)

    def start(self) -> Remote:
        self.controller.start()
        return self.handler

    def stop(self) -> None:
        self.controller.close_sessions()
        self.controller.stop()
