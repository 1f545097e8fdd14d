"""Fault injection for crash tests: PBEM_FAULT names points where the
server kills itself with SIGKILL, as a power cut would. Never set in
production; a test sets it for one server process."""

from __future__ import annotations

import os
import signal

CHILD = "PBEM_WORKER_CHILD"


def die() -> None:  # pragma: no cover - the process ends here
    """SIGKILL now: the whole server, the worker process's parent included."""
    if os.environ.get(CHILD):
        os.kill(os.getppid(), signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)
