"""PostgreSQL's own ways, on a real server (tests/conftest.py): the
migrations down to nothing and back up again, the server's time zone,
values SQLite takes that PostgreSQL refuses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData, inspect, select

from pbem.store import Request, Store
from pbem.store.schema import inbox, metadata, submissions
from tests.mailharness import SERVER_YAML, Harness, run_command, with_storage


def _alembic(store: Store, *steps: tuple[str, str]) -> None:
    """Run the migrations ("upgrade"|"downgrade", revision), step by step."""
    for how, revision in steps:
        store.alembic(how, revision)


def _tables(store: Store) -> set[str]:
    with store.engine.connect() as conn:
        return set(inspect(conn).get_table_names())


def test_every_migration_goes_down_and_up_again(store):
    """From the newest schema down to nothing and up again, on both
    backends: the schema the code uses, nothing left over."""
    _alembic(store, ("downgrade", "base"))
    assert _tables(store) == {"alembic_version"}
    _alembic(store, ("upgrade", "head"))
    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    assert _tables(store) == set(metadata.tables) | {"alembic_version"}


def test_migration_0008_keeps_the_mail_that_orders_point_at(store):
    """0008 drops the inbox's unique sha256 while the outbox and the
    submissions point at the inbox: up and down again, the mail and the
    order that names it stay."""
    _alembic(store, ("downgrade", "0007"))
    with store.engine.begin() as conn:
        then = MetaData()  # the tables as 0007 left them
        then.reflect(conn)
        conn.execute(then.tables["inbox"].insert(), MAIL)
        conn.execute(then.tables["games"].insert(), GAME)
        conn.execute(then.tables["submissions"].insert(), SUBMISSION)
    _alembic(store, ("upgrade", "0008"), ("downgrade", "0007"), ("upgrade", "head"))
    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
        assert conn.execute(select(inbox.c.id, inbox.c.raw, inbox.c.claims)).all() == [
            (7, b"mail", 0)
        ]
        assert conn.execute(select(submissions.c.seq)).scalars().all() == [7]


AT = datetime(2026, 1, 1, tzinfo=UTC)
MAIL = {
    "id": 7,
    "received_at": AT,
    "mail_from": "a@x",
    "rcpt_to": "[]",
    "raw": b"mail",
    "sha256": "0" * 64,
    "state": "new",
    "attempts": 0,
}
GAME = {"name": "g", "kind": "k", "state": "{}", "turn": 1, "seed": 1, "status": "running",
        "created_at": AT}  # fmt: skip
SUBMISSION = {"game": "g", "turn": 1, "player": "p", "seq": 7, "text": "x", "received_at": AT}


def test_a_command_closes_the_store_it_opened(tmp_path, store):
    """`pbem reachable` (as every command) opens the store games.yaml
    names: it leaves no connection open behind it."""
    storage = str(tmp_path / "db.sqlite") if not store.shared else store.url
    (tmp_path / "games.yaml").write_text(with_storage(SERVER_YAML, storage))
    assert run_command("reachable", "--config", str(tmp_path / "games.yaml")) == (0, [])


def _in_new_york(postgres, url: str) -> None:
    """The database's sessions keep the time of New York (a server whose
    zone is the machine's, as a packaged PostgreSQL's is)."""
    postgres.sql(f"ALTER DATABASE {url.rsplit('/', 1)[1]} SET timezone TO 'America/New_York'")


def test_times_come_back_in_utc_whatever_the_servers_time_zone(postgres, pg_url):
    """PostgreSQL hands a stored time back in its session's zone: every
    time the store reads is in UTC, as the mails that print them say."""
    _in_new_york(postgres, pg_url)
    store = Store(pg_url)
    at = datetime(2026, 11, 21, 23, 50, tzinfo=UTC)
    with store.tx() as conn:
        store.add_game(conn, "alpha", "officewars", "{}", 1, 7, at)
        store.set_game(conn, "alpha", deadline=at, turn_started_at=at)
        store.queue_mail(conn, "receipt", "ann@x", "<m@x>", b"m", at)
        store.add_auth_failure(conn, "ann@x", "alpha", at)
        store.add_reaction(conn, "alpha", "eve@x", "bravo", at)
        store.mark_unreachable(conn, "bob@x", at)
        store.ask_confirmation(conn, "t", "cid@x", [Request("WATCH", "alpha", "WATCH")], 1, at, at)
    with store.tx(write=False) as conn:
        game = store.game(conn, "alpha")
        (asked,) = store.confirmations(conn, "t")
        read = [
            game.deadline,
            game.turn_started_at,
            game.created_at,
            store.outbox_rows()[0].created_at,
            store.outbox_rows()[0].next_attempt_at,
            *store.auth_failure_times(conn, "ann@x", at),
            store.last_reaction(conn, "alpha", "eve@x"),
            store.unreachable_since(conn, "bob@x"),
            store.unreachable_addresses()[0][1],
            asked.asked_at,
            asked.expires_at,
        ]
    store.close()
    assert [(t, t.tzinfo) for t in read] == [(at, UTC)] * len(read)


def test_a_late_order_is_told_the_deadline_in_utc(postgres, pg_url, tmp_path):
    """The reply to orders after the deadline names it in UTC, on a
    database server that keeps another zone."""
    _in_new_york(postgres, pg_url)
    judge = Harness(tmp_path, storage=pg_url)
    try:
        deadline = judge.game().deadline
        assert deadline == datetime(2026, 11, 21, 23, 50, tzinfo=UTC)
        judge.clock.set(deadline + timedelta(seconds=1))
        judge.send("ann@example.org", "alpha@judge.example", "PASSWORD x\nSol holds\n")
        judge.send(
            "ann@example.org",
            "alpha@judge.example",
            f"PASSWORD {judge.password('ann@example.org')}\nSol holds\n",
        )
        assert "its deadline (2026-11-21 23:50:00 UTC)" in judge.last("ann@example.org")
    finally:
        judge.close()


def test_null_bytes_in_the_envelope_and_message_id_are_stored_on_both(judge_both):
    """PostgreSQL's text holds no NUL: a mail whose Message-ID and
    envelope sender carry one is stored all the same (250), and the mails
    stored beside it are processed as ever."""
    judge = judge_both
    raw = (
        b"From: x@example.org\r\nTo: alpha@judge.example\r\n"
        b"Message-ID: <a\x00b@example.org>\r\nSubject: nul\r\n\r\nHELP\x00\r\n"
    )
    code, _ = judge.send_raw(raw, mail_from="x\x00y@example.org")
    assert code == 250
    password = judge.password("ann@example.org")
    judge.send("ann@example.org", "alpha@judge.example", f"PASSWORD {password}\nSol holds\n")
    assert "Sol holds" in judge.last("ann@example.org")
    stored = judge.app.store.mails()
    assert all("\x00" not in (m.message_id or "") + m.mail_from for m in stored)
    assert not judge.app.store.mails("quarantined")
