"""The hand advisor: the best arrangement toward a phase and the cards still missing (issue 2, exact)."""

from __future__ import annotations

import json

from companion.rules.advisor import advise
from companion.rules.cards import Deck, Suit, parse_cards
from companion.rules.referee import check_phase
from companion.rules.rulesets import get_ruleset

STANDARD = get_ruleset("standard")
PLAYING = get_ruleset("playing-cards")


def test_the_issue_example_two_sets_of_3_need_one_more_8_or_a_wild():
    advice = advise(parse_cards("R5 B5 W G8 Y8 R11"), 1)
    assert advice.summary == "two sets of 3: have 5 5 W and 8 8 — need one more 8, or a wild"
    assert advice.missing == 1 and not advice.complete
    assert [str(c) for c in advice.spare] == ["R11"]
    assert advice.groups[1].target == 8 and advice.groups[1].need == "one more 8"


def test_a_hand_that_holds_the_phase_is_complete_and_its_lay_down_is_valid():
    hand = parse_cards("R3 B4 G6 W Y9 Y9 B9 R12 S")
    advice = advise(hand, 2)
    assert advice.complete and advice.summary.endswith("complete, it can be laid down")
    assert check_phase(advice.lay_down(), 2).valid
    assert sorted(str(c) for c in advice.spare) == ["R12", "S"]  # a Skip is never used (000, 001)


def test_a_run_names_the_numbers_it_lacks():
    advice = advise(parse_cards("R3 B4 G7 R8 Y9"), 4)  # run of 7
    assert advice.missing == 2
    assert advice.groups[0].wanted == (5, 6)
    assert advice.summary == "one run of 7: have 3 4 7 8 9 — need a 5 and a 6, or wilds"


def test_001_wilds_alone_still_need_a_numbered_card():
    # 001: "at least one card in it must be a numbered card."
    advice = advise(parse_cards("W W W W W W"), 1)
    assert advice.missing == 1
    assert (
        advice.summary
        == "two sets of 3: have W W and W W W — need a numbered card (wilds alone are no phase)"
    )


def test_natural_per_group_needs_a_numbered_card_in_each_group():
    strict = get_ruleset("standard", natural_per_group=True)
    assert advise(parse_cards("R5 W W W W W"), 1, STANDARD).missing == 0
    assert advise(parse_cards("R5 W W W W W"), 1, strict).missing == 1


def test_004_suit_and_colour_groups_in_the_playing_card_game():
    advice = advise(parse_cards("AH 3H 5H 7H 2S 4S", Deck.PLAYING), 9, PLAYING)
    assert advice.missing == 2
    assert advice.summary == (
        "5 cards of one suit and 3 of another suit: have AH 3H 5H 7H and 2S 4S"
        " — need one more heart for the first suit group and one more spade for the second suit group, or wilds"
    )
    assert (
        advise(parse_cards("AH 2D 3H 4D 5H 6D 7H", Deck.PLAYING), 7, PLAYING).groups[0].need
        == "one more red card"
    )


def test_ties_keep_wilds_free_by_using_more_numbered_cards():
    advice = advise(parse_cards("R5 B5 G5 W R8 B8 G8"), 1)
    assert advice.complete and [str(c) for c in advice.spare] == ["W"]


def test_to_dict_is_json_ready():
    data = json.loads(json.dumps(advise(parse_cards("R5 B5 W G8 Y8 R11"), 1).to_dict()))
    assert data["missing"] == 1 and data["complete"] is False and data["spare"] == ["R11"]
    assert data["groups"][0] == {
        "kind": "set",
        "size": 3,
        "cards": ["R5", "B5", "W"],
        "target": 5,
        "missing": 0,
        "wanted": [],
        "need": "",
    }


def test_004_the_two_suit_groups_may_not_share_a_suit_and_the_search_tries_both_ways():
    # 004: "5 Cards of 1 Suit + 3 of Another". Three hearts and two spades: 3 cards short either way round.
    advice = advise(parse_cards("AS AS AD AH AH AH", Deck.PLAYING), 9, PLAYING)
    assert advice.missing == 3
    assert {g.target for g in advice.groups} == {Suit.SPADES, Suit.HEARTS}
