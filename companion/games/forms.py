"""The forms of the game pages: a new game, and one round (entered, previewed, or edited)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext, lazy_gettext
from flask_wtf import FlaskForm
from wtforms import BooleanField, FieldList, IntegerField, RadioField, SelectField, StringField
from wtforms.validators import InputRequired, NumberRange, Optional

from companion.rules import RULESETS as REGISTRY
from companion.rules import Card, Deck, RuleSet, card_points, ruleset_names
from companion.rules.game import (
    MAX_NAME_LENGTH,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PlayerReport,
    max_hand_cards,
    round_points,
)

from .. import scorebook
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
            self.rules.errors.append(exc.message)
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


@dataclass
class PlayerFields:
    index: int
    name: str
    laid_down: BooleanField
    points: IntegerField
    counters: list[tuple[Bucket, IntegerField]]
    phase: SelectField | None
    errors: list[str]


class RoundForm(FlaskForm):  # type: ignore[misc]
    """A round for the players in it. Built per game with :func:`round_form`; fields are named by seat."""

    round = IntegerField(validators=[InputRequired()])
    # A one-time token per form shown: the round it saves keeps it, so the same form sent again (Back, then Save)
    # is recognised. round.js copies it into a text control too (``once_kept``), because browsers restore typed
    # controls on Back but not hidden ones: that copy comes back exactly when the typed values do.
    # Not validated as fields: a player cannot see or fix them, so a bad one is ignored (see token()).
    once = StringField()
    once_kept = StringField()

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
            self[f"p{self.names.index(name)}_points"].errors.append(message)
        else:
            self.went_out.errors.append(message)

    def report(self) -> dict[str, Any]:
        """The form as the API's round report, for the engine to judge."""
        players: dict[str, Any] = {}
        for row in self.players():
            entry: dict[str, Any] = {"laid_down": bool(row.laid_down.data)}
            if row.phase is not None and row.phase.data:
                entry["phase"] = int(row.phase.data)
            if self.went_out.data != row.name:
                tapped = sum(b.points * (field.data or 0) for b, field in row.counters)
                if row.points.data is not None:
                    if tapped and tapped != row.points.data:
                        row.points.errors.append(
                            gettext(
                                "the counters add up to %(tapped)d but %(typed)d was typed: clear one of them",
                                tapped=tapped,
                                typed=row.points.data,
                            )
                        )
                    entry["points"] = row.points.data
                elif tapped:
                    entry["points"] = tapped
                self._keep_cards(row.name, entry)
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

    def has_errors(self) -> bool:
        return any(field.errors for field in self)


def _cards(tokens: list[str], deck: Deck) -> tuple[Card, ...]:
    return tuple(Card.parse(t, deck) for t in tokens)


def round_form(
    rules: RuleSet,
    names: tuple[str, ...],
    number: int,
    *,
    original: dict[str, Any] | None = None,
    formdata: Any = None,
    phases: Mapping[str, Sequence[int]] | None = None,
) -> RoundForm:
    """A round form for ``names``; ``original`` (a stored report) fills it in for an edit.

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
                if "points" in entry:
                    data[f"p{i}_points"] = entry["points"]
                elif "cards" in entry:
                    cards = _cards(entry["cards"], rules.deck)
                    data[f"p{i}_points"] = round_points(
                        PlayerReport(bool(entry.get("laid_down")), cards=cards)
                    )
            if entry.get("phase") is not None:
                data[f"p{i}_phase"] = str(entry["phase"])
    form: RoundForm = cls(formdata=formdata, data=data)
    form.rules = rules
    form.names = names
    form.original = original
    form.went_out.choices = [(n, n) for n in names]
    return form
