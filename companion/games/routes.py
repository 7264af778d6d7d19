"""Game pages: home, new game, the table, entering and editing rounds, history, the edit link."""

from __future__ import annotations

import functools
import ipaddress
import re
from typing import Any, cast

from flask import Flask, abort, current_app, flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext, ngettext  # type: ignore[import-untyped]
from flask_wtf import FlaskForm  # type: ignore[import-untyped]
from markupsafe import Markup
from werkzeug.local import LocalProxy
from werkzeug.wrappers import Response

from .. import i18n, scorebook
from ..access import cookie_name, editor_required, held_game_ids, page_token, remember, remember_seen, who
from ..answers import sentence
from ..extensions import db
from ..models import Game, Player, Round, is_game_id
from . import bp
from .chart import score_chart
from .forms import NewGameForm, RoundForm, buckets, round_form, round_form_shown


class ConfirmForm(FlaskForm):  # type: ignore[misc]
    """A button that changes something: it carries only the CSRF token."""


def _load(game_id: str) -> scorebook.Loaded:
    try:
        return scorebook.load(game_id)
    except scorebook.GameNotFound:
        abort(404, description=gettext("There is no game at this address. Check the link you were given."))


def public_base() -> str:
    """Where players reach this server, for links that leave the page (share link, edit link, QR code).

    Never the request's Host header as it stands: a crafted Host would put another site's address into the links
    a player copies and shares. ``PUBLIC_BASE_URL`` when set; behind proxies the app was told to trust, their
    forwarded host; else the address the server itself listens on, or the Host when it is a bare IP address
    (a phone on the table's Wi-Fi opens the server by its address; a name there could be an attacker's DNS)."""
    base = current_app.config.get("PUBLIC_BASE_URL")
    if base:
        return str(base).rstrip("/")
    if current_app.config.get("PROXY_COUNT"):
        return request.host_url.rstrip("/")
    server = request.environ.get("SERVER_NAME", "")
    port = request.environ.get("SERVER_PORT", "")
    if server in ("", "0.0.0.0", "::") or not _is_ip(server.strip("[]")):
        host = request.host
        hostname = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        if _is_ip(hostname.strip("[]")) or hostname == "localhost":
            return f"{request.scheme}://{host}"
        server = "127.0.0.1" if server in ("", "0.0.0.0", "::") else server
    default = {"http": "80", "https": "443"}.get(request.scheme)
    shown = f"[{server}]" if ":" in server else server
    return f"{request.scheme}://{shown}" + ("" if port == default else f":{port}")


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def share_url(game_id: str) -> str:
    return public_base() + url_for("games.table", game_id=game_id)


def edit_url(game_id: str, token: str) -> str:
    # The secret rides in the fragment, which browsers never send: it cannot reach a server log, a proxy's log or
    # a Referer header. The access page hands it to the server in a POST.
    return public_base() + url_for("games.access_page", game_id=game_id) + "#" + token


@functools.lru_cache(maxsize=512)
def qr_svg(url: str) -> Markup:
    # Drawing the code was most of a table page's render; a game's share link never changes. The SVG holds only
    # the code's modules as path data, never the text of the URL, so nothing typed or sent reaches the markup.
    import segno

    # A viewBox instead of a fixed size, so that CSS can draw it large enough to scan across the table.
    return Markup(segno.make(url, error="m").svg_inline(scale=3, border=2, dark="#111", omitsize=True))


@bp.app_template_global("standings")
def standings(state: Any, rules: Any) -> list[dict[str, Any]]:
    """The table's standings in place order (the engine's placements): who leads, how far behind each other
    player is, how far along the phases, and who is in the tie-break."""
    places = state.placements()
    by_name = {p.name: p for p in state.players}
    leader = places[0]
    phases = len(rules.phases)
    rows = []
    for placement in places:
        player = by_name[placement.name]
        if placement.place == 1:
            behind = (
                gettext("leads") if sum(p.place == 1 for p in places) == 1 else gettext("shares the lead")
            )
        elif placement.phases_completed < leader.phases_completed and not rules.everyone_advances:
            gap = leader.phases_completed - placement.phases_completed
            behind = ngettext(
                "%(num)d phase behind %(leader)s", "%(num)d phases behind %(leader)s", gap, leader=leader.name
            )
        else:
            behind = gettext(
                "%(points)d pts behind %(leader)s", points=placement.total - leader.total, leader=leader.name
            )
        rows.append(
            {
                "place": placement.place,
                "player": player,
                "completed": placement.phases_completed,
                "phases": phases,
                "behind": behind,
                "tie_break": player.name in state.tie_break_players,
            }
        )
    return rows


@bp.app_template_global("hand_photo_words")
def hand_photo_words() -> dict[str, Any]:
    """The words of counting a hand from a photo (static/hand.js) in the page's language, as the script needs
    them: ``{n}``, ``{card}``, ``{name}``, ``{status}`` and ``{points}`` are filled in on the phone, and counted
    texts come in one form per plural category of the language (the script asks Intl.PluralRules which)."""
    samples = i18n.plural_samples()
    return {
        "colours": {"R": gettext("Red"), "B": gettext("Blue"), "G": gettext("Green"), "Y": gettext("Yellow")},
        "cards": {
            "R": gettext("red %(number)s", number="{n}"),
            "B": gettext("blue %(number)s", number="{n}"),
            "G": gettext("green %(number)s", number="{n}"),
            "Y": gettext("yellow %(number)s", number="{n}"),
            "W": gettext("Wild"),
            "S": gettext("Skip"),
        },
        "unsure": gettext("%(card)s, the camera is not sure of it: check it", card="{card}"),
        "change": gettext("Change %(card)s", card="{card}"),
        "missed": gettext("Add the cards the camera missed"),
        "add": gettext("add a card to %(name)s's hand", name="{name}"),
        "remove": gettext("Remove"),
        "done": gettext("Done"),
        "counting": gettext("Counting…"),
        "reading": gettext("Reading the cards…"),
        "points": {c: ngettext("%(count)s point", "%(count)s points", n, count="{n}") for c, n in samples},
        "read": {
            c: ngettext("%(count)s card read", "%(count)s cards read", n, count="{n}") for c, n in samples
        },
        "doubtful": {
            c: ngettext(
                "%(count)s marked ? may be misread", "%(count)s marked ? may be misread", n, count="{n}"
            )
            for c, n in samples
        },
        "check": gettext("Check them, then use them."),
        "filled": gettext(
            "Counters filled from the photo: %(points)s. Change them with − and + if needed.",
            points="{points}",
        ),
        "not_counted": gettext("the cards could not be counted"),
        "not_read": gettext("the photo could not be read"),
        "answered": gettext("the server answered %(status)s", status="{status}"),
        "offline": gettext("the server could not be reached: check the connection and try again"),
        "not_sent": gettext("the photo could not be sent: check the connection and try again"),
    }


@bp.app_template_filter("phase_text")
def phase_text(number: int | None, rules: Any) -> str:
    return i18n.phase_text(number, rules)


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, from the root so that its scope is the whole app."""
    response = current_app.send_static_file("sw.js")
    # A new version must reach phones at once, not after the static files' cache time.
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/")
def home() -> str:
    """The games this browser holds: those it created or was given the edit link of, and those it has opened by
    their share link. Nobody else's games are listed: a share link is the only way into a game."""
    ids = held_game_ids()
    games = (
        db.session.execute(db.select(Game).where(Game.id.in_(ids)).order_by(Game.updated_at.desc()))
        .scalars()
        .all()
        if ids
        else []
    )
    playing = [g for g in games if g.status != "finished"]
    finished = [g for g in games if g.status == "finished"]
    names = {n.casefold() for g in games for n in g.player_names}
    stats = [s for s in scorebook.player_stats() if s["name"].casefold() in names]
    return render_template("games/home.html", playing=playing, finished=finished, stats=stats[:12])


_GAME_PATH = re.compile(r"/games/([A-Za-z0-9_-]{1,16})(?:/access(?:/([A-Za-z0-9_-]+)|/?#([A-Za-z0-9_-]+)))?")


@bp.post("/open")
def open_game() -> Response:
    """Open a game from a pasted share or edit link (or a bare game id)."""
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description=gettext("This form has expired. Reload the page and try again."))
    text = (request.form.get("link") or "").strip()
    match = _GAME_PATH.search(text)
    game_id = match.group(1) if match else text
    token = (match.group(2) or match.group(3)) if match else None
    if not is_game_id(game_id) or scorebook.current_version(game_id) is None:
        flash(gettext("No game was found for that link. Paste the whole link you were given."))
        return redirect(url_for("games.home"))
    if token:
        return _grant(game_id, token)
    return redirect(url_for("games.table", game_id=game_id))


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
            said = sentence(exc, i18n.words(form.ruleset))
            if exc.field == "first_dealer":
                form.first_dealer.errors = [*form.first_dealer.errors, said]
            else:
                form.names_error = said
        else:
            response = make_response(redirect(url_for("games.table", game_id=loaded.game.id)))
            remember(response, loaded.game.id, token)
            flash(
                gettext(
                    "Game started. This device can enter rounds; share the read-only link with the table."
                )
            )
            return response
    return render_template("games/new.html", form=form, known=known), 400 if form.is_submitted() else 200


@bp.get("/games/<game_id>")
def table(game_id: str) -> str:
    loaded = _load(game_id)
    token = page_token(loaded.game)
    remember_seen(game_id)
    url = share_url(game_id)
    edit_link = edit_url(game_id, token) if token is not None else None
    return render_template(
        "games/table.html",
        game=loaded.game,
        state=loaded.state,
        rules=scorebook.ruleset_of(loaded.game),
        editor=token is not None,
        share_url=url,
        share_qr=qr_svg(url),
        edit_link=edit_link,
        confirm=ConfirmForm(),
    )


@bp.get("/games/<game_id>/access")
def access_page(game_id: str) -> str:
    """Where an edit link lands: its script posts the secret from the link's fragment; without script, the player
    pastes the link."""
    loaded = _load(game_id)
    return render_template("games/access.html", game=loaded.game, form=ConfirmForm())


@bp.post("/games/<game_id>/access")
def access(game_id: str) -> Response:
    """The edit link's secret, posted: a device that sends it may change the game from then on."""
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description=gettext("This form has expired. Reload the page and try again."))
    text = (request.form.get("token") or "").strip()
    match = _GAME_PATH.search(text)
    token = (match.group(2) or match.group(3)) if match else text.lstrip("#")
    return _grant(game_id, token or "")


@bp.get("/games/<game_id>/access/<token>")
def access_by_path(game_id: str, token: str) -> Response:
    """Edit links from before the secret moved into the fragment; they keep working. Access logs redact them."""
    return _grant(game_id, token)


def _grant(game_id: str, token: str) -> Response:
    loaded = _load(game_id)
    if not loaded.game.token_matches(token):
        abort(403, description=gettext("This edit link is not valid for this game. Ask for the link again."))
    response = make_response(redirect(url_for("games.table", game_id=game_id)))
    remember(response, game_id, token)
    flash(gettext("This device can now enter and edit rounds."))
    return response


def _round_page(
    loaded: scorebook.Loaded,
    form: RoundForm,
    number: int,
    editing: bool,
    outcome: Any = None,
    status: int = 200,
    confirm_end: str | None = None,
) -> tuple[str, int]:
    rules = scorebook.ruleset_of(loaded.game)
    rounds = loaded.state.rounds
    if editing:
        tie_break = 1 <= number <= len(rounds) and rounds[number - 1].tie_break
    else:
        tie_break = loaded.state.status == "tie_break"
    return (
        render_template(
            "games/round.html",
            game=loaded.game,
            state=loaded.state,
            rules=rules,
            # A tie-break replays the last phase (001), so even in Masters nobody chooses one then.
            phase_chosen=rules.choose_phase and not tie_break,
            form=form,
            rows=form.players(),
            number=number,
            editing=editing,
            outcome=outcome,
            buckets=buckets(rules.deck),
            confirm_end=confirm_end,
        ),
        status,
    )


def _refusal(form: RoundForm, exc: scorebook.ScorebookError) -> None:
    said = sentence(exc, i18n.words(form.rules))
    if exc.player is not None:
        form.add_player_error(exc.player, said)
    elif exc.field == "round":
        form.round.errors = [*form.round.errors, said]
    else:
        form.went_out.errors = [*form.went_out.errors, said]


def _next_round_form(rules: Any, state: Any, formdata: Any = None) -> RoundForm:
    # A tie-break replays the last phase (001); otherwise a Masters player picks among the phases still to do.
    if state.status == "tie_break":
        phases = {name: (rules.last_phase,) for name in state.in_next_round}
    else:
        phases = {p.name: p.remaining for p in state.players}
    return round_form(rules, state.in_next_round, state.round_number, formdata=formdata, phases=phases)


@bp.route("/games/<game_id>/round", methods=["GET", "POST"])
@editor_required
def enter_round(game_id: str) -> Any:
    loaded = _load(game_id)
    state = loaded.state
    if request.method == "POST":
        saved = scorebook.round_saved_with(game_id, request.form.get("once_kept") or request.form.get("once"))
        if saved is not None:
            return _already_saved(game_id, saved)
    if state.status == "finished":
        flash(gettext("The game is over: no more rounds to enter."))
        return redirect(url_for("games.table", game_id=game_id))
    rules = scorebook.ruleset_of(loaded.game)
    number = state.round_number
    if request.method == "GET":
        form = _next_round_form(rules, state)
        app = cast("LocalProxy[Flask]", current_app)._get_current_object()
        round_form_shown.send(app, form=form, game=loaded.game, number=number)
        return _round_page(loaded, form, number, False)
    form = _next_round_form(rules, state, request.form)
    if not _checked(form):
        return _round_page(loaded, form, number, False, status=400)
    report = form.report()
    outcome = form.judge(report, lambda data: scorebook.preview_round(loaded, data))
    if outcome is None:
        return _round_page(loaded, form, number, False, status=form.refused_status)
    if form.round.data != number:
        form.round.errors = [
            gettext(
                "Round %(sent)s was already saved from another device. Here is round %(number)d: check the "
                "table before entering it.",
                sent=form.round.data,
                number=number,
            )
        ]
        fresh = _next_round_form(rules, state)
        fresh.round.errors = form.round.errors
        return _round_page(loaded, fresh, number, False, status=409)
    if "save" not in request.form:
        return _round_page(loaded, form, number, False, outcome=outcome)
    # A round that ends the game is saved only once the scorer has seen who wins.
    if outcome[1].status == "finished" and "confirm_end" not in request.form:
        return _round_page(loaded, form, number, False, outcome=outcome, confirm_end=outcome[1].winner)
    try:
        scorebook.add_round(game_id, report, who("page"), idempotency_key=form.token())
    except scorebook.AlreadySaved as exc:
        return _already_saved(game_id, exc.number)
    except scorebook.Conflict as exc:
        if exc.field == "round":
            fresh_loaded = _load(game_id)
            fresh = _next_round_form(rules, fresh_loaded.state)
            fresh.round.errors = [
                gettext(
                    "Round %(number)d was saved from another device a moment ago; nothing of yours was saved. "
                    "Check the table, then enter the next round.",
                    number=number,
                )
            ]
            return _round_page(fresh_loaded, fresh, fresh_loaded.state.round_number, False, status=409)
        _refusal(form, exc)
        return _round_page(loaded, form, number, False, status=409)
    except scorebook.ScorebookError as exc:
        _refusal(form, exc)
        return _round_page(loaded, form, number, False, status=400)
    _keep_counters(game_id, number, form)
    flash(gettext("Round %(number)d saved.", number=number))
    return redirect(url_for("games.table", game_id=game_id))


def _checked(form: RoundForm) -> bool:
    """Run the form's own checks; False only when its CSRF token is refused, which nothing on the page can fix.

    Every other fault is left in the form for judge() to add the engine's to, so that one Save shows them all."""
    form.validate_on_submit()
    return not form.csrf_token.errors if "csrf_token" in form else True


def _keep_counters(game_id: str, number: int, form: RoundForm) -> None:
    # The round is saved and committed by then: the counters only say how it was tapped, for an edit to reopen
    # with them, and a round is whole without them. An edit elsewhere is caught on reading (forms._hand_fields).
    db.session.execute(
        db.update(Round)
        .where(Round.game_id == game_id, Round.number == number)
        .values(counters=form.counted or None)
    )
    db.session.commit()


@bp.post("/games/<game_id>/rematch")
@editor_required
def rematch(game_id: str) -> Response:
    """Same players, same seats, same rules, the deal passing on; this device keeps score again."""
    if not ConfirmForm().validate_on_submit():
        abort(400, description=gettext("This form has expired. Reload the page and try again."))
    try:
        fresh, token = scorebook.rematch(game_id, who("page"))
    except scorebook.ScorebookError as exc:
        flash(sentence(exc))
        return redirect(url_for("games.table", game_id=game_id))
    response = make_response(redirect(url_for("games.table", game_id=fresh.game.id)))
    remember(response, fresh.game.id, token)
    flash(gettext("Rematch: %(dealer)s deals the first round.", dealer=fresh.state.dealer))
    return response


@bp.post("/games/<game_id>/delete")
@editor_required
def delete_game(game_id: str) -> Response:
    """A game no round was saved in can be deleted by its editors."""
    if not ConfirmForm().validate_on_submit():
        abort(400, description=gettext("This form has expired. Reload the page and try again."))
    try:
        scorebook.delete_empty_game(game_id)
    except scorebook.ScorebookError as exc:
        flash(gettext("The game was not deleted: %(reason)s", reason=exc.message))
        return redirect(url_for("games.table", game_id=game_id))
    flash(gettext("The game was deleted."))
    response = redirect(url_for("games.home"))
    response.delete_cookie(cookie_name(game_id))
    return response


def _already_saved(game_id: str, number: int) -> Response:
    flash(
        gettext(
            "Round %(number)d was already saved from this form, so nothing was saved again. Here it is.",
            number=number,
        )
    )
    return redirect(url_for("games.history", game_id=game_id, _anchor=f"round-{number}"))


@bp.route("/games/<game_id>/rounds/<int:number>/edit", methods=["GET", "POST"])
@editor_required
def edit_round(game_id: str, number: int) -> Any:
    loaded = _load(game_id)
    if not 1 <= number <= len(loaded.game.rounds):
        abort(404, description=gettext("There is no round %(number)d in this game.", number=number))
    stored = loaded.game.rounds[number - 1]
    result = loaded.state.rounds[number - 1]
    names = tuple(result.report.players)
    rules = scorebook.ruleset_of(loaded.game)
    formdata = request.form if request.method == "POST" else None
    form = round_form(
        rules, names, number, original=stored.report, counters=stored.counters, formdata=formdata
    )
    if request.method == "GET":
        return _round_page(loaded, form, number, True)
    if not _checked(form):
        return _round_page(loaded, form, number, True, status=400)
    report = form.report()
    if form.round.data != number:
        form.round.errors = [
            gettext("This form edits round %(number)d; reload the page and try again.", number=number)
        ]
    after = form.judge(report, lambda data: scorebook.preview_edit(loaded, number, data))
    if after is None:
        return _round_page(loaded, form, number, True, status=form.refused_status)
    if "save" not in request.form:
        return _round_page(loaded, form, number, True, outcome=(after.rounds[number - 1], after))
    try:
        scorebook.edit_round(game_id, number, report, who("page"))
    except scorebook.ScorebookError as exc:
        _refusal(form, exc)
        return _round_page(loaded, form, number, True, status=exc.status)
    _keep_counters(game_id, number, form)
    flash(gettext("Round %(number)d changed; every round after it was recomputed.", number=number))
    return redirect(url_for("games.history", game_id=game_id))


@bp.post("/games/<game_id>/rounds/<int:number>/delete")
@editor_required
def delete_round(game_id: str, number: int) -> Response:
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description=gettext("This form has expired. Reload the page and try again."))
    try:
        scorebook.delete_round(game_id, number, who("page"))
    except scorebook.RoundNotFound:
        abort(404, description=gettext("There is no round %(number)d in this game.", number=number))
    except scorebook.ScorebookError as exc:
        flash(gettext("Round %(number)d was not deleted: %(reason)s", number=number, reason=exc.message))
        return redirect(url_for("games.history", game_id=game_id))
    flash(
        gettext("Round %(number)d deleted; the rounds after it moved up and were recomputed.", number=number)
    )
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


@bp.get("/games/<game_id>/result")
def result(game_id: str) -> str:
    """The result card of a finished game, to share or print: the winner, everyone's place with their phases and
    points, and how many rounds it took. Read-only like the table, for anyone with the game's link."""
    loaded = _load(game_id)
    if loaded.state.status != "finished":
        abort(
            404,
            description=gettext(
                "This game is not over yet: its result card appears once someone has won. The table shows the "
                "standings so far."
            ),
        )
    remember_seen(game_id)
    rules = scorebook.ruleset_of(loaded.game)
    by_name = {p.name: p for p in loaded.state.players}
    url = public_base() + url_for("games.result", game_id=game_id)
    return render_template(
        "games/result.html",
        game=loaded.game,
        state=loaded.state,
        rules=rules,
        rows=[(placement, by_name[placement.name]) for placement in loaded.state.placements()],
        phases=len(rules.phases),
        rounds=len(loaded.state.rounds),
        result_url=url,
    )
