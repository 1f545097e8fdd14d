"""Health and metrics of `pbem serve` over HTTP (games.yaml's server
``metrics: {listen: {host, port}}``), on a port of its own, served by a
thread of the SMTP process: it answers whether the web pages are on or
off, and it is the process that watches the others (it restarts the mail
worker and knows whether it runs).

    /healthz   200 while the process answers at all
    /readyz    200 when the database answers, the worker runs (its process
               is alive, it holds the store's lease or beats) and is not
               failing, the backlog (mail stored, not finished) is below
               ``max_backlog`` and no mail has waited to go out longer than
               ``max_outbox_age``; else 503. Each check's value in JSON.
    /metrics   Prometheus's text format (prometheus_client)

Every count comes from the store at scrape time (the inbox by state, the
spool, the outbox by status, the bounces by kind: they survive restarts,
and every process of every node sees the same), read at most once every
CACHE seconds whatever the scrapers do; the worker's failures, which only
it knows, come from the memory it shares with this process (trouble.py's
tally). A thread checks the same readings every CHECK seconds for the
operator's alerts: the database unreachable (logged at once, mailed with
how long it lasted once it answers again: an alert about the database
cannot wait in it), the outbox backing up.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from sqlalchemy import case, func, select

from pbem.app import App
from pbem.config import MetricsConfig
from pbem.serving.trouble import FAILURES, IN_A_ROW, REPORT_AFTER, SLOTS, STORE_FAILURES, may_alert
from pbem.store.schema import bounces, games, inbox, leases, nodes, outbox, turns

log = logging.getLogger("pbem.metrics")

CACHE = 1.5  # seconds a reading of the store serves every scrape and health check
CHECK = 10.0  # seconds between the alert thread's looks
LOOPS = ("worker", "sender")  # the tally's loops, in its order
# the turn lag histogram's upper bounds, seconds: the sweep's minute, the
# settling time after an outage (docs/deadlines.md), an outage's hours
LAG_BUCKETS = (1.0, 5.0, 15.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 21600.0)


def _aware(at: datetime | None) -> datetime | None:
    return at.replace(tzinfo=UTC) if at is not None and at.tzinfo is None else at


@dataclass
class Readings:
    """What the store says, at ``at`` (time.time()); ``error`` when it
    could not be read (then the counts are empty)."""

    at: float
    error: str | None = None
    inbox: dict[str, int] = field(default_factory=dict)  # state -> mails
    spooled: int = 0  # received, not yet in the inbox
    outbox: dict[str, int] = field(default_factory=dict)  # status -> mails
    oldest_pending: float = 0.0  # seconds the oldest mail to go out has waited
    bounces: dict[str, int] = field(default_factory=dict)  # kind -> bounces
    worker_beats: bool = False  # a live lease (SQLite) or heartbeat (a shared store)
    overdue: dict[str, float] = field(default_factory=dict)  # game -> seconds past its deadline
    # turns resolved at their deadline: how many took at most each of
    # LAG_BUCKETS seconds after it, how many in all, their seconds summed
    lag_buckets: list[int] = field(default_factory=list)
    lag_count: int = 0
    lag_sum: float = 0.0

    @property
    def backlog(self) -> int:
        return self.spooled + self.inbox.get("new", 0)


def read_store(app: App) -> Readings:
    """A few COUNTs, each over an index (or a small table)."""
    wall, now = time.time(), app.clock.now()
    got = Readings(wall)
    spooled = app.store.spooled()
    with app.store.tx(write=False) as conn:
        got.spooled = int(spooled)
        q = select(inbox.c.state, func.count()).group_by(inbox.c.state)
        got.inbox = {state: int(n) for state, n in conn.execute(q).all()}
        q = select(outbox.c.status, func.count()).group_by(outbox.c.status)
        got.outbox = {status: int(n) for status, n in conn.execute(q).all()}
        oldest = _aware(
            conn.execute(
                select(func.min(outbox.c.created_at)).where(outbox.c.status == "pending")
            ).scalar()
        )
        got.oldest_pending = max(0.0, (now - oldest).total_seconds()) if oldest else 0.0
        q = select(bounces.c.kind, func.count()).group_by(bounces.c.kind)
        got.bounces = {kind: int(n) for kind, n in conn.execute(q).all()}
        table = nodes if app.store.shared else leases
        got.worker_beats = (
            conn.execute(select(func.count()).where(table.c.until >= wall)).scalar_one() > 0
        )
        q = select(games.c.name, games.c.deadline).where(
            games.c.status == "running", games.c.deadline <= now
        )
        for name, deadline in conn.execute(q).all():
            got.overdue[name] = (now - _aware(deadline)).total_seconds()
        lagged = turns.c.lag.is_not(None)
        q = select(
            func.count(),
            func.coalesce(func.sum(turns.c.lag), 0.0),
            *(
                func.coalesce(func.sum(case((turns.c.lag <= b, 1), else_=0)), 0)
                for b in LAG_BUCKETS
            ),
        ).where(lagged)
        count, total, *buckets = conn.execute(q).one()
        got.lag_count, got.lag_sum = int(count), float(total)
        got.lag_buckets = [int(n) for n in buckets]
    return got


class Watch:
    """The readings, the checks and the metrics of one server; the HTTP
    server that answers them (``serve``) and the alert thread (``start``)."""

    def __init__(
        self,
        app: App,
        worker_alive: Callable[[], bool],
        tally: Sequence[int],
        limits: MetricsConfig | None = None,
    ) -> None:
        self.app = app
        self.worker_alive = worker_alive
        self.tally = tally
        self.limits = limits or MetricsConfig()
        self.read_failures = 0  # the store unreadable, as this process found it
        self._last: Readings | None = None
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._http: ThreadingHTTPServer | None = None
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_Collector(self))

    # -- readings ---------------------------------------------------------------

    def readings(self) -> Readings:
        """The store's counts, read again if the last reading is older than CACHE."""
        with self._lock:
            if self._last is None or time.time() - self._last.at > CACHE:
                try:
                    self._last = read_store(self.app)
                except Exception as exc:
                    self.read_failures += 1
                    first = (str(exc).strip().splitlines() or [""])[0]
                    said = f"{type(exc).__name__}: {first}"
                    self._last = Readings(time.time(), error=said[:300])
                fresh = self._last
                # noted before the lock is let go: a reading in another
                # thread that finds the database down (a /readyz answering
                # 503) comes after the log says so
                began = self._went(fresh)
            else:
                return self._last
        self._database(fresh, began)
        return fresh

    def in_a_row(self) -> int:
        return max(self.tally[i * SLOTS + IN_A_ROW] for i in range(len(LOOPS)))

    def ready(self) -> tuple[bool, dict[str, Any]]:
        """Each check: its value, its limit, whether it passes."""
        r = self.readings()
        failing = self.in_a_row()
        alive = self.worker_alive()
        checks: dict[str, Any] = {
            "database": {"ok": r.error is None, "error": r.error},
            "worker": {
                "ok": alive and (r.worker_beats or r.error is not None) and failing < REPORT_AFTER,
                "process_alive": alive,
                "lease_or_heartbeat": r.worker_beats,
                "failures_in_a_row": failing,
                "limit": REPORT_AFTER,
            },
        }
        if r.error is None:
            checks["backlog"] = {
                "ok": r.backlog < self.limits.max_backlog,
                "value": r.backlog,
                "limit": self.limits.max_backlog,
            }
            age = self.limits.max_outbox_age.total_seconds()
            checks["outbox"] = {
                "ok": r.oldest_pending < age,
                "pending": r.outbox.get("pending", 0),
                "oldest_pending_seconds": round(r.oldest_pending, 1),
                "limit_seconds": age,
            }
        return all(c["ok"] for c in checks.values()), checks

    def metrics(self) -> bytes:
        return generate_latest(self.registry)

    # -- the alert thread and the HTTP server ----------------------------------------

    def start(self) -> None:
        """Look at the readings every CHECK seconds, for the operator's alerts."""
        thread = threading.Thread(target=self._watch, name="pbem-watch", daemon=True)
        thread.start()
        self._threads.append(thread)

    def _watch(self) -> None:
        while not self._stop.wait(CHECK):
            try:
                self.check()
            except Exception:  # never the end of the watching
                log.exception("watching the server failed")

    def check(self) -> None:
        """The database answers or not (``readings`` says so); the outbox
        flows or not."""
        r = self.readings()
        if r.error is not None:
            return
        age = self.limits.max_outbox_age.total_seconds()
        if r.oldest_pending >= age:
            self._alert(
                "outbox",
                "the outbox is backing up",
                f"{r.outbox.get('pending', 0)} mails wait to go out, the oldest for "
                f"{r.oldest_pending / 60:.0f} minutes. `pbem outbox` shows them and "
                "their last errors (the relay refusing, or unreachable).",
            )

    def _went(self, r: Readings) -> float | None:
        """A fresh reading, under the lock: the database went down (said at
        once in the log). Since when it was down before this reading."""
        began = self._down_since
        if r.error is None:
            self._down_since = None
        elif began is None:
            self._down_since = r.at
            log.critical(
                "the database does not answer (%s): mail is refused for now; the "
                "operator is told once it answers again",
                r.error,
            )
        return began

    def _database(self, r: Readings, began: float | None) -> None:
        """After a fresh reading: the database came back (the operator
        mailed how long it lasted)."""
        if r.error is not None:
            return
        if began is not None:
            lasted = r.at - began
            log.warning("the database answers again, after %.0f s", lasted)
            self._alert(
                "database",
                "the database was unreachable",
                f"The database did not answer from {_utc(began)} to {_utc(r.at)} "
                f"({lasted:.0f} s). It answers again; mail received meanwhile was refused "
                f"with a temporary error and is sent again by its senders.",
                limit=False,
            )

    def _alert(self, kind: str, subject: str, text: str, limit: bool = True) -> None:
        if limit and not may_alert(f"{self.app.store.url} watch: {kind}"):
            return
        log.warning("telling the operator: %s", subject)
        try:
            with self.app.store.tx() as conn:
                self.app.alert_operator(conn, subject, text)
        except Exception as exc:
            log.critical("telling the operator that %s failed: %s", subject, exc)

    def serve(self, host: str, port: int) -> int:
        """Answer /healthz, /readyz and /metrics on ``host``:``port`` (0:
        any free port) in a thread; returns the port."""
        watch = self

        class Handler(BaseHTTPRequestHandler):
            server_version = "pbem"
            sys_version = ""

            def do_GET(self) -> None:  # noqa: N802 (the library's name)
                path = self.path.split("?", 1)[0]
                if path == "/healthz":
                    self._answer(200, b'{"ok": true}\n', "application/json")
                elif path == "/readyz":
                    ok, checks = watch.ready()
                    body = json.dumps({"ok": ok, "checks": checks}, indent=1) + "\n"
                    self._answer(200 if ok else 503, body.encode(), "application/json")
                elif path == "/metrics":
                    self._answer(200, watch.metrics(), CONTENT_TYPE_LATEST)
                else:
                    self._answer(404, b"404 Not Found\n", "text/plain")

            def _answer(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                log.debug("%s %s", self.address_string(), format % args)

        self._http = ThreadingHTTPServer((host, port), Handler)
        self._http.daemon_threads = True
        thread = threading.Thread(target=self._http.serve_forever, name="pbem-metrics", daemon=True)
        thread.start()
        self._threads.append(thread)
        return int(self._http.server_address[1])

    def stop(self) -> None:
        self._stop.set()
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()


def _utc(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class _Collector:
    """The metrics, made at each scrape from the watch's readings."""

    def __init__(self, watch: Watch) -> None:
        self.watch = watch

    def collect(self) -> Iterator[Metric]:
        w = self.watch
        r = w.readings()
        up = GaugeMetricFamily("pbem_database_up", "Whether the database answered")
        up.add_metric([], 0 if r.error else 1)
        yield up
        store_failures = sum(w.tally[i * SLOTS + STORE_FAILURES] for i in range(len(LOOPS)))
        yield CounterMetricFamily(
            "pbem_database_failures",
            "Failures to read or write the database (the worker's and the health checks')",
            value=store_failures + w.read_failures,
        )
        failures = CounterMetricFamily(
            "pbem_worker_failures", "Failures of the worker's loops", labels=["loop"]
        )
        failing = GaugeMetricFamily(
            "pbem_worker_failures_in_a_row", "Failures since the loop last worked", labels=["loop"]
        )
        for i, loop in enumerate(LOOPS):
            failures.add_metric([loop], w.tally[i * SLOTS + FAILURES])
            failing.add_metric([loop], w.tally[i * SLOTS + IN_A_ROW])
        yield failures
        yield failing
        alive = GaugeMetricFamily(
            "pbem_worker_up", "Whether the worker runs and holds its lease or beats"
        )
        alive.add_metric([], 1 if w.worker_alive() and r.worker_beats else 0)
        yield alive
        if r.error is not None:
            return  # no counts without the store: absent, not zero
        yield CounterMetricFamily(
            "pbem_mails_accepted",
            "Mails accepted (answered 250), ever",
            value=sum(r.inbox.values()) + r.spooled,
        )
        processed = CounterMetricFamily(
            "pbem_mails_processed", "Mails processed, by final state", labels=["state"]
        )
        for state, n in sorted(r.inbox.items()):
            if state != "new":
                processed.add_metric([state], n)
        yield processed
        quarantined = GaugeMetricFamily(
            "pbem_mails_quarantined", "Mails quarantined (`pbem retry N` takes one out)"
        )
        quarantined.add_metric([], r.inbox.get("quarantined", 0))
        yield quarantined
        backlog = GaugeMetricFamily("pbem_backlog_mails", "Mails stored, not yet processed")
        backlog.add_metric([], r.backlog)
        yield backlog
        out = GaugeMetricFamily(
            "pbem_outbox_mails",
            "Outgoing mails by status (pending, held, unreachable, sent, failed, dead, ...)",
            labels=["status"],
        )
        for status in sorted(set(r.outbox) | {"pending", "held", "unreachable"}):
            out.add_metric([status], r.outbox.get(status, 0))
        yield out
        oldest = GaugeMetricFamily(
            "pbem_outbox_oldest_pending_seconds", "How long the oldest mail to go out has waited"
        )
        oldest.add_metric([], r.oldest_pending)
        yield oldest
        bounced = CounterMetricFamily("pbem_bounces", "Bounces received, by kind", labels=["kind"])
        for kind, n in sorted(r.bounces.items()):
            bounced.add_metric([kind], n)
        yield bounced
        overdue = GaugeMetricFamily(
            "pbem_turn_overdue_seconds",
            "Seconds since a running game's deadline passed, its turn not yet resolved",
            labels=["game"],
        )
        for game, seconds in sorted(r.overdue.items()):
            overdue.add_metric([game], seconds)
        yield overdue
        lag = HistogramMetricFamily(
            "pbem_turn_lag_seconds",
            "Seconds from a turn's deadline to its resolving, over every turn resolved at its "
            "deadline (not those that ran early)",
        )
        bounds = [f"{b:g}" for b in LAG_BUCKETS] + ["+Inf"]
        lag.add_metric([], list(zip(bounds, [*r.lag_buckets, r.lag_count], strict=True)), r.lag_sum)
        yield lag
