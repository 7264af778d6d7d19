"""JSON endpoints. Every answer is JSON, errors included: ``{"error": "...", "code": "...", "field"?: ...,
"player"?: ...}``, answered for every refusal by the app's one error handler (``companion.answers``)."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, request

from .. import scorebook
from ..access import editor_required, who
from ..inputs import BadInput
from . import bp


@bp.before_request
def limit_body() -> None:
    # Round reports are a few hundred bytes; a backup of a long game a few dozen kilobytes.
    request.max_content_length = current_app.config["API_MAX_BODY"]


def _body() -> Any:
    # Only a JSON content type: a form on another site can post text/plain across origins without asking, but
    # never application/json, so this keeps foreign pages from writing here.
    if not request.is_json:
        raise BadInput("the body must be JSON, sent with Content-Type: application/json", status=415)
    data = request.get_json(silent=True)
    if data is None:
        raise BadInput("the body is not valid JSON")
    return data


def _state(loaded: scorebook.Loaded, status: int = 200) -> tuple[Response, int]:
    response = jsonify(scorebook.state_dict(loaded))
    response.set_etag(str(loaded.version))
    return response, status


@bp.post("/games")
def create_game() -> tuple[Response, int]:
    data = _body()
    if not isinstance(data, dict):
        raise BadInput("the body must be a JSON object")
    rules = scorebook.ruleset_from(data.get("rules"))
    loaded, token = scorebook.create_game(data.get("players"), rules, data.get("first_dealer", 0), who("API"))
    body = scorebook.state_dict(loaded)
    body["edit_token"] = token
    response = jsonify(body)
    response.headers["Location"] = f"/api/games/{loaded.game.id}"
    return response, 201


@bp.post("/games/import")
def import_game() -> tuple[Response, int]:
    loaded, token = scorebook.import_game(_body(), who("API import"))
    body = scorebook.state_dict(loaded)
    body["edit_token"] = token
    return jsonify(body), 201


@bp.get("/games/<game_id>")
def show_game(game_id: str) -> Any:
    # The share pages poll here; an unchanged game costs one indexed lookup and an empty 304.
    version = scorebook.current_version(game_id)
    if version is None:
        raise scorebook.GameNotFound()
    if request.if_none_match.contains(str(version)):
        response = Response(status=304)
        response.set_etag(str(version))
        return response
    return _state(scorebook.load(game_id))


@bp.post("/games/<game_id>/rounds")
@editor_required
def add_round(game_id: str) -> tuple[Response, int]:
    data = _body()
    key = request.headers.get("Idempotency-Key")
    try:
        loaded = scorebook.add_round(game_id, data, who("API"), idempotency_key=key)
    except scorebook.AlreadySaved as exc:
        return _replayed(game_id, exc, data)
    return _saved_round(loaded, loaded.state.rounds[-1]), 201


def _replayed(game_id: str, exc: scorebook.AlreadySaved, data: Any) -> tuple[Response, int]:
    """The answer to a retry: the round the key saved, as the first answer gave it; a key reused for another
    round is refused, since the client would otherwise believe its new round was saved."""
    loaded = scorebook.load(game_id)
    saved = loaded.state.rounds[exc.number - 1]
    try:
        same = scorebook.report_from(data, scorebook.ruleset_of(loaded.game)).to_dict() == exc.report
    except BadInput:
        same = False
    if not same:
        raise scorebook.Conflict(
            f"this Idempotency-Key already saved round {exc.number} with other values; "
            "send a new key for a new round",
            field="idempotency_key",
            code=scorebook.Problem.IDEMPOTENCY_KEY,
        )
    response = _saved_round(loaded, saved)
    response.headers["Idempotent-Replayed"] = "true"
    return response, 201


def _saved_round(loaded: scorebook.Loaded, result: Any) -> Response:
    body = scorebook.round_dict(result)
    state = loaded.state
    # The saved round and where the game stands now; GET /api/games/<id> has the whole history.
    body["game"] = {
        "id": loaded.game.id,
        "version": loaded.version,
        "status": state.status,
        "round": state.round_number,
        "dealer": state.dealer,
        "winner": state.winner,
        "tie_break_players": list(state.tie_break_players),
        "players": [p.to_dict() for p in state.players],
    }
    return jsonify(body)


@bp.patch("/games/<game_id>/rounds/<int:number>")
@editor_required
def edit_round(game_id: str, number: int) -> tuple[Response, int]:
    loaded = scorebook.edit_round(game_id, number, _body(), who("API"))
    return _state(loaded)


@bp.delete("/games/<game_id>/rounds/<int:number>")
@editor_required
def delete_round(game_id: str, number: int) -> tuple[Response, int]:
    loaded = scorebook.delete_round(game_id, number, who("API"))
    return _state(loaded)


@bp.get("/games/<game_id>/export.json")
def export_json(game_id: str) -> Response:
    loaded = scorebook.load(game_id)
    response = jsonify(scorebook.export_dict(loaded))
    response.headers["Content-Disposition"] = f'attachment; filename="phase10-{game_id}.json"'
    return response


@bp.get("/games/<game_id>/export.csv")
def export_csv(game_id: str) -> Response:
    loaded = scorebook.load(game_id)
    return Response(
        scorebook.export_csv(loaded),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="phase10-{game_id}.csv"'},
    )
