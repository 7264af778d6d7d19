"""What the referee and the advisor both need below them: which phase a number means in a rule set, and what a
group of each kind compares between its numbered cards. Both build on this module, so neither imports the
other for it."""

from __future__ import annotations

from typing import Any

from .cards import Card
from .phases import PHASE_LISTS, GroupKind, Phase
from .rulesets import RuleSet


def group_key(kind: GroupKind, card: Card) -> Any:
    """What a group of this kind compares between its numbered cards: number, colour or suit."""
    if kind is GroupKind.SET or kind is GroupKind.RUN:
        return card.number
    if kind is GroupKind.COLOR:
        return card.color
    return card.suit


def resolve_phase(phase: Phase | int, rules: RuleSet) -> Phase:
    """A :class:`Phase` as given, or the phase with that number in ``rules`` (``ValueError`` if none)."""
    if isinstance(phase, Phase):
        return phase
    if isinstance(phase, bool) or not isinstance(phase, int):
        raise ValueError("a phase is a Phase or a phase number")
    if phase <= rules.last_phase:
        found = PHASE_LISTS[rules.phase_list].get(phase)
        if found is not None:
            return found
    return rules.phase(phase)
