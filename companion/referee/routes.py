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

from flask import abort, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext, ngettext  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from companion.inputs import BadInput, NotFound, Refused, cards_from, groups_from, hand_from, phase_from
from companion.rules import RULESETS, RuleSet, get_ruleset
from companion.rules.referee import check_phase
from companion.rules.wording import say

from .. import i18n, scorebook
from ..access import bearer_token, editor_required, page_token
from ..answers import answers_in_json, sentence
from ..decks.store import choice_for
from ..extensions import db
from ..models import Game, is_game_id
from . import bp, camera, marks, training
from .api import advice_toward
from .checking import judge_hit, judge_phase
from .shown import advice_shown, page_words
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
    """Every rule set with its deck and phases (in the page's language), for the page's pickers."""
    out: dict[str, Any] = {}
    for name, rs in RULESETS.items():
        out[name] = {
            "title": i18n.ruleset_title(name, rs.title),
            "deck": rs.deck.value,
            "choose_phase": rs.choose_phase,
            "phases": {
                str(n): {"description": _description(n, rs), "groups": len(p.requirements)}
                for n, p in rs.phases.items()
            },
        }
    return out


def _description(number: int, rules: RuleSet) -> str:
    return i18n.phase_description(rules.phase(number), list_name=rules.phase_list)


def _rows(label: str, short: str, add: str, title: str, move: str) -> dict[str, str]:
    return {"label": label, "short": short, "add": add, "title": title, "move": move}


def _script_words() -> dict[str, Any]:
    """Every sentence the page's script shows, in the page's language; ``{name}`` stands for a value."""
    samples = i18n.plural_samples()
    return {
        "hint": {
            "hit": gettext("Add the group on the table and the cards to hit with."),
            "hand": gettext(
                "Take a photo of your hand or tap its cards in: the best arrangement toward the phase and the "
                "cards still missing appear here."
            ),
            "phase": gettext("Take a photo or tap the cards in: the verdict appears here."),
        },
        "wild": gettext("Wild"),
        "skip": gettext("Skip"),
        "joker": gettext("Joker"),
        "colours": {"R": gettext("Red"), "B": gettext("Blue"), "G": gettext("Green"), "Y": gettext("Yellow")},
        "coloured": {
            "R": gettext("red %(number)s", number="{number}"),
            "B": gettext("blue %(number)s", number="{number}"),
            "G": gettext("green %(number)s", number="{number}"),
            "Y": gettext("yellow %(number)s", number="{number}"),
        },
        "suited": {
            "S": gettext("%(rank)s of spades", rank="{rank}"),
            "H": gettext("%(rank)s of hearts", rank="{rank}"),
            "D": gettext("%(rank)s of diamonds", rank="{rank}"),
            "C": gettext("%(rank)s of clubs", rank="{rank}"),
        },
        "rows": {
            "onto": _rows(
                gettext("The group on the table (in table order)"),
                gettext("The group on the table"),
                gettext("add a card to the group on the table (in table order)"),
                gettext("Add cards to the group on the table (in table order)"),
                gettext("Move to the group on the table"),
            ),
            "cards": _rows(
                gettext("Cards to add"),
                gettext("Cards to add"),
                gettext("add a card to cards to add"),
                gettext("Add cards to cards to add"),
                gettext("Move to cards to add"),
            ),
            "hand": _rows(
                gettext("Your hand"),
                gettext("Your hand"),
                gettext("add a card to your hand"),
                gettext("Add cards to your hand"),
                gettext("Move to your hand"),
            ),
            "group": _rows(
                gettext("Group %(n)s", n="{n}"),
                gettext("Group %(n)s", n="{n}"),
                gettext("add a card to group %(n)s", n="{n}"),
                gettext("Add cards to group %(n)s", n="{n}"),
                gettext("Move to group %(n)s", n="{n}"),
            ),
        },
        "remove_group": gettext("remove group"),
        # One text per plural category of the page's language, {n} standing for the number: the script picks the
        # one Intl.PluralRules names.
        "found": {
            category: ngettext("%(count)s card found", "%(count)s cards found", n, count="{n}")
            for category, n in samples
        },
        "misread": gettext("; %(count)s marked ? may be misread", count="{n}"),
        "tap_to_correct": gettext(". Tap a card to correct it."),
        "unsure": gettext("%(card)s, the camera is not sure of it: check it", card="{card}"),
        "preparing": gettext("Preparing the photo…"),
        "reading": gettext("Reading the cards…"),
        "server_answered": gettext("the server answered %(status)s", status="{status}"),
        "unreadable": gettext("the photo could not be read"),
        "not_sent": gettext("the photo could not be sent: check the connection and try again"),
        "not_read": gettext("the referee could not read that"),
        "unreachable": gettext("the referee could not be reached: check the connection"),
        "legal": gettext("✓ Legal hit"),
        "not_legal": gettext("✗ Not legal"),
        "valid": gettext(
            "✓ Valid: phase %(phase)s (%(description)s)", phase="{phase}", description="{description}"
        ),
        "not_valid": gettext("✗ Not valid"),
        "arranged": gettext("Arranged by the referee:"),
        "hit_this": gettext("Hit this group"),
        "needs": gettext("needs %(need)s", need="{need}"),
        "not_used": gettext("Not used: "),
        "phase": gettext("Phase %(phase)s: %(description)s", phase="{phase}", description="{description}"),
        "change": gettext("Change %(card)s", card="{card}"),
        "to_add_next": gettext("Cards to add ▶"),
        "next_group": gettext("Next group ▶"),
        "earlier": gettext("◀ Earlier"),
        "later": gettext("Later ▶"),
        "new_group": gettext("Move to a new group"),
        "no_cards_yet": gettext("No cards yet"),
        "unplaced": {
            category: ngettext(
                "%(count)s has no place on the photo yet: tap it, then tap the photo where its corner is.",
                "%(count)s have no place on the photo yet: tap each, then tap the photo where its corner is.",
                n,
                count="{n}",
            )
            for category, n in samples
        },
        "keeping": gettext("Keeping the photo…"),
        "refused": gettext(
            "the server refused it (%(status)s); reload the page and try again", status="{status}"
        ),
        "not_kept": gettext("Not kept: %(error)s", error="{error}"),
        "not_kept_offline": gettext("Not kept: the server could not be reached."),
        "place_it": gettext(
            "Tap the photo on %(card)s's corner so the camera can learn it, or carry on.", card="{card}"
        ),
        "placed": gettext("Placed."),
        "deck_changed": gettext("Another deck: the cards were cleared."),
        "every_phase": gettext("Every phase"),
        "one_suit": gettext("One suit"),
        "phase_option": gettext("%(phase)s: %(description)s", phase="{phase}", description="{description}"),
    }


def _game_context(game_id: str | None, player: str | None) -> GameContext | None:
    if not game_id:
        return None
    try:
        loaded = scorebook.load(game_id)
    except scorebook.GameNotFound:
        abort(404, description=gettext("There is no game at this address. Check the link you were given."))
    state = loaded.state
    rules = scorebook.ruleset_of(loaded.game)
    if player is not None and player not in state.names:
        abort(404, description=gettext("%(player)s does not play in this game.", player=player))
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
    """The verdict (or, for a hand, the advice) for cards typed into the plain form (no JavaScript needed), with
    its sentences in the page's language (``"shown"``)."""
    lang = i18n.current_language()
    try:
        if mode == "hand":
            if not (args.get("cards") or "").strip():
                return None, None
            hand = hand_from(args.get("cards", ""), rules)
            phases = (
                (phase,) if phase is not None else ctx.phases if ctx and ctx.player else tuple(rules.phases)
            )
            each = advice_toward(hand, phases, rules)
            with page_words(lang, rules) as words:
                assert words is not None
                return {
                    "advice": [{**a.to_dict(), "shown": advice_shown(a, rules, words)} for a in each]
                }, None
        if mode == "hit":
            if not (args.get("onto") or "").strip():
                return None, None
            onto = cards_from(args.get("onto", ""), rules, "onto")
            cards = cards_from(args.get("cards", ""), rules, "cards")
            down = args.get("down") != "0"
            kind = args.get("kind", "set")
            return judge_hit(
                kind, onto, cards, rules, end=args.get("end") or None, phase_down=down, lang=lang
            ), None
        text = (args.get("cards") or "").strip()
        if not text or phase is None:
            return None, None
        laid = groups_from(text, rules) if "|" in text else cards_from(text, rules, "cards")
        return judge_phase(laid, phase, rules, lang=lang), None
    except BadInput as exc:
        return None, sentence(exc, i18n.words(rules))


def _page(ctx: GameContext | None, error: str | None = None, status: int = 200) -> tuple[str, int]:
    args = request.args if request.method == "GET" else request.form
    mode = {"hit": "hit", "hand": "hand"}.get(args.get("mode") or "", "phase")
    rules = ctx.rules if ctx else _standalone_rules(args)
    phase: int | None = None
    try:
        phase = phase_from(args.get("phase"), rules) if args.get("phase") else None
    except BadInput as exc:
        error = error or sentence(exc, i18n.words(rules))
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
        "lang": i18n.current_language(),
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
            words=_script_words(),
            phase_options=[(n, _description(n, rules)) for n in rules.phases],
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
        return _page(ctx, gettext("choose the player who laid down"), 400)
    if not ctx.phases:
        return _page(ctx, gettext("%(player)s has no phase to lay down in this round", player=player), 400)
    words = i18n.words(ctx.rules)
    try:
        phase = phase_from(request.form.get("phase"), ctx.rules)
    except BadInput as exc:
        return _page(ctx, sentence(exc, words), 400)
    if phase not in ctx.phases:
        allowed = ", ".join(str(p) for p in ctx.phases)
        refused = gettext(
            "%(player)s cannot lay down phase %(phase)d this round (phase %(allowed)s)",
            player=player,
            phase=phase,
            allowed=allowed,
        )
        return _page(ctx, refused, 400)
    try:
        groups = groups_from(request.form.get("groups", ""), ctx.rules)
    except BadInput as exc:
        return _page(ctx, sentence(exc, words), 400)
    verdict = check_phase(groups, phase, ctx.rules)
    if not verdict.valid:
        assert verdict.why is not None
        return _page(ctx, gettext("not marked: %(reason)s", reason=say(verdict.why, words)), 400)
    marks.mark(ctx.game, ctx.round_number, player, phase, [[str(c) for c in g] for g in groups])
    flash(
        gettext(
            "%(player)s laid down phase %(phase)d: the form for round %(number)d starts with it ticked.",
            player=player,
            phase=phase,
            number=ctx.round_number,
        )
    )
    return redirect(url_for("games.table", game_id=game_id))


@bp.post("/referee/training")
@answers_in_json
def keep_for_training() -> tuple[Response, int]:
    """Keep a corrected photo with labels from the confirmed cards (asked for by the page with fetch)."""
    data, _name = photo_bytes()  # type: ignore[misc]
    game = _training_game(form_field("game"))
    if form_field("allow") not in ("1", "on", "true"):
        raise BadInput("the photo is kept only when you allow it", field="allow")
    try:
        width, height = int(form_field("width") or 0), int(form_field("height") or 0)
    except ValueError:
        raise BadInput("the photo's size is missing", field="width") from None
    meta: dict[str, Any] = {
        "groups": _json_field("groups"),
        "phase": form_field("phase"),
        "game": game.id,
        # The deck the camera reads this game's photos with (null: its own models): teaching that deck again
        # learns from the photo (vision.teach.kept_photos).
        "deck": choice_for(game.camera_deck).name,
    }
    name, count = training.keep(
        data, form_field("cards"), width, height, meta, game_id=game.id, turned=form_field("turned")
    )
    if meta["deck"]:
        message = gettext(
            "Thank you: the deck %(name)s will learn from this photo when it learns from its kept photos on the "
            "decks page (%(count)d kept).",
            name=meta["deck"],
            count=count,
        )
    else:
        message = gettext("Thank you: the camera will learn from this photo (%(count)d kept).", count=count)
    return jsonify(kept=name, count=count, message=message), 201


def _training_game(game_id: str | None) -> Game:
    """The game a training photo is kept for: only a device holding its edit secret may keep photos, so that
    nobody can fill the training folder with mislabelled photos from the network."""
    if not game_id:
        raise Refused(
            "photos are kept for training from a game's referee page only", field="game", status=403
        )
    game = db.session.get(Game, game_id) if is_game_id(game_id) else None
    if game is None:
        raise NotFound("there is no game with this id", field="game")
    if page_token(game) is None and not game.token_matches(bearer_token()):
        raise Refused(
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
