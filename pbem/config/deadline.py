"""games.yaml's ``deadline``: one cron expression for every phase, or one
for each kind of phase the game has (``Game.phase_kinds``), each a cron or
a length after the phase opens::

    deadline: "0 20 * * *"        # every phase

    deadline:
      movement: "0 20 * * *"      # the main kind: a cron (default: the game's)
      retreat: 12h                # a length after the phase opens,
      adjustment: "0 8 * * *"     # or a cron of its own (default: movement's)
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from adjudicator.base import closest_names
from pbem.config.checker import Checker, parse_duration
from pbem.turns.cron import cron_trigger

LONGEST = timedelta(days=30)  # a phase's length: a minute to 30 days


def deadlines(
    c: Checker, raw: dict, label: str, engine: Any, tz: str
) -> tuple[str | None, dict[str, str | timedelta]]:
    """The main kind's cron expression (the game's own by default), and the
    other kinds' own deadlines: {kind: a cron, or a length}. A plain
    ``deadline:`` (or none) gives every phase the one cron, as before."""
    value = raw.get("deadline")
    if not isinstance(value, dict):
        return _cron(c, raw, "deadline", f"{label}: deadline", engine, tz), {}
    kinds = tuple(engine.phase_kinds) if engine is not None else ()
    main = kinds[0] if kinds else "movement"
    if engine is not None:
        _kinds(c, value, label, engine)
    own: dict[str, str | timedelta] = {}
    for kind in value:
        if kind == main or kind not in kinds:
            continue
        found = _cron_or_length(c, value, kind, f"{label}: deadline {kind}", tz)
        if found is not None:
            own[kind] = found
    if main in value and isinstance(value[main], str) and parse_duration(value[main]):
        c.add(
            value,
            main,
            f'{label}: deadline {main}: a cron expression, such as "0 20 * * *" (the '
            f"{main} phases set the game's rhythm; the other kinds may take a length)",
        )
        return None, own
    return _cron(c, value, main, f"{label}: deadline {main}", engine, tz), own


def _kinds(c: Checker, value: dict, label: str, engine: Any) -> None:
    """Every key a kind of phase the game has, a misspelt one with the
    kind it is likely to mean."""
    kinds = tuple(engine.phase_kinds)
    for kind in value:
        if kind in kinds:
            continue
        near = closest_names(str(kind), kinds)
        hint = f" (did you mean {near[0]}?)" if near else ""
        if len(kinds) == 1:
            c.add(
                value,
                kind,
                f"{label}: deadline: {engine.title} has {kinds[0]} phases only, not "
                f"{kind!r}: give deadline as one cron expression",
            )
        else:
            c.add(
                value,
                kind,
                f"{label}: deadline: unknown kind of phase {kind!r}{hint}; {engine.title}'s "
                f"phases: {', '.join(kinds)}",
            )


def _cron(c: Checker, where: dict, key: str, what: str, engine: Any, tz: str) -> str | None:
    """A cron expression (by default the game's own), checked."""
    cron = c.string(where, key, what)
    if cron is None and engine is not None:
        cron = engine.default_deadline
        if cron is None:
            c.add(where, None, f"{what} is missing (a cron expression)")
    if cron is not None:
        try:
            cron_trigger(cron, ZoneInfo(tz))
        except ValueError as exc:
            c.add(where, key, f"{what} {cron!r}: {exc}")
    return cron


def _cron_or_length(c: Checker, where: dict, key: str, what: str, tz: str) -> Any:
    """A kind's own deadline: a length (``12h``, ``30m``, ``2d``) or a cron
    expression (five fields); None after a problem."""
    value = c.string(where, key, what)
    if value is None:
        if where.get(key) is None:  # written with no value
            c.add(where, key, f"{what}: a cron expression or a length such as 12h")
        return None
    if len(value.split()) >= 5:  # a cron expression (its five fields)
        try:
            cron_trigger(value, ZoneInfo(tz))
        except ValueError as exc:
            c.add(where, key, f"{what} {value!r}: {exc}")
            return None
        return value
    length = parse_duration(value)
    if length is None or not timedelta(minutes=1) <= length <= LONGEST:
        c.add(
            where,
            key,
            f"{what} {value!r}: give a length from 1m to 30d (30m, 12h, 2d) or a cron "
            'expression ("0 8 * * *")',
        )
        return None
    return length


def described(cron: str, own: Any) -> str:
    """A game's deadlines as ``pbem check`` lists them: ``'0 20 * * *'``,
    then each kind with its own (``retreat 12h, adjustment '0 8 * * *'``)."""
    parts = [f"{kind} {_words(rule)}" for kind, rule in own.items()]
    return f"'{cron}'" + (f" ({', '.join(parts)})" if parts else "")


def _words(rule: str | timedelta) -> str:
    if isinstance(rule, str):
        return f"'{rule}'"
    minutes = int(rule.total_seconds()) // 60
    for unit, size in (("d", 1440), ("h", 60)):
        if minutes % size == 0:
            return f"{minutes // size}{unit}"
    return f"{minutes}m"
