"""Pages kept in memory, and the cheap versions that say they still hold.

A page is rendered once and kept under a key of what it depends on (the
page, the game, the viewer, the game's version): a request for an
unchanged page costs no rendering. The version of a game (one statement on
indexes, pbem/store/pages.py) is asked of storage at most once a second
per game; within that second a request touches no storage at all. A
finished phase's page depends on nothing that changes and is kept under
its own key for good (until pushed out by newer pages).

Concurrent requests for the same missing page or version wait for one
rendering or one read: fifty readers arriving at once after a turn cost
one rendering, not fifty.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from pbem.web.base import in_thread

VERSION_FRESH = 1.0  # seconds a version read from storage is trusted
PAGES_KEPT = 2048  # rendered pages (and maps) kept, the least recently used dropped
BYTES_KEPT = 64 * 1024 * 1024  # and no more than this many bytes of them
VERSIONS_KEPT = 10_000  # games' versions remembered (asked-for names that are no game too)


@dataclass(frozen=True)
class Rendered:
    """An answer ready to send again and again."""

    body: bytes
    content_type: str
    cache_control: str
    status: int = 200
    etag: str = field(default="")
    headers: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not self.etag:
            digest = hashlib.sha256(self.body).hexdigest()[:24]
            object.__setattr__(self, "etag", f'"{digest}"')


class _Flights:
    """One computation per key at a time; the others wait for its result."""

    def __init__(self) -> None:
        self._running: dict[Hashable, asyncio.Future[Any]] = {}

    async def once(self, key: Hashable, make: Callable[[], Any]) -> Any:
        running = self._running.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._running[key] = future
        try:
            value = await in_thread(make)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: a waiter may or may not be there
            raise
        finally:
            del self._running[key]
        future.set_result(value)
        return value


class Versions:
    """The version of each game (and of the list), read at most once a
    second each."""

    def __init__(self, fresh: float | None = None, clock: Callable[[], float] = time.monotonic):
        self.fresh = VERSION_FRESH if fresh is None else fresh
        self.clock = clock
        self._known: OrderedDict[Hashable, tuple[Any, float]] = OrderedDict()
        self._flights = _Flights()
        self.reads = 0  # how often storage was asked (the tests count them)

    async def of(self, key: Hashable, read: Callable[[], Any]) -> Any:
        now = self.clock()
        known = self._known.get(key)
        if known is not None and now - known[1] < self.fresh:
            return known[0]

        def counted() -> Any:
            self.reads += 1
            return read()

        version = await self._flights.once(key, counted)
        self._known[key] = (version, self.clock())
        self._known.move_to_end(key)
        while len(self._known) > VERSIONS_KEPT:
            self._known.popitem(last=False)
        return version

    def forget(self) -> None:
        self._known.clear()


class Pages:
    """Rendered pages by key, the least recently used dropped past ``size``
    pages or ``budget`` bytes."""

    def __init__(self, size: int = PAGES_KEPT, budget: int = BYTES_KEPT) -> None:
        self.size = size
        self.budget = budget
        self.bytes = 0
        self._pages: OrderedDict[Hashable, Rendered] = OrderedDict()
        self._flights = _Flights()
        self.renders = 0  # how many pages were rendered (the tests count them)

    async def get(self, key: Hashable, make: Callable[[], Rendered]) -> Rendered:
        page = self._pages.get(key)
        if page is not None:
            self._pages.move_to_end(key)
            return page

        def counted() -> Rendered:
            self.renders += 1
            return make()

        page = await self._flights.once(key, counted)
        if key not in self._pages:
            self._pages[key] = page
            self.bytes += len(page.body)
        while len(self._pages) > 1 and (len(self._pages) > self.size or self.bytes > self.budget):
            _, dropped = self._pages.popitem(last=False)
            self.bytes -= len(dropped.body)
        return page
