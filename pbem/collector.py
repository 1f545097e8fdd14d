"""Python's cycle collector held off while a piece of work makes many
short-lived objects and no cycles.

The collector wakes up every few hundred new container objects and, now
and then, walks every object the process holds (a worker holds games,
configuration and caches). Work that makes tens of thousands of objects
and drops them by reference counting (adjudicating a tick, verifying a
DKIM signature) would pay for walks that find nothing. Measured on the
engines here, a tick leaves no cyclic garbage behind: holding the
collector off loses no memory, and what the work made is collected as
usual once it is back on.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def held_off() -> Iterator[None]:
    """No cycle collection inside the block (nested blocks: the outermost
    puts it back as it found it)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
