"""One worker per store, and no worker without its server.

The mail worker (with it the outbox sender and the turn runner) holds a
lease on its store: a row naming its process and host, renewed every
second, lasting ``HOLD`` seconds. A second server on the same store waits
while that lease is live and its holder alive, and says which process
holds it; a holder known to be gone (same host, no such process) is taken
over at once, so a restart after a crash does not wait.

Each mail and each outbox row is also claimed, in the transaction that
checks it is free, with the worker's identity and a lease of its own; and
finishing it checks the claim (pbem/store). The lease on the store keeps two
workers from competing; the claims make a mail's effects happen once even if
they did.

On a shared store (PostgreSQL) there is no such lease: every server is a
node, and every node's worker works at once. Each writes a heartbeat row
every second instead (pbem/store/nodes.py), lasting ``HOLD`` seconds; every
node reaps a peer whose heartbeat lapsed, or that is known gone, freeing
its claims for the others. The claims, and the advisory write lock every
check-then-write takes there (pbem/store/database.py), keep each mail's
effects to one node.

A worker process also stops within a second of its parent's death: the
parent-death signal on Linux (prctl), and on any system a thread that
watches the parent's process id.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import secrets
import signal
import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from pbem.store import LeaseRow, NodeRow, Store, StoreError
from pbem.version import version

log = logging.getLogger("pbem.lease")

NAME = "worker"
HOLD = 10.0  # seconds a lease lasts unless renewed
RENEW = 1.0  # how often a holder renews it
PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15


def identity() -> str:
    """This process, told apart from any other (a pid can be reused)."""
    return f"{socket.gethostname()[:80]}:{os.getpid()}:{secrets.token_hex(4)}"


def process_gone(pid: int, host: str) -> bool:
    """True only when the process is known to be gone: same host, and no
    such process (or a zombie, dead but not yet reaped)."""
    if host != socket.gethostname()[:255]:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return False


def describe(row: LeaseRow) -> str:
    until = datetime.fromtimestamp(row.until, UTC).strftime("%H:%M:%S UTC")
    since = datetime.fromtimestamp(row.since, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"process {row.pid} on {row.host} (since {since}; its lease runs until {until})"


def describe_node(row: NodeRow) -> str:
    beat = datetime.fromtimestamp(row.beat, UTC).strftime("%H:%M:%S UTC")
    return f"process {row.pid} on {row.host} (last heartbeat {beat})"


class Lease:
    """The store's worker lease, as one worker holds it; on a shared store,
    this node's heartbeat."""

    def __init__(
        self,
        store: Store,
        name: str = NAME,
        holder: str | None = None,
        listen: str | None = None,
    ) -> None:
        self.store = store
        self.name = name
        self.holder = holder or identity()
        self.listen = listen  # where this node's servers listen (shown by `pbem nodes`)
        # what this node's worker has done since it started (the heartbeat carries it)
        self.done = {"mails": 0, "turns": 0, "sent": 0}
        self.held = False
        self._told: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def try_take(self) -> bool:
        """Take (or renew) the lease; False while another live worker holds
        it (said once per holder in the log). On a shared store: beat, and
        reap the nodes gone; always True."""
        if self.store.shared:
            return self._beat()
        try:
            other = self.store.take_lease(
                self.name,
                self.holder,
                os.getpid(),
                socket.gethostname()[:255],
                time.time(),
                HOLD,
                process_gone,
            )
        except StoreError as exc:
            log.warning("cannot renew the worker lease: %s", exc)
            return self.held
        if other is None:
            if self._told is not None:
                log.warning("the store is free again: this server's worker starts")
                self._told = None
            self.held = True
            return True
        self.held = False
        if other.holder != self._told:
            self._told = other.holder
            log.warning(
                "another mail worker works on this store: %s; this server accepts mail "
                "but waits for that worker to stop before processing any",
                describe(other),
            )
        return False

    def _beat(self) -> bool:
        wall = time.time()
        try:
            self.store.beat_node(
                self.holder, os.getpid(), socket.gethostname()[:255], self.listen, wall, HOLD,
                self.done, version()[:64],
            )  # fmt: skip
            for gone in self.store.reap_nodes(wall, process_gone):
                log.warning(
                    "node %s is gone: its claimed mail and outgoing mail are free again",
                    describe_node(gone),
                )
        except StoreError as exc:
            log.warning("cannot write this node's heartbeat: %s", exc)
        self.held = True
        return True

    def wait(self, stop: Callable[[], bool], step: float = RENEW) -> bool:
        """Block until the lease is ours (True) or ``stop()`` (False)."""
        while not self.try_take():
            if stop():
                return False
            time.sleep(step)
        return True

    def keep(self, lost: Callable[[], None]) -> None:
        """Renew the lease every second in a thread of its own; ``lost`` is
        called if another worker took it meanwhile."""

        def run() -> None:
            while not self._stop.wait(RENEW):
                if not self.try_take():
                    lost()
                    return

        self._thread = threading.Thread(target=run, name=f"pbem-lease-{self.name}", daemon=True)
        self._thread.start()

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self.held:
            self.held = False
            try:
                if self.store.shared:
                    self.store.leave(self.holder)
                else:
                    self.store.release_lease(self.name, self.holder)
            except StoreError:
                pass  # it lapses by itself


def _prctl(option: int, value: object) -> None:
    """Linux's prctl(2), where there is one (elsewhere nothing)."""
    libc_name = ctypes.util.find_library("c")
    if libc_name and hasattr(os, "uname") and os.uname().sysname == "Linux":
        try:
            ctypes.CDLL(libc_name, use_errno=True).prctl(option, value, 0, 0, 0)
        except (OSError, AttributeError):
            pass


def child_of(parent: int, name: str) -> None:
    """A child process of `pbem serve`: called ``name`` where ps and top
    show it (pbem-worker, pbem-web), and ended within a second of its
    parent's death."""
    _prctl(PR_SET_NAME, ctypes.c_char_p(name.encode()[:15]))
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """End this process within a second of its parent's death."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(0.1)

    if os.getppid() != parent:  # it died before the signal was asked for
        os._exit(0)
    threading.Thread(target=watch, name="pbem-parent-watch", daemon=True).start()
