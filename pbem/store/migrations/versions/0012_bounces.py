"""bounces: every bounce received, and addresses no longer mailed

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bounces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("inbox_id", sa.Integer(), nullable=True),
        sa.Column("outbox_id", sa.Integer(), nullable=True),
        sa.Column("address", sa.String(length=254), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["inbox_id"], ["inbox.id"]),
        sa.ForeignKeyConstraint(["outbox_id"], ["outbox.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_bounces_address", "bounces", ["address", "id"])
    op.create_table(
        "unreachable",
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("counted_after", sa.Integer(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("address"),
    )


def downgrade() -> None:
    op.drop_table("unreachable")
    op.drop_index("ix_bounces_address", table_name="bounces")
    op.drop_table("bounces")
