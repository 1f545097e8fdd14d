"""The web pages of `pbem serve` in a process of their own.

The SMTP process binds the web port and hands the socket to a child
process, which runs the aiohttp server (pbem/web/server.py) on it with its
own app and its own connections. The child runs at low priority (NICE),
just above the mail worker's: readers of the pages never take the
processor from the SMTP side (a sender waits on every 250), and take from
the worker only a part of what is left, where on the SMTP process's own
loop they came before it.

If the child dies it is started again on the same socket: the port never
changes and a connection waiting in the socket's queue is answered by the
next child. It dies with the SMTP process (lease.child_of) and stops
cleanly when the SMTP process closes the pipe it watches. The few things
the pages write that a mail must follow (an unsubscribe's confirmation)
wake the mail worker through the SMTP process, over a pipe back to it.

Tests run the pages on the SMTP process's loop instead (Server with the
ThreadWorker), where the app's clock is the test's.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import socket
from collections.abc import Callable
from typing import Any

from pbem.app import App
from pbem.faults import CHILD
from pbem.serving import logs
from pbem.serving.lease import child_of

log = logging.getLogger("pbem.web")


# Below the SMTP side (0), a little above the mail worker (19): a reader
# waits on a page, nobody on a receipt a few milliseconds longer. When both
# want the processor the pages get about 70% of it (the kernel's weights
# for nice 15 and 19 are 36 and 15): a page is answered at once, and
# a flood of readers still leaves the worker its part.
NICE = 15

WILDCARDS = ("", "0.0.0.0", "::")  # every address: none of them names the server


async def announce(app: App, host: str, port: int) -> None:
    """Store where the pages listen, for the links SIGNIN mails
    (pbem/commands/signin.py, when games.yaml's web has no url): before
    the worker starts, so no link names another port."""
    if host not in WILDCARDS:
        where = f"[{host}]" if ":" in host else host
        await asyncio.to_thread(app.store.set_web_address, f"http://{where}:{port}/")


def bind(host: str, port: int) -> socket.socket:
    """The listening socket of the web pages (port 0: any free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    return sock


def _web_main(  # pragma: no cover
    config_path: str, sock: socket.socket, stop_fd: Any, wake_fd: Any, parent: int
) -> None:
    """The child: the web server on ``sock`` until ``stop_fd`` closes (or
    the parent dies)."""
    os.environ[CHILD] = "1"
    logs.configure_child()
    child_of(parent, "pbem-web")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    os.nice(NICE)
    from pbem.lifecycle.opening import open_app
    from pbem.web.server import WebServer

    app = open_app(config_path, schema="as is")
    wake_out = wake_fd.fileno()
    os.set_blocking(wake_out, False)

    def wake() -> None:
        try:
            os.write(wake_out, b"w")
        except OSError:
            pass  # the pipe is full (the worker will look anyway) or the parent is gone

    async def main() -> None:
        server = WebServer(app, wake, sock=sock)
        await server.start()
        stopped = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_reader(stop_fd.fileno(), stopped.set)  # readable: closed (nothing is sent)
        await stopped.wait()
        loop.remove_reader(stop_fd.fileno())
        await server.stop()

    asyncio.run(main())


class WebProcess:
    """The web pages in a child process, on a socket the SMTP process
    keeps; started again if it dies (``check``)."""

    def __init__(self, app: App, wake: Callable[[], None]) -> None:
        web_config = app.config.server.web
        assert web_config is not None
        self.config_path = str(app.config.path)
        self._wake = wake
        self.sock = bind(web_config.host, web_config.port)
        self.host, self.port = web_config.host, self.sock.getsockname()[1]
        self._ctx = multiprocessing.get_context("spawn")
        self._proc: Any = None
        self._stop_writer: Any = None
        self._wake_reader: Any = None
        self._stopping = False

    async def start(self) -> None:
        self._spawn()

    def _spawn(self) -> None:
        stop_reader, self._stop_writer = self._ctx.Pipe(duplex=False)
        self._wake_reader, wake_writer = self._ctx.Pipe(duplex=False)
        self._proc = self._ctx.Process(
            target=_web_main,
            name="pbem-web",
            daemon=True,
            args=(self.config_path, self.sock, stop_reader, wake_writer, os.getpid()),
        )
        self._proc.start()
        stop_reader.close()
        wake_writer.close()
        fd = self._wake_reader.fileno()
        os.set_blocking(fd, False)
        asyncio.get_running_loop().add_reader(fd, self._woken, self._wake_reader)

    def _woken(self, reader: Any) -> None:
        try:
            data = os.read(reader.fileno(), 4096)
        except BlockingIOError:
            return
        if data:
            self._wake()
        else:  # the child is gone: check() starts another
            asyncio.get_running_loop().remove_reader(reader.fileno())

    def check(self) -> None:
        """Start the web process again if it died."""
        if self._proc is not None and not self._proc.is_alive() and not self._stopping:
            log.error("the web pages' process exited (%s); restarting it", self._proc.exitcode)
            self._close_pipes()
            self._spawn()

    def _close_pipes(self) -> None:
        loop = asyncio.get_running_loop()
        if self._wake_reader is not None:
            loop.remove_reader(self._wake_reader.fileno())
            self._wake_reader.close()
            self._wake_reader = None
        if self._stop_writer is not None:
            self._stop_writer.close()  # the child sees it close and stops
            self._stop_writer = None

    async def stop(self) -> None:
        self._stopping = True
        self._close_pipes()
        if self._proc is not None:
            await asyncio.to_thread(self._proc.join, 10)
            if self._proc.is_alive():
                self._proc.terminate()
                await asyncio.to_thread(self._proc.join, 5)
        self.sock.close()
