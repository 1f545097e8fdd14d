"""Deadlines: the game's cron expression in its time zone, the next slot
after a moment, and the deadline of a turn that starts now (after a late or
an early turn too)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from pbem.config import GameConfig
from pbem.turns.cron import cron_trigger

LATE = timedelta(minutes=2)  # a turn resolved this long after its deadline ran late


def cron_after(cfg: GameConfig, after: datetime) -> datetime:
    """The first time of the game's cron expression strictly after ``after``
    (in UTC), once a day on the days clocks change: a wall-clock time that
    does not exist (spring forward) is taken an hour later, as APScheduler
    does; one that happens twice (fall back) counts once, the first time."""
    trigger = cron_trigger(cfg.deadline, ZoneInfo(cfg.timezone))
    zone = trigger.timezone
    start = after + timedelta(seconds=1)
    for _ in range(10_000):
        fire = trigger.get_next_fire_time(None, start.astimezone(zone).replace(microsecond=0))
        assert fire is not None, "a cron expression always fires again"
        wall = fire.astimezone(zone).replace(tzinfo=None)
        if fire > after and wall != after.astimezone(zone).replace(tzinfo=None):
            return fire.astimezone(after.tzinfo)
        start = max(start, fire) + timedelta(minutes=1)  # the repeated hour: on past it
    raise RuntimeError(f"no deadline found after {after} for {cfg.deadline!r}")


def next_deadline(
    cfg: GameConfig, now: datetime, missed: datetime | None = None, early: bool = False
) -> datetime:
    """The deadline of a turn that starts ``now``. After a turn that ran late
    (``missed`` is its deadline), the first cron time at least half a
    normal turn away. After one resolved early (``early``: ADJUDICATE, or
    every player READY), the first cron time at least the game's
    ``min_phase`` away (by default a normal turn: the cron period), so
    the next phase is never cut to what was left until the next slot."""
    nxt = cron_after(cfg, now)
    if missed is not None and now - missed > LATE:
        period = cron_after(cfg, missed) - missed
        while nxt - now < period / 2:
            nxt = cron_after(cfg, nxt)
    if early:
        least = cfg.min_phase if cfg.min_phase is not None else cron_after(cfg, nxt) - nxt
        while nxt - now < least:
            nxt = cron_after(cfg, nxt)
    return nxt
