"""The worker's loops and their failures: a failure that repeats is said
once in the log and once to the game masters, tried again less and less
often, and the loop's recovery is said once too. Never the same lines
twice a second for as long as the cause lasts."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from pbem.app import App

log = logging.getLogger("pbem.server")

REPORT_AFTER = 3  # failures of one kind in a row before the worker says so and backs off
BACKOFF = (2.0, 5.0, 15.0, 30.0, 60.0)  # seconds between tries from then on


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
    ) -> None:
        self.app = app
        self.name = name
        self.report_after = report_after
        self.backoff = backoff
        self.in_a_row = 0  # failures since the loop last worked
        self.failures = 0  # every failure, ever
        self._seen: dict[tuple[str, int | None], int] = {}  # kind -> failures, this run

    def failed(self, exc: BaseException) -> float:
        """Note a failure; how many seconds to wait before trying again
        (0: the loop's usual wait)."""
        self.failures += 1
        self.in_a_row += 1
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
        self.in_a_row = 0
        self._seen = {}

    def _tell(self, exc: BaseException, count: int, mail: int | None) -> None:
        """Tell every game's master, once a kind of failure; if storage is
        what fails, that fails too, and the log has said it."""
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
        try:
            with self.app.store.tx() as conn:
                self.app.alert_master(
                    conn,
                    None,
                    f"the mail worker is failing{about}",
                    f"{who[:1].upper()}{who[1:]} failed {count} times in a row{about}:\n\n"
                    f"    {_said(exc)}\n\nIt keeps trying, less often (at most "
                    f"{self.backoff[-1]:g} s apart), and says so again only if something "
                    f"else fails. {what}",
                )
        except Exception as again:
            log.error("telling the game masters failed too: %s", _said(again))


class Loop:
    """A thread that runs ``step`` whenever woken (and every ``period``
    seconds anyway) until it returns 0, then sleeps. A step that keeps
    failing is said once and tried again less often (``trouble``)."""

    def __init__(
        self, name: str, step: Callable[[], int], period: float, app: App | None = None
    ) -> None:
        self.step = step
        self.period = period
        self.trouble = Trouble(app, name)
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
