"""Why the engine says no, as a code a program can branch on (python-chess pairs ``Termination`` with
``Outcome`` the same way). Every refusal of the engine carries one beside its sentence, so the web layer and the
CLI choose a form field, an HTTP status or a translated sentence by the code and never by the wording: a
reworded or translated message changes no behaviour.

>>> from companion.rules import get_ruleset
>>> from companion.rules.game import RoundReport, IllegalReportError
>>> try:
...     RoundReport.from_dict({"went_out": "Ana", "players": {"Ana": {"laid_down": False}}}, get_ruleset())
... except IllegalReportError as exc:
...     print(exc.code, exc.player)
out_not_down Ana
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Refusal"]


class Refusal(StrEnum):
    # A round report that is malformed or cannot have happened.
    REPORT_SHAPE = "report_shape"
    PLAYER_REPORT_SHAPE = "player_report_shape"
    LAID_DOWN_MISSING = "laid_down_missing"
    POINTS_NOT_A_NUMBER = "points_not_a_number"
    PHASE_NOT_A_NUMBER = "phase_not_a_number"
    CARDS_SHAPE = "cards_shape"
    UNKNOWN_CARD = "unknown_card"
    WRONG_DECK = "wrong_deck"
    TOO_MANY_CARDS = "too_many_cards"
    TOO_MANY_COPIES = "too_many_copies"
    NOBODY_WENT_OUT = "nobody_went_out"
    TWO_WENT_OUT = "two_went_out"
    WENT_OUT_UNKNOWN = "went_out_unknown"
    TOO_MANY_PLAYERS = "too_many_players"
    OUT_NOT_DOWN = "out_not_down"
    OUT_WITH_POINTS = "out_with_points"
    POINTS_AND_CARDS = "points_and_cards"
    POINTS_MISSING = "points_missing"
    POINTS_NEGATIVE = "points_negative"
    POINTS_NOT_MULTIPLE = "points_not_multiple"
    POINTS_TOO_MANY = "points_too_many"
    PHASE_NOT_IN_GAME = "phase_not_in_game"
    # A report this game cannot take.
    GAME_OVER = "game_over"
    NOT_IN_TIE_BREAK = "not_in_tie_break"
    NOT_A_PLAYER = "not_a_player"
    PLAYER_MISSING = "player_missing"
    PHASE_NOT_CHOSEN = "phase_not_chosen"
    PHASE_ALREADY_DONE = "phase_already_done"
    WRONG_PHASE = "wrong_phase"
    # A game that cannot be set up.
    NAMES_SHAPE = "names_shape"
    NO_RULE_SET = "no_rule_set"
    PLAYER_COUNT = "player_count"
    NAME_NOT_TEXT = "name_not_text"
    NAME_EMPTY = "name_empty"
    NAME_TOO_LONG = "name_too_long"
    NAME_REPEATED = "name_repeated"
    DEALER = "dealer"
    # A lay-down that is not the phase, or a hit that is not legal.
    SKIP_IN_PHASE = "skip_in_phase"
    NO_CARDS = "no_cards"
    GROUP_COUNT = "group_count"
    NO_NATURAL = "no_natural"
    GROUP_INVALID = "group_invalid"
    NOT_THE_PHASE = "not_the_phase"
    PHASE_NOT_DOWN = "phase_not_down"
    DOES_NOT_FIT = "does_not_fit"
