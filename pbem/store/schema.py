"""The tables. Every change goes through an Alembic migration in
pbem/store/migrations/versions/; a test checks the migrations build exactly
this schema."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# server-wide values: the secret behind reply tokens
settings = Table(
    "settings",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

# one row a game; state is the game's own JSON (adjudicator dump_state),
# the state of the turn being played
games = Table(
    "games",
    metadata,
    Column("name", String(40), primary_key=True),
    Column("kind", String(40), nullable=False),
    Column("state", Text, nullable=False),
    Column("turn", Integer, nullable=False),
    # 48 bits: BIGINT on a database server (SQLite's INTEGER holds it)
    Column("seed", BigInteger().with_variant(Integer, "sqlite"), nullable=False),
    Column("status", String(16), nullable=False),  # forming, running, paused, finished
    Column("created_at", DateTime(timezone=True), nullable=False),
    # the deadline of the turn being played (UTC): storage, not the
    # scheduler, is the truth about deadlines
    Column("deadline", DateTime(timezone=True)),
    Column("turn_started_at", DateTime(timezone=True)),  # orders count from here
    Column("reminded_for", DateTime(timezone=True)),  # the deadline reminders went out for
    Column("finished_at", DateTime(timezone=True)),
    # how often the deadline or the status changed: the SEQUENCE of the
    # deadline's calendar event (pbem/mail/calendar.py), so a moved
    # deadline updates the event a player imported
    Column("calendar_sequence", Integer, nullable=False, default=0, server_default="0"),
)

players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game", String(40), ForeignKey("games.name"), nullable=False),
    Column("name", String(32), nullable=False),
    Column("email", String(254), nullable=False),
    Column("timezone", String(64)),
    Column("password_hash", String(200), nullable=False),
    Column("token_version", Integer, nullable=False, default=0),
    Column("status", String(16), nullable=False),  # active, removed
    Column("missed", Integer, nullable=False, default=0, server_default="0"),  # turns
    # the seats the player wishes for while the game forms (Empire's powers),
    # the most wished first, one a line; read when the game starts
    Column("preferences", Text),
    UniqueConstraint("game", "name"),
    UniqueConstraint("game", "email"),
)


# mail just received: the SMTP side writes here, and only here, before it
# answers 250. On SQLite the spool is a file of its own, so the SMTP side
# never waits for the lock that the mail worker holds on the main file;
# the worker moves spooled mail into the inbox, keeping its number.
def _received(unique: bool) -> list[Column]:
    """The columns of a received mail, as the spool and the inbox both keep
    them (fresh objects for each table). The spool keeps one copy of the
    same bytes (``unique``); the inbox keeps every copy it is given, a
    re-send after the spool forgot the first one being recorded there as a
    duplicate."""
    return [
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("received_at", DateTime(timezone=True), nullable=False),
        Column("mail_from", String(512), nullable=False),
        Column("rcpt_to", Text, nullable=False),  # JSON list
        Column("raw", LargeBinary, nullable=False),
        Column("sha256", String(64), nullable=False, unique=unique, index=not unique),
        Column("message_id", String(512)),
        # the address of the connection it came over (an IP address, or
        # "unix:" for a local socket); None: received before it was kept
        Column("peer", String(64)),
    ]


RECEIVED = ("id", "received_at", "mail_from", "rcpt_to", "raw", "sha256", "message_id", "peer")

spool = Table("spool", metadata, *_received(unique=True))

# every mail answered 250, byte for byte; its id is the received sequence
# number that decides order in games that execute orders as received
inbox = Table(
    "inbox",
    metadata,
    *_received(unique=False),
    # new, applied, answered, refused, ignored, bounce, duplicate, quarantined
    Column("state", String(16), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),  # failures
    # the worker that claimed the mail, and until when (seconds since the
    # epoch, the machine's clock): finishing a mail checks its claim
    Column("claimed_by", String(120)),
    Column("lease_until", Float),
    Column("claims", Integer, nullable=False, default=0, server_default="0"),
    Column("error", Text),
    Column("note", Text),
    Column("processed_at", DateTime(timezone=True)),
    Index("ix_inbox_state", "state", "id"),
    Index("ix_inbox_message_id", "message_id"),
)

# each accepted order text of a player for a turn; the latest seq stands
submissions = Table(
    "submissions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game", String(40), ForeignKey("games.name"), nullable=False),
    Column("turn", Integer, nullable=False),
    Column("player", String(32), nullable=False),
    Column("seq", Integer, ForeignKey("inbox.id"), nullable=False),
    Column("text", Text, nullable=False),
    Column("received_at", DateTime(timezone=True), nullable=False),
    Index("ix_submissions_turn", "game", "turn", "player", "seq"),
)

# mail to send, committed with the change that caused it
outbox = Table(
    "outbox",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("kind", String(32), nullable=False),  # receipt, password, alert, ...
    Column("to_addr", String(254), nullable=False),
    Column("message_id", String(255), nullable=False),
    Column("message", LargeBinary, nullable=False),
    # pending, sent, failed, dead; held (over the daily cap), digested (sent in a digest)
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_attempt_at", DateTime(timezone=True), nullable=False),
    Column("last_error", Text),
    Column("sent_at", DateTime(timezone=True)),
    Column("inbox_id", Integer, ForeignKey("inbox.id")),
    # the sender delivering it, and until when (as for the inbox)
    Column("claimed_by", String(120)),
    Column("lease_until", Float),
    Index("ix_outbox_due", "status", "next_attempt_at"),
    Index("ix_outbox_to", "to_addr", "created_at"),
)

# failed credentials, for rate limits and alerts
auth_failures = Table(
    "auth_failures",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("address", String(254), nullable=False),
    Column("game", String(40)),
    Column("at", DateTime(timezone=True), nullable=False),
    Index("ix_auth_failures", "address", "at"),
)

watchers = Table(
    "watchers",
    metadata,
    Column("game", String(40), ForeignKey("games.name"), primary_key=True),
    Column("email", String(254), primary_key=True),
)

# observers who unsubscribed from a game's mail (games.yaml may still list them)
unsubscribed = Table(
    "unsubscribed",
    metadata,
    Column("game", String(40), primary_key=True),
    Column("email", String(254), primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
)

ready = Table(
    "ready",
    metadata,
    Column("game", String(40), ForeignKey("games.name"), primary_key=True),
    Column("turn", Integer, primary_key=True),
    Column("player", String(32), primary_key=True),
)

# replies sent to each address each day (UTC), for the daily cap
reply_counts = Table(
    "reply_counts",
    metadata,
    Column("address", String(254), primary_key=True),
    Column("day", String(10), primary_key=True),  # YYYY-MM-DD
    Column("count", Integer, nullable=False),
)

# each turn of each game: the state it started from, and once adjudicated
# its results and events (JSON), so a turn can be audited and replayed
turns = Table(
    "turns",
    metadata,
    Column("game", String(40), ForeignKey("games.name"), primary_key=True),
    Column("turn", Integer, primary_key=True),
    Column("state", Text, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("result", Text),
    Column("adjudicated_at", DateTime(timezone=True)),
    # seconds from its deadline to its resolving (None: it ran before its
    # deadline, every order in, or forced): the metrics' turn lag
    Column("lag", Float),
    # the metrics read the lags alone, never the turns' states
    Index("ix_turns_lag", "lag"),
)

# every report mailed after a turn, as each reader got it, for HISTORY and
# `pbem report`; reader is a player's name, an observer's address, or ""
# for the game master's full copy
reports = Table(
    "reports",
    metadata,
    Column("game", String(40), ForeignKey("games.name"), primary_key=True),
    Column("turn", Integer, primary_key=True),
    Column("reader", String(254), primary_key=True),
    Column("subject", String(255), nullable=False),
    Column("text", Text, nullable=False),
    Column("html", Text, nullable=False),
    Column("svg", Text, nullable=False),
    Column("png", LargeBinary, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# each phase the game master rolled back (ROLLBACK): the turn, its phase,
# when, the record of the resolving that was withdrawn (the turns row's
# result, JSON) and the reports it had mailed, withdrawn with it (JSON:
# reader -> {subject, text}); HISTORY and the web pages say so
rollbacks = Table(
    "rollbacks",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game", String(40), ForeignKey("games.name"), nullable=False),
    Column("turn", Integer, nullable=False),
    Column("phase", String(64), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("record", Text, nullable=False),
    Column("reports", Text, nullable=False),
    Index("ix_rollbacks_game", "game", "turn"),
)

# press to everyone, kept for the turn report
press = Table(
    "press",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game", String(40), ForeignKey("games.name"), nullable=False),
    Column("turn", Integer, nullable=False),
    Column("sender", String(32)),  # None: anonymous
    Column("text", Text, nullable=False),
    Column("sent_at", DateTime(timezone=True), nullable=False),
    Index("ix_press_turn", "game", "turn"),
)

# spectators' reactions (REACT), for the cooldown
reactions = Table(
    "reactions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game", String(40), nullable=False),
    Column("email", String(254), nullable=False),
    Column("text", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Index("ix_reactions", "game", "email", "at"),
)

# points of finished games for the server-wide scoreboard (RANK): a
# player is their address across games
scores = Table(
    "scores",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game", String(40), nullable=False),
    Column("email", String(254), nullable=False),
    Column("player", String(32), nullable=False),
    Column("points", Integer, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("game", "email"),
)

# who runs the mail worker (and with it the outbox sender and the turn
# runner) on this store, until when: a second server waits while the lease
# is live and its holder alive
leases = Table(
    "leases",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("holder", String(120), nullable=False),
    Column("pid", Integer, nullable=False),
    Column("host", String(255), nullable=False),
    Column("since", Float, nullable=False),
    Column("until", Float, nullable=False),
)

# the server nodes working on a shared store (PostgreSQL), each by its
# worker's identity: its heartbeat (seconds since the epoch, the node's
# clock) and what it has done since it started; a node whose heartbeat
# lapsed is gone, and its claims are freed
nodes = Table(
    "nodes",
    metadata,
    Column("holder", String(120), primary_key=True),
    Column("pid", Integer, nullable=False),
    Column("host", String(255), nullable=False),
    Column("listen", String(255)),  # where its SMTP and LMTP servers listen
    Column("version", String(64)),  # the pbem it runs (`pbem --version`); migration 0016
    Column("since", Float, nullable=False),
    Column("beat", Float, nullable=False),
    Column("until", Float, nullable=False),
    Column("mails", Integer, nullable=False, default=0, server_default="0"),  # processed
    Column("turns", Integer, nullable=False, default=0, server_default="0"),  # resolved
    Column("sent", Integer, nullable=False, default=0, server_default="0"),  # mails sent
)

# commands that act on the sender's address alone (JOIN, LEAVE, WATCH,
# UNWATCH), held until a reply to a token mailed to that address confirms
# them (double opt-in); the token is kept only as its SHA-256
confirmations = Table(
    "confirmations",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("token", String(64), nullable=False),  # sha256 hex of the token mailed
    Column("address", String(254), nullable=False),  # lower case: the only one that confirms
    Column("command", String(16), nullable=False),
    Column("game", String(40), nullable=False),  # with address and command: one pending
    Column("text", String(200), nullable=False),  # the command line as written
    Column("inbox_id", Integer),  # the mail that asked
    Column("asked_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("state", String(12), nullable=False),  # pending, confirmed, replaced
    Column("done_at", DateTime(timezone=True)),
    Index("ix_confirmations_token", "token"),
    Index("ix_confirmations_request", "address", "command", "game", "state"),
    Index("ix_confirmations_expires", "expires_at"),
)

# every bounce received: the outbox mail it was tied to (by its VERP
# return path), the address that failed, and what kind of failure:
# permanent, temporary, none (a success or unreadable report), unverified
# (a bounce address whose token does not verify), elsewhere (to no return
# path: counted for nothing; the mail it names by Message-ID, if any),
# unmatched (earlier: tied to no mail of ours)
bounces = Table(
    "bounces",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("inbox_id", Integer, ForeignKey("inbox.id")),  # None: the relay refused it
    Column("outbox_id", Integer, ForeignKey("outbox.id")),
    Column("address", String(254)),  # lower-case
    Column("kind", String(16), nullable=False),
    Column("note", Text),
    Index("ix_bounces_address", "address", "id"),
)

# addresses whose mail bounced for good too often: not mailed until the
# way back (the address's next authenticated mail, or `pbem reachable`);
# permanent failures count from the bounce after ``counted_after``
unreachable = Table(
    "unreachable",
    metadata,
    Column("address", String(254), primary_key=True),  # lower-case
    Column("since", DateTime(timezone=True)),  # None: reachable again
    Column("counted_after", Integer, nullable=False, default=0, server_default="0"),
)

# sign-in links for the web pages (SIGNIN by mail): each mailed once to an
# address that plays, watches or masters a game, used once, before it
# expires; kept only as the SHA-256 of the token in the link
signin_links = Table(
    "signin_links",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("token", String(64), nullable=False, unique=True),  # sha256 hex of the token mailed
    Column("address", String(254), nullable=False),  # lower case: who is signed in
    Column("game", String(40)),  # the page the link leads to; None: the list of games
    Column("asked_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("used_at", DateTime(timezone=True)),  # None: not used yet
    Index("ix_signin_links_expires", "expires_at"),
)

# the web sessions those links start: the cookie holds the session's token,
# the table its SHA-256 and the address it is scoped to
signin_sessions = Table(
    "signin_sessions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("token", String(64), nullable=False, unique=True),  # sha256 hex of the cookie's
    Column("address", String(254), nullable=False),  # lower case
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("ended_at", DateTime(timezone=True)),  # signed out; None: still on
    Index("ix_signin_sessions_expires", "expires_at"),
)
