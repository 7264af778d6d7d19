"""What a check request says, read strictly, and the engine's answer as JSON.

Every rule lives in ``companion.rules``; this module only turns request values (JSON or form fields) into cards,
groups, a phase and a rule set, and the engine's verdicts into the JSON that ``phase10 check --json`` and
``phase10 hit --json`` print.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from companion.rules import Card, GroupKind, InvalidCardError, RuleSet, parse_cards
from companion.rules.hits import check_hit
from companion.rules.referee import InvalidGroupError, WrongDeckError, check_phase, make_group

# A lay-down is at most a hand of cards; far more is not a phase and would only make the referee search longer.
MAX_CARDS = 24
MAX_GROUPS = 6
KINDS = {k.value: k for k in GroupKind}


class CheckError(ValueError):
    """A request the referee cannot judge; ``message`` is for the player, ``status`` for HTTP, ``code`` for
    programs (the engine's refusal code when the engine refused, else ``"bad_input"``)."""

    def __init__(
        self, message: str, *, status: int = 400, field: str | None = None, code: str = "bad_input"
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field
        self.code = str(code)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.message, "code": self.code}
        if self.field:
            out["field"] = self.field
        return out


def rules_from(value: Any) -> RuleSet:
    """A rule set from a name, a JSON object, or the text of one (a multipart field); standard when absent."""
    from companion.scorebook import BadInput, ruleset_from

    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
            raise CheckError('"rules" is not valid JSON', field="rules") from None
    if isinstance(value, str):
        value = value.strip() or None
    try:
        return ruleset_from(value)
    except BadInput as exc:
        raise CheckError(exc.message, field="rules", code=exc.code) from None


def phase_from(value: Any, rules: RuleSet) -> int:
    if value is None or value == "":
        raise CheckError('give the phase to check, for example "phase": 2', field="phase")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise CheckError('"phase" must be a phase number', field="phase")
    try:
        rules.phase(value)  # the rule set says which phases are in play, and how to say it when not
    except ValueError as exc:
        raise CheckError(str(exc), field="phase") from None
    return value


def cards_from(value: Any, rules: RuleSet, field: str) -> tuple[Card, ...]:
    """Cards from a list of tokens or a notation string (``"R7 B7 W"``)."""
    if isinstance(value, str):
        tokens = value.replace(",", " ").split()
    elif isinstance(value, Sequence) and all(isinstance(t, str) for t in value):
        tokens = [t for t in value if t.strip()]
    else:
        raise CheckError(f'"{field}" must be a list of cards such as ["R7", "B7", "W"]', field=field)
    if len(tokens) > MAX_CARDS:
        raise CheckError(f'"{field}" has {len(tokens)} cards; at most {MAX_CARDS}', field=field)
    try:
        return parse_cards(tokens, rules.deck)
    except InvalidCardError as exc:
        raise CheckError(str(exc), field=field) from None


def groups_from(value: Any, rules: RuleSet) -> tuple[tuple[Card, ...], ...]:
    """Groups from a list of card lists or a notation string with ``|`` between groups."""
    if isinstance(value, str):
        parts: list[Any] = value.split("|")
    elif isinstance(value, Sequence):
        parts = list(value)
    else:
        raise CheckError('"groups" must be a list of groups, each a list of cards', field="groups")
    if len(parts) > MAX_GROUPS:
        raise CheckError(f"{len(parts)} groups is more than any phase has", field="groups")
    groups = tuple(cards_from(p, rules, "groups") for p in parts)
    if any(not g for g in groups):
        raise CheckError("one of the groups has no cards", field="groups")
    if sum(len(g) for g in groups) > MAX_CARDS:
        raise CheckError(f"that is more than {MAX_CARDS} cards", field="groups")
    return groups


def judge_phase(
    laid: Sequence[Card] | Sequence[Sequence[Card]], phase: int, rules: RuleSet
) -> dict[str, Any]:
    """The verdict as ``phase10 check --json`` prints it."""
    try:
        verdict = check_phase(laid, phase, rules)
    except WrongDeckError as exc:
        raise CheckError(str(exc), field="cards") from None
    return verdict.to_dict()


def judge_hit(
    kind: Any,
    onto: Sequence[Card],
    cards: Sequence[Card],
    rules: RuleSet,
    *,
    end: Any = None,
    ends: Any = None,
    phase_down: Any = True,
) -> dict[str, Any]:
    """The hit verdict as ``phase10 hit --json`` prints it, plus the group it went onto. ``ends`` names, card by
    card, the end of the run each goes to (``null``, ``"low"`` or ``"high"``), as ``W@low`` does on the command
    line; ``end`` names it for every wild."""
    group_kind = KINDS.get(kind) if isinstance(kind, str) else None
    if group_kind is None:
        raise CheckError(f'"kind" is the kind of group hit onto: {", ".join(KINDS)}', field="kind")
    if end in ("", None):
        end = None
    elif end not in ("low", "high"):
        raise CheckError('"end" is "low" or "high" (the end of the run a wild goes to)', field="end")
    if ends is not None and (
        not isinstance(ends, list)
        or len(ends) != len(cards)
        or any(e not in (None, "low", "high") for e in ends)
    ):
        raise CheckError(
            '"ends" is a list with one entry per card to add: null, "low" or "high"', field="ends"
        )
    if not isinstance(phase_down, bool):
        raise CheckError('"phase_down" must be true or false', field="phase_down")
    if not onto:
        raise CheckError("give the cards of the group on the table (onto)", field="onto")
    if not cards:
        raise CheckError("give at least one card to hit with", field="cards")
    try:
        group = make_group(group_kind, onto, rules)
    except InvalidGroupError as exc:
        raise CheckError(
            f"the group on the table is not a {group_kind.value}: {exc.reason}", field="onto"
        ) from None
    except WrongDeckError as exc:
        raise CheckError(str(exc), field="onto") from None
    try:
        verdict = check_hit(group, cards, rules, end=end, ends=ends, phase_down=phase_down)
    except WrongDeckError as exc:
        raise CheckError(str(exc), field="cards") from None
    return {**verdict.to_dict(), "onto": group.to_dict()}


def judge_json(body: Any) -> dict[str, Any]:
    """Answer a JSON check: a phase (``cards`` or ``groups``) or, with ``kind``, a hit (``onto`` + ``cards``)."""
    if not isinstance(body, Mapping):
        raise CheckError("the body must be a JSON object")
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
        )
        return {**out, "rules": rules.to_dict()}
    phase = phase_from(body.get("phase"), rules)
    if "groups" in body and "cards" in body:
        raise CheckError('give either "cards" (ungrouped) or "groups", not both')
    laid: Sequence[Card] | Sequence[Sequence[Card]]
    if "groups" in body:
        laid = groups_from(body["groups"], rules)
    elif "cards" in body:
        laid = cards_from(body["cards"], rules, "cards")
    else:
        raise CheckError(
            'give the cards laid down: "cards": [...] or "groups": [[...], [...]]', field="cards"
        )
    return {**judge_phase(laid, phase, rules), "rules": rules.to_dict()}
