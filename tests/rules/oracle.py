"""Brute-force answers to the referee's and the advisor's questions, written straight from the rule sentences.

Slow on purpose and only for the tests: every way of sharing the cards out among the groups of a phase, and for
every group every number, run of numbers, colour or suit its wilds could stand for.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from companion.rules.cards import Card, Color, Deck, Suit
from companion.rules.phases import GroupKind, Phase
from companion.rules.referee import check_phase
from companion.rules.rulesets import RuleSet


def group_readings(cards: Sequence[Card], kind: GroupKind, rules: RuleSet) -> list[object]:
    """Every way these cards can be read as one group of ``kind``: the number of a set, the first number of a
    run, the colour or the suit. Empty when there is none."""
    top = rules.deck.max_rank
    if not cards or any(c.is_skip for c in cards):
        return []  # 000, 001: a Skip can never be part of a phase
    naturals = [c for c in cards if c.is_natural]
    if kind is GroupKind.SET:
        return [v for v in range(1, top + 1) if all(c.number == v for c in naturals)]
    if kind is GroupKind.RUN:
        if len(cards) > top:
            return []
        starts = range(1, top + 1) if rules.wrap_runs else range(1, top - len(cards) + 2)
        numbers = [c.number for c in naturals]
        found: list[object] = []
        for start in starts:
            window = {(start + i - 1) % top + 1 for i in range(len(cards))}
            if len(set(numbers)) == len(numbers) and set(numbers) <= window:
                found.append(start)
        return found
    if kind is GroupKind.COLOR:
        colors: Sequence[Color] = (
            (Color.RED, Color.BLACK)
            if rules.deck is Deck.PLAYING
            else (Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW)
        )
        return [col for col in colors if all(c.color is col for c in naturals)]
    return [s for s in Suit if all(c.suit is s for c in naturals)]


def phase_ok(groups: Sequence[Sequence[Card]], phase: Phase, rules: RuleSet) -> bool:
    """These groups, in requirement order, are the phase."""
    if not any(c.is_natural for g in groups for c in g):
        return False  # 001: at least one card in the phase must be a numbered card
    readings = []
    for req, cards in zip(phase.requirements, groups, strict=True):
        if len(cards) < req.size:
            return False
        if rules.natural_per_group and not any(c.is_natural for c in cards):
            return False
        found = group_readings(cards, req.kind, rules)
        if not found:
            return False
        readings.append(found)
    if phase.distinct_suits:
        return any(len(set(choice)) == len(choice) for choice in itertools.product(*readings))
    return True


def oracle_valid(cards: Sequence[Card], phase: Phase, rules: RuleSet) -> bool:
    """Some way of putting every card into one of the phase's groups makes the phase (000: every card put
    down belongs to a group, no extra group)."""
    m = len(phase.requirements)
    seen: set[tuple[tuple[Card, ...], ...]] = set()
    for owners in itertools.product(range(m), repeat=len(cards)):
        groups = tuple(
            tuple(sorted((c for c, o in zip(cards, owners, strict=True) if o == g), key=str))
            for g in range(m)
        )
        if groups in seen:
            continue
        seen.add(groups)
        if phase_ok(groups, phase, rules):
            return True
    return False


def oracle_missing(hand: Sequence[Card], phase: Phase, rules: RuleSet, limit: int = 12) -> int:
    """Fewest cards to add to some part of the hand so that it can be laid down as the phase.

    Any card added can be taken as a wild, except that a phase (or with ``natural_per_group`` each group) needs a
    numbered card; such a card goes into a group that has none, where any numbered card fits as long as its
    suit differs from the other suit groups', so two probe cards of different suits cover every case.
    """
    wild = Card.wild(rules.deck)
    if rules.deck is Deck.PLAYING:
        probes = [Card.parse("2S", Deck.PLAYING), Card.parse("3H", Deck.PLAYING)]
    else:
        probes = [Card.parse("R2"), Card.parse("B3")]
    usable = [c for c in hand if not c.is_skip]
    subsets = {
        tuple(sorted(sub, key=str))
        for r in range(len(usable) + 1)
        for sub in itertools.combinations(usable, r)
    }
    for extra in range(limit + 1):
        additions: list[tuple[Card, ...]] = [(wild,) * extra]
        for k in (1, 2):
            if extra >= k:
                for chosen in itertools.combinations_with_replacement(probes, k):
                    additions.append((*chosen, *(wild,) * (extra - k)))
        for sub in subsets:
            for add in additions:
                if check_phase([*sub, *add], phase, rules).valid:
                    return extra
    raise AssertionError("no lay-down within the limit")
