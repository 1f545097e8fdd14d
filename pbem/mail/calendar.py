"""Deadline calendars (iCalendar, RFC 5545, written by the icalendar
library): one calendar per address, with the deadline of every game that
address plays, watches or masters, attached to its turn reports and mailed
on request (CALENDAR).

Each deadline is one event:

- its UID names the server, the game (with the moment the game was made,
  so a later game of the same name is another) and the turn: a moved
  deadline (EXTEND, RESUME) is the same event again, with a higher
  SEQUENCE (``games.calendar_sequence``, raised by the store whenever a
  game's deadline or status changes) and a fresh DTSTAMP, so a calendar
  program updates the event it has rather than adding a second;
- its time is written in the game's time zone (the zone its cron
  expression runs in) with TZID, and the calendar carries a VTIMEZONE for
  each zone used, covering the years of its events; a game in UTC is
  written in UTC;
- an alarm an hour before;
- a paused game's deadline, and the deadline of a turn that ran before it
  (every player READY, the game master's ADJUDICATE), are the same events
  again, STATUS:CANCELLED.

Games that run on a clock (Strategic Initiative) have no event: orders
are never due there, a tick every few minutes is no appointment, and an
alarm for each would be noise. A private game's events are CLASS:PRIVATE.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from sqlalchemy import Connection

from pbem.app import App
from pbem.config import GameConfig
from pbem.mail import lists
from pbem.store import GameRow

if TYPE_CHECKING:  # imported where a calendar is made: a server start needs none
    import icalendar

FILENAME = "deadlines.ics"
MIME = "text/calendar"
LENGTH = timedelta(minutes=15)  # an event's length on the calendar: it marks a moment
ALARM = timedelta(hours=1)


@dataclass(frozen=True)
class Deadline:
    """One game's deadline, as an event."""

    game: str
    title: str  # the game's rules: Office Wars, Empire...
    phase: str  # the phase whose orders are due
    turn: int
    at: datetime  # when, aware
    zone: str  # the game's time zone
    sequence: int  # the event's revision
    uid: str
    address: str  # where orders go
    private: bool = False
    cancelled: str = ""  # why the event no longer stands ("" : it does)


def event_uid(game: GameRow, turn: int, domain: str) -> str:
    """The event of a game's turn: the same for every revision of it."""
    made = game.created_at.astimezone(ZoneInfo("UTC")) if game.created_at else None
    made_at = f"{made:%Y%m%dT%H%M%SZ}" if made else "0"
    return f"deadline-{game.name}-{made_at}-turn{turn}@{domain}"


def calendar(deadlines: Sequence[Deadline], *, domain: str, now: datetime) -> bytes:
    """The calendar of ``deadlines`` as iCalendar bytes (CRLF lines)."""
    import icalendar

    cal = icalendar.Calendar()
    cal.add("prodid", f"-//pbem//deadlines {domain}//EN")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", f"pbem deadlines ({domain})")
    cal.add("name", f"pbem deadlines ({domain})")
    for d in sorted(deadlines, key=lambda d: (d.at, d.game)):
        cal.add_component(event(d, now))
    if deadlines:
        first = min(d.at for d in deadlines)
        last = max(d.at for d in deadlines)
        # each zone's rules for the years the events fall in, and the next
        cal.add_missing_timezones(
            first_date=date(first.year, 1, 1), last_date=date(last.year + 2, 1, 1)
        )
    return cal.to_ical()


@lru_cache(maxsize=64)
def shared_calendar(deadlines: tuple[Deadline, ...], domain: str, now: datetime) -> bytes:
    """``calendar``, made once for readers whose deadlines are the same (a
    turn's players who sit in no other game)."""
    return calendar(deadlines, domain=domain, now=now)


def event(d: Deadline, now: datetime) -> icalendar.Event:
    """One deadline as a VEVENT, with its alarm."""
    import icalendar

    start = d.at.astimezone(ZoneInfo(d.zone))
    ev = icalendar.Event()
    ev.add("uid", d.uid)
    ev.add("sequence", d.sequence)
    ev.add("dtstamp", now.astimezone(ZoneInfo("UTC")))
    ev.add("dtstart", start)
    ev.add("dtend", start + LENGTH)
    ev.add("summary", _summary(d))
    ev.add("description", _description(d))
    ev.add("status", "CANCELLED" if d.cancelled else "CONFIRMED")
    ev.add("transp", "TRANSPARENT")  # a deadline does not make anyone busy
    ev.add("class", "PRIVATE" if d.private else "PUBLIC")
    ev.add("categories", ["pbem", d.game])
    if not d.cancelled:
        ev.add_component(alarm(d))
    return ev


def alarm(d: Deadline) -> icalendar.Alarm:
    """A reminder an hour before the deadline."""
    import icalendar

    al = icalendar.Alarm()
    al.add("action", "DISPLAY")
    al.add("trigger", -ALARM)
    al.add("description", f"{d.game}: orders for {d.phase} are due in an hour")
    return al


def _summary(d: Deadline) -> str:
    if d.cancelled:
        return f"{d.game}: no deadline for {d.phase} ({d.cancelled})"
    return f"{d.game}: orders due for {d.phase}"


def _description(d: Deadline) -> str:
    if d.cancelled:
        return (
            f"{d.game} ({d.title}): the deadline for {d.phase} no longer stands: "
            f"{d.cancelled}. The game's mails say what comes next."
        )
    return (
        f"{d.game} ({d.title}): orders for {d.phase} are due. "
        f"Mail them to {d.address}, or reply to a mail of the game."
    )


# -- the deadlines of an address ------------------------------------------------------


@dataclass(frozen=True)
class _Game:
    """A game with a deadline in some calendar, and who reads it."""

    row: GameRow
    cfg: GameConfig
    readers: frozenset[str]  # lower-cased addresses: players, observers, master


class Deadlines:
    """Every game's deadline and who may see it, read from storage as
    asked and kept: a turn's reports make one calendar per reader, and
    each game is read once for all of them. Only the games an address may
    read are looked at (a judge may host a thousand games; a player plays
    a few)."""

    def __init__(self, app: App, conn: Connection) -> None:
        self.app = app
        self.conn = conn
        self._games: dict[str, _Game | None] = {}
        self._phases: dict[str, str] = {}
        self._lobby_games: dict[str, list[str]] = {}
        self._seats: dict[str, list[str]] = {}  # games by address, read ahead (expect)
        self._watched: dict[str, list[str]] = {}

    def expect(self, emails: Sequence[str]) -> None:
        """Read at once the seats and WATCHes of the addresses about to be
        asked for (a turn's readers): two statements instead of two each."""
        wanted = sorted({e.lower() for e in emails} - self._seats.keys())
        if wanted:
            store = self.app.store
            for email, seats in store.players_by_each_email(self.conn, wanted).items():
                self._seats[email] = [p.game for p in seats]
            self._watched.update(store.watched_by_each(self.conn, wanted))

    def _read(self, row: GameRow) -> _Game | None:
        """A game that has a deadline to show: running or paused, not on
        a clock."""
        cfg = self.app.game_config(row.name)
        if cfg is None or row.status not in ("running", "paused") or row.deadline is None:
            return None
        if self.app.engine(row.kind).clock_ticks:
            return None  # a tick is no appointment
        store, conn = self.app.store, self.conn
        emails = [p.email for p in store.players(conn, row.name) if p.status == "active"]
        emails += lists.observers(self.app, conn, row.name)  # less who unsubscribed
        if cfg.master_email:
            emails.append(cfg.master_email)
        return _Game(row, cfg, frozenset(e.lower() for e in emails))

    def _game(self, name: str) -> _Game | None:
        if name not in self._games:
            row = self.app.store.game(self.conn, name)
            self._games[name] = None if row is None else self._read(row)
        return self._games[name]

    def _candidates(self, me: str) -> set[str]:
        """The games ``me`` (lower case) may read: those it has a seat in
        or WATCHes, and those whose games.yaml entry lists it as observer
        or master (a lobby's: every game opened from it). More than it
        reads, never fewer: ``_read`` decides."""
        store, conn = self.app.store, self.conn
        if me in self._seats:
            names = set(self._seats[me]) | set(self._watched.get(me, ()))
        else:
            names = {p.game for p in store.players_by_email(conn, me)}
            names.update(store.watched_by(conn, me))
        for cfg in self.app.config.games:
            listed = [o.lower() for o in cfg.observers]
            if me not in listed and (cfg.master_email or "").lower() != me:
                continue
            names.update(self._opened_from(cfg) if cfg.lobby else [cfg.name])
        return names

    def _opened_from(self, lobby: GameConfig) -> list[str]:
        """The games opened from a lobby game (``terra-1``, ``terra-2``)."""
        if lobby.name not in self._lobby_games:
            prefix = f"{lobby.name}-"
            self._lobby_games[lobby.name] = [
                g.name for g in self.app.store.all_games(self.conn) if g.name.startswith(prefix)
            ]
        return self._lobby_games[lobby.name]

    def of(self, email: str) -> list[Deadline]:
        """The deadlines of every game ``email`` plays, watches or masters,
        in the order of the games' names."""
        me = email.lower()
        found = (self._game(name) for name in sorted(self._candidates(me)))
        return [self.deadline(g) for g in found if g is not None and me in g.readers]

    def named(self, name: str) -> _Game | None:
        return self._game(name)

    def deadline(self, game: _Game) -> Deadline:
        """The event of a game's current turn."""
        row, cfg = game.row, game.cfg
        assert row.deadline is not None
        return Deadline(
            game=row.name,
            title=self.app.engine(row.kind).title,
            phase=self._phase(row),
            turn=row.turn,
            at=row.deadline,
            zone=cfg.timezone,
            sequence=row.calendar_sequence,
            uid=event_uid(row, row.turn, self.app.domain),
            address=self.app.game_address(row.name),
            private=cfg.visibility == "private",
            cancelled="the game is paused" if row.status == "paused" else "",
        )

    def _phase(self, row: GameRow) -> str:
        """The name of the phase being played (the state read once)."""
        if row.name not in self._phases:
            engine = self.app.engine(row.kind)
            self._phases[row.name] = engine.phase(engine.load_state(row.state))[1]
        return self._phases[row.name]


def cancelled(
    app: App, row: GameRow, cfg: GameConfig, phase: str, turn: int, was: datetime, why: str
) -> Deadline:
    """The event of a turn whose deadline no longer stands (the turn ran
    before it, or the game ended), cancelled: its revision is the game's
    now, after the change, higher than any the event had."""
    return Deadline(
        game=row.name,
        title=app.engine(row.kind).title,
        phase=phase,
        turn=turn,
        at=was,
        zone=cfg.timezone,
        sequence=row.calendar_sequence,
        uid=event_uid(row, turn, app.domain),
        address=app.game_address(row.name),
        private=cfg.visibility == "private",
        cancelled=why,
    )


def ran_early(
    app: App, row: GameRow, cfg: GameConfig, phase: str, turn: int, was: datetime, ran: datetime
) -> Deadline:
    """The event of a turn that ran before its deadline, cancelled."""
    at = ran.astimezone(ZoneInfo(cfg.timezone))
    return cancelled(app, row, cfg, phase, turn, was, f"the turn ran early, {at:%d %b %H:%M %Z}")


def game_over(app: App, conn: Connection, name: str, phase: str, turn: int, was: datetime) -> bytes:
    """The calendar of a game ended outside a turn (by its game master):
    the deadline it had, cancelled."""
    row = app.store.game(conn, name)
    cfg = app.game_config(name)
    assert row is not None and cfg is not None
    event = cancelled(app, row, cfg, phase, turn, was, "the game is over")
    return calendar([event], domain=app.domain, now=app.clock.now())


def calendar_of(app: App, conn: Connection, email: str, now: datetime) -> bytes | None:
    """The calendar of every game ``email`` plays, watches or masters, as
    things stand; None if there is no deadline in it."""
    deadlines = Deadlines(app, conn).of(email)
    return calendar(deadlines, domain=app.domain, now=now) if deadlines else None


def merged(*groups: Iterable[Deadline]) -> list[Deadline]:
    """Deadlines of several sources, one event per UID (the first kept)."""
    seen: dict[str, Deadline] = {}
    for group in groups:
        for d in group:
            seen.setdefault(d.uid, d)
    return list(seen.values())
