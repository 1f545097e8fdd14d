"""daily reply counts

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 01:05:19.486958
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "reply_counts",
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("address", "day"),
    )


def downgrade() -> None:

    op.drop_table("reply_counts")
