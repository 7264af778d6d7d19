"""rounds remember the idempotency key that saved them; player keys are NFC

Revision ID: 0003_round_idempotency_keys
Revises: 0002_laid_down_marks
Create Date: 2026-12-01

"""

import unicodedata

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0003_round_idempotency_keys"
down_revision = "0002_laid_down_marks"
branch_labels = None
depends_on = None


def _key(name):
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def upgrade():
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("idempotency_key", sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint("uq_rounds_game_idempotency_key", ["game_id", "idempotency_key"])
    # Names were matched by casefold alone; "Zoë" typed decomposed got a key of its own. Give every player the
    # NFC key, leaving a player as they were where another already holds that key (two rows stay two players).
    conn = op.get_bind()
    players = sa.table(
        "players", sa.column("id", sa.Integer), sa.column("name", sa.String), sa.column("name_key", sa.String)
    )
    rows = conn.execute(sa.select(players.c.id, players.c.name, players.c.name_key)).all()
    taken = {key for _id, _name, key in rows}
    for pid, name, key in rows:
        new = _key(name)
        if new != key and new not in taken:
            conn.execute(
                sa.update(players)
                .where(players.c.id == pid)
                .values(name=unicodedata.normalize("NFC", name), name_key=new)
            )
            taken.discard(key)
            taken.add(new)


def downgrade():
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.drop_constraint("uq_rounds_game_idempotency_key", type_="unique")
        batch_op.drop_column("idempotency_key")
