"""What the web pages read (pbem/web/): a game's turn as it was played
(the state it started from, its record), the cheap version of a game that
says whether a page kept in memory is still the page, and the same for the
list of games. Reads only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, func, select

from pbem.store.database import Database
from pbem.store.rows import aware
from pbem.store.schema import games, players, press, ready, rollbacks, submissions, turns

_P = bindparam


def _version_columns() -> list[Any]:
    """Everything a game's page shows that changes while a turn is played,
    as numbers: its row, the latest order mail of the turn (whose orders
    are in), READY, press, the players' number, status and missed turns.
    Each is a lookup on an index (or the primary key)."""
    g = games.c
    return [
        g.name,
        g.turn,
        g.status,
        g.deadline,
        g.calendar_sequence,
        # the phases taken back (ROLLBACK): a played phase's page is another
        select(func.count())
        .select_from(rollbacks)
        .where(rollbacks.c.game == g.name)
        .scalar_subquery(),
        select(func.max(submissions.c.id))
        .where(submissions.c.game == g.name, submissions.c.turn == g.turn)
        .scalar_subquery(),
        select(func.count())
        .select_from(ready)
        .where(ready.c.game == g.name, ready.c.turn == g.turn)
        .scalar_subquery(),
        select(func.max(press.c.id)).where(press.c.game == g.name).scalar_subquery(),
        select(func.max(players.c.id)).where(players.c.game == g.name).scalar_subquery(),
        select(func.sum(players.c.missed)).where(players.c.game == g.name).scalar_subquery(),
        select(func.count())
        .select_from(players)
        .where(players.c.game == g.name, players.c.status == "active")
        .scalar_subquery(),
    ]


_GAME_VERSION = select(*_version_columns()).where(games.c.name == _P("name"))
_LIST_VERSION = select(
    games.c.name,
    games.c.turn,
    games.c.status,
    games.c.deadline,
    games.c.calendar_sequence,
    select(func.count()).where(players.c.game == games.c.name).scalar_subquery(),
).order_by(games.c.name)
_TURN = select(turns.c.state, turns.c.result, turns.c.started_at, turns.c.adjudicated_at).where(
    turns.c.game == _P("game"), turns.c.turn == _P("turn")
)
_RECORDS = (
    select(turns.c.turn, turns.c.result, turns.c.adjudicated_at)
    .where(turns.c.game == _P("game"), turns.c.turn > _P("after"), turns.c.result.is_not(None))
    .order_by(turns.c.turn)
)


class PlayedTurn:
    """One turn as stored: the state it started from and, once resolved,
    its record (JSON text, pbem/turns/runner.py) and when it ran."""

    __slots__ = ("adjudicated_at", "result", "started_at", "state")

    def __init__(
        self, state: str, result: str | None, started_at: datetime, adjudicated_at: datetime | None
    ) -> None:
        self.state = state
        self.result = result
        self.started_at = started_at
        self.adjudicated_at = adjudicated_at


class PagesRead(Database):
    """Reads for the web pages: nothing here writes."""

    def game_version(self, conn: Connection, name: str) -> tuple[Any, ...] | None:
        """A tuple that changes whenever the game's page would (None: no
        such game). One statement, on indexes."""
        row = conn.execute(_GAME_VERSION, {"name": name}).first()
        return None if row is None else tuple(row)

    def list_version(self, conn: Connection) -> tuple[Any, ...]:
        """A tuple that changes whenever the list of games would."""
        return tuple(tuple(r) for r in conn.execute(_LIST_VERSION).all())

    def played_turn(self, conn: Connection, game: str, turn: int) -> PlayedTurn | None:
        r = conn.execute(_TURN, {"game": game, "turn": turn}).first()
        if r is None:
            return None
        return PlayedTurn(r[0], r[1], aware(r[2]), aware(r[3]))  # type: ignore[arg-type]

    def turn_records(
        self, conn: Connection, game: str, after: int = -1
    ) -> list[tuple[int, str, datetime]]:
        """(turn, record JSON, when it ran) of every resolved turn after
        ``after``, in order."""
        rows = conn.execute(_RECORDS, {"game": game, "after": after}).all()
        return [(r[0], r[1], aware(r[2])) for r in rows]  # type: ignore[misc]
