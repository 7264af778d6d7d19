"""Game progression: the deal, round scoring, advancing, end of game, tie-breaks and placements.

Sources: 001 standard game, 000 Masters, 004 playing cards (see shared/rules-sources).
"""

from __future__ import annotations

import json

import pytest

from companion.rules.cards import parse_cards
from companion.rules.game import (
    GameState,
    IllegalReportError,
    PlayerReport,
    PlayerState,
    RoundReport,
    new_game,
    play_round,
    preview,
    replay,
    round_points,
)
from companion.rules.referee import check_phase
from companion.rules.rulesets import InvalidOptionError, get_ruleset

STANDARD = get_ruleset("standard")
FOUR = ["Ana", "Ben", "Cy", "Dee"]

WORKED_EXAMPLE = {
    "went_out": "Ana",
    "players": {
        "Ana": {"laid_down": True},
        "Ben": {"laid_down": True, "cards": ["R3", "G7", "B11", "S"]},
        "Cy": {"laid_down": False, "cards": ["W", "Y9", "B12"]},
        "Dee": {"laid_down": True, "cards": ["R4", "G4"]},
    },
}


def report(went_out: str, **players: PlayerReport) -> RoundReport:
    return RoundReport(went_out, players)


def out() -> PlayerReport:
    return PlayerReport(True)


def down(points: int = 5) -> PlayerReport:
    return PlayerReport(True, points=points)


def up(points: int = 50) -> PlayerReport:
    return PlayerReport(False, points=points)


def test_001_worked_example_scores_0_35_40_10_and_ben_dee_ana_advance_cy_repeats() -> None:
    # 001 "Worked example": "Points for the round are 0, 35, 40 and 10." Ana, Ben and Dee move on, Cy repeats.
    game = play_round(new_game(FOUR, STANDARD), RoundReport.from_dict(WORKED_EXAMPLE, STANDARD))
    assert [(p.name, p.total) for p in game.players] == [("Ana", 0), ("Ben", 35), ("Cy", 40), ("Dee", 10)]
    assert [(p.name, p.phase) for p in game.players] == [("Ana", 2), ("Ben", 2), ("Cy", 1), ("Dee", 2)]
    assert game.player("Cy").completed == () and game.player("Ben").completed == (1,)
    result = game.rounds[0]
    assert dict(result.points) == {"Ana": 0, "Ben": 35, "Cy": 40, "Dee": 10}
    assert dict(result.completed) == {"Ana": 1, "Ben": 1, "Cy": None, "Dee": 1}
    assert result.number == 1 and not result.tie_break and result.dealer == "Ana"
    # 001: "These add to each player's running total."
    game = play_round(game, report("Cy", Ana=up(20), Ben=down(15), Cy=out(), Dee=up(5)))
    assert [p.total for p in game.players] == [20, 50, 40, 15]
    assert [p.phase for p in game.players] == [2, 3, 2, 2]
    assert game.status == "in_progress" and game.winner is None


def test_001_worked_example_with_typed_totals_scores_the_same() -> None:
    typed = report("Ana", Ana=out(), Ben=down(35), Cy=up(40), Dee=down(10))
    by_cards = RoundReport.from_dict(WORKED_EXAMPLE, STANDARD)
    assert play_round(new_game(FOUR, STANDARD), typed).players == (
        play_round(new_game(FOUR, STANDARD), by_cards).players
    )


def test_001_card_points_left_in_hand_count_whether_or_not_the_phase_was_completed() -> None:
    # 001: "Cards left in your hand score against you whether or not you completed your phase."
    assert round_points(PlayerReport(False, cards=parse_cards("W Y9 B12"))) == 40
    assert round_points(PlayerReport(True, cards=parse_cards("W Y9 B12"))) == 40


def test_001_the_deal_passes_to_the_left_and_the_player_left_of_the_dealer_starts() -> None:
    # 001: "The player to the dealer's left goes first" and "After each round, the deal passes to the left."
    game = new_game(FOUR, STANDARD, first_dealer=2)
    seen = []
    for _ in range(5):
        seen.append((game.round_number, game.dealer, game.starter))
        game = play_round(game, report("Ana", Ana=out(), Ben=up(), Cy=up(), Dee=up()))
    assert seen == [
        (1, "Cy", "Dee"),
        (2, "Dee", "Ana"),
        (3, "Ana", "Ben"),
        (4, "Ben", "Cy"),
        (5, "Cy", "Dee"),
    ]
    assert [r.dealer for r in game.rounds] == ["Cy", "Dee", "Ana", "Ben", "Cy"]


def test_001_you_do_not_have_to_go_out_to_advance() -> None:
    # 001 FAQ: "You do not have to go out to advance."
    game = play_round(new_game(["Ana", "Ben"], STANDARD), report("Ana", Ana=out(), Ben=down(25)))
    assert [p.phase for p in game.players] == [2, 2]


def test_001_if_you_did_not_lay_down_you_try_the_same_phase_again() -> None:
    game = new_game(["Ana", "Ben"], STANDARD)
    for _ in range(3):
        game = play_round(game, report("Ana", Ana=out(), Ben=up()))
    assert game.player("Ben").phase == 1 and game.player("Ben").remaining == tuple(range(1, 11))
    assert game.player("Ana").phase == 4 and game.player("Ana").completed == (1, 2, 3)


def short_game(last_phase: int = 2, **options: bool) -> GameState:
    return new_game(["Ana", "Ben", "Cy"], get_ruleset("standard", last_phase=last_phase, **options))


def test_001_game_ends_after_the_round_someone_completes_the_last_phase() -> None:
    # 001 "How to win": "The game ends after the round in which a player completes Phase 10 and goes out."
    # With "fewer phases" (001 house rule) the last phase is the one agreed, here 2.
    game = short_game()
    game = play_round(game, report("Ana", Ana=out(), Ben=up(), Cy=down()))
    assert game.status == "in_progress"
    game = play_round(game, report("Ana", Ana=out(), Ben=up(), Cy=up()))
    assert game.status == "finished" and game.winner == "Ana"
    assert game.player("Ana").phase is None and game.player("Ana").remaining == ()
    assert [(p.place, p.name) for p in game.placements()] == [(1, "Ana"), (2, "Cy"), (3, "Ben")]


def test_001_winner_is_the_lowest_total_among_those_who_completed_the_last_phase_that_round() -> None:
    # 001: "The player with the lowest total points among those who completed Phase 10 in that round wins."
    # Ben has the lowest total of all but never completed the last phase, so he cannot win.
    game = short_game()
    game = play_round(game, report("Ben", Ana=down(100), Ben=out(), Cy=down(60)))
    assert game.status == "in_progress"
    game = play_round(game, report("Ana", Ana=out(), Ben=up(5), Cy=down(5)))
    assert game.status == "finished"
    assert [p.total for p in game.players] == [100, 5, 65]
    assert game.winner == "Cy"
    assert [(p.place, p.name) for p in game.placements()] == [(1, "Cy"), (2, "Ana"), (3, "Ben")]


def test_001_two_finishers_the_lowest_total_wins_and_only_a_tie_for_lowest_matters() -> None:
    # 001: "If two or more players complete Phase 10 in the same round, the lowest total wins."
    game = short_game(last_phase=1)
    game = play_round(game, report("Ana", Ana=out(), Ben=down(20), Cy=up(20)))
    assert game.status == "finished" and game.winner == "Ana"

    game = short_game(last_phase=2)
    game = play_round(game, report("Ana", Ana=out(), Ben=down(20), Cy=down(20)))
    game = play_round(game, report("Ben", Ana=up(20), Ben=out(), Cy=down(5)))
    # Ana 20 (phase 2 not completed), Ben 20 and Cy 25 completed it: Ben wins outright.
    assert game.winner == "Ben"

    game = short_game(last_phase=2)
    game = play_round(game, report("Ana", Ana=out(), Ben=down(20), Cy=down(10)))
    game = play_round(game, report("Cy", Ana=down(30), Ben=down(10), Cy=out()))
    assert [p.total for p in game.players] == [30, 30, 10]
    # Ana and Ben tie on 30 but Cy has fewer points: no tie-break.
    assert game.status == "finished" and game.winner == "Cy"


def test_001_tied_finishers_replay_the_last_phase_and_the_first_to_go_out_wins() -> None:
    # 001: "If those players are still tied on points, they replay Phase 10 against each other. The first of them
    # to go out wins."
    game = short_game(last_phase=2)
    game = play_round(game, report("Ana", Ana=out(), Ben=up(50), Cy=down(15)))
    game = play_round(game, report("Cy", Ana=down(15), Ben=down(5), Cy=out()))
    assert [p.total for p in game.players] == [15, 55, 15]
    assert game.status == "tie_break" and game.winner is None
    assert game.tie_break_players == ("Ana", "Cy")
    assert game.in_next_round == ("Ana", "Cy")
    # Round 3: the deal passes left from Ben (round 2) to the next tied player, Cy; Ana, on Cy's left, starts.
    assert (game.round_number, game.dealer, game.starter) == (3, "Cy", "Ana")
    # Both share first place until the tie-break is played.
    assert [(p.place, p.name) for p in game.placements()][:2] == [(1, "Ana"), (1, "Cy")]

    # Only the tied players report a tie-break round.
    with pytest.raises(IllegalReportError, match="not in the tie-break") as err:
        play_round(game, report("Cy", Ana=down(10), Ben=up(), Cy=out()))
    assert err.value.player == "Ben"
    with pytest.raises(IllegalReportError, match="Ana's report is missing"):
        play_round(game, report("Cy", Cy=out()))
    with pytest.raises(IllegalReportError, match="replays phase 2"):
        play_round(game, report("Cy", Ana=PlayerReport(True, points=10, phase=1), Cy=out()))

    final = play_round(game, report("Cy", Ana=down(10), Cy=out()))
    assert final.status == "finished" and final.winner == "Cy" and final.tie_break_players == ()
    assert final.rounds[-1].tie_break and dict(final.rounds[-1].completed) == {"Ana": None, "Cy": None}
    # The tie-break's points are added like any round's, so the winner also leads on points.
    assert [p.total for p in final.players] == [25, 55, 15]
    assert final.player("Ana").completed == (1, 2)
    assert [(p.place, p.name) for p in final.placements()] == [(1, "Cy"), (2, "Ana"), (3, "Ben")]


def test_001_nothing_can_be_reported_after_the_game_has_ended() -> None:
    game = play_round(short_game(last_phase=1), report("Ana", Ana=out(), Ben=up(), Cy=up()))
    assert game.status == "finished"
    with pytest.raises(IllegalReportError, match="the game is over"):
        play_round(game, report("Ben", Ana=up(), Ben=out(), Cy=up()))


def test_001_everyone_advances_moves_every_player_up_and_ends_after_last_phase_rounds() -> None:
    # 001 house rule: "every player moves to the next phase after each round whether they completed their phase or
    # not. After ten rounds, the player with the lowest total score wins."
    game = short_game(last_phase=3, everyone_advances=True)
    game = play_round(game, report("Ana", Ana=out(), Ben=up(10), Cy=down(40)))
    assert [p.phase for p in game.players] == [2, 2, 2]
    assert [p.completed for p in game.players] == [(1,), (), (1,)]
    with pytest.raises(IllegalReportError, match="is on phase 2"):
        play_round(game, report("Ana", Ana=PlayerReport(True, phase=1), Ben=up(), Cy=up()))
    game = play_round(game, report("Cy", Ana=up(30), Ben=up(10), Cy=PlayerReport(True, phase=2)))
    assert game.status == "in_progress" and [p.phase for p in game.players] == [3, 3, 3]
    game = play_round(game, report("Ana", Ana=out(), Ben=up(5), Cy=down(5)))
    assert game.status == "finished" and [p.phase for p in game.players] == [None, None, None]
    assert [p.total for p in game.players] == [30, 25, 45]
    # Ben laid down nothing but has the lowest total, which is all that counts here.
    assert game.winner == "Ben"
    assert [(p.place, p.name) for p in game.placements()] == [(1, "Ben"), (2, "Ana"), (3, "Cy")]


def test_001_everyone_advances_lowest_total_tie_plays_a_tie_break() -> None:
    # 001 does not say what a tie does in this variation; the standard game's tie rule is applied.
    game = short_game(last_phase=1, everyone_advances=True)
    game = play_round(game, report("Ana", Ana=out(), Ben=up(50), Cy=up(50)))
    assert game.status == "finished" and game.winner == "Ana"
    game = short_game(last_phase=2, everyone_advances=True)
    game = play_round(game, report("Ana", Ana=out(), Ben=up(10), Cy=up(50)))
    game = play_round(game, report("Ben", Ana=up(10), Ben=out(), Cy=up(50)))
    assert game.status == "tie_break" and game.tie_break_players == ("Ana", "Ben")
    game = play_round(game, report("Ana", Ana=out(), Ben=up(50)))
    assert game.status == "finished" and game.winner == "Ana"


MASTERS = get_ruleset("masters")


def test_000_masters_players_choose_any_phase_not_yet_completed() -> None:
    # 000: "the player will wait until that hand is finished before choosing a Phase to attempt for the Next hand"
    game = new_game(["Ana", "Ben"], MASTERS)
    game = play_round(
        game, report("Ana", Ana=PlayerReport(True, phase=7), Ben=PlayerReport(True, 15, phase=3))
    )
    assert game.player("Ana").completed == (7,) and game.player("Ben").completed == (3,)
    assert game.player("Ana").remaining == (1, 2, 3, 4, 5, 6, 8, 9, 10)
    assert game.player("Ana").phase == 1  # the lowest phase still to do, offered first
    assert dict(game.rounds[0].completed) == {"Ana": 7, "Ben": 3}
    with pytest.raises(IllegalReportError, match="already completed phase 7") as err:
        play_round(game, report("Ben", Ana=PlayerReport(True, 10, phase=7), Ben=PlayerReport(True, phase=1)))
    assert err.value.player == "Ana"
    # A player who did not lay down may name the phase attempted or not; it stays to do.
    game = play_round(
        game, report("Ben", Ana=PlayerReport(False, 50, phase=2), Ben=PlayerReport(True, phase=1))
    )
    assert game.player("Ana").completed == (7,) and game.player("Ben").completed == (1, 3)


def test_000_masters_phase_is_required_when_laid_down_and_must_exist() -> None:
    game = new_game(["Ana", "Ben"], MASTERS)
    with pytest.raises(IllegalReportError, match="say which phase Ana laid down"):
        play_round(game, report("Ana", Ana=out(), Ben=up()))
    with pytest.raises(IllegalReportError, match="no phase 11"):
        play_round(game, report("Ana", Ana=PlayerReport(True, phase=11), Ben=up()))
    short = new_game(["Ana", "Ben"], get_ruleset("masters", last_phase=3))
    with pytest.raises(IllegalReportError, match=r"no phase 4 in this game \(phases 1 to 3\)"):
        play_round(short, report("Ana", Ana=PlayerReport(True, phase=4), Ben=up()))


def test_000_masters_game_ends_when_someone_has_completed_them_all() -> None:
    game = new_game(["Ana", "Ben"], get_ruleset("masters", last_phase=2))
    game = play_round(
        game, report("Ana", Ana=PlayerReport(True, phase=2), Ben=PlayerReport(True, 20, phase=1))
    )
    assert game.status == "in_progress"
    game = play_round(game, report("Ben", Ana=PlayerReport(False, 30), Ben=PlayerReport(True, phase=2)))
    assert game.status == "finished" and game.winner == "Ben"
    assert game.player("Ana").remaining == (1,) and game.player("Ben").phase is None


PLAYING = get_ruleset("playing-cards")


def test_004_playing_card_hands_are_scored_with_the_playing_card_table() -> None:
    # 004: "Cards between 1-9 = 5 Points; 10, J, Q, K = 10 Points; Jokers = 25 Points"
    body = {
        "went_out": "Bob",
        "players": {
            "Bob": {"laid_down": True},
            "Jack": {"laid_down": False, "cards": ["AH", "10D", "KS", "JK"]},
        },
    }
    game = play_round(new_game(["Bob", "Jack"], PLAYING), RoundReport.from_dict(body, PLAYING))
    assert game.player("Jack").total == 5 + 10 + 10 + 25


def test_004_a_standard_card_is_refused_in_a_playing_card_game_and_the_reverse() -> None:
    body = {
        "went_out": "Bob",
        "players": {"Bob": {"laid_down": True}, "Jack": {"laid_down": False, "cards": ["R7"]}},
    }
    with pytest.raises(IllegalReportError, match="Jack's cards: 'R7' is not a card") as err:
        RoundReport.from_dict(body, PLAYING)
    assert err.value.player == "Jack"
    game = new_game(["Bob", "Jack"], STANDARD)
    wrong = report("Bob", Bob=out(), Jack=PlayerReport(False, cards=parse_cards("QS", PLAYING.deck)))
    with pytest.raises(IllegalReportError, match="QS is not a card of the Phase 10 deck"):
        play_round(game, wrong)
    skip = report("Bob", Bob=out(), Jack=PlayerReport(False, cards=parse_cards("S")))
    with pytest.raises(IllegalReportError, match="S is not a card of a deck of playing cards"):
        play_round(new_game(["Bob", "Jack"], PLAYING), skip)


def test_004_runs_never_wrap_with_playing_cards() -> None:
    # 004: "Ace is always low" ... "So I can't have a run Queen, King, Ace?" "That's basically what I just said."
    # Turning the corner is a house rule of the Phase 10 deck (001), not an option of this game.
    with pytest.raises(InvalidOptionError) as err:
        get_ruleset("playing-cards", wrap_runs=True)
    assert str(err.value) == (
        'runs do not wrap around in the playing-card game: "Ace is always low", so there is no run Queen, King,'
        " Ace (004)"
    )
    assert get_ruleset("standard", wrap_runs=True).wrap_runs
    corner = check_phase(parse_cards("JS QH KD AC 2S 3H", PLAYING.deck), 4, PLAYING)
    assert not corner.valid and corner.reason.endswith(
        "the ace is always low, so a run cannot go on from the king to the ace"
    )


def test_004_two_flushes_may_share_a_suit_unless_the_group_plays_them_in_two_suits() -> None:
    # 004: phase 8 is "2 Four Card Flushes (Example is 4,5,6,9 Hearts and 2,6,10,J Spades)"; only phases 9 and
    # 10 ask for "another" suit, and 004 lets two sets share a number ("I have 6 cards all the same number, can I
    # use them as my 2 sets of three? A: Yes."), so by default two flushes may be of one suit.
    hearts = parse_cards("2H 4H 5H 6H 8H 9H JH KH", PLAYING.deck)
    two_suits = parse_cards("4H 5H 6H 9H 2S 6S 10S JS", PLAYING.deck)
    assert PLAYING.flushes_share_suit and check_phase(hearts, 8, PLAYING).valid
    assert check_phase([hearts[:4], hearts[4:]], 8, PLAYING).valid
    strict = get_ruleset("playing-cards", flushes_share_suit=False)
    assert strict.phase(8).description == "two four-card flushes of different suits"
    assert check_phase(two_suits, 8, strict).valid
    assert not check_phase(hearts, 8, strict).valid
    assert check_phase([hearts[:4], hearts[4:]], 8, strict).reason == (
        "two four-card flushes of different suits: both groups are hearts; they must be of different suits"
    )
    assert strict.phase(9) == PLAYING.phase(9)
    assert PLAYING.to_dict()["flushes_share_suit"] is True and strict.to_dict()["flushes_share_suit"] is False
    assert "flushes_share_suit" not in STANDARD.to_dict()
    with pytest.raises(InvalidOptionError, match="Phase 10 cards have no suits"):
        get_ruleset("standard", flushes_share_suit=False)


def test_004_placements_go_by_phase_completed_then_by_score() -> None:
    # 004 "Determining Places": Sarah (phase 10, 250) first, Bob (7, 465) second, Dillon (6, 440) third,
    # Jack (6, 480) fourth.
    def seat(name: str, last: int, total: int) -> PlayerState:
        return PlayerState(name, None, total, tuple(range(1, last + 1)), ())

    players = (seat("Bob", 7, 465), seat("Jack", 6, 480), seat("Sarah", 10, 250), seat("Dillon", 6, 440))
    state = GameState(PLAYING, players, 0)
    assert [(p.place, p.name, p.phases_completed, p.total) for p in state.placements()] == [
        (1, "Sarah", 10, 250),
        (2, "Bob", 7, 465),
        (3, "Dillon", 6, 440),
        (4, "Jack", 6, 480),
    ]
    # Equal on both phases and points: a shared place, and the next place is skipped.
    players = (seat("Bob", 7, 465), seat("Jack", 7, 465), seat("Sarah", 10, 250), seat("Dillon", 6, 440))
    assert [(p.place, p.name) for p in GameState(PLAYING, players, 0).placements()] == [
        (1, "Sarah"),
        (2, "Bob"),
        (2, "Jack"),
        (4, "Dillon"),
    ]


def test_preview_gives_the_round_record_without_moving_the_game_on() -> None:
    game = new_game(FOUR, STANDARD)
    body = RoundReport.from_dict(WORKED_EXAMPLE, STANDARD)
    result = preview(game, body)
    assert game.round_number == 1 and game.rounds == ()
    assert dict(result.totals) == {"Ana": 0, "Ben": 35, "Cy": 40, "Dee": 10}
    assert play_round(game, body).rounds == (result,)


def test_replay_equals_playing_the_rounds_one_by_one_and_names_a_refused_round() -> None:
    reports = [
        RoundReport.from_dict(WORKED_EXAMPLE, STANDARD),
        report("Cy", Ana=up(20), Ben=down(15), Cy=out(), Dee=up(5)),
    ]
    step = new_game(FOUR, STANDARD, 1)
    for r in reports:
        step = play_round(step, r)
    assert replay(FOUR, STANDARD, reports, 1) == step
    # A report naming someone who is not in the game is refused, with the round it came from.
    bad = [*reports, report("Eve", Ana=up(), Ben=up(), Cy=up(), Eve=out())]
    with pytest.raises(IllegalReportError, match=r"^round 3: Eve is not a player in this game") as err:
        replay(FOUR, STANDARD, bad, 1)
    assert err.value.round == 3 and err.value.player == "Eve"


def test_game_state_serialises_to_the_api_shape() -> None:
    game = play_round(new_game(FOUR, STANDARD), RoundReport.from_dict(WORKED_EXAMPLE, STANDARD))
    data = json.loads(json.dumps(game.to_dict()))
    assert data["status"] == "in_progress" and data["round"] == 2 and data["dealer"] == "Ben"
    assert data["starter"] == "Cy" and data["winner"] is None and data["tie_break_players"] == []
    assert data["players"][1] == {
        "name": "Ben",
        "phase": 2,
        "total": 35,
        "completed": [1],
        "remaining": list(range(2, 11)),
    }
    assert data["placements"][0] == {"place": 1, "name": "Ana", "phases_completed": 1, "total": 0}
    assert data["rounds"][0]["report"] == RoundReport.from_dict(WORKED_EXAMPLE, STANDARD).to_dict()
    assert data["rounds"][0]["points"] == {"Ana": 0, "Ben": 35, "Cy": 40, "Dee": 10}
    assert data["rules"]["name"] == "standard"


def test_states_and_records_are_immutable_values() -> None:
    game = play_round(new_game(FOUR, STANDARD), RoundReport.from_dict(WORKED_EXAMPLE, STANDARD))
    record = game.rounds[0]
    with pytest.raises(TypeError):
        record.points["Ana"] = 5  # type: ignore[index]
    with pytest.raises(AttributeError):
        game.status = "finished"  # type: ignore[misc]
    assert hash(game) == hash(replay(FOUR, STANDARD, [record.report]))


def test_phases_to_attempt_follow_the_rule_set() -> None:
    # 000: a Masters player picks any phase not yet completed; 001: a tie-break replays the last phase.
    masters = new_game(["Ana", "Ben"], get_ruleset("masters", last_phase=3))
    masters = play_round(masters, report("Ana", Ana=PlayerReport(True, phase=2), Ben=up()))
    assert masters.phases_to_attempt("Ana") == (1, 3) and masters.phases_to_attempt("Ben") == (1, 2, 3)
    game = short_game(last_phase=2)
    assert game.phases_to_attempt("Ana") == (1,)
    game = play_round(game, report("Ana", Ana=out(), Ben=up(50), Cy=down(15)))
    game = play_round(game, report("Cy", Ana=down(15), Ben=down(5), Cy=out()))
    assert game.status == "tie_break"
    assert [game.phases_to_attempt(n) for n in ("Ana", "Ben", "Cy")] == [(2,), (), (2,)]
    game = play_round(game, report("Ana", Ana=out(), Cy=down(5)))
    assert game.status == "finished" and game.phases_to_attempt("Ana") == ()
    with pytest.raises(KeyError):
        game.phases_to_attempt("Dee")
