"""Signing in to the web pages (pbem/web/signin.py): the single-use links
SIGNIN mails (pbem/commands/signin.py) and the sessions they start. Only
the SHA-256 of a link's token, or of a session's cookie, is stored: a copy
of the database signs nobody in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, select, update

from pbem.store.database import Database
from pbem.store.rows import aware
from pbem.store.schema import players, settings, signin_links, signin_sessions

WEB_ADDRESS = "web.address"  # settings: where the web server listens, as it started


@dataclass(frozen=True)
class SigninLink:
    address: str
    game: str | None
    expires_at: datetime
    used_at: datetime | None

    def state(self, now: datetime) -> str:
        """ "used", "expired" or "valid" at ``now``."""
        if self.used_at is not None:
            return "used"
        return "expired" if now >= self.expires_at else "valid"


class SignIns(Database):
    """Sign-in links and web sessions."""

    def set_web_address(self, address: str) -> None:
        """Where the web server listens now (its port taken, which games.yaml
        or the command line may leave to the system): the links SIGNIN mails
        lead there when games.yaml gives no public address."""
        with self.tx() as conn:
            conn.execute(delete(settings).where(settings.c.key == WEB_ADDRESS))
            conn.execute(settings.insert().values(key=WEB_ADDRESS, value=address))

    def web_address(self, conn: Connection) -> str | None:
        return conn.execute(
            select(settings.c.value).where(settings.c.key == WEB_ADDRESS)
        ).scalar_one_or_none()

    def add_signin_link(
        self,
        conn: Connection,
        token_hash: str,
        address: str,
        game: str | None,
        now: datetime,
        expires: datetime,
    ) -> None:
        conn.execute(
            signin_links.insert().values(
                token=token_hash,
                address=address.lower(),
                game=game,
                asked_at=now,
                expires_at=expires,
            )
        )

    def signin_link(self, conn: Connection, token_hash: str) -> SigninLink | None:
        r = conn.execute(
            select(signin_links).where(signin_links.c.token == token_hash)
        ).one_or_none()
        if r is None:
            return None
        return SigninLink(r.address, r.game, aware(r.expires_at), aware(r.used_at))  # type: ignore[arg-type]

    def use_signin_link(self, conn: Connection, token_hash: str, now: datetime) -> bool:
        """Mark a link used, if nobody has (its state is checked first, in
        the same transaction); False when another request used it first."""
        return _first(conn, signin_links.c.used_at, token_hash, now)

    def start_session(
        self, conn: Connection, token_hash: str, address: str, now: datetime, expires: datetime
    ) -> None:
        conn.execute(
            signin_sessions.insert().values(
                token=token_hash, address=address.lower(), started_at=now, expires_at=expires
            )
        )

    def session_address(self, conn: Connection, token_hash: str, now: datetime) -> str | None:
        """The address a session is scoped to, while it is on (neither
        ended nor expired)."""
        r = self._session(conn, token_hash, now)
        return None if r is None else r[0]

    def session_seat(
        self, conn: Connection, token_hash: str, game: str, now: datetime
    ) -> tuple[str, str | None] | None:
        """In one statement: the address a session that is on is scoped
        to, and the name of its player in ``game`` (None: it plays no seat
        there); None for no such session."""
        seat = (
            select(players.c.name)
            .where(
                players.c.game == game,
                players.c.email == signin_sessions.c.address,
                players.c.status != "removed",
            )
            .limit(1)
            .scalar_subquery()
        )
        r = self._session(conn, token_hash, now, seat)
        return None if r is None else (r[0], r[2])

    def _session(self, conn: Connection, token_hash: str, now: datetime, *more: Any) -> Any:
        """(address, expiry, *more) of a session that is on; None for one
        ended, expired or unknown."""
        r = conn.execute(
            select(signin_sessions.c.address, signin_sessions.c.expires_at, *more).where(
                signin_sessions.c.token == token_hash, signin_sessions.c.ended_at.is_(None)
            )
        ).one_or_none()
        if r is None or now >= aware(r[1]):  # type: ignore[operator]
            return None
        return r

    def end_session(self, conn: Connection, token_hash: str, now: datetime) -> bool:
        """Sign out: the cookie no longer signs in; False if it did not."""
        return _first(conn, signin_sessions.c.ended_at, token_hash, now)

    def purge_signins(self, conn: Connection, before: datetime) -> int:
        """Forget links and sessions that expired before ``before``."""
        links = conn.execute(delete(signin_links).where(signin_links.c.expires_at < before))
        sessions = conn.execute(
            delete(signin_sessions).where(signin_sessions.c.expires_at < before)
        )
        return links.rowcount + sessions.rowcount


def _first(conn: Connection, column: Any, token_hash: str, now: datetime) -> bool:
    """Set ``column`` to ``now`` in the row of ``token_hash``, if nobody has
    (a link used, a session ended): False when another request did first."""
    table = column.table
    found = conn.execute(
        update(table).where(table.c.token == token_hash, column.is_(None)).values({column: now})
    )
    return found.rowcount == 1
