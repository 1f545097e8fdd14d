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
        raise ValueError(
            f"the day of the week {token!r} is not understood: use 0-7 (0 and 7 are "
            "Sunday) or sun-sat"
        )
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
            raise ValueError(f"the day of the week field {part!r} is not understood")
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


_FIELDS = (
    ("minute", 0, 59, "0-59"),
    ("hour", 0, 23, "0-23"),
    ("day of the month", 1, 31, "1-31"),
    ("month", 1, 12, "1-12 or jan-dec"),
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _value(token: str, lo: int, hi: int, names: tuple[str, ...]) -> int | None:
    token = token.strip().lower()
    if names and token[:3] in names and token.isalpha():
        return names.index(token[:3]) + lo
    if token.isdigit() and lo <= int(token) <= hi:
        return int(token)
    return None


def _a(noun: str) -> str:
    return ("an " if noun[0] in "aeiouh" else "a ") + noun


def _check_field(text: str, what: str, lo: int, hi: int, allowed: str) -> None:
    """Raise ValueError naming the field if ``text`` is not a cron field
    of values ``lo``..``hi``: *, a value, a range a-b, any of them with a
    step /n, or a list of those."""
    names = _MONTHS if what == "month" else ()
    hint = (
        f"the {what} field {text!r} is not understood: write {_a(what.split()[0])} "
        f"({allowed}), a range such as {lo}-{lo + 5}, a list such as {lo},{lo + 5}, "
        f"or * for every {what.split()[0]}, optionally with a step (*/2)"
    )
    for part in text.split(","):
        span, slash, step = part.partition("/")
        if slash and (not step.isdigit() or int(step) < 1):
            raise ValueError(f"the {what} field {text!r}: a step (/{step}) must be 1 or more")
        if span in ("*", "?"):
            continue
        a, dash, b = span.partition("-")
        first = _value(a, lo, hi, names)
        last = _value(b, lo, hi, names) if dash else first
        if first is None or last is None:
            bad = a if first is None else b
            if bad.strip().isdigit():
                raise ValueError(
                    f"the {what} field {text!r}: {bad.strip()} is not {_a(what.split()[0])} "
                    f"({allowed})"
                )
            raise ValueError(hint)
        if last < first:
            raise ValueError(f"the {what} field {text!r}: the range {span} runs backwards")


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
    for text, (what, lo, hi, allowed) in zip(fields, _FIELDS, strict=False):
        _check_field(text, what, lo, hi, allowed)
    if day not in ("*", "?") and weekday not in ("*", "?"):
        # cron runs when either matches, APScheduler only when both do
        raise ValueError(
            f"the day of the month ({day}) and the day of the week ({weekday}) are both "
            "restricted: restrict one of them and write * in the other"
        )
    days = _days(weekday)
    dow = "*" if days is None else ",".join(_DAYS[d] for d in days)
    try:
        return CronTrigger(
            minute=minute, hour=hour, day=day, month=month, day_of_week=dow, timezone=timezone
        )
    except ValueError as exc:  # what our own checks let through, in the scheduler's words
        raise ValueError(f"the expression {expression!r} is not understood ({exc})") from None
