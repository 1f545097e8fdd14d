"""Times as players read them: in their own time zone, with its name; and a
moment as a game master writes one (DEADLINE)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


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


# What DEADLINE reads: a date and a time, with an optional zone
TIME_FORMS = (
    "2026-11-29 18:00 (in the game's time zone), 2026-11-29T18:00, or with a zone: "
    "2026-11-29 18:00 UTC, 2026-11-29T18:00+01:00, 2026-11-29 18:00 America/New_York"
)
_TIME = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)(?:T|\s+)(\d\d?):(\d\d)(?::(\d\d))?"
    r"\s*(Z|UTC|GMT|[+-]\d\d:?\d\d|[A-Za-z_]+(?:/[A-Za-z0-9_+-]+)+)?",
    re.I,
)


def read_time(text: str, tz: str) -> datetime:
    """A moment as a game master writes it (``TIME_FORMS``), in the time
    zone ``tz`` unless it names one; in UTC. A local time that does not
    exist (the hour a spring-forward night skips) is refused; one that
    happens twice counts the first time. ValueError says what is read."""
    m = _TIME.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"write the time as {TIME_FORMS}; not {text.strip()!r}")
    try:
        naive = datetime(*(int(x) for x in m.group(1, 2, 3, 4, 5)), int(m[6] or 0))
    except ValueError as exc:
        raise ValueError(f"{text.strip()!r} is no date and time: {exc}") from None
    zone_text = (m[7] or "").upper()
    if zone_text in ("Z", "UTC", "GMT"):
        return naive.replace(tzinfo=UTC)
    if zone_text[:1] in "+-" and zone_text:
        digits = zone_text[1:].replace(":", "")
        offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        if offset > timedelta(hours=14) or int(digits[2:]) >= 60:
            raise ValueError(f"{m[7]} is no UTC offset")
        return (naive - offset if zone_text[0] == "+" else naive + offset).replace(tzinfo=UTC)
    try:
        zone = ZoneInfo(m[7] or tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"{m[7]!r} is no time zone (write Area/City, UTC or +01:00)") from None
    when = naive.replace(tzinfo=zone)
    if when.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
        raise ValueError(f"{naive:%Y-%m-%d %H:%M} does not exist in {zone.key}: the clocks skip it")
    return when.astimezone(UTC)
