"""Deadlines: the game's cron expression in its time zone, the next slot
after a moment, and the deadline of a turn that starts now (after a late or
an early turn too), by the kind of phase that opens: games.yaml may give a
kind its own cron, or a length after the phase opens; and the deadlines a
notice names, as dates."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pbem.config import GameConfig
from pbem.store import GameRow
from pbem.turns.cron import cron_trigger
from pbem.turns.localtime import local

LATE = timedelta(minutes=2)  # a turn resolved this long after its deadline ran late


def rule(cfg: GameConfig, kind: str = "movement") -> str | timedelta:
    """The deadline of a kind of phase: its own cron or length from
    games.yaml, else the game's cron (``deadline``)."""
    return cfg.phase_deadlines.get(kind, cfg.deadline)


def cron_after(cfg: GameConfig, after: datetime, cron: str | None = None) -> datetime:
    """The first time of the game's cron expression (or ``cron``, a kind of
    phase's own) strictly after ``after`` (in UTC), once a day on the days
    clocks change: a wall-clock time that does not exist (spring forward)
    is taken an hour later, as APScheduler does; one that happens twice
    (fall back) counts once, the first time."""
    cron = cron or cfg.deadline
    trigger = cron_trigger(cron, ZoneInfo(cfg.timezone))
    zone = trigger.timezone
    start = after + timedelta(seconds=1)
    for _ in range(10_000):
        fire = trigger.get_next_fire_time(None, start.astimezone(zone).replace(microsecond=0))
        assert fire is not None, "a cron expression always fires again"
        wall = fire.astimezone(zone).replace(tzinfo=None)
        if fire > after and wall != after.astimezone(zone).replace(tzinfo=None):
            return fire.astimezone(after.tzinfo)
        start = max(start, fire) + timedelta(minutes=1)  # the repeated hour: on past it
    raise RuntimeError(f"no deadline found after {after} for {cron!r}")


def next_deadline(
    cfg: GameConfig,
    now: datetime,
    missed: datetime | None = None,
    early: bool = False,
    kind: str = "movement",
) -> datetime:
    """The deadline of a phase of ``kind`` that opens ``now``. A kind with
    a length (``retreat: 12h``) has all of it from now, whatever came
    before. On a cron: after a turn that ran late (``missed`` is its
    deadline), the first cron time at least half a normal turn away. After
    one resolved early (``early``: ADJUDICATE, every player READY, or
    nobody with anything to order), the first cron time at least the
    game's ``min_phase`` away (by default a normal turn: the cron period),
    so the next phase is never cut to what was left until the next slot."""
    own = rule(cfg, kind)
    if isinstance(own, timedelta):
        return now + own
    nxt = cron_after(cfg, now, own)
    if missed is not None and now - missed > LATE:
        period = cron_after(cfg, missed, own) - missed
        while nxt - now < period / 2:
            nxt = cron_after(cfg, nxt, own)
    if early:
        least = cfg.min_phase if cfg.min_phase is not None else cron_after(cfg, nxt, own) - nxt
        while nxt - now < least:
            nxt = cron_after(cfg, nxt, own)
    return nxt


def first_deadline(cfg: GameConfig, now: datetime, kind: str = "movement") -> datetime:
    """The first phase's deadline: the first cron time at least half a
    phase (``min_phase``, or the cron period) away, so a game that starts
    just before a slot is not over before its players have read the start
    mail; a kind with a length (a scenario that opens in a retreat phase)
    has all of it."""
    own = rule(cfg, kind)
    if isinstance(own, timedelta):
        return now + own
    deadline = cron_after(cfg, now, own)
    least = cfg.min_phase
    if least is None:
        least = cron_after(cfg, deadline, own) - deadline
    while deadline - now < least / 2:
        deadline = cron_after(cfg, deadline, own)
    return deadline


def dated(facts: Any, game_row: GameRow, cfg: GameConfig, zone: str) -> dict[str, Any]:
    """A game's notice facts with each ``{"deadline": k}`` (the k-th deadline
    from now, 1 the coming one) written as that date in the player's time
    zone (docs/interface.md)."""
    out = dict(facts)
    for key, value in facts.items():
        if not (isinstance(value, dict) and set(value) == {"deadline"}):
            continue
        when = game_row.deadline
        if when is None:
            out[key] = "a deadline to come (the game has none now)"
            continue
        for _ in range(int(value["deadline"]) - 1):
            when = cron_after(cfg, when)
        out[key] = local(when, zone)
    return out
