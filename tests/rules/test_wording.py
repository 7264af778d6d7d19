"""The engine's sentences, worded in one module (companion.rules.wording): the English the API and the CLI have
always said, and every sentence in each language of the catalogues, with all its values in place."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from babel.lists import format_list
from babel.support import Translations

from companion.rules import advise, get_ruleset
from companion.rules.cards import Color, Deck, Suit, parse_cards
from companion.rules.hits import check_hit
from companion.rules.phases import STANDARD_PHASES, GroupKind, Requirement
from companion.rules.referee import check_phase, make_group
from companion.rules.wording import (
    _SENTENCES,
    ENGLISH,
    Reason,
    Words,
    a_rank,
    group_title,
    heading,
    reason,
    requirement_heading,
    say,
)

TRANSLATIONS = Path(__file__).resolve().parents[2] / "companion" / "translations"
STANDARD = get_ruleset()
PLAYING = get_ruleset("playing-cards")


def _words(lang: str) -> Words:
    """A language's words from its compiled catalogue, as the web layer builds them (without Flask)."""
    if lang == "en":
        return ENGLISH
    catalogue = Translations.load(str(TRANSLATIONS), [lang])

    def join(items: Any, style: str) -> str:
        return (
            format_list(list(items), style="or" if style == "or" else "standard", locale=lang)
            if items
            else ""
        )

    return Words(gettext=catalogue.gettext, ngettext=catalogue.ngettext, join=join)


def _placed() -> Any:
    run = make_group(GroupKind.RUN, parse_cards("W R4 R5 R6"))
    return check_hit(run, parse_cards("W R7"), STANDARD).placed


# A value for each name a sentence takes; some names stand for other values in a few sentences.
SAMPLES: dict[str, Any] = {
    "token": "'R13'",
    "card": parse_cards("B7")[0],
    "deck": Deck.STANDARD,
    "number": 5,
    "last": 10,
    "name": "poker",
    "names": ("standard", "masters", "playing-cards"),
    "cards": parse_cards("R3 R5 R6"),
    "group": parse_cards("R3 R4 R5"),
    "naturals": parse_cards("R3 B5 B7"),
    "strays": parse_cards("B5 B7"),
    "spare": parse_cards("R11"),
    "main": Color.RED,
    "colour": Color.GREEN,
    "suit": Suit.HEARTS,
    "belongs": 8,
    "low": 4,
    "high": 6,
    "below": 1,
    "above": 2,
    "numbers": (1, 2),
    "holes": (4, 5),
    "wilds": 2,
    "after": 6,
    "phase": STANDARD_PHASES[2],
    "requirement": Requirement(GroupKind.SET, 3),
    "kind": GroupKind.RUN,
    "laid": 1,
    "count": 3,
    "most": 24,
    "least": 2,
    "seats": 4,
    "who": "Ana",
    "players": ("Ana", "Ben"),
    "winner": "Ben",
    "points": 250,
    "available": 2,
    "current": 3,
    "tie_break": False,
    "field": "cards",
    "megabytes": 16.0,
    "why": reason("skip_in_phase"),
    "gap": reason("run_gap", cards=parse_cards("R3 R5"), low=4, high=4, deck=Deck.STANDARD),
    "first": parse_cards("R4")[0],
    "second": parse_cards("B4")[0],
    "options": (2, 7),
    "end": "low",
    "needed": 2,
    "option": None,
    "advice": advise(parse_cards("R5 B5 W G8 Y8 R11"), 1),
    "chosen": _placed(),
    "other": _placed(),
    "placed": _placed(),
    "wilds_only": True,
}
OVERRIDES: dict[str, dict[str, Any]] = {
    "set_takes_only": {"card": 8},
    "run_takes": {"card": 3},
    "phase_not_in_game": {"phase": 11},
    "phase_already_done": {"phase": 2},
    "wrong_phase": {"phase": 4},
    "too_many_copies": {"count": 5},
    "photo_unreadable": {"why": "the file is cut off"},
    "unknown_card": {"card": reason("card_number", token="'R13'")},
    "in_round": {"why": reason("out_not_down", who="Ana")},
    "points_too_many": {"cards": 11},
    "suit_takes_only": {"card": parse_cards("KS", Deck.PLAYING)[0]},
    "not_one_suit": {
        "main": Suit.HEARTS,
        "deck": Deck.PLAYING,
        "cards": parse_cards("2H 5H 7S", Deck.PLAYING),
        "naturals": parse_cards("2H 5H 7S", Deck.PLAYING),
        "strays": parse_cards("7S", Deck.PLAYING),
    },
}


def _reason(key: str) -> Reason:
    names = list(inspect.signature(_SENTENCES[key]).parameters)[1:]
    return reason(key, **{n: OVERRIDES.get(key, {}).get(n, SAMPLES[n]) for n in names})


@pytest.mark.parametrize("lang", ["en", "ro", "de"])
@pytest.mark.parametrize("key", sorted(_SENTENCES))
def test_every_sentence_is_worded_in_each_language_with_its_values(key, lang):
    why = _reason(key)
    text = say(why, _words(lang))
    assert text and "%(" not in text and "{" not in text.replace('{"', "")
    if lang != "en":
        assert text != say(why), f"the catalogue of {lang} does not translate {key!r}"


@pytest.mark.parametrize(
    ("why", "english"),
    [
        (reason("skip_in_phase"), "a Skip can never be part of a phase"),
        (
            check_phase(parse_cards("R1 R2 R3 R4 R5 R6 B7"), 8).why,
            "7 cards of one colour: these are 6 red and 1 blue",
        ),
        (
            check_hit(make_group(GroupKind.RUN, parse_cards("R9 B10 G11")), parse_cards("R7"), STANDARD).why,
            "the run R9 B10 G11 takes an 8 or a 12, not a 7",
        ),
        (reason("unknown_rule_set", name="poker", names=("standard", "masters", "playing-cards")), None),
    ],
)
def test_a_reason_is_data_and_its_str_is_the_english_sentence(why, english):
    assert isinstance(why, Reason) and hash(why) == hash(Reason(why.key, why.values))
    assert (
        str(why)
        == say(why)
        == (english or "unknown rule set 'poker': choose standard, masters or playing-cards")
    )


@pytest.mark.parametrize(
    ("word", "expected"),
    [("7", "a 7"), ("8", "an 8"), ("11", "an 11"), ("A", "an A"), ("K", "a K"), ("12", "a 12")],
)
def test_a_or_an_before_a_rank(word, expected):
    assert a_rank(ENGLISH, word) == expected


@pytest.mark.parametrize(
    ("kind", "cards", "rules", "title", "page"),
    [
        (GroupKind.SET, "R7 B7 W", STANDARD, "set of 7s", "Set of 7s"),
        (GroupKind.SET, "W W", STANDARD, "set of wilds", "Set of wilds"),
        (GroupKind.RUN, "W R4 B5 G6", STANDARD, "run 3-6", "Run 3–6"),
        (GroupKind.RUN, "10S JH QD KC", PLAYING, "run 10-K", "Run 10–K"),
        (GroupKind.COLOR, "R1 R3 W", STANDARD, "red colour group", "Red cards"),
        (GroupKind.SUIT, "2H 5H JK", PLAYING, "hearts suit group", "Hearts cards"),
    ],
)
def test_group_titles_for_the_command_line_and_the_page(kind, cards, rules, title, page):
    group = make_group(kind, parse_cards(cards, rules.deck), rules)
    assert group_title(group, rules.deck) == title and heading(group, rules.deck) == page


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "Set of 3"), ("ro", "Set de 3"), ("de", "3er-Satz")],
)
def test_a_requirement_heads_its_group_in_each_language(lang, expected):
    assert requirement_heading(Requirement(GroupKind.SET, 3), _words(lang)) == expected


def test_a_verdict_carries_the_reason_as_data_beside_its_english():
    verdict = check_phase(parse_cards("R5 B5 G7 Y8 R9 B11"), 1)
    assert verdict.why is not None and verdict.reason == str(verdict.why)
    assert "5, 7, 8, 9 și 11" in say(verdict.why, _words("ro"))
