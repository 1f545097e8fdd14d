"""Storage: the migrations build exactly the schema the code uses; commits
survive; reads do not block writers."""

from __future__ import annotations

from datetime import datetime

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from pbem.store import Store
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
