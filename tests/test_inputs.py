"""The one input boundary (companion.inputs): what pages, the API and the CLI read, and its one error type, which
carries the refusal's code, the field and the player beside the sentence."""

from __future__ import annotations

from typing import Any

import pytest

from companion import inputs
from companion.inputs import BadInput, NotFound, Problem, Refused
from companion.rules import Refusal, get_ruleset
from companion.rules.cards import Deck, parse_cards

STANDARD = get_ruleset()
PLAYING = get_ruleset("playing-cards")


@pytest.mark.parametrize(
    ("read", "code", "field", "words"),
    [
        (lambda: inputs.ruleset_from(["standard"]), Problem.BAD_INPUT, "rules", "must be an object"),
        (lambda: inputs.ruleset_from({"name": 7}), Problem.BAD_INPUT, "rules.name", "name of a rule set"),
        (
            lambda: inputs.ruleset_from({"wrap_runs": "yes"}),
            Problem.BAD_INPUT,
            "rules.wrap_runs",
            "true or false",
        ),
        (lambda: inputs.ruleset_from({"name": "poker"}), Problem.BAD_INPUT, "rules", "unknown rule set"),
        (lambda: inputs.rules_from('{"name": '), Problem.BAD_INPUT, "rules", "not valid JSON"),
        (lambda: inputs.rules_from({"name": 7}), Problem.BAD_INPUT, "rules", "name of a rule set"),
        (lambda: inputs.phase_from(None, STANDARD), Problem.BAD_INPUT, "phase", "give the phase"),
        (lambda: inputs.phase_from("two", STANDARD), Problem.BAD_INPUT, "phase", "phase number"),
        (lambda: inputs.phase_from(11, STANDARD), Problem.BAD_INPUT, "phase", "there is no phase 11"),
        (lambda: inputs.cards_from([5], STANDARD, "cards"), Problem.BAD_INPUT, "cards", "list of cards"),
        (
            lambda: inputs.cards_from("R13", STANDARD, "onto"),
            Problem.BAD_INPUT,
            "onto",
            "'R13' is not a card",
        ),
        (lambda: inputs.cards_from("R5 " * 25, STANDARD, "cards"), Problem.BAD_INPUT, "cards", "at most 24"),
        (lambda: inputs.groups_from("R5 |", STANDARD), Problem.BAD_INPUT, "groups", "has no cards"),
        (lambda: inputs.groups_from("R5|" * 7, STANDARD), Problem.BAD_INPUT, "groups", "more than any phase"),
        (lambda: inputs.hand_from(None, STANDARD), Problem.BAD_INPUT, "cards", "cards in the hand"),
        (lambda: inputs.kind_from("pair"), Problem.BAD_INPUT, "kind", "kind of group"),
        (lambda: inputs.hit_from("run", (), end="middle"), Problem.BAD_INPUT, "end", '"low" or "high"'),
        (lambda: inputs.hit_from("run", (), ends=["low"]), Problem.BAD_INPUT, "ends", "one entry per card"),
        (
            lambda: inputs.hit_from("run", (), phase_down="no"),
            Problem.BAD_INPUT,
            "phase_down",
            "true or false",
        ),
        (
            lambda: inputs.group_from(inputs.kind_from("run"), parse_cards("R3 R5"), STANDARD),
            Problem.BAD_INPUT,
            "onto",
            "the group on the table is not a run: the run R3 R5 has a gap at 4",
        ),
        (lambda: inputs.hit_tokens(["W@top"], STANDARD), Problem.BAD_INPUT, "cards", "after @ comes the end"),
        (lambda: inputs.names_from("Ana, Ben"), Problem.BAD_INPUT, "players", "list of 2 to 6 names"),
        (lambda: inputs.names_from(["Ana", "B\x00"]), Problem.BAD_INPUT, "players", "control characters"),
        (lambda: inputs.report_from([], STANDARD), Problem.BAD_INPUT, None, "JSON object"),
        (
            lambda: inputs.report_from(
                {"went_out": "Ana", "players": {"Ana": {"laid_down": False}}}, STANDARD
            ),
            Refusal.OUT_NOT_DOWN,
            None,
            "went out without laying down",
        ),
        (lambda: inputs.check_idempotency_key("a b"), Problem.IDEMPOTENCY_KEY, "idempotency_key", "letters"),
    ],
)
def test_every_refusal_is_one_bad_input_with_its_code_and_field(read, code, field, words):
    with pytest.raises(BadInput) as caught:
        read()
    exc = caught.value
    assert exc.code == code and exc.field == field and words in exc.message
    assert exc.status == 400 and isinstance(exc, ValueError)
    assert exc.to_dict()["code"] == str(code) and exc.to_dict()["error"] == exc.message == str(exc)


def test_a_round_report_names_the_player_and_keeps_the_engines_sentence_as_data():
    body = {
        "went_out": "Ana",
        "players": {"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "points": 12}},
    }
    with pytest.raises(BadInput) as caught:
        inputs.report_from(body, STANDARD)
    exc = caught.value
    assert exc.player == "Ben" and exc.code == Refusal.POINTS_NOT_MULTIPLE
    assert exc.why is not None and exc.why.key == Refusal.POINTS_NOT_MULTIPLE and str(exc.why) == exc.message
    assert exc.to_dict() == {"error": exc.message, "code": "points_not_multiple", "player": "Ben"}


@pytest.mark.parametrize(
    ("value", "rules", "cards"),
    [
        ("r7, b7 W", STANDARD, ["R7", "B7", "W"]),
        (["AH", " ", "10d", "jk"], PLAYING, ["AH", "10D", "JK"]),
        ("", STANDARD, []),
    ],
)
def test_cards_are_read_from_text_or_tokens(value, rules, cards):
    assert [str(c) for c in inputs.cards_from(value, rules, "cards")] == cards


def test_the_command_line_reads_any_number_of_cards_and_names_ends_per_card():
    assert len(inputs.cards_from("R5 " * 30, STANDARD, "cards", most=None)) == 30
    cards, ends = inputs.hit_tokens(["W@LOW", "R7", "W@high"], STANDARD)
    assert [str(c) for c in cards] == ["W", "R7", "W"] and ends == ["low", None, "high"]
    assert inputs.groups_from("R5 | | R6", STANDARD, most=None, allow_empty=True)[1] == ()


@pytest.mark.parametrize(
    ("value", "rules"),
    [
        (None, "standard"),
        ("", "standard"),
        ("masters", "masters"),
        ('{"name": "playing-cards"}', "playing-cards"),
    ],
)
def test_rules_are_read_from_a_name_an_object_or_its_text(value: Any, rules: str):
    assert inputs.rules_from(value).name == rules


def test_refusals_other_than_bad_input_keep_the_same_shape():
    missing = NotFound("there is no game with this id", field="game", code=Problem.GAME_NOT_FOUND)
    assert missing.status == 404 and not isinstance(missing, BadInput) and isinstance(missing, Refused)
    assert missing.to_dict() == {
        "error": "there is no game with this id",
        "code": "game_not_found",
        "field": "game",
    }
    assert BadInput("too big", status=413).status == 413 and BadInput("x").status == 400


def test_names_are_stored_as_nfc_with_single_spaces():
    assert inputs.names_from(["Zoe\u0308", "  Ben   Bo "]) == ["Zoë", "Ben Bo"]
    assert inputs.clean_name("Zoe\u0308") == "Zoë"


def test_a_playing_card_skip_is_refused_as_a_card_of_the_deck():
    with pytest.raises(BadInput, match="'S' is not a card") as caught:
        inputs.cards_from(["AH", "S"], PLAYING, "cards")
    assert caught.value.why is not None and caught.value.why.key == "card_playing_notation"
    assert parse_cards("AH", Deck.PLAYING)
