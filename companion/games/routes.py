"""Game pages: home, new game, the table, entering and editing rounds, history, the edit link."""

from __future__ import annotations

from typing import Any

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from flask_wtf import FlaskForm
from markupsafe import Markup
from werkzeug.wrappers import Response

from .. import scorebook
from ..access import page_token, remember, who
from ..extensions import db
from ..models import Game, Player
from . import bp
from .chart import score_chart
from .forms import NewGameForm, RoundForm, buckets, round_form


class ConfirmForm(FlaskForm):  # type: ignore[misc]
    """A button that changes something: it carries only the CSRF token."""


def _load(game_id: str) -> scorebook.Loaded:
    try:
        return scorebook.load(game_id)
    except scorebook.GameNotFound:
        abort(404, description="There is no game at this address. Check the link you were given.")


def _require_editor(game: Game) -> str:
    token = page_token(game)
    if token is None:
        abort(
            403,
            description="Only devices with this game's edit link can change it. "
            "Ask whoever started the game to share the edit link.",
        )
    return token


def share_url(game_id: str) -> str:
    base = current_app.config.get("PUBLIC_BASE_URL")
    path = url_for("games.table", game_id=game_id)
    return base.rstrip("/") + path if base else url_for("games.table", game_id=game_id, _external=True)


def qr_svg(url: str) -> Markup:
    import segno

    return Markup(segno.make(url, error="m").svg_inline(scale=3, border=2, dark="#111"))


@bp.app_template_filter("phase_text")
def phase_text(number: int | None, rules: Any) -> str:
    if number is None:
        return "all phases done"
    return f"Phase {number}: {rules.phase(number).description}"


@bp.get("/")
def home() -> str:
    games = db.session.execute(db.select(Game).order_by(Game.updated_at.desc()).limit(200)).scalars().all()
    playing = [g for g in games if g.status != "finished"]
    finished = [g for g in games if g.status == "finished"]
    return render_template(
        "games/home.html", playing=playing, finished=finished, stats=scorebook.player_stats()[:12]
    )


@bp.route("/games/new", methods=["GET", "POST"])
def new() -> Any:
    form = NewGameForm()
    known = db.session.execute(db.select(Player.name).order_by(Player.name)).scalars().all()
    if form.validate_on_submit():
        assert form.ruleset is not None
        try:
            loaded, token = scorebook.create_game(
                form.player_names, form.ruleset, form.dealer_index, who("page")
            )
        except scorebook.BadInput as exc:
            if exc.field == "first_dealer":
                form.first_dealer.errors = [*form.first_dealer.errors, exc.message]
            else:
                form.names_error = exc.message
        else:
            response = redirect(url_for("games.table", game_id=loaded.game.id))
            remember(response, loaded.game.id, token)
            flash("Game started. This device can enter rounds; share the read-only link with the table.")
            return response
    return render_template("games/new.html", form=form, known=known), 400 if form.is_submitted() else 200


@bp.get("/games/<game_id>")
def table(game_id: str) -> str:
    loaded = _load(game_id)
    token = page_token(loaded.game)
    url = share_url(game_id)
    edit_link = None
    if token is not None:
        base = current_app.config.get("PUBLIC_BASE_URL")
        path = url_for("games.access", game_id=game_id, token=token)
        edit_link = (
            (base.rstrip("/") + path)
            if base
            else url_for("games.access", game_id=game_id, token=token, _external=True)
        )
    return render_template(
        "games/table.html",
        game=loaded.game,
        state=loaded.state,
        rules=scorebook.ruleset_of(loaded.game),
        editor=token is not None,
        share_url=url,
        share_qr=qr_svg(url),
        edit_link=edit_link,
    )


@bp.get("/games/<game_id>/access/<token>")
def access(game_id: str, token: str) -> Response:
    """The edit link: a device that opens it may change the game from then on."""
    loaded = _load(game_id)
    if not loaded.game.token_matches(token):
        abort(403, description="This edit link is not valid for this game. Ask for the link again.")
    response = redirect(url_for("games.table", game_id=game_id))
    remember(response, game_id, token)
    flash("This device can now enter and edit rounds.")
    return response


def _round_page(
    loaded: scorebook.Loaded,
    form: RoundForm,
    number: int,
    editing: bool,
    outcome: Any = None,
    status: int = 200,
) -> tuple[str, int]:
    return (
        render_template(
            "games/round.html",
            game=loaded.game,
            state=loaded.state,
            rules=scorebook.ruleset_of(loaded.game),
            form=form,
            rows=form.players(),
            number=number,
            editing=editing,
            outcome=outcome,
            buckets=buckets(scorebook.ruleset_of(loaded.game).deck),
        ),
        status,
    )


def _refusal(form: RoundForm, exc: scorebook.ScorebookError) -> None:
    if exc.player is not None:
        form.add_player_error(exc.player, exc.message)
    elif exc.field == "round":
        form.round.errors = [*form.round.errors, exc.message]
    else:
        form.went_out.errors = [*form.went_out.errors, exc.message]


def _next_round_form(rules: Any, state: Any, formdata: Any = None) -> RoundForm:
    # A tie-break replays the last phase (001); otherwise a Masters player picks among the phases still to do.
    if state.status == "tie_break":
        phases = {name: (rules.last_phase,) for name in state.in_next_round}
    else:
        phases = {p.name: p.remaining for p in state.players}
    return round_form(rules, state.in_next_round, state.round_number, formdata=formdata, phases=phases)


@bp.route("/games/<game_id>/round", methods=["GET", "POST"])
def enter_round(game_id: str) -> Any:
    loaded = _load(game_id)
    _require_editor(loaded.game)
    state = loaded.state
    if state.status == "finished":
        flash("The game is over: no more rounds to enter.")
        return redirect(url_for("games.table", game_id=game_id))
    rules = scorebook.ruleset_of(loaded.game)
    number = state.round_number
    form = _next_round_form(rules, state, request.form if request.method == "POST" else None)
    if request.method == "GET" or not form.validate_on_submit():
        return _round_page(loaded, form, number, False, status=200 if request.method == "GET" else 400)
    report = form.report()
    if form.has_errors():
        return _round_page(loaded, form, number, False, status=400)
    if form.round.data != number:
        form.round.errors = [
            f"Round {form.round.data} was already saved from another device. Here is round {number}: check the "
            "table before entering it."
        ]
        fresh = _next_round_form(rules, state)
        fresh.round.errors = form.round.errors
        return _round_page(loaded, fresh, number, False, status=409)
    if "save" not in request.form:
        try:
            outcome = scorebook.preview_round(loaded, report)
        except scorebook.ScorebookError as exc:
            _refusal(form, exc)
            return _round_page(loaded, form, number, False, status=400)
        return _round_page(loaded, form, number, False, outcome=outcome)
    try:
        scorebook.add_round(game_id, report, who("page"))
    except scorebook.Conflict as exc:
        if exc.field == "round":
            fresh_loaded = _load(game_id)
            fresh = _next_round_form(rules, fresh_loaded.state)
            fresh.round.errors = [
                f"Round {number} was saved from another device a moment ago; nothing of yours was saved. "
                "Check the table, then enter the next round."
            ]
            return _round_page(fresh_loaded, fresh, fresh_loaded.state.round_number, False, status=409)
        _refusal(form, exc)
        return _round_page(loaded, form, number, False, status=409)
    except scorebook.ScorebookError as exc:
        _refusal(form, exc)
        return _round_page(loaded, form, number, False, status=400)
    flash(f"Round {number} saved.")
    return redirect(url_for("games.table", game_id=game_id))


@bp.route("/games/<game_id>/rounds/<int:number>/edit", methods=["GET", "POST"])
def edit_round(game_id: str, number: int) -> Any:
    loaded = _load(game_id)
    _require_editor(loaded.game)
    if not 1 <= number <= len(loaded.game.rounds):
        abort(404, description=f"There is no round {number} in this game.")
    stored = loaded.game.rounds[number - 1].report
    result = loaded.state.rounds[number - 1]
    names = tuple(result.report.players)
    rules = scorebook.ruleset_of(loaded.game)
    formdata = request.form if request.method == "POST" else None
    form = round_form(rules, names, number, original=stored, formdata=formdata)
    if request.method == "GET" or not form.validate_on_submit():
        return _round_page(loaded, form, number, True, status=200 if request.method == "GET" else 400)
    report = form.report()
    if form.round.data != number:
        form.round.errors = [f"This form edits round {number}; reload the page and try again."]
    if form.has_errors():
        return _round_page(loaded, form, number, True, status=400)
    if "save" not in request.form:
        try:
            after = scorebook.preview_edit(loaded, number, report)
        except scorebook.ScorebookError as exc:
            _refusal(form, exc)
            return _round_page(loaded, form, number, True, status=exc.status)
        return _round_page(loaded, form, number, True, outcome=(after.rounds[number - 1], after))
    try:
        scorebook.edit_round(game_id, number, report, who("page"))
    except scorebook.ScorebookError as exc:
        _refusal(form, exc)
        return _round_page(loaded, form, number, True, status=exc.status)
    flash(f"Round {number} changed; every round after it was recomputed.")
    return redirect(url_for("games.history", game_id=game_id))


@bp.post("/games/<game_id>/rounds/<int:number>/delete")
def delete_round(game_id: str, number: int) -> Response:
    loaded = _load(game_id)
    _require_editor(loaded.game)
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description="This form has expired. Reload the page and try again.")
    try:
        scorebook.delete_round(game_id, number, who("page"))
    except scorebook.RoundNotFound:
        abort(404, description=f"There is no round {number} in this game.")
    except scorebook.ScorebookError as exc:
        flash(f"Round {number} was not deleted: {exc.message}")
        return redirect(url_for("games.history", game_id=game_id))
    flash(f"Round {number} deleted; the rounds after it moved up and were recomputed.")
    return redirect(url_for("games.history", game_id=game_id))


@bp.get("/games/<game_id>/history")
def history(game_id: str) -> str:
    loaded = _load(game_id)
    names = loaded.game.player_names
    return render_template(
        "games/history.html",
        game=loaded.game,
        state=loaded.state,
        rules=scorebook.ruleset_of(loaded.game),
        names=names,
        chart=score_chart(names, loaded.state.rounds),
        editor=page_token(loaded.game) is not None,
        confirm=ConfirmForm(),
        audit=list(reversed(loaded.game.audit)),
    )
