"""score keeper: players, games, seats, rounds, audit

Revision ID: 0001
Revises: 
Create Date: 2026-11-29

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('games',
    sa.Column('id', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.Column('rules', sa.JSON(), nullable=False),
    sa.Column('first_dealer', sa.Integer(), nullable=False),
    sa.Column('edit_token_hash', sa.String(length=64), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('winner', sa.String(length=40), nullable=True),
    sa.Column('rounds_played', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.create_index('ix_games_status_updated', ['status', 'updated_at'], unique=False)

    op.create_table('players',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=40), nullable=False),
    sa.Column('name_key', sa.String(length=80), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name_key')
    )
    op.create_table('audit_entries',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.String(length=16), nullable=False),
    sa.Column('at', sa.DateTime(), nullable=False),
    sa.Column('action', sa.String(length=16), nullable=False),
    sa.Column('round_number', sa.Integer(), nullable=True),
    sa.Column('before', sa.JSON(), nullable=True),
    sa.Column('after', sa.JSON(), nullable=True),
    sa.Column('who', sa.String(length=120), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audit_entries_game_id'), ['game_id'], unique=False)

    op.create_table('game_players',
    sa.Column('game_id', sa.String(length=16), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('phases_completed', sa.Integer(), nullable=False),
    sa.Column('rounds_played', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('game_id', 'seat'),
    sa.UniqueConstraint('game_id', 'player_id', name='uq_game_players_player')
    )
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_game_players_player_id'), ['player_id'], unique=False)

    op.create_table('rounds',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.String(length=16), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('report', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'number', name='uq_rounds_game_number')
    )


def downgrade():
    op.drop_table('rounds')
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_players_player_id'))

    op.drop_table('game_players')
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_audit_entries_game_id'))

    op.drop_table('audit_entries')
    op.drop_table('players')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index('ix_games_status_updated')

    op.drop_table('games')
