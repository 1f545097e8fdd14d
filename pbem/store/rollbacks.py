"""Phases the game master took back (ROLLBACK, pbem/commands/rollback.py).

A rollback returns a game to the state its last resolved turn started
from, in the caller's transaction: that turn's record and reports move
into ``rollbacks`` (withdrawn, kept for the record), the turns after it
are forgotten (their orders and READY: those phases are played again
from scratch), the press sent since goes with the phase played again,
and the missed turns it charged are taken back. The turn's own
submissions stay as they were: they stand again, and players may
change them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, delete, func, select, update

from pbem.store.database import Database
from pbem.store.rows import aware
from pbem.store.schema import players, press, ready, reports, rollbacks, submissions, turns


@dataclass(frozen=True)
class Rollback:
    """A phase taken back: its turn, its phase's name, when."""

    turn: int
    phase: str
    at: datetime


class Rollbacks(Database):
    """The phases taken back, and taking one back."""

    def roll_back(self, conn: Connection, game: str, turn: int, at: datetime) -> str:
        """Take back the resolving of ``turn`` (the last resolved): keep
        its record and reports as withdrawn, forget what came after it.
        The state that turn started from (the game row is the caller's)."""
        row = conn.execute(
            select(turns.c.state, turns.c.result).where(turns.c.game == game, turns.c.turn == turn)
        ).one()
        record = json.loads(row.result)
        kept = conn.execute(
            select(reports.c.reader, reports.c.subject, reports.c.text).where(
                reports.c.game == game, reports.c.turn >= turn
            )
        ).all()
        conn.execute(
            rollbacks.insert().values(
                game=game,
                turn=turn,
                phase=record["phase"],
                at=at,
                record=row.result,
                reports=json.dumps(
                    {r.reader: {"subject": r.subject, "text": r.text} for r in kept},
                    sort_keys=True,
                ),
            )
        )
        conn.execute(delete(reports).where(reports.c.game == game, reports.c.turn >= turn))
        conn.execute(delete(turns).where(turns.c.game == game, turns.c.turn > turn))
        conn.execute(
            update(turns)
            .where(turns.c.game == game, turns.c.turn == turn)
            .values(result=None, adjudicated_at=None, lag=None)
        )
        conn.execute(
            delete(submissions).where(submissions.c.game == game, submissions.c.turn > turn)
        )
        conn.execute(delete(ready).where(ready.c.game == game, ready.c.turn >= turn))
        conn.execute(
            update(press).where(press.c.game == game, press.c.turn > turn).values(turn=turn)
        )
        missed = list(record.get("missed", []))
        if missed:
            conn.execute(
                update(players)
                .where(players.c.game == game, players.c.name.in_(missed), players.c.missed > 0)
                .values(missed=players.c.missed - 1)
            )
        known = self.known(conn)
        if known is not None:
            known.clear()
        return str(row.state)

    def rollbacks_of(self, conn: Connection, game: str) -> list[Rollback]:
        """The phases of ``game`` taken back, in the order taken."""
        rows = conn.execute(
            select(rollbacks.c.turn, rollbacks.c.phase, rollbacks.c.at)
            .where(rollbacks.c.game == game)
            .order_by(rollbacks.c.id)
        ).all()
        return [Rollback(r[0], r[1], aware(r[2])) for r in rows]  # type: ignore[arg-type]

    def rollback_count(self, conn: Connection, game: str) -> int:
        return int(
            conn.execute(
                select(func.count()).select_from(rollbacks).where(rollbacks.c.game == game)
            ).scalar()
            or 0
        )
