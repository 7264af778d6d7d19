"""Cards, decks and card notation.

Two decks are supported:

* the standard Phase 10 deck (source 001): numbers 1-12 in red, blue, green and yellow, two of each,
  8 Wild and 4 Skip cards, 108 in all;
* ordinary playing cards (source 004): A(=1) to K(=13) in four suits, two 52-card decks plus 4 jokers for
  every two players; jokers are wild.

Notation is compact, case-insensitive and round-trips:

>>> Card.parse("r7")
Card.parse('R7')
>>> str(Card.parse("b12")), str(Card.parse("w")), str(Card.parse("Skip"))
('B12', 'W', 'S')
>>> Card.parse("qs", Deck.PLAYING)
Card.parse('QS', Deck.PLAYING)
>>> parse_cards("AH 10d jk", Deck.PLAYING)
(Card.parse('AH', Deck.PLAYING), Card.parse('10D', Deck.PLAYING), Card.parse('JK', Deck.PLAYING))
>>> Card.parse("R13")
Traceback (most recent call last):
...
companion.rules.cards.InvalidCardError: 'R13' is not a card: numbers run from 1 to 12
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from .wording import Reason, reason

__all__ = [
    "Card",
    "Color",
    "Deck",
    "InvalidCardError",
    "Kind",
    "Suit",
    "card_points",
    "hand_points",
    "parse_cards",
    "parse_groups",
    "playing_deck",
    "standard_deck",
]


class InvalidCardError(ValueError):
    """A token that is not a card in the deck being used. ``token`` names the bad token, ``why`` says what is
    wrong with it as a :class:`~companion.rules.wording.Reason` (its key: ``card_empty``, ``card_notation``,
    ``card_number``, ``card_playing_notation`` or ``card_rank``)."""

    def __init__(self, token: str, key: str) -> None:
        self.token = token
        self.why: Reason = reason(key, token=repr(token))
        super().__init__(str(self.why))


class Deck(enum.Enum):
    """Which physical deck a card comes from."""

    STANDARD = "standard"
    PLAYING = "playing-cards"

    @property
    def max_rank(self) -> int:
        """Highest number a card of this deck carries (12 for Phase 10 cards, 13 for a king)."""
        return 12 if self is Deck.STANDARD else 13


class Color(enum.Enum):
    """A card's colour. Phase 10 cards have four; playing cards are red or black by suit."""

    RED = "R"
    BLUE = "B"
    GREEN = "G"
    YELLOW = "Y"
    BLACK = "K"

    @property
    def label(self) -> str:
        return self.name.lower()


class Suit(enum.Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def color(self) -> Color:
        return Color.RED if self in (Suit.HEARTS, Suit.DIAMONDS) else Color.BLACK

    @property
    def label(self) -> str:
        return self.name.lower()


class Kind(enum.Enum):
    NUMBER = "number"
    WILD = "wild"
    SKIP = "skip"


STANDARD_COLORS = (Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW)
_RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
_RANK_VALUES = {"A": 1, "J": 11, "Q": 12, "K": 13}
_STANDARD_RE = re.compile(r"([RBGY])(\d{1,2})")
_PLAYING_RE = re.compile(r"(A|J|Q|K|\d{1,2})([SHDC])")


@dataclass(frozen=True, slots=True)
class Card:
    """One card. Immutable and hashable; equal cards are interchangeable.

    ``number`` is 1-12 (standard) or 1-13 (playing cards) for numbered cards and ``None`` for Wild/Skip/joker.
    ``color`` is the printed colour (standard) or red/black (playing cards); ``suit`` only for playing cards.
    """

    kind: Kind
    number: int | None = None
    color: Color | None = None
    suit: Suit | None = None
    deck: Deck = Deck.STANDARD

    @staticmethod
    def number_card(number: int, color: Color) -> Card:
        return Card(Kind.NUMBER, number, color)

    @staticmethod
    def playing_card(rank: int, suit: Suit) -> Card:
        return Card(Kind.NUMBER, rank, suit.color, suit, Deck.PLAYING)

    @staticmethod
    def wild(deck: Deck = Deck.STANDARD) -> Card:
        return _WILDS[deck]

    @staticmethod
    def skip() -> Card:
        return _SKIP

    @staticmethod
    def parse(token: str, deck: Deck = Deck.STANDARD) -> Card:
        """Parse one card in compact notation; raises :class:`InvalidCardError` naming the token."""
        return _parse(token.strip().upper(), deck, token)

    @property
    def is_wild(self) -> bool:
        return self.kind is Kind.WILD

    @property
    def is_skip(self) -> bool:
        return self.kind is Kind.SKIP

    @property
    def is_natural(self) -> bool:
        """A numbered card (not a Wild, joker or Skip)."""
        return self.kind is Kind.NUMBER

    @property
    def points(self) -> int:
        return card_points(self)

    def __str__(self) -> str:
        if self.kind is Kind.WILD:
            return "W" if self.deck is Deck.STANDARD else "JK"
        if self.kind is Kind.SKIP:
            return "S"
        assert self.number is not None
        if self.deck is Deck.PLAYING:
            assert self.suit is not None
            return f"{_RANK_NAMES.get(self.number, str(self.number))}{self.suit.value}"
        assert self.color is not None
        return f"{self.color.value}{self.number}"

    def __repr__(self) -> str:
        if self.deck is Deck.PLAYING:
            return f"Card.parse({str(self)!r}, Deck.PLAYING)"
        return f"Card.parse({str(self)!r})"

    def sort_key(self) -> tuple[int, int, str]:
        """Numbers first in ascending order, then wilds, then skips."""
        order = {Kind.NUMBER: 0, Kind.WILD: 1, Kind.SKIP: 2}[self.kind]
        return (order, self.number or 0, str(self))


_WILDS = {Deck.STANDARD: Card(Kind.WILD), Deck.PLAYING: Card(Kind.WILD, deck=Deck.PLAYING)}
_SKIP = Card(Kind.SKIP)


@lru_cache(maxsize=512)
def _parse(token: str, deck: Deck, original: str) -> Card:
    if not token:
        raise InvalidCardError(original, "card_empty")
    if deck is Deck.STANDARD:
        if token in ("W", "WILD"):
            return _WILDS[deck]
        if token in ("S", "SKIP"):
            return _SKIP
        m = _STANDARD_RE.fullmatch(token)
        if not m:
            raise InvalidCardError(original, "card_notation")
        number = int(m.group(2))
        if not 1 <= number <= 12:
            raise InvalidCardError(original, "card_number")
        return Card(Kind.NUMBER, number, Color(m.group(1)))
    if token in ("JK", "JOKER"):
        return _WILDS[deck]
    m = _PLAYING_RE.fullmatch(token)
    if not m:
        raise InvalidCardError(original, "card_playing_notation")
    rank_text = m.group(1)
    rank = _RANK_VALUES[rank_text] if rank_text in _RANK_VALUES else int(rank_text)
    if not 2 <= rank <= 10 and rank_text not in _RANK_VALUES:
        raise InvalidCardError(original, "card_rank")
    suit = Suit(m.group(2))
    return Card(Kind.NUMBER, rank, suit.color, suit, Deck.PLAYING)


def parse_cards(text: str | Iterable[str], deck: Deck = Deck.STANDARD) -> tuple[Card, ...]:
    """Parse cards separated by spaces or commas (or an iterable of tokens)."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else [t for t in text if t.strip()]
    return tuple(Card.parse(t, deck) for t in tokens)


def parse_groups(text: str | Iterable[str], deck: Deck = Deck.STANDARD) -> tuple[tuple[Card, ...], ...]:
    """Parse groups separated by ``|``: ``"R7 B7 G7 | G3 Y4 R5 B6"``.

    >>> [[str(c) for c in g] for g in parse_groups("R7 B7 G7 | G3 Y4 R5 B6")]
    [['R7', 'B7', 'G7'], ['G3', 'Y4', 'R5', 'B6']]
    """
    joined = text if isinstance(text, str) else " ".join(text)
    parts = joined.split("|")
    return tuple(parse_cards(part, deck) for part in parts)


def card_points(card: Card) -> int:
    """Points a card left in hand scores (001: 1-9 = 5, 10-12 = 10, Skip = 15, Wild = 25;
    004: A-9 = 5, 10/J/Q/K = 10, joker = 25).

    >>> [card_points(Card.parse(t)) for t in ("R3", "G7", "B11", "S", "W")]
    [5, 5, 10, 15, 25]
    """
    if card.kind is Kind.WILD:
        return 25
    if card.kind is Kind.SKIP:
        return 15
    assert card.number is not None
    return 5 if card.number <= 9 else 10


def hand_points(cards: Iterable[Card]) -> int:
    """Total points of the cards left in a hand.

    >>> hand_points(parse_cards("R3 G7 B11 S"))  # 001 worked example: Ben
    35
    """
    return sum(card_points(c) for c in cards)


def standard_deck() -> tuple[Card, ...]:
    """The 108-card Phase 10 deck (001).

    >>> deck = standard_deck()
    >>> len(deck), sum(c.is_wild for c in deck), sum(c.is_skip for c in deck)
    (108, 8, 4)
    """
    numbered = [
        Card(Kind.NUMBER, n, color) for color in STANDARD_COLORS for n in range(1, 13) for _ in range(2)
    ]
    return (*numbered, *[_WILDS[Deck.STANDARD]] * 8, *[_SKIP] * 4)


def playing_deck(players: int = 2) -> tuple[Card, ...]:
    """Two 52-card decks plus 4 jokers for every two players (004).

    >>> len(playing_deck(2)), len(playing_deck(4)), len(playing_deck(3))
    (108, 216, 216)
    """
    if players < 1:
        raise ValueError("at least one player is needed")
    per_two = [
        Card(Kind.NUMBER, r, s.color, s, Deck.PLAYING) for _ in range(2) for s in Suit for r in range(1, 14)
    ]
    per_two += [_WILDS[Deck.PLAYING]] * 4
    return tuple(per_two * ((players + 1) // 2))
