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

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import Card, Color, Deck, Suit
from .grouping import group_key, resolve_phase
from .phases import GroupKind, Phase, Requirement
from .rulesets import RuleSet, get_ruleset

__all__ = ["Advice", "GroupAdvice", "advise"]

SET, RUN, COLOR, SUIT = GroupKind.SET, GroupKind.RUN, GroupKind.COLOR, GroupKind.SUIT
_WORDS = {1: "one", 2: "two", 3: "three"}


@dataclass(frozen=True, slots=True)
class GroupAdvice:
    """One group of the advice: the hand cards it uses (table order), what it aims at and what it still lacks.

    ``target`` is the set's number, the colour or suit, or for a run ``(low, high)``; ``None`` when the group has
    no numbered card yet. ``wanted`` lists the numbers a run still lacks (beyond what the hand's wilds fill).
    ``needs_natural`` says one of the missing cards has to be a numbered card.
    """

    requirement: Requirement
    cards: tuple[Card, ...]
    missing: int
    target: int | Color | Suit | tuple[int, int] | None
    wanted: tuple[int, ...]
    needs_natural: bool
    need: str

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
    can be laid down now, with ``groups`` as the lay-down); ``spare`` are the hand cards no group uses."""

    phase: Phase
    groups: tuple[GroupAdvice, ...]
    missing: int
    spare: tuple[Card, ...]
    summary: str

    @property
    def complete(self) -> bool:
        return self.missing == 0

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
    order = sorted(range(len(reqs)), key=lambda i: reqs[i].kind is RUN)
    top = rules.deck.max_rank
    per_group = rules.natural_per_group

    best: list[Any] = [None, None]  # [score, picks]
    picks: list[_Pick | None] = [None for _ in reqs]

    def score() -> tuple[int, int]:
        placed = [len(p.cards) if p else 0 for p in picks]
        deficit = sum(r.size - n for r, n in zip(reqs, placed, strict=True))
        lacking = sum(n == 0 for n in placed) if per_group else int(sum(placed) == 0)
        return max(deficit - len(wilds), lacking), -sum(placed)

    def place(pos: int, remaining: list[Card]) -> None:
        i = order[pos]
        req = reqs[i]
        # Only the groups placed before this one count: later entries of ``picks`` hold an earlier branch.
        earlier = [picks[j] for j in order[:pos]]
        taken_suits = {
            p.target for p in earlier if p is not None and req.kind is SUIT and p.target is not None
        }
        if pos == len(order) - 1:
            picks[i] = _best_last(
                req, remaining, taken_suits if target_phase.distinct_suits else set(), rules
            )
            s = score()
            if best[0] is None or s < best[0]:
                best[0], best[1] = s, list(picks)
            return
        later = [reqs[j].kind for j in order[pos + 1 :]]
        for pick, left in _options(req, remaining, later, rules):
            if target_phase.distinct_suits and req.kind is SUIT and pick.target in taken_suits:
                continue
            picks[i] = pick
            place(pos + 1, left)
        picks[i] = None

    place(0, naturals)
    chosen: list[_Pick] = best[1]
    return _describe(target_phase, chosen, naturals, wilds, hand, rules, top)


def _options(
    req: Requirement, cards: list[Card], later: list[GroupKind], rules: RuleSet
) -> Iterable[tuple[_Pick, list[Card]]]:
    """Every useful choice for a group that is not searched last: which target, and how many of the cards it
    could take (never more than it needs), grouped by what the later groups can tell apart."""
    yield _Pick([], None), list(cards)
    if req.kind is RUN:
        for window in _windows(req.size, rules):
            in_window = set(window)
            per_number: dict[int, dict[tuple[Any, ...], Card]] = {}
            for c in cards:
                if c.number in in_window:
                    per_number.setdefault(c.number, {}).setdefault(tuple(group_key(k, c) for k in later), c)
            choices = [[*classes.values(), None] for classes in per_number.values()]
            for combo in itertools.product(*choices):
                taken = [c for c in combo if c is not None]
                if not taken:
                    continue
                left = list(cards)
                for c in taken:
                    left.remove(c)
                yield _Pick(taken, window, window), left
        return
    by_key: dict[Any, list[Card]] = {}
    for c in cards:
        by_key.setdefault(group_key(req.kind, c), []).append(c)
    for key, eligible in by_key.items():
        classes: dict[tuple[Any, ...], list[Card]] = {}
        for c in eligible:
            classes.setdefault(tuple(group_key(k, c) for k in later), []).append(c)
        groups = list(classes.values())
        for counts in itertools.product(*[range(min(len(g), req.size), -1, -1) for g in groups]):
            total = sum(counts)
            if total == 0 or total > req.size:
                continue
            taken = [c for g, n in zip(groups, counts, strict=True) for c in g[:n]]
            left = [c for c in cards if group_key(req.kind, c) != key]
            left += [c for g, n in zip(groups, counts, strict=True) for c in g[n:]]
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
    phase: Phase,
    chosen: list[_Pick],
    naturals: list[Card],
    wilds: list[Card],
    hand: Sequence[Card],
    rules: RuleSet,
    top: int,
) -> Advice:
    reqs = phase.requirements
    deck = rules.deck
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
        need = _need_words(req, target, missing, wanted, natural_needed, len(cards), deck)
        groups.append(GroupAdvice(req, cards, missing, target, wanted, natural_needed and missing > 0, need))
    spare = list(hand)
    for c in used:
        spare.remove(c)
    missing_total = sum(g.missing for g in groups)
    return Advice(
        phase, tuple(groups), missing_total, tuple(spare), _summary(phase, groups, missing_total, deck)
    )


def _rank_words(number: int, deck: Deck) -> str:
    if deck is Deck.PLAYING and number in (1, 11, 12, 13):
        return {1: "ace", 11: "jack", 12: "queen", 13: "king"}[number]
    return str(number)


def _a(number: int, deck: Deck) -> str:
    word = _rank_words(number, deck)
    return f"{'an' if word[0] in 'a8' or word in ('11', '18') else 'a'} {word}"


def _count(n: int) -> str:
    return _WORDS.get(n, str(n))


def _need_words(
    req: Requirement,
    target: Any,
    missing: int,
    wanted: tuple[int, ...],
    natural_needed: bool,
    have: int,
    deck: Deck,
) -> str:
    if missing == 0:
        return ""
    if target is None:
        if natural_needed and have > 0:
            return (
                "a numbered card" if missing == 1 else f"{_count(missing)} more cards, one of them numbered"
            )
        what = {
            SET: "of one number",
            RUN: "in a row",
            COLOR: "of one colour",
            SUIT: "of one suit",
        }[req.kind]
        return f"{_count(missing)} {'more ' if have else ''}cards {what}"
    if req.kind is SET:
        word = _rank_words(int(target), deck)
        plural = "s" if missing > 1 else ""
        return f"{_count(missing)} more {word}{plural}"
    if req.kind is RUN:
        return " and ".join(_a(n, deck) for n in wanted)
    label = str(target.label)
    if req.kind is COLOR:
        return f"{_count(missing)} more {label} card{'s' if missing > 1 else ''}"
    suit = label if missing > 1 else label.rstrip("s")
    return f"{_count(missing)} more {suit}"


def _group_text(req: Requirement, cards: Sequence[Card], deck: Deck) -> str:
    if not cards:
        return f"nothing toward the {req.noun}"
    if req.kind is SET or req.kind is RUN:
        return " ".join("W" if c.is_wild and deck is Deck.STANDARD else _short(c, deck) for c in cards)
    return " ".join(str(c) for c in cards)


def _short(card: Card, deck: Deck) -> str:
    if card.is_wild:
        return "JK"
    assert card.number is not None
    if deck is Deck.PLAYING:
        return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(card.number, str(card.number))
    return str(card.number)


def _summary(phase: Phase, groups: list[GroupAdvice], missing: int, deck: Deck) -> str:
    have = " and ".join(_group_text(g.requirement, g.cards, deck) for g in groups)
    head = f"{phase.description}: have {have}"
    if missing == 0:
        return f"{head} — complete, it can be laid down"
    lacking = [g for g in groups if g.need]
    if len(lacking) == 1:
        needs = lacking[0].need
    else:
        kinds = [g.requirement.kind for g in groups]
        ordinal = {0: "first ", 1: "second ", 2: "third "}

        def label(g: GroupAdvice) -> str:
            i = groups.index(g)
            kind = g.requirement.kind
            nth = ordinal.get(kinds[:i].count(kind), "") if kinds.count(kind) > 1 else ""
            return f"{nth}{ {SET: 'set', RUN: 'run', COLOR: 'colour group', SUIT: 'suit group'}[kind] }"

        needs = " and ".join(f"{g.need} for the {label(g)}" for g in lacking)
    if any(g.needs_natural for g in groups):
        return f"{head} — need {needs} (wilds alone are no phase)"
    return f"{head} — need {needs}, or {'a wild' if missing == 1 else 'wilds'}"
