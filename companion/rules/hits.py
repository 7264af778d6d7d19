"""Hits: adding cards from the hand to a group already on the table.

A set takes its number or a wild; a run takes the next number at either end, inside the numbers of the deck (a
wild takes the end the player names, or the top end while it has room, else the bottom); a colour or suit group
takes its colour or suit or a wild (001 "Hitting", 000 "HITTING"). Wilds keep the value they were laid as (000),
so the group's numbers never shift. A Skip never joins a phase (000, 001), and a player hits only after laying
down their own phase (001).

>>> from companion.rules.cards import parse_cards
>>> run = make_group(GroupKind.RUN, parse_cards("R9 B10 G11"))
>>> str(check_hit(run, parse_cards("Y8 R12"), get_ruleset()).group)
'Y8 R9 B10 G11 R12'
>>> check_hit(run, parse_cards("R7"), get_ruleset()).reason
'the run R9 B10 G11 takes an 8 or a 12, not a 7'
>>> check_hit(make_group(GroupKind.SET, parse_cards("R12 B12 G12")), parse_cards("Y8"), get_ruleset()).reason
'the set of 12s takes only 12s or wilds, not an 8'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from .cards import Card
from .phases import GroupKind
from .referee import SKIP_REASON, IllegalPlayError, LaidGroup, make_group, rank_text, require_deck
from .rulesets import RuleSet, get_ruleset

__all__ = ["End", "HitVerdict", "apply_hit", "check_hit"]

End = Literal["low", "high"]
NOT_DOWN_REASON = "you must lay down your own phase before you can hit"


@dataclass(frozen=True, slots=True)
class HitVerdict:
    """The answer to a hit: ``legal``, the ``reason`` when not, and ``group``, the group after the hit (the
    group as it was when the hit is refused)."""

    legal: bool
    reason: str | None
    group: LaidGroup

    def __bool__(self) -> bool:
        return self.legal

    def to_dict(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "reason": self.reason,
            "group": [str(c) for c in self.group.cards],
            "laid": self.group.to_dict(),
        }


def check_hit(
    group: LaidGroup,
    cards: Sequence[Card],
    rules: RuleSet | None = None,
    *,
    end: End | None = None,
    phase_down: bool = True,
) -> HitVerdict:
    """Add ``cards``, in order, to ``group``. ``end`` names the end of a run every card goes to (needed only to
    put a wild at the bottom while the top has room); ``phase_down`` says whether the player's own phase is on
    the table this round. Bad input (a card of another deck, an unknown end) raises ``ValueError``.

    >>> from companion.rules.cards import parse_cards
    >>> laid = make_group(GroupKind.RUN, parse_cards("W R4 R5 R6"))  # the wild was laid as the 3
    >>> check_hit(laid, parse_cards("B3"), get_ruleset()).reason
    'the run W R4 R5 R6 takes a 2 or a 7, not a 3'
    >>> check_hit(laid, parse_cards("W"), get_ruleset(), end="low").group.values
    (2, 3, 4, 5, 6)
    >>> check_hit(laid, parse_cards("B7"), get_ruleset(), phase_down=False).reason
    'you must lay down your own phase before you can hit'
    """
    rules = rules or get_ruleset()
    if end not in (None, "low", "high"):
        raise ValueError(f"the end of a run is 'low' or 'high', not {end!r}")
    if not cards:
        raise ValueError("name at least one card to hit with")
    require_deck(cards, rules.deck)
    if not phase_down:
        return HitVerdict(False, NOT_DOWN_REASON, group)
    current = group
    for card in cards:
        try:
            current = _add(current, card, rules, end)
        except IllegalPlayError as exc:
            return HitVerdict(False, exc.reason, group)
    return HitVerdict(True, None, current)


def apply_hit(
    group: LaidGroup,
    cards: Sequence[Card],
    rules: RuleSet | None = None,
    *,
    end: End | None = None,
    phase_down: bool = True,
) -> LaidGroup:
    """The group after the hit; raises :class:`~companion.rules.referee.IllegalPlayError` with the reason when
    the hit is not allowed.

    >>> from companion.rules.cards import parse_cards
    >>> apply_hit(make_group(GroupKind.SET, parse_cards("R4 B4 W")), parse_cards("S"))
    Traceback (most recent call last):
    ...
    companion.rules.referee.IllegalPlayError: a Skip can never be part of a phase
    """
    verdict = check_hit(group, cards, rules, end=end, phase_down=phase_down)
    if not verdict.legal:
        raise IllegalPlayError(verdict.reason or "not a legal hit")
    return verdict.group


def _add(group: LaidGroup, card: Card, rules: RuleSet, end: End | None) -> LaidGroup:
    if card.is_skip:
        raise IllegalPlayError(SKIP_REASON)
    if group.kind is GroupKind.RUN:
        return _add_to_run(group, card, rules, end)
    deck = rules.deck
    if group.kind is GroupKind.SET:
        if card.is_wild or group.number is None or card.number == group.number:
            number = group.number if group.number is not None else card.number
            # A natural card hit onto a set of wilds only is what fixes its number.
            values = tuple(number for _ in range(len(group.cards) + 1))
            return LaidGroup(GroupKind.SET, (*group.cards, card), values)
        assert card.number is not None
        shown = rank_text(group.number, deck)
        raise IllegalPlayError(
            f"the set of {shown}s takes only {shown}s or wilds, not {_article(rank_text(card.number, deck))}"
        )
    if group.kind is GroupKind.COLOR:
        if card.is_wild or group.color is None or card.color is group.color:
            color = group.color or card.color
            return LaidGroup(GroupKind.COLOR, (*group.cards, card), (*group.values, card.number), color=color)
        assert group.color is not None and card.color is not None
        raise IllegalPlayError(
            f"the {group.color.label} group takes only {group.color.label} cards or wilds; {card} is {card.color.label}"
        )
    if card.is_wild or group.suit is None or card.suit is group.suit:
        suit = group.suit or card.suit
        return LaidGroup(GroupKind.SUIT, (*group.cards, card), (*group.values, card.number), suit=suit)
    assert group.suit is not None and card.suit is not None
    raise IllegalPlayError(
        f"the {group.suit.label} group takes only {group.suit.label} or jokers; {card} is {card.suit.label}"
    )


def _add_to_run(group: LaidGroup, card: Card, rules: RuleSet, end: End | None) -> LaidGroup:
    top = rules.deck.max_rank
    deck = rules.deck
    text = str(group)
    if len(group.cards) >= top:
        raise IllegalPlayError(f"the run {text} already holds every number from 1 to {top}")
    if group.low is None or group.high is None:
        return _add_to_wild_run(group, card, rules, end)
    low, high = group.low, group.high
    below = low - 1 if low > 1 else (top if rules.wrap_runs else None)
    above = high + 1 if high < top else (1 if rules.wrap_runs else None)
    ends: list[tuple[End, int | None]] = [("high", above), ("low", below)]
    if end is not None:
        ends = [e for e in ends if e[0] == end]
    for side, value in ends:
        if value is None:
            continue
        if card.is_wild or card.number == value:
            return _extend(group, card, side, value)
    if card.is_wild:
        where = f"no room at the {end} end" if end else "no room at either end"
        raise IllegalPlayError(f"the run {text} has {where} for a wild")
    assert card.number is not None
    options = [rank_text(v, deck) for _, v in reversed(ends) if v is not None]
    takes = " or ".join(_article(o) for o in options) if options else "nothing more at that end"
    raise IllegalPlayError(f"the run {text} takes {takes}, not {_article(rank_text(card.number, deck))}")


def _article(word: str) -> str:
    """'an 8', 'an 11', 'an A', 'a 7'."""
    return f"{'an' if word[0] in '8A' or word == '11' else 'a'} {word}"


def _extend(group: LaidGroup, card: Card, side: End, value: int) -> LaidGroup:
    if side == "high":
        return replace(group, cards=(*group.cards, card), values=(*group.values, value))
    return replace(group, cards=(card, *group.cards), values=(value, *group.values))


def _add_to_wild_run(group: LaidGroup, card: Card, rules: RuleSet, end: End | None) -> LaidGroup:
    """A run laid as wilds only has no numbers yet; the first numbered card hit onto it fixes them."""
    side: End = end or "high"
    if card.is_wild:
        cards = (*group.cards, card) if side == "high" else (card, *group.cards)
        return replace(group, cards=cards, values=tuple(None for _ in cards))
    cards = (*group.cards, card) if side == "high" else (card, *group.cards)
    try:
        return make_group(GroupKind.RUN, cards, rules)
    except IllegalPlayError:
        if end is None:
            return make_group(GroupKind.RUN, (card, *group.cards), rules)
        raise
