"""deadlines in storage, missed turns, reports

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("turn_started_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("reminded_for", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("missed", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "reports",
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("reader", sa.String(length=254), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("html", sa.Text(), nullable=False),
        sa.Column("svg", sa.Text(), nullable=False),
        sa.Column("png", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game"], ["games.name"]),
        sa.PrimaryKeyConstraint("game", "turn", "reader"),
    )
    op.create_table(
        "press",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("sender", sa.String(length=32), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game"], ["games.name"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_press_turn", "press", ["game", "turn"])


def downgrade() -> None:
    op.drop_index("ix_press_turn", table_name="press")
    op.drop_table("press")
    op.drop_table("reports")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("missed")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("finished_at")
        batch.drop_column("reminded_for")
        batch.drop_column("turn_started_at")
        batch.drop_column("deadline")
