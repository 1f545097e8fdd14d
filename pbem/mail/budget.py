"""One budget for all the work a mail causes, from reading its headers to
its last command and password check: no mail, from anyone, holds up the
mails after it by more than about half a second of CPU.

Two kinds of bound, both counted per mail:

- caps at numbers no player reaches: command and order lines, PASSWORD
  lines, games, slow password checks (pbem/commands/parse.py reads no
  further than its caps; the checks are counted here);
- a meter of the CPU time the mail has cost (the time of the thread that
  handles it, reading included: ``ParsedMail.cpu``), looked at between
  one unit of work and the next (a game's section, a command, a password
  check). The reading itself (PARSE_SECONDS of the budget) is cut off by
  the worker's CPU timer (pbem/mail/parse.py ``within``) where the process
  has one, and stops by itself where it has none (pbem/mail/headers.py,
  pbem/mail/body.py: no more headers, MIME parts or HTML read).

What a mail could not have is remembered by line (``skip``) and told to its
sender, as lines not read and why (``notes``); the mail is finished with
what was done, never failed or retried for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

MAIL_SECONDS = 0.5  # CPU time one mail may cost, reading and handling
ANSWER_SECONDS = 0.1  # of that, kept for the answer (the receipt, written once the work stops)
SLOW_CHECKS = 4  # slow password checks (scrypt, ~50 ms each) one mail may cost
# units of work (a game's section, a command, a password check) that run
# whatever the meter says: a player's handful of commands is never cut by
# the server's own one-time costs (a game loaded, templates compiled at its
# first mail); the caps bound what a mail gets beyond them
FREE_UNITS = 8

# why lines were not read, as the sender is told
TIME = (
    f"the mail used up its share of the server's time ({MAIL_SECONDS:g} seconds of "
    "work); send them again in a mail of their own"
)


class Budget:
    """What one mail may still cost: CPU time and slow password checks."""

    def __init__(
        self,
        seconds: float = MAIL_SECONDS - ANSWER_SECONDS,
        spent: float = 0.0,
        clock: Callable[[], float] = time.thread_time,
        slow_checks: int = SLOW_CHECKS,
        free: int = FREE_UNITS,
    ) -> None:
        self.seconds = seconds
        self.clock = clock
        self.started = clock() - spent
        self.slow_checks = slow_checks
        self.free = free  # units of work still done whatever the time
        self.unchecked = 0  # password checks refused for want of budget
        self.skipped: dict[str, list[tuple[int, int]]] = {}  # why -> lines not read

    def spent(self) -> float:
        return self.clock() - self.started

    def over(self) -> bool:
        """The mail has had its time: nothing more of it is done (asked
        before each unit of work; the first ``free`` always run)."""
        if self.free > 0:
            self.free -= 1
            return False
        return self.spent() >= self.seconds

    def slow_check(self) -> bool:
        """Whether one more slow password check may run (and count it)."""
        if self.slow_checks <= 0 or self.over():
            self.unchecked += 1
            return False
        self.slow_checks -= 1
        return True

    def skip(self, first: int, last: int | None = None, why: str = TIME) -> None:
        """Lines ``first`` to ``last`` of the mail not read, and why."""
        self.skipped.setdefault(why, []).append((first, first if last is None else last))

    def notes(self) -> list[str]:
        """What the sender is told: the lines not read (as ranges), and why."""
        out = []
        for why, ranges in self.skipped.items():
            lines = spans(ranges)
            out.append(f"{lines} {'was' if lines.startswith('line ') else 'were'} not read: {why}")
        return out


SPANS_SHOWN = 20  # ranges of lines named in one note; more are counted


def spans(ranges: list[tuple[int, int]]) -> str:
    """Ranges of line numbers, joined where they touch: ``lines 3, 201-1000``."""
    merged: list[list[int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in merged[:SPANS_SHOWN]]
    if len(merged) > SPANS_SHOWN:
        parts.append(f"and {len(merged) - SPANS_SHOWN} more")
    one = len(merged) == 1 and merged[0][0] == merged[0][1]
    return f"{'line' if one else 'lines'} {', '.join(parts)}"
