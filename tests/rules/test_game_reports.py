"""Round reports: reading the API's JSON and refusing every report that cannot have happened.

Every refusal leaves the game as it was and carries a reason a player can read.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from companion.rules.cards import Card, parse_cards
from companion.rules.game import (
    GameSetupError,
    GameState,
    IllegalReportError,
    PlayerReport,
    RoundReport,
    max_hand_cards,
    max_hand_points,
    new_game,
    play_round,
)
from companion.rules.rulesets import get_ruleset

STANDARD = get_ruleset("standard")
MASTERS = get_ruleset("masters")
PLAYING = get_ruleset("playing-cards")
NAMES = ["Ana", "Ben", "Cy"]


def body(went_out: object = "Ana", **players: object) -> dict[str, Any]:
    entries: dict[str, object] = {
        "Ana": {"laid_down": True},
        "Ben": {"laid_down": True, "points": 35},
        "Cy": {"laid_down": False, "cards": ["W", "Y9", "B12"]},
    }
    entries.update(players)
    return {"went_out": went_out, "players": entries}


def refused(game: GameState, data: object) -> IllegalReportError:
    """Play the JSON body on the game; it must be refused, and the game must not change."""
    before = copy.deepcopy(game)
    with pytest.raises(IllegalReportError) as err:
        play_round(game, RoundReport.from_dict(data, game.rules))
    assert game == before
    assert err.value.reason == str(err.value) and err.value.reason
    return err.value


@pytest.fixture
def game() -> GameState:
    return new_game(NAMES, STANDARD)


def test_a_well_formed_body_is_read_and_round_trips(game: GameState) -> None:
    data = body(Extra="ignored") | {"round": 1, "note": "unknown fields are ignored"}
    del data["players"]["Extra"]
    data["players"]["Ana"]["colour"] = "blue"
    report = RoundReport.from_dict(data, STANDARD)
    assert report.went_out == "Ana"
    assert report.players["Cy"] == PlayerReport(False, cards=parse_cards("W Y9 B12"))
    assert RoundReport.from_dict(report.to_dict(), STANDARD) == report
    assert play_round(game, report).player("Cy").total == 40


def test_cards_may_be_sent_as_one_string_in_card_notation() -> None:
    report = RoundReport.from_dict(body(Cy={"laid_down": False, "cards": "w, y9 b12"}), STANDARD)
    assert report.players["Cy"].cards == parse_cards("W Y9 B12")


def test_001_two_players_cannot_both_go_out(game: GameState) -> None:
    # 001: "When you have no cards left, the round ends for everyone." — so only one player goes out.
    err = refused(game, body(went_out=["Ana", "Ben"]))
    assert "only one player goes out" in err.reason
    err = refused(game, body(Ben={"laid_down": True, "points": 0}))
    assert "Ben has no cards left, which means Ben went out too" in err.reason and err.player == "Ben"
    err = refused(game, body(Ben={"laid_down": True, "cards": []}))
    assert err.player == "Ben" and "went out too" in err.reason


@pytest.mark.parametrize("went_out", [None, "", "missing"])
def test_001_a_round_ends_when_one_player_goes_out_so_someone_must_have(
    game: GameState, went_out: str | None
) -> None:
    data = body(went_out)
    if went_out == "missing":
        del data["went_out"]
    assert "nobody went out" in refused(game, data).reason


def test_001_the_player_who_went_out_must_have_laid_down(game: GameState) -> None:
    # 001 "Going out": "You can only go out after you have laid down your phase."
    err = refused(game, body(Ana={"laid_down": False}))
    assert err.player == "Ana" and "went out without laying down" in err.reason


@pytest.mark.parametrize("entry", [{"laid_down": True, "points": 10}, {"laid_down": True, "cards": ["R3"]}])
def test_001_the_player_who_went_out_scores_zero(game: GameState, entry: dict[str, object]) -> None:
    # 001: "The player who goes out scores zero."
    err = refused(game, body(Ana=entry))
    assert err.player == "Ana" and "scores 0" in err.reason


@pytest.mark.parametrize("zero", [{"laid_down": True, "points": 0}, {"laid_down": True, "cards": []}])
def test_001_the_player_who_went_out_may_say_so_with_zero(game: GameState, zero: dict[str, object]) -> None:
    # 001: "The player who goes out scores zero": saying so explicitly is fine.
    assert play_round(game, RoundReport.from_dict(body(Ana=zero), STANDARD)).player("Ana").total == 0


@pytest.mark.parametrize("points", [3, 12, 37, 101])
def test_001_points_are_a_multiple_of_5_since_every_card_scores_5_10_15_or_25(
    game: GameState, points: int
) -> None:
    err = refused(game, body(Ben={"laid_down": True, "points": points}))
    assert err.player == "Ben" and "multiple of 5" in err.reason


def test_points_cannot_be_negative(game: GameState) -> None:
    err = refused(game, body(Ben={"laid_down": True, "points": -5}))
    assert err.player == "Ben" and "cannot be negative" in err.reason


def test_points_above_what_any_hand_can_hold_are_refused(game: GameState) -> None:
    # 11 cards at most (10 dealt, 001, plus a 40th-anniversary Skip), the deck's 8 Wilds and 3 of its 4 Skips.
    assert max_hand_points(STANDARD.deck) == 245
    ok = play_round(game, RoundReport.from_dict(body(Ben={"laid_down": True, "points": 245}), STANDARD))
    assert ok.player("Ben").total == 245
    err = refused(game, body(Ben={"laid_down": True, "points": 250}))
    assert "more than any hand can hold: at most 245" in err.reason
    huge = refused(game, body(Ben={"laid_down": True, "points": 10**100}))
    assert huge.player == "Ben"


def test_a_hand_holds_at_most_11_cards(game: GameState) -> None:
    err = refused(game, body(Ben={"laid_down": True, "cards": ["R1"] * 2 + ["B2"] * 10}))
    assert err.player == "Ben" and "more than 11 cards" in err.reason
    too_many = PlayerReport(True, cards=parse_cards("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12"))
    with pytest.raises(IllegalReportError, match="more than 11 cards"):
        play_round(
            game,
            RoundReport("Ana", {"Ana": PlayerReport(True), "Ben": too_many, "Cy": PlayerReport(False, 5)}),
        )


def test_001_no_more_copies_of_a_card_than_the_deck_holds(game: GameState) -> None:
    # 001: the deck has 8 Wild cards and two of each number in each colour.
    err = refused(
        game, body(Ben={"laid_down": True, "cards": ["W"] * 5}, Cy={"laid_down": False, "cards": ["W"] * 4})
    )
    assert "9 cards W are reported in hands" in err.reason and "only 8" in err.reason
    err = refused(
        game, body(Ben={"laid_down": True, "cards": ["R7", "R7"]}, Cy={"laid_down": False, "cards": ["r7"]})
    )
    assert "3 cards R7" in err.reason


def test_004_more_packs_for_more_players_allow_more_copies() -> None:
    # 004: "For every 2 players you will need: 2 Standard 52 card decks + 4 jokers."
    two = new_game(["Ana", "Ben"], PLAYING)
    jokers = {
        "went_out": "Ana",
        "players": {"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "cards": ["JK"] * 5}},
    }
    assert "only 4" in refused(two, jokers).reason
    six = new_game(["A", "B", "C", "D", "E", "F"], PLAYING)
    entries: dict[str, object] = {n: {"laid_down": False, "points": 50} for n in "BCDEF"}
    entries["A"] = {"laid_down": True}
    entries["B"] = {"laid_down": False, "cards": ["JK"] * 10}
    entries["C"] = {"laid_down": False, "cards": ["JK"] * 2}
    played = play_round(six, RoundReport.from_dict({"went_out": "A", "players": entries}, PLAYING))
    assert played.player("B").total == 250 and played.player("C").total == 50
    entries["D"] = {"laid_down": False, "cards": ["JK"]}
    assert "13 cards JK are reported in hands" in refused(six, {"went_out": "A", "players": entries}).reason


@pytest.mark.parametrize("card", ["JK", "AS"])
@pytest.mark.parametrize(
    ("players", "jokers", "aces"), [(2, 4, 2), (3, 8, 4), (4, 8, 4), (5, 12, 6), (6, 12, 6)]
)
def test_004_a_card_has_as_many_copies_as_the_packs_for_the_number_of_players(
    players: int, jokers: int, aces: int, card: str
) -> None:
    # 004: "For every 2 players you will need: 2 Standard 52 card decks + 4 jokers. So for 4 players you need: 4
    # Standard decks + 8 jokers": a lot per two players, a whole lot more for an odd player out.
    names = [f"P{i}" for i in range(players)]
    game = new_game(names, PLAYING)

    def hands(card: str, count: int) -> dict[str, object]:
        entries: dict[str, object] = {n: {"laid_down": False, "points": 5} for n in names}
        entries["P0"] = {"laid_down": True}
        for i in range(count):
            seat = names[1 + i % (players - 1)]
            entry = entries[seat]
            assert isinstance(entry, dict)
            entries[seat] = {"laid_down": False, "cards": [*entry.get("cards", []), card]}
        return {"went_out": "P0", "players": entries}

    copies = jokers if card == "JK" else aces
    assert play_round(game, RoundReport.from_dict(hands(card, copies), PLAYING)).round_number == 2
    err = refused(game, hands(card, copies + 1))
    assert f"{copies + 1} cards {card} are reported" in err.reason and f"has only {copies}" in err.reason


def test_004_a_playing_card_hand_holds_at_most_10_cards() -> None:
    # 004: "deal each player 10 cards"; there is no Skip card to hand a player an eleventh (001's 40th
    # anniversary Skip belongs to the Phase 10 deck), so ten is the most a hand can hold at the end of a round.
    game = new_game(["Bob", "Jack"], PLAYING)
    ten = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H"]
    body10 = {
        "went_out": "Bob",
        "players": {"Bob": {"laid_down": True}, "Jack": {"laid_down": False, "cards": ten}},
    }
    assert play_round(game, RoundReport.from_dict(body10, PLAYING)).player("Jack").total == 55
    body11 = copy.deepcopy(body10)
    body11["players"]["Jack"]["cards"] = [*ten, "JH"]
    err = refused(game, body11)
    assert err.player == "Jack" and err.reason == (
        'Jack cannot hold more than 10 cards at the end of a round (004: "deal each player 10 cards"; there is no'
        " Skip to add an eleventh)"
    )
    with pytest.raises(IllegalReportError, match="more than 10 cards"):
        play_round(
            game,
            RoundReport(
                "Bob",
                {
                    "Bob": PlayerReport(True),
                    "Jack": PlayerReport(False, cards=parse_cards([*ten, "JH"], PLAYING.deck)),
                },
            ),
        )
    assert max_hand_cards(PLAYING.deck) == 10 and max_hand_cards(STANDARD.deck) == 11


def test_004_typed_points_are_capped_at_what_10_playing_cards_can_score() -> None:
    # 004: "Jokers = 25 Points"; six players play with three lots of 4 jokers, and a hand holds 10 cards.
    assert max_hand_points(PLAYING.deck) == 250
    game = new_game(["Bob", "Jack"], PLAYING)

    def typed(points: int) -> dict[str, object]:
        return {
            "went_out": "Bob",
            "players": {"Bob": {"laid_down": True}, "Jack": {"laid_down": False, "points": points}},
        }

    assert play_round(game, RoundReport.from_dict(typed(250), PLAYING)).player("Jack").total == 250
    err = refused(game, typed(255))
    assert err.reason == (
        "Jack's 255 points are more than any hand can hold: at most 250 (10 cards of a deck of playing cards)"
    )


def test_unknown_and_missing_players_are_refused(game: GameState) -> None:
    err = refused(game, body(Dee={"laid_down": False, "points": 20}))
    assert (
        err.player == "Dee"
        and "Dee is not a player in this game: the players are Ana, Ben and Cy" in err.reason
    )
    data = body()
    del data["players"]["Cy"]
    err = refused(game, data)
    assert err.player == "Cy" and "Cy's report is missing" in err.reason
    err = refused(game, body(went_out="Dee"))
    assert "Dee went out but has no report" in err.reason
    # Names are matched exactly as the game stores them.
    data = body()
    data["players"]["cy"] = data["players"].pop("Cy")
    assert refused(game, data).player == "cy"


def test_a_round_has_at_most_six_players() -> None:
    entries: dict[str, object] = {f"P{i}": {"laid_down": False, "points": 50} for i in range(7)}
    entries["P0"] = {"laid_down": True}
    with pytest.raises(IllegalReportError, match="at most 6 players"):
        RoundReport.from_dict({"went_out": "P0", "players": entries}, STANDARD)


def test_points_and_cards_are_not_both_given_and_not_both_missing(game: GameState) -> None:
    err = refused(game, body(Ben={"laid_down": True, "points": 35, "cards": ["R3"]}))
    assert err.player == "Ben" and "either Ben's points or Ben's cards, not both" in err.reason
    err = refused(game, body(Ben={"laid_down": True}))
    assert err.player == "Ben" and "give Ben's points or the cards left in Ben's hand" in err.reason


def test_cards_are_read_with_the_rules_deck(game: GameState) -> None:
    err = refused(game, body(Cy={"laid_down": False, "cards": ["AH"]}))
    assert err.player == "Cy" and "Cy's cards: 'AH' is not a card" in err.reason
    err = refused(game, body(Cy={"laid_down": False, "cards": ["R13"]}))
    assert "numbers run from 1 to 12" in err.reason
    err = refused(game, body(Cy={"laid_down": False, "cards": ["X" * 10_000]}))
    assert len(err.reason) < 300


def test_001_outside_masters_a_phase_given_must_be_the_one_the_player_is_on(game: GameState) -> None:
    assert play_round(game, RoundReport.from_dict(body(Ana={"laid_down": True, "phase": 1}), STANDARD))
    err = refused(game, body(Ana={"laid_down": True, "phase": 3}))
    assert err.player == "Ana" and "Ana cannot have attempted phase 3: Ana is on phase 1" in err.reason


@pytest.mark.parametrize("phase", [0, -1, 11])
def test_000_masters_phase_out_of_range_is_refused(phase: int) -> None:
    game = new_game(NAMES, MASTERS)
    err = refused(game, body(Ana={"laid_down": True, "phase": phase}, Ben={"laid_down": False, "points": 35}))
    assert err.player == "Ana" and f"no phase {phase} in this game" in err.reason


def test_000_masters_phase_required_from_a_player_who_laid_down() -> None:
    game = new_game(NAMES, MASTERS)
    err = refused(game, body(Ana={"laid_down": True, "phase": 4}))
    assert err.player == "Ben" and "say which phase Ben laid down" in err.reason


MALFORMED: list[tuple[object, str]] = [
    (None, "must be an object"),
    ([], "must be an object"),
    ("Ana went out", "must be an object"),
    ({"went_out": 3, "players": {}}, "'went_out' must be the name"),
    ({"went_out": "Ana"}, "'players' must give a report"),
    ({"went_out": "Ana", "players": []}, "'players' must give a report"),
    ({"went_out": "Ana", "players": {}}, "'players' must give a report"),
    (body(Ben=None), "Ben's report must be an object"),
    (body(Ben=[True, 35]), "Ben's report must be an object"),
    (body(Ben={"points": 35}), "say whether Ben laid down"),
    (body(Ben={"laid_down": "yes", "points": 35}), "say whether Ben laid down"),
    (body(Ben={"laid_down": 1, "points": 35}), "say whether Ben laid down"),
    (body(Ben={"laid_down": True, "points": "35"}), "Ben's points must be a whole number"),
    (body(Ben={"laid_down": True, "points": 35.0}), "Ben's points must be a whole number"),
    (body(Ben={"laid_down": True, "points": True}), "Ben's points must be a whole number"),
    (body(Ben={"laid_down": True, "cards": 35}), "Ben's cards must be a list"),
    (body(Ben={"laid_down": True, "cards": [3, 5]}), "Ben's cards must be a list"),
    (body(Ben={"laid_down": True, "cards": {"R3": 1}}), "Ben's cards must be a list"),
    (body(Ben={"laid_down": True, "points": 35, "phase": "2"}), "Ben's phase must be a whole number"),
    (body(Ben={"laid_down": True, "points": 35, "phase": 2.0}), "Ben's phase must be a whole number"),
]


@pytest.mark.parametrize(("data", "reason"), MALFORMED)
def test_malformed_bodies_are_refused_with_a_reason_not_a_crash(data: object, reason: str) -> None:
    with pytest.raises(IllegalReportError, match=reason):
        RoundReport.from_dict(data, STANDARD)


def test_reports_built_in_code_are_checked_as_strictly_as_json(game: GameState) -> None:
    not_a_card = PlayerReport(True, cards=("R3",))  # type: ignore[arg-type]
    with pytest.raises(IllegalReportError, match="not a card"):
        play_round(
            game,
            RoundReport("Ana", {"Ana": PlayerReport(True), "Ben": not_a_card, "Cy": PlayerReport(False, 5)}),
        )
    listed = PlayerReport(True, cards=[Card.wild()])  # type: ignore[arg-type]
    assert listed.cards == (Card.wild(),)


@pytest.mark.parametrize(
    ("names", "reason"),
    [
        (["Ana"], "2 to 6 players"),
        ([f"P{i}" for i in range(7)], "2 to 6 players"),
        (["Ana", "  "], "every player needs a name"),
        (["Ana", "B" * 41], "too long"),
        (["Ana", " ANA"], "two players are called 'ANA'"),
        (["Ana", 7], "must be text"),
        ("AnaBen", "as a list"),
    ],
)
def test_new_game_refuses_names_that_make_no_game(names: Any, reason: str) -> None:
    with pytest.raises(GameSetupError, match=reason):
        new_game(names, STANDARD)


@pytest.mark.parametrize("first_dealer", [-1, 3, True, "0"])
def test_new_game_refuses_a_first_dealer_who_is_not_a_seat(first_dealer: Any) -> None:
    with pytest.raises(GameSetupError, match="first dealer"):
        new_game(NAMES, STANDARD, first_dealer)


def test_new_game_trims_names_and_keeps_seat_order() -> None:
    game = new_game(["  Ana ", "Ben", "B" * 40], STANDARD, first_dealer=2)
    assert game.names == ("Ana", "Ben", "B" * 40)
    assert game.dealer == "B" * 40 and game.starter == "Ana"
    assert all(p.phase == 1 and p.total == 0 and p.completed == () for p in game.players)
    assert game.status == "in_progress" and game.round_number == 1
