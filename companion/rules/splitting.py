"""The search that splits numbered cards among the groups of a phase, written once for the referee (is there a
split the wilds can complete?) and the advisor (which split needs the fewest further cards?).

Groups that compare one property (set, colour, suit) are placed first and runs last. The last group takes what
is left, so the search branches only on what the earlier groups take; within that, cards that look the same to
every later group are interchangeable, so only how many of each sort a group takes is enumerated (a run takes at
most one card of a number, so only which sort of each number). :func:`split` walks those choices depth first;
each caller says what a group may take (:func:`key_picks`, :func:`run_picks`) and how the last group is filled.
The plain-cards fast path of the referee (:mod:`.fastphase`) decides most lay-downs before any search.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from .cards import Card
from .grouping import group_key
from .phases import GroupKind, Requirement

__all__ = ["key_picks", "run_picks", "search_order", "split"]

P = TypeVar("P")

# What an earlier group took, for the choices of the next one; later groups' entries are not passed.
Choices = Callable[[int, list[Card], list[GroupKind], list[P]], Iterable[tuple[P, list[Card]]]]
Last = Callable[[int, list[Card], list[P]], P | None]


def search_order(reqs: Sequence[Requirement]) -> list[int]:
    """The order the groups are searched in: every group that compares one property, then the runs."""
    return sorted(range(len(reqs)), key=lambda i: reqs[i].kind is GroupKind.RUN)


def split(
    reqs: Sequence[Requirement], cards: list[Card], choices: Choices[P], last: Last[P]
) -> Iterator[list[P]]:
    """Every split of ``cards`` among ``reqs``, depth first in :func:`search_order`, as one pick per
    requirement (in requirement order).

    ``choices(index, cards, later, earlier)`` gives, for a group that is not searched last, each pick with the
    cards it leaves; ``later`` are the kinds of the groups searched after it and ``earlier`` the picks of the
    groups searched before it. ``last(index, cards, earlier)`` fills the last group from what is left, or says
    ``None`` to prune the branch. The list yielded is reused for the next split: copy it to keep it."""
    order = search_order(reqs)
    picks: list[Any] = [None] * len(reqs)

    def place(pos: int, remaining: list[Card]) -> Iterator[list[P]]:
        index = order[pos]
        earlier = [picks[j] for j in order[:pos]]
        if pos == len(order) - 1:
            pick = last(index, remaining, earlier)
            if pick is not None:
                picks[index] = pick
                yield picks
            return
        later = [reqs[j].kind for j in order[pos + 1 :]]
        for pick, left in choices(index, remaining, later, earlier):
            picks[index] = pick
            yield from place(pos + 1, left)
        picks[index] = None

    yield from place(0, cards)


def _sorts(cards: Iterable[Card], later: Sequence[GroupKind]) -> list[list[Card]]:
    """The cards grouped by what every later group compares between them: cards of one sort are interchangeable."""
    classes: dict[tuple[Any, ...], list[Card]] = {}
    for c in cards:
        classes.setdefault(tuple(group_key(k, c) for k in later), []).append(c)
    return list(classes.values())


def key_picks(
    kind: GroupKind,
    cards: list[Card],
    later: Sequence[GroupKind],
    *,
    most: int | None = None,
    largest_first: bool = False,
) -> Iterator[tuple[Any, list[Card], list[Card]]]:
    """Every non-empty choice of cards of one number, colour or suit for a group of ``kind``, as ``(key, taken,
    left)``: for each key, how many of each sort, from all of them down. ``most`` caps what one group takes
    (the advisor never gives a group more than it needs); ``largest_first`` tries the keys with the most cards
    first (the usual lay-down takes all cards of one number into the set), else in the order the cards come."""
    by_key: dict[Any, list[Card]] = {}
    for c in cards:
        by_key.setdefault(group_key(kind, c), []).append(c)
    keys = sorted(by_key, key=lambda k: -len(by_key[k])) if largest_first else list(by_key)
    for key in keys:
        others = [c for c in cards if group_key(kind, c) != key]
        sorts = _sorts(by_key[key], later)
        top = [len(s) if most is None else min(len(s), most) for s in sorts]
        for counts in itertools.product(*[range(n, -1, -1) for n in top]):
            total = sum(counts)
            if total == 0 or (most is not None and total > most):
                continue
            taken = [c for s, n in zip(sorts, counts, strict=True) for c in s[:n]]
            left = others + [c for s, n in zip(sorts, counts, strict=True) for c in s[n:]]
            yield key, taken, left


def run_picks(
    cards: list[Card], later: Sequence[GroupKind], numbers: Iterable[int] | None = None
) -> Iterator[tuple[list[Card], list[Card]]]:
    """Every choice of cards for a run, as ``(taken, left)``: for each number (of ``numbers`` when given, a
    window of the run), one card of one sort or none; the empty choice comes last."""
    allowed = None if numbers is None else set(numbers)
    by_number: dict[int | None, dict[tuple[Any, ...], Card]] = {}
    for c in cards:
        if allowed is None or c.number in allowed:
            by_number.setdefault(c.number, {}).setdefault(tuple(group_key(k, c) for k in later), c)
    options: list[list[Card | None]] = [[*sorts.values(), None] for sorts in by_number.values()]
    for combo in itertools.product(*options):
        taken = [c for c in combo if c is not None]
        left = list(cards)
        for c in taken:
            left.remove(c)
        yield taken, left
