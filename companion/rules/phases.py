"""Phases as data: each phase is a tuple of group requirements.

>>> STANDARD_PHASES[2].description
'one set of 3 and one run of 4'
>>> PLAYING_CARD_PHASES[9].description
'5 cards of one suit and 3 of another suit'

A new phase list is a new table, not new code.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "DISTINCT_FLUSHES",
    "PHASE_LISTS",
    "PLAYING_CARD_PHASES",
    "STANDARD_PHASES",
    "GroupKind",
    "Phase",
    "Requirement",
]


class GroupKind(enum.Enum):
    """What makes a group (001 "Sets, runs and color"; 004 flushes and red/black)."""

    SET = "set"  # same number, any colours
    RUN = "run"  # consecutive numbers, any colours
    COLOR = "color"  # one colour (standard: red/blue/green/yellow; playing cards: red/black)
    SUIT = "suit"  # one suit (playing cards)


@dataclass(frozen=True, slots=True)
class Requirement:
    """One group of a phase: at least ``size`` cards of ``kind``."""

    kind: GroupKind
    size: int

    @property
    def noun(self) -> str:
        return {
            GroupKind.SET: f"set of {self.size}",
            GroupKind.RUN: f"run of {self.size}",
            GroupKind.COLOR: f"{self.size} cards of one colour",
            GroupKind.SUIT: f"{self.size} cards of one suit",
        }[self.kind]


@dataclass(frozen=True, slots=True)
class Phase:
    """A phase: its number, its groups and how it reads.

    ``distinct_suits``: the suit groups must be of different suits (004: "5 cards of 1 suit + 3 of another").
    """

    number: int
    requirements: tuple[Requirement, ...]
    description: str
    distinct_suits: bool = False

    @property
    def min_cards(self) -> int:
        return sum(r.size for r in self.requirements)


def _phase(
    number: int, description: str, *reqs: tuple[GroupKind, int], distinct_suits: bool = False
) -> Phase:
    return Phase(number, tuple(Requirement(k, n) for k, n in reqs), description, distinct_suits)


S, R, C, U = GroupKind.SET, GroupKind.RUN, GroupKind.COLOR, GroupKind.SUIT

# 001: "1: two sets of 3. 2: one set of 3 and one run of 4. ... 10: one set of 5 and one set of 3."
STANDARD_PHASES: dict[int, Phase] = {
    p.number: p
    for p in (
        _phase(1, "two sets of 3", (S, 3), (S, 3)),
        _phase(2, "one set of 3 and one run of 4", (S, 3), (R, 4)),
        _phase(3, "one set of 4 and one run of 4", (S, 4), (R, 4)),
        _phase(4, "one run of 7", (R, 7)),
        _phase(5, "one run of 8", (R, 8)),
        _phase(6, "one run of 9", (R, 9)),
        _phase(7, "two sets of 4", (S, 4), (S, 4)),
        _phase(8, "7 cards of one colour", (C, 7)),
        _phase(9, "one set of 5 and one set of 2", (S, 5), (S, 2)),
        _phase(10, "one set of 5 and one set of 3", (S, 5), (S, 3)),
    )
}

# 004: the ten phases of the playing-card game.
PLAYING_CARD_PHASES: dict[int, Phase] = {
    p.number: p
    for p in (
        _phase(1, "one set of 3 and one run of 3", (S, 3), (R, 3)),
        _phase(2, "one set of 3 and one run of 4", (S, 3), (R, 4)),
        _phase(3, "two sets of 3", (S, 3), (S, 3)),
        _phase(4, "one run of 6", (R, 6)),
        _phase(5, "one run of 7", (R, 7)),
        _phase(6, "one run of 8", (R, 8)),
        _phase(7, "8 cards of one colour (red or black)", (C, 8)),
        _phase(8, "two four-card flushes", (U, 4), (U, 4)),
        _phase(9, "5 cards of one suit and 3 of another suit", (U, 5), (U, 3), distinct_suits=True),
        _phase(10, "5 cards of one suit and 4 of another suit", (U, 5), (U, 4), distinct_suits=True),
    )
}

# The playing-card phases for groups that want phase 8's two flushes in two suits (rule set option
# ``flushes_share_suit`` off); 004 asks for "another" suit only in phases 9 and 10.
DISTINCT_FLUSHES = "playing-cards/distinct-flushes"
_FLUSHES_OF_TWO_SUITS = _phase(
    8, "two four-card flushes of different suits", (U, 4), (U, 4), distinct_suits=True
)

PHASE_LISTS: dict[str, dict[int, Phase]] = {
    "standard": STANDARD_PHASES,
    "playing-cards": PLAYING_CARD_PHASES,
    DISTINCT_FLUSHES: {**PLAYING_CARD_PHASES, 8: _FLUSHES_OF_TWO_SUITS},
}
