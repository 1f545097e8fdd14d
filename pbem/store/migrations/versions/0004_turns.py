"""turns

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 01:28:50.090678
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "turns",
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("adjudicated_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game"],
            ["games.name"],
        ),
        sa.PrimaryKeyConstraint("game", "turn"),
    )


def downgrade() -> None:

    op.drop_table("turns")
