"""nodes: the server nodes working on a shared store, with their heartbeats;
a game's seed as a 64-bit number on database servers

A seed is 48 bits: SQLite's INTEGER holds it, PostgreSQL's does not.

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("games", "seed", type_=sa.BigInteger(), existing_nullable=False)
    op.create_table(
        "nodes",
        sa.Column("holder", sa.String(length=120), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("listen", sa.String(length=255), nullable=True),
        sa.Column("since", sa.Float(), nullable=False),
        sa.Column("beat", sa.Float(), nullable=False),
        sa.Column("until", sa.Float(), nullable=False),
        sa.Column("mails", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("turns", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("sent", sa.Integer(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("holder"),
    )


def downgrade() -> None:
    op.drop_table("nodes")
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("games", "seed", type_=sa.Integer(), existing_nullable=False)
