"""What the decks pages say, in the page's language: the walkthrough's steps, why a teaching photo cannot be
used, and the stages of a teaching run.

``vision.teach`` says why a photo cannot be used with a code (``Problem``) and an English sentence; the code is
the contract, so the sentence a player reads is made here from the code, in their language. The place of the
faulty card and the two counts are taken from the English sentence, where ``vision.teach`` puts them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..i18n import gettext, ngettext, plural_samples


@dataclass(frozen=True, slots=True)
class Step:
    """One photo of the walkthrough: what to lay out, and the cards its list names in reading order."""

    key: str
    title: str
    lay_out: str
    cards: str


def _numbers(colour: str) -> str:
    return " ".join(f"{colour}{n}" for n in range(1, 13))


def steps() -> list[Step]:
    """The five photos of the usual teaching (``vision.teach.TEACHING_SETS``): one per colour, then the Wilds
    and Skips, each laid out in two rows of six."""
    return [
        Step(
            "R",
            gettext("Red"),
            gettext(
                "Lay out the 12 red cards, 1 to 12, face up and upright, in two rows (1 to 6, then 7 to 12), "
                "not touching, on a plain table, and photograph them from straight above."
            ),
            _numbers("R"),
        ),
        Step(
            "B",
            gettext("Blue"),
            gettext(
                "Lay out the 12 blue cards, 1 to 12, face up and upright, in two rows (1 to 6, then 7 to 12), "
                "not touching, on a plain table, and photograph them from straight above."
            ),
            _numbers("B"),
        ),
        Step(
            "G",
            gettext("Green"),
            gettext(
                "Lay out the 12 green cards, 1 to 12, face up and upright, in two rows (1 to 6, then 7 to 12), "
                "not touching, on a plain table, and photograph them from straight above."
            ),
            _numbers("G"),
        ),
        Step(
            "Y",
            gettext("Yellow"),
            gettext(
                "Lay out the 12 yellow cards, 1 to 12, face up and upright, in two rows (1 to 6, then 7 to "
                "12), not touching, on a plain table, and photograph them from straight above."
            ),
            _numbers("Y"),
        ),
        Step(
            "WS",
            gettext("Wilds and Skips"),
            gettext(
                "Lay out the 8 Wilds and the 4 Skips, face up and upright, in two rows (six Wilds, then two "
                "Wilds and the four Skips), not touching, on a plain table, and photograph them from straight "
                "above."
            ),
            " ".join(["W"] * 8 + ["S"] * 4),
        ),
    ]


_PLACES: dict[tuple[str, str], Callable[[], str]] = {
    ("top", "left"): lambda: gettext("top left of the photo"),
    ("top", "middle"): lambda: gettext("top of the photo"),
    ("top", "right"): lambda: gettext("top right of the photo"),
    ("middle", "left"): lambda: gettext("left of the photo"),
    ("middle", "middle"): lambda: gettext("middle of the photo"),
    ("middle", "right"): lambda: gettext("right of the photo"),
    ("bottom", "left"): lambda: gettext("bottom left of the photo"),
    ("bottom", "middle"): lambda: gettext("bottom of the photo"),
    ("bottom", "right"): lambda: gettext("bottom right of the photo"),
}


def _place(place: Any) -> str:
    """Where the faulty card lies (``vision.teach``'s (row, column) value), in the page's language, as
    " (top left of the photo)"; nothing when the refusal names no place."""
    key = tuple(place) if isinstance(place, (list, tuple)) and len(place) == 2 else None
    if key not in _PLACES:
        return ""
    return f" ({_PLACES[key]()})"


def count_found(count: int) -> str:
    return ngettext(
        "%(num)d card found: this photo is ready.", "%(num)d cards found: this photo is ready.", count
    )


def problem(code: str, english: str, **values: Any) -> str:
    """The sentence for a teaching refusal with code ``code`` (``vision.teach.Problem``'s values and the
    decks pages' own), in the page's language; a code this module does not know keeps its English."""
    where = _place(values.get("place"))
    if code == "count-mismatch":
        found, named = values.get("found"), values.get("named")
        if isinstance(found, int) and isinstance(named, int):
            return ngettext(
                "The photo shows %(num)d card, the list names %(named)d: name every card in the photo, in "
                "reading order (rows top to bottom, each left to right).",
                "The photo shows %(num)d cards, the list names %(named)d: name every card in the photo, in "
                "reading order (rows top to bottom, each left to right).",
                found,
                named=named,
            )
        return gettext(
            "The photo does not show the cards the list names: name every card in the photo, in reading order."
        )
    sentences: dict[str, Callable[[], str]] = {
        "not-a-photo": lambda: gettext("This is not a photo that can be read: send a JPEG or PNG photo."),
        "no-cards": lambda: gettext(
            "No cards found in the photo: lay the cards face up on a plain table and photograph them from "
            "straight above."
        ),
        "overlapping": lambda: gettext(
            "Cards touch or overlap%(where)s: lay them apart, a finger's width between neighbours, and take "
            "the photo again.",
            where=where,
        ),
        "sideways": lambda: gettext(
            "A card lies sideways%(where)s: lay every card upright, its number at the top left.", where=where
        ),
        "unclear-outline": lambda: gettext(
            "A card's outline is unclear%(where)s: photograph the cards on a plain table that differs from "
            "them, in even light, from straight above.",
            where=where,
        ),
        "busy-table": lambda: gettext(
            "The table's pattern hides the cards' outlines: lay the cards on a plain surface that differs from "
            "them, a finger's width apart, and take the photo again."
        ),
        "glare": lambda: gettext(
            "A lamp's light shines back from the table%(where)s and joins the cards: move the lamp or the phone "
            "until no bright patch shows, and take the photo again.",
            where=where,
        ),
        "bad-cards": lambda: gettext(
            "The card list cannot be read: name the cards as R1 to R12, B1 to B12, G1 to G12, Y1 to Y12, W "
            "(Wild) and S (Skip)."
        ),
        "bad-name": lambda: gettext(
            "A deck's name is 1 to 40 letters, digits, '-' or '_', starting with a letter or a digit."
        ),
        "no-deck": lambda: gettext("There is no deck called %(name)s on this server.", **values),
        "needs-training": needs_training,
        "deck-exists": lambda: gettext(
            "There is already a deck called %(name)s on this server: choose another name, or tick "
            "“Replace the deck %(name)s” to teach it again.",
            **values,
        ),
        "deck-teaching": lambda: gettext(
            "The deck %(name)s is being learnt again right now: it can be removed once that is done.",
            **values,
        ),
        "nothing-kept": lambda: gettext(
            "No photo read with the deck %(name)s has been kept for training yet: correct a reading on the "
            "referee page and tick “Keep this photo for training”, then learn from it here.",
            **values,
        ),
        "too-many-photos": lambda: gettext("At most %(most)d photos can teach one deck.", **values),
        "no-photos": lambda: gettext("Check at least one photo before teaching the deck."),
        "stopped": lambda: gettext(
            "The teaching stopped before it was done (the server was stopped or ran out of memory). Try again."
        ),
        "crashed": lambda: gettext(
            "The teaching failed on the server: %(error)s. Nothing was changed; try again.", error=english
        ),
    }
    make = sentences.get(code)
    return make() if make else english


def needs_training() -> str:
    return gettext(
        "Learning a deck needs the train extra on this server (pip install -e '.[train]'), or the command "
        "'phase10 deck teach' on a computer that has it. You can still check your photos here."
    )


def replace_label(name: str) -> str:
    """The teaching form's explicit consent to teach an existing deck again under its name."""
    return gettext("Replace the deck %(name)s", name=name)


def stage(name: str) -> str:
    """A teaching run's stage (``vision.teach.teach``'s progress stages), in the page's language."""
    stages: dict[str, Callable[[], str]] = {
        "starting": lambda: gettext("Starting"),
        "cutting": lambda: gettext("Cutting the cards out of the photos"),
        "kept": lambda: gettext("Reading the photos kept for training"),
        "rendering": lambda: gettext("Drawing practice tables with your cards"),
        "classifier": lambda: gettext("Learning your card faces"),
        "detector": lambda: gettext("Learning to find your cards on a table"),
        "saving": lambda: gettext("Saving the deck"),
    }
    make = stages.get(name)
    return make() if make else name


def script_words() -> dict[str, Any]:
    """Every sentence the walkthrough's script shows, in the page's language; ``{name}`` stands for a value."""
    samples = plural_samples()
    return {
        "preparing": gettext("Preparing the photo…"),
        "checking": gettext("Checking the photo…"),
        "not_sent": gettext("The photo could not be sent: check the connection and try again."),
        "server_answered": gettext("the server answered %(status)s", status="{status}"),
        "checked": {
            category: ngettext("%(count)s photo checked", "%(count)s photos checked", n, count="{n}")
            for category, n in samples
        },
        "none_checked": gettext("No photo checked yet: five is best, one helps already."),
        "starting": gettext("Starting…"),
        "elapsed": gettext("%(minutes)s min %(seconds)s s so far", minutes="{minutes}", seconds="{seconds}"),
        "took": gettext("Took %(minutes)s min %(seconds)s s", minutes="{minutes}", seconds="{seconds}"),
        "ready": gettext("The deck %(name)s is ready.", name="{name}"),
        "replace": replace_label("{name}"),
        "lost": gettext("The server could not be reached: still trying…"),
    }
