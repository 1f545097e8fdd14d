"""claims and leases: exactly-once processing; every copy of a re-send kept

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# the first schema left the unique constraint unnamed: name it to drop it
NAMES = {"uq": "uq_%(table_name)s_%(column_0_name)s"}


def upgrade() -> None:
    # the inbox keeps a re-send of the same bytes as a duplicate row: its
    # sha256 is indexed, no longer unique (SQLite rebuilds the table; a
    # database server drops the constraint by the name it gave it)
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        with op.batch_alter_table("inbox", recreate="always", naming_convention=NAMES) as batch:
            batch.drop_constraint("uq_inbox_sha256", type_="unique")
            _claims(batch)
    else:
        for uq in sa.inspect(bind).get_unique_constraints("inbox"):
            if uq["column_names"] == ["sha256"]:
                op.drop_constraint(uq["name"], "inbox", type_="unique")
        with op.batch_alter_table("inbox") as batch:
            _claims(batch)
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("claimed_by", sa.String(length=120), nullable=True))
        batch.add_column(sa.Column("lease_until", sa.Float(), nullable=True))
    op.create_table(
        "leases",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("holder", sa.String(length=120), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("since", sa.Float(), nullable=False),
        sa.Column("until", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def _claims(batch: object) -> None:
    batch.add_column(sa.Column("claimed_by", sa.String(length=120), nullable=True))  # type: ignore[attr-defined]
    batch.add_column(sa.Column("lease_until", sa.Float(), nullable=True))  # type: ignore[attr-defined]
    batch.add_column(sa.Column("claims", sa.Integer(), nullable=False, server_default="0"))  # type: ignore[attr-defined]
    batch.create_index("ix_inbox_sha256", ["sha256"])  # type: ignore[attr-defined]


def downgrade() -> None:
    op.drop_table("leases")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("lease_until")
        batch.drop_column("claimed_by")
    # SQLite rebuilds the table; a database server changes it in place (the
    # tables whose keys point at the inbox keep pointing at it)
    recreate = "always" if op.get_bind().dialect.name == "sqlite" else "auto"
    with op.batch_alter_table("inbox", recreate=recreate) as batch:
        batch.drop_index("ix_inbox_sha256")
        batch.drop_column("claims")
        batch.drop_column("lease_until")
        batch.drop_column("claimed_by")
        batch.create_unique_constraint("uq_inbox_sha256", ["sha256"])
