"""Games and their turns: games, players, turns, submissions, readiness,
press and reports. Deadlines live on the game row (``games.deadline``)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, select, update

from pbem.store.database import Database, Hot
from pbem.store.rows import GameRow, PlayerRow, ReportRow, aware
from pbem.store.schema import games, players, press, ready, reports, submissions, turns

# Statements of the mail path, built once: building a statement costs more
# than running it on SQLite.
_P = bindparam
_GAME = select(games).where(games.c.name == _P("name"))
_PLAYERS_OF = select(players).where(players.c.game == _P("game")).order_by(players.c.id)
# in the order seated: SQLite reads the table in that order, PostgreSQL in
# whatever order its pages hold the rows (a changed row moves)
_PLAYERS_BY_EMAIL = (
    select(players).where(func.lower(players.c.email) == _P("email")).order_by(players.c.id)
)
SUBMISSION_ADD = Hot(
    submissions.insert(), columns=("game", "turn", "player", "seq", "text", "received_at")
)
SUBMISSION_CURRENT = Hot(
    select(submissions.c.seq, submissions.c.text)
    .where(
        submissions.c.game == _P("game"),
        submissions.c.turn == _P("turn"),
        submissions.c.player == _P("player"),
    )
    .order_by(submissions.c.seq.desc(), submissions.c.id.desc())
    .limit(1)
)


class GamesAndTurns(Database):
    """Games, players, turns, submissions, press and reports."""

    # -- games ------------------------------------------------------------------------

    def game(self, conn: Connection, name: str) -> GameRow | None:
        r = conn.execute(_GAME, {"name": name}).first()
        return None if r is None else GameRow.of(r)

    def all_games(self, conn: Connection) -> list[GameRow]:
        rows = conn.execute(select(games).order_by(games.c.name)).all()
        return [GameRow.of(r) for r in rows]

    def add_game(
        self,
        conn: Connection,
        name: str,
        kind: str,
        state: str,
        turn: int,
        seed: int,
        at: datetime,
        status: str = "running",
    ) -> None:
        conn.execute(
            games.insert().values(
                name=name,
                kind=kind,
                state=state,
                turn=turn,
                seed=seed,
                status=status,
                created_at=at,
            )
        )

    def set_game_state(
        self, conn: Connection, name: str, state: str, status: str | None = None
    ) -> None:
        values: dict[str, Any] = {"state": state}
        if status is not None:
            values["status"] = status
        conn.execute(update(games).where(games.c.name == name).values(**values))

    def set_game(self, conn: Connection, name: str, **values: Any) -> None:
        conn.execute(update(games).where(games.c.name == name).values(**_revised(values)))

    def advance_game(self, conn: Connection, name: str, from_turn: int, **values: Any) -> bool:
        """The compare-and-set of a turn: change the game only if it is
        still running at ``from_turn``. False if another trigger won."""
        done = conn.execute(
            update(games)
            .where(games.c.name == name, games.c.turn == from_turn, games.c.status == "running")
            .values(**_revised(values))
        )
        return done.rowcount == 1

    # -- players ------------------------------------------------------------------------

    def add_player(
        self, conn: Connection, game: str, name: str, email: str, tz: str | None, password_hash: str
    ) -> None:
        conn.execute(
            players.insert().values(
                game=game,
                name=name,
                email=email,
                timezone=tz,
                password_hash=password_hash,
                token_version=0,
                status="active",
            )
        )

    def players(self, conn: Connection, game: str | None = None) -> list[PlayerRow]:
        if game is not None:
            return [PlayerRow(*r) for r in conn.execute(_PLAYERS_OF, {"game": game}).all()]
        q = select(players).order_by(players.c.game, players.c.id)
        return [PlayerRow(*r) for r in conn.execute(q).all()]

    def players_by_email(self, conn: Connection, email: str) -> list[PlayerRow]:
        rows = conn.execute(_PLAYERS_BY_EMAIL, {"email": email.lower()}).all()
        return [PlayerRow(*r) for r in rows]

    def players_by_each_email(
        self, conn: Connection, emails: Sequence[str]
    ) -> dict[str, list[PlayerRow]]:
        """The seats of each of ``emails`` (lower case): one statement."""
        found: dict[str, list[PlayerRow]] = {e: [] for e in emails}
        q = (
            select(players)
            .where(func.lower(players.c.email).in_(sorted(found)))
            .order_by(players.c.id)
        )
        for r in conn.execute(q).all():
            found.setdefault(r.email.lower(), []).append(PlayerRow(*r))
        return found

    def add_missed(self, conn: Connection, game: str, names: Sequence[str]) -> None:
        if names:
            conn.execute(
                update(players)
                .where(players.c.game == game, players.c.name.in_(list(names)))
                .values(missed=players.c.missed + 1)
            )

    def bump_token(self, conn: Connection, player_id: int) -> None:
        conn.execute(
            update(players)
            .where(players.c.id == player_id)
            .values(token_version=players.c.token_version + 1)
        )

    def delete_player(self, conn: Connection, player_id: int) -> None:
        conn.execute(delete(players).where(players.c.id == player_id))

    def set_player(self, conn: Connection, player_id: int, **values: Any) -> None:
        conn.execute(update(players).where(players.c.id == player_id).values(**values))

    # -- turns --------------------------------------------------------------------------

    def start_turn(self, conn: Connection, game: str, turn: int, state: str, at: datetime) -> None:
        """Record the state a turn starts from."""
        conn.execute(turns.insert().values(game=game, turn=turn, state=state, started_at=at))

    def finish_turn(
        self,
        conn: Connection,
        game: str,
        turn: int,
        result: str,
        at: datetime,
        lag: float | None = None,
    ) -> None:
        """Record a turn's result; ``lag``: seconds from its deadline to
        ``at`` (None when it ran before its deadline)."""
        conn.execute(
            update(turns)
            .where(turns.c.game == game, turns.c.turn == turn)
            .values(result=result, adjudicated_at=at, lag=lag)
        )

    def turn_result(self, conn: Connection, game: str, turn: int) -> str | None:
        return conn.execute(
            select(turns.c.result).where(turns.c.game == game, turns.c.turn == turn)
        ).scalar()

    def turn_phases(self, conn: Connection, game: str) -> dict[int, str]:
        """The name of the phase each resolved turn played, from its record
        (no state is read: a game of ticks has hundreds)."""
        rows = conn.execute(
            select(turns.c.turn, turns.c.result)
            .where(turns.c.game == game, turns.c.result.is_not(None))
            .order_by(turns.c.turn)
        ).all()
        return {r[0]: json.loads(r[1])["phase"] for r in rows}

    def turn_states(self, conn: Connection, game: str) -> list[tuple[int, str]]:
        rows = conn.execute(
            select(turns.c.turn, turns.c.state).where(turns.c.game == game).order_by(turns.c.turn)
        ).all()
        return [(r[0], r[1]) for r in rows]

    def ready_players(self, conn: Connection, game: str, turn: int) -> set[str]:
        rows = conn.execute(
            select(ready.c.player).where(ready.c.game == game, ready.c.turn == turn)
        ).all()
        return {r[0] for r in rows}

    def set_ready(self, conn: Connection, game: str, turn: int, player: str) -> None:
        exists = conn.execute(
            select(ready).where(
                ready.c.game == game, ready.c.turn == turn, ready.c.player == player
            )
        ).first()
        if exists is None:
            conn.execute(ready.insert().values(game=game, turn=turn, player=player))

    # -- submissions --------------------------------------------------------------------

    def add_submission(
        self, conn: Connection, game: str, turn: int, player: str, seq: int, text: str, at: datetime
    ) -> None:
        known = self.known(conn)
        if known is not None:
            known["submission", game, turn, player] = (seq, text)
        self.run_later(
            conn,
            SUBMISSION_ADD,
            game=game,
            turn=turn,
            player=player,
            seq=seq,
            text=text,
            received_at=at,
        )

    def current_submission(
        self, conn: Connection, game: str, turn: int, player: str
    ) -> tuple[int, str] | None:
        """The standing order text of a player for a turn: (seq, text)."""
        known = self.known(conn)
        key = ("submission", game, turn, player)
        if known is not None and key in known:
            return known[key]  # type: ignore[no-any-return]
        r = self.run(conn, SUBMISSION_CURRENT, game=game, turn=turn, player=player).fetchone()
        current = None if r is None else (r[0], r[1])
        if known is not None:
            known[key] = current
        return current

    def _submissions(
        self, conn: Connection, game: str, turn: int, player: str | None, before: datetime | None
    ) -> list[Any]:
        """(player, seq, text, received_at) of a turn, in the order received,
        up to ``before``: an order received at that very instant counts."""
        q = select(
            submissions.c.player, submissions.c.seq, submissions.c.text, submissions.c.received_at
        ).where(submissions.c.game == game, submissions.c.turn == turn)
        if player is not None:
            q = q.where(submissions.c.player == player)
        if before is not None:
            q = q.where(submissions.c.received_at <= before)
        return conn.execute(q.order_by(submissions.c.seq, submissions.c.id)).all()

    def submissions_for(
        self, conn: Connection, game: str, turn: int, before: datetime | None
    ) -> dict[str, tuple[int, str, datetime]]:
        """Each player's standing order text for a turn, as received up to
        ``before``: player -> (seq, text, received_at)."""
        out: dict[str, tuple[int, str, datetime]] = {}
        for player, seq, text, at in self._submissions(conn, game, turn, None, before):
            out[player] = (seq, text, aware(at))  # type: ignore[assignment]
        return {k: v for k, v in out.items() if v[1]}  # an empty text: withdrawn (CLEAR)

    def submission_queue(
        self,
        conn: Connection,
        game: str,
        turn: int,
        player: str | None = None,
        before: datetime | None = None,
    ) -> dict[str, list[tuple[int, str, datetime]]]:
        """Every order text of each player for a turn, in the order received,
        since their last withdrawal (an empty text, from CLEAR): the orders
        of games that run orders as received. player -> [(seq, text, at)]."""
        out: dict[str, list[tuple[int, str, datetime]]] = {}
        for who, seq, text, at in self._submissions(conn, game, turn, player, before):
            if text == "":
                out[who] = []
            else:
                out.setdefault(who, []).append((seq, text, aware(at)))  # type: ignore[arg-type]
        return {k: v for k, v in out.items() if v}

    # -- press ----------------------------------------------------------------------------

    def add_press(
        self, conn: Connection, game: str, turn: int, sender: str | None, text: str, at: datetime
    ) -> None:
        conn.execute(
            press.insert().values(game=game, turn=turn, sender=sender, text=text, sent_at=at)
        )

    def press_of(
        self, conn: Connection, game: str, turn: int, since: int | None = None
    ) -> list[tuple[str | None, str]]:
        """The public press of a turn (of the turns after ``since`` up to
        ``turn``, if given), in the order sent."""
        first = turn if since is None else since + 1
        rows = conn.execute(
            select(press.c.sender, press.c.text)
            .where(press.c.game == game, press.c.turn >= first, press.c.turn <= turn)
            .order_by(press.c.id)
        ).all()
        return [(r[0], r[1]) for r in rows]

    # -- reports ----------------------------------------------------------------------

    def add_report(self, conn: Connection, report: ReportRow, at: datetime) -> None:
        self.add_reports(conn, [report], at)

    def add_reports(self, conn: Connection, rows: Sequence[ReportRow], at: datetime) -> None:
        """Keep a turn's reports (each replacing its reader's report of that
        turn, if one was kept): two statements however many."""
        for (game, turn), same in itertools.groupby(rows, key=lambda r: (r.game, r.turn)):
            group = list(same)
            conn.execute(
                delete(reports).where(
                    reports.c.game == game,
                    reports.c.turn == turn,
                    reports.c.reader.in_([r.reader for r in group]),
                )
            )
            conn.execute(
                reports.insert(),
                [
                    {
                        "game": r.game,
                        "turn": r.turn,
                        "reader": r.reader,
                        "subject": r.subject,
                        "text": r.text,
                        "html": r.html,
                        "svg": r.svg,
                        "png": r.png,
                        "created_at": at,
                    }
                    for r in group
                ],
            )

    def last_reports_before(self, conn: Connection, game: str, turn: int) -> dict[str, int]:
        """Each reader's last turn with a kept report before ``turn``."""
        rows = conn.execute(
            select(reports.c.reader, func.max(reports.c.turn))
            .where(reports.c.game == game, reports.c.turn < turn)
            .group_by(reports.c.reader)
        )
        return {reader: int(last) for reader, last in rows}

    def report(
        self, conn: Connection, game: str, reader: str, turn: int | None = None
    ) -> ReportRow | None:
        """A reader's report of a turn (the latest when ``turn`` is None)."""
        q = select(reports).where(reports.c.game == game, reports.c.reader == reader)
        if turn is not None:
            q = q.where(reports.c.turn == turn)
        r = conn.execute(q.order_by(reports.c.turn.desc()).limit(1)).first()
        if r is None:
            return None
        return ReportRow(r.game, r.turn, r.reader, r.subject, r.text, r.html, r.svg, r.png)

    def report_turns(self, conn: Connection, game: str, reader: str | None = None) -> list[int]:
        """The turns with a kept report (``reader``'s own, if given)."""
        q = select(reports.c.turn).where(reports.c.game == game)
        if reader is not None:
            q = q.where(reports.c.reader == reader)
        rows = conn.execute(q.distinct().order_by(reports.c.turn)).all()
        return [r[0] for r in rows]


def _revised(values: dict[str, Any]) -> dict[str, Any]:
    """A change of a game's deadline or status is a new revision of its
    calendar event: its sequence goes up by one."""
    if "deadline" in values or "status" in values:
        return {"calendar_sequence": games.c.calendar_sequence + 1, **values}
    return values
