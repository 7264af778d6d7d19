"""rounds keep the round form's tap counters, so that an edit reopens with them

Revision ID: 0004_round_counters
Revises: 0003_round_idempotency_keys
Create Date: 2026-12-03

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0004_round_counters"
down_revision = "0003_round_idempotency_keys"
branch_labels = None
depends_on = None


def upgrade():
    # Nullable and without a default: rounds saved before this (and rounds from the API) have no counters.
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("counters", sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.drop_column("counters")
