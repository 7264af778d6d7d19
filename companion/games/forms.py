"""The forms of the game pages: a new game, and one round (entered, previewed, or edited)."""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from blinker import Namespace
from flask_babel import gettext, lazy_gettext  # type: ignore[import-untyped]
from flask_wtf import FlaskForm  # type: ignore[import-untyped]
from wtforms import (  # type: ignore[import-untyped]
    BooleanField,
    FieldList,
    IntegerField,
    RadioField,
    SelectField,
    StringField,
)
from wtforms.validators import InputRequired, NumberRange, Optional  # type: ignore[import-untyped]

from companion.rules import RULESETS as REGISTRY
from companion.rules import Card, Deck, RuleSet, card_points, ruleset_names
from companion.rules.game import (
    CARDS_DEALT,
    MAX_NAME_LENGTH,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PlayerReport,
    max_hand_cards,
    max_hand_points,
    round_points,
)

from .. import i18n, scorebook
from ..answers import sentence
from ..i18n import ruleset_title


class NewGameForm(FlaskForm):  # type: ignore[misc]
    names = FieldList(
        StringField(lazy_gettext("Player"), render_kw={"maxlength": MAX_NAME_LENGTH}), min_entries=MAX_PLAYERS
    )
    rules = SelectField(
        lazy_gettext("Rule set"),
        choices=[(n, REGISTRY[n].title) for n in ruleset_names()],
        default="standard",
    )
    last_phase = SelectField(
        lazy_gettext("Last phase"),
        choices=[(str(n), str(n)) for n in range(10, 0, -1)],
        default="10",
        coerce=str,
    )
    everyone_advances = BooleanField(lazy_gettext("Everyone advances every round"))
    wrap_runs = BooleanField(lazy_gettext("Runs may wrap from the top number to 1"))
    natural_per_group = BooleanField(lazy_gettext("Every group needs a numbered card"))
    flushes_share_suit = BooleanField(
        lazy_gettext("Playing cards: phase 8's two flushes may be of one suit"), default=True
    )
    first_dealer = SelectField(
        lazy_gettext("First dealer"),
        choices=[(str(i), lazy_gettext("Player %(number)s", number=i + 1)) for i in range(MAX_PLAYERS)],
        default="0",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The dealer is chosen by name: the names typed so far (newgame.js keeps them current while typing).
        typed = [(entry.data or "").strip() for entry in self.names.entries]
        self.first_dealer.choices = [
            (str(i), typed[i] if i < len(typed) and typed[i] else gettext("Player %(number)s", number=i + 1))
            for i in range(MAX_PLAYERS)
        ]
        # The rule sets' titles in the page's language; the registry's English stays for the API.
        self.rules.choices = [(n, ruleset_title(n, REGISTRY[n].title)) for n in ruleset_names()]
        self.ruleset: RuleSet | None = None
        self.player_names: list[str] = []
        self.dealer_index = 0
        # The engine's refusal of the line-up (too few players, a repeated name) belongs to the names as a whole.
        self.names_error: str | None = None

    def validate(self, extra_validators: Any = None) -> bool:
        if not super().validate(extra_validators):
            return False
        typed = [(entry.data or "").strip() for entry in self.names.entries]
        seat_of_dealer = int(self.first_dealer.data)
        filled = [i for i, name in enumerate(typed) if name]
        if len(filled) < MIN_PLAYERS:
            self.names_error = gettext(
                "Type the names of at least %(least)d players, in seat order "
                "(Phase 10 is played by %(least)d to %(most)d players).",
                least=MIN_PLAYERS,
                most=MAX_PLAYERS,
            )
            return False
        if seat_of_dealer not in filled:
            self.first_dealer.errors.append(gettext("the first dealer must be one of the players above"))
            return False
        try:
            self.ruleset = scorebook.ruleset_from(
                {
                    "name": self.rules.data,
                    "last_phase": int(self.last_phase.data),
                    "everyone_advances": bool(self.everyone_advances.data),
                    "wrap_runs": bool(self.wrap_runs.data),
                    "natural_per_group": bool(self.natural_per_group.data),
                    **(
                        {"flushes_share_suit": bool(self.flushes_share_suit.data)}
                        if self.rules.data == "playing-cards"
                        else {}
                    ),
                }
            )
        except scorebook.BadInput as exc:
            self.rules.errors.append(sentence(exc))
            return False
        except ValueError:
            self.last_phase.errors.append(gettext("choose a phase from 1 to 10"))
            return False
        self.player_names = [typed[i] for i in filled]
        self.dealer_index = filled.index(seat_of_dealer)
        return True


@dataclass(frozen=True)
class Bucket:
    """One tap counter: cards of one scoring kind, with the points the engine gives each."""

    key: str
    label: str
    points: int


def buckets(deck: Deck) -> tuple[Bucket, ...]:
    """The tap counters for a deck; each bucket's value is asked of the engine with a card of that kind."""
    samples: tuple[tuple[str, str, str], ...]
    if deck is Deck.STANDARD:
        samples = (
            ("low", "1–9", "R1"),
            ("high", "10–12", "R10"),
            ("skip", "Skip", "S"),
            ("wild", "Wild", "W"),
        )
    else:
        samples = (("low", "A–9", "AS"), ("high", "10–K", "10S"), ("wild", "Joker", "JK"))
    return tuple(Bucket(key, label, card_points(Card.parse(card, deck))) for key, label, card in samples)


def counts_of(cards: Sequence[Card], deck: Deck) -> dict[str, int]:
    """How many of ``cards`` each tap counter holds: a card goes on the counter of its own points."""
    by_points = {b.points: b.key for b in buckets(deck)}
    counts = {b.key: 0 for b in buckets(deck)}
    for card in cards:
        counts[by_points[card_points(card)]] += 1
    return counts


def counters_points(counters: Mapping[str, Any], deck: Deck) -> int | None:
    """The points of a player's counters as stored with a round, or None when they are not counters of this deck
    (a stored value is checked before it is shown)."""
    known = {b.key: b.points for b in buckets(deck)}
    total = 0
    for key, n in counters.items():
        if (
            key not in known
            or isinstance(n, bool)
            or not isinstance(n, int)
            or not 0 <= n <= max_hand_cards(deck)
        ):
            return None
        total += known[key] * n
    return total


# A hand that was never laid down holds the CARDS_DEALT (001 "Setup", 004): each turn draws one card and
# discards one, and nobody may hit before laying down (001 "Hitting"). The round form uses it for a default only.


@dataclass
class PlayerFields:
    index: int
    name: str
    laid_down: Any
    points: Any
    counters: list[tuple[Bucket, Any]]
    phase: Any | None
    errors: list[str]


_signals = Namespace()
round_form_shown = _signals.signal("round-form-shown")
"""Sent with the app as sender and ``form``, ``game`` and ``number`` when a fresh form for the next round is shown
(a GET; never an edit, never a form sent back with errors). Whoever knows something of the round in progress
fills the form in through :meth:`RoundForm.prefill_laid_down`; the score keeper itself needs no receiver."""

_T = TypeVar("_T")


class RoundForm(FlaskForm):  # type: ignore[misc]
    """A round for the players in it. Built per game with :func:`round_form`; fields are named by seat."""

    round = IntegerField(validators=[InputRequired()])
    # A one-time token per form shown: the round it saves keeps it, so the same form sent again (Back, then Save)
    # is recognised. round.js copies it into a text control too (``once_kept``), because browsers restore typed
    # controls on Back but not hidden ones: that copy comes back exactly when the typed values do.
    # Not validated as fields: a player cannot see or fix them, so a bad one is ignored (see token()).
    once = StringField()
    once_kept = StringField()
    # The controls the scorer (or the referee, through prefill_laid_down) set by hand, space-separated field
    # names: round.js fills in "went out" and "laid down" from the cards tapped only where nobody chose. It rides
    # with the form and its draft; the server reads nothing from it.
    chosen = StringField()

    def token(self) -> str | None:
        """The token of the form as first shown: a restored copy wins over the fresh hidden one."""
        for token in (self.once_kept.data, self.once.data):
            try:
                if scorebook.check_idempotency_key(token):
                    return str(token)
            except scorebook.BadInput:
                continue  # a tampered token: the form still saves, without protection from a resend
        return None

    went_out = RadioField(
        lazy_gettext("Who went out?"), validators=[InputRequired(message=lazy_gettext("choose who went out"))]
    )

    rules: RuleSet
    names: tuple[str, ...]
    original: dict[str, Any] | None
    # Filled by report(): each player's counters where the total came from them, to be kept with the round.
    counted: dict[str, dict[str, int]]
    # The HTTP status of the worst refusal judge() met: 409 when the change does not fit later rounds.
    refused_status: int

    def players(self) -> list[PlayerFields]:
        rows = []
        for i, name in enumerate(self.names):
            counters = [(b, self[f"p{i}_{b.key}"]) for b in buckets(self.rules.deck)]
            phase = self[f"p{i}_phase"] if self.rules.choose_phase else None
            rows.append(
                PlayerFields(
                    i, name, self[f"p{i}_down"], self[f"p{i}_points"], counters, phase, self.player_errors(i)
                )
            )
        return rows

    def player_errors(self, i: int) -> list[str]:
        errors: list[str] = []
        for key in ("down", "points", "phase", *(b.key for b in buckets(self.rules.deck))):
            field = self._fields.get(f"p{i}_{key}")
            if field is not None:
                errors.extend(field.errors)
        return errors

    def add_player_error(self, name: str | None, message: str) -> None:
        if name in self.names:
            field = self[f"p{self.names.index(name)}_points"]
            field.errors = [*field.errors, message]
        else:
            self.went_out.errors = [*self.went_out.errors, message]

    def prefill_laid_down(
        self, laid_down: Mapping[str, bool], phases: Mapping[str, int] | None = None
    ) -> None:
        """Start the form with these players' "laid down" set, and where players choose their phase (Masters)
        the phase each attempted, unless one is chosen already. Players not in this round are passed over (a
        tie-break round holds only the tied players), and so is a phase the player cannot choose now.

        What is set here counts as chosen: the page never changes it from the cards tapped."""
        chosen = set((self.chosen.data or "").split())
        for i, name in enumerate(self.names):
            if name in laid_down:
                self[f"p{i}_down"].data = bool(laid_down[name])
                chosen.add(f"p{i}_down")
            phase = (phases or {}).get(name)
            field = self._fields.get(f"p{i}_phase")
            offered = {value for value, _label in field.choices} if field is not None else set()
            if phase is not None and field is not None and not field.data and str(phase) in offered:
                field.data = str(phase)
        self.chosen.data = " ".join(sorted(chosen))

    def report(self) -> dict[str, Any]:
        """The form as the API's round report, for the engine to judge."""
        players: dict[str, Any] = {}
        self.counted = {}
        for row in self.players():
            entry: dict[str, Any] = {"laid_down": bool(row.laid_down.data)}
            if row.phase is not None and row.phase.data:
                entry["phase"] = int(row.phase.data)
            if self.went_out.data != row.name:
                counts = {b.key: field.data for b, field in row.counters if field.data}
                tapped = sum(b.points * (field.data or 0) for b, field in row.counters)
                if row.points.data is not None:
                    if tapped and tapped != row.points.data:
                        row.points.errors = [
                            *row.points.errors,
                            gettext(
                                "the counters add up to %(tapped)d but %(typed)d was typed: clear one of them",
                                tapped=tapped,
                                typed=row.points.data,
                            ),
                        ]
                    entry["points"] = row.points.data
                elif tapped:
                    entry["points"] = tapped
                if tapped and entry.get("points") == tapped:
                    self.counted[row.name] = counts
                self._keep_cards(row.name, entry)
                if "cards" in entry:
                    self.counted.pop(row.name, None)
            players[row.name] = entry
        return {"round": self.round.data, "went_out": self.went_out.data, "players": players}

    def _keep_cards(self, name: str, entry: dict[str, Any]) -> None:
        # An edit that leaves a player's total as it was keeps the cards the original report listed.
        before = (self.original or {}).get("players", {}).get(name)
        if not before or "cards" not in before or "points" not in entry:
            return
        original = PlayerReport(bool(before.get("laid_down")), cards=_cards(before["cards"], self.rules.deck))
        if round_points(original) == entry["points"] and before.get("laid_down") == entry["laid_down"]:
            del entry["points"]
            entry["cards"] = before["cards"]

    def judge(self, report: dict[str, Any], preview: Callable[[dict[str, Any]], _T]) -> _T | None:
        """Ask the engine about ``report`` and put each of its refusals next to the player it is about, all of
        them after one Save.

        The engine names the first fault it finds. Each player it refuses is then stood in for by a report it
        cannot refuse, and the engine is asked again, until it takes the report or refuses something that is no
        one player's; players the form itself refused already are stood in for from the start, so a field never
        shows two messages. The engine stays the only judge: nothing here decides a rule.

        Returns what ``preview`` answers when the report stands as it is and the form holds no error, else None.
        """
        self.refused_status = 400
        probe: dict[str, Any] = {**report, "players": dict(report["players"])}
        stood_in: set[str] = set()
        for row in self.players():
            if row.errors:
                probe["players"][row.name] = self._stand_in(row, row.name == probe["went_out"])
                stood_in.add(row.name)
        if not probe["went_out"]:
            # Nobody went out: the form says so at "Who went out?". To judge everyone else meanwhile, the one
            # player with nothing entered stands in as the player who went out (any first player if none).
            rows = self.players()
            empty = [r for r in rows if "points" not in probe["players"][r.name]]
            out = (empty or rows)[0]
            probe["went_out"] = out.name
            probe["players"][out.name] = self._stand_in(out, True)
            stood_in.add(out.name)
        for _ in range(len(self.names) + 1):
            try:
                answer = preview(probe)
            except scorebook.ScorebookError as exc:
                self.refused_status = max(self.refused_status, exc.status)
                if exc.player in self.names and exc.player not in stood_in:
                    self.add_player_error(exc.player, sentence(exc, i18n.words(self.rules)))
                    row = self.players()[self.names.index(exc.player)]
                    probe["players"][exc.player] = self._stand_in(row, exc.player == probe["went_out"])
                    stood_in.add(exc.player)
                    continue
                if exc.field == "round":
                    self.round.errors = [*self.round.errors, sentence(exc, i18n.words(self.rules))]
                elif not self.went_out.errors:
                    self.went_out.errors = [*self.went_out.errors, sentence(exc, i18n.words(self.rules))]
                return None
            return None if self.has_errors() else answer
        return None

    def _stand_in(self, row: PlayerFields, went_out: bool) -> dict[str, Any]:
        """A report for ``row`` that the engine takes whatever the rest of the round holds: out and laid down, with
        a phase the player may choose where players choose one; or not down, holding the cheapest card."""
        if not went_out:
            return {"laid_down": False, "points": min(b.points for b in buckets(self.rules.deck))}
        entry: dict[str, Any] = {"laid_down": True}
        if row.phase is not None:
            offered = [value for value, _label in row.phase.choices if value]
            if offered:
                entry["phase"] = int(offered[0])
        return entry

    def has_errors(self) -> bool:
        return any(field.errors for field in self)

    def page_settings(self) -> dict[str, int]:
        """What round.js needs to check a hand as it is tapped, all from the engine: points come in steps of
        ``step``, a hand holds at most ``most_cards`` cards and ``most_points`` points."""
        deck = self.rules.deck
        return {
            "step": math.gcd(*(b.points for b in buckets(deck))),
            "most_points": max_hand_points(deck),
            "most_cards": max_hand_cards(deck),
            "dealt": CARDS_DEALT,
        }


def _cards(tokens: list[str], deck: Deck) -> tuple[Card, ...]:
    return tuple(Card.parse(t, deck) for t in tokens)


def round_form(
    rules: RuleSet,
    names: tuple[str, ...],
    number: int,
    *,
    original: dict[str, Any] | None = None,
    counters: Mapping[str, Mapping[str, Any]] | None = None,
    formdata: Any = None,
    phases: Mapping[str, Sequence[int]] | None = None,
) -> RoundForm:
    """A round form for ``names``; ``original`` (a stored report) fills it in for an edit, with each player's
    ``counters`` as stored with the round where they still make the player's points.

    ``phases`` narrows each player's Masters choice to the phases the engine says are still to do."""
    attrs: dict[str, Any] = {}
    most = max_hand_cards(rules.deck)
    # NumberRange puts the bounds into its message itself.
    count = NumberRange(min=0, max=most, message=gettext("from %(min)s to %(max)s cards"))
    for i, name in enumerate(names):
        attrs[f"p{i}_down"] = BooleanField(gettext("Laid down their phase"))
        attrs[f"p{i}_points"] = IntegerField(
            gettext("or type the total"),
            validators=[
                Optional(),
                NumberRange(min=0, max=999, message=gettext("%(min)s to %(max)s points")),
            ],
        )
        for b in buckets(rules.deck):
            attrs[f"p{i}_{b.key}"] = IntegerField(b.label, default=0, validators=[Optional(), count])
        if rules.choose_phase:
            attrs[f"p{i}_phase"] = SelectField(
                gettext("Phase attempted"),
                choices=[
                    ("", "—"),
                    *(
                        (str(p), gettext("Phase %(number)d", number=p))
                        for p in (phases or {}).get(name, rules.phases)
                    ),
                ],
                default="",
                validate_choice=True,
            )
    cls = type("GameRoundForm", (RoundForm,), attrs)
    data: dict[str, Any] = {"round": number, "once": secrets.token_urlsafe(16)}
    if original is not None and formdata is None:
        data["went_out"] = original.get("went_out")
        for i, name in enumerate(names):
            entry = original.get("players", {}).get(name, {})
            data[f"p{i}_down"] = bool(entry.get("laid_down"))
            if name != original.get("went_out"):
                data.update(_hand_fields(i, entry, (counters or {}).get(name), rules.deck))
            if entry.get("phase") is not None:
                data[f"p{i}_phase"] = str(entry["phase"])
    form: RoundForm = cls(formdata=formdata, data=data)
    form.rules = rules
    form.names = names
    form.original = original
    form.counted = {}
    form.refused_status = 400
    form.went_out.choices = [(n, n) for n in names]
    return form


def _hand_fields(
    seat: int, entry: Mapping[str, Any], stored: Mapping[str, Any] | None, deck: Deck
) -> dict[str, Any]:
    """A stored player's hand as the form shows it: the counters as tapped while they still make the stored
    points, the counters of the cards where the report lists cards, else the typed total."""
    if "cards" in entry:
        counts = counts_of(_cards(entry["cards"], deck), deck)
        return {f"p{seat}_{key}": n for key, n in counts.items()}
    if "points" not in entry:
        return {}
    if stored and counters_points(stored, deck) == entry["points"]:
        return {f"p{seat}_{key}": n for key, n in stored.items()}
    return {f"p{seat}_points": entry["points"]}
