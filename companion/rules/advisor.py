"""The hand advisor: the best arrangement of a hand toward a phase and the cards still missing.

Exact, not a heuristic: it searches every target for each group (the number of a set, the colour or suit of a
colour or suit group, the stretch of numbers of a run) and every useful split of the cards two groups both want,
and returns an arrangement that needs the fewest further cards. Any missing card may be a wild instead, except
that a phase needs a numbered card (001), so a hand of wilds only still needs one.

>>> from companion.rules.cards import parse_cards
>>> advise(parse_cards("R5 B5 W G8 Y8 R11"), 1).summary
'two sets of 3: have 5 5 W and 8 8 — need one more 8, or a wild'
>>> a = advise(parse_cards("R3 B4 G6 W Y9 Y9 B9"), 2)
>>> a.missing, a.complete, [str(c) for c in a.spare]
(0, True, [])
>>> advise(parse_cards("W W W W W W"), 1).summary
'two sets of 3: have W W and W W W — need a numbered card (wilds alone are no phase)'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import Card, Color, Deck, Suit
from .grouping import group_key, resolve_phase
from .phases import GroupKind, Phase, Requirement
from .rulesets import RuleSet, get_ruleset
from .splitting import key_picks, run_picks, split
from .wording import advice_need, advice_summary

__all__ = ["Advice", "GroupAdvice", "advise"]

SET, RUN, COLOR, SUIT = GroupKind.SET, GroupKind.RUN, GroupKind.COLOR, GroupKind.SUIT


@dataclass(frozen=True, slots=True)
class GroupAdvice:
    """One group of the advice: the hand cards it uses (table order), what it aims at and what it still lacks.

    ``target`` is the set's number, the colour or suit, or for a run ``(low, high)``; ``None`` when the group has
    no numbered card yet. ``wanted`` lists the numbers a run still lacks (beyond what the hand's wilds fill).
    ``needs_natural`` says one of the missing cards has to be a numbered card. ``need`` words what is missing
    (:func:`~companion.rules.wording.advice_need`).
    """

    requirement: Requirement
    cards: tuple[Card, ...]
    missing: int
    target: int | Color | Suit | tuple[int, int] | None
    wanted: tuple[int, ...]
    needs_natural: bool
    deck: Deck

    @property
    def need(self) -> str:
        return advice_need(self, self.deck)

    def to_dict(self) -> dict[str, Any]:
        target: Any = self.target
        if isinstance(target, Color | Suit):
            target = target.label
        elif isinstance(target, tuple):
            target = list(target)
        return {
            "kind": self.requirement.kind.value,
            "size": self.requirement.size,
            "cards": [str(c) for c in self.cards],
            "target": target,
            "missing": self.missing,
            "wanted": list(self.wanted),
            "need": self.need,
        }


@dataclass(frozen=True, slots=True)
class Advice:
    """The best arrangement of a hand toward a phase. ``missing`` is how many more cards it takes (0: the phase
    can be laid down now, with ``groups`` as the lay-down); ``spare`` are the hand cards no group uses;
    ``summary`` says it in one line (:func:`~companion.rules.wording.advice_summary`)."""

    phase: Phase
    groups: tuple[GroupAdvice, ...]
    missing: int
    spare: tuple[Card, ...]
    deck: Deck

    @property
    def complete(self) -> bool:
        return self.missing == 0

    @property
    def summary(self) -> str:
        return advice_summary(self)

    def lay_down(self) -> tuple[tuple[Card, ...], ...]:
        """The groups as they would go on the table (only a valid phase when ``complete``)."""
        return tuple(g.cards for g in self.groups)

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase.number,
            "phase_description": self.phase.description,
            "complete": self.complete,
            "missing": self.missing,
            "summary": self.summary,
            "groups": [g.to_dict() for g in self.groups],
            "spare": [str(c) for c in self.spare],
        }


@dataclass(slots=True)
class _Pick:
    cards: list[Card]
    target: Any
    window: tuple[int, ...] = ()


def advise(hand: Sequence[Card], phase: Phase | int, rules: RuleSet | None = None) -> Advice:
    """The arrangement of ``hand`` that needs the fewest further cards to make ``phase``; ties go to the one
    that uses more numbered cards (keeping wilds free). ``ValueError`` for a phase not in the game.

    >>> from companion.rules.cards import parse_cards
    >>> advise(parse_cards("R3 B4 G7 Y12 R12"), 2).summary
    'one set of 3 and one run of 4: have 12 12 and 3 4 — need one more 12 for the set and a 1 and a 2 for the run, or wilds'
    >>> advise(parse_cards("R3 B3 G7 Y12"), 1).summary
    'two sets of 3: have 3 3 and 7 — need one more 3 for the first set and two more 7s for the second set, or wilds'
    """
    rules = rules or get_ruleset()
    target_phase = resolve_phase(phase, rules)
    reqs = target_phase.requirements
    naturals = sorted((c for c in hand if c.is_natural), key=lambda c: c.number or 0)
    wilds = [c for c in hand if c.is_wild]
    per_group = rules.natural_per_group

    def score(picks: Sequence[_Pick]) -> tuple[int, int]:
        placed = [len(p.cards) for p in picks]
        deficit = sum(r.size - n for r, n in zip(reqs, placed, strict=True))
        lacking = sum(n == 0 for n in placed) if per_group else int(sum(placed) == 0)
        return max(deficit - len(wilds), lacking), -sum(placed)

    def taken_suits(req: Requirement, earlier: list[_Pick]) -> set[Any]:
        if not target_phase.distinct_suits or req.kind is not SUIT:
            return set()
        return {p.target for p in earlier if p.target is not None}

    def choices(
        index: int, cards: list[Card], later: list[GroupKind], earlier: list[_Pick]
    ) -> Iterator[tuple[_Pick, list[Card]]]:
        req = reqs[index]
        banned = taken_suits(req, earlier)
        for pick, left in _options(req, cards, later, rules):
            if pick.target not in banned:
                yield pick, left

    def last(index: int, cards: list[Card], earlier: list[_Pick]) -> _Pick:
        req = reqs[index]
        return _best_last(req, cards, taken_suits(req, earlier), rules)

    best: tuple[tuple[int, int], list[_Pick]] | None = None
    for picks in split(reqs, naturals, choices, last):
        s = score(picks)
        if best is None or s < best[0]:
            best = (s, list(picks))
    assert best is not None
    return _describe(target_phase, best[1], wilds, hand, rules)


def _options(
    req: Requirement, cards: list[Card], later: list[GroupKind], rules: RuleSet
) -> Iterable[tuple[_Pick, list[Card]]]:
    """Every useful choice for a group that is not searched last: which target, and how many of the cards it
    could take (never more than it needs), grouped by what the later groups can tell apart."""
    yield _Pick([], None), list(cards)
    if req.kind is RUN:
        for window in _windows(req.size, rules):
            for taken, left in run_picks(cards, later, window):
                if taken:
                    yield _Pick(taken, window, window), left
        return
    for key, taken, left in key_picks(req.kind, cards, later, most=req.size):
        yield _Pick(taken, key), left


def _windows(size: int, rules: RuleSet) -> list[tuple[int, ...]]:
    top = rules.deck.max_rank
    if size > top:
        return []
    starts = range(1, top + 1) if rules.wrap_runs and size < top else range(1, top - size + 2)
    return [tuple((a - 1 + j) % top + 1 for j in range(size)) for a in starts]


def _best_last(req: Requirement, cards: list[Card], banned: set[Any], rules: RuleSet) -> _Pick:
    """The last group simply takes the most it can: nothing later competes for its cards."""
    if req.kind is RUN:
        first: dict[int, Card] = {}
        for c in cards:
            if c.number is not None:
                first.setdefault(c.number, c)
        best = _Pick([], None)
        for window in _windows(req.size, rules):
            taken = [first[n] for n in window if n in first]
            if len(taken) > len(best.cards):
                best = _Pick(taken, window, window)
        return best
    by_key: dict[Any, list[Card]] = {}
    for c in cards:
        key = group_key(req.kind, c)
        if key not in banned:
            by_key.setdefault(key, []).append(c)
    if not by_key:
        return _Pick([], None)
    key = max(by_key, key=lambda k: min(len(by_key[k]), req.size))
    return _Pick(by_key[key][: req.size], key)


def _describe(
    phase: Phase, chosen: list[_Pick], wilds: list[Card], hand: Sequence[Card], rules: RuleSet
) -> Advice:
    reqs = phase.requirements
    any_natural = any(p.cards for p in chosen)
    needs_natural = [
        not p.cards and (rules.natural_per_group or (not any_natural and i == 0))
        for i, p in enumerate(chosen)
    ]
    wilds_left = len(wilds)
    groups: list[GroupAdvice] = []
    used: list[Card] = []
    for req, pick, natural_needed in zip(reqs, chosen, needs_natural, strict=True):
        deficit = req.size - len(pick.cards)
        # A group that lacks a numbered card keeps one open place for it.
        give = min(wilds_left, max(0, deficit - int(natural_needed)))
        wilds_left -= give
        own_wilds = wilds[len(wilds) - wilds_left - give : len(wilds) - wilds_left]
        missing = deficit - give
        wanted: tuple[int, ...] = ()
        if req.kind is RUN and pick.window:
            present = {c.number: c for c in pick.cards}
            holes = [n for n in pick.window if n not in present]
            filled, wanted = holes[:give], tuple(holes[give:])
            wild_for = dict(zip(filled, own_wilds, strict=True))
            cards = tuple(present.get(n) or wild_for[n] for n in pick.window if n in present or n in wild_for)
        elif req.kind is SET or req.kind is RUN:
            cards = (*pick.cards, *own_wilds)
        else:
            cards = (*sorted(pick.cards, key=lambda c: c.number or 0), *own_wilds)
        used.extend(cards)
        target: int | Color | Suit | tuple[int, int] | None = pick.target
        if req.kind is RUN and pick.window:
            target = (pick.window[0], pick.window[-1])
        groups.append(
            GroupAdvice(req, cards, missing, target, wanted, natural_needed and missing > 0, rules.deck)
        )
    spare = list(hand)
    for c in used:
        spare.remove(c)
    return Advice(phase, tuple(groups), sum(g.missing for g in groups), tuple(spare), rules.deck)
