"""Storage: the migrations build exactly the schema the code uses; commits
survive; reads do not block writers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select

from pbem.store import ClaimLost, SpoolWriter, Store
from pbem.store.schema import metadata


def test_migrations_build_the_schema(tmp_path):
    store = Store.at(tmp_path / "db.sqlite")
    store.migrate()
    store.migrate()  # a second run changes nothing
    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
        modes = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
        sync = conn.exec_driver_sql("PRAGMA synchronous").scalar()
    assert modes == "wal" and sync == 2  # FULL
    store.close()


def test_settings_are_made_once(tmp_path):
    store = Store.at(tmp_path / "db.sqlite")
    store.migrate()
    first = store.setting("secret", lambda: "one")
    assert store.setting("secret", lambda: "two") == first == "one"
    assert Store.at(tmp_path / "db.sqlite").setting("secret") == "one"


def test_a_reader_does_not_block_a_writer(tmp_path):
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


def test_pruning_the_spool_never_reuses_a_mail_number(tmp_path):
    """Pruning every moved row once let SQLite number the next spooled mail
    1 again, below the inbox's highest number, so it was never moved: a
    mail answered 250 and lost. The newest spooled row now always stays."""
    store = Store.at(tmp_path / "db.sqlite")
    store.migrate()
    day1, day3 = datetime(2026, 1, 1), datetime(2026, 1, 3)
    store.store_mails([_mail(1, day1), _mail(2, day1)])
    assert store.move_spooled() == 2
    store.prune_spool(day3)
    ((number, fresh),) = store.store_mails([_mail(3, day3)])
    assert fresh and number == 3
    assert store.move_spooled() == 1
    assert [m.id for m in store.mails()] == [1, 2, 3]
    store.close()


def _mail_path(store: Store) -> dict[str, list[tuple]]:
    """The statements every mail runs (``Hot``), with their edge cases;
    returns every table's rows."""
    at = datetime(2026, 1, 1, 12, 30, 5, 123456, tzinfo=UTC)
    with_id = {**_mail(2, at), "message_id": "<m@x>"}
    assert store.store_mails([_mail(1, at), with_id, _mail(1, at)]) == [
        (1, True),
        (2, True),
        (1, False),
    ]
    writer = SpoolWriter(store)
    assert writer.try_store([{**_mail(3, at), "message_id": "<m@x>"}, _mail(2, at)]) == [
        (3, True),
        (2, False),
    ]
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
        tables = {t.name: conn.execute(select(t)).all() for t in metadata.sorted_tables}
    with store.spool.tx(write=False) as conn:
        tables["spool"] = conn.execute(select(metadata.tables["spool"])).all()
    return tables


def test_the_fast_path_writes_what_core_writes(tmp_path):
    """The statements every mail runs go, on SQLite, through the driver's
    own cursor; the same statements through SQLAlchemy Core (as on any
    other database) behave the same and leave the same rows."""
    stores = [Store.at(tmp_path / "fast.sqlite"), Store.at(tmp_path / "core.sqlite")]
    for store in stores:
        store.migrate()
    stores[1].hot_cursor = stores[1].spool.hot_cursor = False
    fast, core = (_mail_path(store) for store in stores)
    assert fast == core
    assert len(fast["spool"]) == len(fast["inbox"]) == 3 and len(fast["outbox"]) == 2
    for store in stores:
        store.close()
