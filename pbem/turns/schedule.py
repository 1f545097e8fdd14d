"""The scheduler: APScheduler (3.x, asyncio) wakes the worker for turns.

It is only an alarm clock. The deadlines live in storage (games.deadline);
the scheduler keeps one job per game at its stored deadline and one at its
reminder time, rebuilt from storage at start and on every sweep, plus the
sweep itself every minute. Each job only wakes the worker, which resolves
what storage says is due (pbem/turns/runner.py). APScheduler's own job store is
never trusted with a turn: it records a job's next run when the job starts,
so a crash mid-turn would lose the turn, and several processes cannot share
it. Jobs live in memory and are rebuilt; a missed job costs nothing, since
the next sweep finds the due turn in storage.

The scheduler reads time through the app's clock (:class:`ClockScheduler`),
so tests drive the real scheduler with a clock they move by hand.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import apscheduler.schedulers.base as aps_base
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from pbem.app import App
from pbem.turns.clock import Clock

log = logging.getLogger("pbem.schedule")

SWEEP = timedelta(seconds=60)


@contextlib.contextmanager
def _clock_time(clock: Clock) -> Iterator[None]:
    """While the scheduler decides what is due, its "now" is the clock's."""

    class ClockDatetime(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
            now = clock.now()
            return now.astimezone(tz) if tz is not None else now.replace(tzinfo=None)

    saved = aps_base.datetime
    aps_base.datetime = ClockDatetime  # type: ignore[misc]
    try:
        yield
    finally:
        aps_base.datetime = saved  # type: ignore[misc]


class ClockScheduler(AsyncIOScheduler):
    """AsyncIOScheduler whose notion of now is the app's clock."""

    def __init__(self, clock: Clock, **options: Any) -> None:
        super().__init__(**options)
        self.clock = clock

    def _process_jobs(self) -> float | None:
        with _clock_time(self.clock):
            return super()._process_jobs()

    def add_job(self, *args: Any, **kwargs: Any) -> Any:
        with _clock_time(self.clock):
            return super().add_job(*args, **kwargs)


class Deadlines:
    """Jobs at every game's deadline and reminder time, and a sweep."""

    def __init__(self, app: App, wake: Callable[[], None]) -> None:
        self.app = app
        self._wake = wake
        self.scheduler = ClockScheduler(
            app.clock,
            timezone="UTC",
            job_defaults={"coalesce": True, "misfire_grace_time": None, "max_instances": 1},
        )
        self.jobs: dict[str, datetime] = {}  # job id -> when, as last rebuilt
        self.runs = 0  # jobs run (tests wait on it)

    def start(self) -> None:
        self.scheduler.start()
        self.rebuild()  # the deadline jobs, from storage, before anything else
        self.scheduler.add_job(
            self.sweep,
            IntervalTrigger(seconds=SWEEP.total_seconds(), timezone="UTC"),
            id="sweep",
            next_run_time=self.app.clock.now(),  # at once: turns missed while down
        )

    def stop(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    async def sweep(self) -> None:
        """Rebuild the deadline jobs from storage and wake the worker."""
        self.rebuild()
        self._wake()
        self.runs += 1

    async def fire(self, job: str) -> None:
        log.info("%s: waking the worker", job)
        self._wake()
        self.runs += 1

    def rebuild(self) -> None:
        wanted: dict[str, datetime] = {}
        with self.app.store.tx(write=False) as conn:
            for g in self.app.store.all_games(conn):
                if g.status != "running" or g.deadline is None:
                    continue
                wanted[f"deadline:{g.name}"] = g.deadline
                cfg = self.app.game_config(g.name)
                if cfg is not None and cfg.remind is not None and g.reminded_for != g.deadline:
                    wanted[f"remind:{g.name}"] = g.deadline - cfg.remind
        for job_id in set(self.jobs) - set(wanted):
            with contextlib.suppress(Exception):
                self.scheduler.remove_job(job_id)
            del self.jobs[job_id]
        for job_id, when in wanted.items():
            if self.jobs.get(job_id) == when:
                continue  # scheduled, or fired already (a fired job is gone)
            self.scheduler.add_job(
                self.fire,
                DateTrigger(when, timezone="UTC"),
                args=[job_id],
                id=job_id,
                replace_existing=True,
            )
            self.jobs[job_id] = when

    def due(self) -> int:
        """How many jobs are due by the clock."""
        now = self.app.clock.now()
        return sum(
            1
            for j in self.scheduler.get_jobs()
            if j.next_run_time is not None and j.next_run_time <= now
        )

    def tick(self) -> None:
        """Make the scheduler look at the clock now (tests move the clock,
        then tick; the server's own timers do this in real time)."""
        self.scheduler.wakeup()
