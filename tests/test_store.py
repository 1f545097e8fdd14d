"""Storage: the migrations build exactly the schema the code uses; commits
survive; reads do not block writers. A test that takes ``store`` runs on
both backends (an SQLite file, a PostgreSQL database; tests/conftest.py);
those about SQLite's own file, WAL and lock say so and run on SQLite only."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from pbem.store import ClaimLost, ReportRow, Request, SpoolWriter, Store
from pbem.store.database import MIGRATIONS, head_revision
from pbem.store.rows import aware
from pbem.store.schema import metadata


def test_migrations_build_the_schema(store):
    store.migrate()  # a second run changes nothing
    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []


def test_the_head_is_the_newest_numbered_migration():
    """migrate() skips alembic when the schema is at head_revision(),
    read from the files' numbers: it must be alembic's own head, and each
    file's revision its number, after the one before."""
    scripts = ScriptDirectory(str(MIGRATIONS))
    assert head_revision() == scripts.get_current_head()
    for script in scripts.walk_revisions():
        number = Path(script.path).name.split("_", 1)[0]
        assert script.revision == number, script.path
        assert script.down_revision == (None if number == "0001" else f"{int(number) - 1:04d}")


def test_a_store_at_the_newest_migration_opens_without_alembic(store):
    """Every process of a server migrates as it starts: a schema already
    at the head costs one query, not alembic's import and scripts."""
    store.migrate()
    script = (
        "import sys; from pbem.store import Store; s = Store(sys.argv[1]); s.migrate(); "
        "print('alembic' in sys.modules); s.close()"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, store.url], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False", out.stderr
    behind = Store(store.url)  # and one behind is still brought up to date
    behind.alembic("downgrade", "0013")
    behind.migrate()
    assert behind._revision() == head_revision()
    behind.close()


def test_sqlite_keeps_a_write_ahead_log_and_syncs_fully(tmp_path):
    """SQLite only: the file's journal mode and sync level."""
    store = Store.at(tmp_path / "db.sqlite")
    store.migrate()
    with store.engine.connect() as conn:
        modes = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
        sync = conn.exec_driver_sql("PRAGMA synchronous").scalar()
    assert modes == "wal" and sync == 2  # FULL
    store.close()


def test_settings_are_made_once(store):
    first = store.setting("secret", lambda: "one")
    assert store.setting("secret", lambda: "two") == first == "one"
    again = Store(store.url)
    assert again.setting("secret") == "one"
    again.close()


def test_a_reader_does_not_block_a_writer(tmp_path):
    """SQLite only: WAL lets a writer in beside an open reader, and a
    second writer is told at once that the file's one lock is held."""
    store = Store.at(tmp_path / "db.sqlite")
    store.migrate()
    other = Store(store.url, wait_in_python=True)
    with store.tx(write=False) as conn:
        conn.exec_driver_sql("SELECT count(*) FROM inbox").scalar()
        # while a read transaction is open, a writer still gets in at once
        assert other.try_store_mails(
            [
                {
                    "received_at": datetime(2026, 1, 1),
                    "mail_from": "",
                    "rcpt_to": [],
                    "raw": b"x",
                    "sha256": "0" * 64,
                    "message_id": None,
                }
            ]
        ) == [(1, True)]
    with store.tx() as conn:  # a writer holds the lock: the other is told at once
        conn.exec_driver_sql("UPDATE inbox SET note = 'x'")
        assert (
            other.try_store_mails(
                [
                    {
                        "received_at": datetime(2026, 1, 1),
                        "mail_from": "",
                        "rcpt_to": [],
                        "raw": b"y",
                        "sha256": "1" * 64,
                        "message_id": None,
                    }
                ]
            )
            is None
        )
    other.close()


def _mail(n: int, at: datetime) -> dict:
    return {
        "received_at": at,
        "mail_from": "a@example.org",
        "rcpt_to": ["alpha@judge.example"],
        "raw": f"mail {n}".encode(),
        "sha256": f"{n:064x}",
        "message_id": None,
    }


def test_pruning_the_spool_never_reuses_a_mail_number(store):
    """Pruning every moved row once let SQLite number the next spooled mail
    1 again, below the inbox's highest number, so it was never moved: a
    mail answered 250 and lost. The newest spooled row now always stays."""
    day1, day3 = datetime(2026, 1, 1), datetime(2026, 1, 3)
    store.store_mails([_mail(1, day1), _mail(2, day1)])
    assert store.move_spooled() == 2
    store.prune_spool(day3)
    ((number, _),) = store.store_mails([_mail(3, day3)])
    assert number == 3
    assert store.move_spooled() == 1
    assert [m.id for m in store.mails()] == [1, 2, 3]


def test_writes_left_for_later_keep_their_order_and_their_checks(store):
    """Within ``later`` (PostgreSQL pipelines them; SQLite runs them at
    once) a write left for later is in place before any statement after
    it reads, a lost claim among them fails at the latest when the block
    ends, and a block left by an exception writes nothing it held."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    store.store_mails([_mail(1, at), _mail(2, at)])
    store.take_mail("w1", 10, 60.0, 1000.0, at, 3)
    _game(store)
    with store.tx() as conn, store.later(conn) as flush:
        store.add_submission(conn, "alpha", 1, "ann", 1, "Sol holds", at)
        store.add_submission(conn, "alpha", 1, "ann", 2, "Sol -> Vega", at)
        assert store.current_submission(conn, "alpha", 1, "ann") == (2, "Sol -> Vega")
        # a statement of another kind (Core) finds them in place too
        assert store.submissions_for(conn, "alpha", 1, None)["ann"][:2] == (2, "Sol -> Vega")
        assert [store.count_reply(conn, "ann@x", "2026-01-01", 2) for _ in range(3)] == [1, 2, None]
        store.finish_mail(conn, 1, "applied", None, at, holder="w1")
        flush()
    assert store.mail(None, 1).state == "applied"
    with store.tx() as conn:
        assert store._replies(conn, "ann@x", "2026-01-01") == 2
    with pytest.raises(ClaimLost), store.tx() as conn, store.later(conn):
        store.finish_mail(conn, 2, "applied", None, at, holder="w2")  # not w2's
        store.queue_mail(conn, "receipt", "ann@x", "<r@x>", b"m", at)
    with pytest.raises(RuntimeError), store.tx() as conn, store.later(conn):
        store.add_submission(conn, "alpha", 1, "bob", 2, "Vega holds", at)
        raise RuntimeError("the batch failed")
    assert store.mail(None, 2).state == "new"
    assert store.outbox_rows() == []
    with store.tx() as conn:
        assert store.current_submission(conn, "alpha", 1, "ann") == (2, "Sol -> Vega")
        assert store.current_submission(conn, "alpha", 1, "bob") is None


def _mail_path(store: Store) -> dict[str, list[tuple]]:
    """The statements every mail runs (``Hot``), with their edge cases;
    returns every table's rows but the spool's (on PostgreSQL moving a
    mail empties its spool row; on SQLite the spool file keeps it)."""
    at = datetime(2026, 1, 1, 12, 30, 5, 123456, tzinfo=UTC)
    with_id = {**_mail(2, at), "message_id": "<m@x>"}
    spooled = store.store_mails([_mail(1, at), with_id, _mail(1, at)])
    assert [number for number, _ in spooled] == [1, 2, 1]
    writer = SpoolWriter(store)
    spooled = writer.try_store([{**_mail(3, at), "message_id": "<m@x>"}, _mail(2, at)])
    assert [number for number, _ in spooled] == [3, 2]
    writer.close()
    claimed, _ = store.take_mail("w1", 10, 60.0, 1000.0, at, 3)
    assert [m.id for m in claimed] == [1, 2, 3]
    assert claimed[0].received_at == at and claimed[0].rcpt_to == ("alpha@judge.example",)
    with store.tx() as conn:
        store.add_game(conn, "alpha", "officewars", "{}", 1, 7, at)
        with pytest.raises(ClaimLost):
            store.finish_mail(conn, 1, "applied", None, at, holder="w2")
        store.finish_mail(conn, 1, "applied", "ok", at, holder="w1")
        store.finish_mail(conn, 2, "refused", None, at)
        assert store.earlier_with_message_id(conn, "<m@x>", 3) == 2
        assert store.earlier_with_message_id(conn, "<m@x>", 2) is None
        assert store.current_submission(conn, "alpha", 1, "ann") is None
        store.add_submission(conn, "alpha", 1, "ann", 1, "Sol holds", at)
        store.add_submission(conn, "alpha", 1, "ann", 2, "Sol -> Vega", at)
        assert store.current_submission(conn, "alpha", 1, "ann") == (2, "Sol -> Vega")
        assert store.queue_mail(conn, "receipt", "ann@x", "<r1@x>", b"\x00mail", at, 1) == 1
        held = store.queue_mail(conn, "receipt", "ann@x", "<r2@x>", b"m", at, status="held")
        assert held == 2
        assert [store.count_reply(conn, "ann@x", "2026-01-01", 2) for _ in range(3)] == [
            1,
            2,
            None,
        ]
        assert store.take_reply(conn, "bob@x", "2026-01-01", 1)
        assert not store.take_reply(conn, "bob@x", "2026-01-01", 1)
    assert store.mail(None, 1).note == "ok"
    assert [r.created_at for r in store.outbox_rows()] == [at, at]
    with store.tx(write=False) as conn:
        assert store.submissions_for(conn, "alpha", 1, None) == {"ann": (2, "Sol -> Vega", at)}
        return {t.name: _rows(conn, t) for t in metadata.sorted_tables if t.name != "spool"}


def _rows(conn, table) -> list[tuple]:
    """A table's rows as plain values, alike on every backend: datetimes
    in UTC (SQLite hands them back naive), binary values as bytes."""

    def plain(value):
        if isinstance(value, datetime):
            return aware(value).astimezone(UTC)
        if isinstance(value, memoryview):
            return bytes(value)
        return value

    rows = conn.execute(select(table).order_by(*table.primary_key.columns)).all()
    return [tuple(plain(v) for v in row) for row in rows]


def test_the_mail_path_writes_what_core_writes(store, tmp_path):
    """The statements every mail runs go through the driver's own cursor,
    on SQLite and on PostgreSQL; both leave the rows the same statements
    leave through Core on SQLite."""
    core = Store.at(tmp_path / "core.sqlite")
    core.migrate()
    core.hot_cursor = core.spool.hot_cursor = False
    assert store.hot_cursor
    ran, reference = _mail_path(store), _mail_path(core)
    assert ran == reference
    assert len(ran["inbox"]) == 3 and len(ran["outbox"]) == 2
    core.close()


def test_spooling_tells_a_new_mail_from_a_copy(store):
    """Each mail spooled is new once: the same bytes again give the first
    copy's number, marked not new, in the same batch or a later one."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    assert store.store_mails([_mail(1, at), _mail(2, at), _mail(1, at)]) == [
        (1, True),
        (2, True),
        (1, False),
    ]
    writer = SpoolWriter(store)
    assert writer.try_store([_mail(3, at), _mail(2, at)]) == [(3, True), (2, False)]
    # the SMTP side's group: copies within it and of earlier mail take no
    # number of their own (the numbers stay dense on PostgreSQL too)
    group = [_mail(4, at), _mail(1, at), _mail(4, at), _mail(5, at), _mail(3, at)]
    assert writer.try_store(group) == [(4, True), (1, False), (4, False), (5, True), (3, False)]
    assert writer.try_store([_mail(6, at)]) == [(6, True)]
    writer.close()


# -- each part of the store, on both backends ----------------------------------------

AT = datetime(2026, 3, 1, 9, 30, 15, 250000, tzinfo=UTC)


def _game(store: Store, name: str = "alpha", seed: int = 7) -> None:
    with store.tx() as conn:
        store.add_game(conn, name, "officewars", '{"turn": 1}', 1, seed, AT)
        store.add_player(conn, name, "ann", "Ann@Example.org", "Europe/Oslo", "hash-a")
        store.add_player(conn, name, "bob", "bob@example.org", None, "hash-b")


def test_games_keep_their_seed_state_and_deadline(store):
    """A game's seed is 48 random bits (secrets.randbits(48)): it is kept
    whole; a deadline change counts as a new calendar revision; the turn's
    compare-and-set lets one trigger win."""
    seed = (1 << 48) - 1
    _game(store, seed=seed)
    deadline = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    with store.tx() as conn:
        store.set_game(conn, "alpha", deadline=deadline, turn_started_at=AT)
        assert store.advance_game(conn, "alpha", 1, turn=2, deadline=deadline)
        assert not store.advance_game(conn, "alpha", 1, turn=3)  # another trigger won
        store.set_game_state(conn, "alpha", '{"turn": 2}', status="paused")
    with store.tx(write=False) as conn:
        game = store.game(conn, "alpha")
        assert store.game(conn, "nope") is None
        assert [g.name for g in store.all_games(conn)] == ["alpha"]
    assert (game.seed, game.turn, game.status, game.state) == (seed, 2, "paused", '{"turn": 2}')
    assert game.deadline == deadline and game.turn_started_at == AT and game.created_at == AT
    assert game.calendar_sequence == 2  # two deadline changes; a state alone is none


def test_players_are_found_by_address_in_any_case(store):
    _game(store)
    _game(store, "beta")
    with store.tx() as conn:
        ann = store.players_by_email(conn, "ANN@example.ORG")
        assert [(p.game, p.name) for p in ann] == [("alpha", "ann"), ("beta", "ann")]
        store.add_missed(conn, "alpha", ["ann", "bob"])
        store.add_missed(conn, "alpha", ["ann"])
        store.bump_token(conn, ann[0].id)
        store.set_player(conn, ann[0].id, timezone="UTC")
        bob = store.players(conn, "beta")[1]
        store.delete_player(conn, bob.id)
    with store.tx(write=False) as conn:
        # in the order they were seated, however often a row was changed
        found = store.players_by_email(conn, "ann@example.org")
        assert [(p.game, p.name) for p in found] == [("alpha", "ann"), ("beta", "ann")]
        alpha = store.players(conn, "alpha")
        assert [(p.name, p.missed, p.token_version, p.timezone) for p in alpha] == [
            ("ann", 2, 1, "UTC"),
            ("bob", 1, 0, None),
        ]
        assert [(p.game, p.name) for p in store.players(conn)] == [
            ("alpha", "ann"),
            ("alpha", "bob"),
            ("beta", "ann"),
        ]


def test_a_players_address_is_unique_in_a_game(store):
    _game(store)
    with pytest.raises(IntegrityError), store.tx() as conn:
        store.add_player(conn, "alpha", "cid", "bob@example.org", None, "hash-c")


def test_turns_submissions_and_readiness(store):
    """Orders in the order received; an empty text withdraws them (CLEAR);
    an order received at the deadline's very instant counts."""
    _game(store)
    store.store_mails([_mail(n, AT) for n in range(1, 6)])
    store.move_spooled()
    late = AT + timedelta(seconds=1)
    with store.tx() as conn:
        store.start_turn(conn, "alpha", 1, '{"s": 1}', AT)
        store.add_submission(conn, "alpha", 1, "ann", 1, "A holds", AT)
        store.add_submission(conn, "alpha", 1, "bob", 2, "B moves", AT)
        store.add_submission(conn, "alpha", 1, "ann", 3, "", AT)
        store.add_submission(conn, "alpha", 1, "ann", 4, "A moves", AT)
        store.add_submission(conn, "alpha", 1, "bob", 5, "B late", late)
        store.set_ready(conn, "alpha", 1, "ann")
        store.set_ready(conn, "alpha", 1, "ann")  # twice is once
        store.finish_turn(conn, "alpha", 1, '{"phase": "spring"}', late)
        store.start_turn(conn, "alpha", 2, '{"s": 2}', late)
    with store.tx(write=False) as conn:
        assert store.submissions_for(conn, "alpha", 1, AT) == {
            "ann": (4, "A moves", AT),
            "bob": (2, "B moves", AT),
        }
        assert store.submission_queue(conn, "alpha", 1) == {
            "ann": [(4, "A moves", AT)],
            "bob": [(2, "B moves", AT), (5, "B late", late)],
        }
        assert store.submission_queue(conn, "alpha", 1, "bob", AT) == {"bob": [(2, "B moves", AT)]}
        assert store.ready_players(conn, "alpha", 1) == {"ann"}
        assert store.turn_result(conn, "alpha", 1) == '{"phase": "spring"}'
        assert store.turn_result(conn, "alpha", 2) is None
        assert store.turn_phases(conn, "alpha") == {1: "spring"}
        assert store.turn_states(conn, "alpha") == [(1, '{"s": 1}'), (2, '{"s": 2}')]


def test_press_and_reports(store):
    _game(store)
    png = bytes(range(256)) * 4  # every byte value, NUL included
    with store.tx() as conn:
        store.add_press(conn, "alpha", 1, "ann", "first", AT)
        store.add_press(conn, "alpha", 2, None, "anonymous", AT)
        store.add_press(conn, "alpha", 3, "bob", "later", AT)
        for turn, reader in [(1, "ann"), (1, ""), (2, "ann"), (1, "ann")]:  # the last replaces
            report = ReportRow("alpha", turn, reader, f"t{turn}", "text ✓", "<p>", "<svg/>", png)
            store.add_report(conn, report, AT)
    with store.tx(write=False) as conn:
        assert store.press_of(conn, "alpha", 2) == [(None, "anonymous")]
        assert store.press_of(conn, "alpha", 2, since=0) == [("ann", "first"), (None, "anonymous")]
        latest = store.report(conn, "alpha", "ann")
        assert (latest.turn, latest.text, latest.png) == (2, "text ✓", png)
        assert store.report(conn, "alpha", "ann", turn=1).subject == "t1"
        assert store.report(conn, "alpha", "cid") is None
        assert store.report_turns(conn, "alpha") == [1, 2]
        assert store.report_turns(conn, "alpha", "") == [1]


def _queue(store: Store, n: int, at: datetime = AT, status: str = "pending") -> list[int]:
    with store.tx() as conn:
        return [
            store.queue_mail(
                conn, "receipt", f"P{i}@Example.org", f"<r{i}@x>", b"m", at, None, status
            )
            for i in range(n)
        ]


def test_two_senders_never_claim_the_same_mail(store):
    """The outbox: a sender's claim keeps the mail from another until it
    lapses; sent and retried mail are the holder's alone to mark."""
    ids = _queue(store, 5)
    assert [r.id for r in store.due_mail(AT, 10)] == ids
    first = store.claim_due("s1", AT, 3, wall=100.0, lease=30.0)
    second = store.claim_due("s2", AT, 3, wall=110.0, lease=30.0)
    assert [r.id for r in first] == ids[:3] and [r.id for r in second] == ids[3:]
    assert store.mark_sent_many(ids[:2], AT, holder="s2") == 0  # not s2's
    assert store.mark_sent_many(ids[:2], AT, holder="s1") == 2
    store.mark_retry(ids[2], "451 later", AT + timedelta(minutes=5), holder="s1")
    assert store.mark_sent(ids[3], AT, holder="s2")
    assert not store.mark_sent(ids[3], AT, holder="s2")  # sent already
    assert store.claim_due("s3", AT, 10, wall=139.0, lease=30.0) == []  # s2's still
    assert [r.id for r in store.claim_due("s3", AT, 10, wall=141.0, lease=30.0)] == [ids[4]]
    later = AT + timedelta(minutes=5)  # the retried one is due again
    assert [r.id for r in store.claim_due("s3", later, 10, wall=142.0, lease=30.0)] == [
        ids[2],
        ids[4],  # its own claim, taken again
    ]
    with store.tx() as conn:
        store.mark_failed(conn, ids[4], "dead", "550 no such user")
    rows = {r.id: r for r in store.outbox_rows()}
    assert [rows[i].status for i in ids] == ["sent", "sent", "pending", "sent", "dead"]
    assert rows[ids[2]].attempts == 1 and rows[ids[2]].last_error == "451 later"
    assert rows[ids[2]].next_attempt_at == AT + timedelta(minutes=5)
    assert [r.id for r in store.outbox_rows("receipt", "p1@EXAMPLE.org")] == [ids[1]]


def test_held_replies_go_out_in_one_digest(store):
    held = _queue(store, 3, status="held")
    next_day = AT + timedelta(days=1)
    assert [r.id for r in store.held_mail(AT)] == []
    assert [r.id for r in store.held_mail(next_day)] == held
    with store.tx() as conn:
        store.mark_digested(conn, held[:2], 99)
    with pytest.raises(ClaimLost), store.tx() as conn:  # another digest took one already
        store.mark_digested(conn, held, 100)
    assert [r.id for r in store.held_mail(next_day)] == [held[2]]
    with store.tx(write=False) as conn:
        assert store.last_outbox_id(conn) == held[-1]


def test_settings_watchers_and_unsubscribes(store):
    _game(store)
    with store.tx() as conn:
        assert store.watch(conn, "alpha", "Eve@Example.org", True)
        assert not store.watch(conn, "alpha", "eve@example.org", True)
        assert store.unsubscribe(conn, "alpha", "Kim@example.org", AT)
        assert not store.unsubscribe(conn, "alpha", "kim@example.org", AT)
        assert store.unsubscribe(conn, "alpha", "eve@example.org", AT)  # stops watching too
        assert store.watchers(conn, "alpha") == []
        assert store.watch(conn, "alpha", "kim@example.org", True)  # undoes the unsubscribe
        assert not store.watch(conn, "alpha", "zed@example.org", False)
        for address in ("zed@example.org", "amy@example.org"):
            store.watch(conn, "alpha", address, True)
    with store.tx(write=False) as conn:
        assert store.watchers(conn, "alpha") == [
            "amy@example.org",
            "kim@example.org",
            "zed@example.org",
        ]
        assert store.unsubscribed(conn, "alpha") == {"eve@example.org"}


def test_authentication_failures_count_the_last_hour(store):
    with store.tx() as conn:
        for minutes in (0, 30, 59, 61):
            n = store.add_auth_failure(conn, "Mal@X.org", "alpha", AT + timedelta(minutes=minutes))
        assert n == 3  # the one at 0 is over an hour before 61
        times = store.auth_failure_times(conn, "mal@x.org", AT + timedelta(minutes=61))
        assert times == [AT + timedelta(minutes=m) for m in (30, 59, 61)]
        assert all(t.utcoffset() == timedelta(0) for t in times)
        assert store.recent_auth_failures(conn, "other@x.org", AT) == 0


def test_scores_count_once_a_game_and_rank(store):
    with store.tx() as conn:
        store.add_scores(conn, "g1", [("A@x", "ann", 3), ("b@x", "bob", -2)], AT)
        store.add_scores(conn, "g1", [("a@x", "ann", 100)], AT)  # a game counts once
        store.add_scores(conn, "g2", [("b@x", "bob", 1), ("c@x", "cid", 0)], AT + timedelta(1))
        assert store.ranking(conn) == [("a@x", 3, 1), ("b@x", 1, 2)]
        assert store.last_reaction(conn, "g1", "eve@x") is None
        store.add_reaction(conn, "g1", "Eve@x", "bravo", AT)
        store.add_reaction(conn, "g1", "eve@x", "again", AT + timedelta(hours=1))
        assert store.last_reaction(conn, "g1", "EVE@x") == AT + timedelta(hours=1)


def test_a_newer_request_replaces_the_one_waiting(store):
    """Confirmations: one pending request per address, command and game;
    a token confirms once; expired requests are purged."""
    expires = AT + timedelta(days=2)
    join, watch = (
        Request("JOIN", "alpha", "JOIN alpha as ann"),
        Request("WATCH", "beta", "WATCH beta"),
    )
    with store.tx() as conn:
        store.ask_confirmation(conn, "t1", "Ann@X.org", [join, watch], 1, AT, expires)
        store.ask_confirmation(conn, "t2", "ann@x.org", [join], 2, AT, expires + timedelta(1))
        old, new = store.confirmations(conn, "t1"), store.confirmations(conn, "t2")
        assert [(r.command, r.state) for r in old] == [("JOIN", "replaced"), ("WATCH", "pending")]
        assert old[0].done_at == AT and old[1].expires_at == expires
        assert [(r.address, r.inbox_id) for r in new] == [("ann@x.org", 2)]
        store.mark_confirmed(conn, [r.id for r in new], AT)
        store.mark_confirmed(conn, [r.id for r in old], AT)  # only the pending one
        assert store.pending_confirmations(conn, "ANN@x.org") == []
        assert [r.state for r in store.confirmations(conn, "t1")] == ["replaced", "confirmed"]
        assert store.purge_confirmations(conn, expires + timedelta(seconds=1)) == 2
        assert store.confirmations(conn, "t1") == []
        assert [r.state for r in store.confirmations(conn, "t2")] == ["confirmed"]


def test_permanent_bounces_make_an_address_unreachable(store):
    """Permanent failures count once a mail; marking an address reachable
    again starts its count afresh; watching stops everywhere."""
    out = _queue(store, 2)
    _game(store)
    with store.tx() as conn:
        store.watch(conn, "alpha", "p0@example.org", True)
        for outbox_id in (out[0], out[0], out[1]):  # two reports of one mail count once
            store.add_bounce(conn, AT, "permanent", outbox_id=outbox_id, address="P0@Example.org")
        store.add_bounce(conn, AT, "temporary", address="p0@example.org")
        n = store.add_bounce(conn, AT, "permanent", address="p0@example.org", note="x" * 5000)
        assert store.permanent_failures(conn, "p0@example.org") == 3
        assert store.counted_failures(conn, "P0@example.org")
        assert store.mark_unreachable(conn, "p0@example.org", AT)
        assert not store.mark_unreachable(conn, "P0@example.org", AT)
        assert store.unreachable_among(conn, ["P0@example.org", "p1@example.org"]) == {
            "p0@example.org"
        }
        assert store.unwatch_everywhere(conn, "P0@example.org") == ["alpha"]
        assert store.bounced_mail(conn, ["<nope@x>", "<r1@x>"]) == (out[1], "P1@Example.org")
        assert store.outbox_mail(conn, out[1]).last_error is None  # looked up, not marked
    assert store.unreachable_addresses() == [("p0@example.org", AT)]
    assert len(store.bounce_rows("p0@example.org")[-1]["note"]) == 1000
    assert store.bounce_rows()[-1]["id"] == n
    with store.tx() as conn:
        assert store.unreachable_since(conn, "p0@example.org") == AT
        assert store.mark_reachable(conn, "P0@example.org")
        assert not store.mark_reachable(conn, "p0@example.org")
        assert store.permanent_failures(conn, "p0@example.org") == 0
        assert not store.counted_failures(conn, "p0@example.org")
        assert store.unreachable_among(conn, ["p0@example.org"]) == set()
    assert store.unreachable_addresses() == []


def test_senders_racing_send_each_mail_once(store):
    """Four senders (threads, each transaction on a connection of its own,
    as several nodes' senders are) drain the outbox together: each mail is
    claimed by one of them and marked sent once."""
    import threading

    ids = _queue(store, 120)
    sent: dict[str, list[int]] = {}
    start = threading.Barrier(4)

    def sender(name: str) -> None:
        start.wait()
        mine = sent.setdefault(name, [])
        while claimed := store.claim_due(name, AT, 7, wall=100.0, lease=600.0):
            got = [r.id for r in claimed]
            assert store.mark_sent_many(got, AT, holder=name) == len(got)
            mine.extend(got)

    threads = [threading.Thread(target=sender, args=(f"s{n}",)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(i for got in sent.values() for i in got) == ids
    assert {r.status for r in store.outbox_rows()} == {"sent"}
    assert all(r.attempts == 1 for r in store.outbox_rows())
