"""``POST /api/check``, ``/api/advise`` and ``/api/hand``: the referee, the hand advisor and the hand counter
as JSON.

``/api/check``: the referee, from a photo or from typed cards.

Multipart (``photo``, ``phase``, ``rules``; ``kind`` and optionally ``onto``, ``end``, ``phase_down`` for a hit) answers with the
JSON ``phase10 check --photo PHOTO --json`` prints: the verdict, ``file`` and the ``cards`` found (card,
confidence, box), plus ``detected`` (the groups as they lie, table order, as indexes into ``cards``), ``width``
and ``height`` of the upright photo and the camera's ``timings_ms``. JSON ``{"phase": N, "rules": ..., "cards": [...]}`` or ``"groups": [[...]]``
answers like ``phase10 check --json``; ``{"kind", "onto", "cards", "end"?}`` like ``phase10 hit --json``.

``/api/advise`` (JSON ``{"phase": N, "rules": ..., "cards": [...]}``) answers with what ``phase10 advise --json``
prints. Without a phase, in a game where players choose their phase (Masters), it answers ``{"advice": [...]}``:
the advice toward each phase still to do when ``game`` and ``player`` are given, else toward every phase,
closest first (fewest cards missing, then the lower phase). In other games, ``game`` and ``player`` stand for
that player's phase this round.

``/api/hand`` counts the cards left in a hand for the round form: a multipart ``photo`` (the camera reads the
cards) or JSON ``{"cards": [...]}`` (the cards as corrected by the player) answers with the cards, how many fall
in each of the round form's counters (``buckets``) and their ``points``, all from the engine.

Every answer's sentences (``reason``, ``note``, ``summary``, ``need``, ``error``) are English: the API's contract.
A page that sends ``"lang"`` (``"ro"``, ``"de"`` or ``"en"``; a ``lang`` field with a photo) gets the same answer
plus ``"shown"``, the sentences and group titles worded in that language (:mod:`.shown`, and for a refusal
``companion.answers``), which is what the referee page draws.

The endpoints change nothing, so like the other ``/api`` reads they take no CSRF token.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from flask import Response, current_app, jsonify, request
from flask_babel import force_locale  # type: ignore[import-untyped]
from werkzeug.exceptions import RequestEntityTooLarge

from companion.inputs import (
    BadInput,
    NotFound,
    Problem,
    cards_from,
    hand_from,
    kind_from,
    phase_from,
    rules_from,
)
from companion.rules import Advice, Card, Deck, Refusal, RuleSet, advise, card_points, hand_points
from companion.rules.game import max_hand_cards
from companion.rules.wording import Reason, reason

from .. import i18n
from ..decks.store import Choice, choice_for
from ..extensions import csrf, db
from . import bp, camera
from .checking import judge_hit, judge_json, judge_phase
from .shown import advice_shown, page_words
from .uploads import CameraMissing, form_field, photo_bytes

View = TypeVar("View", bound=Callable[..., Any])


def _token_free(view: View) -> View:
    """No CSRF token: these endpoints change nothing, like the other ``/api`` reads."""
    csrf.exempt(view)
    return view


@bp.post("/api/check")
@_token_free
def check() -> tuple[Response, int]:
    if request.mimetype == "multipart/form-data":
        return jsonify(check_photo()), 200
    if request.mimetype != "application/json":
        raise BadInput(
            "send JSON (Content-Type: application/json) with the cards, or a multipart form with a 'photo'",
            status=415,
        )
    return jsonify(judge_json(json_body("a lay-down"))), 200


def json_body(what: str) -> Any:
    """The JSON body of a request, within the API's body limit; ``what`` names the request in the 413."""
    if request.mimetype != "application/json":
        raise BadInput(f"send JSON (Content-Type: application/json) with {what}", status=415)
    limit = int(current_app.config["API_MAX_BODY"])
    too_much = BadInput(f"that is too much JSON for {what}", status=413)
    if request.content_length is not None and request.content_length > limit:
        raise too_much
    # A body sent without a length is read one byte past the limit at most, and refused when it gets there.
    request.max_content_length = limit + 1
    try:
        data = request.get_data(cache=True)
    except RequestEntityTooLarge:
        raise too_much from None
    if len(data) > limit:
        raise too_much
    body = request.get_json(silent=True)
    if body is None:
        raise BadInput("the body is not valid JSON")
    if not isinstance(body, Mapping):
        raise BadInput("the body must be a JSON object")
    return body


# --------------------------------------------------------------------------------------------- the advisor


@bp.post("/api/advise")
@_token_free
def advise_hand() -> tuple[Response, int]:
    body = json_body("a hand")
    rules, advice, listed = advice_for(body)
    each = [a.to_dict() for a in advice]
    with page_words(body.get("lang"), rules) as words:
        if words is not None:
            for out, a in zip(each, advice, strict=True):
                out["shown"] = advice_shown(a, rules, words)
    return jsonify({"advice": each} if listed else each[0]), 200


def game_phases(game_id: Any, player: Any) -> tuple[RuleSet, tuple[int, ...] | None]:
    """A game's rules and, for a player in it, the phases they may attempt this round."""
    from .. import scorebook
    from ..models import is_game_id

    missing = NotFound("there is no game with this id", field="game", code=Problem.GAME_NOT_FOUND)
    if not isinstance(game_id, str) or not is_game_id(game_id):
        raise missing
    try:
        loaded = scorebook.load(game_id)
    except scorebook.GameNotFound:
        raise missing from None
    rules = scorebook.ruleset_of(loaded.game)
    if player is None:
        return rules, None
    if not isinstance(player, str) or player not in loaded.state.names:
        raise NotFound(f"{player} does not play in this game", field="player", code=Refusal.NOT_A_PLAYER)
    phases = loaded.state.phases_to_attempt(player)
    if not phases:
        over = loaded.state.status == "finished"
        raise BadInput(
            f"{player} has no phase to play in this game now",
            field="player",
            code=Refusal.GAME_OVER if over else Refusal.NOT_IN_TIE_BREAK,
        )
    return rules, phases


def advice_for(body: Mapping[str, Any]) -> tuple[RuleSet, list[Advice], bool]:
    """The rules and the advice for a JSON body (see the module's docstring): one piece of advice toward the
    phase asked for (or the player's phase), or, where players choose their phase, one toward each phase still
    to do, closest first (then ``listed`` is true: the answer is ``{"advice": [...]}``)."""
    phases: tuple[int, ...] | None = None
    if body.get("game") is not None or body.get("player") is not None:
        if body.get("game") is None:
            raise BadInput('give the "game" the player plays in', field="game")
        if body.get("rules") is not None:
            raise BadInput('give "game" (its rules apply) or "rules", not both', field="rules")
        rules, phases = game_phases(body["game"], body.get("player"))
    else:
        rules = rules_from(body.get("rules"))
    hand = hand_from(body.get("cards"), rules)
    if body.get("phase") not in (None, ""):
        return rules, [advise(hand, phase_from(body["phase"], rules), rules)], False
    if not rules.choose_phase:
        if phases is None:
            raise BadInput('give the phase to advise toward, for example "phase": 2', field="phase")
        return rules, [advise(hand, phases[0], rules)], False
    return rules, advice_toward(hand, phases or tuple(rules.phases), rules), True


def advice_toward(hand: Sequence[Card], phases: Sequence[int], rules: RuleSet) -> list[Advice]:
    """The advice toward each of ``phases``, closest first."""
    each = [advise(hand, n, rules) for n in phases]
    each.sort(key=lambda a: (a.missing, a.phase.number))
    return each


# --------------------------------------------------------------------------------------------- hand counting


@bp.post("/api/hand")
@_token_free
def hand() -> tuple[Response, int]:
    if request.mimetype == "multipart/form-data":
        return jsonify(hand_photo()), 200
    if request.mimetype != "application/json":
        raise BadInput(
            "send a multipart form with the 'photo' of the hand, or JSON (Content-Type: application/json) "
            "with its cards",
            status=415,
        )
    body = json_body("a hand")
    rules = rules_from(body.get("rules"))
    standard_deck_only(rules)
    cards = cards_from(body.get("cards", []), rules, "cards")
    return jsonify({"cards": [{"card": str(c)} for c in cards], **hand_count(cards, rules)}), 200


def standard_deck_only(rules: RuleSet) -> None:
    if rules.deck is not Deck.STANDARD:
        raise BadInput(reason("camera_counters_standard_only"), status=422, field="rules")


def hand_count(cards: Sequence[Card], rules: RuleSet) -> dict[str, Any]:
    """How many of ``cards`` go on each of the round form's counters, and the points the engine gives them.

    A counter holds the cards that score its points (the form asks the engine for each counter's points with a
    card of its kind), so a card goes on the counter with its own points."""
    from companion.games.forms import buckets

    counters = buckets(rules.deck)
    by_points = {b.points: b.key for b in counters}
    counts = {b.key: 0 for b in counters}
    for card in cards:
        counts[by_points[card_points(card)]] += 1
    out: dict[str, Any] = {"buckets": counts, "points": hand_points(cards)}
    most = max_hand_cards(rules.deck)
    if len(cards) > most:
        out["note"] = (
            f"{len(cards)} cards: a hand holds at most {most} when a round ends; "
            "remove the cards that are not in it"
        )
    return out


def hand_photo() -> dict[str, Any]:
    """The multipart form: read the cards in the photo of a hand and count them."""
    data, file_name = photo_bytes()  # type: ignore[misc]
    rules = rules_from(form_field("rules"))
    standard_deck_only(rules)
    deck = photo_deck(form_field("game"))
    reading = read_photo(data, deck)
    cards = [c.card for c in reading.cards]
    read = reading.to_dict()
    found = {
        "file": file_name,
        "cards": read["cards"],
        "width": reading.width,
        "height": reading.height,
        "turned": reading.turned,
        **notes_answer(deck, reading, form_field("lang")),
    }
    if not cards:
        raise ReadingRefused(reason("no_cards_in_hand_photo"), {**found, **hand_count((), rules)})
    return {**found, **hand_count(cards, rules)}


def photo_deck(game_id: str | None) -> Choice:
    """The deck a photo is read with: the game's own (``game``, when the photo comes from a game), else the
    server's default deck, else the shipped models."""
    from ..models import Game, is_game_id

    if not game_id:
        return choice_for(None)
    game = db.session.get(Game, game_id) if is_game_id(game_id) else None
    if game is None:
        raise NotFound("there is no game with this id", field="game", code=Problem.GAME_NOT_FOUND)
    return choice_for(game.camera_deck)


def deck_answer(deck: Choice, lang: str | None) -> dict[str, Any]:
    """What an answer says of the deck it was read with: ``deck`` (``null``: the shipped models) and, when a
    chosen deck is gone, ``deck_note`` (in English, and in ``shown`` in the page's language)."""
    out: dict[str, Any] = {"deck": deck.name}
    if deck.missing:
        out["deck_note"] = (
            f"the deck {deck.missing} is no longer on this server: the photo was read with the camera's own models"
        )
        out.update(
            _shown_in(
                lang,
                "deck_note",
                lambda: i18n.gettext(
                    "The deck %(name)s is no longer on this server: the photo was read with the camera's own models.",
                    name=deck.missing,
                ),
            )
        )
    return out


def _shown_in(lang: str | None, key: str, sentence: Callable[[], str]) -> dict[str, Any]:
    """``{"shown": {key: sentence()}}`` with the sentence in ``lang``, or nothing when no page language was given
    (the API answers in English)."""
    if lang not in i18n.LANGUAGES:
        return {}
    with force_locale(lang):
        return {"shown": {key: sentence()}}


def photo_answer(reading: Any, lang: str | None) -> dict[str, Any]:
    """What an answer says of the photo itself: ``jpeg_quality`` (``null`` for a PNG) and, for a heavily
    compressed JPEG (``vision.reader.LOW_JPEG_QUALITY``), ``photo_note`` (in English, and in ``shown`` in the
    page's language)."""
    quality = reading.jpeg_quality
    out: dict[str, Any] = {"jpeg_quality": quality}
    note = reading.compression_note
    if note:
        out["photo_note"] = note
        out.update(
            _shown_in(
                lang,
                "photo_note",
                lambda: i18n.gettext(
                    "This photo was saved at a low JPEG quality (about %(quality)s), which washes the colour out "
                    "of small cards: check the colours, or send the camera's own photo rather than a copy.",
                    quality=quality,
                ),
            )
        )
    return out


def notes_answer(deck: Choice, reading: Any, lang: str | None) -> dict[str, Any]:
    """:func:`deck_answer` and :func:`photo_answer` together, their ``shown`` sentences in one object."""
    said, photo = deck_answer(deck, lang), photo_answer(reading, lang)
    shown = {**said.pop("shown", {}), **photo.pop("shown", {})}
    return {**said, **photo, **({"shown": shown} if shown else {})}


def read_photo(data: bytes, deck: Choice | None = None) -> Any:
    pixels = int(current_app.config["PHOTO_MAX_PIXELS"])
    try:
        if deck is not None and deck.folder is not None:
            return camera.read(data, max_pixels=pixels, models_dir=deck.folder)
        return camera.read(data, max_pixels=pixels)
    except camera.PhotoError as exc:
        raise BadInput(reason("photo_unreadable", why=str(exc)), field="photo") from None
    except camera.CameraUnavailable as exc:
        raise CameraMissing(str(exc)) from None


@bp.app_template_global("hand_photo_ready")
def hand_photo_ready(rules: RuleSet) -> bool:
    """Whether the round form offers to count a hand from a photo: the camera is ready and reads this deck."""
    return rules.deck is Deck.STANDARD and camera.status().ready


def reading_dict(reading: Any, file_name: str) -> dict[str, Any]:
    """The camera's reading with each detected group given as indexes into ``cards`` (so a page can tie a
    chip to its box), and the photo's upright size."""
    read = reading.to_dict()
    return {
        "file": file_name,
        "cards": read["cards"],
        "detected": [list(g) for g in group_indexes(reading)],
        "width": reading.width,
        "height": reading.height,
        "turned": reading.turned,
        "timings_ms": read.get("timings_ms", {}),
    }


def group_indexes(reading: Any) -> list[list[int]]:
    """Which of ``reading.cards`` lies in which group: the camera lists the cards group by group, in table order."""
    out: list[list[int]] = []
    start = 0
    for group in reading.groups:
        out.append(list(range(start, start + len(group))))
        start += len(group)
    return out


def groups_of(reading: Any) -> list[tuple[Any, ...]]:
    return [tuple(g) for g in reading.groups if g]


def check_photo() -> dict[str, Any]:
    """The multipart form: read the photo, then judge what it shows."""
    data, file_name = photo_bytes()  # type: ignore[misc]
    rules = rules_from(form_field("rules"))
    kind = form_field("kind")
    if kind:
        kind_from(kind)
    phase = None if kind else phase_from(form_field("phase"), rules)
    if rules.deck is not Deck.STANDARD:
        raise BadInput(reason("camera_standard_only"), status=422, field="photo")
    deck = photo_deck(form_field("game"))
    reading = read_photo(data, deck)
    lang = form_field("lang")
    said = notes_answer(deck, reading, lang)
    shown_note = said.pop("shown", None)
    # A refusal below still says which deck read the photo; its "shown" is the refusal's own.
    found = {**reading_dict(reading, file_name), **said}
    groups = groups_of(reading)
    if not groups:
        raise ReadingRefused(reason("no_cards_in_photo"), found)
    try:
        verdict = (
            hit_from_photo(kind, groups, rules, lang)
            if kind
            else judge_phase(groups, phase or 0, rules, lang=lang)
        )
    except BadInput as exc:
        # The page still shows what was read, so the player can fix it by tapping.
        raise ReadingRefused(exc.why or exc.message, found, status=exc.status, code=exc.code) from None
    out = {**verdict, **found, "rules": rules.to_dict()}
    if shown_note:
        out["shown"] = {**(verdict.get("shown") or {}), **shown_note}
    return out


def hit_from_photo(
    kind: str, groups: Sequence[tuple[Any, ...]], rules: RuleSet, lang: str | None = None
) -> dict[str, Any]:
    """A hit seen in a photo: with ``onto`` typed, every card in the photo is hit onto it; without, the first
    row is the group on the table and the cards in the rows below are the ones to add."""
    onto_text = form_field("onto")
    end = form_field("end") or None
    phase_down = (form_field("phase_down") or "true").lower() not in ("false", "0", "no")
    if onto_text and onto_text.strip():
        onto = cards_from(onto_text, rules, "onto")
        cards = [c for g in groups for c in g]
    else:
        if len(groups) < 2:
            raise BadInput(reason("photo_one_row"), status=422, field="photo")
        onto = tuple(groups[0])
        cards = [c for g in groups[1:] for c in g]
    return judge_hit(kind, onto, cards, rules, end=end, phase_down=phase_down, lang=lang)


class ReadingRefused(BadInput):
    """A photo was read but cannot be judged as it stands; the answer carries the reading all the same, so the
    page can show what was read and the player can fix it by tapping."""

    def __init__(
        self, message: str | Reason, found: dict[str, Any], status: int = 422, code: str | None = None
    ) -> None:
        super().__init__(message, status=status, field="photo", code=code)
        self.found = found

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), **self.found}
