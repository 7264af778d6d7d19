"""Every sentence the engine says to a player, put together from a refusal's key and its values.

The engine says *what* went wrong as a :class:`Reason`: a key (a :class:`~companion.rules.refusals.Refusal`'s
value, or a finer sentence of one) and the values it concerns (cards, numbers, the phase, a player, a nested
reason). This module says *how*: in English by default, and in another language when the caller hands in that
language's catalogue as :class:`Words` (the web layer passes its gettext). Rank letters, "a"/"an", lists joined
with "and", group titles and where an added card went live here too, so that the referee, the hits, the advisor,
the score keeper, the CLI and the pages all word them one way.

>>> from companion.rules.cards import parse_cards
>>> why = reason("run_gap", cards=parse_cards("G3 Y4 R6 B7"), low=5, high=5, deck=parse_cards("R1")[0].deck)
>>> say(why)
'the run G3 Y4 R6 B7 has a gap at 5'
>>> str(reason("skip_in_phase"))
'a Skip can never be part of a phase'
>>> say(reason("skip_in_phase"), Words(gettext=lambda s: s.upper()))
'A SKIP CAN NEVER BE PART OF A PHASE'

Templates are marked for the catalogues by the calls ``w.gettext(...)`` and ``w.ngettext(...)`` (pybabel finds
them); they use ``%(name)s`` placeholders so that a translation may put the values in its own order.

This module sits below ``cards`` (a card that cannot be read is worded here), so it knows cards, decks, colours
and suits by what they show (the protocols below): ``str(card)``, ``card.number``, ``deck.value``, ``label``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .phases import GroupKind, Phase, Requirement
from .refusals import Refusal

__all__ = [
    "ENGLISH",
    "Reason",
    "Words",
    "a_rank",
    "cards_text",
    "counted_keys",
    "group_title",
    "heading",
    "noun",
    "placement",
    "rank_text",
    "reason",
    "requirement_heading",
    "run_text",
    "say",
]

SET, RUN, COLOR, SUIT = GroupKind.SET, GroupKind.RUN, GroupKind.COLOR, GroupKind.SUIT
PLAYING = "playing-cards"  # Deck.PLAYING.value
_RANK_LETTERS = {1: "A", 11: "J", 12: "Q", 13: "K"}


# --------------------------------------------------------------------------------------------- languages


def _same(text: str) -> str:
    return text


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


def _english_list(items: Sequence[str], style: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    if style == "chain":
        return " and ".join(items)
    word = "or" if style == "or" else "and"
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def _engine_description(phase: Phase) -> str:
    return phase.description


@dataclass(frozen=True, slots=True)
class Words:
    """A language for the engine's sentences: ``gettext`` and ``ngettext`` look a template up (they return it
    untranslated, not formatted), ``join`` joins words as the language does (style ``"and"``: "a, b and c";
    ``"or"``: "a, b or c"; ``"chain"``, how English chains the parts of a need: "a 1 and a 2 and a 3"), and
    ``phase`` says what a phase is ("two sets of 3"). The defaults are the engine's English."""

    gettext: Callable[[str], str] = _same
    ngettext: Callable[[str, str, int], str] = _english_plural
    join: Callable[[Sequence[str], str], str] = _english_list
    phase: Callable[[Phase], str] = _engine_description

    def and_list(self, items: Iterable[str]) -> str:
        return self.join(list(items), "and")

    def or_list(self, items: Iterable[str]) -> str:
        return self.join(list(items), "or")

    def chain(self, items: Iterable[str]) -> str:
        return self.join(list(items), "chain")


ENGLISH = Words()


# --------------------------------------------------------------------------------------------- reasons


@dataclass(frozen=True, slots=True)
class Reason:
    """What the engine says no to, as data: ``key`` names the sentence (see :func:`say`), ``values`` are what it
    concerns. Immutable and hashable, so verdicts that carry one stay values. ``str()`` is the English
    sentence."""

    key: str
    values: tuple[tuple[str, Any], ...] = ()

    @property
    def args(self) -> dict[str, Any]:
        return dict(self.values)

    def __str__(self) -> str:
        return say(self)


def reason(key: str | Refusal, **values: Any) -> Reason:
    """A :class:`Reason` for the sentence ``key`` (a :class:`~companion.rules.refusals.Refusal` when the code
    has one sentence) with its values."""
    return Reason(str(key), tuple(values.items()))


Sentence = Callable[..., str]
_SENTENCES: dict[str, Sentence] = {}


def _sentence(*keys: str | Refusal) -> Callable[[Sentence], Sentence]:
    def register(function: Sentence) -> Sentence:
        for key in keys:
            _SENTENCES[str(key)] = function
        return function

    return register


def say(why: Reason, words: Words = ENGLISH) -> str:
    """The sentence for ``why`` in the language of ``words`` (English by default)."""
    return _SENTENCES[why.key](words, **why.args)


def has_sentence(key: str) -> bool:
    return key in _SENTENCES


def _fill(template: str, **values: Any) -> str:
    return template % values


def _nested(value: Reason | str, w: Words) -> str:
    return say(value, w) if isinstance(value, Reason) else value


# --------------------------------------------------------------------------------------------- pieces


class Deck(Protocol):
    @property
    def value(self) -> str: ...


class Color(Protocol):
    @property
    def label(self) -> str: ...


Suit = Color


class Card(Protocol):
    @property
    def number(self) -> int | None: ...
    @property
    def is_wild(self) -> bool: ...
    @property
    def color(self) -> Color | None: ...
    @property
    def suit(self) -> Suit | None: ...
    @property
    def deck(self) -> Deck: ...


def _playing(deck: Deck) -> bool:
    return deck.value == PLAYING


def _top(deck: Deck) -> int:
    return 13 if _playing(deck) else 12


def rank_text(number: int, deck: Deck) -> str:
    """How a number is printed on a card of this deck (A, J, Q, K for playing cards)."""
    if _playing(deck):
        return _RANK_LETTERS.get(number, str(number))
    return str(number)


def run_text(low: int, high: int, deck: Deck, dash: str = "-") -> str:
    """How the numbers of a run read: '3-6', and with ranks for playing cards, '10-K', 'A-5'.

    >>> from companion.rules.cards import Deck
    >>> run_text(3, 6, Deck.STANDARD), run_text(10, 13, Deck.PLAYING), run_text(1, 5, Deck.PLAYING)
    ('3-6', '10-K', 'A-5')
    """
    return f"{rank_text(low, deck)}{dash}{rank_text(high, deck)}"


def cards_text(cards: Iterable[object]) -> str:
    """Cards in the notation they are typed in: 'R7 B7 W'."""
    return " ".join(str(c) for c in cards)


def a_rank(w: Words, word: str) -> str:
    """A rank letter or number with its article: 'a 7', 'an 8', 'an 11', 'an A'."""
    if word[0] in "8A" or word == "11":
        return _fill(w.gettext("an %(rank)s"), rank=word)
    return _fill(w.gettext("a %(rank)s"), rank=word)


def _colour_word(w: Words, label: str) -> str:
    return {
        "red": w.gettext("red"),
        "blue": w.gettext("blue"),
        "green": w.gettext("green"),
        "yellow": w.gettext("yellow"),
        "black": w.gettext("black"),
        "spades": w.gettext("spades"),
        "hearts": w.gettext("hearts"),
        "diamonds": w.gettext("diamonds"),
        "clubs": w.gettext("clubs"),
    }[label]


def _counted_colour(w: Words, label: str, n: int) -> str:
    # English says "6 red", "1 hearts"; a language whose adjectives agree with the count needs each form.
    forms = {
        "red": w.ngettext("%(num)d red", "%(num)d red", n),
        "blue": w.ngettext("%(num)d blue", "%(num)d blue", n),
        "green": w.ngettext("%(num)d green", "%(num)d green", n),
        "yellow": w.ngettext("%(num)d yellow", "%(num)d yellow", n),
        "black": w.ngettext("%(num)d black", "%(num)d black", n),
        "spades": w.ngettext("%(num)d spades", "%(num)d spades", n),
        "hearts": w.ngettext("%(num)d hearts", "%(num)d hearts", n),
        "diamonds": w.ngettext("%(num)d diamonds", "%(num)d diamonds", n),
        "clubs": w.ngettext("%(num)d clubs", "%(num)d clubs", n),
    }
    return _fill(forms[label], num=n)


def _key(kind: GroupKind, card: Any) -> Any:
    if kind is SET or kind is RUN:
        return card.number
    return card.color if kind is COLOR else card.suit


def counted_keys(w: Words, kind: GroupKind, naturals: Sequence[Card], deck: Deck) -> str:
    """'6 red and 1 blue' for colours and suits, '5, 7 and 9' for numbers."""
    counts: dict[Any, int] = {}
    for c in naturals:
        counts[_key(kind, c)] = counts.get(_key(kind, c), 0) + 1
    if kind is SET or kind is RUN:
        return w.and_list(rank_text(k, deck) for k in sorted(counts))
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].label))
    return w.and_list(_counted_colour(w, k.label, n) for k, n in ordered)


def _groups(w: Words, n: int) -> str:
    return _fill(w.ngettext("%(num)d group", "%(num)d groups", n), num=n)


def _wilds(w: Words, n: int) -> str:
    return _fill(w.ngettext("%(num)d wild", "%(num)d wilds", n), num=n)


def noun(w: Words, req: Requirement) -> str:
    """One group of a phase: 'set of 3', 'run of 4', '7 cards of one colour'."""
    if req.kind is SET:
        return _fill(w.gettext("set of %(size)d"), size=req.size)
    if req.kind is RUN:
        return _fill(w.gettext("run of %(size)d"), size=req.size)
    if req.kind is COLOR:
        return _fill(w.gettext("%(size)d cards of one colour"), size=req.size)
    return _fill(w.gettext("%(size)d cards of one suit"), size=req.size)


def requirement_heading(req: Requirement, w: Words = ENGLISH) -> str:
    """One group of a phase as a page heads it: 'Set of 3', 'Run of 4', 'Colour group of 7'."""
    if req.kind is SET:
        return _fill(w.gettext("Set of %(size)d"), size=req.size)
    if req.kind is RUN:
        return _fill(w.gettext("Run of %(size)d"), size=req.size)
    if req.kind is COLOR:
        return _fill(w.gettext("Colour group of %(size)d"), size=req.size)
    return _fill(w.gettext("Suit group of %(size)d"), size=req.size)


def _kind_word(w: Words, kind: GroupKind) -> str:
    return {SET: w.gettext("set"), RUN: w.gettext("run"), COLOR: w.gettext("color"), SUIT: w.gettext("suit")}[
        kind
    ]


def _no_corner(w: Words, deck: Deck) -> str:
    # 001: no wrap-around from 12 to 1 unless agreed; 004: "Ace is always low", no Q-K-A.
    if _playing(deck):
        return w.gettext("the ace is always low, so a run cannot go on from the king to the ace")
    return w.gettext("runs do not wrap around unless your group plays that house rule")


def _corner(deck: Deck) -> tuple[str, str]:
    return rank_text(_top(deck), deck), rank_text(1, deck)


# --------------------------------------------------------------------------------------------- groups


class _Group(Protocol):
    @property
    def kind(self) -> GroupKind: ...
    @property
    def cards(self) -> tuple[Card, ...]: ...
    @property
    def number(self) -> int | None: ...
    @property
    def low(self) -> int | None: ...
    @property
    def high(self) -> int | None: ...
    @property
    def color(self) -> Color | None: ...
    @property
    def suit(self) -> Suit | None: ...
    def wild_values(self) -> list[tuple[int, int | str | None]]: ...


def group_title(group: _Group, deck: Deck, w: Words = ENGLISH) -> str:
    """A laid group as the command line names it: 'set of 7s', 'run 3-6', 'red colour group'."""
    if group.kind is SET:
        if group.number is None:
            return w.gettext("set of wilds")
        return _fill(w.gettext("set of %(rank)ss"), rank=rank_text(group.number, deck))
    if group.kind is RUN:
        if group.low is None or group.high is None:
            return w.gettext("run of wilds")
        return _fill(w.gettext("run %(numbers)s"), numbers=run_text(group.low, group.high, deck))
    if group.kind is COLOR:
        if group.color is None:
            return w.gettext("any colour group")
        return _fill(w.gettext("%(colour)s colour group"), colour=_colour_word(w, group.color.label))
    if group.suit is None:
        return w.gettext("any suit group")
    return _fill(w.gettext("%(suit)s suit group"), suit=_colour_word(w, group.suit.label))


def heading(group: _Group, deck: Deck, w: Words = ENGLISH) -> str:
    """A laid group as a page heads it: 'Set of 7s', 'Run 3–6', 'Red cards'."""
    if group.kind is SET:
        if group.number is None:
            return w.gettext("Set of wilds")
        return _fill(w.gettext("Set of %(rank)ss"), rank=rank_text(group.number, deck))
    if group.kind is RUN:
        if group.low is None or group.high is None:
            return w.gettext("Run of wilds")
        return _fill(w.gettext("Run %(numbers)s"), numbers=run_text(group.low, group.high, deck, "–"))
    if group.kind is COLOR:
        if group.color is None:
            return w.gettext("Any colour cards")
        return _capital(_fill(w.gettext("%(colour)s cards"), colour=_colour_word(w, group.color.label)))
    if group.suit is None:
        return w.gettext("Any suit cards")
    return _capital(_fill(w.gettext("%(suit)s cards"), suit=_colour_word(w, group.suit.label)))


def _capital(word: str) -> str:
    return word[:1].upper() + word[1:]


def wild_as(w: Words, card: object, value: int | str | None, deck: Deck, sign: str = "as") -> str:
    """What a wild stands for: 'W as 5' (or with ``sign="="``, 'W = 5'), 'W as red'."""
    shown = rank_text(value, deck) if isinstance(value, int) else _colour_word(w, str(value))
    if sign == "=":
        return f"{card} = {shown}"
    return _fill(w.gettext("%(card)s as %(value)s"), card=card, value=shown)


def wilds_text(group: _Group, deck: Deck, w: Words = ENGLISH, sign: str = "as") -> str:
    """What each wild of a group stands for: 'W as 5, W as 6'."""
    return ", ".join(
        wild_as(w, group.cards[i], value, deck, sign) for i, value in group.wild_values() if value is not None
    )


class _Placement(Protocol):
    @property
    def card(self) -> Card: ...
    @property
    def end(self) -> str | None: ...
    @property
    def value(self) -> int | str | None: ...


def placement(p: _Placement, w: Words = ENGLISH) -> str:
    """Where one added card went: 'W as 2 (low end)', 'R7 (high end)', 'W as 4', 'G4'."""
    word = str(p.card)
    if p.card.is_wild and p.value is not None:
        word = wild_as(w, p.card, p.value, p.card.deck)
    if p.end == "low":
        return _fill(w.gettext("%(card)s (low end)"), card=word)
    if p.end == "high":
        return _fill(w.gettext("%(card)s (high end)"), card=word)
    return word


def placements(placed: Iterable[_Placement], w: Words = ENGLISH) -> str:
    return ", ".join(placement(p, w) for p in placed)


# --------------------------------------------------------------------------------------------- cards


@_sentence("card_empty")
def _card_empty(w: Words, token: str) -> str:
    return _fill(w.gettext("%(token)s is not a card: it is empty"), token=token)


@_sentence("card_notation")
def _card_notation(w: Words, token: str) -> str:
    return _fill(
        w.gettext(
            "%(token)s is not a card: write a colour letter R, B, G or Y and a number (R7, B12), W for Wild or S "
            "for Skip"
        ),
        token=token,
    )


@_sentence("card_number")
def _card_number(w: Words, token: str) -> str:
    return _fill(w.gettext("%(token)s is not a card: numbers run from 1 to 12"), token=token)


@_sentence("card_playing_notation")
def _card_playing_notation(w: Words, token: str) -> str:
    return _fill(
        w.gettext(
            "%(token)s is not a card: write a rank A, 2-10, J, Q or K and a suit S, H, D or C (AH, 10D, QS), or "
            "JK for a joker"
        ),
        token=token,
    )


@_sentence("card_rank")
def _card_rank(w: Words, token: str) -> str:
    return _fill(w.gettext("%(token)s is not a card: ranks are A, 2-10, J, Q and K"), token=token)


@_sentence("no_skip_in_playing_cards")
def _no_skip_in_playing_cards(w: Words) -> str:
    return w.gettext("there are no Skip cards in the playing-card game")


@_sentence(Refusal.WRONG_DECK)
def _wrong_deck(w: Words, card: object, deck: Deck) -> str:
    if _playing(deck):
        return _fill(w.gettext("%(card)s is not a card of the playing-cards deck"), card=card)
    return _fill(w.gettext("%(card)s is not a card of the standard deck"), card=card)


# --------------------------------------------------------------------------------------------- requests


@_sentence("phase_missing")
def _phase_missing(w: Words) -> str:
    return w.gettext('give the phase to check, for example "phase": 2')


@_sentence("phase_not_a_phase")
def _phase_not_a_phase(w: Words) -> str:
    return w.gettext('"phase" must be a phase number')


@_sentence("too_many_typed")
def _too_many_typed(w: Words, field: str, count: int, most: int) -> str:
    return _fill(
        w.gettext('"%(field)s" has %(count)d cards; at most %(most)d'), field=field, count=count, most=most
    )


@_sentence("too_many_groups")
def _too_many_groups(w: Words, count: int) -> str:
    return _fill(w.gettext("%(count)d groups is more than any phase has"), count=count)


@_sentence("more_than_cards")
def _more_than_cards(w: Words, most: int) -> str:
    return _fill(w.gettext("that is more than %(most)d cards"), most=most)


@_sentence("hand_missing")
def _hand_missing(w: Words) -> str:
    return w.gettext('give the cards in the hand: "cards": ["R7", "W", ...]')


@_sentence("onto_not_a_group")
def _onto_not_a_group(w: Words, option: str | None, kind: GroupKind, why: Reason) -> str:
    what = option or w.gettext("the group on the table")
    return _fill(
        w.gettext("%(what)s is not a %(kind)s: %(why)s"), what=what, kind=_kind_word(w, kind), why=say(why, w)
    )


@_sentence("onto_missing")
def _onto_missing(w: Words) -> str:
    return w.gettext("give the cards of the group on the table (onto)")


@_sentence("hit_cards_missing")
def _hit_cards_missing(w: Words) -> str:
    return w.gettext("give at least one card to hit with")


@_sentence("laid_missing")
def _laid_missing(w: Words) -> str:
    return w.gettext('give the cards laid down: "cards": [...] or "groups": [[...], [...]]')


# --------------------------------------------------------------------------------------------- photos


@_sentence("no_photo")
def _no_photo(w: Words) -> str:
    return w.gettext("no photo was sent: choose or take a photo (field 'photo')")


@_sentence("photo_empty")
def _photo_empty(w: Words) -> str:
    return w.gettext("the photo is empty (0 bytes): take or choose it again")


@_sentence("photo_too_large")
def _photo_too_large(w: Words, megabytes: float) -> str:
    return _fill(
        w.gettext(
            "the photo is too large: at most %(megabytes)g MB. Take it again at a lower resolution or send a smaller "
            "copy."
        ),
        megabytes=megabytes,
    )


@_sentence("photo_unreadable")
def _photo_unreadable(w: Words, why: str) -> str:
    # ``why`` comes from the image decoder, in English.
    return _fill(w.gettext("this photo cannot be read: %(why)s"), why=why)


@_sentence("camera_standard_only")
def _camera_standard_only(w: Words) -> str:
    return w.gettext("the camera reads Phase 10 cards only; for playing cards, tap the cards in")


@_sentence("camera_counters_standard_only")
def _camera_counters_standard_only(w: Words) -> str:
    return w.gettext("the camera reads Phase 10 cards only; for playing cards, tap the counters")


@_sentence("no_cards_in_photo")
def _no_cards_in_photo(w: Words) -> str:
    return w.gettext(
        "no cards were found in the photo: take it again from above in good light, or tap the cards in"
    )


@_sentence("no_cards_in_hand_photo")
def _no_cards_in_hand_photo(w: Words) -> str:
    return w.gettext(
        "no cards were found in the photo: spread the cards so each corner shows, take it again in good light, or "
        "tap the counters"
    )


@_sentence("photo_one_row")
def _photo_one_row(w: Words) -> str:
    return w.gettext(
        "the photo shows one row of cards: lay the cards to add in a row below the group, or type the group on the "
        "table (onto)"
    )


# --------------------------------------------------------------------------------------------- rule sets


@_sentence("no_such_phase")
def _no_such_phase(w: Words, number: int, last: int) -> str:
    return _fill(
        w.gettext("there is no phase %(number)d in this game (phases 1 to %(last)d)"),
        number=number,
        last=last,
    )


@_sentence("unknown_rule_set")
def _unknown_rule_set(w: Words, name: str, names: Sequence[str]) -> str:
    return _fill(
        w.gettext("unknown rule set %(name)s: choose %(names)s"), name=repr(name), names=w.or_list(names)
    )


@_sentence("last_phase_range")
def _last_phase_range(w: Words) -> str:
    return w.gettext("the last phase must be a whole number from 1 to 10")


@_sentence("advances_with_masters")
def _advances_with_masters(w: Words) -> str:
    return w.gettext("'everyone advances' does not combine with Masters, where players choose phases")


@_sentence("no_wrap_with_playing_cards")
def _no_wrap_with_playing_cards(w: Words) -> str:
    # 004: "Ace is always low" and, in its questions, "So I can't have a run Queen, King, Ace?"
    return w.gettext(
        'runs do not wrap around in the playing-card game: "Ace is always low", so there is no run Queen, King, '
        "Ace (004)"
    )


@_sentence("flushes_need_playing_cards")
def _flushes_need_playing_cards(w: Words) -> str:
    return w.gettext("flushes are a phase of the playing-card game only; Phase 10 cards have no suits")


# --------------------------------------------------------------------------------------------- groups laid


@_sentence(Refusal.SKIP_IN_PHASE)
def _skip_in_phase(w: Words) -> str:
    return w.gettext("a Skip can never be part of a phase")


@_sentence(Refusal.NO_NATURAL)
def _no_natural(w: Words) -> str:
    return w.gettext("a phase needs at least one numbered card; wilds alone are no phase")


@_sentence("group_empty")
def _group_empty(w: Words) -> str:
    return w.gettext("a group needs at least one card")


@_sentence("no_suits")
def _no_suits(w: Words) -> str:
    return w.gettext("Phase 10 cards have colours, not suits; suit groups belong to the playing-card game")


@_sentence("set_mixes")
def _set_mixes(w: Words, cards: Sequence[Card], naturals: Sequence[Card], deck: Deck) -> str:
    return _fill(
        w.gettext("the set %(cards)s mixes %(numbers)s; a set is cards of one number"),
        cards=cards_text(cards),
        numbers=counted_keys(w, SET, naturals, deck),
    )


@_sentence("not_one_colour")
def _not_one_colour(
    w: Words, cards: Sequence[Card], naturals: Sequence[Card], strays: Sequence[Card], main: Color, deck: Deck
) -> str:
    template = w.ngettext(
        "the cards %(cards)s are not all one colour: %(counts)s (%(strays)s is not %(main)s)",
        "the cards %(cards)s are not all one colour: %(counts)s (%(strays)s are not %(main)s)",
        len(strays),
    )
    return _not_all_one(w, template, COLOR, cards, naturals, strays, main.label, deck)


@_sentence("not_one_suit")
def _not_one_suit(
    w: Words, cards: Sequence[Card], naturals: Sequence[Card], strays: Sequence[Card], main: Suit, deck: Deck
) -> str:
    template = w.ngettext(
        "the cards %(cards)s are not all one suit: %(counts)s (%(strays)s is not %(main)s)",
        "the cards %(cards)s are not all one suit: %(counts)s (%(strays)s are not %(main)s)",
        len(strays),
    )
    return _not_all_one(w, template, SUIT, cards, naturals, strays, main.label, deck)


def _not_all_one(
    w: Words,
    template: str,
    kind: GroupKind,
    cards: Sequence[Card],
    naturals: Sequence[Card],
    strays: Sequence[Card],
    main: str,
    deck: Deck,
) -> str:
    return _fill(
        template,
        cards=cards_text(cards),
        counts=counted_keys(w, kind, naturals, deck),
        strays=cards_text(strays),
        main=_colour_word(w, main),
        num=len(strays),
    )


@_sentence("run_too_long")
def _run_too_long(w: Words, cards: Sequence[Card], deck: Deck) -> str:
    return _fill(
        w.gettext("a run can hold at most %(top)d cards; %(cards)s has %(count)d"),
        top=_top(deck),
        cards=cards_text(cards),
        count=len(cards),
    )


@_sentence("run_not_consecutive")
def _run_not_consecutive(w: Words, cards: Sequence[Card], number: int, belongs: int, deck: Deck) -> str:
    return _fill(
        w.gettext("the run %(cards)s is not consecutive: the %(number)s stands where %(belongs)s belongs"),
        cards=cards_text(cards),
        number=rank_text(number, deck),
        belongs=_fill(w.gettext("a %(rank)s"), rank=rank_text(belongs, deck)),
    )


@_sentence("run_repeats")
def _run_repeats(w: Words, cards: Sequence[Card], number: int, deck: Deck) -> str:
    return _fill(
        w.gettext("a run cannot hold two %(rank)ss (%(cards)s)"),
        rank=rank_text(number, deck),
        cards=cards_text(cards),
    )


@_sentence("run_gap")
def _run_gap(w: Words, cards: Sequence[Card], low: int, high: int, deck: Deck) -> str:
    if low == high:
        return _fill(
            w.gettext("the run %(cards)s has a gap at %(number)s"),
            cards=cards_text(cards),
            number=rank_text(low, deck),
        )
    return _fill(
        w.gettext("the run %(cards)s has a gap at %(low)s to %(high)s"),
        cards=cards_text(cards),
        low=rank_text(low, deck),
        high=rank_text(high, deck),
    )


@_sentence("run_round_corner")
def _run_round_corner(w: Words, cards: Sequence[Card], deck: Deck) -> str:
    top, first = _corner(deck)
    return _fill(
        w.gettext("the run %(cards)s goes round the corner from %(top)s to %(first)s; %(why)s"),
        cards=cards_text(cards),
        top=top,
        first=first,
        why=_no_corner(w, deck),
    )


@_sentence("run_no_room_between")
def _run_no_room_between(w: Words, cards: Sequence[Card], wilds: int, low: int, high: int, deck: Deck) -> str:
    return _fill(
        w.gettext("in the run %(cards)s there is no room for %(wilds)s between the %(low)s and the %(high)s"),
        cards=cards_text(cards),
        wilds=_wilds(w, wilds),
        low=rank_text(low, deck),
        high=rank_text(high, deck),
    )


@_sentence("run_descending")
def _run_descending(w: Words, cards: Sequence[Card], number: int, after: int, deck: Deck) -> str:
    return _fill(
        w.gettext("a run is laid in ascending order; in %(cards)s the %(number)s comes after the %(after)s"),
        cards=cards_text(cards),
        number=rank_text(number, deck),
        after=rank_text(after, deck),
    )


@_sentence("run_beyond")
def _run_beyond(
    w: Words, cards: Sequence[Card], below: int, above: int, numbers: Sequence[int], deck: Deck
) -> str:
    if _playing(deck):
        # Playing cards have no card 0 or 14 to name, so say where the wilds would fall instead.
        sides = []
        if below:
            sides.append(
                _fill(w.ngettext("a wild below the ace", "%(num)d wilds below the ace", below), num=below)
            )
        if above:
            sides.append(
                _fill(w.ngettext("a wild above the king", "%(num)d wilds above the king", above), num=above)
            )
        return _fill(
            w.gettext(
                "the run %(cards)s would need %(sides)s; runs go from A to K, and the ace is always low"
            ),
            cards=cards_text(cards),
            sides=w.and_list(sides),
        )
    return _fill(
        w.ngettext(
            "the run %(cards)s would need a wild to stand for %(numbers)s; runs go from 1 to %(top)d and do not "
            "wrap around",
            "the run %(cards)s would need wilds to stand for %(numbers)s; runs go from 1 to %(top)d and do not "
            "wrap around",
            len(numbers),
        ),
        cards=cards_text(cards),
        numbers=w.and_list(str(n) for n in numbers),
        top=_top(deck),
        num=len(numbers),
    )


# --------------------------------------------------------------------------------------------- phases


@_sentence(Refusal.NO_CARDS)
def _no_cards(w: Words) -> str:
    return w.gettext("no cards were put down")


@_sentence("group_without_cards")
def _group_without_cards(w: Words) -> str:
    return w.gettext("one of the groups has no cards")


@_sentence(Refusal.GROUP_COUNT)
def _group_count(w: Words, phase: Phase, laid: int) -> str:
    needed = len(phase.requirements)
    template = w.ngettext(
        "phase %(number)d is %(description)s: that is %(groups)s, and %(laid)s was laid",
        "phase %(number)d is %(description)s: that is %(groups)s, and %(laid)s were laid",
        laid,
    )
    text = _fill(
        template,
        number=phase.number,
        description=w.phase(phase),
        groups=_groups(w, needed),
        laid=_groups(w, laid),
        num=laid,
    )
    if laid > needed:
        text += w.gettext("; more cards may only be added to the groups of the phase, not as a new group")
    return text


@_sentence("group_too_small")
def _group_too_small(w: Words, requirement: Requirement, cards: Sequence[Card]) -> str:
    return _fill(
        w.gettext("a %(group)s needs at least %(size)d cards; %(cards)s is %(count)d"),
        group=noun(w, requirement),
        size=requirement.size,
        cards=cards_text(cards),
        count=len(cards),
    )


@_sentence("group_needs_natural")
def _group_needs_natural(w: Words, kind: GroupKind, cards: Sequence[Card]) -> str:
    return _fill(
        w.gettext("with one numbered card per group, the %(kind)s %(cards)s needs a numbered card"),
        kind=_kind_word(w, kind),
        cards=cards_text(cards),
    )


@_sentence("same_suits")
def _same_suits(w: Words, phase: Phase, suit: Suit) -> str:
    return _fill(
        w.gettext("%(description)s: both groups are %(suit)s; they must be of different suits"),
        description=w.phase(phase),
        suit=_colour_word(w, suit.label),
    )


@_sentence("too_few_cards")
def _too_few_cards(w: Words, phase: Phase, count: int) -> str:
    return _fill(
        w.gettext("phase %(number)d (%(description)s) needs at least %(least)d cards; these are %(count)d"),
        number=phase.number,
        description=w.phase(phase),
        least=phase.min_cards,
        count=count,
    )


@_sentence("not_a_set")
def _not_a_set(w: Words, naturals: Sequence[Card], deck: Deck) -> str:
    return _fill(
        w.gettext("a set is cards of one number; these cards have %(numbers)s"),
        numbers=counted_keys(w, SET, naturals, deck),
    )


@_sentence("not_one_key")
def _not_one_key_phase(w: Words, requirement: Requirement, naturals: Sequence[Card], deck: Deck) -> str:
    return _fill(
        w.gettext("%(group)s: these are %(counts)s"),
        group=noun(w, requirement),
        counts=counted_keys(w, requirement.kind, naturals, deck),
    )


@_sentence("too_many_keys")
def _too_many_keys(w: Words, phase: Phase, naturals: Sequence[Card], deck: Deck) -> str:
    kind = phase.requirements[0].kind
    groups = len(phase.requirements)
    if kind is SET:
        template = w.ngettext(
            "%(description)s can hold only %(num)d number; these cards have %(counts)s",
            "%(description)s can hold only %(num)d numbers; these cards have %(counts)s",
            groups,
        )
    elif kind is COLOR:
        template = w.ngettext(
            "%(description)s can hold only %(num)d colour; these cards have %(counts)s",
            "%(description)s can hold only %(num)d colours; these cards have %(counts)s",
            groups,
        )
    else:
        template = w.ngettext(
            "%(description)s can hold only %(num)d suit; these cards have %(counts)s",
            "%(description)s can hold only %(num)d suits; these cards have %(counts)s",
            groups,
        )
    return _fill(
        template, description=w.phase(phase), num=groups, counts=counted_keys(w, kind, naturals, deck)
    )


@_sentence("needs_two_suits")
def _needs_two_suits(w: Words, phase: Phase, suit: Suit) -> str:
    return _fill(
        w.gettext("%(description)s needs two different suits; the numbered cards are all %(suit)s"),
        description=w.phase(phase),
        suit=_colour_word(w, suit.label),
    )


@_sentence("needs_naturals")
def _needs_naturals(w: Words, phase: Phase) -> str:
    return _fill(
        w.gettext("with one numbered card per group, %(description)s needs %(count)d numbered cards"),
        description=w.phase(phase),
        count=len(phase.requirements),
    )


@_sentence("cards_left_over")
def _cards_left_over(w: Words, phase: Phase, spare: Sequence[Card]) -> str:
    return _fill(
        w.gettext(
            "%(description)s can be made from these cards only with %(spare)s left over; every card put down must "
            "belong to a group of the phase"
        ),
        description=w.phase(phase),
        spare=cards_text(spare),
    )


@_sentence("not_yet")
def _not_yet(w: Words, advice: _Advice, spare: Sequence[Card]) -> str:
    summary = advice_summary(advice, w)
    if not spare:
        return _fill(w.gettext("this is not %(summary)s"), summary=summary)
    return _fill(
        w.ngettext(
            "this is not %(summary)s; %(spare)s fits nowhere",
            "this is not %(summary)s; %(spare)s fit nowhere",
            len(spare),
        ),
        summary=summary,
        spare=cards_text(spare),
        num=len(spare),
    )


@_sentence("run_two_of")
def _run_two_of(w: Words, first: Card, second: Card, deck: Deck) -> str:
    assert first.number is not None
    return _fill(
        w.gettext("a run cannot hold two %(rank)ss (%(first)s and %(second)s)"),
        rank=rank_text(first.number, deck),
        first=first,
        second=second,
    )


@_sentence("run_too_many")
def _run_too_many(w: Words, count: int, deck: Deck) -> str:
    return _fill(
        w.gettext("a run can hold at most %(top)d cards; these are %(count)d"), top=_top(deck), count=count
    )


@_sentence("only_round_corner")
def _only_round_corner(w: Words, numbers: Sequence[int], deck: Deck) -> str:
    top, first = _corner(deck)
    return _fill(
        w.gettext(
            "the numbers %(numbers)s make a run only round the corner from %(top)s to %(first)s; %(why)s"
        ),
        numbers=" ".join(rank_text(n, deck) for n in numbers),
        top=top,
        first=first,
        why=_no_corner(w, deck),
    )


@_sentence("run_gaps")
def _run_gaps(
    w: Words, numbers: Sequence[int], holes: Sequence[int] | None, count: int, wilds: int, deck: Deck
) -> str:
    """``holes``: the numbers missing inside the run; ``None`` where the run wraps and only ``count`` of them is
    known."""
    have = " ".join(rank_text(n, deck) for n in numbers)
    if holes is not None:
        gaps = w.and_list(rank_text(n, deck) for n in holes)
    else:
        gaps = _fill(w.ngettext("%(num)d number", "%(num)d numbers", count), num=count)
    if wilds == 0:
        template = w.gettext("the numbers %(have)s leave gaps at %(gaps)s, and there is no wild to fill them")
    else:
        template = w.ngettext(
            "the numbers %(have)s leave gaps at %(gaps)s, and there is only %(num)d wild to fill them",
            "the numbers %(have)s leave gaps at %(gaps)s, and there are only %(num)d wilds to fill them",
            wilds,
        )
    return _fill(template, have=have, gaps=gaps, num=wilds)


@_sentence("not_a_valid_phase")
def _not_a_valid_phase(w: Words) -> str:
    return w.gettext("not a valid phase")


# --------------------------------------------------------------------------------------------- hits


@_sentence(Refusal.PHASE_NOT_DOWN)
def _phase_not_down(w: Words) -> str:
    return w.gettext("you must lay down your own phase before you can hit")


@_sentence("set_takes_only")
def _set_takes_only(w: Words, number: int, card: int, deck: Deck) -> str:
    return _fill(
        w.gettext("the set of %(rank)ss takes only %(rank)ss or wilds, not %(card)s"),
        rank=rank_text(number, deck),
        card=a_rank(w, rank_text(card, deck)),
    )


@_sentence("colour_takes_only")
def _colour_takes_only(w: Words, colour: Color, card: Card) -> str:
    assert card.color is not None
    return _fill(
        w.gettext("the %(colour)s group takes only %(colour)s cards or wilds; %(card)s is %(its)s"),
        colour=_colour_word(w, colour.label),
        card=card,
        its=_colour_word(w, card.color.label),
    )


@_sentence("suit_takes_only")
def _suit_takes_only(w: Words, suit: Suit, card: Card) -> str:
    assert card.suit is not None
    return _fill(
        w.gettext("the %(suit)s group takes only %(suit)s or jokers; %(card)s is %(its)s"),
        suit=_colour_word(w, suit.label),
        card=card,
        its=_colour_word(w, card.suit.label),
    )


@_sentence("run_takes")
def _run_takes(w: Words, group: Sequence[Card], options: Sequence[int], card: int, deck: Deck) -> str:
    if options:
        takes = w.or_list(a_rank(w, rank_text(o, deck)) for o in options)
    else:
        takes = w.gettext("nothing more at that end")
    return _fill(
        w.gettext("the run %(group)s takes %(takes)s, not %(card)s"),
        group=cards_text(group),
        takes=takes,
        card=a_rank(w, rank_text(card, deck)),
    )


@_sentence("run_no_room_for_wild")
def _run_no_room_for_wild(w: Words, group: Sequence[Card], end: str | None) -> str:
    if end == "low":
        template = w.gettext("the run %(group)s has no room at the low end for a wild")
    elif end == "high":
        template = w.gettext("the run %(group)s has no room at the high end for a wild")
    else:
        template = w.gettext("the run %(group)s has no room at either end for a wild")
    return _fill(template, group=cards_text(group))


@_sentence("run_full")
def _run_full(w: Words, group: Sequence[Card], deck: Deck) -> str:
    return _fill(
        w.gettext("the run %(group)s already holds every number from %(first)s to %(top)s"),
        group=cards_text(group),
        first=rank_text(1, deck),
        top=rank_text(_top(deck), deck),
    )


@_sentence("run_room")
def _run_room(w: Words, group: Sequence[Card], count: int, deck: Deck) -> str:
    room = _top(deck) - len(group)
    return _fill(
        w.ngettext(
            "the run %(group)s can take %(num)d more card at most (a run holds at most %(top)d cards); these are "
            "%(count)d",
            "the run %(group)s can take %(num)d more cards at most (a run holds at most %(top)d cards); these are "
            "%(count)d",
            room,
        ),
        group=cards_text(group),
        num=room,
        top=_top(deck),
        count=count,
    )


@_sentence("not_at_ends")
def _not_at_ends(w: Words, group: Sequence[Card], cards: Sequence[Card], placed: Sequence[_Placement]) -> str:
    return _fill(
        w.gettext("the run %(group)s takes %(cards)s only as %(where)s, not at the ends named"),
        group=cards_text(group),
        cards=cards_text(cards),
        where=placements(placed, w),
    )


@_sentence("gap_round_corner")
def _gap_round_corner(w: Words, gap: Reason, deck: Deck) -> str:
    return _fill(w.gettext("%(gap)s (%(why)s)"), gap=say(gap, w), why=_no_corner(w, deck))


@_sentence("cannot_take")
def _cannot_take(w: Words, group: Sequence[Card], cards: Sequence[Card]) -> str:
    return _fill(
        w.gettext("the run %(group)s cannot take %(cards)s"), group=cards_text(group), cards=cards_text(cards)
    )


def _stand_for(w: Words, wilds: int, needed: int) -> str:
    if wilds == 0:
        return w.ngettext("there is no wild to stand for it", "there is no wild to stand for them", needed)
    if needed == 1:
        template = w.ngettext(
            "there is only %(num)d wild to stand for it",
            "there are only %(num)d wilds to stand for it",
            wilds,
        )
    else:
        template = w.ngettext(
            "there is only %(num)d wild to stand for them",
            "there are only %(num)d wilds to stand for them",
            wilds,
        )
    return _fill(template, num=wilds)


@_sentence("wild_run_gap")
def _wild_run_gap(w: Words, group: Sequence[Card], naturals: Sequence[Card], needed: int, wilds: int) -> str:
    return _fill(
        w.ngettext(
            "to take %(cards)s, the run %(group)s would need %(num)d more card between them; %(stand)s",
            "to take %(cards)s, the run %(group)s would need %(num)d more cards between them; %(stand)s",
            needed,
        ),
        cards=cards_text(naturals),
        group=cards_text(group),
        num=needed,
        stand=_stand_for(w, wilds, needed),
    )


@_sentence("run_would_need")
def _run_would_need(
    w: Words, group: Sequence[Card], naturals: Sequence[Card], numbers: Sequence[int], wilds: int, deck: Deck
) -> str:
    return _fill(
        w.gettext("the run %(group)s would also need %(numbers)s to take %(cards)s; %(stand)s"),
        group=cards_text(group),
        numbers=w.and_list(a_rank(w, rank_text(n, deck)) for n in numbers),
        cards=cards_text(naturals),
        stand=_stand_for(w, wilds, len(numbers)),
    )


@_sentence("note_own_wilds")
def _note_own_wilds(w: Words, chosen: Sequence[_Placement]) -> str:
    return _fill(
        w.gettext(
            "%(chosen)s — with no end named, cards go to the top where they fit; the run's own wilds could also "
            "stand for other numbers"
        ),
        chosen=placements(chosen, w),
    )


@_sentence("note_also_fits")
def _note_also_fits(
    w: Words, chosen: Sequence[_Placement], other: Sequence[_Placement], wilds_only: bool
) -> str:
    if wilds_only:
        template = w.gettext("%(chosen)s — a wild with no end named goes to the top; %(other)s would fit too")
    else:
        template = w.gettext(
            "%(chosen)s — with no end named, cards go to the top where they fit; %(other)s would fit too"
        )
    return _fill(template, chosen=placements(chosen, w), other=placements(other, w))


@_sentence("not_a_legal_hit")
def _not_a_legal_hit(w: Words) -> str:
    return w.gettext("not a legal hit")


# --------------------------------------------------------------------------------------------- the advisor


class _GroupAdvice(Protocol):
    @property
    def requirement(self) -> Requirement: ...
    @property
    def cards(self) -> tuple[Card, ...]: ...
    @property
    def missing(self) -> int: ...
    @property
    def target(self) -> Any: ...
    @property
    def wanted(self) -> tuple[int, ...]: ...
    @property
    def needs_natural(self) -> bool: ...


class _Advice(Protocol):
    @property
    def phase(self) -> Phase: ...
    @property
    def groups(self) -> Sequence[_GroupAdvice]: ...
    @property
    def missing(self) -> int: ...
    @property
    def deck(self) -> Deck: ...


def _count(w: Words, n: int) -> str:
    return {1: w.gettext("one"), 2: w.gettext("two"), 3: w.gettext("three")}.get(n, str(n))


def _rank_word(w: Words, number: int, deck: Deck) -> str:
    if _playing(deck) and number in (1, 11, 12, 13):
        return {1: w.gettext("ace"), 11: w.gettext("jack"), 12: w.gettext("queen"), 13: w.gettext("king")}[
            number
        ]
    return str(number)


def _a_rank_word(w: Words, number: int, deck: Deck) -> str:
    """'a 7', 'an 8', 'an 11', 'an ace', 'a king'."""
    if _playing(deck) and number in (1, 11, 12, 13):
        return {
            1: w.gettext("an ace"),
            11: w.gettext("a jack"),
            12: w.gettext("a queen"),
            13: w.gettext("a king"),
        }[number]
    word = str(number)
    if word[0] == "8" or word in ("11", "18"):
        return _fill(w.gettext("an %(rank)s"), rank=word)
    return _fill(w.gettext("a %(rank)s"), rank=word)


def advice_need(group: _GroupAdvice, deck: Deck, w: Words = ENGLISH) -> str:
    """What one group of the advice still lacks: 'one more 8', 'a 1 and a 2', 'two more red cards'; empty when
    it lacks nothing."""
    missing = group.missing
    if missing == 0:
        return ""
    target = group.target
    kind = group.requirement.kind
    have = len(group.cards)
    if target is None:
        if group.needs_natural and have > 0:
            if missing == 1:
                return w.gettext("a numbered card")
            return _fill(w.gettext("%(count)s more cards, one of them numbered"), count=_count(w, missing))
        if have:
            template = {
                SET: w.gettext("%(count)s more cards of one number"),
                RUN: w.gettext("%(count)s more cards in a row"),
                COLOR: w.gettext("%(count)s more cards of one colour"),
                SUIT: w.gettext("%(count)s more cards of one suit"),
            }[kind]
        else:
            template = {
                SET: w.gettext("%(count)s cards of one number"),
                RUN: w.gettext("%(count)s cards in a row"),
                COLOR: w.gettext("%(count)s cards of one colour"),
                SUIT: w.gettext("%(count)s cards of one suit"),
            }[kind]
        return _fill(template, count=_count(w, missing))
    if kind is SET:
        return _fill(
            w.ngettext("%(count)s more %(rank)s", "%(count)s more %(rank)ss", missing),
            count=_count(w, missing),
            rank=_rank_word(w, int(target), deck),
        )
    if kind is RUN:
        words = [_a_rank_word(w, n, deck) for n in group.wanted]
        return w.chain(words)
    label = str(target.label)
    if kind is COLOR:
        return _fill(
            w.ngettext("%(count)s more %(colour)s card", "%(count)s more %(colour)s cards", missing),
            count=_count(w, missing),
            colour=_colour_word(w, label),
        )
    forms = {
        "spades": w.ngettext("%(count)s more spade", "%(count)s more spades", missing),
        "hearts": w.ngettext("%(count)s more heart", "%(count)s more hearts", missing),
        "diamonds": w.ngettext("%(count)s more diamond", "%(count)s more diamonds", missing),
        "clubs": w.ngettext("%(count)s more club", "%(count)s more clubs", missing),
    }
    return _fill(forms[label], count=_count(w, missing))


def _short(card: Card, deck: Deck) -> str:
    if card.is_wild:
        return "W" if not _playing(deck) else "JK"
    assert card.number is not None
    return rank_text(card.number, deck)


def _advice_group(w: Words, group: _GroupAdvice, deck: Deck) -> str:
    if not group.cards:
        return _fill(w.gettext("nothing toward the %(group)s"), group=noun(w, group.requirement))
    if group.requirement.kind in (SET, RUN):
        return " ".join(_short(c, deck) for c in group.cards)
    return cards_text(group.cards)


def _group_label(w: Words, groups: Sequence[_GroupAdvice], index: int) -> str:
    kinds = [g.requirement.kind for g in groups]
    kind = kinds[index]
    nth = kinds[:index].count(kind) if kinds.count(kind) > 1 else None
    plain = {
        SET: w.gettext("set"),
        RUN: w.gettext("run"),
        COLOR: w.gettext("colour group"),
        SUIT: w.gettext("suit group"),
    }
    first = {
        SET: w.gettext("first set"),
        RUN: w.gettext("first run"),
        COLOR: w.gettext("first colour group"),
        SUIT: w.gettext("first suit group"),
    }
    second = {
        SET: w.gettext("second set"),
        RUN: w.gettext("second run"),
        COLOR: w.gettext("second colour group"),
        SUIT: w.gettext("second suit group"),
    }
    third = {
        SET: w.gettext("third set"),
        RUN: w.gettext("third run"),
        COLOR: w.gettext("third colour group"),
        SUIT: w.gettext("third suit group"),
    }
    if nth is None:
        return plain[kind]
    return {0: first, 1: second, 2: third}.get(nth, plain)[kind]


def advice_summary(advice: _Advice, w: Words = ENGLISH) -> str:
    """The advice in one line: 'two sets of 3: have 5 5 W and 8 8 — need one more 8, or a wild'."""
    deck = advice.deck
    groups = list(advice.groups)
    have = w.chain(_advice_group(w, g, deck) for g in groups)
    head = _fill(w.gettext("%(description)s: have %(have)s"), description=w.phase(advice.phase), have=have)
    if advice.missing == 0:
        return _fill(w.gettext("%(head)s — complete, it can be laid down"), head=head)
    lacking = [(i, g) for i, g in enumerate(groups) if g.missing]
    if len(lacking) == 1:
        needs = advice_need(lacking[0][1], deck, w)
    else:
        parts = [
            _fill(
                w.gettext("%(need)s for the %(group)s"),
                need=advice_need(g, deck, w),
                group=_group_label(w, groups, i),
            )
            for i, g in lacking
        ]
        needs = w.chain(parts)
    if any(g.needs_natural for g in groups):
        return _fill(
            w.gettext("%(head)s — need %(needs)s (wilds alone are no phase)"), head=head, needs=needs
        )
    return _fill(
        w.ngettext(
            "%(head)s — need %(needs)s, or a wild", "%(head)s — need %(needs)s, or wilds", advice.missing
        ),
        head=head,
        needs=needs,
        num=advice.missing,
    )


# --------------------------------------------------------------------------------------------- round reports


@_sentence("report_not_an_object")
def _report_not_an_object(w: Words) -> str:
    return w.gettext("a round report must be an object with 'went_out' and 'players'")


@_sentence("went_out_list")
def _went_out_list(w: Words) -> str:
    return w.gettext(
        "only one player goes out in a round: name one player in 'went_out' (001 \"When you have no cards left, "
        'the round ends for everyone")'
    )


@_sentence("went_out_not_a_name")
def _went_out_not_a_name(w: Words) -> str:
    return w.gettext("'went_out' must be the name of the player who went out")


@_sentence("players_missing")
def _players_missing(w: Words) -> str:
    return w.gettext("'players' must give a report for each player of the round")


@_sentence("player_not_named")
def _player_not_named(w: Words) -> str:
    return w.gettext("each player in 'players' must be named by a string")


@_sentence(Refusal.PLAYER_REPORT_SHAPE)
def _player_report_shape(w: Words, who: str) -> str:
    return _fill(
        w.gettext('%(who)s\'s report must be an object such as {"laid_down": true, "points": 35}'), who=who
    )


@_sentence("not_a_player_report")
def _not_a_player_report(w: Words, who: str) -> str:
    return _fill(w.gettext("%(who)s's report is not a player report"), who=who)


@_sentence(Refusal.LAID_DOWN_MISSING)
def _laid_down_missing(w: Words, who: str) -> str:
    return _fill(w.gettext("say whether %(who)s laid down a phase ('laid_down': true or false)"), who=who)


@_sentence(Refusal.POINTS_NOT_A_NUMBER)
def _points_not_a_number(w: Words, who: str) -> str:
    return _fill(w.gettext("%(who)s's points must be a whole number"), who=who)


@_sentence(Refusal.PHASE_NOT_A_NUMBER)
def _phase_not_a_number(w: Words, who: str) -> str:
    return _fill(w.gettext("%(who)s's phase must be a whole number"), who=who)


@_sentence(Refusal.CARDS_SHAPE)
def _cards_shape(w: Words, who: str) -> str:
    return _fill(w.gettext('%(who)s\'s cards must be a list of cards such as ["R3", "W"]'), who=who)


@_sentence(Refusal.TOO_MANY_CARDS)
def _too_many_cards(w: Words, who: str, most: int, deck: Deck) -> str:
    if _playing(deck):
        template = w.gettext(
            '%(who)s cannot hold more than %(most)d cards at the end of a round (004: "deal each player 10 cards"; '
            "there is no Skip to add an eleventh)"
        )
    else:
        template = w.gettext(
            "%(who)s cannot hold more than %(most)d cards at the end of a round (ten dealt, 001)"
        )
    return _fill(template, who=who, most=most)


@_sentence(Refusal.UNKNOWN_CARD)
def _unknown_card(w: Words, who: str, card: Reason) -> str:
    return _fill(w.gettext("%(who)s's cards: %(why)s"), who=who, why=say(card, w))


def _deck_name(w: Words, deck: Deck) -> str:
    return w.gettext("a deck of playing cards") if _playing(deck) else w.gettext("the Phase 10 deck")


@_sentence(Refusal.WRONG_DECK.value + "_in_hand")
def _wrong_deck_in_hand(w: Words, who: str, card: object, deck: Deck) -> str:
    if _playing(deck):
        template = w.gettext("%(who)s's cards: %(card)s is not a card of a deck of playing cards")
    else:
        template = w.gettext("%(who)s's cards: %(card)s is not a card of the Phase 10 deck")
    return _fill(template, who=who, card=card)


@_sentence(Refusal.NOBODY_WENT_OUT)
def _nobody_went_out(w: Words) -> str:
    return w.gettext(
        'nobody went out: a round ends when one player has no cards left (001 "When you have no cards left, the '
        'round ends for everyone")'
    )


@_sentence(Refusal.TOO_MANY_PLAYERS)
def _too_many_players(w: Words, most: int) -> str:
    return _fill(w.gettext('a round has at most %(most)d players (001 "2-6 players")'), most=most)


@_sentence(Refusal.WENT_OUT_UNKNOWN)
def _went_out_unknown(w: Words, who: str) -> str:
    return _fill(w.gettext("%(who)s went out but has no report in this round"), who=who)


@_sentence(Refusal.OUT_NOT_DOWN)
def _out_not_down(w: Words, who: str) -> str:
    return _fill(
        w.gettext(
            '%(who)s went out without laying down a phase: a player can only go out after laying down (001 "Going '
            'out")'
        ),
        who=who,
    )


@_sentence(Refusal.OUT_WITH_POINTS)
def _out_with_points(w: Words, who: str) -> str:
    return _fill(
        w.gettext(
            '%(who)s went out, so %(who)s has no cards left and scores 0 (001 "The player who goes out scores '
            'zero")'
        ),
        who=who,
    )


@_sentence(Refusal.PHASE_NOT_IN_GAME)
def _phase_not_in_game(w: Words, who: str, phase: int, last: int) -> str:
    return _fill(
        w.gettext("%(who)s: there is no phase %(phase)d in this game (phases 1 to %(last)d)"),
        who=who,
        phase=phase,
        last=last,
    )


@_sentence(Refusal.POINTS_AND_CARDS)
def _points_and_cards(w: Words, who: str) -> str:
    return _fill(w.gettext("give either %(who)s's points or %(who)s's cards, not both"), who=who)


@_sentence(Refusal.POINTS_MISSING)
def _points_missing(w: Words, who: str) -> str:
    return _fill(
        w.gettext("%(who)s did not go out: give %(who)s's points or the cards left in %(who)s's hand"),
        who=who,
    )


@_sentence(Refusal.TWO_WENT_OUT)
def _two_went_out(w: Words, who: str) -> str:
    return _fill(
        w.gettext(
            "%(who)s has no cards left, which means %(who)s went out too; only one player goes out in a round (001 "
            '"When you have no cards left, the round ends for everyone")'
        ),
        who=who,
    )


@_sentence(Refusal.POINTS_NEGATIVE)
def _points_negative(w: Words, who: str) -> str:
    return _fill(w.gettext("%(who)s's points cannot be negative: cards left in hand add points"), who=who)


@_sentence(Refusal.POINTS_NOT_MULTIPLE)
def _points_not_multiple(w: Words, who: str) -> str:
    return _fill(
        w.gettext("%(who)s's points must be a multiple of 5: every card scores 5, 10, 15 or 25"), who=who
    )


@_sentence(Refusal.POINTS_TOO_MANY)
def _points_too_many(w: Words, who: str, points: int, most: int, cards: int, deck: Deck) -> str:
    return _fill(
        w.gettext(
            "%(who)s's %(points)d points are more than any hand can hold: at most %(most)d (%(cards)d cards of "
            "%(deck)s)"
        ),
        who=who,
        points=points,
        most=most,
        cards=cards,
        deck=_deck_name(w, deck),
    )


@_sentence(Refusal.TOO_MANY_COPIES)
def _too_many_copies(w: Words, count: int, card: object, deck: Deck, available: int) -> str:
    return _fill(
        w.gettext(
            "%(count)d cards %(card)s are reported in hands, but %(deck)s in this game has only %(available)d"
        ),
        count=count,
        card=card,
        deck=_deck_name(w, deck),
        available=available,
    )


# --------------------------------------------------------------------------------------------- the game


@_sentence(Refusal.GAME_OVER)
def _game_over(w: Words, winner: str | None) -> str:
    return _fill(
        w.gettext("the game is over (%(winner)s won): no more rounds can be reported"), winner=winner
    )


@_sentence(Refusal.NOT_IN_TIE_BREAK)
def _not_in_tie_break(w: Words, who: str, players: Sequence[str]) -> str:
    return _fill(
        w.gettext("%(who)s is not in the tie-break: only %(players)s replay the last phase (001)"),
        who=who,
        players=w.and_list(players),
    )


@_sentence(Refusal.NOT_A_PLAYER)
def _not_a_player(w: Words, who: str, players: Sequence[str]) -> str:
    return _fill(
        w.gettext("%(who)s is not a player in this game: the players are %(players)s"),
        who=who,
        players=w.and_list(players),
    )


@_sentence(Refusal.PLAYER_MISSING)
def _player_missing(w: Words, who: str) -> str:
    return _fill(w.gettext("%(who)s's report is missing: every player of the round needs one"), who=who)


@_sentence(Refusal.PHASE_NOT_CHOSEN)
def _phase_not_chosen(w: Words, who: str) -> str:
    return _fill(
        w.gettext(
            "say which phase %(who)s laid down: in Masters each player chooses the phase to attempt (000)"
        ),
        who=who,
    )


@_sentence(Refusal.PHASE_ALREADY_DONE)
def _phase_already_done(w: Words, who: str, phase: int) -> str:
    return _fill(
        w.gettext(
            "%(who)s has already completed phase %(phase)d: in Masters a player chooses a phase not yet completed "
            "(000)"
        ),
        who=who,
        phase=phase,
    )


@_sentence(Refusal.WRONG_PHASE)
def _wrong_phase(w: Words, who: str, phase: int, current: int, tie_break: bool) -> str:
    if tie_break:
        template = w.gettext(
            "%(who)s cannot have attempted phase %(phase)d: the tie-break replays phase %(current)d (001)"
        )
    else:
        template = w.gettext("%(who)s cannot have attempted phase %(phase)d: %(who)s is on phase %(current)d")
    return _fill(template, who=who, phase=phase, current=current)


@_sentence("in_round")
def _in_round(w: Words, number: int, why: Reason | str) -> str:
    return _fill(w.gettext("round %(number)d: %(why)s"), number=number, why=_nested(why, w))


@_sentence("later_rounds_break")
def _later_rounds_break(w: Words, why: Reason | str) -> str:
    return _fill(
        w.gettext("this change does not fit the rounds after it (%(why)s); change or delete those first"),
        why=_nested(why, w),
    )


@_sentence("later_rounds_break_without")
def _later_rounds_break_without(w: Words, number: int, why: Reason | str) -> str:
    return _fill(
        w.gettext(
            "without round %(number)d the later rounds no longer hold (%(why)s); change or delete those first"
        ),
        number=number,
        why=_nested(why, w),
    )


# --------------------------------------------------------------------------------------------- setting up


@_sentence(Refusal.NAMES_SHAPE)
def _names_shape(w: Words) -> str:
    return w.gettext("give the players' names as a list, in seat order")


@_sentence(Refusal.NO_RULE_SET)
def _no_rule_set(w: Words) -> str:
    return w.gettext("choose a rule set")


@_sentence(Refusal.PLAYER_COUNT)
def _player_count(w: Words, least: int, most: int, count: int) -> str:
    return _fill(
        w.gettext("Phase 10 is played by %(least)d to %(most)d players (001), not %(count)d"),
        least=least,
        most=most,
        count=count,
    )


@_sentence(Refusal.NAME_NOT_TEXT)
def _name_not_text(w: Words) -> str:
    return w.gettext("each player's name must be text")


@_sentence(Refusal.NAME_EMPTY)
def _name_empty(w: Words) -> str:
    return w.gettext("every player needs a name")


@_sentence(Refusal.NAME_TOO_LONG)
def _name_too_long(w: Words, name: str, most: int) -> str:
    return _fill(
        w.gettext("%(name)s is too long: a name has at most %(most)d characters"), name=repr(name), most=most
    )


@_sentence(Refusal.NAME_REPEATED)
def _name_repeated(w: Words, name: str) -> str:
    return _fill(
        w.gettext("two players are called %(name)s: give each player a different name"), name=repr(name)
    )


@_sentence(Refusal.DEALER)
def _dealer(w: Words, seats: int) -> str:
    return _fill(
        w.gettext("the first dealer must be one of the %(seats)d seats (0 to %(last)d)"),
        seats=seats,
        last=seats - 1,
    )
