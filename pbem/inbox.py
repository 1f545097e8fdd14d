"""Processing stored mail: every mail answered 250 reaches exactly one final
state (applied, answered, refused, ignored, bounce, duplicate, quarantined).

Mail is read (pure, outside any transaction), then each mail is handled in
a savepoint of one transaction per batch: its submissions, its replies in
the outbox and its final state commit together or not at all. A mail whose
handling raises is rolled back alone, counted, and after two failures
quarantined with the game master told; the others go on. So is a mail that
cannot even be moved from the spool into the inbox (store.take_mail); each
quarantine is logged once and told once. Every mail is claimed by its
worker before it is read, and finished only under that claim (exactly
once, even with two workers). What fails for no one mail (storage gone)
raises, for the worker's loop to say once and try again later
(serving/trouble.py); MailStuck names the mail where it is one.
"""

from __future__ import annotations

import logging
import re
import time
import traceback
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection

from adjudicator.base import Game
from pbem.app import App
from pbem.mail import bounces, pipeline
from pbem.mail.parse import ParsedMail, parse_mail, read_clock
from pbem.serving.lease import identity
from pbem.store import ClaimLost, GameRow, InboxRow, MailStuck, PlayerRow, StoreError

log = logging.getLogger("pbem.inbox")

QUARANTINE_AFTER = 2  # failures of one mail before it is quarantined
MAX_CLAIMS = 5  # claims of a mail never finished (its worker died) before quarantine
CLAIM_SECONDS = 60.0  # how long a claim on a mail lasts
CHECKPOINT_SECONDS = 0.5  # how often the worker checkpoints the spool while mail flows
# hold the write lock of the main file at most about this long at a time
# (the SMTP side writes only to the spool, a file of its own, so it never
# waits on this: longer transactions mean fewer fsyncs per mail)
BATCH_SECONDS = 0.05
# on a database server: each transaction begins by reading again what the
# last one had in hand and ends by waiting for the server's commit
BATCH_SECONDS_SHARED = 0.25


_COPIES = ("copies", "")  # the cache's key for what _look_for_copies read


def _last_line(text: str) -> str:
    """An error's last line (a traceback's: the exception itself)."""
    lines = text.strip().splitlines()
    return lines[-1] if lines else "(no error text)"


class _MailFailed(Exception):
    """Handling one mail raised; its transaction is rolled back."""


class Processor:
    """The mail worker: takes stored mail in batches and takes each through
    its way (pbem/mail/pipeline.py)."""

    def __init__(
        self,
        app: App,
        holder: str | None = None,
        settled_at: Callable[[GameRow], datetime | None] | None = None,
    ) -> None:
        self.app = app
        self.holder = holder or identity()  # whose claims this worker's are
        # when a turn whose deadline passed while no mail came in resolves
        # (the turn runner's settled_at, pbem/turns/runner.py); None: at once
        self._settled_at = settled_at
        self._checkpointed = 0.0
        self._states: dict[str, tuple[str, Any]] = {}  # game -> (state JSON, state)
        self._sheets: dict[tuple[str, str], tuple[Any, str, Any]] = {}  # standing orders read
        self._cache: dict[tuple[str, str], Any] = {}
        self._pruned_at: Any = None
        self.turn_requests: set[str] = set()  # games to check for an early turn
        self.forced: list[tuple[str, int]] = []  # turns the game master resolves now

    def state(self, engine: Game, game: str, text: str) -> Any:
        """The game's state, parsed once for as long as it does not change."""
        cached = self._states.get(game)
        if cached is None or cached[0] != text:
            cached = (text, engine.load_state(text))
            self._states[game] = cached
        return cached[1]

    def read_previous(self, engine: Game, state: Any, game: str, player: str, text: str) -> Any:
        """A player's standing orders read again (remembered while the
        state and the text stay the same: each mail of a player's re-reads
        them)."""
        key = (game, player)
        cached = self._sheets.get(key)
        if cached is None or cached[0] is not state or cached[1] != text:
            cached = (state, text, engine.read_orders(state, player, text))
            self._sheets[key] = cached
        return cached[2]

    # -- the queue ---------------------------------------------------------------

    def run_pending(self, batch: int = 200) -> int:
        """Process up to ``batch`` stored mails; returns how many.

        The mails are claimed first, in the transaction that moves newly
        spooled mail into the inbox and checks they are free (store.take_mail),
        then read (parsed) outside any lock. Then they are handled in short
        transactions: each commits once it has held the write lock about
        BATCH_SECONDS, so a receipt is never long in coming.
        Finishing a mail checks it is still this worker's, so a mail's
        effects commit once. Each mail is a savepoint of its transaction."""
        self.app.fault("worker_fails", StoreError("fault injected: the worker fails"))
        rows, tired = self.app.store.take_mail(
            self.holder,
            batch,
            CLAIM_SECONDS,
            time.time(),
            self.app.clock.now(),
            MAX_CLAIMS,
            self._vet,
        )
        for row in tired:  # quarantined as they were moved, or claimed too often
            if row.claims >= MAX_CLAIMS:
                self._quarantined(row, f"stopped the worker {row.claims} times", row.error)
            else:
                self._quarantined(row, "could not be moved into the inbox", row.error)
        if rows:
            self._checkpoint()
        if not rows:
            self._prune()
            return len(tired)
        with read_clock():
            parsed = {row.id: self._parse(row) for row in rows}
        failed: list[tuple[InboxRow, str]] = []
        queue = list(rows)
        while queue:
            attempted: list[InboxRow] = []
            done: list[tuple[InboxRow, str]] = []
            try:
                with self.app.store.tx() as conn, self.app.store.later(conn) as flush:
                    self._cache = {}
                    try:
                        self._look_for_copies(conn, [parsed[row.id] for row in queue])
                    except Exception as exc:  # a mail's Message-ID, perhaps: one by one
                        attempted, queue = queue, []
                        raise _MailFailed from exc
                    started = time.monotonic()
                    limit = BATCH_SECONDS_SHARED if self.app.store.shared else BATCH_SECONDS
                    while queue and time.monotonic() - started < limit:
                        row = queue.pop(0)
                        attempted.append(row)
                        try:
                            done.append((row, self._handle_one(conn, row, parsed[row.id])))
                        except Exception as exc:
                            raise _MailFailed from exc
                    try:  # the last mail's writes (a ClaimLost among them fails the batch)
                        flush()
                    except Exception as exc:
                        raise _MailFailed from exc
                    self.app.fault("during_process")  # handled but not committed
                _logged(done, parsed)
            except _MailFailed:
                # that transaction rolled back: handle its mails again, each
                # in a savepoint of its own, so only the failing one fails
                failed += self._one_by_one(attempted, parsed)
        for row, error in failed:
            log.warning("mail #%s failed: %s", row.id, _last_line(error))
            try:
                attempts = self.app.store.fail_mail(
                    row.id, error, QUARANTINE_AFTER, self.app.clock.now(), self.holder
                )
            except StoreError as exc:
                raise MailStuck(row.id, f"counting its failure failed: {exc}") from exc
            if attempts >= QUARANTINE_AFTER:
                self._quarantined(row, f"failed {attempts} times", error)
        return len(rows) + len(tired)

    def _vet(self, spooled: Any) -> None:
        """The crash tests' mail that cannot be moved into the inbox."""
        if b"poison" in bytes(spooled.raw).lower():
            self.app.fault("poison_move", StoreError("fault injected: a mail that cannot move"))

    def _quarantined(self, row: InboxRow, what: str, error: str | None) -> None:
        """Say once that a mail is quarantined, and tell the game masters
        (if that fails, the log has said it: the mail is safe either way)."""
        log.error("mail #%s %s and is quarantined: %s", row.id, what, _last_line(error or ""))
        try:
            with self.app.store.tx() as conn:
                self.app.alert_master(
                    conn,
                    None,
                    f"mail #{row.id} quarantined",
                    f"Mail #{row.id} from {row.mail_from or '(no sender)'} {what} and is "
                    f"quarantined (`pbem inbox --state quarantined` lists it). Retry it "
                    f"with `pbem retry {row.id}` once the cause is fixed.\n\n"
                    f"Last error:\n{error or '(none recorded)'}",
                )
        except Exception:
            log.exception("telling the game masters of mail #%s failed", row.id)

    def _checkpoint(self) -> None:
        """Now and then, the spool's log into its file (the SMTP side,
        which writes the spool while clients wait, never does it)."""
        now = time.monotonic()
        if now - self._checkpointed > CHECKPOINT_SECONDS:
            self._checkpointed = now
            try:
                self.app.store.checkpoint_spool()
            except StoreError as exc:
                log.warning("checkpointing the spool failed: %s", exc)

    def _prune(self) -> None:
        """When idle, now and then: forget spooled copies a day old (the
        inbox keeps every mail)."""
        now = self.app.clock.now()
        if self._pruned_at is None or now - self._pruned_at > timedelta(minutes=10):
            self._pruned_at = now
            self.app.store.prune_spool(now - timedelta(days=1))

    def _handle_one(self, conn: Connection, row: InboxRow, mail: ParsedMail | Exception) -> str:
        if not isinstance(mail, Exception) and "poison" in mail.subject.lower():
            self.app.fault("poison", RuntimeError("fault injected: a poison mail"))
        return self.handle(conn, row, mail)

    def _one_by_one(
        self, rows: list[InboxRow], parsed: dict[int, ParsedMail | Exception]
    ) -> list[tuple[InboxRow, str]]:
        failed = []
        done: list[tuple[InboxRow, str]] = []
        with self.app.store.tx() as conn:
            self._cache = {}
            for row in rows:
                savepoint = conn.begin_nested()
                try:
                    done.append((row, self._handle_one(conn, row, parsed[row.id])))
                    savepoint.commit()
                except ClaimLost:  # another worker finished it: not a failure
                    savepoint.rollback()
                    self._cache = {}
                except Exception:
                    savepoint.rollback()
                    self._cache = {}
                    failed.append((row, traceback.format_exc(limit=8)))
        _logged(done, parsed)
        return failed

    # -- reads, remembered for one transaction (it holds the write lock, so
    #    nothing else changes them; our own writes forget them)

    def forget(self) -> None:
        """Our own writes changed what was read: read it again."""
        self._cache = {}

    def game(self, conn: Connection, name: str) -> GameRow | None:
        key = ("game", name)
        if key not in self._cache:
            self._cache[key] = self.app.store.game(conn, name)
        return self._cache[key]

    def settled_at(self, game: GameRow) -> datetime | None:
        return None if self._settled_at is None else self._settled_at(game)

    def players_by_email(self, conn: Connection, email: str) -> list[PlayerRow]:
        key = ("email", email.lower())
        if key not in self._cache:
            self._cache[key] = self.app.store.players_by_email(conn, email)
        return self._cache[key]

    def _look_for_copies(self, conn: Connection, mails: list[ParsedMail | Exception]) -> None:
        """Read at once, for the mails about to be handled, the first
        finished mail with each one's Message-ID (one statement instead of
        one a mail: see earlier_copy)."""
        wanted = {m.message_id for m in mails if not isinstance(m, Exception) and m.message_id}
        firsts = self.app.store.first_finished_by_message_id(conn, wanted)
        self._cache[_COPIES] = (wanted, firsts)

    def earlier_copy(self, conn: Connection, message_id: str, before: int) -> int | None:
        """The first finished mail numbered below ``before`` with this
        Message-ID: from what _look_for_copies read and the mails finished
        since in this transaction (nothing else finishes mail while it holds
        the write lock); asked of the store when that was forgotten."""
        known = self._cache.get(_COPIES)
        if known is None or message_id not in known[0]:
            return self.app.store.earlier_with_message_id(conn, message_id, before)
        first = known[1].get(message_id)
        return first if first is not None and first < before else None

    def finished(self, number: int, message_id: str | None) -> None:
        known = self._cache.get(_COPIES)
        if known is not None and message_id in known[0]:
            known[1][message_id] = min(known[1].get(message_id, number), number)

    def _parse(self, row: InboxRow) -> ParsedMail | Exception:
        try:
            verp = any(a.lower().startswith(f"{bounces.TAG}+") for a in row.rcpt_to)
            return parse_mail(row.raw, row.mail_from, bounce_address=verp)
        except Exception as exc:  # parse_mail never raises by design; keep the mail safe
            return exc

    # -- one mail ------------------------------------------------------------------

    def handle(self, conn: Connection, row: InboxRow, mail: ParsedMail | Exception) -> str:
        """One mail's way through the host (pbem/mail/pipeline.py); its
        final state."""
        if isinstance(mail, Exception):
            raise mail
        return pipeline.handle(self, conn, row, mail)


def _logged(done: list[tuple[InboxRow, str]], parsed: dict[int, ParsedMail | Exception]) -> None:
    """A line for each mail whose final state was committed: its number,
    its Message-ID, the relay's queue ID (from the topmost Received
    header: the MTA's log line of the same mail), its state."""
    for row, state in done:
        mail = parsed.get(row.id)
        message_id = getattr(mail, "message_id", None) or row.message_id
        relay = relay_queue_id(row.raw)
        log.info(
            "mail #%s %s%s %s",
            row.id,
            message_id or "(no Message-ID)",
            f" relay id {relay}" if relay else "",
            state,
        )


_RECEIVED = re.compile(rb"^Received:((?:[^\r\n]*(?:\r?\n[ \t])?)*)", re.IGNORECASE | re.MULTILINE)
_QUEUE_ID = re.compile(rb"\bid\s+<?([A-Za-z0-9][A-Za-z0-9._-]{2,63})", re.IGNORECASE)


def relay_queue_id(raw: bytes) -> str | None:
    """The queue ID the relay gave the mail, from the topmost Received
    header (``... with ESMTP id 4Xy2Kq1QZ8z9s ...``), if it says one."""
    head = bytes(raw[:65536]).split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    found = _RECEIVED.search(head)
    if found is None:
        return None
    queue_id = _QUEUE_ID.search(found.group(1))
    return queue_id.group(1).decode("ascii") if queue_id else None
