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

The endpoints change nothing, so like the other ``/api`` reads they take no CSRF token.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask import Response, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from companion.rules import Card, Deck, Refusal, RuleSet, advise, card_points, hand_points
from companion.rules.game import max_hand_cards

from ..extensions import csrf
from . import bp, camera
from .checking import (
    KINDS,
    CheckError,
    cards_from,
    judge_hit,
    judge_json,
    judge_phase,
    phase_from,
    rules_from,
)
from .uploads import form_field, photo_bytes


@bp.errorhandler(CheckError)
def _refused(exc: CheckError) -> tuple[Response, int]:
    return jsonify(exc.to_dict()), exc.status


@bp.post("/api/check")
@csrf.exempt
def check() -> tuple[Response, int]:
    if request.mimetype == "multipart/form-data":
        return jsonify(check_photo()), 200
    if request.mimetype != "application/json":
        raise CheckError(
            "send JSON (Content-Type: application/json) with the cards, or a multipart form with a 'photo'",
            status=415,
        )
    return jsonify(judge_json(json_body("a lay-down"))), 200


def json_body(what: str) -> Any:
    """The JSON body of a request, within the API's body limit; ``what`` names the request in the 413."""
    if request.mimetype != "application/json":
        raise CheckError(f"send JSON (Content-Type: application/json) with {what}", status=415)
    limit = int(current_app.config["API_MAX_BODY"])
    too_much = CheckError(f"that is too much JSON for {what}", status=413)
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
        raise CheckError("the body is not valid JSON")
    if not isinstance(body, Mapping):
        raise CheckError("the body must be a JSON object")
    return body


# --------------------------------------------------------------------------------------------- the advisor


@bp.post("/api/advise")
@csrf.exempt
def advise_hand() -> tuple[Response, int]:
    return jsonify(advice_json(json_body("a hand"))), 200


def hand_from(value: Any, rules: RuleSet) -> tuple[Card, ...]:
    """The cards of a hand, as ``phase10 advise`` reads them: a ``|`` between cards is ignored."""
    if value is None:
        raise CheckError('give the cards in the hand: "cards": ["R7", "W", ...]', field="cards")
    if isinstance(value, str):
        value = value.replace("|", " ")
    elif isinstance(value, list) and all(isinstance(t, str) for t in value):
        value = " ".join(value).replace("|", " ")
    cards = cards_from(value, rules, "cards")
    if not cards:
        raise CheckError('give the cards in the hand: "cards": ["R7", "W", ...]', field="cards")
    return cards


def game_phases(game_id: Any, player: Any) -> tuple[RuleSet, tuple[int, ...] | None]:
    """A game's rules and, for a player in it, the phases they may attempt this round."""
    from .. import scorebook
    from ..models import is_game_id

    missing = CheckError(
        "there is no game with this id", field="game", status=404, code=scorebook.Problem.GAME_NOT_FOUND
    )
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
        raise CheckError(
            f"{player} does not play in this game", field="player", status=404, code=Refusal.NOT_A_PLAYER
        )
    phases = loaded.state.phases_to_attempt(player)
    if not phases:
        over = loaded.state.status == "finished"
        raise CheckError(
            f"{player} has no phase to play in this game now",
            field="player",
            code=Refusal.GAME_OVER if over else Refusal.NOT_IN_TIE_BREAK,
        )
    return rules, phases


def advice_json(body: Mapping[str, Any]) -> dict[str, Any]:
    """The advice for a JSON body (see the module's docstring)."""
    phases: tuple[int, ...] | None = None
    if body.get("game") is not None or body.get("player") is not None:
        if body.get("game") is None:
            raise CheckError('give the "game" the player plays in', field="game")
        if body.get("rules") is not None:
            raise CheckError('give "game" (its rules apply) or "rules", not both', field="rules")
        rules, phases = game_phases(body["game"], body.get("player"))
    else:
        rules = rules_from(body.get("rules"))
    hand = hand_from(body.get("cards"), rules)
    if body.get("phase") not in (None, ""):
        return advise(hand, phase_from(body["phase"], rules), rules).to_dict()
    if not rules.choose_phase:
        if phases is None:
            raise CheckError('give the phase to advise toward, for example "phase": 2', field="phase")
        return advise(hand, phases[0], rules).to_dict()
    return {"advice": advice_toward(hand, phases or tuple(rules.phases), rules)}


def advice_toward(hand: Sequence[Card], phases: Sequence[int], rules: RuleSet) -> list[dict[str, Any]]:
    """The advice toward each of ``phases``, closest first."""
    each = [advise(hand, n, rules) for n in phases]
    each.sort(key=lambda a: (a.missing, a.phase.number))
    return [a.to_dict() for a in each]


# --------------------------------------------------------------------------------------------- hand counting


@bp.post("/api/hand")
@csrf.exempt
def hand() -> tuple[Response, int]:
    if request.mimetype == "multipart/form-data":
        return jsonify(hand_photo()), 200
    if request.mimetype != "application/json":
        raise CheckError(
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
        raise CheckError(
            "the camera reads Phase 10 cards only; for playing cards, tap the counters",
            status=422,
            field="rules",
        )


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
    reading = read_photo(data)
    cards = [c.card for c in reading.cards]
    read = reading.to_dict()
    found = {"file": file_name, "cards": read["cards"], "width": reading.width, "height": reading.height}
    if not cards:
        raise ReadingRefused(
            "no cards were found in the photo: spread the cards so each corner shows, take it again in good "
            "light, or tap the counters",
            {**found, **hand_count((), rules)},
        )
    return {**found, **hand_count(cards, rules)}


def read_photo(data: bytes) -> Any:
    try:
        return camera.read(data, max_pixels=int(current_app.config["PHOTO_MAX_PIXELS"]))
    except camera.PhotoError as exc:
        raise CheckError(f"this photo cannot be read: {exc}", field="photo") from None
    except camera.CameraUnavailable as exc:
        raise CheckError(str(exc), status=503, field="photo") from None


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
    if kind and kind not in KINDS:
        raise CheckError(f'"kind" is the kind of group hit onto: {", ".join(KINDS)}', field="kind")
    phase = None if kind else phase_from(form_field("phase"), rules)
    if rules.deck is not Deck.STANDARD:
        raise CheckError(
            "the camera reads Phase 10 cards only; for playing cards, tap the cards in",
            status=422,
            field="photo",
        )
    reading = read_photo(data)
    found = reading_dict(reading, file_name)
    groups = groups_of(reading)
    if not groups:
        raise ReadingRefused(
            "no cards were found in the photo: take it again from above in good light, or tap the cards in",
            found,
        )
    try:
        verdict = hit_from_photo(kind, groups, rules) if kind else judge_phase(groups, phase or 0, rules)
    except CheckError as exc:
        # The page still shows what was read, so the player can fix it by tapping.
        raise ReadingRefused(exc.message, found, status=exc.status) from None
    return {**verdict, **found, "rules": rules.to_dict()}


def hit_from_photo(kind: str, groups: Sequence[tuple[Any, ...]], rules: Any) -> dict[str, Any]:
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
            raise CheckError(
                "the photo shows one row of cards: lay the cards to add in a row below the group, "
                "or type the group on the table (onto)",
                status=422,
                field="photo",
            )
        onto = list(groups[0])
        cards = [c for g in groups[1:] for c in g]
    return judge_hit(kind, onto, cards, rules, end=end, phase_down=phase_down)


class ReadingRefused(CheckError):
    """A photo was read but cannot be judged as it stands; the answer carries the reading all the same."""

    def __init__(self, message: str, found: dict[str, Any], status: int = 422) -> None:
        super().__init__(message, status=status, field="photo")
        self.found = found

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), **self.found}
