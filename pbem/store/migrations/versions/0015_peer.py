"""peer: the address of the connection each received mail came over

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("spool", "inbox"):
        op.add_column(table, sa.Column("peer", sa.String(length=64), nullable=True))


def downgrade() -> None:
    for table in ("spool", "inbox"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("peer")
