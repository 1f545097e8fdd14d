"""Fault injection for crash tests: PBEM_FAULT names points (comma
separated) where the server fails on purpose: most kill it with SIGKILL, as
a power cut would; ``store_down`` and ``poison`` raise instead. Never set
in production; a test sets it for one server process. Production code only
calls the one hook, ``app.fault("point")`` (pbem/app.py)."""

from __future__ import annotations

import os
import signal

CHILD = "PBEM_WORKER_CHILD"
VARIABLE = "PBEM_FAULT"


def from_environment() -> frozenset[str]:
    """The fault points PBEM_FAULT names (none, in production)."""
    return frozenset(f for f in os.environ.get(VARIABLE, "").split(",") if f)


def die() -> None:  # pragma: no cover - the process ends here
    """SIGKILL now: the whole server, the worker process's parent included."""
    if os.environ.get(CHILD):
        os.kill(os.getppid(), signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)
