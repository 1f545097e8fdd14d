"""The worker's loops and their failures: a failure that repeats is said
once in the log and once to the operator (games.yaml's server operator;
without one, the game masters), tried again less and less often, and the
loop's recovery is said once too. Never the same lines twice a second for
as long as the cause lasts. A full disk is said at once, and mailed once
writing works again if it could not be queued then."""

from __future__ import annotations

import errno
import logging
import threading
import time
from collections.abc import Callable, MutableSequence

from pbem.app import App
from pbem.store import StoreError

log = logging.getLogger("pbem.server")

REPORT_AFTER = 3  # failures of one kind in a row before the worker says so and backs off
BACKOFF = (2.0, 5.0, 15.0, 30.0, 60.0)  # seconds between tries from then on
ALERT_EVERY = 3600.0  # seconds: the operator is mailed at most once an hour of each kind
# each loop's slots in a tally (Tally): failures in a row, every failure,
# failures of storage (the database unreachable, the disk full)
IN_A_ROW, FAILURES, STORE_FAILURES = 0, 1, 2
SLOTS = 3

_alerted: dict[str, float] = {}  # kind of alert -> when the operator was last mailed of it
_alerted_lock = threading.Lock()


def may_alert(kind: str, now: float | None = None) -> bool:
    """Whether an alert of ``kind`` may go to the operator now (at most
    one an ALERT_EVERY, in this process); noted as gone if so."""
    now = time.time() if now is None else now
    with _alerted_lock:
        if now - _alerted.get(kind, -ALERT_EVERY) < ALERT_EVERY:
            return False
        _alerted[kind] = now
        return True


def disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) says the disk is full."""
    seen: BaseException | None = exc
    while seen is not None:
        if getattr(seen, "errno", None) == errno.ENOSPC or "disk is full" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _kind(exc: BaseException) -> tuple[str, int | None]:
    """What failed, for telling one failure from another: the exception's
    class and the mail it concerns, where known (MailStuck says)."""
    return type(exc).__name__, getattr(exc, "mail", None)


def _said(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]


class Trouble:
    """The failures of one loop (``name``: the mail worker, or a thread's
    name, pbem-work or pbem-send) since it last worked. The first failure
    of each kind is logged with its traceback; at the ``report_after``-th
    in a row of that kind one line says so, with the mail's number where
    known, and the game masters are told; the loop then waits ``backoff``
    seconds between tries, longer each time. The first success after
    failures is logged once."""

    def __init__(
        self,
        app: App | None,
        name: str,
        report_after: int = REPORT_AFTER,
        backoff: tuple[float, ...] = BACKOFF,
        tally: MutableSequence[int] | None = None,
        slot: int = 0,
    ) -> None:
        self.app = app
        self.name = name
        self.report_after = report_after
        self.backoff = backoff
        self.in_a_row = 0  # failures since the loop last worked
        self.failures = 0  # every failure, ever
        self._seen: dict[tuple[str, int | None], int] = {}  # kind -> failures, this run
        # the counts /metrics and /readyz show, from wherever the loop runs
        # (a worker process: shared memory its parent reads)
        self.tally: MutableSequence[int] = tally if tally is not None else [0] * SLOTS
        self.slot = slot
        self._since = 0.0  # when the failures in a row began
        self._owed: str | None = None  # an alert that could not be queued (storage down)

    def failed(self, exc: BaseException) -> float:
        """Note a failure; how many seconds to wait before trying again
        (0: the loop's usual wait)."""
        self.failures += 1
        self.in_a_row += 1
        if self.in_a_row == 1:
            self._since = time.time()
        self.tally[self.slot + IN_A_ROW] = self.in_a_row
        self.tally[self.slot + FAILURES] += 1
        full = disk_full(exc)
        if full or isinstance(exc, StoreError):
            self.tally[self.slot + STORE_FAILURES] += 1
        if full and self.in_a_row == 1:
            log.critical("%s: the disk is full (%s)", self.name, _said(exc))
            self._tell_operator("disk", "the disk is full", f"{_said(exc)}")
        kind = _kind(exc)
        count = self._seen[kind] = self._seen.get(kind, 0) + 1
        mail = f" on mail #{kind[1]}" if kind[1] is not None else ""
        if count == 1:
            log.warning("%s failed%s; trying again shortly", self.name, mail, exc_info=exc)
        elif count == self.report_after:
            log.error(
                "%s failed %d times in a row%s (%s); trying again less often, at most %g s apart%s",
                self.name,
                count,
                mail,
                _said(exc),
                self.backoff[-1],
                f"; `pbem inbox` shows the mail, `pbem retry {kind[1]}` once it is "
                "quarantined and the cause fixed"
                if kind[1] is not None
                else "",
            )
            self._tell(exc, count, kind[1])
        if self.in_a_row < self.report_after:
            return 0.0
        return self.backoff[min(self.in_a_row - self.report_after, len(self.backoff) - 1)]

    def worked(self) -> None:
        """The loop did its work: the failures are over."""
        if self.in_a_row:
            log.warning("%s works again, after %d failures in a row", self.name, self.in_a_row)
            self.tally[self.slot + IN_A_ROW] = 0
            if self._owed is not None:  # said now that storage is back
                lasted = time.time() - self._since
                owed, self._owed = self._owed, None
                self._tell_operator(
                    "recovered",
                    f"{self.name} works again",
                    f"{owed}\n\nIt works again, after {self.in_a_row} failures in a row "
                    f"over {_duration(lasted)}.",
                    limit=False,
                )
        self.in_a_row = 0
        self._seen = {}

    def _tell_operator(self, kind: str, subject: str, text: str, limit: bool = True) -> None:
        """Mail the operator (pbem/app.py: alert_operator), at most once an
        hour of each kind; if storage fails too, the log says it loudly, and
        a full disk is mailed once the loop works again, with how long it
        lasted."""
        if self.app is None:
            return
        if limit and not may_alert(f"{self.app.store.url} {self.name}: {kind}"):
            return
        try:
            with self.app.store.tx() as conn:
                self.app.alert_operator(conn, subject, text)
        except Exception as again:
            # the database down: the watch (metrics.py) mails the outage's
            # length once it answers; a full disk is mailed from here once
            # writing works again
            owed = kind == "disk"
            log.critical(
                "%s: telling the operator failed too (%s)%s",
                self.name,
                _said(again),
                "; it is told once this works again" if owed else "",
            )
            if owed:
                self._owed = f"{subject[:1].upper()}{subject[1:]}:\n\n{text}"

    def _tell(self, exc: BaseException, count: int, mail: int | None) -> None:
        """Tell the operator (without one, every game's master), once a kind
        of failure and at most once an hour."""
        if self.app is None:
            return
        about = f" at mail #{mail}" if mail is not None else ""
        who = self.name if self.name.startswith("the ") else f"the mail worker's {self.name}"
        what = (
            f"`pbem inbox` shows where mail #{mail} stands. Once the cause is fixed the "
            f"worker goes on by itself; if the mail was quarantined meanwhile, "
            f"`pbem retry {mail}` processes it again."
            if mail is not None
            else "`pbem inbox` shows the mail waiting. Once the cause is fixed the worker "
            "goes on by itself; a mail quarantined meanwhile is processed again with "
            "`pbem retry N`."
        )
        self._tell_operator(
            f"failing {_kind(exc)[0]} {mail}",
            f"{who} is failing{about}",
            f"{who[:1].upper()}{who[1:]} failed {count} times in a row{about}:\n\n"
            f"    {_said(exc)}\n\nIt keeps trying, less often (at most "
            f"{self.backoff[-1]:g} s apart), and says so again only if something "
            f"else fails. {what}",
        )


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds / 3600:.1f} hours"


class Loop:
    """A thread that runs ``step`` whenever woken (and every ``period``
    seconds anyway) until it returns 0, then sleeps. A step that keeps
    failing is said once and tried again less often (``trouble``)."""

    def __init__(
        self,
        name: str,
        step: Callable[[], int],
        period: float,
        app: App | None = None,
        tally: MutableSequence[int] | None = None,
        slot: int = 0,
    ) -> None:
        self.step = step
        self.period = period
        self.trouble = Trouble(app, name, tally=tally, slot=slot)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                while not self._stop.is_set():
                    done = self.step()
                    self.trouble.worked()  # between failures: not in a row
                    if done <= 0:
                        break
            except Exception as exc:  # storage gone for a moment: try again later
                backoff = self.trouble.failed(exc)
                if backoff:  # failing again and again: wake-ups wait too
                    self._stop.wait(backoff)
                    continue
            self._wake.wait(self.period)
