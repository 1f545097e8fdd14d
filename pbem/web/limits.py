"""Requests limited per client address: a token bucket each (``rate``
requests a second on average, ``burst`` at once), answered 429 with
Retry-After past it. Addresses are the connecting peer's: behind a
reverse proxy every reader comes from the proxy's address, so there the
proxy limits and games.yaml's ``web: {rate: 0}`` turns this off."""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
KEPT = 10_000  # addresses remembered before the idle ones are dropped


class Limiter:
    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate = rate
        self.burst = float(max(1, burst))
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, when)

    def wait(self, address: str) -> float:
        """0 when ``address`` may have a request now (and it is counted);
        else the seconds until it may."""
        now = self.clock()
        tokens, then = self._buckets.get(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens >= 1.0:
            self._buckets[address] = (tokens - 1.0, now)
            self._prune(now)
            return 0.0
        self._buckets[address] = (tokens, now)
        return (1.0 - tokens) / self.rate

    def _prune(self, now: float) -> None:
        """Forget the addresses whose buckets are full again."""
        if len(self._buckets) <= KEPT:
            return
        full = self.burst / self.rate
        for address, (_, then) in list(self._buckets.items()):
            if now - then >= full:
                del self._buckets[address]


def middleware(limiter: Limiter) -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    @web.middleware
    async def limited(request: web.Request, handler: Handler) -> web.StreamResponse:
        wait = limiter.wait(request.remote or "")
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise web.HTTPTooManyRequests(
                text=f"Too many requests from your address: try again in {seconds} s.\n",
                headers={"Retry-After": str(seconds)},
            )
        return await handler(request)

    return limited
