"""preferences: the seats (Empire's powers) a player wishes for while the
game forms, the most wished first, one a line (PREFERENCE, games.yaml's
preferences); read when the game starts

Revision ID: 0018
Revises: 0017
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("preferences", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("preferences")
