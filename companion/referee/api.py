"""``POST /api/check``: the referee as JSON, from a photo or from typed cards.

Multipart (``photo``, ``phase``, ``rules``; ``kind`` and optionally ``onto``, ``end``, ``phase_down`` for a hit) answers with the
JSON ``phase10 check --photo PHOTO --json`` prints: the verdict, ``file`` and the ``cards`` found (card,
confidence, box), plus ``detected`` (the groups as they lie, table order, as indexes into ``cards``), ``width``
and ``height`` of the upright photo and the camera's ``timings_ms``. JSON ``{"phase": N, "rules": ..., "cards": [...]}`` or ``"groups": [[...]]``
answers like ``phase10 check --json``; ``{"kind", "onto", "cards", "end"?}`` like ``phase10 hit --json``.

The endpoint changes nothing, so like the other ``/api`` reads it takes no CSRF token.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask import Response, current_app, jsonify, request

from companion.rules import Deck

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
from .uploads import form_field, limit_request, photo_bytes


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
    limit_request()
    if request.content_length is not None and request.content_length > current_app.config["API_MAX_BODY"]:
        raise CheckError("that is too much JSON for a lay-down", status=413)
    body = request.get_json(silent=True)
    if body is None:
        raise CheckError("the body is not valid JSON")
    return jsonify(judge_json(body)), 200


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
    try:
        reading = camera.read(data, max_pixels=int(current_app.config["PHOTO_MAX_PIXELS"]))
    except camera.PhotoError as exc:
        raise CheckError(f"this photo cannot be read: {exc}", field="photo") from None
    except camera.CameraUnavailable as exc:
        raise CheckError(str(exc), status=503, field="photo") from None
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
