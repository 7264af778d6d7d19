"""The referee pages: check a phase or a hit (photo or tapped cards), advise a hand toward its phase, mark a
confirmed phase as laid down at the game table, and keep a corrected photo for training.

The page works without JavaScript for typed cards (a GET form; the verdict is drawn on the server); with it, chips
are edited by taps and every change asks ``POST /api/check`` (for a hand, ``POST /api/advise``) again, so the verdict
always comes from the engine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from companion.rules import RULESETS, RuleSet, advise, get_ruleset
from companion.rules.referee import check_phase

from .. import scorebook
from ..access import editor_required, page_token
from ..extensions import db
from . import bp, camera, marks, training
from .api import advice_toward, hand_from
from .checking import CheckError, cards_from, groups_from, judge_hit, judge_phase, phase_from
from .uploads import form_field, photo_bytes


@dataclass
class GameContext:
    """The game a check was opened from: whose phase it is and what they may attempt this round."""

    game: Any
    state: Any
    rules: RuleSet
    player: str | None
    phases: tuple[int, ...]
    editor: bool
    marked: dict[str, Any] = field(default_factory=dict)

    @property
    def round_number(self) -> int:
        return int(self.state.round_number)


def _catalogue() -> dict[str, Any]:
    """Every rule set with its deck and phases, for the page's pickers."""
    out: dict[str, Any] = {}
    for name, rs in RULESETS.items():
        out[name] = {
            "title": rs.title,
            "deck": rs.deck.value,
            "choose_phase": rs.choose_phase,
            "phases": {
                str(n): {"description": p.description, "groups": len(p.requirements)}
                for n, p in rs.phases.items()
            },
        }
    return out


def _game_context(game_id: str | None, player: str | None) -> GameContext | None:
    if not game_id:
        return None
    try:
        loaded = scorebook.load(game_id)
    except scorebook.GameNotFound:
        abort(404, description="There is no game at this address. Check the link you were given.")
    state = loaded.state
    rules = scorebook.ruleset_of(loaded.game)
    if player is not None and player not in state.names:
        abort(404, description=f"{player} does not play in this game.")
    phases = state.phases_to_attempt(player) if player else ()
    ctx = GameContext(loaded.game, state, rules, player, phases, page_token(loaded.game) is not None)
    if state.status != "finished":
        ctx.marked = marks.current_marks(loaded.game, state.round_number)
    return ctx


def _standalone_rules(args: Any) -> RuleSet:
    name = args.get("rules") or "standard"
    if name not in RULESETS:
        name = "standard"
    # Playing cards never wrap (004), whatever the box said before the deck was changed.
    return get_ruleset(
        name, wrap_runs=args.get("wrap") == "1" and RULESETS[name].deck.value != "playing-cards"
    )


def _typed_verdict(
    args: Any, rules: RuleSet, mode: str, phase: int | None, ctx: GameContext | None = None
) -> tuple[dict[str, Any] | None, str | None]:
    """The verdict (or, for a hand, the advice) for cards typed into the plain form (no JavaScript needed)."""
    try:
        if mode == "hand":
            if not (args.get("cards") or "").strip():
                return None, None
            hand = hand_from(args.get("cards", ""), rules)
            if phase is not None:
                return {"advice": [advise(hand, phase, rules).to_dict()]}, None
            phases = ctx.phases if ctx and ctx.player else tuple(rules.phases)
            return {"advice": advice_toward(hand, phases, rules)}, None
        if mode == "hit":
            if not (args.get("onto") or "").strip():
                return None, None
            onto = cards_from(args.get("onto", ""), rules, "onto")
            cards = cards_from(args.get("cards", ""), rules, "cards")
            down = args.get("down") != "0"
            return judge_hit(
                args.get("kind", "set"), onto, cards, rules, end=args.get("end") or None, phase_down=down
            ), None
        text = (args.get("cards") or "").strip()
        if not text or phase is None:
            return None, None
        laid = groups_from(text, rules) if "|" in text else cards_from(text, rules, "cards")
        return judge_phase(laid, phase, rules), None
    except CheckError as exc:
        return None, exc.message


def _page(ctx: GameContext | None, error: str | None = None, status: int = 200) -> tuple[str, int]:
    args = request.args if request.method == "GET" else request.form
    mode = {"hit": "hit", "hand": "hand"}.get(args.get("mode") or "", "phase")
    rules = ctx.rules if ctx else _standalone_rules(args)
    phase: int | None = None
    try:
        phase = phase_from(args.get("phase"), rules) if args.get("phase") else None
    except CheckError as exc:
        error = error or exc.message
    # A hand in Masters is advised toward each phase it may still make unless one is chosen.
    each_phase = mode == "hand" and rules.choose_phase
    if ctx and ctx.phases and phase is not None and phase not in ctx.phases:
        phase = None
    if phase is None and not each_phase:
        phase = ctx.phases[0] if ctx and ctx.phases else 1
    verdict, typed_error = _typed_verdict(args, rules, mode, phase, ctx)
    state = {
        "mode": mode,
        "rules": rules.to_dict(),
        "phase": phase,
        "catalogue": _catalogue(),
        "cards": args.get("cards", ""),
        "kind": args.get("kind", "set"),
        "onto": args.get("onto", ""),
        "end": args.get("end", ""),
        "game": None,
    }
    if ctx:
        state["game"] = {
            "id": ctx.game.id,
            "player": ctx.player,
            "phases": list(ctx.phases),
            "round": ctx.round_number,
            "editor": ctx.editor,
        }
    return (
        render_template(
            "referee/check.html",
            ctx=ctx,
            mode=mode,
            rules=rules,
            phase=phase,
            rulesets=RULESETS,
            args=args,
            verdict=verdict,
            error=error or typed_error,
            camera=camera.status(),
            state=state,
        ),
        status,
    )


@bp.get("/referee/")
def check_page() -> tuple[str, int]:
    return _page(_game_context(request.args.get("game"), request.args.get("player")))


@bp.post("/referee/games/<game_id>/laid-down")
@editor_required
def mark_laid_down(game_id: str) -> Any:
    """A phase confirmed valid at the game table: the player is marked as laid down for the round in progress."""
    player = request.form.get("player") or ""
    ctx = _game_context(game_id, player or None)
    assert ctx is not None
    if not player:
        return _page(ctx, "choose the player who laid down", 400)
    if not ctx.phases:
        return _page(ctx, f"{player} has no phase to lay down in this round", 400)
    try:
        phase = phase_from(request.form.get("phase"), ctx.rules)
        if phase not in ctx.phases:
            allowed = ", ".join(str(p) for p in ctx.phases)
            raise CheckError(f"{player} cannot lay down phase {phase} this round (phase {allowed})")
        groups = groups_from(request.form.get("groups", ""), ctx.rules)
    except CheckError as exc:
        return _page(ctx, exc.message, 400)
    verdict = check_phase(groups, phase, ctx.rules)
    if not verdict.valid:
        return _page(ctx, f"not marked: {verdict.reason}", 400)
    marks.mark(ctx.game, ctx.round_number, player, phase, [[str(c) for c in g] for g in groups])
    flash(f"{player} laid down phase {phase}: the form for round {ctx.round_number} starts with it ticked.")
    return redirect(url_for("games.table", game_id=game_id))


@bp.post("/referee/training")
def keep_for_training() -> tuple[Response, int] | Response:
    """Keep a corrected photo with labels from the confirmed cards (asked for by the page with fetch)."""
    from flask import jsonify

    try:
        data, _name = photo_bytes()  # type: ignore[misc]
        game = _training_game(form_field("game"))
        if form_field("allow") not in ("1", "on", "true"):
            raise CheckError("the photo is kept only when you allow it", field="allow")
        try:
            width, height = int(form_field("width") or 0), int(form_field("height") or 0)
        except ValueError:
            raise CheckError("the photo's size is missing", field="width") from None
        meta: dict[str, Any] = {
            "groups": _json_field("groups"),
            "phase": form_field("phase"),
            "game": game.id,
        }
        name, count = training.keep(data, form_field("cards"), width, height, meta, game_id=game.id)
    except CheckError as exc:
        return jsonify(exc.to_dict()), exc.status
    return jsonify(
        kept=name, count=count, message=f"Thank you: the camera will learn from this photo ({count} kept)."
    ), 201


def _training_game(game_id: str | None) -> Any:
    """The game a training photo is kept for: only a device holding its edit secret may keep photos, so that
    nobody can fill the training folder with mislabelled photos from the network."""
    from ..access import bearer_token
    from ..models import Game, is_game_id

    if not game_id:
        raise CheckError(
            "photos are kept for training from a game's referee page only", field="game", status=403
        )
    game = db.session.get(Game, game_id) if is_game_id(game_id) else None
    if game is None:
        raise CheckError("there is no game with this id", field="game", status=404)
    if page_token(game) is None and not game.token_matches(bearer_token()):
        raise CheckError(
            "only a device with this game's edit link can keep photos for training", field="game", status=403
        )
    return game


def _json_field(name: str) -> Any:
    raw = form_field(name)
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
        return None


@bp.app_template_global("referee_marks")
def referee_marks(game: Any, state: Any) -> dict[str, Any]:
    """Players marked as laid down in the round in progress (for the game table)."""
    if state.status == "finished":
        return {}
    return marks.current_marks(game, state.round_number)


@bp.app_template_global("referee_url")
def referee_url(game: Any, player: str | None = None) -> str:
    return url_for("referee.check_page", game=game.id, player=player)
