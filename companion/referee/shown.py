"""The referee's answers in a page's language, for the referee page to show.

The API's own fields (``reason``, ``note``, ``summary``, ``need``, ``phase_description``) are English: they are
the contract programs read. A page that sends its language (``"lang": "ro"`` in the JSON body, a ``lang`` form
field with a photo) gets the same answer plus ``"shown"``: every sentence and title the page draws, worded by
:mod:`companion.rules.wording` with that language's catalogue, so the page's script builds no sentence itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask_babel import force_locale, gettext, ngettext  # type: ignore[import-untyped]

from companion import i18n
from companion.rules import Advice, HitVerdict, LaidGroup, RuleSet, Verdict
from companion.rules.wording import (
    Words,
    advice_need,
    advice_summary,
    heading,
    placements,
    requirement_heading,
    say,
    wilds_text,
)

__all__ = ["advice_shown", "hit_shown", "page_words", "verdict_shown"]


@contextmanager
def page_words(lang: Any, rules: RuleSet) -> Iterator[Words | None]:
    """The words of ``lang`` while the block runs (``None`` when no known language was asked for)."""
    if lang not in i18n.LANGUAGES:
        yield None
        return
    with force_locale(lang):
        yield i18n.words(rules)


def _group(group: LaidGroup, rules: RuleSet, w: Words) -> dict[str, str]:
    return {"title": heading(group, rules.deck, w), "wilds": wilds_text(group, rules.deck, w, sign="=")}


def verdict_shown(verdict: Verdict, rules: RuleSet, w: Words) -> dict[str, Any]:
    """A phase verdict's reason, its phase and a title for each group of the arrangement."""
    return {
        "reason": None if verdict.why is None else say(verdict.why, w),
        "description": None if verdict.phase is None else w.phase(verdict.phase),
        "groups": [_group(g, rules, w) for g in verdict.groups],
    }


def hit_shown(verdict: HitVerdict, onto: LaidGroup, rules: RuleSet, w: Words) -> dict[str, Any]:
    """A hit verdict's reason or note, where the cards went, and the group after the hit (the group on the table
    when the hit is refused)."""
    return {
        "reason": None if verdict.why is None else say(verdict.why, w),
        "note": None if verdict.chosen is None else say(verdict.chosen, w),
        "added": placements(verdict.placed, w),
        "group": _group(verdict.group if verdict.legal else onto, rules, w),
    }


def advice_shown(advice: Advice, rules: RuleSet, w: Words) -> dict[str, Any]:
    """The advice's summary, its phase, how many cards are missing, and each group's title and need."""
    if advice.complete:
        missing = gettext("can be laid down")
    else:
        missing = ngettext("%(num)d card missing", "%(num)d cards missing", advice.missing)
    return {
        "summary": advice_summary(advice, w),
        "description": w.phase(advice.phase),
        "missing": missing,
        "groups": [
            {"title": requirement_heading(g.requirement, w), "need": advice_need(g, rules.deck, w)}
            for g in advice.groups
        ],
    }
