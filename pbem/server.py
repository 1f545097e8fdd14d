"""`pbem serve`: the SMTP server, the mail worker and the outbox sender.

The SMTP server runs on an asyncio loop; storing mail happens in the
committer thread, reading and answering it in the worker thread, sending in
the sender thread, so the loop only speaks SMTP. On start the worker first
takes every stored mail not yet processed: what was answered 250 before a
crash is processed after it.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable

from pbem.app import App
from pbem.inbox import Processor
from pbem.outbox import Sender
from pbem.smtp import Committer, Gate, Handler, smtp_factory

log = logging.getLogger("pbem.server")


class Loop:
    """A thread that runs ``step`` whenever woken (and every ``period``
    seconds anyway) until it returns 0, then sleeps."""

    def __init__(self, name: str, step: Callable[[], int], period: float) -> None:
        self.step = step
        self.period = period
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                while not self._stop.is_set() and self.step() > 0:
                    pass
            except Exception:  # storage gone for a moment: try again later
                log.exception("%s failed; trying again shortly", self._thread.name)
            self._wake.wait(self.period)


class Server:
    def __init__(self, app: App, host: str | None = None, port: int | None = None) -> None:
        self.app = app
        self.host = host or app.config.server.host
        self.port = app.config.server.port if port is None else port
        self.committer: Committer | None = None
        self.sender = Loop("pbem-send", Sender(app).run_due, 1.0)
        self.worker = Loop("pbem-work", self._process, 1.0)
        self.servers: list[asyncio.AbstractServer] = []

    def _process(self) -> int:
        done = Processor(self.app).run_pending()
        if done:
            self.sender.wake()
        return done

    async def start(self) -> None:
        self.committer = Committer(self.app)
        self.sender.start()
        self.worker.start()
        self.worker.wake()  # mail stored before a restart
        loop = asyncio.get_running_loop()
        gate = Gate(self.app.config.server.limits.max_connections)
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
        log.info("listening on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        for server in self.servers:
            server.close()
            await server.wait_closed()
        self.worker.stop()
        self.sender.stop()
        if self.committer is not None:
            self.committer.stop()


def serve(app: App, ready: Callable[[Server], None] | None = None) -> None:
    """Run until SIGINT or SIGTERM."""

    async def main() -> None:
        server = Server(app)
        await server.start()
        print(
            f"pbem: listening on {server.host}:{server.port} for {app.domain}; "
            f"mail out: {_outbound(app)}",
            flush=True,
        )
        if ready:
            ready(server)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()

    asyncio.run(main())


def _outbound(app: App) -> str:
    out = app.config.server.outbound
    return f"relay {out.host}:{out.port}" if out.host else f"maildir {out.maildir}"
