"""Bounces: every bounce received (or refusal by the relay), the permanent
failures counted against each address, and the addresses no longer mailed
because too many of their mails bounced for good."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Connection, bindparam, func, select, update

from pbem.store.database import Database, Hot
from pbem.store.rows import OutboxRow, aware
from pbem.store.schema import bounces, outbox, unreachable, watchers


class BouncesAndReach(Database):
    """Bounces received and the addresses they made unreachable."""

    def outbox_mail(self, conn: Connection, outbox_id: int) -> OutboxRow | None:
        row = conn.execute(select(outbox).where(outbox.c.id == outbox_id)).first()
        return None if row is None else OutboxRow.of(row)

    def add_bounce(
        self,
        conn: Connection,
        at: datetime,
        kind: str,
        *,
        inbox_id: int | None = None,
        outbox_id: int | None = None,
        address: str | None = None,
        note: str | None = None,
    ) -> int:
        """Record one bounce (``kind``: permanent, temporary, none,
        unverified, elsewhere); its number. Only ``permanent`` counts."""
        self._bounces_changed(conn)
        ran = conn.execute(
            bounces.insert().values(
                at=at,
                kind=kind,
                inbox_id=inbox_id,
                outbox_id=outbox_id,
                address=address.lower() if address else None,
                note=(note or "")[:1000] or None,
            )
        )
        return int(ran.inserted_primary_key[0])

    def bounce_rows(self, address: str | None = None) -> list[dict]:
        """Every bounce recorded (for one address), oldest first, as dicts."""
        with self.tx(write=False) as conn:
            q = select(bounces).order_by(bounces.c.id)
            if address is not None:
                q = q.where(bounces.c.address == address.lower())
            return [dict(r._mapping) for r in conn.execute(q).all()]

    def permanent_failures(self, conn: Connection, address: str) -> int:
        """Mails to ``address`` that failed for good since it was last
        counted from (each mail once, however many reports it brought)."""
        after = conn.execute(
            select(unreachable.c.counted_after).where(unreachable.c.address == address.lower())
        ).scalar()
        mails = func.coalesce(bounces.c.outbox_id, -bounces.c.id)
        return (
            conn.execute(
                select(func.count(func.distinct(mails))).where(
                    bounces.c.address == address.lower(),
                    bounces.c.kind == "permanent",
                    bounces.c.id > (after or 0),
                )
            ).scalar()
            or 0
        )

    def unreachable_since(self, conn: Connection, address: str) -> datetime | None:
        """When ``address`` was marked unreachable; None if it is mailed."""
        return aware(
            conn.execute(
                select(unreachable.c.since).where(unreachable.c.address == address.lower())
            ).scalar()
        )

    def unreachable_among(self, conn: Connection, addresses: Iterable[str]) -> set[str]:
        """Those of ``addresses`` (lower-cased) that are not mailed."""
        wanted = {a.lower() for a in addresses}
        if not wanted:
            return set()
        found = conn.execute(
            select(unreachable.c.address).where(
                unreachable.c.address.in_(sorted(wanted)), unreachable.c.since.is_not(None)
            )
        ).scalars()
        return set(found)

    def unreachable_addresses(self) -> list[tuple[str, datetime]]:
        """Every address not mailed, and since when."""
        with self.tx(write=False) as conn:
            rows = conn.execute(
                select(unreachable.c.address, unreachable.c.since)
                .where(unreachable.c.since.is_not(None))
                .order_by(unreachable.c.address)
            ).all()
        return [(r.address, aware(r.since)) for r in rows]  # type: ignore[misc]

    def mark_unreachable(self, conn: Connection, address: str, at: datetime) -> bool:
        """Stop mailing ``address``; False if it was already so marked."""
        self._bounces_changed(conn)
        key = address.lower()
        if self.unreachable_since(conn, key) is not None:
            return False
        done = conn.execute(
            update(unreachable).where(unreachable.c.address == key).values(since=at)
        ).rowcount
        if not done:
            conn.execute(unreachable.insert().values(address=key, since=at, counted_after=0))
        return True

    def mark_reachable(self, conn: Connection, address: str) -> bool:
        """Mail ``address`` again, its count of failures started afresh;
        False if it was not marked unreachable."""
        self._bounces_changed(conn)
        key = address.lower()
        was = self.unreachable_since(conn, key) is not None
        last = conn.execute(select(func.max(bounces.c.id))).scalar() or 0
        done = conn.execute(
            update(unreachable)
            .where(unreachable.c.address == key)
            .values(since=None, counted_after=last)
        ).rowcount
        if not done:
            conn.execute(unreachable.insert().values(address=key, since=None, counted_after=last))
        return was

    def unwatch_everywhere(self, conn: Connection, address: str) -> list[str]:
        """Drop ``address`` from every game's observers; the games it watched."""
        key = address.lower()
        games = list(conn.execute(select(watchers.c.game).where(watchers.c.email == key)).scalars())
        if games:
            conn.execute(watchers.delete().where(watchers.c.email == key))
        return sorted(games)

    def counted_failures(self, conn: Connection, address: str) -> bool:
        """Whether ``address`` has permanent failures counted (every
        unreachable address has). Asked of every authenticated mail, so the
        statement is a hot one (_COUNTED)."""
        known = self.known(conn)
        key = ("counted", address.lower())
        if known is not None and key in known:
            return known[key]  # type: ignore[no-any-return]
        found = self.run(conn, _COUNTED, key=address.lower()).fetchone() is not None
        if known is not None:
            known[key] = found
        return found  # an unreachable address has them (since it was marked)

    def _bounces_changed(self, conn: Connection) -> None:
        """Counted failures read in this transaction are read again."""
        known = self.known(conn)
        if known:
            for key in [k for k in known if k[0] == "counted"]:
                del known[key]


# permanent failures of an address counted since it was last made reachable
_COUNTED = Hot(
    select(bounces.c.id)
    .where(
        bounces.c.address == bindparam("key"),
        bounces.c.kind == "permanent",
        bounces.c.id
        > func.coalesce(
            select(unreachable.c.counted_after)
            .where(unreachable.c.address == bindparam("key"))
            .scalar_subquery(),
            0,
        ),
    )
    .limit(1)
)
