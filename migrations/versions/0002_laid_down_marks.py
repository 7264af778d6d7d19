"""photo referee: "laid down this round" marks confirmed at the game table

Revision ID: 0002_laid_down_marks
Revises: 0001
Create Date: 2026-11-29

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0002_laid_down_marks'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('laid_down_marks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.String(length=16), nullable=False),
    sa.Column('round_number', sa.Integer(), nullable=False),
    sa.Column('player', sa.String(length=40), nullable=False),
    sa.Column('phase', sa.Integer(), nullable=False),
    sa.Column('groups', sa.JSON(), nullable=False),
    sa.Column('game_version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'round_number', 'player', name='uq_laid_down_marks_player')
    )
    with op.batch_alter_table('laid_down_marks', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_laid_down_marks_game_id'), ['game_id'], unique=False)


def downgrade():
    with op.batch_alter_table('laid_down_marks', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_laid_down_marks_game_id'))

    op.drop_table('laid_down_marks')
