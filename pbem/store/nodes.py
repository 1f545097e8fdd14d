"""Who works on the store: on SQLite the one worker's lease; on a shared
store (PostgreSQL) the server nodes, their heartbeats, what each holds, and
the reaping of a node gone.

Every `pbem serve` on a shared store is a node. Its worker writes a row
here every second (``beat``), lasting a few seconds. A node whose row
lapsed, or that is known gone (same host, no such process), is reaped by
any other node: its claims on mails and outbox rows are freed in the same
transaction that deletes its row, so a peer takes its work over at once.
A claim also lapses on its own after its lease, so even a node never
reaped (a clock far off, say) holds nothing for long.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, delete, func, select, update
from sqlalchemy.dialects import postgresql

from pbem.store.database import NONE, Database
from pbem.store.rows import LeaseRow
from pbem.store.schema import games, inbox, leases, nodes, outbox, spool


@dataclass(frozen=True)
class NodeRow:
    holder: str
    pid: int
    host: str
    listen: str | None
    version: str | None  # the pbem it runs (`pbem --version`)
    since: float
    beat: float
    until: float
    mails: int
    turns: int
    sent: int
    claimed_mails: int = 0  # mails it holds a live claim on
    claimed_sends: int = 0  # outbox rows it holds a live claim on


@dataclass(frozen=True)
class Backlog:
    spooled: int  # received, not yet in the inbox
    unclaimed: int  # in the inbox, unfinished, nobody holds a live claim
    claimed: int  # in the inbox, unfinished, a node holds a live claim
    to_send: int  # outbox mail due now
    waiting: int  # outbox mail waiting for a later try


class Nodes(Database):
    """The worker lease (SQLite), heartbeats and reaping (a shared store)."""

    # -- leases: one worker per store ------------------------------------------------

    def take_lease(
        self,
        name: str,
        holder: str,
        pid: int,
        host: str,
        wall: float,
        seconds: float,
        dead: Callable[[int, str], bool],
    ) -> LeaseRow | None:
        """Take or renew the lease ``name`` for ``holder`` until ``wall +
        seconds``. Another holder's lease is taken over when it has lapsed or
        ``dead(pid, host)`` says its process is gone. Returns None when the
        lease is ours, else the live holder's row."""
        with self.tx() as conn:
            r = conn.execute(select(leases).where(leases.c.name == name)).first()
            if r is not None and r.holder != holder and r.until >= wall and not dead(r.pid, r.host):
                return LeaseRow.of(r)
            values = {"holder": holder, "pid": pid, "host": host, "until": wall + seconds}
            if r is None:
                conn.execute(leases.insert().values(name=name, since=wall, **values))
            elif r.holder == holder:
                conn.execute(update(leases).where(leases.c.name == name).values(**values))
            else:  # taken over: the claims of the worker gone are free again
                conn.execute(
                    update(leases).where(leases.c.name == name).values(since=wall, **values)
                )
                self._free_claims(conn, r.holder)
        return None

    def release_lease(self, name: str, holder: str) -> None:
        with self.tx() as conn:
            conn.execute(delete(leases).where(leases.c.name == name, leases.c.holder == holder))

    def lease_of(self, name: str) -> LeaseRow | None:
        with self.tx(write=False) as conn:
            r = conn.execute(select(leases).where(leases.c.name == name)).first()
        return None if r is None else LeaseRow.of(r)

    # -- nodes: several workers on a shared store ----------------------------------

    def beat_node(
        self,
        holder: str,
        pid: int,
        host: str,
        listen: str | None,
        wall: float,
        hold: float,
        done: dict[str, int],
        version: str | None = None,
    ) -> None:
        """Write this node's heartbeat, lasting ``hold`` seconds, with what
        it has done since it started (mails, turns, sent) and the pbem it
        runs."""
        values = {
            "pid": pid,
            "host": host,
            "listen": listen,
            "version": version,
            "beat": wall,
            "until": wall + hold,
            **{k: done.get(k, 0) for k in ("mails", "turns", "sent")},
        }
        stmt = postgresql.insert(nodes).values(holder=holder, since=wall, **values)
        with self.tx(lock=NONE) as conn:
            conn.execute(stmt.on_conflict_do_update(index_elements=["holder"], set_=values))

    def leave(self, holder: str) -> None:
        """A node stopping: its row goes, its claims are freed."""
        with self.tx() as conn:
            self._free(conn, holder)

    def reap_nodes(self, wall: float, dead: Callable[[int, str], bool]) -> list[NodeRow]:
        """Reap the nodes whose heartbeat lapsed before ``wall`` or that
        ``dead(pid, host)`` says are gone; returns them. Reads first, and
        writes only when there is one to reap (each node calls this every
        second)."""
        with self.tx(write=False) as conn:
            rows = [_node(r) for r in conn.execute(select(nodes)).all()]
        gone = [r for r in rows if r.until < wall or dead(r.pid, r.host)]
        if not gone:
            return []
        reaped = []
        with self.tx() as conn:
            for r in gone:
                now = conn.execute(select(nodes).where(nodes.c.holder == r.holder)).first()
                # it may have beaten again meanwhile (a long pause, not death)
                if now is not None and (now.beat == r.beat or dead(r.pid, r.host)):
                    self._free(conn, r.holder)
                    reaped.append(r)
        return reaped

    def _free(self, conn: Connection, holder: str) -> None:
        conn.execute(delete(nodes).where(nodes.c.holder == holder))
        self._free_claims(conn, holder)

    def _free_claims(self, conn: Connection, holder: str) -> None:
        """The claims of a worker gone, on mail and outgoing mail: free."""
        for table in (inbox, outbox):
            conn.execute(
                update(table)
                .where(table.c.claimed_by == holder)
                .values(claimed_by=None, lease_until=None)
            )

    def node_rows(self, wall: float) -> list[NodeRow]:
        """Every node with a row, oldest first, with its live claims."""
        with self.tx(write=False) as conn:
            rows = conn.execute(select(nodes).order_by(nodes.c.since, nodes.c.holder)).all()
            mails = self._claims(conn, inbox, inbox.c.state == "new", wall)
            sends = self._claims(conn, outbox, outbox.c.status == "pending", wall)
        return [_node(r, mails.get(r.holder, 0), sends.get(r.holder, 0)) for r in rows]

    def _claims(self, conn: Connection, table, open_, wall: float) -> dict[str, int]:  # type: ignore[no-untyped-def]
        q = (
            select(table.c.claimed_by, func.count())
            .where(open_, table.c.claimed_by.is_not(None), table.c.lease_until >= wall)
            .group_by(table.c.claimed_by)
        )
        return {holder: n for holder, n in conn.execute(q).all()}

    def backlog(self, wall: float, now: datetime) -> Backlog:
        """What is waiting to be done, by whom."""
        spooled = self.spooled()  # type: ignore[attr-defined]
        with self.tx(write=False) as conn:
            live = inbox.c.claimed_by.is_not(None) & (inbox.c.lease_until >= wall)
            new = inbox.c.state == "new"
            claimed = conn.execute(select(func.count()).where(new, live)).scalar_one()
            unfinished = conn.execute(select(func.count()).where(new)).scalar_one()
            pending = outbox.c.status == "pending"
            due = conn.execute(
                select(func.count()).where(pending, outbox.c.next_attempt_at <= now)
            ).scalar_one()
            later = conn.execute(
                select(func.count()).where(pending, outbox.c.next_attempt_at > now)
            ).scalar_one()
        return Backlog(spooled, unfinished - claimed, claimed, due, later)

    def lock_game(self, conn: Connection, name: str) -> bool:
        """On a shared store: lock the game's row for the caller's
        transaction, unless another node's transaction holds it (False, at
        once: that node is resolving the game's turn). SQLite's one writer
        needs no such lock (True)."""
        if not self.shared:
            return True
        q = select(games.c.name).where(games.c.name == name).with_for_update(skip_locked=True)
        return conn.execute(q).first() is not None

    def turns_due(self, now: datetime) -> set[tuple[str, int]]:
        """(game, turn) of every running game whose deadline has passed:
        one light statement (no states), for nodes to step over the games
        another node resolved meanwhile."""
        with self.tx(write=False) as conn:
            rows = conn.execute(
                select(games.c.name, games.c.turn).where(
                    games.c.status == "running", games.c.deadline <= now
                )
            ).all()
        return {(name, turn) for name, turn in rows}

    def mail_waiting(self, conn: Connection, before: datetime) -> int:
        """Mails received before ``before`` not yet in a final state (in the
        spool or the inbox), on a shared store: a turn waits for them."""
        spooled = conn.execute(
            select(func.count()).select_from(spool).where(spool.c.received_at < before)
        ).scalar_one()
        unfinished = conn.execute(
            select(func.count())
            .select_from(inbox)
            .where(inbox.c.state == "new", inbox.c.received_at < before)
        ).scalar_one()
        return int(spooled + unfinished)


def _node(r, mails: int = 0, sends: int = 0) -> NodeRow:  # type: ignore[no-untyped-def]
    return NodeRow(
        r.holder, r.pid, r.host, r.listen, r.version, r.since, r.beat, r.until,
        r.mails, r.turns, r.sent, mails, sends,
    )  # fmt: skip
