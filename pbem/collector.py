"""Python's cycle collector held off while a piece of work makes many
short-lived objects and no cycles (checking a DKIM signature).

The collector wakes up every few hundred new container objects and, now
and then, walks every object the process holds (a worker holds games,
configuration and caches): work that makes tens of thousands of objects
and drops them by reference counting would pay for walks that find
nothing. (Not worth it around a turn's adjudication: what the tick makes
survives it, the new position, and the collection held off is paid for
by the reports right after: measured, no gain.)
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
