"""Accounts and scores: server settings, watchers, authentication
failures, the scoreboard, and the reactions of people outside a game."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, bindparam, func, select

from pbem.store.database import Database
from pbem.store.rows import aware
from pbem.store.schema import (
    auth_failures,
    reactions,
    scores,
    settings,
    unsubscribed,
    watchers,
)

_AUTH_RECENT = (
    select(func.count())
    .select_from(auth_failures)
    .where(auth_failures.c.address == bindparam("address"), auth_failures.c.at > bindparam("since"))
)


class AccountsAndScores(Database):
    """Settings, watchers, authentication failures, scores and reactions."""

    # -- settings ---------------------------------------------------------------

    def setting(self, key: str, make: Any = None) -> str | None:
        """The value of ``key``; if absent and ``make`` is given, store
        make() first (once, even with several processes)."""
        with self.tx() as conn:
            row = conn.execute(select(settings.c.value).where(settings.c.key == key)).first()
            if row is not None:
                return row[0]
            if make is None:
                return None
            value = make()
            conn.execute(settings.insert().values(key=key, value=value))
            return value

    # -- watchers ---------------------------------------------------------------------

    def watch(self, conn: Connection, game: str, email: str, on: bool) -> bool:
        """Start or stop watching; False if nothing changed."""
        found = conn.execute(
            select(watchers).where(watchers.c.game == game, watchers.c.email == email.lower())
        ).first()
        if on:  # watching again undoes an unsubscribe
            conn.execute(
                unsubscribed.delete().where(
                    unsubscribed.c.game == game, unsubscribed.c.email == email.lower()
                )
            )
        if on and found is None:
            conn.execute(watchers.insert().values(game=game, email=email.lower()))
            return True
        if not on and found is not None:
            conn.execute(
                watchers.delete().where(watchers.c.game == game, watchers.c.email == email.lower())
            )
            return True
        return False

    def watchers(self, conn: Connection, game: str) -> list[str]:
        """A game's observers by WATCH, by address (on every backend)."""
        q = select(watchers.c.email).where(watchers.c.game == game).order_by(watchers.c.email)
        return [r[0] for r in conn.execute(q).all()]

    def watched_by(self, conn: Connection, email: str) -> list[str]:
        """The games ``email`` WATCHes."""
        q = select(watchers.c.game).where(watchers.c.email == email.lower())
        return [r[0] for r in conn.execute(q).all()]

    def watched_by_each(self, conn: Connection, emails: Sequence[str]) -> dict[str, list[str]]:
        """The games each of ``emails`` (lower case) WATCHes: one statement."""
        found: dict[str, list[str]] = {e: [] for e in emails}
        q = select(watchers.c.email, watchers.c.game).where(watchers.c.email.in_(sorted(found)))
        for email, game in conn.execute(q).all():
            found.setdefault(email, []).append(game)
        return found

    def unsubscribe(self, conn: Connection, game: str, email: str, at: datetime) -> bool:
        """The observer ``email`` leaves ``game``'s mail (a WATCH undone,
        and games.yaml's listing overruled); False if it had left already."""
        conn.execute(
            watchers.delete().where(watchers.c.game == game, watchers.c.email == email.lower())
        )
        found = conn.execute(
            select(unsubscribed.c.at).where(
                unsubscribed.c.game == game, unsubscribed.c.email == email.lower()
            )
        ).first()
        if found is not None:
            return False
        conn.execute(unsubscribed.insert().values(game=game, email=email.lower(), at=at))
        return True

    def unsubscribed(self, conn: Connection, game: str) -> set[str]:
        """The addresses (lower case) that unsubscribed from ``game``."""
        rows = conn.execute(select(unsubscribed.c.email).where(unsubscribed.c.game == game))
        return {r[0] for r in rows}

    # -- authentication failures ----------------------------------------------------

    def add_auth_failure(
        self, conn: Connection, address: str, game: str | None, at: datetime
    ) -> int:
        """Record a failure; returns failures from this address in the last hour."""
        conn.execute(auth_failures.insert().values(address=address.lower(), game=game, at=at))
        return self.recent_auth_failures(conn, address, at)

    def recent_auth_failures(self, conn: Connection, address: str, at: datetime) -> int:
        return conn.execute(
            _AUTH_RECENT, {"address": address.lower(), "since": at - timedelta(hours=1)}
        ).scalar_one()

    def recent_failures_for(self, conn: Connection, address: str, game: str, at: datetime) -> int:
        """Failures from ``address`` for ``game`` in the hour before ``at``."""
        return conn.execute(
            select(func.count())
            .select_from(auth_failures)
            .where(
                auth_failures.c.address == address.lower(),
                auth_failures.c.game == game,
                auth_failures.c.at > at - timedelta(hours=1),
            )
        ).scalar_one()

    def game_failures(self, conn: Connection, prefix: str, game: str, at: datetime) -> int:
        """Failures for ``game`` from any address whose key starts with
        ``prefix``, in the hour before ``at``."""
        return conn.execute(
            select(func.count())
            .select_from(auth_failures)
            .where(
                auth_failures.c.address.startswith(prefix, autoescape=True),
                auth_failures.c.game == game,
                auth_failures.c.at > at - timedelta(hours=1),
            )
        ).scalar_one()

    def auth_failure_times(self, conn: Connection, address: str, at: datetime) -> list[datetime]:
        """When the failures from ``address`` in the hour before ``at`` came, oldest first."""
        rows = conn.execute(
            select(auth_failures.c.at)
            .where(
                auth_failures.c.address == address.lower(),
                auth_failures.c.at > at - timedelta(hours=1),
            )
            .order_by(auth_failures.c.at)
        ).all()
        return [t for r in rows if (t := aware(r[0])) is not None]

    # -- the scoreboard -------------------------------------------------------------------

    def add_scores(
        self, conn: Connection, game: str, rows: Sequence[tuple[str, str, int]], at: datetime
    ) -> None:
        """(email, player, points) of a finished game, once."""
        for email, player, points in rows:
            exists = conn.execute(
                select(scores.c.id).where(scores.c.game == game, scores.c.email == email.lower())
            ).first()
            if exists is None:
                conn.execute(
                    scores.insert().values(
                        game=game, email=email.lower(), player=player, points=points, at=at
                    )
                )

    def ranking(self, conn: Connection) -> list[tuple[str, int, int]]:
        """(email, score, games) best first, for every player with a score
        above 0: each game's points in the order the games ended, the score
        never below 0."""
        rows = conn.execute(
            select(scores.c.email, scores.c.points).order_by(scores.c.at, scores.c.id)
        ).all()
        totals: dict[str, int] = {}
        games: dict[str, int] = {}
        for email, points in rows:
            totals[email] = max(0, totals.get(email, 0) + points)
            games[email] = games.get(email, 0) + 1
        return sorted(
            ((e, t, games[e]) for e, t in totals.items() if t > 0), key=lambda r: (-r[1], r[0])
        )

    def ranked_names(self, conn: Connection) -> dict[str, str]:
        """Each scored address's player name, as it played its latest game."""
        rows = conn.execute(
            select(scores.c.email, scores.c.player).order_by(scores.c.at, scores.c.id)
        ).all()
        return {email: player for email, player in rows}

    # -- reactions --------------------------------------------------------------------

    def last_reaction(self, conn: Connection, game: str, email: str) -> datetime | None:
        at = conn.execute(
            select(func.max(reactions.c.at)).where(
                reactions.c.game == game, reactions.c.email == email.lower()
            )
        ).scalar()
        return aware(at)

    def add_reaction(
        self, conn: Connection, game: str, email: str, text: str, at: datetime
    ) -> None:
        conn.execute(reactions.insert().values(game=game, email=email.lower(), text=text, at=at))
