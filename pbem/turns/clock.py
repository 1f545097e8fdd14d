"""The clock, injected: the server reads time only through a Clock, so
tests move it by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware, in UTC."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FakeClock:
    """A clock that stands still until told to move."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 11, 21, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, **delta: float) -> datetime:
        self._now += timedelta(**delta)
        return self._now

    def set(self, when: datetime) -> None:
        self._now = when
