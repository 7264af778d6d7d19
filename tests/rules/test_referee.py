"""The lay-down check, one test per rule sentence of the sources (000, 001, 002, 004) and the cross-checks of
issue 2. Each test names the source and quotes the sentence it checks."""

from __future__ import annotations

import pytest

from companion.rules.cards import Card, Deck, parse_cards, parse_groups
from companion.rules.phases import GroupKind, Phase, Requirement
from companion.rules.referee import (
    IllegalPlayError,
    InvalidGroupError,
    WrongDeckError,
    check_phase,
    is_valid_phase,
    make_group,
)
from companion.rules.rulesets import get_ruleset

STANDARD = get_ruleset("standard")
PLAYING = get_ruleset("playing-cards")
WRAP = get_ruleset("standard", wrap_runs=True)
STRICT = get_ruleset("standard", natural_per_group=True)
RUN_OF_4 = Phase(0, (Requirement(GroupKind.RUN, 4),), "one run of 4")
SET_OF_3 = Phase(0, (Requirement(GroupKind.SET, 3),), "one set of 3")


def check(text: str, phase: Phase | int, rules=STANDARD):
    """Grouped when the text has a |, else ungrouped."""
    if "|" in text:
        return check_phase(parse_groups(text, rules.deck), phase, rules)
    return check_phase(parse_cards(text, rules.deck), phase, rules)


def check_one_group(text: str, phase: Phase, rules=STANDARD):
    return check_phase([parse_cards(text, rules.deck)], phase, rules)


# --------------------------------------------------------------------------------------------- 001


def test_001_a_set_is_two_or_more_cards_of_the_same_number_in_any_colors():
    # 001: "A set is two or more cards with the same number, in any colors."
    assert check("R7 B7 G7 Y7 | R2 B2 G2", 1).valid
    assert check("R7 B7 | R9 B9 G9 Y9 R9", 9).valid  # phase 9's set of 2
    v = check("R7 B7 G8 | R2 B2 G2", 1)
    assert not v.valid
    assert v.reason == "the set R7 B7 G8 mixes 7 and 8; a set is cards of one number"


def test_001_a_run_is_cards_in_consecutive_number_order_in_any_colors():
    # 001: "A run is cards in consecutive number order, such as 3, 4, 5, 6, in any colors."
    assert check("R3 B4 G5 Y6", RUN_OF_4).valid
    assert check("R3 B4 G5 Y6 | R9 B9 G9", 2).valid
    assert (
        check("R3 B4 G6 Y7", RUN_OF_4).reason
        == "the numbers 3 4 6 7 leave gaps at 5, and there is no wild to fill them"
    )
    assert check_one_group("R3 B4 G6 Y7", RUN_OF_4).reason == "the run R3 B4 G6 Y7 has a gap at 5"


def test_001_runs_are_laid_in_ascending_table_order():
    # 001's run examples only count upward; a run typed in table order must ascend.
    assert check_one_group("R6 B5 G4 Y3", RUN_OF_4).reason == (
        "a run is laid in ascending order; in R6 B5 G4 Y3 the 5 comes after the 6"
    )
    assert check("R6 B5 G4 Y3", RUN_OF_4).valid  # ungrouped, the referee orders them


def test_001_a_run_cannot_hold_the_same_number_twice():
    # 001: "consecutive number order": each number once.
    assert check("R3 B4 G4 Y5 R6", Phase(0, (Requirement(GroupKind.RUN, 5),), "one run of 5")).reason == (
        "a run cannot hold two 4s (B4 and G4)"
    )


def test_001_for_a_color_phase_all_the_cards_must_be_one_color_in_any_order():
    # 001: "For a color phase, all the cards must be one color, in any order."
    assert check("G12 G1 G7 G3 G3 G9 G10", 8).valid
    assert check("G12 G1 G7 G3 G3 G9 | G10", 8).reason.startswith("phase 8 is 7 cards of one colour")


def test_001_the_two_sets_in_a_phase_may_use_the_same_number():
    # 001: "The two sets in a phase may use the same number."
    assert check("R5 B5 G5 Y5 R5 B5", 1).valid
    assert check("R5 B5 G5 | Y5 R5 B5", 1).valid
    assert check("R8 B8 G8 Y8 R8 B8 G8 Y8", 7).valid


def test_001_no_wrap_around_from_12_to_1_unless_the_group_agrees():
    # 001: "play runs without wrapping unless your group agrees otherwise."
    assert not check("R11 B12 G1 Y2", RUN_OF_4).valid
    assert check_one_group("R11 B12 G1 Y2", RUN_OF_4).reason == (
        "the run R11 B12 G1 Y2 goes round the corner from 12 to 1;"
        " runs do not wrap around unless your group plays that house rule"
    )
    assert check("R11 B12 G1 Y2", RUN_OF_4).reason == (
        "the numbers 1 2 11 12 make a run only round the corner from 12 to 1;"
        " runs do not wrap around unless your group plays that house rule"
    )
    wrapped = check_one_group("R11 B12 G1 Y2", RUN_OF_4, WRAP)
    assert wrapped.valid and wrapped.groups[0].values == (11, 12, 1, 2)
    assert check("G1 Y2 R11 B12", RUN_OF_4, WRAP).groups[0].values == (11, 12, 1, 2)


def test_001_a_wild_card_can_stand_in_for_any_number_or_color():
    # 001: "A Wild card can stand in for any number or color."
    v = check("R5 W G5 | Y2 W W", 1)
    assert v.valid and v.groups[1].values == (2, 2, 2)
    assert check("G1 W G7 G3 W G9 G10", 8).valid


def test_001_several_wilds_and_a_numbered_card_in_the_phase():
    # 001: "You can use several Wild cards in a phase, but at least one card in it must be a numbered card."
    assert check("R5 W W | W W W", 1).valid  # the phase has a numbered card


@pytest.mark.parametrize("wilds", ["W W W W W W", "W W W | W W W"])
def test_001_several_wilds_but_at_least_one_numbered_card_in_the_phase(wilds):
    # 001: "You can use several Wild cards in a phase, but at least one card in it must be a numbered card."
    assert check(wilds, 1).reason == "a phase needs at least one numbered card; wilds alone are no phase"


def test_natural_per_group_option_asks_a_numbered_card_in_every_group():
    # The stricter house option (README): every group of the phase needs a numbered card.
    assert not check("R5 W W | W W W", 1, STRICT).valid
    assert check("R5 W W | W W W", 1, STRICT).reason == (
        "with one numbered card per group, the set W W W needs a numbered card"
    )
    assert not check("R5 W W W W W", 1, STRICT).valid
    assert check("R5 W W B8 W W", 1, STRICT).valid


@pytest.mark.parametrize("cards", ["R5 B5 S | R8 B8 G8", "R5 B5 G5 S R8 B8 G8"])
def test_001_a_skip_can_never_be_part_of_a_phase(cards):
    # 001: "A Skip ... can never be part of a phase."
    assert check(cards, 1).reason == "a Skip can never be part of a phase"


def test_001_you_must_lay_down_the_entire_phase_at_once():
    # 001: "you must lay down the entire phase at once."
    assert check("R5 B5 G5", 1).reason == "phase 1 (two sets of 3) needs at least 6 cards; these are 3"
    assert check("R5 B5 G5", 1).groups == ()
    assert check("R5 B5 G5 | R8 B8", 1).reason == "a set of 3 needs at least 3 cards; R8 B8 is 2"


@pytest.mark.parametrize(
    ("number", "valid", "invalid"),
    [
        (1, "R3 B3 G3 | Y9 R9 W", "R3 B3 G3 Y9 R9 B10"),
        (2, "R3 B3 W | G5 Y6 R7 B8", "R3 B3 W G5 Y6 R7 B9"),
        (3, "R3 B3 W G3 | G5 Y6 R7 B8", "R3 B3 W G5 Y6 R7 B8"),
        (4, "R1 B2 G3 Y4 R5 W B7", "R1 B2 G3 Y4 R5 B7 B8"),
        (5, "R1 B2 G3 Y4 R5 W B7 G8", "R1 B2 G3 Y4 R5 W B7 G9"),
        (6, "R4 B5 G6 Y7 R8 W B10 G11 Y12", "R3 B5 G6 Y7 R8 W B10 G11 Y12"),
        (7, "R3 B3 W G3 | G5 Y5 R5 B5", "R3 B3 W G3 G5 Y5 R5 B6"),
        (8, "B1 B5 B5 B7 B9 W B12", "B1 B5 B5 B7 B9 W G12"),
        (9, "R3 B3 W G3 Y3 | G5 Y5", "R3 B3 W G3 Y3 G5 Y6"),
        (10, "R3 B3 W G3 Y3 | G5 Y5 W", "R3 B3 W G3 Y4 G5 Y5 W"),
    ],
)
def test_001_the_ten_phases(number, valid, invalid):
    # 001: "1: two sets of 3. 2: one set of 3 and one run of 4. ... 10: one set of 5 and one set of 3."
    assert check(valid, number).valid
    assert check(valid.replace("|", " "), number).valid
    assert not check(invalid, number).valid
    assert check(invalid, number).reason


# --------------------------------------------------------------------------------------------- 000


def test_000_more_than_one_wild_may_be_used_in_completing_a_phase():
    # 000: "More than one 'Wild' card may be used in completing a Phase."
    assert check("R5 W W | B8 W G8", 1).valid


def test_000_a_skip_may_never_be_used_in_making_phase_8():
    # 000: "A 'Skip' card may never be used in making Phase 8, or any other Phase."
    assert check("G1 G2 G3 G4 G5 G6 S", 8).reason == "a Skip can never be part of a phase"


@pytest.mark.parametrize("number", range(1, 11))
def test_000_a_skip_may_never_be_used_in_making_any_other_phase(number):
    # 000: "A 'Skip' card may never be used in making Phase 8, or any other Phase."
    assert not check("S R1 R1 R1 R1 R1 R2 R3 R4 R5 R6 R7 R8 R9", number).valid


def test_000_a_player_may_never_lay_down_part_of_a_phase():
    # 000: "A player may never lay down part of a phase, but must have the whole phase in hand."
    assert check("R5 B5 G5 | R7 B7", 1).reason == "a set of 3 needs at least 3 cards; R7 B7 is 2"
    assert check("R5 B5 G5 R7 B7", 1).reason == "phase 1 (two sets of 3) needs at least 6 cards; these are 5"


def test_000_more_than_the_minimum_only_if_the_extra_cards_add_to_the_phase():
    # 000: "A player making Phase 1 lays down 3 '5's and 3 '7's. The player has 2 more '5's in hand and can
    # immediately lay them down with the 3 '5's"
    v = check("R5 B5 G5 Y5 R5 R7 B7 G7", 1)
    assert v.valid and sorted(len(g) for g in v.groups) == [3, 5]


def test_000_you_may_add_more_cards_to_a_set_but_not_more_sets_to_the_phase():
    # 000: "lays down 3 '6's and 3 '8's. The players also has 3 '10's in hand, but cannot lay them down because
    # Phase 1 requires exactly 2 sets. You may add more cards to a Set but not more Sets to the phase."
    grouped = check("R6 B6 G6 | R8 B8 G8 | R10 B10 G10", 1)
    assert grouped.reason == (
        "phase 1 is two sets of 3: that is 2 groups, and 3 groups were laid;"
        " more cards may only be added to the groups of the phase, not as a new group"
    )
    ungrouped = check("R6 B6 G6 R8 B8 G8 R10 B10 G10", 1)
    assert not ungrouped.valid
    assert ungrouped.reason == "two sets of 3 can hold only 2 numbers; these cards have 6, 8 and 10"


# --------------------------------------------------------------------------------------------- 002


def test_002_a_run_of_9_on_phase_4_counts_only_as_phase_4():
    # 002: "a run of 9 when the player is on phase 4 cannot also be counted as phase 5 and/or 6."
    v = check("R1 B2 G3 Y4 R5 B6 G7 Y8 R9", 4)
    assert v.valid and v.phase is not None and v.phase.number == 4 and len(v.groups) == 1


def test_002_a_wild_can_be_used_as_any_colour_to_complete_phase_8():
    # 002: "A 'wild' card can also be used as any colour, to complete phase 8."
    v = check("Y1 Y2 W Y4 W Y6 Y7", 8)
    assert v.valid and v.groups[0].to_dict()["wilds"] == [
        {"index": 5, "as": "yellow"},
        {"index": 6, "as": "yellow"},
    ]


def test_002_four_of_a_card_may_all_go_down_in_a_set_of_3():
    # 002: "if a phase requires a set of 3 but the player has four of that card, the player may lay all four."
    assert check("R4 B4 G4 Y4 | R5 B6 G7 Y8", 2).valid


# --------------------------------------------------------------------------------------------- 004


def test_004_a_set_is_cards_of_the_same_rank_suits_are_irrelevant():
    # 004: "A 'set' is a collection of cards of the same rank; suits are irrelevant."
    assert check("QS QH QD | 3C 3C 3H", 3, PLAYING).valid


def test_004_ace_is_always_low_runs_may_be_of_mixed_suits():
    # 004: "A 'run' is a set of cards of consecutive ranks. Ace is always low, and in this game, runs can be of
    # mixed suits." and "So I can't have a run Queen, King, Ace? That's basically what I just said."
    assert check("AS 2H 3D | 7C 7S 7H", 1, PLAYING).valid
    assert check("QS KH AD | 7C 7S 7H", 1, PLAYING).reason == (
        "the run QS KH AD goes round the corner from K to A;"
        " the ace is always low, so a run cannot go on from the king to the ace"
    )
    assert not check("QS KH AD 7C 7S 7H", 1, PLAYING).valid
    assert check("JS QH KD | 7C 7S 7H", 1, PLAYING).valid  # 13 is the top for playing cards


def test_004_jokers_are_wild_and_can_be_any_suit_colour_or_number():
    # 004: "Jokers count as wilds and can be any suit, color, or number."
    assert check("4H 5H JK 9H | 2S 6S 10S JS", 8, PLAYING).valid
    assert check("AS JK 3D | 7C JK 7H", 1, PLAYING).valid
    assert check("5H 5D AH 9D JK 2H 3D KH", 7, PLAYING).valid
    assert not check("5H 5D 5S 5C JK 5H 5D 5S", 7, PLAYING).valid  # a joker is one card of one colour


def test_004_on_8_cards_of_one_color_you_may_have_all_10_of_one_color():
    # 004: "On 8 cards of one color you may have all 10 of one color." Colours are red and black.
    assert check("AH 2D 3H 4D 5H 6D 7H 8D 9H 10D", 7, PLAYING).valid
    assert (
        check("AH 2D 3H 4D 5H 6D 7H 8S", 7, PLAYING).reason
        == "8 cards of one colour: these are 7 red and 1 black"
    )


def test_004_two_four_card_flushes():
    # 004: "2 Four Card Flushes (Example is 4,5,6,9 Hearts and 2,6,10,J Spades)"
    assert check("4H 5H 6H 9H | 2S 6S 10S JS", 8, PLAYING).valid
    assert check("4H 5H 6H 9H 2S 6S 10S JS", 8, PLAYING).valid
    assert not check("4H 5H 6H 9H 2S 6S 10S JC", 8, PLAYING).valid


def test_004_five_cards_of_one_suit_and_three_of_another():
    # 004: "5 Cards of 1 Suit + 3 of Another": the second suit group is another suit.
    assert check("AH 3H 5H 7H 9H | 2S 4S 6S", 9, PLAYING).valid
    v = check("AH 3H 5H 7H 9H | 2H 4H 6H", 9, PLAYING)
    assert (
        v.reason
        == "5 cards of one suit and 3 of another suit: both groups are hearts; they must be of different suits"
    )
    assert not check("AH 3H 5H 7H 9H 2H 4H 6H", 9, PLAYING).valid
    assert check("AH 3H 5H 7H 9H JK 4S 6S KS", 10, PLAYING).valid


def test_004_six_cards_of_the_same_number_make_two_sets_of_three():
    # 004: "I have 6 cards all the same number, can I use them as my 2 sets of three? A: Yes."
    assert check("9S 9H 9D 9C 9S 9H", 3, PLAYING).valid


# --------------------------------------------------------------------------------------------- cross-checks


def test_cross_set_r5_b5_w_is_valid_and_w_w_w_alone_is_no_phase():
    assert check_one_group("R5 B5 W", SET_OF_3).valid
    assert check("R5 B5 W", SET_OF_3).valid
    assert (
        check_one_group("W W W", SET_OF_3).reason
        == "a phase needs at least one numbered card; wilds alone are no phase"
    )


def test_cross_run_5_w_7_8_is_valid_and_5_6_8_9_is_not():
    assert check_one_group("R5 W G7 Y8", RUN_OF_4).groups[0].values == (5, 6, 7, 8)
    assert check("R5 W G7 Y8", RUN_OF_4).valid
    assert not check("R5 B6 G8 Y9", RUN_OF_4).valid
    assert check_one_group("R5 B6 G8 Y9", RUN_OF_4).reason == "the run R5 B6 G8 Y9 has a gap at 7"


def test_cross_11_12_w_w_ungrouped_is_a_run_only_as_9_to_12():
    v = check("R11 B12 W W", RUN_OF_4)
    assert v.valid and v.groups[0].values == (9, 10, 11, 12)
    assert v.groups[0].to_dict()["wilds"] == [{"index": 0, "as": 9}, {"index": 1, "as": 10}]
    # Typed in table order the wilds would have to be 13 and 14.
    assert check_one_group("R11 B12 W W", RUN_OF_4).reason == (
        "the run R11 B12 W W would need wilds to stand for 13 and 14; runs go from 1 to 12 and do not wrap around"
    )


def test_cross_w_w_2_3_in_table_order_is_impossible_but_ungrouped_makes_1_to_4():
    assert check_one_group("W W R2 B3", RUN_OF_4).reason == (
        "the run W W R2 B3 would need a wild to stand for 0; runs go from 1 to 12 and do not wrap around"
    )
    assert check("W W R2 B3", RUN_OF_4).groups[0].values == (1, 2, 3, 4)


def test_cross_phase_8_with_six_reds_and_a_blue_is_invalid():
    v = check("R1 R3 R5 R7 R9 R11 B2", 8)
    assert not v.valid
    assert v.reason == "7 cards of one colour: these are 6 red and 1 blue"
    assert check_one_group("R1 R3 R5 R7 R9 R11 B2", 8).reason == (
        "the cards R1 R3 R5 R7 R9 R11 B2 are not all one colour: 6 red and 1 blue (B2 is not red)"
    )


# --------------------------------------------------------------------------------------------- the result


def test_verdict_is_truthy_when_valid_and_to_dict_is_json_ready():
    import json

    v = check("R7 B7 G7 | G3 Y4 W B6", 2)
    assert v and bool(v) is True
    data = json.loads(json.dumps(v.to_dict()))
    assert data["valid"] is True and data["reason"] is None
    assert data["groups"][0] == {"kind": "set", "cards": ["R7", "B7", "G7"], "wilds": [], "number": 7}
    assert data["groups"][1]["wilds"] == [{"index": 2, "as": 5}]
    assert not check("R7 B7 G7 | G3 Y4 W B9", 2)


def test_groups_are_given_back_in_requirement_order_whatever_order_they_were_typed():
    v = check("G3 Y4 W B6 | R7 B7 G7", 2)
    assert v.valid and [g.kind for g in v.groups] == [GroupKind.SET, GroupKind.RUN]


def test_require_raises_illegal_play_error_with_the_reason():
    with pytest.raises(IllegalPlayError, match="Skip"):
        check("R5 B5 G5 S R8 B8", 1).require()
    assert check("R5 B5 G5 R8 B8 G8", 1).require().valid


def test_is_valid_phase_is_the_boolean_wrapper():
    assert is_valid_phase(parse_cards("R5 B5 G5 R8 B8 G8"), 1)
    assert not is_valid_phase(parse_cards("R5 B5 G5 R8 B8 G9"), 1)


@pytest.mark.parametrize(
    ("text", "phase", "rules", "valid"),
    [
        ("5H 6H 7H JK JK JK JK JK", 9, PLAYING, True),  # all one suit: the other suit group is all jokers
        ("5H 6H 7H 8S JK JK JK JK", 9, PLAYING, True),
        ("5H 6H 7H JK JK JK JK JK", 9, get_ruleset("playing-cards", natural_per_group=True), False),
        ("R5 W W W W W W", 2, STANDARD, True),  # the set or the run is all wilds
        ("R5 W W W W W W", 2, STRICT, False),
        ("R5 B5 W W W W W", 2, STRICT, True),
        ("R5 B5 G5 R6 B6 W W", 2, STANDARD, False),  # two numbers with copies to spare, one set
        ("R5 B5 G5 R6 R7 W W W", 3, STANDARD, True),  # the run takes one of the 5s
        ("R11 R12 R1 R2 W W W", 4, STANDARD, False),
        ("R11 R12 R1 R2 W W W", 4, WRAP, True),
        ("R5 R5 R5 W R1 R12 W", 2, WRAP, True),
        ("R5 B5 G5 W W W", 1, STRICT, True),  # one number shared by both sets
        ("R5 W W W W W", 1, STRICT, False),
        ("R5 B5 G5 Y5 R5 B9", 9, STANDARD, False),
        ("R5 B5 G5 Y5 R9 B9 W", 9, STANDARD, True),
    ],
)
def test_001_is_valid_phase_answers_as_check_phase_where_it_counts_instead_of_searching(
    text, phase, rules, valid
):
    # 001: "every card put down must be part of a group of the phase", decided on counts as by the search.
    cards = parse_cards(text, rules.deck)
    assert check_phase(cards, phase, rules).valid is valid
    assert is_valid_phase(cards, phase, rules) is valid
    assert is_valid_phase(list(cards), rules.phase(phase), rules) is valid


def test_is_valid_phase_takes_groups_skips_and_other_decks_as_check_phase_does():
    assert is_valid_phase(parse_groups("R7 B7 G7 | G3 Y4 R5 B6"), 2)
    assert not is_valid_phase(parse_cards("R5 B5 G5 S R8 B8 G8"), 1)
    assert is_valid_phase(iter(parse_cards("R5 B5 G5 R8 B8 G8")), 1)  # type: ignore[arg-type]
    assert not is_valid_phase([], 1)
    with pytest.raises(WrongDeckError):
        is_valid_phase([Card.wild(Deck.PLAYING)], 1, STANDARD)
    with pytest.raises(WrongDeckError):
        is_valid_phase(parse_cards("S R1 R1"), 1, PLAYING)
    with pytest.raises(TypeError):
        is_valid_phase([Card.parse("R1"), [Card.parse("R1")]], 1)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="no phase 11"):
        is_valid_phase(parse_cards("R5 B5 G5"), 11)


def test_bad_input_raises_value_errors():
    with pytest.raises(ValueError, match="no phase 11"):
        check("R5 B5 G5", 11)
    with pytest.raises(WrongDeckError):
        check_phase([Card.wild(Deck.PLAYING)], 1, STANDARD)
    with pytest.raises(WrongDeckError):
        check_phase(parse_cards("S R1 R1"), 1, PLAYING)
    with pytest.raises(TypeError):
        check_phase([Card.parse("R1"), [Card.parse("R1")]], 1)  # type: ignore[list-item]


def test_nothing_put_down_is_no_phase():
    assert check_phase([], 1).reason == "no cards were put down"


def test_make_group_names_the_problem_with_typed_cards():
    with pytest.raises(InvalidGroupError, match="has a gap at 5"):
        make_group(GroupKind.RUN, parse_cards("R3 R4 R6"))
    with pytest.raises(InvalidGroupError, match="no room for 2 wilds between the 4 and the 6"):
        make_group(GroupKind.RUN, parse_cards("R3 R4 W W R6"))
    with pytest.raises(InvalidGroupError, match="at least one card"):
        make_group(GroupKind.SET, ())
    with pytest.raises(InvalidGroupError, match="colours, not suits"):
        make_group(GroupKind.SUIT, parse_cards("R5 R6"))
    assert make_group("RUN", parse_cards("R5 R6 W")).values == (5, 6, 7)
    with pytest.raises(ValueError, match="not 'pair'"):
        make_group("pair", parse_cards("R5 R5"))
    assert make_group(GroupKind.SUIT, parse_cards("AH JK 5H", Deck.PLAYING), PLAYING).to_dict()["wilds"] == [
        {"index": 1, "as": "hearts"}
    ]


def test_an_invalid_two_group_lay_down_says_what_is_missing_or_left_over():
    v = check("R5 B5 G3 Y4 R6 B11 W", 2)
    assert v.reason == (
        "this is not one set of 3 and one run of 4: have 5 5 W and 3 4 6 — need a 5, or a wild; B11 fits nowhere"
    )
    v = check("R5 B5 G5 R6 R7 R8 R9 B11", 2)
    assert v.reason == (
        "one set of 3 and one run of 4 can be made from these cards only with B11 left over;"
        " every card put down must belong to a group of the phase"
    )
