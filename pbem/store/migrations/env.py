"""Alembic environment: pbem runs migrations itself (pbem.store.migrate),
handing over an open connection; there is no alembic.ini."""

from alembic import context

from pbem.store.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only from the alembic command line
    raise SystemExit("run migrations through pbem (pbem.store.Store.migrate)")
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
