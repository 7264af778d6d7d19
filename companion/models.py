"""What the score keeper stores.

A game keeps its players in seat order and its rounds as the engine's own round reports (JSON from
``RoundReport.to_dict()``). Everything else a page shows — phases, totals, the dealer, the winner — is recomputed
from those reports with ``companion.rules.game.replay``; the few figures copied onto ``games`` and ``game_players``
exist only so that the home page and player stats can be listed with one query.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets
import unicodedata
from typing import TYPE_CHECKING, Any

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from companion.rules.game import MAX_NAME_LENGTH as NAME_MAX

from .extensions import db

if TYPE_CHECKING:
    # db.Model is made at run time from the declarative base (with Flask-SQLAlchemy's query and bind helpers);
    # to the type checker it is that base, so the mapped columns below are checked as SQLAlchemy 2.0 types.
    from .extensions import Base

    Model = Base
else:
    Model = db.Model


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def new_game_id() -> str:
    # Unguessable, so that knowing one share link tells nothing about other games.
    return secrets.token_urlsafe(9)


_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,16}")


def is_game_id(value: object) -> bool:
    """Whether a value from a URL or a body can be a game id at all (URL-safe base64, at most 16 characters).

    Anything else is an unknown game without asking the database, which would reject some strings outright
    (PostgreSQL refuses a NUL byte in text).
    """
    return isinstance(value, str) and _GAME_ID.fullmatch(value) is not None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token_hash: str, token: str | None) -> bool:
    return bool(token) and hmac.compare_digest(token_hash, hash_token(token or ""))


class Player(Model):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX))
    # Names are matched without regard to case, so "ana" at a new game finds the Ana who played last week.
    name_key: Mapped[str] = mapped_column(String(NAME_MAX * 2), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    seats: Mapped[list[GamePlayer]] = relationship(back_populates="player")

    @staticmethod
    def key_for(name: str) -> str:
        # NFC after folding too: casefold can turn a composed letter into a decomposed one.
        return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


class Game(Model):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(16), primary_key=True, default=new_game_id)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    first_dealer: Mapped[int] = mapped_column(default=0)
    edit_token_hash: Mapped[str] = mapped_column(String(64))
    # Bumped by every write; the write takes its lock by bumping it, and the share page's ETag is this number.
    version: Mapped[int] = mapped_column(default=1)
    status: Mapped[str] = mapped_column(String(16), default="in_progress")
    winner: Mapped[str | None] = mapped_column(String(NAME_MAX), default=None)
    rounds_played: Mapped[int] = mapped_column(default=0)
    # The taught deck (a folder name under the decks folder) the camera reads this game's photos with; none:
    # the server's default deck. A name, not a key: decks live on disk and may be removed, and then the camera
    # reads with the shipped models.
    camera_deck: Mapped[str | None] = mapped_column(String(40), default=None)

    # Every view needs the seats and their names: two queries up front instead of one per player.
    seats: Mapped[list[GamePlayer]] = relationship(
        back_populates="game", order_by="GamePlayer.seat", cascade="all, delete-orphan", lazy="selectin"
    )
    rounds: Mapped[list[Round]] = relationship(
        back_populates="game", order_by="Round.number", cascade="all, delete-orphan"
    )
    audit: Mapped[list[AuditEntry]] = relationship(
        back_populates="game", order_by="AuditEntry.id", cascade="all, delete-orphan"
    )

    __table_args__ = (Index("ix_games_status_updated", "status", "updated_at"),)

    @property
    def player_names(self) -> list[str]:
        return [seat.player.name for seat in self.seats]

    def token_matches(self, token: str | None) -> bool:
        return token_matches(self.edit_token_hash, token)


class GamePlayer(Model):
    __tablename__ = "game_players"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    # Copies of the replayed state, refreshed on every write, for the player stats on the home page.
    total: Mapped[int] = mapped_column(default=0)
    phases_completed: Mapped[int] = mapped_column(default=0)
    rounds_played: Mapped[int] = mapped_column(default=0)

    game: Mapped[Game] = relationship(back_populates="seats")
    player: Mapped[Player] = relationship(back_populates="seats", lazy="joined")

    __table_args__ = (UniqueConstraint("game_id", "player_id", name="uq_game_players_player"),)


class Round(Model):
    __tablename__ = "rounds"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    # The unique pair is the last line of defence against two devices saving the same round.
    number: Mapped[int]
    report: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # The Idempotency-Key of the request (or the one-time token of the form) that saved this round, so that the
    # same request sent again -- a retry on bad Wi-Fi, a form resubmitted after Back -- never saves it twice.
    idempotency_key: Mapped[str | None] = mapped_column(String(64), default=None)
    # How the round form's tap counters stood for each player, {"Ben": {"low": 2, "high": 1, "skip": 1}}, so
    # that an edit reopens with the same counters. The report keeps only the total (a counter is a kind of
    # card, not a card); a report changed elsewhere since is recognised by its total no longer matching.
    counters: Mapped[dict[str, dict[str, int]] | None] = mapped_column(JSON, default=None)

    game: Mapped[Game] = relationship(back_populates="rounds")

    __table_args__ = (
        UniqueConstraint("game_id", "number", name="uq_rounds_game_number"),
        UniqueConstraint("game_id", "idempotency_key", name="uq_rounds_game_idempotency_key"),
    )


class AuditEntry(Model):
    __tablename__ = "audit_entries"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    action: Mapped[str] = mapped_column(String(16))
    round_number: Mapped[int | None]
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    who: Mapped[str] = mapped_column(String(120))

    game: Mapped[Game] = relationship(back_populates="audit")
