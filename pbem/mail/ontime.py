"""When a mail counts as received, for a deadline (docs/deadlines.md, "Mail
held by an MTA").

Without a trusted relay in front: when this server answered 250 for it
(the inbox row's ``received_at``). With one (games.yaml's server
``trusted_relay``), on mail that came over the relay's connection: the
time in the topmost Received header, the one the relay added when it
took the mail from the player's side. A mail the relay held while this
server was down (or its storage was) then counts by the time the player's
side handed it over, not by the time the relay could pass it on.

That time is bounded: never later than our own receipt (a relay's clock
ahead of ours, or a header's date in the future, gives our own time), and
a time further back than the relay can hold mail (``relay_queue_lifetime``,
Postfix's ``maximal_queue_lifetime``) is none it can have written: our own
time counts then. A Received header on mail from anywhere else is the
sender's own word and never counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from pbem.config import ServerConfig
from pbem.mail import auth
from pbem.store import GameRow, InboxRow
from pbem.turns.localtime import local


@dataclass(frozen=True)
class Arrival:
    """When a mail counts as received (``at``), when this server received
    it (``ours``), and the relay whose Received time counts, if one does."""

    at: datetime
    ours: datetime
    relay: str | None = None

    @property
    def relayed(self) -> bool:
        """Whether the relay's time is earlier than ours (by a second or more)."""
        return self.relay is not None and (self.ours - self.at).total_seconds() >= 1

    def said(self) -> str:
        """The mail's arrival, in a receipt's words."""
        if not self.relayed:
            return f"your mail arrived at {self.at:%Y-%m-%d %H:%M:%S} UTC"
        return (
            f"your mail reached our mail relay ({self.relay}) at {self.at:%Y-%m-%d %H:%M:%S} "
            f"UTC and this server at {self.ours:%Y-%m-%d %H:%M:%S} UTC"
        )


def received_time(raw: bytes) -> datetime | None:
    """The date of a mail's topmost Received header (after its last ``;``),
    in UTC; None if it has none or it cannot be read."""
    value = auth.topmost(raw, "received")
    if value is None or ";" not in value:
        return None
    try:
        when = parsedate_to_datetime(value.rpartition(";")[2].strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000": UTC, its zone unknown
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def arrival(server: ServerConfig, row: InboxRow) -> Arrival:
    """When ``row``'s mail counts as received (the module's rules)."""
    ours = row.received_at
    relay = server.trusted_relay
    if relay is None or not relay.sent(row.peer):
        return Arrival(ours, ours)
    when = received_time(row.raw)
    if when is None or when < ours - server.relay_queue_lifetime:
        return Arrival(ours, ours)
    return Arrival(min(when, ours), ours, str(relay))


def too_late(
    game: GameRow, came: Arrival, phase: str, settled: datetime | None = None
) -> str | None:
    """Why a mail's orders cannot count, if they cannot: it arrived after
    the deadline of the turn being played (which resolves now, or at
    ``settled``, the end of the settling time after an outage), or before
    that turn began (it was meant for the turn already resolved when it
    reached this server)."""
    at = came.at
    if game.status == "running" and game.deadline is not None and at >= game.deadline:
        resolves = (
            "is being resolved"
            if settled is None
            else f"resolves at {settled:%Y-%m-%d %H:%M:%S} UTC, at the end of the settling "
            "time after this server took no mail"
        )
        return (
            f"too late for {phase}: {came.said()}, after its deadline "
            f"({game.deadline:%Y-%m-%d %H:%M:%S} UTC). Nothing was applied; the turn "
            f"{resolves}. Send your orders again for the next turn once its report arrives."
        )
    if game.turn_started_at is not None and at < game.turn_started_at:
        return (
            f"too late for the turn before {phase}: {came.said()}, but that turn had "
            f"already run at {game.turn_started_at:%Y-%m-%d %H:%M:%S} UTC when the mail "
            f"reached this server. Nothing was applied; send your orders again for {phase}."
        )
    return None


def counted_early(game: GameRow, came: Arrival, phase: str) -> str | None:
    """The receipt's word on a mail that counts for ``phase`` because the
    relay received it before the deadline, though this server got it after."""
    if not came.relayed or game.deadline is None or not came.at < game.deadline <= came.ours:
        return None
    return (
        f"{came.said()[0].upper()}{came.said()[1:]}: it was in time for the deadline "
        f"({game.deadline:%Y-%m-%d %H:%M:%S} UTC), so it counts for {phase}."
    )


def overdue(
    game: GameRow,
    came: Arrival,
    phase: str,
    settled: datetime | None,
    zone: str,
    ticks: bool,
    orders: bool,
) -> str:
    """The receipt's deadline line (after "Deadline: " or "Next tick: ")
    once the deadline of ``phase`` has passed and the turn is still to
    resolve: when it does (at the end of the settling time, ``settled``,
    when this server took no mail across the deadline; else now), and
    whether this mail's ``orders`` (any it gave that were taken) count
    for it. In a game on a clock
    (``ticks``) every order read before the tick runs counts; otherwise
    only those of mail that arrived before the deadline."""
    assert game.deadline is not None
    passed = f"{local(game.deadline, zone)}, passed"
    turn = f"the tick ({phase}) runs" if ticks else f"the turn ({phase}) resolves"
    if settled is None:
        when = f"{turn} now"
    else:
        when = (
            f"{turn} at {local(settled, zone)}, at the end of the settling time after this "
            "server took no mail, so that mail held meanwhile counts"
        )
    if ticks:
        counts = (
            "the orders of this mail count for it" if orders else "orders sent before then count"
        )
    elif orders and came.at < game.deadline:
        counts = "the orders of this mail count for it"
    else:
        counts = "orders sent now are too late for it"
    return f"{passed}; {when}. {counts[0].upper()}{counts[1:]}."
