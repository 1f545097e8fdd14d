"""Times as players read them: in their own time zone, with its name."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from zoneinfo import ZoneInfo


@lru_cache(maxsize=4096)
def local(when: datetime | None, tz: str) -> str:
    """``Mon 23 Nov 2026 18:00 CET (Europe/Berlin)``; "none" for no time
    (remembered: a game's deadline is shown in every receipt until it
    passes)."""
    if when is None:
        return "none"
    zone = ZoneInfo(tz)
    t = when.astimezone(zone)
    return f"{t:%a %d %b %Y %H:%M} {t.tzname()} ({zone.key})"
