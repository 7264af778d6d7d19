"""The fast referee, hits and advisor against brute force (tests/rules/oracle.py) on random inputs: up to 12
cards, every phase of both phase lists, every option (wrap-around runs, a numbered card per group)."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.rules import referee
from companion.rules.advisor import advise
from companion.rules.cards import Card, Color, Deck, Suit
from companion.rules.fastphase import decide
from companion.rules.hits import check_hit
from companion.rules.phases import GroupKind, Phase, Requirement
from companion.rules.referee import InvalidGroupError, check_phase, is_valid_phase, make_group
from companion.rules.rulesets import RuleSet, get_ruleset
from tests.rules.oracle import oracle_missing, oracle_valid

STANDARD_COLORS = [Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW]


def quick(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def rule_sets(draw: st.DrawFn, deck: str) -> RuleSet:
    return get_ruleset(
        # 004 refuses wrapping runs, so the option is drawn only where the deck allows it.
        deck,
        wrap_runs=deck != "playing-cards" and draw(st.booleans()),
        natural_per_group=draw(st.booleans()),
    )


@st.composite
def hands(draw: st.DrawFn, rules: RuleSet, min_size: int, max_size: int) -> list[Card]:
    """Cards bunched around a few numbers and colours, so that a fair share of them make a phase."""
    top = rules.deck.max_rank
    low = draw(st.integers(1, top))
    spread = draw(st.integers(1, 7))
    wild = Card.wild(rules.deck)
    if rules.deck is Deck.PLAYING:
        suits = draw(st.lists(st.sampled_from(list(Suit)), min_size=1, max_size=4, unique=True))
        natural = st.builds(
            lambda off, s: Card.playing_card((low + off - 1) % top + 1, s),
            st.integers(0, spread - 1),
            st.sampled_from(suits),
        )
        card = st.one_of(natural, natural, natural, st.just(wild))
    else:
        colors = draw(st.lists(st.sampled_from(STANDARD_COLORS), min_size=1, max_size=4, unique=True))
        natural = st.builds(
            lambda off, c: Card.number_card((low + off - 1) % top + 1, c),
            st.integers(0, spread - 1),
            st.sampled_from(colors),
        )
        card = st.one_of(natural, natural, natural, st.just(wild))
    cards = draw(st.lists(card, min_size=min_size, max_size=max_size))
    if rules.deck is Deck.STANDARD and draw(st.integers(0, 9)) == 0:
        cards[draw(st.integers(0, len(cards) - 1))] = Card.skip()  # 000, 001: never part of a phase
    return cards


@st.composite
def laydowns(draw: st.DrawFn, deck: str) -> tuple[RuleSet, int, list[Card]]:
    rules = draw(rule_sets(deck))
    number = draw(st.integers(1, 10))
    need = rules.phase(number).min_cards
    cards = draw(hands(rules, max(1, need - 1), min(12, need + 3)))
    return rules, number, cards


def _agrees_with_oracle(rules: RuleSet, number: int, cards: list[Card]) -> None:
    phase = rules.phase(number)
    verdict = check_phase(cards, phase, rules)
    event("valid" if verdict.valid else "invalid")
    assert verdict.valid == oracle_valid(cards, phase, rules), (
        str(phase),
        [str(c) for c in cards],
        verdict.reason,
    )
    if verdict.valid:
        # The arrangement found holds exactly the cards put down and is itself a valid grouped lay-down.
        laid = [c for g in verdict.groups for c in g.cards]
        assert Counter(laid) == Counter(cards)
        assert check_phase([g.cards for g in verdict.groups], phase, rules).valid
    else:
        assert verdict.reason and verdict.groups == ()


@quick(500)
@given(laydowns("standard"))
def test_referee_agrees_with_brute_force_on_the_standard_phases(case):
    _agrees_with_oracle(*case)


@quick(500)
@given(laydowns("playing-cards"))
def test_referee_agrees_with_brute_force_on_the_playing_card_phases(case):
    _agrees_with_oracle(*case)


# Shapes beside the phase lists': the counted decision covers some and leaves the others to the search.
ODD_PHASES = [
    Phase(0, (Requirement(GroupKind.RUN, 4),), "one run of 4"),
    Phase(0, (Requirement(GroupKind.SET, 3),), "one set of 3"),
    Phase(0, (Requirement(GroupKind.RUN, 3), Requirement(GroupKind.SET, 2)), "one run of 3 and one set of 2"),
    Phase(0, (Requirement(GroupKind.COLOR, 3), Requirement(GroupKind.COLOR, 2)), "two colour groups"),
    Phase(
        0,
        (Requirement(GroupKind.SET, 2), Requirement(GroupKind.RUN, 2), Requirement(GroupKind.SET, 1)),
        "a set of 2, a run of 2 and a set of 1",
    ),
]


@st.composite
def counted_cases(draw: st.DrawFn) -> tuple[RuleSet, Phase, list[Card]]:
    deck = draw(st.sampled_from(["standard", "masters", "playing-cards"]))
    rules = get_ruleset(
        # 004 refuses wrapping runs, so the option is drawn only where the deck allows it.
        deck,
        wrap_runs=deck != "playing-cards" and draw(st.booleans()),
        natural_per_group=draw(st.booleans()),
    )
    phase = draw(st.sampled_from([*rules.phases.values(), *ODD_PHASES]))
    need = phase.min_cards
    return rules, phase, draw(hands(rules, max(0, need - 1), min(11, need + 3)))


@quick(600)
@given(counted_cases())
def test_001_a_phase_is_valid_when_its_cards_make_every_group_it_asks_for_counted_as_searched(case):
    # 001: every card put down belongs to a group of the phase. The decision on counts (fastphase) and the
    # search over splits (the referee without it) must answer alike, and both as brute force does.
    rules, phase, cards = case
    counted = decide(cards, phase, rules)
    searched = referee._check_ungrouped(cards, phase, rules).valid
    event("search only" if counted is None else f"counted {'valid' if counted else 'invalid'}")
    if counted is not None:
        assert counted == searched, (str(phase), [str(c) for c in cards])
        assert not any(c.is_skip for c in cards)
    assert is_valid_phase(cards, phase, rules) == searched == check_phase(cards, phase, rules).valid
    if len(cards) <= 10:
        assert searched == oracle_valid(cards, phase, rules), (str(phase), [str(c) for c in cards])


@st.composite
def advisor_cases(draw: st.DrawFn) -> tuple[RuleSet, int, list[Card]]:
    rules = draw(rule_sets(draw(st.sampled_from(["standard", "playing-cards"]))))
    number = draw(st.integers(1, 10))
    hand = [c for c in draw(hands(rules, 3, 7)) if not c.is_skip] or [Card.wild(rules.deck)]
    return rules, number, hand


@quick(60)
@given(advisor_cases())
def test_advisor_needs_exactly_as_few_cards_as_brute_force_finds(case):
    rules, number, hand = case
    phase = rules.phase(number)
    advice = advise(hand, phase, rules)
    event(f"missing {advice.missing}")
    assert advice.missing == oracle_missing(hand, phase, rules), (
        str(phase),
        [str(c) for c in hand],
        advice.summary,
    )
    assert Counter([c for g in advice.groups for c in g.cards] + list(advice.spare)) == Counter(hand)


@st.composite
def complete_hands(draw: st.DrawFn) -> tuple[RuleSet, int, list[Card]]:
    rules = draw(rule_sets(draw(st.sampled_from(["standard", "playing-cards"]))))
    number = draw(st.integers(1, 10))
    return rules, number, draw(hands(rules, 6, 11))


@quick(80)
@given(complete_hands())
def test_a_complete_advice_is_a_valid_lay_down_and_says_so_exactly_when_one_exists(case):
    rules, number, hand = case
    phase = rules.phase(number)
    advice = advise(hand, phase, rules)
    event("complete" if advice.complete else "incomplete")
    if advice.complete:
        assert check_phase(advice.lay_down(), phase, rules).valid
        assert check_phase([c for g in advice.lay_down() for c in g], phase, rules).valid
    else:
        # Nothing in the hand makes the phase: not even every card the advice left out added back.
        assert not check_phase([c for c in hand if not c.is_skip], phase, rules).valid or advice.missing == 0


@st.composite
def hit_cases(draw: st.DrawFn) -> tuple[RuleSet, GroupKind, list[Card], Card]:
    rules = draw(rule_sets(draw(st.sampled_from(["standard", "playing-cards"]))))
    kinds = [GroupKind.SET, GroupKind.RUN, GroupKind.COLOR]
    if rules.deck is Deck.PLAYING:
        kinds.append(GroupKind.SUIT)
    kind = draw(st.sampled_from(kinds))
    cards = draw(hands(rules, 1, 6))
    card = draw(hands(rules, 1, 1))[0]
    return rules, kind, cards, card


def _oracle_hit(kind: GroupKind, laid, card: Card, rules: RuleSet) -> bool:
    """Some end where the card joins with the laid cards keeping the values they had (000)."""
    sides = [((*laid.cards, card), slice(0, -1))]
    if kind is GroupKind.RUN:
        sides.append(((card, *laid.cards), slice(1, None)))
    for cards, keep in sides:
        try:
            new = make_group(kind, cards, rules)
        except InvalidGroupError:
            continue
        old = laid.values
        if all(o is None for o in old) or new.values[keep] == old:
            return True
    return False


@quick(150)
@given(hit_cases())
def test_a_single_card_hit_is_legal_exactly_when_brute_force_finds_a_place(case):
    rules, kind, cards, card = case
    try:
        laid = make_group(kind, cards, rules)
    except InvalidGroupError:
        return
    verdict = check_hit(laid, [card], rules)
    event("legal" if verdict.legal else "refused")
    assert verdict.legal == _oracle_hit(kind, laid, card, rules), (
        [str(c) for c in cards],
        str(card),
        verdict.reason,
    )
    if verdict.legal:
        assert make_group(kind, verdict.group.cards, rules).cards == verdict.group.cards


@quick(100)
@given(
    hit_cases(), st.lists(st.integers(0, 3), min_size=0, max_size=2), st.sampled_from([None, "low", "high"])
)
def test_000_a_hit_only_adds_cards_and_the_laid_cards_keep_their_values(case, extra, end):
    # 000: a wild "must remain as that card until the hand is over": hits add at the ends, nothing shifts.
    rules, kind, cards, card = case
    try:
        laid = make_group(kind, cards, rules)
    except InvalidGroupError:
        return
    more = [card, *[cards[i % len(cards)] for i in extra]]
    verdict = check_hit(laid, more, rules, end=end)
    if not verdict.legal:
        assert verdict.reason and verdict.group == laid
        return
    new = verdict.group
    assert make_group(kind, new.cards, rules).cards == new.cards
    assert len(new.cards) == len(laid.cards) + len(more)
    offsets = [i for i in range(len(more) + 1) if new.cards[i : i + len(laid.cards)] == laid.cards]
    assert offsets
    if any(v is not None for v in laid.values):
        assert any(new.values[i : i + len(laid.values)] == laid.values for i in offsets)
