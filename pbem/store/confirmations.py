"""Commands waiting for confirmation (double opt-in): JOIN, LEAVE, WATCH
and UNWATCH by mail are stored here, with the SHA-256 of the token mailed
to the sender, until a reply from that address confirms them, a newer
request replaces them, or they expire (pbem/commands/confirm.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from pbem.store.database import Database
from pbem.store.rows import aware
from pbem.store.schema import confirmations


@dataclass(frozen=True)
class ConfirmationRow:
    id: int
    address: str
    command: str
    game: str
    text: str
    inbox_id: int | None
    asked_at: datetime
    expires_at: datetime
    state: str  # pending, confirmed, replaced
    done_at: datetime | None

    @classmethod
    def of(cls, r: Any) -> ConfirmationRow:
        return cls(
            r.id,
            r.address,
            r.command,
            r.game,
            r.text,
            r.inbox_id,
            aware(r.asked_at),  # type: ignore[arg-type]
            aware(r.expires_at),  # type: ignore[arg-type]
            r.state,
            aware(r.done_at),
        )


@dataclass(frozen=True)
class Request:
    """One command to confirm: its name, the game it is about, its line."""

    command: str
    game: str
    text: str


class Confirmations(Database):
    """Requests waiting for a reply to the token mailed to their address."""

    def ask_confirmation(
        self,
        conn: Connection,
        token_hash: str,
        address: str,
        requests: Sequence[Request],
        inbox_id: int | None,
        now: datetime,
        expires: datetime,
    ) -> None:
        """Store requests under one token; an earlier pending request of
        the same address, command and game is replaced (its token no
        longer confirms it)."""
        address = address.lower()
        for r in requests:
            conn.execute(
                confirmations.update()
                .where(
                    confirmations.c.address == address,
                    confirmations.c.command == r.command,
                    confirmations.c.game == r.game,
                    confirmations.c.state == "pending",
                )
                .values(state="replaced", done_at=now)
            )
            conn.execute(
                confirmations.insert().values(
                    token=token_hash,
                    address=address,
                    command=r.command,
                    game=r.game,
                    text=r.text[:200],
                    inbox_id=inbox_id,
                    asked_at=now,
                    expires_at=expires,
                    state="pending",
                )
            )

    def confirmations(self, conn: Connection, token_hash: str) -> list[ConfirmationRow]:
        """Every request stored under a token, in the order asked."""
        rows = conn.execute(
            select(confirmations)
            .where(confirmations.c.token == token_hash)
            .order_by(confirmations.c.id)
        ).all()
        return [ConfirmationRow.of(r) for r in rows]

    def mark_confirmed(self, conn: Connection, ids: Sequence[int], now: datetime) -> None:
        """Used: a token confirms once."""
        conn.execute(
            confirmations.update()
            .where(confirmations.c.id.in_(list(ids)), confirmations.c.state == "pending")
            .values(state="confirmed", done_at=now)
        )

    def pending_confirmations(self, conn: Connection, address: str) -> list[ConfirmationRow]:
        """An address's requests still waiting (expired ones included)."""
        rows = conn.execute(
            select(confirmations)
            .where(confirmations.c.address == address.lower(), confirmations.c.state == "pending")
            .order_by(confirmations.c.id)
        ).all()
        return [ConfirmationRow.of(r) for r in rows]

    def purge_confirmations(self, conn: Connection, before: datetime) -> int:
        """Forget requests that expired before ``before``; how many."""
        return conn.execute(
            confirmations.delete().where(confirmations.c.expires_at < before)
        ).rowcount
