"""Rule sets: a registry found by name, each with its deck, phase list and options.

>>> rs = get_ruleset("standard", wrap_runs=True)
>>> rs.name, rs.deck.value, rs.last_phase, rs.wrap_runs
('standard', 'standard', 10, True)
>>> get_ruleset("masters").choose_phase
True
>>> get_ruleset("poker")
Traceback (most recent call last):
...
companion.rules.rulesets.UnknownRuleSetError: unknown rule set 'poker': choose standard, masters or playing-cards
>>> get_ruleset("playing-cards", flushes_share_suit=False).phase(8).description
'two four-card flushes of different suits'
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .cards import Deck
from .phases import DISTINCT_FLUSHES, PHASE_LISTS, Phase
from .wording import Reason, reason

__all__ = [
    "RULESETS",
    "InvalidOptionError",
    "RuleSet",
    "UnknownRuleSetError",
    "get_ruleset",
    "ruleset_names",
]


class _Worded(ValueError):
    def __init__(self, why: Reason) -> None:
        super().__init__(str(why))
        self.why = why


class UnknownRuleSetError(_Worded):
    """A rule set name that is not in the registry."""


class InvalidOptionError(_Worded):
    """A rule-set option with a value that makes no game."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Everything the engine needs to know about how a group plays.

    Options (all documented in the README, each with its source):

    * ``everyone_advances`` (001 house rule, Mattel variation): every player moves up a phase each round; the game
      ends after ``last_phase`` rounds and the lowest total wins.
    * ``last_phase`` (001 house rule "fewer phases"): the phase that ends the game, 1-10.
    * ``wrap_runs`` (001: not allowed by default): a run may turn the corner from 12 to 1. Phase 10 cards only:
      with playing cards the ace is always low and there is no run Q-K-A (004), so the option is refused there.
    * ``natural_per_group``: stricter than 001's "at least one numbered card in the phase": every group of a phase
      needs a numbered card.
    * ``flushes_share_suit`` (playing cards only): the two four-card flushes of phase 8 may be of one suit. 004
      lists phase 8 as "2 Four Card Flushes" and asks for a second suit only in phases 9 and 10 ("5 Cards of 1
      Suit + 3 of Another"); its example ("4,5,6,9 Hearts and 2,6,10,J Spades") shows one way to make it, not a
      rule. Players read two flushes like two sets, which 004 lets share a number ("I have 6 cards all the same
      number, can I use them as my 2 sets of three? A: Yes."), so one suit for both is allowed unless the group
      turns this off.
    """

    name: str
    title: str
    deck: Deck
    phase_list: str
    choose_phase: bool = False
    everyone_advances: bool = False
    last_phase: int = 10
    wrap_runs: bool = False
    natural_per_group: bool = False
    flushes_share_suit: bool = True
    source: str = field(default="001", compare=False)

    @property
    def phases(self) -> dict[int, Phase]:
        """The phases in play, 1 to ``last_phase``."""
        full = PHASE_LISTS[self.phase_list]
        return {n: p for n, p in full.items() if n <= self.last_phase}

    def phase(self, number: int) -> Phase:
        """The phase with this number; ``ValueError`` with a readable message if it is not in play (the sentence
        is :meth:`no_such_phase`)."""
        try:
            return self.phases[number]
        except KeyError:
            raise ValueError(str(self.no_such_phase(number))) from None

    def no_such_phase(self, number: int) -> Reason:
        """Why ``number`` is not a phase of this game."""
        return reason("no_such_phase", number=number, last=self.last_phase)

    def options(self) -> dict[str, bool | int]:
        """The options in play; ``flushes_share_suit`` only for the playing-card deck, the only one with
        flushes."""
        out: dict[str, bool | int] = {
            "everyone_advances": self.everyone_advances,
            "last_phase": self.last_phase,
            "wrap_runs": self.wrap_runs,
            "natural_per_group": self.natural_per_group,
        }
        if self.deck is Deck.PLAYING:
            out["flushes_share_suit"] = self.flushes_share_suit
        return out

    def to_dict(self) -> dict[str, str | bool | int]:
        return {"name": self.name, **self.options()}


RULESETS: dict[str, RuleSet] = {
    rs.name: rs
    for rs in (
        RuleSet("standard", "Phase 10 (standard)", Deck.STANDARD, "standard", source="001"),
        RuleSet(
            "masters",
            "Phase 10 Masters (choose your phase)",
            Deck.STANDARD,
            "standard",
            choose_phase=True,
            source="000",
        ),
        RuleSet("playing-cards", "Phase 10 with playing cards", Deck.PLAYING, "playing-cards", source="004"),
    )
}


def ruleset_names() -> tuple[str, ...]:
    return tuple(RULESETS)


def get_ruleset(
    name: str = "standard",
    *,
    everyone_advances: bool = False,
    last_phase: int = 10,
    wrap_runs: bool = False,
    natural_per_group: bool = False,
    flushes_share_suit: bool = True,
) -> RuleSet:
    """The named rule set with options applied; raises :class:`UnknownRuleSetError` or
    :class:`InvalidOptionError` with a message a player can read.

    >>> get_ruleset("playing-cards", wrap_runs=True)
    Traceback (most recent call last):
    ...
    companion.rules.rulesets.InvalidOptionError: runs do not wrap around in the playing-card game: "Ace is always low", so there is no run Queen, King, Ace (004)
    """
    try:
        base = RULESETS[name]
    except KeyError:
        raise UnknownRuleSetError(reason("unknown_rule_set", name=name, names=tuple(RULESETS))) from None
    if isinstance(last_phase, bool) or not isinstance(last_phase, int) or not 1 <= last_phase <= 10:
        raise InvalidOptionError(reason("last_phase_range"))
    if base.choose_phase and everyone_advances:
        raise InvalidOptionError(reason("advances_with_masters"))
    if base.deck is Deck.PLAYING and wrap_runs:
        # 004: "Ace is always low" and, in its questions, "So I can't have a run Queen, King, Ace?"
        raise InvalidOptionError(reason("no_wrap_with_playing_cards"))
    if base.deck is not Deck.PLAYING and not flushes_share_suit:
        raise InvalidOptionError(reason("flushes_need_playing_cards"))
    phase_list = base.phase_list
    if base.deck is Deck.PLAYING and not flushes_share_suit:
        phase_list = DISTINCT_FLUSHES
    return replace(
        base,
        phase_list=phase_list,
        everyone_advances=bool(everyone_advances),
        last_phase=last_phase,
        wrap_runs=bool(wrap_runs),
        natural_per_group=bool(natural_per_group),
        flushes_share_suit=bool(flushes_share_suit),
    )
