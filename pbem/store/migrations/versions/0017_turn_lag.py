"""turn lag: seconds from a turn's deadline to its resolving, for the
metrics (pbem_turn_lag_seconds); none for a turn that ran early

Revision ID: 0017
Revises: 0016
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("turns", sa.Column("lag", sa.Float(), nullable=True))
    op.create_index("ix_turns_lag", "turns", ["lag"])


def downgrade() -> None:
    op.drop_index("ix_turns_lag", table_name="turns")
    with op.batch_alter_table("turns") as batch:
        batch.drop_column("lag")
