"""A whole server in this process, on a clock moved by hand: the real SMTP
server on 127.0.0.1, the real worker and sender (as threads), the real
scheduler and a real SQLite file. `pbem demo` plays a game on it with the
clock jumping from deadline to deadline; the tests use it the same way.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.app import App
from pbem.lifecycle.opening import open_app
from pbem.serving.server import Server, ThreadWorker
from pbem.turns.clock import FakeClock


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.005)
    raise TimeoutError(f"timed out waiting for {what}")


class LocalServer:
    def __init__(self, config: Path, start: datetime | None = None) -> None:
        self.config = config
        self.clock = FakeClock(start)
        self.app: App = open_app(config, clock=self.clock)
        self.loop = asyncio.new_event_loop()
        self.server = Server(self.app, port=0)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(10)
        self.port = self.server.port
        # the worker looks for due turns once on start (deadlines missed while down)
        wait_for(lambda: self.worker.turn_checks > 0, 30, "the first look at turns")
        self.settle()

    @property
    def worker(self) -> ThreadWorker:
        assert isinstance(self.server.worker, ThreadWorker)
        return self.server.worker

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
        self.app.store.close()

    def settle(self, timeout: float = 15.0) -> None:
        """Wait until every stored mail is processed and the due outbox sent."""
        store = self.app.store

        def done() -> bool:
            if store.mail_states().get("new"):
                self.worker.wake()
                return False
            if store.due_mail(self.clock.now(), 1):
                self.worker.sender.wake()
                return False
            return True

        wait_for(done, timeout, "the server to settle")

    def tick(self) -> None:
        """Let the scheduler look at the clock; wait for the turns it woke."""
        worker, deadlines = self.worker, self.server.deadlines

        async def wakeup() -> int:
            runs, due = deadlines.runs, deadlines.due()
            deadlines.tick()
            while deadlines.runs < runs + due:  # the jobs run as tasks on this loop
                await asyncio.sleep(0.001)
            return due

        if asyncio.run_coroutine_threadsafe(wakeup(), self.loop).result(10):
            asked = worker.turn_wakes  # every wake-up the jobs gave: wait for a look after it
            wait_for(lambda: worker.turn_wakes_done >= asked, 60, "the turns to run")
        self.settle()

    def advance(self, **delta: float) -> None:
        """Move the clock, then tick."""
        self.clock.advance(**delta)
        self.tick()
