"""Game progression: seats, the deal, round reports, totals, phases, the end of the game and placements.

A game is an immutable :class:`GameState`; :func:`play_round` takes one :class:`RoundReport` and returns the next
state with an immutable :class:`RoundResult` appended, so a stored list of reports is enough to rebuild any game
(:func:`replay`), which is what editing or deleting a past round needs.

The worked example of source 001, end to end:

>>> from companion.rules import get_ruleset
>>> rules = get_ruleset("standard")
>>> game = new_game(["Ana", "Ben", "Cy", "Dee"], rules)
>>> game.round_number, game.dealer, game.starter
(1, 'Ana', 'Ben')
>>> report = RoundReport.from_dict(
...     {
...         "went_out": "Ana",
...         "players": {
...             "Ana": {"laid_down": True},
...             "Ben": {"laid_down": True, "cards": ["R3", "G7", "B11", "S"]},
...             "Cy": {"laid_down": False, "cards": "W Y9 B12"},
...             "Dee": {"laid_down": True, "points": 10},
...         },
...     },
...     rules,
... )
>>> game = play_round(game, report)
>>> [(p.name, p.phase, p.total) for p in game.players]
[('Ana', 2, 0), ('Ben', 2, 35), ('Cy', 1, 40), ('Dee', 2, 10)]
>>> game.round_number, game.dealer, game.starter
(2, 'Ben', 'Cy')

Impossible reports are refused with a reason a player can read:

>>> bad = RoundReport.from_dict(
...     {"went_out": "Cy", "players": {n: {"laid_down": False, "points": 50} for n in ("Ana", "Ben", "Cy", "Dee")}},
...     rules,
... )
Traceback (most recent call last):
...
companion.rules.game.IllegalReportError: Cy went out without laying down a phase: a player can only go out after laying down (001 "Going out")
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Literal, TypeVar

from .cards import (
    Card,
    Deck,
    InvalidCardError,
    Kind,
    card_points,
    hand_points,
    parse_cards,
    playing_deck,
    standard_deck,
)
from .refusals import Refusal
from .rulesets import RuleSet
from .wording import Reason, reason

__all__ = [
    "MAX_HAND_CARDS",
    "MAX_NAME_LENGTH",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "GameSetupError",
    "GameState",
    "GameStatus",
    "IllegalReportError",
    "Placement",
    "PlayerReport",
    "PlayerState",
    "RoundReport",
    "RoundResult",
    "max_hand_cards",
    "max_hand_points",
    "new_game",
    "play_round",
    "preview",
    "replay",
    "round_points",
    "validate_report",
]

MIN_PLAYERS = 2
MAX_PLAYERS = 6  # 001: "2-6 players"
MAX_NAME_LENGTH = 40
# 001 deals ten cards and every turn draws one and discards one, so a hand holds ten cards between turns. The
# 40th anniversary Skip (001: "the Skip is placed in front of the chosen player, who takes it") can leave an
# eleventh card with a player when the round ends, so eleven is the most a report may hold. 004 also deals ten
# ("deal each player 10 cards") but has no Skip to add an eleventh. MAX_HAND_CARDS is the most of any deck;
# :func:`max_hand_cards` gives a deck's own.
MAX_HAND_CARDS = 11
CARDS_DEALT = 10  # to each player, with either deck (001 "Setup", 004)
_HAND_CARDS = {Deck.STANDARD: 11, Deck.PLAYING: 10}

GameStatus = Literal["in_progress", "tie_break", "finished"]

_K = TypeVar("_K")
_V = TypeVar("_V")


class GameSetupError(ValueError):
    """Players, names or a first dealer that make no game; the message says what to change, ``code`` which
    :class:`~companion.rules.refusals.Refusal` it is and ``why`` what it concerns."""

    def __init__(self, why: Reason, *, code: Refusal) -> None:
        self.why = why
        self.reason = str(why)
        super().__init__(self.reason)
        self.code = code


class IllegalReportError(ValueError):
    """A round report that cannot have happened, or that this game cannot take.

    ``code`` (a :class:`~companion.rules.refusals.Refusal`) says which refusal it is, ``why`` what it concerns
    (:mod:`.wording` words it) and ``reason`` says it in English; ``player`` names the player whose entry is
    wrong (``None`` when the report as a whole is); ``round`` is set by :func:`replay` to the number of the
    round that was refused, and ``reason`` then starts with it for a player to read, while programs read
    ``round``.
    """

    def __init__(
        self, why: Reason, player: str | None = None, round_number: int | None = None, *, code: Refusal
    ) -> None:
        self.why = why
        self.reason = str(why)
        super().__init__(self.reason)
        self.player = player
        self.round = round_number
        self.code = code


class _FrozenMap(Mapping[_K, _V]):
    """A read-only, hashable mapping that keeps insertion order, so records stay immutable values."""

    def __init__(self, items: Mapping[_K, _V] | Iterable[tuple[_K, _V]] = ()) -> None:
        self._data: dict[_K, _V] = dict(items)

    def __getitem__(self, key: _K) -> _V:
        return self._data[key]

    def __iter__(self) -> Iterator[_K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(frozenset(self._data.items()))

    def __repr__(self) -> str:
        return repr(self._data)


def _shown(name: str) -> str:
    """A name short enough to quote in a message, whatever was sent."""
    return name if len(name) <= MAX_NAME_LENGTH else name[: MAX_NAME_LENGTH - 3] + "..."


# ---------------------------------------------------------------------------------------------------------------
# Round reports


@dataclass(frozen=True)
class PlayerReport:
    """What one player did in a round.

    ``points`` is a typed total, or ``cards`` the cards left in hand (scored with :func:`card_points`); the player
    who went out gives neither. ``phase`` is the phase the player attempted: required in Masters when the player laid
    down (000: players choose the phase each hand); in other rule sets and in tie-break rounds it may be given and
    must then be the phase being played (a tie-break replays the last phase, 001).
    """

    laid_down: bool
    points: int | None = None
    cards: tuple[Card, ...] | None = None
    phase: int | None = None

    def __post_init__(self) -> None:
        if self.cards is not None and not isinstance(self.cards, tuple):
            object.__setattr__(self, "cards", tuple(self.cards))

    def to_dict(self) -> dict[str, object]:
        """The API's JSON form; fields that were not given are left out.

        >>> PlayerReport(True, cards=parse_cards("R3 S")).to_dict()
        {'laid_down': True, 'cards': ['R3', 'S']}
        """
        data: dict[str, object] = {"laid_down": self.laid_down}
        if self.points is not None:
            data["points"] = self.points
        if self.cards is not None:
            data["cards"] = [str(c) for c in self.cards]
        if self.phase is not None:
            data["phase"] = self.phase
        return data


def round_points(report: PlayerReport) -> int:
    """Points a player scores for the round: the typed total, else the cards left in hand (001 table, 004 table),
    else 0 (the player who went out, 001: "The player who goes out scores zero").

    >>> round_points(PlayerReport(True, cards=parse_cards("R3 G7 B11 S")))  # 001 worked example: Ben
    35
    >>> round_points(PlayerReport(False, points=40)), round_points(PlayerReport(True))
    (40, 0)
    """
    if report.points is not None:
        return report.points
    if report.cards is not None:
        return hand_points(report.cards)
    return 0


@lru_cache(maxsize=8)
def _deck_in_play(deck: Deck, players: int) -> tuple[Card, ...]:
    return standard_deck() if deck is Deck.STANDARD else playing_deck(players)


def max_hand_cards(deck: Deck) -> int:
    """The most cards a hand of this deck can hold when a round ends: 11 with Phase 10 cards (ten dealt and the
    40th-anniversary Skip, 001), 10 with playing cards (ten dealt and no Skip, 004).

    >>> max_hand_cards(Deck.STANDARD), max_hand_cards(Deck.PLAYING)
    (11, 10)
    """
    return _HAND_CARDS[deck]


@lru_cache(maxsize=2)
def max_hand_points(deck: Deck) -> int:
    """The most points one hand can score in a round: its :func:`max_hand_cards` highest-scoring cards of the
    largest deck in play (six players). Typed totals above it are refused as typing mistakes.

    >>> max_hand_points(Deck.STANDARD)  # 8 Wilds and 3 Skips: 8 x 25 + 3 x 15
    245
    >>> max_hand_points(Deck.PLAYING)  # 10 of the 12 jokers of three packs for six players (004)
    250
    """
    best = sorted((card_points(c) for c in _deck_in_play(deck, MAX_PLAYERS)), reverse=True)
    return sum(best[: max_hand_cards(deck)])


@dataclass(frozen=True)
class RoundReport:
    """Who went out and what every player of the round did.

    ``players`` holds exactly the players of the round: everyone, or only the tied players in a tie-break round.
    """

    went_out: str
    players: Mapping[str, PlayerReport]

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", _FrozenMap(self.players))

    def __hash__(self) -> int:
        return hash((self.went_out, self.players))

    @classmethod
    def from_dict(cls, data: object, rules: RuleSet) -> RoundReport:
        """Read the API's JSON body, checking every type and value; cards are read with the rules' deck.

        Unknown extra fields are ignored. Anything malformed raises :class:`IllegalReportError` with a reason.

        >>> from companion.rules import get_ruleset
        >>> r = RoundReport.from_dict(
        ...     {"went_out": "Ana", "players": {"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "points": 12}}},
        ...     get_ruleset("standard"),
        ... )
        Traceback (most recent call last):
        ...
        companion.rules.game.IllegalReportError: Ben's points must be a multiple of 5: every card scores 5, 10, 15 or 25
        """
        if not isinstance(data, Mapping):
            raise IllegalReportError(reason("report_not_an_object"), code=Refusal.REPORT_SHAPE)
        went_out = data.get("went_out")
        if isinstance(went_out, list | tuple):
            raise IllegalReportError(reason("went_out_list"), code=Refusal.TWO_WENT_OUT)
        if went_out is not None and not isinstance(went_out, str):
            raise IllegalReportError(reason("went_out_not_a_name"), code=Refusal.REPORT_SHAPE)
        players = data.get("players")
        if not isinstance(players, Mapping) or not players:
            raise IllegalReportError(reason("players_missing"), code=Refusal.REPORT_SHAPE)
        reports: dict[str, PlayerReport] = {}
        for name, entry in players.items():
            if not isinstance(name, str):
                raise IllegalReportError(reason("player_not_named"), code=Refusal.REPORT_SHAPE)
            reports[name] = _player_report_from_dict(name, entry, rules)
        report = cls(went_out or "", reports)
        validate_report(report, rules)
        return report

    def to_dict(self) -> dict[str, object]:
        """The API's JSON form; :meth:`from_dict` reads it back to an equal report."""
        return {"went_out": self.went_out, "players": {n: r.to_dict() for n, r in self.players.items()}}


def _player_report_from_dict(name: str, entry: object, rules: RuleSet) -> PlayerReport:
    if not isinstance(entry, Mapping):
        raise _refused(Refusal.PLAYER_REPORT_SHAPE, name)
    laid_down = entry.get("laid_down")
    if not isinstance(laid_down, bool):
        raise _refused(Refusal.LAID_DOWN_MISSING, name)
    points = entry.get("points")
    if points is not None and (isinstance(points, bool) or not isinstance(points, int)):
        raise _refused(Refusal.POINTS_NOT_A_NUMBER, name)
    phase = entry.get("phase")
    if phase is not None and (isinstance(phase, bool) or not isinstance(phase, int)):
        raise _refused(Refusal.PHASE_NOT_A_NUMBER, name)
    raw_cards = entry.get("cards")
    cards: tuple[Card, ...] | None = None
    if raw_cards is not None:
        if isinstance(raw_cards, str):
            raw_cards = raw_cards.replace(",", " ").split()
        if not isinstance(raw_cards, list | tuple) or not all(isinstance(t, str) for t in raw_cards):
            raise _refused(Refusal.CARDS_SHAPE, name)
        if len(raw_cards) > max_hand_cards(rules.deck):
            raise _too_many_cards(name, rules.deck)
        try:
            cards = parse_cards(raw_cards, rules.deck)
        except InvalidCardError as err:
            card = reason(err.why.key, token=repr(_shown(err.token)))
            raise _refused(Refusal.UNKNOWN_CARD, name, card=card) from None
    return PlayerReport(laid_down, points, cards, phase)


def _refused(code: Refusal, name: str, **values: object) -> IllegalReportError:
    """The refusal of one player's entry, its sentence naming the player (shortened to quote)."""
    return IllegalReportError(reason(code, who=_shown(name), **values), name, code=code)


def _too_many_cards(name: str, deck: Deck) -> IllegalReportError:
    return _refused(Refusal.TOO_MANY_CARDS, name, most=max_hand_cards(deck), deck=deck)


def validate_report(report: RoundReport, rules: RuleSet, players_in_game: int = MAX_PLAYERS) -> None:
    """Check a report on its own (no game needed): one player out who laid down and holds nothing, everyone else
    with points or cards that a hand can hold, phases in range. Raises :class:`IllegalReportError`.

    ``players_in_game`` sizes the playing-card deck (004: more packs for more players) for the count of copies.
    :func:`play_round` runs this and then checks the report against the game.
    """
    if not report.went_out:
        raise IllegalReportError(reason(Refusal.NOBODY_WENT_OUT), code=Refusal.NOBODY_WENT_OUT)
    if len(report.players) > MAX_PLAYERS:
        raise IllegalReportError(
            reason(Refusal.TOO_MANY_PLAYERS, most=MAX_PLAYERS), code=Refusal.TOO_MANY_PLAYERS
        )
    if report.went_out not in report.players:
        raise IllegalReportError(
            reason(Refusal.WENT_OUT_UNKNOWN, who=_shown(report.went_out)), code=Refusal.WENT_OUT_UNKNOWN
        )
    for name, entry in report.players.items():
        _validate_player(name, entry, name == report.went_out, rules)
    _validate_copies(report, rules, players_in_game)


def _validate_player(name: str, entry: PlayerReport, went_out: bool, rules: RuleSet) -> None:
    if not isinstance(entry, PlayerReport):
        raise IllegalReportError(
            reason("not_a_player_report", who=_shown(name)), name, code=Refusal.PLAYER_REPORT_SHAPE
        )
    if not isinstance(entry.laid_down, bool):
        raise _refused(Refusal.LAID_DOWN_MISSING, name)
    if went_out:
        if not entry.laid_down:
            raise _refused(Refusal.OUT_NOT_DOWN, name)
        if entry.points or entry.cards:
            raise _refused(Refusal.OUT_WITH_POINTS, name)
    else:
        _validate_hand(name, entry, rules)
    if entry.phase is not None:
        if isinstance(entry.phase, bool) or not isinstance(entry.phase, int):
            raise _refused(Refusal.PHASE_NOT_A_NUMBER, name)
        if not 1 <= entry.phase <= rules.last_phase:
            raise _refused(Refusal.PHASE_NOT_IN_GAME, name, phase=entry.phase, last=rules.last_phase)


def _validate_hand(name: str, entry: PlayerReport, rules: RuleSet) -> None:
    if entry.points is not None and entry.cards is not None:
        raise _refused(Refusal.POINTS_AND_CARDS, name)
    if entry.points is None and entry.cards is None:
        raise _refused(Refusal.POINTS_MISSING, name)
    if entry.points is not None:
        points = entry.points
        if isinstance(points, bool) or not isinstance(points, int):
            raise _refused(Refusal.POINTS_NOT_A_NUMBER, name)
        if points < 0:
            raise _refused(Refusal.POINTS_NEGATIVE, name)
        if points == 0:
            raise _refused(Refusal.TWO_WENT_OUT, name)
        if points % 5:
            raise _refused(Refusal.POINTS_NOT_MULTIPLE, name)
        limit = max_hand_points(rules.deck)
        if points > limit:
            raise _refused(
                Refusal.POINTS_TOO_MANY,
                name,
                points=points,
                most=limit,
                cards=max_hand_cards(rules.deck),
                deck=rules.deck,
            )
    else:
        assert entry.cards is not None
        if not entry.cards:
            raise _refused(Refusal.TWO_WENT_OUT, name)
        if len(entry.cards) > max_hand_cards(rules.deck):
            raise _too_many_cards(name, rules.deck)
        for card in entry.cards:
            if (
                not isinstance(card, Card)
                or card.deck is not rules.deck
                or (card.kind is Kind.SKIP and rules.deck is Deck.PLAYING)
            ):
                raise IllegalReportError(
                    reason("wrong_deck_in_hand", who=_shown(name), card=card, deck=rules.deck),
                    name,
                    code=Refusal.WRONG_DECK,
                )


@lru_cache(maxsize=8)
def _deck_counts(deck: Deck, players: int) -> Mapping[Card, int]:
    # Every report check asks this; counting a 216-card deck each time was most of a replay's cost.
    return MappingProxyType(Counter(_deck_in_play(deck, players)))


def _validate_copies(report: RoundReport, rules: RuleSet, players_in_game: int) -> None:
    """More copies of a card than the deck has cannot be in hands (001 deck list; 004 packs per two players)."""
    held: Counter[Card] = Counter()
    for entry in report.players.values():
        held.update(entry.cards or ())
    if not held:
        return
    available = _deck_counts(rules.deck, max(MIN_PLAYERS, min(players_in_game, MAX_PLAYERS)))
    for card, count in held.items():
        if count > available.get(card, 0):
            raise IllegalReportError(
                reason(
                    Refusal.TOO_MANY_COPIES,
                    count=count,
                    card=card,
                    deck=rules.deck,
                    available=available.get(card, 0),
                ),
                code=Refusal.TOO_MANY_COPIES,
            )


# ---------------------------------------------------------------------------------------------------------------
# Game state


@dataclass(frozen=True)
class PlayerState:
    """One seat: ``phase`` is the next phase to attempt (``None`` once the player has no phase left; in Masters the
    lowest phase still to do, any of ``remaining`` may be chosen), ``completed`` the phases laid down, in the order
    of the phase list, and ``remaining`` the phases still to play."""

    name: str
    phase: int | None
    total: int
    completed: tuple[int, ...]
    remaining: tuple[int, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "phase": self.phase,
            "total": self.total,
            "completed": list(self.completed),
            "remaining": list(self.remaining),
        }


@dataclass(frozen=True)
class RoundResult:
    """The immutable record of one round: its report and what it did.

    ``points`` and ``completed`` (the phase each player completed, or ``None``) cover the players of the round in
    seat order; ``totals`` holds every player's running total after the round.
    """

    number: int
    tie_break: bool
    report: RoundReport
    points: Mapping[str, int]
    completed: Mapping[str, int | None]
    dealer: str
    totals: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("points", "completed", "totals"):
            object.__setattr__(self, name, _FrozenMap(getattr(self, name)))

    def __hash__(self) -> int:
        return hash((self.number, self.tie_break, self.report, self.points, self.completed, self.dealer))

    @property
    def went_out(self) -> str:
        return self.report.went_out

    def to_dict(self) -> dict[str, object]:
        return {
            "number": self.number,
            "tie_break": self.tie_break,
            "dealer": self.dealer,
            "went_out": self.report.went_out,
            "report": self.report.to_dict(),
            "points": dict(self.points),
            "completed": dict(self.completed),
            "totals": dict(self.totals),
        }


@dataclass(frozen=True)
class Placement:
    """A final (or current) place: players equal on both phases completed and points share a place (004)."""

    place: int
    name: str
    phases_completed: int
    total: int

    def to_dict(self) -> dict[str, object]:
        return {
            "place": self.place,
            "name": self.name,
            "phases_completed": self.phases_completed,
            "total": self.total,
        }


@dataclass(frozen=True)
class GameState:
    """A game between rounds. Build it with :func:`new_game`, move it on with :func:`play_round`."""

    rules: RuleSet
    players: tuple[PlayerState, ...]
    first_dealer: int
    rounds: tuple[RoundResult, ...] = ()
    status: GameStatus = "in_progress"
    winner: str | None = None
    tie_break_players: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    @property
    def round_number(self) -> int:
        """The number of the next round to report (rounds count from 1, tie-break rounds included)."""
        return len(self.rounds) + 1

    @property
    def in_next_round(self) -> tuple[str, ...]:
        """Who plays the next round: the tied players during a tie-break, otherwise everyone."""
        return self.tie_break_players if self.status == "tie_break" else self.names

    @property
    def dealer(self) -> str:
        """Who deals the next round. 001: "After each round, the deal passes to the left"; in a tie-break round it
        passes to the next tied player on the left, since only they are dealt in."""
        if not self.rounds:
            return self.names[self.first_dealer]
        return self._next_left_of(self.rounds[-1].dealer, self.in_next_round)

    @property
    def starter(self) -> str:
        """Who plays first in the next round (001: "The player to the dealer's left goes first")."""
        return self._next_left_of(self.dealer, self.in_next_round)

    def _next_left_of(self, name: str, among: Sequence[str]) -> str:
        # Seat order is clockwise, so "to the left" is the next seat in the list.
        names = self.names
        seat = names.index(name)
        for step in range(1, len(names) + 1):
            candidate = names[(seat + step) % len(names)]
            if candidate in among:
                return candidate
        raise AssertionError("a round always has players")  # pragma: no cover

    def player(self, name: str) -> PlayerState:
        """The player of this name; ``KeyError`` naming it when there is none."""
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    def phases_to_attempt(self, name: str) -> tuple[int, ...]:
        """The phases this player may attempt in the next round: any still to do in Masters (000), the last phase
        in a tie-break (001), otherwise the player's own phase; empty when the player does not play it.

        >>> from companion.rules import get_ruleset
        >>> game = new_game(["Ana", "Ben"], get_ruleset("masters", last_phase=3))
        >>> game.phases_to_attempt("Ana")
        (1, 2, 3)
        """
        player = self.player(name)
        if self.status == "finished" or name not in self.in_next_round:
            return ()
        if self.status == "tie_break":
            return (self.rules.last_phase,)
        if self.rules.choose_phase:
            return player.remaining
        return () if player.phase is None else (player.phase,)

    def placements(self) -> tuple[Placement, ...]:
        """Everyone's place: most phases completed first, then fewest points (004 "Determining Places"). With
        ``everyone_advances`` the lowest total decides (001 "After ten rounds, the player with the lowest total score
        wins"), phases completed only between equal totals. Players equal on both share a place.

        >>> from companion.rules import get_ruleset
        >>> game = new_game(["Bob", "Jack", "Sarah", "Dillon"], get_ruleset("playing-cards"))
        >>> [(p.place, p.name) for p in game.placements()]
        [(1, 'Bob'), (1, 'Jack'), (1, 'Sarah'), (1, 'Dillon')]
        """

        def key(p: PlayerState) -> tuple[int, int]:
            if self.rules.everyone_advances:
                return (p.total, -len(p.completed))
            return (-len(p.completed), p.total)

        ordered = sorted(self.players, key=key)
        result: list[Placement] = []
        for i, p in enumerate(ordered):
            place = result[-1].place if result and key(ordered[i - 1]) == key(p) else i + 1
            result.append(Placement(place, p.name, len(p.completed), p.total))
        return tuple(result)

    def to_dict(self) -> dict[str, object]:
        """The API's JSON form of the game (issue 3's ``GET /api/games/<id>`` fields and more)."""
        return {
            "rules": self.rules.to_dict(),
            "first_dealer": self.first_dealer,
            "status": self.status,
            "round": self.round_number,
            "dealer": self.dealer,
            "starter": self.starter,
            "winner": self.winner,
            "tie_break_players": list(self.tie_break_players),
            "players": [p.to_dict() for p in self.players],
            "placements": [p.to_dict() for p in self.placements()],
            "rounds": [r.to_dict() for r in self.rounds],
        }


def _player_state(
    name: str, total: int, completed: Iterable[int], rules: RuleSet, rounds_played: int
) -> PlayerState:
    """Derive a seat's phase and the phases still to play from what it has completed.

    ``rounds_played`` counts rounds other than tie-breaks; with ``everyone_advances`` it alone sets the phase.
    """
    done = tuple(sorted(set(completed))) if rules.choose_phase else tuple(completed)
    phases = tuple(range(1, rules.last_phase + 1))
    if rules.everyone_advances:
        nxt: int | None = rounds_played + 1 if rounds_played < rules.last_phase else None
        remaining = tuple(range(nxt, rules.last_phase + 1)) if nxt is not None else ()
    elif rules.choose_phase:
        remaining = tuple(p for p in phases if p not in done)
        nxt = remaining[0] if remaining else None
    else:
        nxt = len(done) + 1 if len(done) < rules.last_phase else None
        remaining = tuple(range(nxt, rules.last_phase + 1)) if nxt is not None else ()
    return PlayerState(name, nxt, total, done, remaining)


def new_game(names: Sequence[str], rules: RuleSet, first_dealer: int = 0) -> GameState:
    """A new game, players in seat order (clockwise), everyone on phase 1 with 0 points.

    Names are trimmed; 2-6 players (001), each name non-empty, at most 40 characters and different from the others
    ignoring case. ``first_dealer`` is the seat index of the first round's dealer. Raises :class:`GameSetupError`.

    >>> from companion.rules import get_ruleset
    >>> new_game(["Ana", " ana "], get_ruleset("standard"))
    Traceback (most recent call last):
    ...
    companion.rules.game.GameSetupError: two players are called 'ana': give each player a different name
    """
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise GameSetupError(reason(Refusal.NAMES_SHAPE), code=Refusal.NAMES_SHAPE)
    if not isinstance(rules, RuleSet):
        raise GameSetupError(reason(Refusal.NO_RULE_SET), code=Refusal.NO_RULE_SET)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise GameSetupError(
            reason(Refusal.PLAYER_COUNT, least=MIN_PLAYERS, most=MAX_PLAYERS, count=len(names)),
            code=Refusal.PLAYER_COUNT,
        )
    trimmed: list[str] = []
    seen: set[str] = set()
    for raw in names:
        if not isinstance(raw, str):
            raise GameSetupError(reason(Refusal.NAME_NOT_TEXT), code=Refusal.NAME_NOT_TEXT)
        name = raw.strip()
        if not name:
            raise GameSetupError(reason(Refusal.NAME_EMPTY), code=Refusal.NAME_EMPTY)
        if len(name) > MAX_NAME_LENGTH:
            raise GameSetupError(
                reason(Refusal.NAME_TOO_LONG, name=_shown(name), most=MAX_NAME_LENGTH),
                code=Refusal.NAME_TOO_LONG,
            )
        if name.casefold() in seen:
            raise GameSetupError(reason(Refusal.NAME_REPEATED, name=name), code=Refusal.NAME_REPEATED)
        seen.add(name.casefold())
        trimmed.append(name)
    if (
        isinstance(first_dealer, bool)
        or not isinstance(first_dealer, int)
        or not 0 <= first_dealer < len(names)
    ):
        raise GameSetupError(reason(Refusal.DEALER, seats=len(names)), code=Refusal.DEALER)
    players = tuple(_player_state(n, 0, (), rules, 0) for n in trimmed)
    return GameState(rules, players, first_dealer)


def _round_phase(state: GameState, player: PlayerState) -> int | None:
    """The phase a player attempts in the next round outside Masters (a tie-break replays the last phase, 001)."""
    if state.status == "tie_break":
        return state.rules.last_phase
    return player.phase


def preview(state: GameState, report: RoundReport) -> RoundResult:
    """The record :func:`play_round` would append, without moving the game on (for a "before you save" view).

    Raises :class:`IllegalReportError` exactly when :func:`play_round` would.
    """
    if state.status == "finished":
        raise IllegalReportError(reason(Refusal.GAME_OVER, winner=state.winner), code=Refusal.GAME_OVER)
    validate_report(report, state.rules, len(state.players))
    expected = state.in_next_round
    for name in report.players:
        if name not in expected:
            shown = tuple(_shown(n) for n in expected)
            if state.status == "tie_break" and name in state.names:
                raise _refused(Refusal.NOT_IN_TIE_BREAK, name, players=shown)
            raise _refused(Refusal.NOT_A_PLAYER, name, players=shown)
    for name in expected:
        if name not in report.players:
            # A seat's own name: it is never longer than a name may be.
            raise _refused(Refusal.PLAYER_MISSING, name)

    tie_break = state.status == "tie_break"
    points: dict[str, int] = {}
    completed: dict[str, int | None] = {}
    for player in state.players:
        if player.name not in expected:
            continue
        entry = report.players[player.name]
        attempted = _check_phase(state, player, entry)
        points[player.name] = round_points(entry)
        completed[player.name] = attempted if entry.laid_down and not tie_break else None
    totals = {p.name: p.total + points.get(p.name, 0) for p in state.players}
    ordered = RoundReport(report.went_out, {n: report.players[n] for n in expected})
    return RoundResult(state.round_number, tie_break, ordered, points, completed, state.dealer, totals)


def _check_phase(state: GameState, player: PlayerState, entry: PlayerReport) -> int | None:
    """The phase the player attempted this round, refusing one the player cannot be attempting."""
    if state.rules.choose_phase and state.status != "tie_break":
        if entry.phase is None and entry.laid_down:
            raise _refused(Refusal.PHASE_NOT_CHOSEN, player.name)
        if entry.phase is not None and entry.phase in player.completed:
            raise _refused(Refusal.PHASE_ALREADY_DONE, player.name, phase=entry.phase)
        return entry.phase
    current = _round_phase(state, player)
    if entry.phase is not None and entry.phase != current:
        raise _refused(
            Refusal.WRONG_PHASE,
            player.name,
            phase=entry.phase,
            current=current,
            tie_break=state.status == "tie_break",
        )
    return current


def play_round(state: GameState, report: RoundReport) -> GameState:
    """The game after one more round. Raises :class:`IllegalReportError` (and the given state stays as it was).

    Standard (001): a player who laid down moves up one phase, the others repeat it; the game ends after the round
    in which someone completes the last phase, won by the lowest total among those who completed it then; equal
    totals start a tie-break round of the tied players, won by whoever goes out. Masters (000): each player names the
    phase attempted; the game ends when someone has completed them all, decided as above. ``everyone_advances``
    (001 house rule): everyone moves up every round, the game ends after ``last_phase`` rounds with the lowest total
    winning, and equal lowest totals play the same tie-break.
    """
    result = preview(state, report)
    rules = state.rules
    normal_rounds = sum(not r.tie_break for r in state.rounds) + (not result.tie_break)
    players = tuple(
        _player_state(
            p.name,
            result.totals[p.name],
            (*p.completed, c) if (c := result.completed.get(p.name)) is not None else p.completed,
            rules,
            normal_rounds,
        )
        for p in state.players
    )
    rounds = (*state.rounds, result)
    if result.tie_break:
        # 001: "they replay Phase 10 against each other. The first of them to go out wins."
        return GameState(rules, players, state.first_dealer, rounds, "finished", result.went_out, ())

    if rules.everyone_advances:
        contenders = list(players) if normal_rounds >= rules.last_phase else []
    else:
        contenders = [
            p for p in players if len(p.completed) == rules.last_phase and result.completed.get(p.name)
        ]
    if not contenders:
        return GameState(rules, players, state.first_dealer, rounds)
    best = min(p.total for p in contenders)
    tied = tuple(p.name for p in contenders if p.total == best)
    if len(tied) == 1:
        return GameState(rules, players, state.first_dealer, rounds, "finished", tied[0])
    return GameState(rules, players, state.first_dealer, rounds, "tie_break", None, tied)


def replay(
    names: Sequence[str], rules: RuleSet, reports: Sequence[RoundReport], first_dealer: int = 0
) -> GameState:
    """Rebuild a game from its reports, as after editing or deleting a past round.

    A report the rebuilt game cannot take raises :class:`IllegalReportError` with ``round`` set and the reason
    prefixed by the round number.
    """
    state = new_game(names, rules, first_dealer)
    for number, report in enumerate(reports, start=1):
        try:
            state = play_round(state, report)
        except IllegalReportError as err:
            raise IllegalReportError(
                reason("in_round", number=number, why=err.why), err.player, number, code=err.code
            ) from None
    return state
