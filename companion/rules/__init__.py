"""The rules engine: pure game logic (cards, phases, referee, scoring, game progression, variants).

No Flask, no SQLAlchemy, no OpenCV here: every other part of the project asks this package.
"""

from .cards import (
    Card,
    Color,
    Deck,
    InvalidCardError,
    Kind,
    Suit,
    card_points,
    hand_points,
    parse_cards,
    parse_groups,
    playing_deck,
    standard_deck,
)
from .phases import PLAYING_CARD_PHASES, STANDARD_PHASES, GroupKind, Phase, Requirement
from .rulesets import RULESETS, InvalidOptionError, RuleSet, UnknownRuleSetError, get_ruleset, ruleset_names

__all__ = [
    "PLAYING_CARD_PHASES",
    "RULESETS",
    "STANDARD_PHASES",
    "Card",
    "Color",
    "Deck",
    "GroupKind",
    "InvalidCardError",
    "InvalidOptionError",
    "Kind",
    "Phase",
    "Requirement",
    "RuleSet",
    "Suit",
    "UnknownRuleSetError",
    "card_points",
    "get_ruleset",
    "hand_points",
    "parse_cards",
    "parse_groups",
    "playing_deck",
    "ruleset_names",
    "standard_deck",
]
