"""Delivering the outbox.

Every mail to send was committed to the outbox with the change that caused
it. A sender takes the due ones and delivers each:

- into a Maildir folder (the default: nothing else needs to run; a mail is
  written under a name from its outbox number, so it is never there twice),
  or
- through an SMTP relay (host, port, STARTTLS or TLS, login).

Every mail leaves with its own return path, ``bounces+<token>@<domain>``
(pbem/mail/bounces.py): as the envelope sender through the relay, as a
Return-Path header in the Maildir. A bounce sent back to it names this very
mail and its recipient. Mail to an address marked unreachable (too many of
its mails bounced for good) is not sent: it stays in the outbox with the
status ``unreachable``.

Connection errors and 4xx answers are retried with exponential backoff (30
s doubling, at most an hour apart); a 5xx answer fails the mail at once and
tells the game master (a 5xx refusal of the recipient counts as a permanent
failure of the address, as a bounce does); a mail still undelivered after
5 days is a dead letter, and the game master is told. A crash between the
relay's 250 and marking the mail sent delivers it once more, with the same
Message-ID.
"""

from __future__ import annotations

import logging
import os
import smtplib
import ssl
import time
from datetime import datetime, timedelta
from typing import Any

from pbem.app import App
from pbem.mail import bounces, dkim, replycap
from pbem.serving.lease import identity
from pbem.store import OutboxRow

log = logging.getLogger("pbem.outbox")

GIVE_UP_AFTER = timedelta(days=5)
FIRST_RETRY = timedelta(seconds=30)
LONGEST_WAIT = timedelta(hours=1)
CLAIM_SECONDS = 300.0  # a sender's claim on a mail: longer than any relay's timeouts


class Permanent(Exception):
    """The relay refused the mail for good (5xx)."""


class Temporary(Exception):
    """Try again later: no connection, or a 4xx answer."""


class Sender:
    def __init__(self, app: App, holder: str | None = None) -> None:
        self.app = app
        self.holder = holder or identity()
        self._released: Any = None  # the day held replies were last released
        cfg = app.config.server.dkim
        # DKIM-signs each mail as it leaves, when a key is configured
        self.sign = dkim.signer(cfg.key, cfg.selector, cfg.domain or app.domain)

    def run_due(self, limit: int = 200) -> int:
        """Deliver the mail that is due; returns how many were tried. Each
        is claimed first for this sender (another sender on the same store
        leaves it alone) and marked sent only under that claim."""
        today = self.app.clock.now().date()
        if self._released != today:  # the cap reset: what it held goes out as digests
            replycap.release_held(self.app)
            self._released = today
        rows = self.app.store.claim_due(
            self.holder, self.app.clock.now(), limit, time.time(), CLAIM_SECONDS
        )
        tried = len(rows)
        rows = self._reachable(rows)
        if self.app.config.server.outbound.host is None:
            self._to_maildir(rows)
        else:
            for row in rows:
                self.deliver(row)
        return tried

    def _reachable(self, rows: list[OutboxRow]) -> list[OutboxRow]:
        """The mails to send; those to an address marked unreachable are
        kept, not sent (status ``unreachable``)."""
        if not rows:
            return rows
        with self.app.store.tx(write=False) as conn:
            gone = self.app.store.unreachable_among(conn, {r.to_addr for r in rows})
        if not gone:
            return rows
        with self.app.store.tx() as conn:
            for row in rows:
                if row.to_addr.lower() in gone:
                    why = f"not sent: {row.to_addr} is unreachable (its mail bounces)"
                    self.app.store.mark_failed(conn, row.id, "unreachable", why)
        return [r for r in rows if r.to_addr.lower() not in gone]

    def _to_maildir(self, rows: list[OutboxRow]) -> None:
        """Write each mail into the Maildir under a name made from its
        outbox number, so writing it again replaces it: a crash before the
        rows are marked sent never makes a duplicate, and one commit marks
        the whole batch."""
        folder = self.app.config.server.outbound.maildir
        sent: list[int] = []
        failure: OSError | None = None
        try:
            for sub in ("tmp", "new", "cur"):
                (folder / sub).mkdir(parents=True, exist_ok=True)
            for row in rows:
                name = f"pbem-{row.id}.{self.app.domain}"
                tmp = folder / "tmp" / name
                path = bounces.return_path(self.app, row)
                tmp.write_bytes(f"Return-Path: <{path}>\r\n".encode() + self.sign(row.message))
                os.replace(tmp, folder / "new" / name)
                sent.append(row.id)
                log.info("sent #%s (%s) to %s: maildir %s", row.id, row.kind, row.to_addr, name)
        except OSError as exc:
            failure = exc
            for row in rows:
                if row.id not in sent:
                    self.app.store.mark_retry(
                        row.id, f"maildir: {exc.strerror}", self._next_try(row), self.holder
                    )
        if sent:
            self.app.store.mark_sent_many(sent, self.app.clock.now(), self.holder)
        if failure is not None:  # the sender's loop says it once (a full disk: at once)
            raise OSError(
                failure.errno, f"cannot write the maildir {folder}: {failure.strerror}"
            ) from failure

    def deliver(self, row: OutboxRow) -> None:
        now = self.app.clock.now()
        try:
            answer = self._send(row)
        except Permanent as exc:
            log.warning("mail #%s to %s refused: %s", row.id, row.to_addr, exc)
            self._give_up(
                row,
                "failed",
                "refused",
                f"The relay refused it for good:\n\n{exc}",
                recipient=isinstance(exc.__cause__, smtplib.SMTPRecipientsRefused),
            )
            return
        except Temporary as exc:
            if now - row.created_at >= GIVE_UP_AFTER:
                self._give_up(
                    row,
                    "dead",
                    "undeliverable",
                    f"It could not be delivered in 5 days. Last error:\n\n{exc}",
                )
            else:
                self.app.store.mark_retry(row.id, str(exc), self._next_try(row), self.holder)
            return
        self.app.fault("after_send")
        self.app.store.mark_sent(row.id, self.app.clock.now(), self.holder)
        log.info("sent #%s (%s) to %s: relay answered %s", row.id, row.kind, row.to_addr, answer)

    def _next_try(self, row: OutboxRow) -> datetime:
        """Backoff: 30 s after the first failure, doubling, at most an hour."""
        return self.app.clock.now() + min(FIRST_RETRY * (2**row.attempts), LONGEST_WAIT)

    def _give_up(
        self, row: OutboxRow, status: str, what: str, why: str, recipient: bool = False
    ) -> None:
        """Mark the mail failed for good and tell the game master (not about
        mail to the game master: no alert about an alert). A recipient the
        relay refused for good counts as a permanent failure of the address."""
        with self.app.store.tx() as conn:
            self.app.store.mark_failed(conn, row.id, status, why)
            if recipient:
                bounces.refused_by_relay(self.app, conn, row, why)
            if row.kind != "alert":
                self.app.alert_master(
                    conn,
                    None,
                    f"mail to {row.to_addr} {what}",
                    f"Mail #{row.id} ({row.kind}) to {row.to_addr} is {what}. {why}",
                )

    def _send(self, row: OutboxRow) -> str:
        """Hand the mail to the relay; the relay's answer to it (``250 2.0.0
        Ok: queued as 4Xy...``: the queue ID its log knows the mail by)."""
        out = self.app.config.server.outbound
        answer: list[str] = []
        assert out.host is not None
        try:
            if out.tls:
                client: smtplib.SMTP = smtplib.SMTP_SSL(
                    out.host, out.port, timeout=30, context=ssl.create_default_context()
                )
            else:
                client = smtplib.SMTP(out.host, out.port, timeout=30)
            with client:
                client.ehlo()
                if out.starttls:
                    client.starttls(context=ssl.create_default_context())
                    client.ehlo()
                if out.username:
                    client.login(out.username, out.password or "")
                data = client.data

                def kept(msg: Any) -> tuple[int, bytes]:
                    code, said = data(msg)
                    answer.append(f"{code} {_text(said)}")
                    return code, said

                client.data = kept  # type: ignore[method-assign]
                client.sendmail(
                    bounces.return_path(self.app, row), [row.to_addr], self.sign(row.message)
                )
        except smtplib.SMTPRecipientsRefused as exc:
            code, message = next(iter(exc.recipients.values()))
            raise (Permanent if code >= 500 else Temporary)(f"{code} {_text(message)}") from exc
        except smtplib.SMTPResponseException as exc:
            cls = Permanent if exc.smtp_code >= 500 else Temporary
            raise cls(f"{exc.smtp_code} {_text(exc.smtp_error)}") from exc
        except (OSError, smtplib.SMTPException) as exc:
            raise Temporary(f"{type(exc).__name__}: {exc}") from exc
        return answer[0] if answer else "250"


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
