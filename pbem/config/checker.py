"""Reading games.yaml's values with every problem collected, each with its
line: the checker, durations, and a mapping without a key."""

from __future__ import annotations

import functools
import re
import zoneinfo
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from adjudicator import yamltext
from adjudicator.base import closest_names


class Checker:
    """Collects problems as 'FILE, line N: message'."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._found: list[tuple[int, str]] = []

    def add(self, where: Any, key: Any, message: str) -> None:
        line = yamltext.line_of(where, key)
        prefix = f"{self.source}, line {line}" if line else self.source
        self._found.append((line, f"{prefix}: {message}"))

    @property
    def problems(self) -> list[str]:
        """Every problem, in the order of the file."""
        return [text for _, text in sorted(self._found, key=lambda item: item[0])]

    def keys(self, where: dict, allowed: tuple[str, ...], what: str) -> None:
        for key in where:
            if key not in allowed:
                near = closest_names(str(key), allowed, 1)
                hint = f"did you mean {near[0]}?" if near else f"known: {', '.join(allowed)}"
                self.add(where, key, f"{what}: unknown key {key!r} ({hint})")

    def mapping(self, where: Any, key: str, what: str, required: bool = False) -> dict:
        value = where.get(key) if isinstance(where, dict) else None
        if value is None:
            if required:
                self.add(
                    where,
                    key if isinstance(where, dict) and key in where else None,
                    f"{what} is missing",
                )
            return yamltext.LineDict()
        if not isinstance(value, dict):
            self.add(where, key, f"{what} must be a mapping")
            return yamltext.LineDict()
        return value

    def string(
        self,
        where: dict,
        key: str,
        what: str,
        required: bool = False,
        pattern: re.Pattern[str] | None = None,
        hint: str = "",
    ) -> str | None:
        if key not in where or where[key] is None:
            if required:
                self.add(where, None, f"{what} is missing")
            return None
        value = where[key]
        if not isinstance(value, str | int) or isinstance(value, bool):
            self.add(where, key, f"{what} must be text")
            return None
        value = str(value)
        if pattern is not None and not pattern.match(value):
            self.add(where, key, f"{what} {value!r} is not valid{hint}")
            return None
        return value

    def integer(self, where: dict, key: str, what: str, default: int, low: int, high: int) -> int:
        value = where.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            self.add(where, key, f"{what} must be a whole number from {low} to {high}")
            return default
        return value

    def timezone(self, where: dict, key: str, what: str) -> str | None:
        value = self.string(where, key, what)
        if value is None:
            return None
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            near = closest_names(value, sorted(_zones()), 1)
            hint = f"did you mean {near[0]}?" if near else "use Area/City, for example Europe/Oslo"
            self.add(where, key, f"{what} {value!r} is not a time zone ({hint})")
            return None
        return value


@functools.cache
def _zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def _without(raw: Any, key: str) -> Any:
    """The mapping without ``key``, keeping its line numbers."""
    if key not in raw:
        return raw
    out = type(raw)({k: v for k, v in raw.items() if k != key})
    for attr in ("line", "lines"):
        if hasattr(raw, attr):
            setattr(out, attr, getattr(raw, attr))
    return out


DURATION = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "": "minutes"}


def parse_duration(text: str) -> timedelta | None:
    """'90m', '2h', '7d', '30s' (a bare number is minutes); None if unreadable."""
    m = DURATION.match(text.lower())
    if m is None:
        return None
    return timedelta(**{UNITS[m[2]]: int(m[1])})


def _duration(
    c: Checker, raw: dict, key: str, label: str, default: timedelta | None
) -> timedelta | None:
    """A duration key; 0, false or none turn it off (None)."""
    value = raw.get(key, default)
    if isinstance(value, timedelta):
        return value
    if value in (0, False, None, "none", "off"):
        return None
    found = parse_duration(str(value)) if not isinstance(value, bool) else None
    if found is None:
        c.add(raw, key, f"{label}: {key} must be a duration such as 30m, 2h or 7d")
        return default
    return found or None
