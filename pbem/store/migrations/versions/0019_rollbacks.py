"""rollbacks: the phases a game master took back (ROLLBACK), with the
withdrawn record and reports

Revision ID: 0019
Revises: 0018
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rollbacks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        sa.Column("reports", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["game"], ["games.name"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_rollbacks_game", "rollbacks", ["game", "turn"])


def downgrade() -> None:
    op.drop_index("ix_rollbacks_game", table_name="rollbacks")
    op.drop_table("rollbacks")
