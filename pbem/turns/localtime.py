"""Times as players read them: in their own time zone, with its name."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo


def local(when: datetime | None, tz: str) -> str:
    """``Mon 23 Nov 2026 18:00 CET (Europe/Berlin)``; "none" for no time."""
    if when is None:
        return "none"
    zone = ZoneInfo(tz)
    t = when.astimezone(zone)
    return f"{t:%a %d %b %Y %H:%M} {t.tzname()} ({zone.key})"
