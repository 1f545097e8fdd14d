"""`pbem serve`: the SMTP server, the mail worker and the outbox sender.

The SMTP server runs on an asyncio loop, which also commits received mail
into the spool, in groups (smtp.Committer). Reading and answering mail, and
sending it, happen in a worker process (restarted if it dies), so the SMTP
side only speaks SMTP and commits. On start the worker first takes every
stored mail not yet processed: what was answered 250 before a crash is
processed after it. Tests run the worker as threads (ThreadWorker), on the test's clock.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pbem.app import App
from pbem.faults import CHILD
from pbem.inbox import Processor
from pbem.lifecycle.opening import open_app
from pbem.mail.outbox import Sender
from pbem.mail.smtp import Committer, Gate, Handler, smtp_factory
from pbem.serving import logs
from pbem.serving.lease import RENEW, Lease, child_of
from pbem.serving.trouble import SLOTS, Loop, Trouble
from pbem.serving.webproc import WebProcess, announce
from pbem.store.database import shown
from pbem.turns.runner import TurnRunner
from pbem.turns.schedule import Deadlines
from pbem.version import version

if TYPE_CHECKING:
    from pbem.serving.metrics import Watch
    from pbem.web.server import WebServer

log = logging.getLogger("pbem.server")


# Woken by a mail, the worker first lets more arrive for a moment: under a
# load, a few large transactions instead of one for every two or three
# mails (every commit is an fsync, on the disk the SMTP side commits to).
GATHER = 0.03
BATCH = 200  # mails the worker takes at a time (Processor.run_pending)


def run_turns(processor: Processor, runner: TurnRunner) -> tuple[int, bool]:
    """The turns the game master asked for, then every due one: (how many
    were resolved, whether one was left for now and wants another look
    shortly: TurnRunner.deferred)."""
    forced, processor.forced = processor.forced, []
    processor.turn_requests.clear()
    runner.deferred = False
    left = []
    done = 0
    for game, turn in forced:
        if runner.run(game, turn, "master") is not None:
            done += 1
        elif runner.deferred:
            left.append((game, turn))  # another node holds the game, or mail is due first
            runner.deferred = False
    processor.forced = left + processor.forced
    done += len(runner.run_due())
    return done, runner.deferred or bool(left)


class ThreadWorker:
    """Mail worker and sender as threads of this process (tests, small
    servers, and anything that needs the app's own clock)."""

    def __init__(self, app: App) -> None:
        self.lease = Lease(app.store)
        self.runner = TurnRunner(app)
        self.processor = Processor(app, self.lease.holder, self.runner.settled_at)
        self._sender = Sender(app, self.lease.holder)
        self.tally = [0] * (2 * SLOTS)  # the worker's and the sender's failures (trouble.py)
        self.sender = Loop("pbem-send", self._send, 1.0, app, self.tally, SLOTS)
        self.worker = Loop("pbem-work", self._process, 1.0, app, self.tally, 0)
        self._turns = threading.Event()
        self._turns.set()  # turns that fell due while the server was down
        self.turn_checks = 0  # how many times due turns were looked for (tests wait on it)
        self.turn_wakes = 0  # wake-ups asked for, and the last one a finished look covered
        self.turn_wakes_done = 0

    def _holding(self) -> bool:
        """Whether this worker holds the store's lease (taken, or renewed
        every second); another live worker's lease makes it wait."""
        if self.lease.held and time.monotonic() - self._renewed < RENEW:
            return True
        self._renewed = time.monotonic()
        return self.lease.try_take()

    def _send(self) -> int:
        if not self._holding():
            return 0
        sent = self._sender.run_due()
        self.lease.done["sent"] += sent
        return sent

    def _process(self) -> int:
        if not self._holding():
            return 0
        done = self.processor.run_pending()
        self.runner.taking_mail(again=self.worker.trouble.in_a_row > 0)
        if done:
            self.lease.done["mails"] += done
            self.sender.wake()
            return done
        # the inbox drained: mail received before a deadline applied before its turn
        if self._turns.is_set() or self.processor.turn_requests or self.processor.forced:
            self._turns.clear()
            covered = self.turn_wakes
            again = False
            try:
                resolved, again = run_turns(self.processor, self.runner)
                self.lease.done["turns"] += resolved
                if resolved:
                    self.sender.wake()
            finally:
                self.turn_checks += 1
                if again:  # looked at again on the next round (every second)
                    self._turns.set()
                else:
                    self.turn_wakes_done = covered
        return 0

    def wake_turns(self) -> None:
        self.turn_wakes += 1  # only the scheduler's thread calls this
        self._turns.set()
        self.worker.wake()

    def start(self) -> None:
        self.sender.start()
        self.worker.start()
        self.worker.wake()  # mail stored before a restart

    def wake(self) -> None:
        self.worker.wake()

    def check(self) -> None:
        pass

    def alive(self) -> bool:
        return self.worker._thread.is_alive() and self.sender._thread.is_alive()

    def stop(self) -> None:
        self.worker.stop()
        self.sender.stop()
        self.lease.release()


def _child_main(
    config_path: str, wake_fd: Any, parent: int, listen: str | None = None, tally: Any = None
) -> None:  # pragma: no cover
    """The worker process: its own app, its own connections. The SMTP
    process wakes it by writing a byte to a pipe after each commit; it also
    works every second anyway. When the pipe closes (the SMTP process
    stopped), it finishes what it holds and exits; when the SMTP process
    dies, it dies with it within a second (lease.child_of). A pipe,
    not a shared lock or event: a process killed while holding a shared
    lock would leave the other waiting forever. It works only while it
    holds the store's lease: a worker of another server on the same store
    makes it wait (and the log says which process that is)."""
    os.environ[CHILD] = "1"
    logs.configure_child()
    child_of(parent, "pbem-worker")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    # a sender waits on every 250; nobody waits on a receipt a few
    # milliseconds longer: under load the SMTP side goes first
    os.nice(19)
    app = open_app(config_path, schema="as is")
    fd = wake_fd.fileno()
    lease = Lease(app.store, listen=listen)
    if not lease.wait(lambda: _closed(fd)):
        return
    lease.keep(lambda: os._exit(3))  # another worker took over: the parent starts us again
    try:
        _work(app, lease, fd, tally)
    finally:
        lease.release()


def _closed(fd: int) -> bool:
    """Whether the SMTP process closed the wake pipe (reading what is in it)."""
    return _read_for(fd, 0.0) is None


def _read_for(fd: int, wait: float) -> bytes | None:
    """Wake-ups written to the pipe in the next ``wait`` seconds, all of
    which are waited: b"t" if one asked for turns; None as soon as the SMTP
    process closes the pipe."""
    until, turns = time.monotonic() + wait, False
    while True:
        ready, _, _ = select.select([fd], [], [], max(0.0, until - time.monotonic()))
        if ready:
            data = os.read(fd, 4096)
            if not data:
                return None
            turns = turns or b"t" in data
        elif time.monotonic() >= until:
            return b"t" if turns else b""


def _work(app: App, lease: Lease, fd: int, tally: Any = None) -> None:  # pragma: no cover
    """Mail in this thread; delivery in a thread of its own, woken after
    each batch, so writing out receipts (files, or a relay's round trips:
    waiting, mostly, outside the interpreter's lock) never holds up reading
    the next mails."""
    runner, sender = TurnRunner(app), Sender(app, lease.holder)
    processor = Processor(app, lease.holder, runner.settled_at)

    def send() -> int:
        sent = sender.run_due()
        lease.done["sent"] += sent
        return sent

    sending = Loop("pbem-send", send, 1.0, app, tally, SLOTS)
    sending.start()
    trouble = Trouble(app, "the mail worker", tally=tally, slot=0)
    turns = True  # turns that fell due while the server was down
    try:
        while True:
            try:
                done = processor.run_pending(BATCH)
                runner.taking_mail(again=trouble.in_a_row > 0)  # held mail comes now
                while done > 0:
                    trouble.worked()  # between failures: not in a row
                    lease.done["mails"] += done
                    sending.wake()
                    if done < BATCH:  # mail is trickling in: let more of it gather
                        time.sleep(GATHER)
                    done = processor.run_pending(BATCH)
                if turns or processor.turn_requests or processor.forced:  # inbox drained first
                    turns = False
                    resolved, turns = run_turns(processor, runner)  # turns: look again soon
                    lease.done["turns"] += resolved
                    if resolved:
                        sending.wake()
                trouble.worked()
            except Exception as exc:
                backoff = trouble.failed(exc)
                if backoff:  # failing again and again: wake-ups wait too
                    woken = _read_for(fd, backoff)
                    if woken is None:
                        return  # the SMTP process is gone
                    turns = turns or b"t" in woken
                    continue
            ready, _, _ = select.select([fd], [], [], 1.0)
            if ready:
                data = os.read(fd, 4096)
                if not data:
                    return  # the SMTP process is gone
                turns = turns or b"t" in data
                time.sleep(GATHER)
    finally:
        sending.stop()


class ProcessWorker:
    """Mail worker and sender in a child process: it runs on the second
    core, so reading and answering mail never slows the SMTP side down,
    and a crash in it never takes the SMTP server with it (it is
    restarted)."""

    def __init__(self, app: App) -> None:
        self.config_path = str(app.config.path)
        self._ctx = multiprocessing.get_context("spawn")
        self._proc: Any = None
        self._writer: Any = None
        self._stopping = False
        self.listen: str | None = None  # where the node's servers listen
        # the worker's failures (trouble.py), in memory shared with it, no
        # lock (a worker killed holding one would leave it held): /metrics
        self.tally = self._ctx.Array("q", 2 * SLOTS, lock=False)

    def start(self) -> None:
        reader, writer = self._ctx.Pipe(duplex=False)
        self._proc = self._ctx.Process(
            target=_child_main,
            name="pbem-worker",
            daemon=True,
            args=(self.config_path, reader, os.getpid(), self.listen, self.tally),
        )
        self._proc.start()
        reader.close()
        os.set_blocking(writer.fileno(), False)
        self._writer = writer

    def wake(self, what: bytes = b"w") -> None:
        if self._writer is None:
            return  # not started yet: it looks at everything when it starts
        try:
            os.write(self._writer.fileno(), what)
        except (BlockingIOError, OSError):
            pass  # the pipe is full: the worker will look at everything anyway

    def wake_turns(self) -> None:
        self.wake(b"t")

    def alive(self) -> bool:
        return self._proc is not None and self._proc.is_alive()

    def check(self) -> None:
        """Restart the worker if it died."""
        if self._proc is not None and not self._proc.is_alive() and not self._stopping:
            log.error("the mail worker exited (%s); restarting it", self._proc.exitcode)
            self._writer.close()
            self.start()

    def stop(self) -> None:
        self._stopping = True
        if self._writer is not None:
            self._writer.close()  # the worker sees the pipe close and exits
        if self._proc is not None:
            self._proc.join(30)
            if self._proc.is_alive():
                self._proc.terminate()


class Server:
    def __init__(
        self, app: App, host: str | None = None, port: int | None = None, worker: str = "thread"
    ) -> None:
        self.app = app
        self.host = host or app.config.server.host
        self.port = app.config.server.port if port is None else port
        self.committer: Committer | None = None
        self.worker: ThreadWorker | ProcessWorker = (
            ProcessWorker(app) if worker == "process" else ThreadWorker(app)
        )
        self.servers: list[asyncio.AbstractServer] = []
        self.gate: Gate | None = None  # the open SMTP and LMTP sessions
        self.web: WebServer | WebProcess | None = None  # server.web in games.yaml: the HTTP side
        self._watch: asyncio.Task | None = None
        self.watch: Watch | None = None  # health, metrics, the operator's alerts
        self.metrics_port: int | None = None
        self.deadlines = Deadlines(app, self.worker.wake_turns)

    @property
    def sender(self) -> Loop:
        assert isinstance(self.worker, ThreadWorker)
        return self.worker.sender

    async def start(self) -> None:
        self.committer = Committer(self.app)
        loop = asyncio.get_running_loop()
        gate = self.gate = Gate(self.app.config.server.limits.max_connections)
        handler = Handler(self.app, self.committer, self.worker.wake)
        server = await loop.create_server(
            smtp_factory(self.app, handler, gate), self.host, self.port
        )
        self.servers.append(server)
        self.port = server.sockets[0].getsockname()[1]
        sock = self.app.config.server.lmtp_socket
        if sock is not None:
            sock.parent.mkdir(parents=True, exist_ok=True)
            sock.unlink(missing_ok=True)
            lmtp = Handler(self.app, self.committer, self.worker.wake, lmtp=True)
            self.servers.append(
                await loop.create_unix_server(
                    smtp_factory(self.app, lmtp, gate, lmtp=True), str(sock)
                )
            )
        tcp = self.app.config.server.lmtp_listen
        if tcp is not None:
            lmtp = Handler(self.app, self.committer, self.worker.wake, lmtp=True)
            self.servers.append(
                await loop.create_server(smtp_factory(self.app, lmtp, gate, lmtp=True), *tcp)
            )
        if self.app.config.server.web is not None:
            self.web = self._web()
            await self.web.start()
            await announce(self.app, self.web.host, self.web.port)
        self._start_worker(sock, tcp)
        self._start_watch()
        self._watch = loop.create_task(self._supervise())
        self.deadlines.start()
        log.info("listening on %s:%s", self.host, self.port)

    def _start_worker(self, sock: Any, tcp: tuple[str, int] | None) -> None:
        """Start the worker, telling it where this node listens (its
        heartbeat shows it: `pbem nodes`)."""
        listen = f"smtp {self.host}:{self.port}"
        if sock is not None:
            listen += f", lmtp {sock}"
        if tcp is not None:
            listen += f", lmtp {tcp[0]}:{tcp[1]}"
        if isinstance(self.worker, ProcessWorker):
            self.worker.listen = listen[:255]
        else:
            self.worker.lease.listen = listen[:255]
        self.worker.start()

    def _start_watch(self) -> None:
        """Health and metrics on their port (server.metrics), and the
        operator's alerts (server.operator): either is enough to watch."""
        server = self.app.config.server
        if server.metrics is None and server.operator is None:
            return
        from pbem.serving.metrics import Watch  # prometheus_client only where it is used

        self.watch = Watch(self.app, self.worker.alive, self.worker.tally, server.metrics)
        if server.metrics is not None:
            self.metrics_port = self.watch.serve(server.metrics.host, server.metrics.port)
            log.info("health and metrics on http://%s:%s/", server.metrics.host, self.metrics_port)
        self.watch.start()

    def _web(self) -> WebServer | WebProcess:
        """The web pages: a process of their own beside the worker's
        (pbem/serving/webproc.py), or on this loop when the worker is
        threads (tests)."""
        if isinstance(self.worker, ProcessWorker):
            return WebProcess(self.app, self.worker.wake)
        from pbem.web.server import WebServer  # aiohttp only where it is used

        return WebServer(self.app, self.worker.wake)

    async def _supervise(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            self.worker.check()
            if isinstance(self.web, WebProcess):
                self.web.check()

    async def stop(self) -> None:
        self.deadlines.stop()
        if self.watch is not None:
            self.watch.stop()
        if self._watch is not None:
            self._watch.cancel()
        if self.web is not None:
            await self.web.stop()
        for server in self.servers:
            server.close()
            await server.wait_closed()
        if self.gate is not None:  # a closed server leaves its sessions open
            await self.gate.close()
        self.worker.stop()
        if self.committer is not None:
            self.committer.stop()


def serve(app: App, ready: Callable[[Server], None] | None = None) -> None:
    """Run until SIGINT or SIGTERM."""

    async def main() -> None:
        server = Server(app, worker="process")
        await server.start()
        banner = [  # printed in one go: whoever reads "listening" finds all of it
            f"pbem {version()}: listening on {server.host}:{server.port} for {app.domain}; "
            f"mail out: {_outbound(app)}",
            *logs.announced(app),  # not a game that is over
        ]
        out = app.config.server.outbound
        if not out.host:
            banner.append(f"  replies land in {out.maildir}/new/")
        if app.store.shared:
            url = shown(app.store.url)
            banner.append(f"  storage {url}: one node of several (`pbem nodes` lists them)")
        if server.web is not None:
            public = app.config.server.web.url if app.config.server.web else None
            banner.append(
                f"  web: http://{server.web.host}:{server.web.port}/"
                + (f" (public address {public})" if public else " (no public address set)")
            )
        if server.metrics_port is not None:
            metrics = app.config.server.metrics
            assert metrics is not None
            banner.append(
                f"  health and metrics: http://{metrics.host}:{server.metrics_port}/readyz "
                "and /metrics"
            )
        logs.say(*banner)
        if ready:
            ready(server)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()
        if server.committer is not None:
            logs.say(f"pbem: stopped; {server.committer.stats()}")

    asyncio.run(main())


def _outbound(app: App) -> str:
    out = app.config.server.outbound
    return f"relay {out.host}:{out.port}" if out.host else f"maildir {out.maildir}"
