"""The one input boundary: what the pages, the JSON API and the command line read from a player, read strictly.

Rule sets, phases, cards, groups, hits, names and round reports are read here and nowhere else, and every refusal
is one error type, :class:`BadInput` (a :class:`Refused`). It carries the code a program branches on (the
engine's :class:`~companion.rules.Refusal`, or a :class:`Problem` of the app's own), the field and the player it
concerns, the English sentence (``message``) and, where a page shows it to a player, the sentence as data
(``why``, worded in the page's language by :mod:`companion.rules.wording`). Nothing branches on the words.

Each caller turns a refusal into its own answer: the app's error handler (``companion.answers``) into JSON
``{"error", "code", "field"?, "player"?}`` for the API, a page or a form error for a browser; the CLI into exit
status 2 and the message on stderr. No Flask and no SQLAlchemy here.

>>> from companion.rules import get_ruleset
>>> [str(c) for c in cards_from("r7, b7 W", get_ruleset(), "cards")]
['R7', 'B7', 'W']
>>> try:
...     phase_from("two", get_ruleset())
... except BadInput as exc:
...     print(exc.to_dict())
{'error': '"phase" must be a phase number', 'code': 'bad_input', 'field': 'phase'}
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from companion.rules import (
    Card,
    GameSetupError,
    GroupKind,
    IllegalReportError,
    InvalidCardError,
    InvalidGroupError,
    InvalidOptionError,
    LaidGroup,
    Refusal,
    RoundReport,
    RuleSet,
    UnknownRuleSetError,
    WrongDeckError,
    get_ruleset,
    make_group,
    parse_cards,
)
from companion.rules.game import MAX_PLAYERS, MIN_PLAYERS
from companion.rules.wording import Reason, reason

__all__ = [
    "KINDS",
    "MAX_CARDS",
    "MAX_GROUPS",
    "BadInput",
    "HitRequest",
    "NotFound",
    "Problem",
    "Refused",
    "cards_from",
    "check_idempotency_key",
    "clean_name",
    "group_from",
    "groups_from",
    "hand_from",
    "hit_from",
    "hit_tokens",
    "names_from",
    "phase_from",
    "report_from",
    "rules_from",
    "ruleset_from",
    "setup_refused",
]

# A lay-down is at most a hand of cards; far more is not a phase and would only make the referee search longer.
MAX_CARDS = 24
MAX_GROUPS = 6
KINDS = {k.value: k for k in GroupKind}
IDEMPOTENCY_KEY_MAX = 64
End = Literal["low", "high"]


class Problem(StrEnum):
    """The app's own refusals, beside the engine's (:class:`companion.rules.Refusal`)."""

    BAD_INPUT = "bad_input"
    GAME_NOT_FOUND = "game_not_found"
    ROUND_NOT_FOUND = "round_not_found"
    ROUND_TAKEN = "round_taken"
    ROUND_OUT_OF_ORDER = "round_out_of_order"
    ALREADY_SAVED = "already_saved"
    IDEMPOTENCY_KEY = "idempotency_key"
    SAVED_ELSEWHERE = "saved_elsewhere"
    LATER_ROUND_BREAKS = "later_round_breaks"
    STORED_ROUND_BROKEN = "stored_round_broken"
    GAME_HAS_ROUNDS = "game_has_rounds"
    NOT_FINISHED = "not_finished"


class Refused(Exception):
    """A request the app refuses. ``status`` is the HTTP status the API answers with, ``code`` the refusal's
    code (the engine's :class:`~companion.rules.Refusal` when the engine refused, else a :class:`Problem`),
    ``field`` and ``player`` what it concerns, ``message`` the English sentence and ``why`` the sentence as
    data when a page may show it. ``round_number`` names a stored round a replay refused.

    Subclasses exist only where the meaning differs from bad input: :class:`NotFound` (there is nothing to fix
    in the request), and the score keeper's conflicts (``companion.scorebook.Conflict``: the request was fine,
    the game has moved on)."""

    status = 400
    default_code: str = Problem.BAD_INPUT

    def __init__(
        self,
        message: str | Reason,
        *,
        field: str | None = None,
        player: str | None = None,
        code: str | None = None,
        why: Reason | None = None,
        status: int | None = None,
        round_number: int | None = None,
    ) -> None:
        if isinstance(message, Reason):
            why, message = message, str(message)
        super().__init__(message)
        self.message = message
        self.field = field
        self.player = player
        self.code = str(code or self.default_code)
        self.why = why
        self.round_number = round_number
        if status is not None:
            self.status = status

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.message, "code": self.code}
        if self.field is not None:
            body["field"] = self.field
        if self.player is not None:
            body["player"] = self.player
        return body


class BadInput(Refused, ValueError):
    """Input that cannot be read or judged: 400, or the status of what was wrong with the request as a whole
    (413 too large, 415 not JSON, 422 a photo that cannot be judged as it stands)."""


class NotFound(Refused):
    """What the request names is not there (a game, a round, a player of the game): 404."""

    status = 404


def _engine(exc: ValueError, field: str | None, code: str | None = None) -> BadInput:
    """An engine's refusal of what was read (an unknown card, a rule set that makes no game)."""
    why = getattr(exc, "why", None)
    return BadInput(str(exc), field=field, code=code, why=why if isinstance(why, Reason) else None)


# --------------------------------------------------------------------------------------------- rules


def ruleset_from(data: Any) -> RuleSet:
    """A rule set from the API's ``rules`` object, or a rule set's name (missing: the standard game)."""
    if data is None:
        data = {}
    if isinstance(data, str):
        data = {"name": data}
    if not isinstance(data, Mapping):
        raise BadInput('"rules" must be an object such as {"name": "standard"}', field="rules")
    name = data.get("name", "standard")
    if not isinstance(name, str):
        raise BadInput('"rules.name" must be the name of a rule set', field="rules.name")
    options: dict[str, Any] = {}
    for key in ("everyone_advances", "wrap_runs", "natural_per_group", "flushes_share_suit"):
        if key in data:
            if not isinstance(data[key], bool):
                raise BadInput(f'"rules.{key}" must be true or false', field=f"rules.{key}")
            options[key] = data[key]
    if "last_phase" in data:
        value = data["last_phase"]
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadInput('"rules.last_phase" must be a whole number from 1 to 10', field="rules.last_phase")
        options["last_phase"] = value
    try:
        return get_ruleset(name, **options)
    except (UnknownRuleSetError, InvalidOptionError) as exc:
        raise _engine(exc, "rules") from None


def rules_from(value: Any) -> RuleSet:
    """A rule set from a name, a JSON object, or the text of one (a multipart field); standard when absent.
    Every refusal names the field ``rules``."""
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
            raise BadInput('"rules" is not valid JSON', field="rules") from None
    if isinstance(value, str):
        value = value.strip() or None
    try:
        return ruleset_from(value)
    except BadInput as exc:
        raise BadInput(exc.message, field="rules", code=exc.code, why=exc.why) from None


def phase_from(value: Any, rules: RuleSet) -> int:
    """A phase number of ``rules``: a whole number, or its digits as text (a form field)."""
    if value is None or value == "":
        raise BadInput(reason("phase_missing"), field="phase")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(reason("phase_not_a_phase"), field="phase")
    if value not in rules.phases:
        raise BadInput(rules.no_such_phase(value), field="phase")
    return value


# --------------------------------------------------------------------------------------------- cards


def cards_from(value: Any, rules: RuleSet, field: str, *, most: int | None = MAX_CARDS) -> tuple[Card, ...]:
    """Cards of the rule set's deck from a list of tokens or a notation string (``"R7 B7 W"``); at most
    ``most`` of them (``None``: any number, as the command line reads them)."""
    if isinstance(value, str):
        tokens = value.replace(",", " ").split()
    elif isinstance(value, Sequence) and all(isinstance(t, str) for t in value):
        tokens = [t for t in value if t.strip()]
    else:
        raise BadInput(f'"{field}" must be a list of cards such as ["R7", "B7", "W"]', field=field)
    if most is not None and len(tokens) > most:
        raise BadInput(reason("too_many_typed", field=field, count=len(tokens), most=most), field=field)
    try:
        return parse_cards(tokens, rules.deck)
    except InvalidCardError as exc:
        raise _engine(exc, field) from None


def groups_from(
    value: Any, rules: RuleSet, *, most: int | None = MAX_CARDS, allow_empty: bool = False
) -> tuple[tuple[Card, ...], ...]:
    """Groups from a list of card lists or a notation string with ``|`` between groups. ``allow_empty`` hands
    an empty group back for the caller to word (the command line names the ``|``)."""
    if isinstance(value, str):
        parts: list[Any] = value.split("|")
    elif isinstance(value, Sequence):
        parts = list(value)
    else:
        raise BadInput('"groups" must be a list of groups, each a list of cards', field="groups")
    if most is not None and len(parts) > MAX_GROUPS:
        raise BadInput(reason("too_many_groups", count=len(parts)), field="groups")
    groups = tuple(cards_from(p, rules, "groups", most=most) for p in parts)
    if not allow_empty and any(not g for g in groups):
        raise BadInput(reason("group_without_cards"), field="groups")
    if most is not None and sum(len(g) for g in groups) > most:
        raise BadInput(reason("more_than_cards", most=most), field="groups")
    return groups


def hand_from(value: Any, rules: RuleSet) -> tuple[Card, ...]:
    """The cards of a hand, as ``phase10 advise`` reads them: a ``|`` between cards is ignored."""
    if value is None:
        raise BadInput(reason("hand_missing"), field="cards")
    if isinstance(value, str):
        value = value.replace("|", " ")
    elif isinstance(value, list) and all(isinstance(t, str) for t in value):
        value = " ".join(value).replace("|", " ")
    cards = cards_from(value, rules, "cards")
    if not cards:
        raise BadInput(reason("hand_missing"), field="cards")
    return cards


# --------------------------------------------------------------------------------------------- hits


@dataclass(frozen=True, slots=True)
class HitRequest:
    """A hit as asked: the kind of group on the table, which end of a run every wild (``end``) or each card
    (``ends``, one entry per card) goes to, and whether the player's own phase is down."""

    kind: GroupKind
    end: End | None
    ends: tuple[End | None, ...] | None
    phase_down: bool


def kind_from(value: Any) -> GroupKind:
    kind = KINDS.get(value) if isinstance(value, str) else None
    if kind is None:
        raise BadInput(f'"kind" is the kind of group hit onto: {", ".join(KINDS)}', field="kind")
    return kind


def hit_from(
    kind: Any, cards: Sequence[Card], *, end: Any = None, ends: Any = None, phase_down: Any = True
) -> HitRequest:
    """What a hit request says beside its cards (``cards``: the cards to add, to count ``ends`` against)."""
    group_kind = kind_from(kind)
    if end in ("", None):
        end = None
    elif end not in ("low", "high"):
        raise BadInput('"end" is "low" or "high" (the end of the run a wild goes to)', field="end")
    if ends is not None and (
        not isinstance(ends, list)
        or len(ends) != len(cards)
        or any(e not in (None, "low", "high") for e in ends)
    ):
        raise BadInput('"ends" is a list with one entry per card to add: null, "low" or "high"', field="ends")
    if not isinstance(phase_down, bool):
        raise BadInput('"phase_down" must be true or false', field="phase_down")
    return HitRequest(group_kind, end, None if ends is None else tuple(ends), phase_down)


def group_from(
    kind: GroupKind, cards: Sequence[Card], rules: RuleSet, *, option: str | None = None
) -> LaidGroup:
    """The group on the table, as laid; ``option`` names it as the command line does (``--onto``)."""
    try:
        return make_group(kind, cards, rules)
    except InvalidGroupError as exc:
        why = reason("onto_not_a_group", option=option, kind=kind, why=exc.why)
        raise BadInput(why, field="onto") from None
    except WrongDeckError as exc:
        raise _engine(exc, "onto") from None


def hit_tokens(tokens: Sequence[str], rules: RuleSet) -> tuple[tuple[Card, ...], list[End | None]]:
    """The cards to hit with as the command line takes them, and the end named for each: ``W@low`` is a wild
    for the low end of a run."""
    cards: list[Card] = []
    ends: list[End | None] = []
    for token in " ".join(tokens).replace(",", " ").split():
        text, at, end = token.partition("@")
        named = end.lower()
        if at and named not in ("low", "high"):
            raise BadInput(
                f"{token!r}: after @ comes the end of the run, low or high (W@low, W@high)", field="cards"
            )
        try:
            cards.append(Card.parse(text, rules.deck))
        except InvalidCardError as exc:
            raise _engine(exc, "cards") from None
        ends.append(None if not at else "low" if named == "low" else "high")
    return tuple(cards), ends


# --------------------------------------------------------------------------------------------- the score keeper


def clean_name(name: str) -> str:
    """A name as stored: NFC, so that "Zoë" typed as one letter or as e + a combining diaeresis is one player,
    with runs of spaces made one."""
    return " ".join(unicodedata.normalize("NFC", name).split())


def names_from(raw: Any) -> list[str]:
    """Names as typed, cleaned by :func:`clean_name`; the engine judges count, length and repeats."""
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        raise BadInput(f'"players" must be a list of {MIN_PLAYERS} to {MAX_PLAYERS} names', field="players")
    names = [clean_name(n) for n in raw]
    if not all(n.isprintable() for n in names):
        raise BadInput("names may not contain control characters", field="players")
    return names


def setup_refused(exc: GameSetupError) -> BadInput:
    """The engine's refusal of a line-up: the first dealer's field for the dealer, else the players'."""
    field = "first_dealer" if exc.code is Refusal.DEALER else "players"
    return BadInput(exc.why, field=field, code=exc.code)


def report_refused(exc: IllegalReportError, **extra: Any) -> BadInput:
    return BadInput(exc.why, player=exc.player, code=exc.code, **extra)


def report_from(data: Any, rules: RuleSet) -> RoundReport:
    """The engine's round report from a JSON-shaped body; the engine does all of the judging."""
    if not isinstance(data, Mapping):
        raise BadInput("a round report must be a JSON object")
    body = {key: data[key] for key in ("went_out", "players") if key in data}
    # Names in a report are matched against the seats as stored, which are NFC (see clean_name).
    if isinstance(body.get("went_out"), str):
        body["went_out"] = clean_name(body["went_out"])
    if isinstance(body.get("players"), Mapping) and all(isinstance(k, str) for k in body["players"]):
        body["players"] = {clean_name(k): v for k, v in body["players"].items()}
    try:
        return RoundReport.from_dict(body, rules)
    except IllegalReportError as exc:
        raise report_refused(exc) from None


def check_idempotency_key(key: Any) -> str | None:
    """An ``Idempotency-Key`` (or a round form's one-time token) as stored; ``None`` when none was sent."""
    if key is None or key == "":
        return None
    if (
        not isinstance(key, str)
        or len(key) > IDEMPOTENCY_KEY_MAX
        or not key.isascii()
        or not all(c.isalnum() or c in "-_.:" for c in key)
    ):
        raise BadInput(
            f"an idempotency key is 1 to {IDEMPOTENCY_KEY_MAX} letters, digits or - _ . :",
            field="idempotency_key",
            code=Problem.IDEMPOTENCY_KEY,
        )
    return key
