"""Cron expressions as game masters write them, for APScheduler 3.x.

APScheduler 3's ``CronTrigger.from_crontab`` reads the day-of-week field
with Monday as 0, where cron (and every game master) means Sunday as 0 and
Monday as 1. :func:`cron_trigger` reads the standard meaning and hands
APScheduler day names, which mean the same to both.
"""

from __future__ import annotations

import re
from datetime import tzinfo

from apscheduler.triggers.cron import CronTrigger

_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


def _day(token: str) -> int:
    token = token.strip().lower()
    if token[:3] in _DAYS and token.isalpha():
        return _DAYS.index(token[:3])
    if not token.isdigit() or int(token) > 7:
        raise ValueError(f"day of week {token!r}: use 0-7 (0 and 7 are Sunday) or sun-sat")
    return int(token) % 7


def _days(field: str) -> list[int] | None:
    """The set of weekdays (0 = Sunday) a cron day-of-week field names, or
    None for every day."""
    if field in ("*", "?"):
        return None
    days: set[int] = set()
    for part in field.split(","):
        m = re.fullmatch(r"(?P<range>[^/]+)(?:/(?P<step>\d+))?", part.strip())
        if not m:
            raise ValueError(f"day of week {part!r} is not understood")
        step = int(m["step"] or 1)
        if step < 1:
            raise ValueError("a step must be 1 or more")
        span = m["range"]
        if span == "*":
            lo, hi = 0, 6
        elif "-" in span:
            a, b = span.split("-", 1)
            lo, hi = _day(a), _day(b)
            if b.strip() == "7":
                hi = 7
            if hi < lo:
                raise ValueError(f"day of week range {span!r} runs backwards")
        else:
            lo = hi = _day(span)
            if m["step"]:
                hi = 6
        days.update(d % 7 for d in range(lo, hi + 1, step))
    return sorted(days)


def cron_trigger(expression: str, timezone: tzinfo) -> CronTrigger:
    """A trigger for a five-field cron expression (minute hour day month
    weekday) in ``timezone``. Raises ValueError saying what is wrong."""
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(
            f"a cron expression has 5 fields (minute hour day month weekday), "
            f"this one has {len(fields)}"
        )
    minute, hour, day, month, weekday = fields
    if day not in ("*", "?") and weekday not in ("*", "?"):
        # cron runs when either matches, APScheduler only when both do
        raise ValueError("restrict the day of the month or the day of the week, not both")
    days = _days(weekday)
    dow = "*" if days is None else ",".join(_DAYS[d] for d in days)
    return CronTrigger(
        minute=minute, hour=hour, day=day, month=month, day_of_week=dow, timezone=timezone
    )
