"""What the store hands back: frozen rows, and the two errors callers catch."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


class ClaimLost(Exception):
    """The mail (or outbox row) is finished or claimed by another worker:
    whatever this worker did for it is rolled back."""


class StoreError(Exception):
    """Storage failed (locked too long, disk full, gone). The caller answers
    "try again later", never a permanent failure."""


class MailStuck(StoreError):
    """Mail ``mail`` could not be moved into the inbox, not even
    quarantined: the transaction is rolled back and the mail stays where
    it was, to be tried again."""

    def __init__(self, mail: int, why: str) -> None:
        super().__init__(f"mail #{mail}: {why}")
        self.mail = mail


def aware(value: datetime | None) -> datetime | None:
    """A stored time as the host reads it: in UTC, zone attached. SQLite
    gives back naive datetimes (everything stored is UTC); PostgreSQL gives
    them back in its session's zone, which is the server's unless set."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


@dataclass(frozen=True)
class InboxRow:
    id: int
    received_at: datetime
    mail_from: str
    rcpt_to: tuple[str, ...]
    raw: bytes
    sha256: str
    message_id: str | None
    state: str
    attempts: int
    error: str | None = None
    note: str | None = None
    claims: int = 0  # workers that claimed it
    peer: str | None = None  # the address of the connection it came over
    processed_at: datetime | None = None  # when it reached its final state

    @classmethod
    def of(cls, r: Any) -> InboxRow:
        return cls(
            r.id,
            aware(r.received_at),  # type: ignore[arg-type]
            r.mail_from,
            tuple(json.loads(r.rcpt_to)),
            bytes(r.raw),
            r.sha256,
            r.message_id,
            r.state,
            r.attempts,
            r.error,
            r.note,
            r.claims,
            r.peer,
            aware(r.processed_at),
        )


@dataclass(frozen=True)
class LeaseRow:
    name: str
    holder: str
    pid: int
    host: str
    since: float
    until: float

    @classmethod
    def of(cls, r: Any) -> LeaseRow:
        return cls(r.name, r.holder, r.pid, r.host, r.since, r.until)


@dataclass(frozen=True)
class PlayerRow:
    id: int
    game: str
    name: str
    email: str
    timezone: str | None
    password_hash: str
    token_version: int
    status: str
    missed: int = 0
    preferences: str | None = None  # seats wished for, one a line, the most wished first

    @property
    def wishes(self) -> tuple[str, ...]:
        return tuple(w for w in (self.preferences or "").splitlines() if w)


@dataclass(frozen=True)
class GameRow:
    name: str
    kind: str
    state: str
    turn: int
    seed: int
    status: str
    created_at: datetime | None = None
    deadline: datetime | None = None
    turn_started_at: datetime | None = None
    reminded_for: datetime | None = None
    finished_at: datetime | None = None
    calendar_sequence: int = 0  # the deadline's revision (its calendar event's SEQUENCE)

    @classmethod
    def of(cls, r: Any) -> GameRow:
        return cls(
            r.name,
            r.kind,
            r.state,
            r.turn,
            r.seed,
            r.status,
            aware(r.created_at),
            aware(r.deadline),
            aware(r.turn_started_at),
            aware(r.reminded_for),
            aware(r.finished_at),
            r.calendar_sequence,
        )


@dataclass(frozen=True)
class ReportRow:
    game: str
    turn: int
    reader: str
    subject: str
    text: str
    html: str
    svg: str
    png: bytes


@dataclass(frozen=True)
class OutboxRow:
    id: int
    kind: str
    to_addr: str
    message_id: str
    message: bytes
    status: str
    attempts: int
    next_attempt_at: datetime
    created_at: datetime
    last_error: str | None

    @classmethod
    def of(cls, r: Any) -> OutboxRow:
        return cls(
            r.id,
            r.kind,
            r.to_addr,
            r.message_id,
            bytes(r.message),
            r.status,
            r.attempts,
            aware(r.next_attempt_at),  # type: ignore[arg-type]
            aware(r.created_at),  # type: ignore[arg-type]
            r.last_error,
        )
