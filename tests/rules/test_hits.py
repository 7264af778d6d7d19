"""Hits onto a group on the table, one test per hitting sentence of the sources and the cross-checks."""

from __future__ import annotations

import json

import pytest

from companion.rules.cards import Deck, parse_cards
from companion.rules.hits import apply_hit, check_hit
from companion.rules.phases import GroupKind
from companion.rules.referee import IllegalPlayError, WrongDeckError, make_group
from companion.rules.rulesets import get_ruleset

STANDARD = get_ruleset("standard")
PLAYING = get_ruleset("playing-cards")
WRAP = get_ruleset("standard", wrap_runs=True)


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


def test_cross_run_9_10_11_takes_8_and_12_not_7_or_3():
    g = group(GroupKind.RUN, "R9 B10 G11")
    assert hit(g, "Y8 R12").legal
    assert hit(g, "R7").reason == "the run R9 B10 G11 takes an 8 or a 12, not a 7"
    assert hit(g, "R3").reason == "the run R9 B10 G11 takes an 8 or a 12, not a 3"


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


def test_001_a_wild_card_can_be_added_anywhere_it_fits_or_at_the_end_the_player_names():
    # 001: "A Wild card can be added anywhere it fits."
    g = group(GroupKind.RUN, "R3 B4 G5")
    assert hit(g, "W").group.values == (3, 4, 5, 6)
    assert hit(g, "W", end="low").group.values == (2, 3, 4, 5)
    assert hit(g, "W W", end="low").group.values == (1, 2, 3, 4, 5)
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


def test_a_group_of_wilds_only_takes_its_number_from_the_first_numbered_card():
    assert hit(group(GroupKind.SET, "W W W"), "R6").group.values == (6, 6, 6, 6)
    assert hit(group(GroupKind.RUN, "W W W"), "R6").group.values == (3, 4, 5, 6)
    assert hit(group(GroupKind.RUN, "W W W"), "R2").group.values == (2, 3, 4, 5)


def test_hit_verdict_to_dict_is_json_ready():
    v = hit(group(GroupKind.RUN, "R9 B10 G11"), "Y8 R12")
    data = json.loads(json.dumps(v.to_dict()))
    assert data["legal"] is True and data["reason"] is None
    assert data["group"] == ["Y8", "R9", "B10", "G11", "R12"]


def test_bad_hit_input_raises_value_errors():
    g = group(GroupKind.SET, "R4 B4 G4")
    with pytest.raises(ValueError, match="end"):
        hit(g, "Y4", end="middle")
    with pytest.raises(ValueError, match="at least one card"):
        check_hit(g, (), STANDARD)
    with pytest.raises(WrongDeckError):
        check_hit(g, parse_cards("JK", Deck.PLAYING), STANDARD)
