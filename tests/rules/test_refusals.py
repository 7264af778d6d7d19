"""Every refusal of the engine carries a code beside its sentence (companion.rules.Refusal), so callers branch on
the code, never on the words. Each case names the rule it refuses and its source."""

from __future__ import annotations

import pytest

from companion.rules import Refusal, get_ruleset
from companion.rules.cards import parse_cards, parse_groups
from companion.rules.game import GameSetupError, IllegalReportError, RoundReport, new_game, play_round, replay
from companion.rules.hits import check_hit
from companion.rules.phases import GroupKind
from companion.rules.referee import check_phase, make_group

STANDARD = get_ruleset()


def _report(players, went_out="Ana"):
    return {"went_out": went_out, "players": players}


@pytest.mark.parametrize(
    ("body", "code", "player"),
    [
        # 001 "Going out": a player goes out only after laying down.
        (
            _report({"Ana": {"laid_down": False}, "Ben": {"laid_down": False, "points": 5}}),
            Refusal.OUT_NOT_DOWN,
            "Ana",
        ),
        # 001 "The player who goes out scores zero".
        (
            _report({"Ana": {"laid_down": True, "points": 5}, "Ben": {"laid_down": False, "points": 5}}),
            Refusal.OUT_WITH_POINTS,
            "Ana",
        ),
        # 001 point table: every card scores 5, 10, 15 or 25.
        (
            _report({"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "points": 12}}),
            Refusal.POINTS_NOT_MULTIPLE,
            "Ben",
        ),
        # 001 "When you have no cards left, the round ends for everyone": one player goes out.
        (
            _report({"Ana": {"laid_down": True}, "Ben": {"laid_down": True, "points": 0}}),
            Refusal.TWO_WENT_OUT,
            "Ben",
        ),
        (_report({"Ana": {"laid_down": True}, "Ben": {"laid_down": False}}), Refusal.POINTS_MISSING, "Ben"),
        (
            _report({"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "cards": ["R13"]}}),
            Refusal.UNKNOWN_CARD,
            "Ben",
        ),
        (
            _report({"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "points": 5}}, went_out=None),
            Refusal.NOBODY_WENT_OUT,
            None,
        ),
    ],
)
def test_a_refused_round_report_says_which_refusal_it_is(body, code, player):
    with pytest.raises(IllegalReportError) as caught:
        RoundReport.from_dict(body, STANDARD)
    assert caught.value.code is code and caught.value.player == player


@pytest.mark.parametrize(
    ("names", "dealer", "code"),
    [
        (["Ana"], 0, Refusal.PLAYER_COUNT),  # 001: 2-6 players
        (["Ana", "ana"], 0, Refusal.NAME_REPEATED),
        (["Ana", ""], 0, Refusal.NAME_EMPTY),
        (["Ana", "Ben"], 2, Refusal.DEALER),
    ],
)
def test_a_game_that_cannot_be_set_up_says_why_by_code(names, dealer, code):
    with pytest.raises(GameSetupError) as caught:
        new_game(names, STANDARD, first_dealer=dealer)
    assert caught.value.code is code


def test_replay_names_the_refused_round_by_number_and_code():
    good = RoundReport.from_dict(
        _report({"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "points": 5}}), STANDARD
    )
    # 001: a player attempts the phase they are on; Ben is still on phase 1 in round 2.
    wrong = RoundReport.from_dict(
        _report({"Ana": {"laid_down": True}, "Ben": {"laid_down": True, "points": 5, "phase": 3}}), STANDARD
    )
    with pytest.raises(IllegalReportError) as caught:
        replay(["Ana", "Ben"], STANDARD, [good, wrong])
    assert caught.value.round == 2 and caught.value.code is Refusal.WRONG_PHASE
    assert play_round(new_game(["Ana", "Ben"], STANDARD), good).round_number == 2


@pytest.mark.parametrize(
    ("laid", "phase", "code"),
    [
        ("R5 B5 W G8 Y8 S", 1, Refusal.SKIP_IN_PHASE),  # 001: a Skip can never be part of a phase
        ("W W W W W W", 1, Refusal.NO_NATURAL),  # 001: at least one numbered card in the phase
        ("R5 B5 R5 G8 G8 G9", 1, Refusal.NOT_THE_PHASE),
        ("R5 B5 W | G8 Y8 G9", 1, Refusal.GROUP_INVALID),
        ("R5 B5 W", 1, Refusal.GROUP_COUNT),
    ],
)
def test_a_verdict_carries_its_code_in_its_json(laid, phase, code):
    cards = parse_groups(laid) if "|" in laid else parse_cards(laid)
    if code is Refusal.GROUP_COUNT:
        cards = parse_groups("R5 B5 W")
    verdict = check_phase(cards, phase)
    assert not verdict.valid and verdict.code is code and verdict.to_dict()["code"] == code.value
    assert check_phase(parse_cards("R5 B5 W G8 Y8 G8"), 1).to_dict()["code"] is None


def test_a_refused_hit_carries_its_code():
    run = make_group(GroupKind.RUN, parse_cards("G3 G4 G5 G6"))
    # 001: a player may hit only after laying down their own phase.
    assert check_hit(run, parse_cards("R7"), phase_down=False).code is Refusal.PHASE_NOT_DOWN
    assert check_hit(run, parse_cards("R9")).code is Refusal.DOES_NOT_FIT
    assert check_hit(run, parse_cards("R7")).code is None
