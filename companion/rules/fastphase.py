"""The yes-or-no of an ungrouped lay-down decided on counts, without searching how the cards split.

A group that compares one property (set, colour, suit) only cares how many cards of each number, colour or suit
there are; a run only cares which numbers it holds. So a phase of the standard and playing-card lists is settled
by arithmetic on those counts and the number of wilds: which number the set of a set-and-run phase takes (only a
number with copies to spare can be it, so there are at most a few candidates), and whether the wilds cover what
the groups still lack. Wilds are interchangeable, and every phase with a set, colour or suit group can absorb
any number of spare wilds there, so only the wilds the groups need have to be counted.

:func:`decide` answers exactly what the referee's search answers, or ``None`` where it does not apply (cards of
another deck, a Skip, groups given instead of cards, a phase with another shape); the caller then asks the
search. It allocates nothing per card beyond a list of numbers.

>>> from companion.rules.cards import parse_cards
>>> from companion.rules.rulesets import get_ruleset
>>> standard = get_ruleset()
>>> decide(parse_cards("R5 B5 W G8 Y8 W"), standard.phase(1), standard)
True
>>> decide(parse_cards("R5 B5 G6 G8 Y8 W"), standard.phase(1), standard)
False
>>> decide(parse_cards("R5 B5 S G8 Y8 W"), standard.phase(1), standard) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .cards import Card, Deck, Kind
from .phases import GroupKind, Phase
from .rulesets import RuleSet

__all__ = ["decide"]

SET, RUN, COLOR, SUIT = GroupKind.SET, GroupKind.RUN, GroupKind.COLOR, GroupKind.SUIT
_NUMBER, _WILD = Kind.NUMBER, Kind.WILD
_NEVER = 1 << 30

# (cards, their numbers, how many wilds, rules) -> the answer, or None to leave it to the search.
_Plan = Callable[[Sequence[Card], list[int], int, RuleSet], bool | None]

# Keyed by the phase's identity and holding the phase itself, so that an id cannot be reused while its entry
# lives; bounded because callers may build phases on the fly.
_PLANS: dict[int, tuple[Phase, _Plan | None, int]] = {}
_PLAN_LIMIT = 512


def decide(cards: object, phase: Phase, rules: RuleSet) -> bool | None:
    """Whether these cards, put down without grouping, are ``phase`` under ``rules``; ``None`` when this module
    cannot tell and the full search has to."""
    if not isinstance(cards, list | tuple):
        return None
    entry = _PLANS.get(id(phase))
    if entry is None or entry[0] is not phase:
        entry = _remember(phase)
    plan = entry[1]
    if plan is None:
        return None
    deck = rules.deck
    numbers: list[int] = []
    wilds = 0
    for c in cards:
        if type(c) is not Card or c.deck is not deck:
            return None
        kind = c.kind
        if kind is _NUMBER:
            n = c.number
            if n is None:
                return None
            numbers.append(n)
        elif kind is _WILD:
            wilds += 1
        else:
            return None  # a Skip: the full check words the reason
    if not numbers or len(cards) < entry[2]:
        return False
    return plan(cards, numbers, wilds, rules)


def _remember(phase: Phase) -> tuple[Phase, _Plan | None, int]:
    if len(_PLANS) >= _PLAN_LIMIT:
        _PLANS.clear()
    entry = (phase, _plan(phase), phase.min_cards)
    _PLANS[id(phase)] = entry
    return entry


def _plan(phase: Phase) -> _Plan | None:
    reqs = phase.requirements
    kinds = [r.kind for r in reqs]
    if len(reqs) == 1:
        if kinds[0] is RUN:
            return _one_run
        return _one_key(kinds[0])
    if len(reqs) != 2:
        return None
    if kinds[0] is kinds[1] and kinds[0] is not RUN:
        return _two_keys(kinds[0], reqs[0].size, reqs[1].size, kinds[0] is SUIT and phase.distinct_suits)
    if set(kinds) == {SET, RUN}:
        set_size, run_size = (reqs[0].size, reqs[1].size) if kinds[0] is SET else (reqs[1].size, reqs[0].size)
        return _set_and_run(set_size, run_size)
    return None


def _keys(kind: GroupKind, cards: Sequence[Card], numbers: list[int], rules: RuleSet) -> list[Any] | None:
    """What the groups of ``kind`` compare, card by numbered card; ``None`` for suits of a deck without them
    (the full check refuses those groups in words)."""
    if kind is SET:
        return numbers
    if kind is COLOR:
        return [c.color for c in cards if c.kind is _NUMBER]
    if rules.deck is Deck.STANDARD:
        return None
    return [c.suit for c in cards if c.kind is _NUMBER]


def _one_key(kind: GroupKind) -> _Plan:
    def plan(cards: Sequence[Card], numbers: list[int], wilds: int, rules: RuleSet) -> bool | None:
        keys = _keys(kind, cards, numbers, rules)
        if keys is None:
            return None
        return keys.count(keys[0]) == len(keys)

    return plan


def _two_keys(kind: GroupKind, a: int, b: int, distinct: bool) -> _Plan:
    """Two groups of one kind of sizes ``a`` and ``b``: at most two keys; with two, each group takes one."""

    def plan(cards: Sequence[Card], numbers: list[int], wilds: int, rules: RuleSet) -> bool | None:
        keys = _keys(kind, cards, numbers, rules)
        if keys is None:
            return None
        n = len(keys)
        first = keys[0]
        n1 = keys.count(first)
        if n1 == n:
            if distinct:
                # Cards of one suit cannot be shared between suit groups that must differ: one group is all wilds.
                if rules.natural_per_group:
                    return False
                return min(max(0, a - n) + b, a + max(0, b - n)) <= wilds
            # The cards can be shared freely; the total was checked, and each group needs one with the option.
            return n >= 2 or not rules.natural_per_group
        second = first
        for k in keys:
            if k != first:
                second = k
                break
        n2 = keys.count(second)
        if n1 + n2 != n:
            return False
        need = min(max(0, a - n1) + max(0, b - n2), max(0, a - n2) + max(0, b - n1))
        return need <= wilds

    return plan


def _span(mask: int, top: int, wrap: bool) -> int:
    """Length of the shortest stretch of consecutive numbers holding the numbers of this bit mask (not empty)."""
    low = (mask & -mask).bit_length() - 1
    high = mask.bit_length() - 1
    straight = high - low + 1
    if not wrap or low == high:
        return straight
    gap = low + top - high
    previous = low
    for n in range(low + 1, high + 1):
        if mask >> n & 1:
            gap = max(gap, n - previous)
            previous = n
    return top - gap + 1


def _run_need(mask: int, size: int, top: int, wrap: bool) -> int:
    """Wilds a run of at least ``size`` holding exactly these numbers needs; ``_NEVER`` when no run holds them."""
    length = max(size, _span(mask, top, wrap)) if mask else size
    if length > top:
        return _NEVER
    return length - mask.bit_count()


def _one_run(cards: Sequence[Card], numbers: list[int], wilds: int, rules: RuleSet) -> bool | None:
    top = rules.deck.max_rank
    length = len(cards)
    low, high = min(numbers), max(numbers)
    if low < 1 or high > top:
        return None
    if length > top or len(set(numbers)) != len(numbers):
        return False
    if high - low < length:
        return True
    if not rules.wrap_runs:
        return False
    mask = 0
    for n in numbers:
        mask |= 1 << n
    return _span(mask, top, True) <= length


def _set_and_run(a: int, b: int) -> _Plan:
    """A set of at least ``a`` and a run of at least ``b``. The run holds each number at most once, so every
    number with copies to spare is the set's; with none, the set takes one single card or none at all."""

    def plan(cards: Sequence[Card], numbers: list[int], wilds: int, rules: RuleSet) -> bool | None:
        top = rules.deck.max_rank
        if min(numbers) < 1 or max(numbers) > top:
            return None
        seen = repeated = 0
        for n in numbers:
            bit = 1 << n
            if seen & bit:
                if repeated and not repeated & bit:
                    return False  # two numbers with copies to spare, and only one set
                repeated = bit
            seen |= bit
        wrap = rules.wrap_runs
        per_group = rules.natural_per_group
        if repeated:
            copies = numbers.count(repeated.bit_length() - 1)
            # Either the run takes one of the copies, or the set takes them all.
            need = max(0, a - copies + 1) + _run_need(seen, b, top, wrap)
            rest = seen ^ repeated
            if rest or not per_group:
                need = min(need, max(0, a - copies) + _run_need(rest, b, top, wrap))
            return need <= wilds
        need = _NEVER if per_group else a + _run_need(seen, b, top, wrap)
        if len(numbers) == 1 and per_group:
            return False
        if wrap:
            candidates = seen
        else:
            # Without wrap-around only the lowest and highest number change the run's span by leaving it; all
            # numbers in between leave the same span behind.
            lowest = seen & -seen
            highest = 1 << (seen.bit_length() - 1)
            inner = seen ^ lowest ^ highest if lowest != highest else 0
            candidates = lowest | highest | (inner & -inner)
        while candidates:
            bit = candidates & -candidates
            candidates ^= bit
            need = min(need, max(0, a - 1) + _run_need(seen ^ bit, b, top, wrap))
        return need <= wilds

    return plan
