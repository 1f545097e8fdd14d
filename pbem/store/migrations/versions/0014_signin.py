"""signin: the web pages' single-use sign-in links and the sessions they start

Revision ID: 0014
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signin_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=True),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token"),
    )
    op.create_index("ix_signin_links_expires", "signin_links", ["expires_at"])
    op.create_table(
        "signin_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token"),
    )
    op.create_index("ix_signin_sessions_expires", "signin_sessions", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_signin_sessions_expires", "signin_sessions")
    op.drop_table("signin_sessions")
    op.drop_index("ix_signin_links_expires", "signin_links")
    op.drop_table("signin_links")
