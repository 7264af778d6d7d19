"""Hits: adding cards from the hand to a group already on the table.

A set takes its number or a wild; a run takes the next numbers at either end, inside the numbers of the
deck; a colour or suit group takes its colour or suit or a wild (001 "Hitting", 000 "HITTING").

The cards of one hit are judged together, in whatever order makes them fit (000: "a player may add a '2' to a
player's existing run of '3', '4', '5', '6' - the player may also add a '7', and an '8'"; 001: "A Wild card
can be added anywhere it fits"): a run 3-6 takes R8 R7 as well as R7 R8. A wild goes to the end the player
names for it, else to the top while there is room, else to the bottom; when it could have gone elsewhere, the
verdict says where it went. Wilds keep the value they were laid as (000), so the group's numbers never shift.
A Skip never joins a phase (000, 001), and a player hits only after laying down their own phase (001). A hit
is all or nothing.

>>> from companion.rules.cards import parse_cards
>>> run = make_group(GroupKind.RUN, parse_cards("R9 B10 G11"))
>>> str(check_hit(run, parse_cards("R12 Y8"), get_ruleset()).group)
'Y8 R9 B10 G11 R12'
>>> check_hit(run, parse_cards("R7"), get_ruleset()).reason
'the run R9 B10 G11 takes an 8 or a 12, not a 7'
>>> check_hit(make_group(GroupKind.SET, parse_cards("R12 B12 G12")), parse_cards("Y8"), get_ruleset()).reason
'the set of 12s takes only 12s or wilds, not an 8'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from . import wording
from .cards import Card
from .phases import GroupKind
from .referee import SKIP, IllegalPlayError, LaidGroup, make_group, require_deck
from .refusals import Refusal
from .rulesets import RuleSet, get_ruleset
from .wording import Reason, reason

__all__ = ["End", "HitPlacement", "HitVerdict", "apply_hit", "check_hit"]

End = Literal["low", "high"]


@dataclass(frozen=True, slots=True)
class HitPlacement:
    """Where one added card went: ``end``, the end of a run (``None`` for other groups), and ``value``, what
    it counts as: a number in a set or run (``None`` for a card in a run of wilds only), the colour or suit
    label in a colour or suit group."""

    card: Card
    end: End | None
    value: int | str | None

    def text(self) -> str:
        """'W as 2 (low end)', 'R7 (high end)', 'W as 4', 'G4'."""
        return wording.placement(self)

    def to_dict(self) -> dict[str, Any]:
        return {"card": str(self.card), "end": self.end, "as": self.value}


@dataclass(frozen=True, slots=True)
class HitVerdict:
    """The answer to a hit: ``legal``, why not (``code`` and ``why``; ``reason`` in English), and ``group``,
    the group after the hit (the group as it was when the hit is refused). ``placed`` says, card by card in the
    order given, where each added card went (empty when refused); ``chosen`` says which placement was chosen
    when the cards also fit another way (a wild that could have gone to either end), ``note`` in English."""

    legal: bool
    why: Reason | None
    group: LaidGroup
    placed: tuple[HitPlacement, ...] = ()
    chosen: Reason | None = None
    code: Refusal | None = None

    def __bool__(self) -> bool:
        return self.legal

    @property
    def reason(self) -> str | None:
        return None if self.why is None else str(self.why)

    @property
    def note(self) -> str | None:
        return None if self.chosen is None else str(self.chosen)

    @property
    def description(self) -> str:
        """Where the added cards went, in the order given: 'W as 2 (low end), R7 (high end)'."""
        return wording.placements(self.placed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "reason": self.reason,
            "code": None if self.code is None else str(self.code),
            "group": [str(c) for c in self.group.cards],
            "laid": self.group.to_dict(),
            "placed": [p.to_dict() for p in self.placed],
            "note": self.note,
        }


def check_hit(
    group: LaidGroup,
    cards: Sequence[Card],
    rules: RuleSet | None = None,
    *,
    end: End | None = None,
    ends: Sequence[End | None] | Mapping[int, End | None] | None = None,
    phase_down: bool = True,
) -> HitVerdict:
    """Add ``cards`` to ``group``, all of them or none, in any order that fits.

    ``ends`` names the end of a run a card goes to, card by card: a sequence aligned with ``cards`` (``None``
    where the player names no end) or a mapping from a card's index to its end. ``end`` names the end for
    every wild that ``ends`` leaves open. A wild with no end named goes to the top while the top has room.
    Other groups have no ends, so ends are ignored there. ``phase_down`` says whether the player's own phase
    is on the table this round. Bad input (a card of another deck, an unknown end, an index out of range)
    raises ``ValueError``.

    >>> from companion.rules.cards import parse_cards
    >>> laid = make_group(GroupKind.RUN, parse_cards("W R4 R5 R6"))  # the wild was laid as the 3
    >>> check_hit(laid, parse_cards("B3"), get_ruleset()).reason
    'the run W R4 R5 R6 takes a 2 or a 7, not a 3'
    >>> check_hit(laid, parse_cards("W"), get_ruleset(), end="low").group.values
    (2, 3, 4, 5, 6)
    >>> v = check_hit(laid, parse_cards("W R7"), get_ruleset())
    >>> v.description
    'W as 8 (high end), R7 (high end)'
    >>> v.note
    'W as 8 (high end) — a wild with no end named goes to the top; W as 2 (low end) would fit too'
    >>> check_hit(laid, parse_cards("W R7"), get_ruleset(), ends=["low", None]).description
    'W as 2 (low end), R7 (high end)'
    >>> check_hit(laid, parse_cards("B7"), get_ruleset(), phase_down=False).reason
    'you must lay down your own phase before you can hit'
    """
    rules = rules or get_ruleset()
    if not cards:
        raise ValueError("name at least one card to hit with")
    wanted = _card_ends(cards, end, ends)
    require_deck(cards, rules.deck)
    if not phase_down:
        return HitVerdict(False, reason(Refusal.PHASE_NOT_DOWN), group, code=Refusal.PHASE_NOT_DOWN)
    if any(c.is_skip for c in cards):
        return HitVerdict(False, SKIP, group, code=Refusal.SKIP_IN_PHASE)
    if group.kind is GroupKind.RUN:
        return _hit_run(group, tuple(cards), wanted, rules)
    current = group
    for card in cards:
        try:
            current = _add(current, card, rules)
        except IllegalPlayError as exc:
            return HitVerdict(False, exc.why, group, code=Refusal.DOES_NOT_FIT)
    return HitVerdict(True, None, current, _placed_in(current, cards))


def apply_hit(
    group: LaidGroup,
    cards: Sequence[Card],
    rules: RuleSet | None = None,
    *,
    end: End | None = None,
    ends: Sequence[End | None] | Mapping[int, End | None] | None = None,
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
    verdict = check_hit(group, cards, rules, end=end, ends=ends, phase_down=phase_down)
    if not verdict.legal:
        raise IllegalPlayError(verdict.why or reason("not_a_legal_hit"))
    return verdict.group


def _check_end(value: object) -> End | None:
    if value is None:
        return None
    if value == "low":
        return "low"
    if value == "high":
        return "high"
    raise ValueError(f"the end of a run is 'low' or 'high', not {value!r}")


def _card_ends(
    cards: Sequence[Card],
    end: End | None,
    ends: Sequence[End | None] | Mapping[int, End | None] | None,
) -> tuple[End | None, ...]:
    """The end named for each card: its own, else ``end`` for a wild."""
    every_wild = _check_end(end)
    named: list[End | None] = [None] * len(cards)
    if isinstance(ends, Mapping):
        for index, value in ends.items():
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(cards):
                raise ValueError(
                    f"an end is named for card {index!r}, but the cards are 0 to {len(cards) - 1}"
                )
            named[index] = _check_end(value)
    elif ends is not None:
        if isinstance(ends, str) or len(ends) != len(cards):
            raise ValueError("name one end (or none) for each card hit with")
        named = [_check_end(value) for value in ends]
    return tuple(
        e if e is not None or not c.is_wild else every_wild for c, e in zip(cards, named, strict=True)
    )


def _placed_in(group: LaidGroup, cards: Sequence[Card]) -> tuple[HitPlacement, ...]:
    """Placements for cards added to a set, colour or suit group: no ends; the group's number, colour or
    suit."""
    if group.kind is GroupKind.SET:
        value: int | str | None = group.number
    elif group.kind is GroupKind.COLOR:
        value = group.color.label if group.color else None
    else:
        value = group.suit.label if group.suit else None
    return tuple(HitPlacement(c, None, value) for c in cards)


def _add(group: LaidGroup, card: Card, rules: RuleSet) -> LaidGroup:
    deck = rules.deck
    if group.kind is GroupKind.SET:
        if card.is_wild or group.number is None or card.number == group.number:
            number = group.number if group.number is not None else card.number
            # A natural card hit onto a set of wilds only is what fixes its number.
            values = tuple(number for _ in range(len(group.cards) + 1))
            return LaidGroup(GroupKind.SET, (*group.cards, card), values)
        raise IllegalPlayError(reason("set_takes_only", number=group.number, card=card.number, deck=deck))
    if group.kind is GroupKind.COLOR:
        if card.is_wild or group.color is None or card.color is group.color:
            color = group.color or card.color
            return LaidGroup(GroupKind.COLOR, (*group.cards, card), (*group.values, card.number), color=color)
        raise IllegalPlayError(reason("colour_takes_only", colour=group.color, card=card))
    if card.is_wild or group.suit is None or card.suit is group.suit:
        suit = group.suit or card.suit
        return LaidGroup(GroupKind.SUIT, (*group.cards, card), (*group.values, card.number), suit=suit)
    raise IllegalPlayError(reason("suit_takes_only", suit=group.suit, card=card))


# --------------------------------------------------------------------------------------------- runs


@dataclass(frozen=True, slots=True)
class _RunFit:
    """One way the added cards fit a run: the run after the hit and where each added card went."""

    preference: tuple[int, ...]
    group: LaidGroup
    placed: tuple[HitPlacement, ...]


def _hit_run(
    group: LaidGroup, cards: tuple[Card, ...], wanted: tuple[End | None, ...], rules: RuleSet
) -> HitVerdict:
    fits = _run_fits(group, cards, wanted, rules)
    if not fits:
        return HitVerdict(False, _run_refusal(group, cards, wanted, rules), group, code=Refusal.DOES_NOT_FIT)
    best = fits[0]
    chosen = _choice_note(best, fits[1], cards) if len(fits) > 1 else None
    return HitVerdict(True, None, best.group, best.placed, chosen)


def _run_fits(
    group: LaidGroup, cards: tuple[Card, ...], wanted: tuple[End | None, ...], rules: RuleSet
) -> list[_RunFit]:
    """Every placement of all ``cards`` onto the run, the preferred first.

    The run after the hit is a stretch of consecutive numbers: some of the added cards below the laid ones
    and the rest above, each numbered card on its own number, the wilds on the numbers left over. So a
    placement is fixed by how many cards go below (``below``) and, for a run of wilds only, the number its
    first card takes. Fewest cards below is preferred (a wild goes to the top while it has room), then the
    numbered cards as low as they go, so that spare wilds lie above them.
    """
    top = rules.deck.max_rank
    wrap = rules.wrap_runs
    laid = len(group.cards)
    count = len(cards)
    size = laid + count
    if size > top:
        return []
    numbers = [c.number for c in cards if c.number is not None]
    if len(set(numbers)) != len(numbers):
        return []
    if group.low is None and not numbers:
        return [_wilds_only_fit(group, cards, wanted)]
    starts = [group.low] if group.low is not None else list(range(1, top + 1))
    fits: list[_RunFit] = []
    for below in range(count + 1):
        for start in starts:
            fit = _place_run(group, cards, wanted, start - below, below, top, wrap)
            if fit is not None:
                fits.append(fit)
    fits.sort(key=lambda f: f.preference)
    # Wilds look alike, so two placements can leave the same cards on the same numbers: that is one outcome.
    unique: dict[tuple[tuple[Card, ...], tuple[int | None, ...]], _RunFit] = {}
    for fit in fits:
        unique.setdefault((fit.group.cards, fit.group.values), fit)
    return list(unique.values())


def _wilds_only_fit(group: LaidGroup, cards: tuple[Card, ...], wanted: tuple[End | None, ...]) -> _RunFit:
    """Wilds onto a run of wilds only: no number is fixed yet, so they only lengthen it at the ends named."""
    low = tuple(c for c, e in zip(cards, wanted, strict=True) if e == "low")
    high = tuple(c for c, e in zip(cards, wanted, strict=True) if e != "low")
    after = (*low, *group.cards, *high)
    placed = tuple(
        HitPlacement(c, "low" if e == "low" else "high", None) for c, e in zip(cards, wanted, strict=True)
    )
    return _RunFit((len(low),), replace(group, cards=after, values=tuple(None for _ in after)), placed)


def _place_run(
    group: LaidGroup,
    cards: tuple[Card, ...],
    wanted: tuple[End | None, ...],
    first: int,
    below: int,
    top: int,
    wrap: bool,
) -> _RunFit | None:
    """The placement whose lowest number is ``first`` with ``below`` added cards under the laid ones, if the
    cards fit it."""
    laid = len(group.cards)
    size = laid + len(cards)
    if not wrap and (first < 1 or first + size - 1 > top):
        return None
    slots: list[int | None] = [None] * size  # index into ``cards`` of the card at each position

    def side(position: int) -> End:
        return "low" if position < below else "high"

    for i, card in enumerate(cards):
        if card.number is None:
            continue
        position = (card.number - first) % top if wrap else card.number - first
        if not 0 <= position < size or below <= position < below + laid:
            return None
        if wanted[i] is not None and wanted[i] != side(position):
            return None
        slots[position] = i
    free = {
        "low": [p for p in range(below - 1, -1, -1) if slots[p] is None],  # from the laid cards outward
        "high": [p for p in range(below + laid, size) if slots[p] is None],
    }
    wild_ends = [(i, wanted[i]) for i, c in enumerate(cards) if c.number is None]
    for i, named in wild_ends:
        if named is not None:
            if not free[named]:
                return None
            slots[free[named].pop(0)] = i
    for i, named in wild_ends:
        if named is None:
            # Unnamed wilds, in the order given, take the top first, then the bottom.
            taken = free["high"] or free["low"]
            slots[taken.pop(0)] = i
    values = tuple((first + p - 1) % top + 1 if wrap else first + p for p in range(size))
    table: list[Card] = []
    placed: dict[int, HitPlacement] = {}
    for p in range(size):
        if below <= p < below + laid:
            table.append(group.cards[p - below])
            continue
        index = slots[p]
        assert index is not None
        table.append(cards[index])
        placed[index] = HitPlacement(cards[index], side(p), values[p])
    spread = 0
    for p, index in enumerate(slots):
        if index is not None and cards[index].number is not None:
            spread += p
    after = replace(group, cards=tuple(table), values=values)
    return _RunFit((below, spread, -first), after, tuple(placed[i] for i in range(len(cards))))


def _choice_note(best: _RunFit, other: _RunFit, cards: tuple[Card, ...]) -> Reason:
    """Which placement was chosen, and one that would also have fitted."""
    differ = [i for i in range(len(cards)) if best.placed[i] != other.placed[i]]
    if not differ:
        # The added cards stand where they would anyway; only the laid wilds of a run of wilds only move.
        return reason("note_own_wilds", chosen=best.placed)
    return reason(
        "note_also_fits",
        chosen=tuple(best.placed[i] for i in differ),
        other=tuple(other.placed[i] for i in differ),
        wilds_only=all(cards[i].is_wild for i in differ),
    )


def _run_refusal(
    group: LaidGroup, cards: tuple[Card, ...], wanted: tuple[End | None, ...], rules: RuleSet
) -> Reason:
    """Why no placement fits, in the words of the first rule the cards break."""
    deck = rules.deck
    top = deck.max_rank
    laid = len(group.cards)
    if laid >= top:
        return reason("run_full", group=group.cards, deck=deck)
    if len(cards) == 1:
        try:
            _add_to_run(group, cards[0], rules, wanted[0])
        except IllegalPlayError as exc:
            return exc.why
    seen: dict[int, Card] = {}
    for card in cards:
        if card.number is None:
            continue
        if card.number in seen:
            return reason("run_two_of", first=seen[card.number], second=card, deck=deck)
        seen[card.number] = card
    if group.low is not None:
        inside = set(v for v in group.values if v is not None)
        for i, card in enumerate(cards):
            if card.number in inside:
                try:
                    _add_to_run(group, card, rules, wanted[i])
                except IllegalPlayError as exc:
                    return exc.why
    if laid + len(cards) > top:
        return reason("run_room", group=group.cards, count=len(cards), deck=deck)
    room = _room_refusal(group, cards, wanted, rules)
    if room:
        return room
    unnamed = tuple(None for _ in cards)
    loose = _run_fits(group, cards, unnamed, rules)
    if loose:
        return reason("not_at_ends", group=group.cards, cards=cards, placed=loose[0].placed)
    gap = _gap_refusal(group, cards, rules)
    if not rules.wrap_runs and _run_fits(group, cards, unnamed, replace(rules, wrap_runs=True)):
        return reason("gap_round_corner", gap=gap, deck=deck)
    return gap


def _room_refusal(
    group: LaidGroup, cards: tuple[Card, ...], wanted: tuple[End | None, ...], rules: RuleSet
) -> Reason | None:
    """Cards named for an end of a run that stops short of the deck's first or last number."""
    if rules.wrap_runs or group.low is None or group.high is None:
        return None
    top = rules.deck.max_rank
    for side in ("low", "high"):
        naturals = [
            c
            for c in cards
            if c.number is not None and (c.number < group.low if side == "low" else c.number > group.high)
        ]
        named = [c for c, e in zip(cards, wanted, strict=True) if e == side and c.number is None]
        room = group.low - 1 if side == "low" else top - group.high
        if named and len(naturals) + len(named) > room:
            by_number = {c.number: c for c in naturals}
            span = range(1, group.low) if side == "low" else range(group.high + 1, top + 1)
            end_cards = [by_number.get(n, named[0]) for n in span]
            shown = (*end_cards, *group.cards) if side == "low" else (*group.cards, *end_cards)
            return reason("run_no_room_for_wild", group=shown, end=side)
    return None


def _gap_refusal(group: LaidGroup, cards: tuple[Card, ...], rules: RuleSet) -> Reason:
    """Numbered cards too far from the run for the wilds given to bridge."""
    deck = rules.deck
    top = deck.max_rank
    naturals = tuple(c for c in cards if c.number is not None)
    wilds = len(cards) - len(naturals)
    numbers = {c.number for c in naturals}
    laid = len(group.cards)
    best: list[int] | None = None
    starts = [group.low] if group.low is not None else list(range(1, top + 1))
    # The shortest stretch that holds the laid run and every numbered card: its other numbers need wilds.
    for size in range(laid + len(naturals), top + 1):
        for below in range(size - laid + 1):
            for start in starts:
                first = start - below
                if not rules.wrap_runs and (first < 1 or first + size - 1 > top):
                    continue
                values = [(first + p - 1) % top + 1 if rules.wrap_runs else first + p for p in range(size)]
                outside = [v for p, v in enumerate(values) if not below <= p < below + laid]
                if numbers <= set(outside):
                    best = [v for v in outside if v not in numbers]
                    break
            if best is not None:
                break
        if best is not None:
            break
    if best is None:  # pragma: no cover - the earlier checks leave a stretch that holds them
        return reason("cannot_take", group=group.cards, cards=cards)
    if group.low is None:
        return reason("wild_run_gap", group=group.cards, naturals=naturals, needed=len(best), wilds=wilds)
    return reason(
        "run_would_need", group=group.cards, naturals=naturals, numbers=tuple(best), wilds=wilds, deck=deck
    )


def _add_to_run(group: LaidGroup, card: Card, rules: RuleSet, end: End | None) -> LaidGroup:
    """One card onto a run at its next number (``end`` limits it to one end): the words of a one-card
    refusal."""
    top = rules.deck.max_rank
    deck = rules.deck
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
        raise IllegalPlayError(reason("run_no_room_for_wild", group=group.cards, end=end))
    options = tuple(v for _, v in reversed(ends) if v is not None)
    raise IllegalPlayError(
        reason("run_takes", group=group.cards, options=options, card=card.number, deck=deck)
    )


def _extend(group: LaidGroup, card: Card, side: End, value: int) -> LaidGroup:
    if side == "high":
        return replace(group, cards=(*group.cards, card), values=(*group.values, value))
    return replace(group, cards=(card, *group.cards), values=(value, *group.values))


def _add_to_wild_run(group: LaidGroup, card: Card, rules: RuleSet, end: End | None) -> LaidGroup:
    """A run laid as wilds only has no numbers yet; the first numbered card hit onto it fixes them."""
    side: End = end or "high"
    cards = (*group.cards, card) if side == "high" else (card, *group.cards)
    if card.is_wild:
        return replace(group, cards=cards, values=tuple(None for _ in cards))
    try:
        return make_group(GroupKind.RUN, cards, rules)
    except IllegalPlayError:
        if end is None:
            return make_group(GroupKind.RUN, (card, *group.cards), rules)
        raise
