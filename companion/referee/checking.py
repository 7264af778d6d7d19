"""The referee's answers as JSON: the engine's verdicts as ``phase10 check --json`` and ``phase10 hit --json``
print them, for request values read by :mod:`companion.inputs`.

Every rule lives in ``companion.rules`` and every request value is read in ``companion.inputs``; this module
puts the two together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.inputs import BadInput, cards_from, group_from, groups_from, hit_from, phase_from, rules_from
from companion.rules import Card, RuleSet
from companion.rules.hits import check_hit
from companion.rules.referee import WrongDeckError, check_phase
from companion.rules.wording import reason

from .shown import hit_shown, page_words, verdict_shown


def judge_phase(
    laid: Sequence[Card] | Sequence[Sequence[Card]], phase: int, rules: RuleSet, *, lang: Any = None
) -> dict[str, Any]:
    """The verdict as ``phase10 check --json`` prints it; with ``lang``, also ``"shown"`` (its sentences in
    that language, :mod:`.shown`)."""
    try:
        verdict = check_phase(laid, phase, rules)
    except WrongDeckError as exc:
        raise BadInput(exc.why, field="cards") from None
    out = verdict.to_dict()
    with page_words(lang, rules) as words:
        if words is not None:
            out["shown"] = verdict_shown(verdict, rules, words)
    return out


def judge_hit(
    kind: Any,
    onto: Sequence[Card],
    cards: Sequence[Card],
    rules: RuleSet,
    *,
    end: Any = None,
    ends: Any = None,
    phase_down: Any = True,
    lang: Any = None,
) -> dict[str, Any]:
    """The hit verdict as ``phase10 hit --json`` prints it, plus the group it went onto. ``ends`` names, card by
    card, the end of the run each goes to (``null``, ``"low"`` or ``"high"``), as ``W@low`` does on the command
    line; ``end`` names it for every wild. With ``lang``, also ``"shown"``."""
    hit = hit_from(kind, cards, end=end, ends=ends, phase_down=phase_down)
    if not onto:
        raise BadInput(reason("onto_missing"), field="onto")
    if not cards:
        raise BadInput(reason("hit_cards_missing"), field="cards")
    group = group_from(hit.kind, onto, rules)
    try:
        verdict = check_hit(group, cards, rules, end=hit.end, ends=hit.ends, phase_down=hit.phase_down)
    except WrongDeckError as exc:
        raise BadInput(exc.why, field="cards") from None
    out = {**verdict.to_dict(), "onto": group.to_dict()}
    with page_words(lang, rules) as words:
        if words is not None:
            out["shown"] = hit_shown(verdict, group, rules, words)
    return out


def judge_json(body: Any) -> dict[str, Any]:
    """Answer a JSON check: a phase (``cards`` or ``groups``) or, with ``kind``, a hit (``onto`` + ``cards``);
    ``lang`` asks for the sentences in a page's language too."""
    if not isinstance(body, Mapping):
        raise BadInput("the body must be a JSON object")
    rules = rules_from(body.get("rules"))
    if "kind" in body:
        onto = cards_from(body.get("onto", []), rules, "onto")
        cards = cards_from(body.get("cards", []), rules, "cards")
        out = judge_hit(
            body["kind"],
            onto,
            cards,
            rules,
            end=body.get("end"),
            ends=body.get("ends"),
            phase_down=body.get("phase_down", True),
            lang=body.get("lang"),
        )
        return {**out, "rules": rules.to_dict()}
    phase = phase_from(body.get("phase"), rules)
    if "groups" in body and "cards" in body:
        raise BadInput('give either "cards" (ungrouped) or "groups", not both')
    laid: Sequence[Card] | Sequence[Sequence[Card]]
    if "groups" in body:
        laid = groups_from(body["groups"], rules)
    elif "cards" in body:
        laid = cards_from(body["cards"], rules, "cards")
    else:
        raise BadInput(reason("laid_missing"), field="cards")
    return {**judge_phase(laid, phase, rules, lang=body.get("lang")), "rules": rules.to_dict()}
