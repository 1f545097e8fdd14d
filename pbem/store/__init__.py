"""Storage: every SQL statement of pbem lives in this package.

SQLite by default (WAL, synchronous FULL, so a commit survives a power cut),
through SQLAlchemy Core so that another database can follow by URL; the
schema is built and changed only by Alembic migrations (``migrate``, the
scripts in migrations/). Every transaction on SQLite starts with BEGIN
IMMEDIATE: writers queue for the lock up front instead of failing half way.

Callers use one object, ``Store``, made of one part per concern, each in
its own module:

- ``database``: the engine, transactions (``tx``), migrations, and ``Hot``;
- ``received``: received mail (the spool, the inbox, the worker's claims,
  leases) and ``SpoolWriter``, the SMTP side's writer;
- ``games``: games, players, turns, submissions, readiness, press, reports;
- ``outgoing``: the outbox, the daily reply counts, held replies, digests;
- ``accounts``: settings, watchers, authentication failures, scores,
  reactions;
- ``confirmations``: commands waiting for the sender to confirm them;
- ``bounces``: bounces received, permanent failures counted per address,
  addresses no longer mailed;
- ``pages``: what the web pages read (a game's played turns, the cheap
  versions that tell a kept page is still right);
- ``rollbacks``: the phases a game master took back (ROLLBACK);
- ``signin``: the web pages' single-use sign-in links and their sessions;
- ``nodes``: the server nodes sharing a database server (PostgreSQL):
  heartbeats, their claims, reaping a node gone, the backlog;
- ``rows``: the frozen rows handed back, and ``ClaimLost``/``StoreError``.

A new table goes into the module of its concern (a new concern: a new part
listed in ``Store``'s bases), with a migration in migrations/versions/.

One fast path, ``Hot``: the statements every mail runs (spooling it,
finding an earlier copy, finishing it, storing and reading orders, queueing
the receipt, counting the day's replies) are written once in Core and run,
on SQLite, on the connection's own DBAPI cursor, compiled once, each value
passed through its column's SQLAlchemy type processor; other databases run
the same statement through Core. Measured on the worker alone
(bench/ingest.py's "processing alone", 3,000 order mails, CPU seconds):
3.2 s this way, 5.2 s with these statements through Core; taken one at a
time each saves 0.05 to 0.5 s. Every other statement runs through Core:
it runs per turn, per command or per batch of mail, not once a mail, and
the cursor would save nothing that shows. A store with ``hot_cursor =
False`` runs everything through Core (tests/test_store.py compares both).
"""

from __future__ import annotations

from pbem.store.accounts import AccountsAndScores
from pbem.store.bounces import BouncesAndReach
from pbem.store.confirmations import ConfirmationRow, Confirmations, Request
from pbem.store.database import MIGRATIONS, Hot
from pbem.store.games import GamesAndTurns
from pbem.store.nodes import Backlog, NodeRow, Nodes
from pbem.store.outgoing import OutgoingMail
from pbem.store.pages import PagesRead
from pbem.store.received import ReceivedMail
from pbem.store.rollbacks import Rollback, Rollbacks
from pbem.store.rows import (
    ClaimLost,
    GameRow,
    InboxRow,
    LeaseRow,
    MailStuck,
    OutboxRow,
    PlayerRow,
    ReportRow,
    StoreError,
)
from pbem.store.signin import SigninLink, SignIns
from pbem.store.spool import SpoolWriter

__all__ = [
    "MIGRATIONS",
    "Backlog",
    "NodeRow",
    "ClaimLost",
    "ConfirmationRow",
    "Confirmations",
    "GameRow",
    "Hot",
    "InboxRow",
    "LeaseRow",
    "MailStuck",
    "OutboxRow",
    "PlayerRow",
    "ReportRow",
    "Request",
    "Rollback",
    "SigninLink",
    "SpoolWriter",
    "Store",
    "StoreError",
]


class Store(
    ReceivedMail,
    GamesAndTurns,
    OutgoingMail,
    AccountsAndScores,
    Confirmations,
    BouncesAndReach,
    Nodes,
    PagesRead,
    SignIns,
    Rollbacks,
):
    """The database. Thread-safe: every call takes its own connection."""
