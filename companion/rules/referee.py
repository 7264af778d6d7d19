"""The lay-down check: is this the phase, and how do the cards lie?

Two ways to ask. Grouped: the player says which cards form which group, each group in table order (a run
ascending), and the referee checks it as typed. Ungrouped: a flat pile of cards, and the referee finds an
arrangement if one exists. Either way the answer is a :class:`Verdict` with the arrangement and, when the
lay-down is not valid, a reason a player can read.

>>> from companion.rules.cards import parse_cards, parse_groups
>>> v = check_phase(parse_groups("R7 B7 G7 | G3 Y4 R5 B6"), 2)
>>> v.valid, [str(g) for g in v.groups]
(True, ['R7 B7 G7', 'G3 Y4 R5 B6'])
>>> check_phase(parse_groups("R7 B7 G7 | G3 Y4 R6 B7"), 2).reason
'the run G3 Y4 R6 B7 has a gap at 5'
>>> run_of_4 = Phase(0, (Requirement(GroupKind.RUN, 4),), "one run of 4")
>>> check_phase(parse_cards("R11 B12 W W"), run_of_4).groups[0].values
(9, 10, 11, 12)
>>> check_phase(parse_groups("W W R2 B3"), run_of_4).reason
'the run W W R2 B3 would need a wild to stand for 0; runs go from 1 to 12 and do not wrap around'
>>> check_phase(parse_cards("W W R2 B3"), run_of_4).groups[0].values
(1, 2, 3, 4)
>>> check_phase(parse_cards("R5 B5 W S G8 Y8 R8"), 1).reason
'a Skip can never be part of a phase'

Exceptions: :class:`WrongDeckError` when a card comes from another deck than the rule set's;
:class:`InvalidGroupError` (an :class:`IllegalPlayError`) from :func:`make_group` when typed cards are not a group
of the kind named; ``ValueError`` for a phase number that is not in the game.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from .advisor import advise
from .cards import Card, Color, Deck, Suit
from .fastphase import decide
from .grouping import group_key, resolve_phase
from .phases import GroupKind, Phase, Requirement
from .refusals import Refusal
from .rulesets import RuleSet, get_ruleset

__all__ = [
    "IllegalPlayError",
    "InvalidGroupError",
    "LaidGroup",
    "Verdict",
    "WrongDeckError",
    "check_phase",
    "group_key",
    "is_valid_phase",
    "make_group",
    "no_corner_text",
    "rank_text",
    "require_deck",
    "resolve_phase",
    "run_span",
    "run_text",
]

SKIP_REASON = "a Skip can never be part of a phase"
NATURAL_REASON = "a phase needs at least one numbered card; wilds alone are no phase"
_UNBOUNDED = 1 << 30

# 001: no wrap-around from 12 to 1 unless agreed; 004: "Ace is always low", no Q-K-A.
_NO_CORNER = {
    Deck.STANDARD: "runs do not wrap around unless your group plays that house rule",
    Deck.PLAYING: "the ace is always low, so a run cannot go on from the king to the ace",
}

SET, RUN, COLOR, SUIT = GroupKind.SET, GroupKind.RUN, GroupKind.COLOR, GroupKind.SUIT

# Rule sets are frozen, so the default one is built once rather than on every check.
_STANDARD = get_ruleset()


class IllegalPlayError(ValueError):
    """A play the rules do not allow. ``reason`` says why in words a player understands."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidGroupError(IllegalPlayError):
    """Cards typed as a group (for example the group a hit goes onto) that are not a group of that kind.

    >>> from companion.rules.cards import parse_cards
    >>> make_group(GroupKind.SET, parse_cards("R5 B5 G7"))
    Traceback (most recent call last):
    ...
    companion.rules.referee.InvalidGroupError: the set R5 B5 G7 mixes 5 and 7; a set is cards of one number
    """


class WrongDeckError(ValueError):
    """A card from another deck than the one the rule set plays with (a joker in a standard game)."""


@dataclass(frozen=True, slots=True)
class LaidGroup:
    """One group on the table.

    ``cards`` are in table order (a run ascending). ``values`` gives, card by card, the number it counts as: for
    sets and runs what each wild stands for (``None`` only while a group is all wilds and nothing fixes it), for
    colour and suit groups the printed number (``None`` for a wild). ``color`` / ``suit`` name the colour or suit
    of a colour or suit group (``None`` for a group of wilds only).
    """

    kind: GroupKind
    cards: tuple[Card, ...]
    values: tuple[int | None, ...]
    color: Color | None = None
    suit: Suit | None = None

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    @property
    def number(self) -> int | None:
        """The number of a set (``None`` for a set of wilds only, or for other kinds)."""
        return self.values[0] if self.kind is SET and self.values else None

    @property
    def low(self) -> int | None:
        """The first number of a run in table order (``None`` for other kinds or a run of wilds only)."""
        return self.values[0] if self.kind is RUN and self.values else None

    @property
    def high(self) -> int | None:
        """The last number of a run in table order."""
        return self.values[-1] if self.kind is RUN and self.values else None

    def wild_values(self) -> list[tuple[int, int | str | None]]:
        """``(index, what the wild stands for)`` for every wild in the group."""
        out: list[tuple[int, int | str | None]] = []
        for i, (card, value) in enumerate(zip(self.cards, self.values, strict=True)):
            if not card.is_wild:
                continue
            if self.kind is COLOR:
                out.append((i, self.color.label if self.color else None))
            elif self.kind is SUIT:
                out.append((i, self.suit.label if self.suit else None))
            else:
                out.append((i, value))
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: cards in our notation and what each wild stands for.

        >>> from companion.rules.cards import parse_cards
        >>> make_group(GroupKind.RUN, parse_cards("W R4 B5 G6")).to_dict()
        {'kind': 'run', 'cards': ['W', 'R4', 'B5', 'G6'], 'wilds': [{'index': 0, 'as': 3}], 'low': 3, 'high': 6}
        """
        out: dict[str, Any] = {
            "kind": self.kind.value,
            "cards": [str(c) for c in self.cards],
            "wilds": [{"index": i, "as": v} for i, v in self.wild_values()],
        }
        if self.kind is SET:
            out["number"] = self.number
        elif self.kind is RUN:
            out["low"], out["high"] = self.low, self.high
        elif self.kind is COLOR:
            out["color"] = self.color.label if self.color else None
        else:
            out["suit"] = self.suit.label if self.suit else None
        return out


@dataclass(frozen=True, slots=True)
class Verdict:
    """The referee's answer; true when the lay-down is valid. ``groups`` is the arrangement in the phase's
    requirement order (empty when invalid); ``reason`` says why not, ``code`` which refusal that is."""

    valid: bool
    reason: str | None
    groups: tuple[LaidGroup, ...] = ()
    phase: Phase | None = None
    code: Refusal | None = None

    def __bool__(self) -> bool:
        return self.valid

    def require(self) -> Verdict:
        """This verdict if valid; otherwise raises :class:`IllegalPlayError` with the reason.

        >>> from companion.rules.cards import parse_cards
        >>> check_phase(parse_cards("R5 B5 R5 G8 G8 G9"), 1).require()
        Traceback (most recent call last):
        ...
        companion.rules.referee.IllegalPlayError: two sets of 3 can hold only 2 numbers; these cards have 5, 8 and 9
        """
        if not self.valid:
            raise IllegalPlayError(self.reason or "not a valid phase")
        return self

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "valid": self.valid,
            "reason": self.reason,
            "code": None if self.code is None else str(self.code),
            "groups": [g.to_dict() for g in self.groups],
        }
        if self.phase is not None:
            out["phase"] = self.phase.number
            out["phase_description"] = self.phase.description
        return out


# --------------------------------------------------------------------------------------------- wording


def rank_text(number: int, deck: Deck) -> str:
    """How a number is printed on a card of this deck (A, J, Q, K for playing cards)."""
    if deck is Deck.PLAYING:
        return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(number, str(number))
    return str(number)


def run_text(low: int, high: int, deck: Deck) -> str:
    """How the numbers of a run read: '3-6', and with ranks for playing cards, '10-K', 'A-5'.

    >>> run_text(3, 6, Deck.STANDARD), run_text(10, 13, Deck.PLAYING), run_text(1, 5, Deck.PLAYING)
    ('3-6', '10-K', 'A-5')
    """
    return f"{rank_text(low, deck)}-{rank_text(high, deck)}"


def no_corner_text(deck: Deck) -> str:
    """Why a run does not turn the corner from the last number to the first, for this deck (001, 004)."""
    return _NO_CORNER[deck]


def _join(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def _cards_text(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def _count_words(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _counted_keys(kind: GroupKind, naturals: Sequence[Card], deck: Deck) -> str:
    """'6 red and 1 blue' for colours and suits, '5, 7 and 9' for numbers."""
    counts: dict[Any, int] = {}
    for c in naturals:
        counts[group_key(kind, c)] = counts.get(group_key(kind, c), 0) + 1
    if kind is SET or kind is RUN:
        return _join([rank_text(k, deck) for k in sorted(counts)])
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].label))
    return _join([f"{n} {k.label}" for k, n in ordered])


# --------------------------------------------------------------------------------------------- groups


def require_deck(cards: Iterable[Card], deck: Deck) -> None:
    """Raise :class:`WrongDeckError` for a card that is not in ``deck`` (a joker in a standard game)."""
    for c in cards:
        if c.is_skip:
            if deck is Deck.PLAYING:
                raise WrongDeckError("there are no Skip cards in the playing-card game")
        elif c.deck is not deck:
            raise WrongDeckError(f"{c} is not a card of the {deck.value} deck")


def make_group(kind: GroupKind | str, cards: Sequence[Card], rules: RuleSet | None = None) -> LaidGroup:
    """The group these cards make as laid, in table order; raises :class:`InvalidGroupError` with the reason
    when they are not a group of that kind (and :class:`WrongDeckError` for a card of another deck).
    ``kind`` may be given by name: ``"set"``, ``"run"``, ``"color"`` or ``"suit"``.

    >>> from companion.rules.cards import parse_cards
    >>> make_group(GroupKind.RUN, parse_cards("R3 R4 R6 R7"))
    Traceback (most recent call last):
    ...
    companion.rules.referee.InvalidGroupError: the run R3 R4 R6 R7 has a gap at 5
    >>> make_group(GroupKind.SET, parse_cards("R5 W B5")).values
    (5, 5, 5)
    >>> make_group("color", parse_cards("G2 W G9")).color
    <Color.GREEN: 'G'>
    """
    rules = rules or _STANDARD
    if isinstance(kind, str):
        try:
            kind = GroupKind(kind.lower())
        except ValueError:
            raise ValueError(f"a group is a set, run, color or suit, not {kind!r}") from None
    cards = tuple(cards)
    require_deck(cards, rules.deck)
    if not cards:
        raise InvalidGroupError("a group needs at least one card")
    if any(c.is_skip for c in cards):
        raise InvalidGroupError(SKIP_REASON)
    if kind is SUIT and rules.deck is Deck.STANDARD:
        raise InvalidGroupError(
            "Phase 10 cards have colours, not suits; suit groups belong to the playing-card game"
        )
    if kind is RUN:
        return _make_run(cards, rules)
    naturals = [c for c in cards if c.is_natural]
    keys = {group_key(kind, c) for c in naturals}
    if len(keys) > 1:
        text = _cards_text(cards)
        if kind is SET:
            raise InvalidGroupError(
                f"the set {text} mixes {_counted_keys(kind, naturals, rules.deck)}; a set is cards of one number"
            )
        main = max(keys, key=lambda k: (sum(group_key(kind, c) == k for c in naturals), k.label))
        strays = [c for c in naturals if group_key(kind, c) != main]
        noun = "colour" if kind is COLOR else "suit"
        raise InvalidGroupError(
            f"the cards {text} are not all one {noun}: {_counted_keys(kind, naturals, rules.deck)}"
            f" ({_cards_text(strays)} {'is' if len(strays) == 1 else 'are'} not {main.label})"
        )
    key = next(iter(keys), None)
    if kind is SET:
        return LaidGroup(SET, cards, tuple(key for _ in cards))
    values = tuple(c.number for c in cards)
    if kind is COLOR:
        return LaidGroup(COLOR, cards, values, color=key)
    return LaidGroup(SUIT, cards, values, suit=key)


def _make_run(cards: tuple[Card, ...], rules: RuleSet) -> LaidGroup:
    top = rules.deck.max_rank
    deck = rules.deck
    # The text of the cards is only needed for a refusal, so it is not built for a good run.
    if len(cards) > top:
        raise InvalidGroupError(f"a run can hold at most {top} cards; {_cards_text(cards)} has {len(cards)}")
    numbered = [(i, c.number) for i, c in enumerate(cards) if c.number is not None]
    if not numbered:
        return LaidGroup(RUN, cards, tuple(None for _ in cards))
    # The first numbered card fixes what every other place stands for (000: wilds keep that value).
    start = numbered[0][1] - numbered[0][0]
    for (pi, pv), (ci, cv) in itertools.pairwise(numbered):
        expected = start + ci
        if rules.wrap_runs:
            if (expected - cv) % top:
                shown = rank_text((expected - 1) % top + 1, deck)
                raise InvalidGroupError(
                    f"the run {_cards_text(cards)} is not consecutive:"
                    f" the {rank_text(cv, deck)} stands where a {shown} belongs"
                )
        elif cv != expected:
            raise InvalidGroupError(_run_order_reason(_cards_text(cards), (pi, pv), (ci, cv), deck))
    if rules.wrap_runs:
        return LaidGroup(RUN, cards, tuple((start + i - 1) % top + 1 for i in range(len(cards))))
    bad = [start + i for i in range(len(cards)) if not 1 <= start + i <= top]
    if bad:
        raise InvalidGroupError(_beyond_reason(_cards_text(cards), bad, deck))
    return LaidGroup(RUN, cards, tuple(start + i for i in range(len(cards))))


def _beyond_reason(text: str, bad: Sequence[int], deck: Deck) -> str:
    """A run typed so that its wilds would stand below the first number or above the last."""
    top = deck.max_rank
    if deck is Deck.PLAYING:
        # Playing cards have no card 0 or 14 to name, so say where the wilds would fall instead.
        below = sum(b < 1 for b in bad)
        sides = [
            f"{'a wild' if n == 1 else f'{n} wilds'} {where}"
            for n, where in ((below, "below the ace"), (len(bad) - below, "above the king"))
            if n
        ]
        return (
            f"the run {text} would need {' and '.join(sides)}; runs go from A to K, and the ace is always low"
        )
    return (
        f"the run {text} would need {'a wild' if len(bad) == 1 else 'wilds'} to stand for"
        f" {_join([str(b) for b in bad])}; runs go from 1 to {top} and do not wrap around"
    )


def _run_order_reason(text: str, previous: tuple[int, int], current: tuple[int, int], deck: Deck) -> str:
    (pi, pv), (ci, cv) = previous, current
    expected = pv + (ci - pi)
    if cv == pv:
        return f"a run cannot hold two {rank_text(cv, deck)}s ({text})"
    if cv > expected:
        missing = [rank_text(n, deck) for n in range(expected, cv)]
        where = missing[0] if len(missing) == 1 else f"{missing[0]} to {missing[-1]}"
        return f"the run {text} has a gap at {where}"
    if cv < pv and cv == (pv + ci - pi - 1) % deck.max_rank + 1:
        corner = f"{rank_text(deck.max_rank, deck)} to {rank_text(1, deck)}"
        return f"the run {text} goes round the corner from {corner}; {_NO_CORNER[deck]}"
    if cv > pv:
        return (
            f"in the run {text} there is no room for {_count_words(ci - pi - 1, 'wild')}"
            f" between the {rank_text(pv, deck)} and the {rank_text(cv, deck)}"
        )
    return (
        f"a run is laid in ascending order; in {text} the {rank_text(cv, deck)}"
        f" comes after the {rank_text(pv, deck)}"
    )


# --------------------------------------------------------------------------------------------- phases


def check_phase(
    cards: Sequence[Card] | Sequence[Sequence[Card]],
    phase: Phase | int,
    rules: RuleSet | None = None,
) -> Verdict:
    """Is this lay-down the phase? ``cards`` is a flat sequence (the referee finds an arrangement) or a sequence
    of groups, each in table order. ``phase`` is a :class:`Phase` or a phase number of ``rules`` (standard if
    not given).

    Rules applied: every card put down belongs to a group, and groups may be longer than the minimum but no
    extra group may be added (000); the two sets of a phase may share a number (001); runs are consecutive
    inside 1-12 (1-13 for playing cards) without wrap-around unless ``rules.wrap_runs`` (001); wilds stand for
    any number or colour; at least one numbered card in the phase (001), in every group with
    ``rules.natural_per_group``; a Skip is never part of a phase (000, 001).

    >>> from companion.rules.cards import parse_cards
    >>> check_phase(parse_cards("R5 B5 W G8 Y8 W"), 1).valid
    True
    >>> check_phase(parse_cards("W W W W W W"), 1).reason
    'a phase needs at least one numbered card; wilds alone are no phase'
    >>> check_phase(parse_cards("R1 R2 R3 R4 R5 R6 B7"), 8).reason
    '7 cards of one colour: these are 6 red and 1 blue'
    >>> check_phase([parse_cards("R1 R1 R1")], 1).reason
    'phase 1 is two sets of 3: that is 2 groups, and 1 group was laid'
    >>> check_phase(parse_cards("R1 R1 R1"), 11)
    Traceback (most recent call last):
    ...
    ValueError: there is no phase 11 in this game (phases 1 to 10)
    """
    rules = rules or _STANDARD
    target = resolve_phase(phase, rules)
    known = decide(cards, target, rules)
    if known is not None:
        # Plain cards of the right deck and no Skip: the counts said whether; the search is only run to lay
        # out a valid lay-down, and the reason is worded without it.
        return _check_ungrouped(cast(Sequence[Card], cards), target, rules, known)
    items: list[object] = list(cards)
    flat = [c for c in items if isinstance(c, Card)]
    if items and len(flat) == len(items):
        return _check_ungrouped(flat, target, rules)
    if flat:
        raise TypeError("give either cards or groups of cards, not a mixture")
    groups: list[tuple[Card, ...]] = []
    for g in items:
        if not isinstance(g, Sequence) or not all(isinstance(c, Card) for c in g):
            raise TypeError("a group is a sequence of cards")
        groups.append(tuple(c for c in g if isinstance(c, Card)))
    if not groups:
        return _check_ungrouped([], target, rules)
    return _check_grouped(groups, target, rules)


def is_valid_phase(
    cards: Sequence[Card] | Sequence[Sequence[Card]], phase: Phase | int, rules: RuleSet | None = None
) -> bool:
    """``check_phase(...).valid``, without laying the cards out or wording a reason: for plain cards of the
    phase lists' shapes it is decided on counts of numbers, colours or suits and wilds (:mod:`.fastphase`).

    >>> from companion.rules.cards import parse_cards, parse_groups
    >>> is_valid_phase(parse_cards("R5 B6 W G8"), Phase(0, (Requirement(GroupKind.RUN, 4),), "one run of 4"))
    True
    >>> is_valid_phase(parse_groups("R5 B5 W | G8 Y8 W"), 1), is_valid_phase(parse_cards("R5 B5 W G8 Y8 G9"), 1)
    (True, False)
    """
    rules = rules or _STANDARD
    target = resolve_phase(phase, rules)
    known = decide(cards, target, rules)
    if known is None:
        return check_phase(cards, target, rules).valid
    return known


def _invalid(reason: str, phase: Phase, code: Refusal) -> Verdict:
    return Verdict(False, reason, (), phase, code)


def _check_grouped(groups: list[tuple[Card, ...]], phase: Phase, rules: RuleSet) -> Verdict:
    for g in groups:
        require_deck(g, rules.deck)
    if any(c.is_skip for g in groups for c in g):
        return _invalid(SKIP_REASON, phase, Refusal.SKIP_IN_PHASE)
    reqs = phase.requirements
    if not all(groups):
        return _invalid("one of the groups has no cards", phase, Refusal.NO_CARDS)
    if len(groups) != len(reqs):
        more = ""
        if len(groups) > len(reqs):
            more = "; more cards may only be added to the groups of the phase, not as a new group"
        return _invalid(
            f"phase {phase.number} is {phase.description}: that is {_count_words(len(reqs), 'group')},"
            f" and {_count_words(len(groups), 'group')} {'was' if len(groups) == 1 else 'were'} laid{more}",
            phase,
            Refusal.GROUP_COUNT,
        )
    if not any(c.is_natural for g in groups for c in g):
        return _invalid(NATURAL_REASON, phase, Refusal.NO_NATURAL)
    best: tuple[int, str] | None = None
    for perm in itertools.permutations(range(len(groups))):
        laid: list[LaidGroup] = []
        problems: list[str] = []
        for req, group_index in zip(reqs, perm, strict=True):
            problem = _group_problem(req, groups[group_index], rules, laid)
            if problem:
                problems.append(problem)
        if not problems:
            suits_problem = _distinct_suits_problem(laid, phase)
            if suits_problem is None:
                return Verdict(True, None, tuple(laid), phase)
            problems.append(suits_problem)
        if best is None or len(problems) < best[0]:
            best = (len(problems), problems[0])
    assert best is not None
    return _invalid(best[1], phase, Refusal.GROUP_INVALID)


def _group_problem(req: Requirement, cards: tuple[Card, ...], rules: RuleSet, laid: list[LaidGroup]) -> str:
    try:
        group = make_group(req.kind, cards, rules)
    except InvalidGroupError as exc:
        return exc.reason
    if len(cards) < req.size:
        return f"a {req.noun} needs at least {req.size} cards; {_cards_text(cards)} is {len(cards)}"
    if rules.natural_per_group and not any(c.is_natural for c in cards):
        return f"with one numbered card per group, the {req.kind.value} {_cards_text(cards)} needs a numbered card"
    laid.append(group)
    return ""


def _distinct_suits_problem(laid: Sequence[LaidGroup], phase: Phase) -> str | None:
    if not phase.distinct_suits:
        return None
    suits = [g.suit for g in laid if g.kind is SUIT and g.suit is not None]
    if len(set(suits)) == len(suits):
        return None
    return f"{phase.description}: both groups are {suits[0].label}; they must be of different suits"


# --------------------------------------------------------------------------------------------- ungrouped


@dataclass(frozen=True, slots=True)
class _Fit:
    need: int  # wilds this group needs at least
    cap: int  # wilds this group can take at most


def _fit(kind: GroupKind, size: int, naturals: Sequence[Card], top: int, wrap: bool) -> _Fit | None:
    """How many wilds a group of these numbered cards needs and can take; ``None`` if they make no such group.

    The wilds a group can take form an interval: a set, colour or suit group takes any number beyond what it
    lacks; a run takes enough to close its gaps and reach its size, and at most what keeps it inside the
    numbers (a window of any length from its span up to the top number can be slid over its cards).
    """
    n = len(naturals)
    if kind is not RUN:
        if n > 1:
            first = group_key(kind, naturals[0])
            for c in naturals:
                if group_key(kind, c) != first:
                    return None
        return _Fit(max(0, size - n), _UNBOUNDED)
    if n == 0:
        return _Fit(size, top) if size <= top else None
    numbers = sorted(c.number for c in naturals if c.number is not None)
    for a, b in itertools.pairwise(numbers):
        if a == b:
            return None
    length = max(size, run_span(numbers, top, wrap))
    if length > top:
        return None
    return _Fit(length - n, top - n)


def run_span(numbers: Sequence[int], top: int, wrap: bool) -> int:
    """Length of the shortest stretch of consecutive numbers that holds these distinct, sorted numbers.

    >>> run_span([3, 4, 7], 12, False), run_span([1, 2, 11, 12], 12, True), run_span([1, 2, 11, 12], 12, False)
    (5, 4, 12)
    """
    straight = numbers[-1] - numbers[0] + 1
    if not wrap or len(numbers) < 2:
        return straight
    biggest_gap = max(max(b - a for a, b in itertools.pairwise(numbers)), numbers[0] + top - numbers[-1])
    return top - biggest_gap + 1


def _by_number(card: Card) -> int:
    """Sort key that keeps cards of one number in the order they were given."""
    return card.number or 0


def _solve(naturals: list[Card], wilds: int, phase: Phase, rules: RuleSet) -> list[list[Card]] | None:
    """Split the numbered cards among the phase's groups so that the wilds can fill them, or ``None``. Exact.

    Groups that compare one property (set, colour, suit) are placed first and runs last. The last group takes
    whatever is left, so the search only branches on what the earlier groups take; within that, cards that look
    the same to every later group are interchangeable, so only how many of each sort is enumerated. Wilds are
    interchangeable too: a split works when the wilds needed add up to at most the wilds there are, and the
    wilds the groups can take add up to at least that.
    """
    reqs = phase.requirements
    order = sorted(range(len(reqs)), key=lambda i: reqs[i].kind is RUN)
    per_group = rules.natural_per_group
    top, wrap = rules.deck.max_rank, rules.wrap_runs
    chosen: list[list[Card]] = [[] for _ in reqs]
    fits: list[_Fit] = [_Fit(0, 0) for _ in reqs]

    def complete() -> bool:
        if sum(f.cap for f in fits) < wilds:
            return False
        if phase.distinct_suits:
            suits = [chosen[i][0].suit for i, r in enumerate(reqs) if r.kind is SUIT and chosen[i]]
            if len(set(suits)) != len(suits):
                return False
        return True

    def place(pos: int, remaining: list[Card], need_so_far: int) -> bool:
        i = order[pos]
        req = reqs[i]
        if pos == len(order) - 1:
            if per_group and not remaining:
                return False
            fit = _fit(req.kind, req.size, remaining, top, wrap)
            if fit is None or need_so_far + fit.need > wilds:
                return False
            chosen[i], fits[i] = remaining, fit
            return complete()
        later = [reqs[j].kind for j in order[pos + 1 :]]
        for taken, left in _picks(req.kind, remaining, later):
            if per_group and not taken:
                continue
            fit = _fit(req.kind, req.size, taken, top, wrap)
            if fit is None or need_so_far + fit.need > wilds:
                continue
            chosen[i], fits[i] = taken, fit
            if place(pos + 1, left, need_so_far + fit.need):
                return True
        return False

    if not place(0, sorted(naturals, key=_by_number), 0):
        return None
    return chosen


def _picks(
    kind: GroupKind, cards: list[Card], later: list[GroupKind]
) -> Iterator[tuple[list[Card], list[Card]]]:
    """Every choice of cards, as (taken, left), for a group of ``kind`` that is not placed last."""
    if kind is RUN:
        yield from _run_picks(cards, later)
        return
    by_key: dict[Any, list[Card]] = {}
    for c in cards:
        by_key.setdefault(group_key(kind, c), []).append(c)
    # Largest sorts first: the usual lay-down takes all cards of one number into the set.
    for key in sorted(by_key, key=lambda k: -len(by_key[k])):
        others = [c for c in cards if group_key(kind, c) != key]
        classes: dict[tuple[Any, ...], list[Card]] = {}
        for c in by_key[key]:
            classes.setdefault(tuple(group_key(k, c) for k in later), []).append(c)
        sorts = list(classes.values())
        for counts in itertools.product(*[range(len(s), -1, -1) for s in sorts]):
            if not any(counts):
                continue
            taken = [c for s, n in zip(sorts, counts, strict=True) for c in s[:n]]
            left = others + [c for s, n in zip(sorts, counts, strict=True) for c in s[n:]]
            yield taken, left
    yield [], list(cards)


def _run_picks(cards: list[Card], later: list[GroupKind]) -> Iterator[tuple[list[Card], list[Card]]]:
    by_number: dict[int | None, dict[tuple[Any, ...], Card]] = {}
    for c in cards:
        by_number.setdefault(c.number, {}).setdefault(tuple(group_key(k, c) for k in later), c)
    options: list[list[Card | None]] = [[*sorts.values(), None] for sorts in by_number.values()]
    for combo in itertools.product(*options):
        taken = [c for c in combo if c is not None]
        left = list(cards)
        for c in taken:
            left.remove(c)
        yield taken, left


def _check_ungrouped(
    cards: Sequence[Card], phase: Phase, rules: RuleSet, known: bool | None = None
) -> Verdict:
    """``known``: what :func:`.fastphase.decide` answered for these cards (it has then seen every card is of
    the deck and none a Skip), ``None`` when it was not asked."""
    if known is None:
        require_deck(cards, rules.deck)
        if any(c.is_skip for c in cards):
            return _invalid(SKIP_REASON, phase, Refusal.SKIP_IN_PHASE)
    naturals = [c for c in cards if c.is_natural]
    wilds = len(cards) - len(naturals)
    if not cards:
        return _invalid("no cards were put down", phase, Refusal.NO_CARDS)
    if not naturals:
        return _invalid(NATURAL_REASON, phase, Refusal.NO_NATURAL)
    if len(cards) < phase.min_cards:
        return _invalid(
            f"phase {phase.number} ({phase.description}) needs at least {phase.min_cards} cards;"
            f" these are {len(cards)}",
            phase,
            Refusal.NOT_THE_PHASE,
        )
    chosen = None if known is False else _solve(naturals, wilds, phase, rules)
    if chosen is None:
        return _invalid(_explain(naturals, wilds, phase, rules), phase, Refusal.NOT_THE_PHASE)
    return Verdict(True, None, _arrange(chosen, wilds, phase, rules), phase)


def _arrange(chosen: list[list[Card]], wilds: int, phase: Phase, rules: RuleSet) -> tuple[LaidGroup, ...]:
    """Lay a solved split out on the table: each group gets the wilds it needs; spare wilds go to a group that
    takes any number of them (set, colour, suit), else to runs with room."""
    reqs = phase.requirements
    top, wrap = rules.deck.max_rank, rules.wrap_runs
    fits = [_fit(r.kind, r.size, chosen[i], top, wrap) or _Fit(0, 0) for i, r in enumerate(reqs)]
    counts = [f.need for f in fits]
    spare = wilds - sum(counts)
    for unbounded_first in (True, False):
        for i, f in enumerate(fits):
            if spare > 0 and unbounded_first == (f.cap >= _UNBOUNDED):
                extra = min(spare, f.cap - counts[i])
                counts[i] += extra
                spare -= extra
    wild = Card.wild(rules.deck)
    return tuple(_build(r.kind, chosen[i], counts[i], wild, rules) for i, r in enumerate(reqs))


def _build(kind: GroupKind, naturals: list[Card], wilds: int, wild: Card, rules: RuleSet) -> LaidGroup:
    if kind is not RUN:
        return make_group(kind, [*sorted(naturals, key=_by_number), *[wild] * wilds], rules)
    top = rules.deck.max_rank
    length = len(naturals) + wilds
    if not naturals:
        return make_group(RUN, [wild] * wilds, rules)
    by_number = {c.number: c for c in naturals}
    numbers = sorted(n for n in by_number if n is not None)
    # Spare wilds go below the lowest numbered card while there is room (W W 2 3 makes 1-4), then on top.
    if rules.wrap_runs:
        start = numbers[0]
        if len(numbers) > 1:
            # The run starts after the widest gap between neighbours, counted round the corner.
            gaps = [(b - a, b) for a, b in itertools.pairwise(numbers)]
            gaps.append((numbers[0] + top - numbers[-1], numbers[0]))
            start = max(gaps, key=lambda g: g[0])[1]
        start -= length - run_span(numbers, top, True)
    else:
        start = max(1, numbers[-1] - length + 1)
    values = [(start - 1 + j) % top + 1 for j in range(length)]
    return make_group(RUN, [by_number.get(v, wild) for v in values], rules)


def _explain(naturals: list[Card], wilds: int, phase: Phase, rules: RuleSet) -> str:
    """Why numbered cards and wilds that passed the simple checks make no arrangement of the phase."""
    reqs = phase.requirements
    deck = rules.deck
    if len(reqs) == 1:
        req = reqs[0]
        if req.kind is RUN:
            return _explain_run(naturals, wilds, rules)
        if req.kind is SET:
            return f"a set is cards of one number; these cards have {_counted_keys(SET, naturals, deck)}"
        return f"{req.noun}: these are {_counted_keys(req.kind, naturals, deck)}"
    kinds = {r.kind for r in reqs}
    if len(kinds) == 1 and RUN not in kinds:
        kind = reqs[0].kind
        keys = {group_key(kind, c) for c in naturals}
        if len(keys) > len(reqs):
            what = {SET: "numbers", COLOR: "colours", SUIT: "suits"}[kind]
            return (
                f"{phase.description} can hold only {len(reqs)} {what};"
                f" these cards have {_counted_keys(kind, naturals, deck)}"
            )
        if phase.distinct_suits and kind is SUIT and len(keys) == 1:
            (only,) = keys
            return f"{phase.description} needs two different suits; the numbered cards are all {only.label}"
    if rules.natural_per_group and len(naturals) < len(reqs):
        return f"with one numbered card per group, {phase.description} needs {len(reqs)} numbered cards"

    advice = advise([*naturals, *[Card.wild(deck)] * wilds], phase, rules)
    if advice.missing == 0:
        return (
            f"{phase.description} can be made from these cards only with {_cards_text(advice.spare)} left over;"
            " every card put down must belong to a group of the phase"
        )
    left = (
        f"; {_cards_text(advice.spare)} fit{'s' if len(advice.spare) == 1 else ''} nowhere"
        if advice.spare
        else ""
    )
    return f"this is not {advice.summary}{left}"


def _explain_run(naturals: list[Card], wilds: int, rules: RuleSet) -> str:
    deck = rules.deck
    top = deck.max_rank
    seen: dict[int, Card] = {}
    for c in naturals:
        assert c.number is not None
        if c.number in seen:
            return f"a run cannot hold two {rank_text(c.number, deck)}s ({seen[c.number]} and {c})"
        seen[c.number] = c
    if len(naturals) + wilds > top:
        return f"a run can hold at most {top} cards; these are {len(naturals) + wilds}"
    numbers = sorted(seen)
    have = " ".join(rank_text(n, deck) for n in numbers)
    if not rules.wrap_runs and run_span(numbers, top, True) <= len(numbers) + wilds:
        corner = f"{rank_text(top, deck)} to {rank_text(1, deck)}"
        return f"the numbers {have} make a run only round the corner from {corner}; {_NO_CORNER[deck]}"
    holes = run_span(numbers, top, rules.wrap_runs) - len(numbers)
    if rules.wrap_runs:
        gaps = _count_words(holes, "number")
    else:
        gaps = _join([rank_text(n, deck) for n in range(numbers[0], numbers[-1] + 1) if n not in seen])
    wild_text = "no wild" if wilds == 0 else f"only {_count_words(wilds, 'wild')}"
    return f"the numbers {have} leave gaps at {gaps}, and there {'are' if wilds > 1 else 'is'} {wild_text} to fill them"
