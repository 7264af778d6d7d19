"""games name the taught deck the camera reads their photos with

Revision ID: 0005_game_camera_deck
Revises: 0004_round_counters
Create Date: 2026-12-10

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0005_game_camera_deck"
down_revision = "0004_round_counters"
branch_labels = None
depends_on = None


def upgrade():
    # Nullable and without a default: every game made before this reads with the server's deck.
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("camera_deck", sa.String(length=40), nullable=True))


def downgrade():
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("camera_deck")
