"""Hits onto a group on the table, one test per hitting sentence of the sources and the cross-checks."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.rules.cards import Card, Color, Deck, Suit, parse_cards
from companion.rules.hits import apply_hit, check_hit
from companion.rules.phases import GroupKind
from companion.rules.referee import IllegalPlayError, InvalidGroupError, LaidGroup, WrongDeckError, make_group
from companion.rules.rulesets import RuleSet, get_ruleset

STANDARD = get_ruleset("standard")
PLAYING = get_ruleset("playing-cards")
WRAP = get_ruleset("standard", wrap_runs=True)
# How a note names the rule for a wild with no end named (companion.rules.wording, "note_also_fits").
TOP_RULE = "a wild with no end named goes to the top"


def group(kind: GroupKind, text: str, rules=STANDARD):
    return make_group(kind, parse_cards(text, rules.deck), rules)


def hit(g, text: str, rules=STANDARD, **kw):
    return check_hit(g, parse_cards(text, rules.deck), rules, **kw)


def test_000_one_or_more_4s_may_be_added_to_a_set_of_4s():
    # 000: "A player may add one or more '4's to a player's existing set of '4's."
    v = hit(group(GroupKind.SET, "R4 B4 G4"), "Y4 R4")
    assert v.legal and str(v.group) == "R4 B4 G4 Y4 R4" and v.group.number == 4


def test_000_a_2_and_a_7_and_an_8_may_be_added_to_the_run_3_4_5_6():
    # 000: "A player may add a '2' to a player's existing run of '3', '4', '5', '6' - the player may also add a
    # '7', and an '8' to this run"
    v = hit(group(GroupKind.RUN, "R3 B4 G5 Y6"), "R2 B7 G8")
    assert v.legal and v.group.values == (2, 3, 4, 5, 6, 7, 8)


def test_000_green_cards_may_be_added_to_seven_green_cards():
    # 000: "A player may add one or more green cards to a player's 7 green cards in Phase 8."
    g = group(GroupKind.COLOR, "G1 G2 G3 G5 G8 G8 G12")
    assert hit(g, "G4 G11").legal
    v = hit(g, "R4")
    assert not v.legal and v.reason == "the green group takes only green cards or wilds; R4 is red"


def test_000_a_wild_of_any_color_may_be_added_to_any_of_these():
    # 000: "A player may add a 'Wild' card of any color to any of these examples."
    assert hit(group(GroupKind.SET, "R4 B4 G4"), "W").group.values == (4, 4, 4, 4)
    assert hit(group(GroupKind.RUN, "R3 B4 G5 Y6"), "W").group.values == (3, 4, 5, 6, 7)
    assert hit(group(GroupKind.COLOR, "G1 G2 G3 G5 G8 G8 G12"), "W").group.to_dict()["wilds"] == [
        {"index": 7, "as": "green"}
    ]


def test_000_a_wild_keeps_the_value_it_was_laid_as():
    # 000: "Once a 'Wild' card has been played as a certain card in a Phase, it cannot be replaced by the intended
    # card and used elsewhere, but must remain as that card until the hand is over."
    laid = group(GroupKind.RUN, "W R4 R5 R6")  # the wild is the 3
    v = hit(laid, "B3")
    assert not v.legal and v.reason == "the run W R4 R5 R6 takes a 2 or a 7, not a 3"
    after = hit(laid, "B2 B7").group
    assert after.values == (2, 3, 4, 5, 6, 7)
    assert after.cards[1].is_wild and after.values[1] == 3


def test_001_a_wild_in_a_laid_down_phase_stays_there_and_cannot_be_moved():
    # 001: "Once a Wild card is part of a laid-down phase, it stays there for the rest of the round and cannot be
    # moved." A hit only ever adds cards: the laid cards and their values stay as they were.
    laid = group(GroupKind.SET, "R9 W B9")
    after = hit(laid, "G9 W").group
    assert after.cards[:3] == laid.cards and after.values[:3] == laid.values


def test_001_a_card_of_the_same_number_can_be_added_to_a_set():
    # 001: "A card of the same number can be added to a set."
    assert hit(group(GroupKind.SET, "R12 B12 G12"), "Y12").legal


def test_cross_set_of_12s_takes_a_12_not_an_8():
    g = group(GroupKind.SET, "R12 B12 G12")
    assert hit(g, "B12").legal
    v = hit(g, "Y8")
    assert not v.legal and v.reason == "the set of 12s takes only 12s or wilds, not an 8"
    assert v.group == g  # a refused hit leaves the group as it was


def test_001_a_card_that_continues_the_number_order_can_be_added_to_either_end_of_a_run():
    # 001: "A card that continues the number order can be added to either end of a run"
    g = group(GroupKind.RUN, "R9 B10 G11")
    assert hit(g, "Y8").group.values == (8, 9, 10, 11)
    assert hit(g, "Y12").group.values == (9, 10, 11, 12)


def test_cross_run_9_10_11_takes_8_and_12():
    assert hit(group(GroupKind.RUN, "R9 B10 G11"), "Y8 R12").legal


@pytest.mark.parametrize(
    ("card", "reason"),
    [
        ("R7", "the run R9 B10 G11 takes an 8 or a 12, not a 7"),
        ("R3", "the run R9 B10 G11 takes an 8 or a 12, not a 3"),
    ],
)
def test_cross_run_9_10_11_takes_no_7_or_3(card, reason):
    assert hit(group(GroupKind.RUN, "R9 B10 G11"), card).reason == reason


def test_001_runs_stay_inside_1_to_12_when_hit():
    # 001: no wrap-around unless agreed; a run 9-12 takes only an 8 (and a wild goes to the 8).
    g = group(GroupKind.RUN, "R9 B10 G11 Y12")
    assert hit(g, "R1").reason == "the run R9 B10 G11 Y12 takes an 8, not a 1"
    assert hit(g, "W").group.values == (8, 9, 10, 11, 12)
    assert hit(g, "W", end="high").reason == "the run R9 B10 G11 Y12 has no room at the high end for a wild"
    assert hit(g, "R1", WRAP).group.values == (9, 10, 11, 12, 1)


def test_001_a_card_of_the_right_color_can_be_added_to_a_color_phase():
    # 001: "a card of the right color can be added to a color phase."
    assert hit(group(GroupKind.COLOR, "B1 B2 B3 B5 B8 B8 B12"), "B7").legal


@pytest.mark.parametrize(
    ("cards", "end", "values"),
    [("W", None, (3, 4, 5, 6)), ("W", "low", (2, 3, 4, 5)), ("W W", "low", (1, 2, 3, 4, 5))],
)
def test_001_a_wild_card_can_be_added_anywhere_it_fits_or_at_the_end_the_player_names(cards, end, values):
    # 001: "A Wild card can be added anywhere it fits."
    assert hit(group(GroupKind.RUN, "R3 B4 G5"), cards, end=end).group.values == values


def test_001_a_wild_named_for_an_end_without_room_is_refused():
    g = group(GroupKind.RUN, "R3 B4 G5")
    assert hit(g, "W W W", end="low").reason == "the run W W R3 B4 G5 has no room at the low end for a wild"


def test_001_you_must_have_laid_down_your_own_phase_before_you_can_hit():
    # 001: "You must have laid down your own phase before you can hit."
    v = hit(group(GroupKind.SET, "R4 B4 G4"), "Y4", phase_down=False)
    assert not v.legal and v.reason == "you must lay down your own phase before you can hit"


def test_001_a_skip_can_never_be_part_of_a_phase_not_even_by_a_hit():
    # 001: "A Skip ... can never be part of a phase."
    assert hit(group(GroupKind.SET, "R4 B4 G4"), "S").reason == "a Skip can never be part of a phase"
    with pytest.raises(IllegalPlayError, match="Skip"):
        apply_hit(group(GroupKind.SET, "R4 B4 G4"), parse_cards("S"))


def test_004_a_flush_takes_its_suit_or_a_joker():
    g = group(GroupKind.SUIT, "4H 5H 6H 9H", PLAYING)
    assert hit(g, "KH JK", PLAYING).legal
    assert hit(g, "KS", PLAYING).reason == "the hearts group takes only hearts or jokers; KS is spades"


def test_004_ace_low_a_run_j_q_k_takes_a_10_not_an_ace():
    # 004: "Ace is always low" and no Q-K-A.
    g = group(GroupKind.RUN, "JS QH KD", PLAYING)
    assert hit(g, "10C", PLAYING).legal
    assert hit(g, "AC", PLAYING).reason == "the run JS QH KD takes a 10, not an A"


@pytest.mark.parametrize(
    ("kind", "card", "values"),
    [
        (GroupKind.SET, "R6", (6, 6, 6, 6)),
        (GroupKind.RUN, "R6", (3, 4, 5, 6)),
        (GroupKind.RUN, "R2", (2, 3, 4, 5)),
    ],
)
def test_a_group_of_wilds_only_takes_its_number_from_the_first_numbered_card(kind, card, values):
    assert hit(group(kind, "W W W"), card).group.values == values


def test_hit_verdict_to_dict_is_json_ready():
    v = hit(group(GroupKind.RUN, "R9 B10 G11"), "Y8 R12")
    data = json.loads(json.dumps(v.to_dict()))
    assert data["legal"] is True and data["reason"] is None
    assert data["group"] == ["Y8", "R9", "B10", "G11", "R12"]


@pytest.mark.parametrize(
    ("cards", "named", "match"),
    [
        ("Y4", {"end": "middle"}, "end"),
        ("Y4 W", {"ends": ["low"]}, "one end"),
        ("Y4 W", {"ends": {2: "low"}}, "card 2"),
        ("Y4 W", {"ends": {1: "top"}}, "not 'top'"),
    ],
)
def test_bad_ends_raise_value_errors(cards, named, match):
    with pytest.raises(ValueError, match=match):
        hit(group(GroupKind.SET, "R4 B4 G4"), cards, **named)


def test_bad_hit_input_raises_value_errors():
    g = group(GroupKind.SET, "R4 B4 G4")
    with pytest.raises(ValueError, match="at least one card"):
        check_hit(g, (), STANDARD)
    with pytest.raises(WrongDeckError):
        check_hit(g, parse_cards("JK", Deck.PLAYING), STANDARD)


# --------------------------------------------------------------------------------------------- a hit as a set


@pytest.mark.parametrize("order", list(itertools.permutations(["R2", "B7", "G8"])))
def test_000_the_cards_of_a_hit_are_judged_together_in_any_order(order):
    # 000: "A player may add a '2' to a player's existing run of '3', '4', '5', '6' - the player may also add a
    # '7', and an '8' to this run": the three go on together, however they are typed.
    v = hit(group(GroupKind.RUN, "G3 G4 G5 G6"), " ".join(order))
    assert v.legal and v.group.values == (2, 3, 4, 5, 6, 7, 8) and v.note is None


def test_000_cards_typed_high_first_go_on_in_number_order():
    g = group(GroupKind.RUN, "G3 G4 G5 G6")
    v = hit(g, "R8 R7")
    assert str(v.group) == "G3 G4 G5 G6 R7 R8" and v.description == "R8 (high end), R7 (high end)"


def test_001_a_wild_added_with_other_cards_goes_where_it_fits():
    # 001: "A Wild card can be added anywhere it fits." W R7 onto 3-6: the wild fits as the 8 above the 7 or
    # as the 2; with no end named it goes to the top, and the verdict says so.
    g = group(GroupKind.RUN, "G3 G4 G5 G6")
    v = hit(g, "W R7")
    assert v.legal and str(v.group) == "G3 G4 G5 G6 R7 W" and v.group.values == (3, 4, 5, 6, 7, 8)
    assert v.description == "W as 8 (high end), R7 (high end)"
    assert v.note == f"W as 8 (high end) — {TOP_RULE}; W as 2 (low end) would fit too"


@pytest.mark.parametrize(
    "named", [{"ends": ["low", None]}, {"ends": {0: "low"}}, {"end": "low"}, {"ends": ["low", "high"]}]
)
def test_001_a_wild_can_be_named_for_the_low_end_while_the_other_cards_go_on_top(named):
    # 001: "A Wild card can be added anywhere it fits": W as the 2 and R7 on top, asked for card by card, or
    # with ``end``, which names the end of every wild.
    v = hit(group(GroupKind.RUN, "G3 G4 G5 G6"), "W R7", **named)
    assert v.legal and str(v.group) == "W G3 G4 G5 G6 R7" and v.group.values == (2, 3, 4, 5, 6, 7)
    assert v.description == "W as 2 (low end), R7 (high end)" and v.note is None
    assert v.to_dict()["placed"] == [
        {"card": "W", "end": "low", "as": 2},
        {"card": "R7", "end": "high", "as": 7},
    ]


def test_a_card_s_own_end_comes_before_the_end_named_for_every_wild():
    v = hit(group(GroupKind.RUN, "G3 G4 G5 G6"), "W W", end="low", ends=[None, "high"])
    assert v.description == "W as 2 (low end), W as 7 (high end)"


def test_readme_unnamed_wilds_go_to_the_top_while_it_has_room_then_the_bottom():
    # README: "A wild hit onto a run with both ends open and no end named goes to the top."
    v = hit(group(GroupKind.RUN, "R9 B10 G11"), "W W")
    assert str(v.group) == "W R9 B10 G11 W" and v.description == "W as 12 (high end), W as 8 (low end)"
    assert v.note and TOP_RULE in v.note
    only_low = hit(group(GroupKind.RUN, "R9 B10 G11 Y12"), "W W")
    assert only_low.group.values == (7, 8, 9, 10, 11, 12) and only_low.note is None


def test_a_numbered_card_onto_a_run_of_wilds_only_says_which_end_it_took():
    g = group(GroupKind.RUN, "W W W")
    v = hit(g, "R6")
    assert v.group.values == (3, 4, 5, 6) and v.note is not None and "R6 (low end) would fit too" in v.note
    assert hit(g, "R6", ends=["low"]).group.values == (6, 7, 8, 9)
    assert hit(g, "R2").note is None  # only 2-5 fits


def test_a_hit_judged_together_is_refused_with_what_the_cards_lack():
    g = group(GroupKind.RUN, "G3 G4 G5 G6")
    assert hit(g, "R9 R8").reason == (
        "the run G3 G4 G5 G6 would also need a 7 to take R9 R8; there is no wild to stand for it"
    )
    assert hit(g, "R9 W R12").reason == (
        "the run G3 G4 G5 G6 would also need a 7, an 8, a 10 and an 11 to take R9 R12;"
        " there is only 1 wild to stand for them"
    )
    assert hit(g, "R7 B7").reason == "a run cannot hold two 7s (R7 and B7)"
    assert hit(g, "R5 R7").reason == "the run G3 G4 G5 G6 takes a 2 or a 7, not a 5"
    assert hit(g, "W " * 9).reason == (
        "the run G3 G4 G5 G6 can take 8 more cards at most (a run holds at most 12 cards); these are 9"
    )
    assert (
        hit(g, "R1 W W", end="low").reason == "the run R1 W G3 G4 G5 G6 has no room at the low end for a wild"
    )
    assert hit(g, "R8 W", end="low").reason == (
        "the run G3 G4 G5 G6 takes R8 W only as R8 (high end), W as 7 (high end), not at the ends named"
    )
    assert hit(group(GroupKind.RUN, "W W W"), "R2 R9").reason == (
        "to take R2 R9, the run W W W would need 3 more cards between them; there is no wild to stand for them"
    )
    refused = hit(g, "R8 R9")
    assert not refused.legal and refused.group == g and refused.placed == ()


def test_004_a_run_of_playing_cards_is_worded_with_ranks():
    # 004: "Ace is always low ... So I can't have a run Queen, King, Ace?" "That's basically what I just said."
    g = group(GroupKind.RUN, "JS QH KD", PLAYING)
    assert hit(g, "AC 10C", PLAYING).reason.endswith(
        "(the ace is always low, so a run cannot go on from the king to the ace)"
    )
    v = hit(group(GroupKind.RUN, "10S JH QD", PLAYING), "JK 9C", PLAYING)
    assert v.description == "JK as K (high end), 9C (low end)"
    full = group(GroupKind.RUN, "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", PLAYING)
    assert (
        hit(full, "JK", PLAYING).reason == "the run " + str(full) + " already holds every number from A to K"
    )


@pytest.mark.parametrize(
    ("kind", "onto", "cards", "rules"),
    [
        (GroupKind.SET, "R4 B4 G4", "W Y4 R4", STANDARD),
        (GroupKind.SET, "W W W", "W R6 B6", STANDARD),
        (GroupKind.COLOR, "G1 G2 G3 G5 G8 G8 G12", "W G4 G9", STANDARD),
        (GroupKind.SUIT, "4H 5H 6H 9H", "KH JK 2H", PLAYING),
        (GroupKind.SET, "R4 B4 G4", "W Y4 R5", STANDARD),
    ],
)
def test_sets_and_colour_groups_take_the_cards_of_a_hit_in_any_order(kind, onto, cards, rules):
    g = group(kind, onto, rules)
    verdicts = [hit(g, " ".join(p), rules) for p in itertools.permutations(cards.split())]
    assert len({v.legal for v in verdicts}) == 1
    for v in verdicts:
        assert sorted(map(str, v.group.cards)) == sorted(map(str, verdicts[0].group.cards))
        assert all(p.end is None for p in v.placed) and v.note is None
        if v.legal:
            # Every added card counts as the group's number, colour or suit.
            laid = v.group.to_dict()
            assert {p.value for p in v.placed} == {laid.get("number", laid.get("color", laid.get("suit")))}


def test_hit_verdict_json_keeps_its_fields_and_adds_where_the_cards_went():
    data = json.loads(json.dumps(hit(group(GroupKind.COLOR, "G1 G2 G3 G5 G8 G8 G12"), "W G4").to_dict()))
    assert set(data) == {"legal", "reason", "code", "group", "laid", "placed", "note"}
    assert data["placed"] == [
        {"card": "W", "end": None, "as": "green"},
        {"card": "G4", "end": None, "as": "green"},
    ]


# --------------------------------------------------------------------------------------------- against brute force

COLORS = [Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW]


@st.composite
def run_hits(draw: st.DrawFn) -> tuple[RuleSet, LaidGroup, list[Card], list[str | None]]:
    """A run on the table (sometimes of wilds only) and up to 4 cards near it, each perhaps with an end."""
    deck = draw(st.sampled_from(["standard", "playing-cards"]))
    rules = get_ruleset(deck, wrap_runs=deck == "standard" and draw(st.booleans()))
    top = rules.deck.max_rank
    wild = Card.wild(rules.deck)

    def card(number: int) -> Card:
        number = (number - 1) % top + 1
        if rules.deck is Deck.PLAYING:
            return Card.playing_card(number, draw(st.sampled_from(list(Suit))))
        return Card.number_card(number, draw(st.sampled_from(COLORS)))

    size = draw(st.integers(1, 6))
    start = draw(st.integers(1, top - size + 1 if not rules.wrap_runs else top))
    if draw(st.integers(0, 5)) == 0:
        laid = [wild] * size
    else:
        laid = [wild if draw(st.integers(0, 3)) == 0 else card(start + i) for i in range(size)]
        if all(c.is_wild for c in laid):
            laid[0] = card(start)
    added = [
        wild if draw(st.integers(0, 2)) == 0 else card(start + draw(st.integers(-4, size + 3)))
        for _ in range(draw(st.integers(1, 4)))
    ]
    ends = [draw(st.sampled_from([None, None, None, "low", "high"])) for _ in added]
    return rules, make_group(GroupKind.RUN, laid, rules), added, ends


def brute_force(
    laid: LaidGroup, added: list[Card], ends: list[str | None], rules: RuleSet
) -> dict[object, int]:
    """Every run the cards can make, added one at a time in every order at either end (the end named where
    there is one), keeping the laid values (000): each outcome with the fewest cards it puts below the laid
    ones."""
    outcomes: dict[object, int] = {}
    size = len(laid.cards)
    for order in itertools.permutations(range(len(added))):
        for sides in itertools.product(("low", "high"), repeat=len(added)):
            if any(ends[i] not in (None, side) for i, side in zip(order, sides, strict=True)):
                continue
            low = [added[i] for i, side in zip(order, sides, strict=True) if side == "low"][::-1]
            high = [added[i] for i, side in zip(order, sides, strict=True) if side == "high"]
            try:
                run = make_group(GroupKind.RUN, (*low, *laid.cards, *high), rules)
            except InvalidGroupError:
                continue
            if laid.low is not None and run.values[len(low) : len(low) + size] != laid.values:
                continue
            key = (run.cards, run.values)
            outcomes[key] = min(outcomes.get(key, len(added)), len(low))
    return outcomes


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_hits())
def test_000_001_a_hit_is_legal_exactly_when_some_order_and_ends_fit_and_the_top_is_preferred(case):
    # 000: cards added at either end, wilds keeping their values; 001: "A Wild card can be added anywhere it
    # fits". Brute force: every order of the added cards and both ends for each (the one named, if any).
    rules, laid, added, ends = case
    verdict = check_hit(laid, added, rules, ends=ends)
    outcomes = brute_force(laid, added, ends, rules)
    event("legal" if verdict.legal else "refused")
    assert verdict.legal == bool(outcomes), ([str(c) for c in laid.cards], [str(c) for c in added], ends)
    if not verdict.legal:
        assert verdict.reason and verdict.group == laid and not verdict.placed
        return
    key = (verdict.group.cards, verdict.group.values)
    assert key in outcomes
    # A wild with no end named goes to the top while it has room: no outcome puts fewer cards below.
    below = sum(p.end == "low" for p in verdict.placed)
    assert below == outcomes[key] == min(outcomes.values())
    assert (verdict.note is not None) == (len(outcomes) > 1)
    for card, placed, named in zip(added, verdict.placed, ends, strict=True):
        assert placed.card == card and named in (None, placed.end)
        assert placed.value is None or card.number in (None, placed.value)


def test_004_a_run_of_playing_cards_typed_past_the_ace_or_king_says_so_in_ranks():
    # 004: "Ace is always low": there is nothing below the ace or above the king for a joker to stand for.
    with pytest.raises(InvalidGroupError) as err:
        group(GroupKind.RUN, "QS KS JK", PLAYING)
    assert err.value.reason == (
        "the run QS KS JK would need a wild above the king; runs go from A to K, and the ace is always low"
    )
    with pytest.raises(InvalidGroupError, match="would need 2 wilds below the ace;"):
        group(GroupKind.RUN, "JK JK JK 2S", PLAYING)
