"""confirmations: JOIN, LEAVE, WATCH and UNWATCH wait for a reply to a token

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "confirmations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("command", sa.String(length=16), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("text", sa.String(length=200), nullable=False),
        sa.Column("inbox_id", sa.Integer(), nullable=True),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_confirmations_token", "confirmations", ["token"])
    op.create_index(
        "ix_confirmations_request", "confirmations", ["address", "command", "game", "state"]
    )
    op.create_index("ix_confirmations_expires", "confirmations", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_confirmations_expires", "confirmations")
    op.drop_index("ix_confirmations_request", "confirmations")
    op.drop_index("ix_confirmations_token", "confirmations")
    op.drop_table("confirmations")
