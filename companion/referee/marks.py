""" "Laid down this round": a phase the referee confirmed at the game table, remembered until the round is saved.

A mark is tied to the game's version at the time it was made. Every write to a game (saving, editing or deleting
a round) bumps that version, so a mark can never leak into a later round or survive an edit of the history.
The round-entry page starts with a marked player's "laid down" ticked (and, in Masters, the phase chosen).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Flask
from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from companion.rules.game import MAX_NAME_LENGTH

from ..extensions import db
from ..games.forms import RoundForm, round_form_shown
from ..models import Game, Model, utcnow


class LaidDownMark(Model):
    __tablename__ = "laid_down_marks"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    round_number: Mapped[int]
    player: Mapped[str] = mapped_column(String(MAX_NAME_LENGTH))
    phase: Mapped[int]
    # The groups as confirmed, in table order, in card notation: what the referee judged.
    groups: Mapped[list[list[str]]] = mapped_column(JSON)
    game_version: Mapped[int]
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        UniqueConstraint("game_id", "round_number", "player", name="uq_laid_down_marks_player"),
    )


def current_marks(game: Game, round_number: int) -> dict[str, LaidDownMark]:
    """The marks that still hold for this round: made since the game last changed."""
    rows = db.session.execute(
        db.select(LaidDownMark).where(
            LaidDownMark.game_id == game.id,
            LaidDownMark.round_number == round_number,
            LaidDownMark.game_version == game.version,
        )
    ).scalars()
    return {m.player: m for m in rows}


def mark(game: Game, round_number: int, player: str, phase: int, groups: list[list[str]]) -> None:
    """Remember that ``player`` laid down ``phase`` in this round (one transaction; a second mark replaces the
    first)."""
    db.session.execute(
        db.delete(LaidDownMark).where(
            LaidDownMark.game_id == game.id,
            LaidDownMark.round_number == round_number,
            LaidDownMark.player == player,
        )
    )
    db.session.add(
        LaidDownMark(
            game_id=game.id,
            round_number=round_number,
            player=player,
            phase=phase,
            groups=groups,
            game_version=game.version,
        )
    )
    db.session.commit()


def _tick_round_form(sender: Flask, *, form: RoundForm, game: Game, number: int, **extra: Any) -> None:
    # The round form belongs to the score keeper, which shows it without asking the referee; it tells who is
    # listening when a fresh form for the round in progress is shown, and this fills in what was marked.
    marks = current_marks(game, number)
    if marks:
        form.prefill_laid_down({name: True for name in marks}, {name: m.phase for name, m in marks.items()})


def connect(app: Flask) -> None:
    round_form_shown.connect(_tick_round_form, app)
