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
from .splitting import key_picks, run_picks, search_order, split
from .wording import Reason, reason

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
    "require_deck",
    "resolve_phase",
    "run_span",
]

SKIP = reason(Refusal.SKIP_IN_PHASE)
NO_NATURAL = reason(Refusal.NO_NATURAL)
_UNBOUNDED = 1 << 30

SET, RUN, COLOR, SUIT = GroupKind.SET, GroupKind.RUN, GroupKind.COLOR, GroupKind.SUIT

# Rule sets are frozen, so the default one is built once rather than on every check.
_STANDARD = get_ruleset()


class IllegalPlayError(ValueError):
    """A play the rules do not allow. ``why`` says why as a :class:`~companion.rules.wording.Reason`,
    ``reason`` in English words a player understands."""

    def __init__(self, why: Reason) -> None:
        self.why = why
        self.reason = str(why)
        super().__init__(self.reason)


class InvalidGroupError(IllegalPlayError):
    """Cards typed as a group (for example the group a hit goes onto) that are not a group of that kind.

    >>> from companion.rules.cards import parse_cards
    >>> make_group(GroupKind.SET, parse_cards("R5 B5 G7"))
    Traceback (most recent call last):
    ...
    companion.rules.referee.InvalidGroupError: the set R5 B5 G7 mixes 5 and 7; a set is cards of one number
    """


class WrongDeckError(ValueError):
    """A card from another deck than the one the rule set plays with (a joker in a standard game); ``why`` says
    which."""

    def __init__(self, why: Reason) -> None:
        self.why = why
        super().__init__(str(why))


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
    requirement order (empty when invalid); ``code`` says which refusal it is when not valid and ``why`` what
    it concerns (:mod:`.wording` words it; ``reason`` is the English sentence)."""

    valid: bool
    why: Reason | None = None
    groups: tuple[LaidGroup, ...] = ()
    phase: Phase | None = None
    code: Refusal | None = None

    def __bool__(self) -> bool:
        return self.valid

    @property
    def reason(self) -> str | None:
        return None if self.why is None else str(self.why)

    def require(self) -> Verdict:
        """This verdict if valid; otherwise raises :class:`IllegalPlayError` with the reason.

        >>> from companion.rules.cards import parse_cards
        >>> check_phase(parse_cards("R5 B5 R5 G8 G8 G9"), 1).require()
        Traceback (most recent call last):
        ...
        companion.rules.referee.IllegalPlayError: two sets of 3 can hold only 2 numbers; these cards have 5, 8 and 9
        """
        if not self.valid:
            raise IllegalPlayError(self.why or reason("not_a_valid_phase"))
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


# --------------------------------------------------------------------------------------------- groups


def require_deck(cards: Iterable[Card], deck: Deck) -> None:
    """Raise :class:`WrongDeckError` for a card that is not in ``deck`` (a joker in a standard game)."""
    for c in cards:
        if c.is_skip:
            if deck is Deck.PLAYING:
                raise WrongDeckError(reason("no_skip_in_playing_cards"))
        elif c.deck is not deck:
            raise WrongDeckError(reason(Refusal.WRONG_DECK, card=c, deck=deck))


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
        raise InvalidGroupError(reason("group_empty"))
    if any(c.is_skip for c in cards):
        raise InvalidGroupError(SKIP)
    if kind is SUIT and rules.deck is Deck.STANDARD:
        raise InvalidGroupError(reason("no_suits"))
    if kind is RUN:
        return _make_run(cards, rules)
    naturals = [c for c in cards if c.is_natural]
    keys = {group_key(kind, c) for c in naturals}
    if len(keys) > 1:
        if kind is SET:
            raise InvalidGroupError(
                reason("set_mixes", cards=cards, naturals=tuple(naturals), deck=rules.deck)
            )
        main = max(keys, key=lambda k: (sum(group_key(kind, c) == k for c in naturals), k.label))
        strays = tuple(c for c in naturals if group_key(kind, c) != main)
        raise InvalidGroupError(
            reason(
                "not_one_colour" if kind is COLOR else "not_one_suit",
                cards=cards,
                naturals=tuple(naturals),
                strays=strays,
                main=main,
                deck=rules.deck,
            )
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
    if len(cards) > top:
        raise InvalidGroupError(reason("run_too_long", cards=cards, deck=deck))
    numbered = [(i, c.number) for i, c in enumerate(cards) if c.number is not None]
    if not numbered:
        return LaidGroup(RUN, cards, tuple(None for _ in cards))
    # The first numbered card fixes what every other place stands for (000: wilds keep that value).
    start = numbered[0][1] - numbered[0][0]
    for (pi, pv), (ci, cv) in itertools.pairwise(numbered):
        expected = start + ci
        if rules.wrap_runs:
            if (expected - cv) % top:
                raise InvalidGroupError(
                    reason(
                        "run_not_consecutive",
                        cards=cards,
                        number=cv,
                        belongs=(expected - 1) % top + 1,
                        deck=deck,
                    )
                )
        elif cv != expected:
            raise InvalidGroupError(_run_order_reason(cards, (pi, pv), (ci, cv), deck))
    if rules.wrap_runs:
        return LaidGroup(RUN, cards, tuple((start + i - 1) % top + 1 for i in range(len(cards))))
    bad = [start + i for i in range(len(cards)) if not 1 <= start + i <= top]
    if bad:
        below = sum(b < 1 for b in bad)
        raise InvalidGroupError(
            reason(
                "run_beyond", cards=cards, below=below, above=len(bad) - below, numbers=tuple(bad), deck=deck
            )
        )
    return LaidGroup(RUN, cards, tuple(start + i for i in range(len(cards))))


def _run_order_reason(
    cards: tuple[Card, ...], previous: tuple[int, int], current: tuple[int, int], deck: Deck
) -> Reason:
    (pi, pv), (ci, cv) = previous, current
    expected = pv + (ci - pi)
    if cv == pv:
        return reason("run_repeats", cards=cards, number=cv, deck=deck)
    if cv > expected:
        return reason("run_gap", cards=cards, low=expected, high=cv - 1, deck=deck)
    if cv < pv and cv == (pv + ci - pi - 1) % deck.max_rank + 1:
        return reason("run_round_corner", cards=cards, deck=deck)
    if cv > pv:
        return reason("run_no_room_between", cards=cards, wilds=ci - pi - 1, low=pv, high=cv, deck=deck)
    return reason("run_descending", cards=cards, number=cv, after=pv, deck=deck)


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


def _invalid(why: Reason, phase: Phase, code: Refusal) -> Verdict:
    return Verdict(False, why, (), phase, code)


def _check_grouped(groups: list[tuple[Card, ...]], phase: Phase, rules: RuleSet) -> Verdict:
    for g in groups:
        require_deck(g, rules.deck)
    if any(c.is_skip for g in groups for c in g):
        return _invalid(SKIP, phase, Refusal.SKIP_IN_PHASE)
    reqs = phase.requirements
    if not all(groups):
        return _invalid(reason("group_without_cards"), phase, Refusal.NO_CARDS)
    if len(groups) != len(reqs):
        return _invalid(
            reason(Refusal.GROUP_COUNT, phase=phase, laid=len(groups)), phase, Refusal.GROUP_COUNT
        )
    if not any(c.is_natural for g in groups for c in g):
        return _invalid(NO_NATURAL, phase, Refusal.NO_NATURAL)
    best: tuple[int, Reason] | None = None
    for perm in itertools.permutations(range(len(groups))):
        laid: list[LaidGroup] = []
        problems: list[Reason] = []
        for req, group_index in zip(reqs, perm, strict=True):
            problem = _group_problem(req, groups[group_index], rules, laid)
            if problem is not None:
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


def _group_problem(
    req: Requirement, cards: tuple[Card, ...], rules: RuleSet, laid: list[LaidGroup]
) -> Reason | None:
    try:
        group = make_group(req.kind, cards, rules)
    except InvalidGroupError as exc:
        return exc.why
    if len(cards) < req.size:
        return reason("group_too_small", requirement=req, cards=cards)
    if rules.natural_per_group and not any(c.is_natural for c in cards):
        return reason("group_needs_natural", kind=req.kind, cards=cards)
    laid.append(group)
    return None


def _distinct_suits_problem(laid: Sequence[LaidGroup], phase: Phase) -> Reason | None:
    if not phase.distinct_suits:
        return None
    suits = [g.suit for g in laid if g.kind is SUIT and g.suit is not None]
    if len(set(suits)) == len(suits):
        return None
    return reason("same_suits", phase=phase, suit=suits[0])


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

    The search is :func:`.splitting.split`; here a group may take any number of cards of its key (groups may be
    longer than the phase asks), and a split works when the wilds needed add up to at most the wilds there are,
    and the wilds the groups can take add up to at least that (wilds are interchangeable).
    """
    reqs = phase.requirements
    per_group = rules.natural_per_group
    top, wrap = rules.deck.max_rank, rules.wrap_runs

    def need(earlier: list[tuple[list[Card], _Fit]]) -> int:
        return sum(fit.need for _, fit in earlier)

    def choices(
        index: int, cards: list[Card], later: list[GroupKind], earlier: list[tuple[list[Card], _Fit]]
    ) -> Iterator[tuple[tuple[list[Card], _Fit], list[Card]]]:
        req = reqs[index]
        so_far = need(earlier)
        for taken, left in _picks(req.kind, cards, later):
            if per_group and not taken:
                continue
            fit = _fit(req.kind, req.size, taken, top, wrap)
            if fit is not None and so_far + fit.need <= wilds:
                yield (taken, fit), left

    def last(
        index: int, cards: list[Card], earlier: list[tuple[list[Card], _Fit]]
    ) -> tuple[list[Card], _Fit] | None:
        req = reqs[index]
        if per_group and not cards:
            return None
        fit = _fit(req.kind, req.size, cards, top, wrap)
        if fit is None or need(earlier) + fit.need > wilds:
            return None
        if sum(f.cap for _, f in earlier) + fit.cap < wilds:
            return None
        if phase.distinct_suits:
            chosen = [*earlier, (cards, fit)]
            suits = [
                taken[0].suit
                for (taken, _), r in zip(chosen, _searched(reqs), strict=True)
                if r is SUIT and taken
            ]
            if len(set(suits)) != len(suits):
                return None
        return cards, fit

    found = next(split(reqs, sorted(naturals, key=_by_number), choices, last), None)
    return None if found is None else [taken for taken, _ in found]


def _searched(reqs: Sequence[Requirement]) -> list[GroupKind]:
    """The kinds of the groups in the order the search places them."""
    return [reqs[i].kind for i in search_order(reqs)]


def _picks(
    kind: GroupKind, cards: list[Card], later: list[GroupKind]
) -> Iterator[tuple[list[Card], list[Card]]]:
    """Every choice of cards, as (taken, left), for a group of ``kind`` that is not placed last."""
    if kind is RUN:
        yield from run_picks(cards, later)
        return
    for _key, taken, left in key_picks(kind, cards, later, largest_first=True):
        yield taken, left
    yield [], list(cards)


def _check_ungrouped(
    cards: Sequence[Card], phase: Phase, rules: RuleSet, known: bool | None = None
) -> Verdict:
    """``known``: what :func:`.fastphase.decide` answered for these cards (it has then seen every card is of
    the deck and none a Skip), ``None`` when it was not asked."""
    if known is None:
        require_deck(cards, rules.deck)
        if any(c.is_skip for c in cards):
            return _invalid(SKIP, phase, Refusal.SKIP_IN_PHASE)
    naturals = [c for c in cards if c.is_natural]
    wilds = len(cards) - len(naturals)
    if not cards:
        return _invalid(reason(Refusal.NO_CARDS), phase, Refusal.NO_CARDS)
    if not naturals:
        return _invalid(NO_NATURAL, phase, Refusal.NO_NATURAL)
    if len(cards) < phase.min_cards:
        return _invalid(reason("too_few_cards", phase=phase, count=len(cards)), phase, Refusal.NOT_THE_PHASE)
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


def _explain(naturals: list[Card], wilds: int, phase: Phase, rules: RuleSet) -> Reason:
    """Why numbered cards and wilds that passed the simple checks make no arrangement of the phase."""
    reqs = phase.requirements
    deck = rules.deck
    if len(reqs) == 1:
        req = reqs[0]
        if req.kind is RUN:
            return _explain_run(naturals, wilds, rules)
        if req.kind is SET:
            return reason("not_a_set", naturals=tuple(naturals), deck=deck)
        return reason("not_one_key", requirement=req, naturals=tuple(naturals), deck=deck)
    kinds = {r.kind for r in reqs}
    if len(kinds) == 1 and RUN not in kinds:
        kind = reqs[0].kind
        keys = {group_key(kind, c) for c in naturals}
        if len(keys) > len(reqs):
            return reason("too_many_keys", phase=phase, naturals=tuple(naturals), deck=deck)
        if phase.distinct_suits and kind is SUIT and len(keys) == 1:
            (only,) = keys
            return reason("needs_two_suits", phase=phase, suit=only)
    if rules.natural_per_group and len(naturals) < len(reqs):
        return reason("needs_naturals", phase=phase)

    advice = advise([*naturals, *[Card.wild(deck)] * wilds], phase, rules)
    if advice.missing == 0:
        return reason("cards_left_over", phase=phase, spare=advice.spare)
    return reason("not_yet", advice=advice, spare=advice.spare)


def _explain_run(naturals: list[Card], wilds: int, rules: RuleSet) -> Reason:
    deck = rules.deck
    top = deck.max_rank
    seen: dict[int, Card] = {}
    for c in naturals:
        assert c.number is not None
        if c.number in seen:
            return reason("run_two_of", first=seen[c.number], second=c, deck=deck)
        seen[c.number] = c
    if len(naturals) + wilds > top:
        return reason("run_too_many", count=len(naturals) + wilds, deck=deck)
    numbers = sorted(seen)
    if not rules.wrap_runs and run_span(numbers, top, True) <= len(numbers) + wilds:
        return reason("only_round_corner", numbers=tuple(numbers), deck=deck)
    holes = run_span(numbers, top, rules.wrap_runs) - len(numbers)
    missing = (
        None if rules.wrap_runs else tuple(n for n in range(numbers[0], numbers[-1] + 1) if n not in seen)
    )
    return reason("run_gaps", numbers=tuple(numbers), holes=missing, count=holes, wilds=wilds, deck=deck)
