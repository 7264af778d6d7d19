"""The decks pages: the taught decks and the server's default, the teaching walkthrough with its photo checks
and its learning run, and the deck a game's photos are read with.

The walkthrough works as plain HTML for reading; checking and teaching need the page's script (it shrinks each
photo before sending it, as the referee page does). Every refusal of the JSON endpoints is
``{"error", "code"}`` in the page's language, with nothing changed.
"""

from __future__ import annotations

import importlib.util
import time
from typing import Any

from flask import current_app, flash, jsonify, redirect, render_template, request, url_for
from sqlalchemy import func
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Response

from companion.inputs import BadInput, NotFound, Refused

from .. import i18n
from ..access import editor_required, page_token
from ..answers import answers_in_json
from ..extensions import db
from ..i18n import gettext, ngettext
from ..models import Game, is_game_id
from ..referee import training as kept_training
from ..referee.uploads import form_field, limit_request, photo_bytes, photo_limit, too_large
from . import bp, store, teaching, words
from .forms import GameDeckForm, ServerDeckForm, TeachForm

# What learning needs beyond the camera (the train extra, and the POSIX lock that keeps it to one run at a time);
# looked up without importing, so the serving process never loads torch.
TRAINING_MODULES = ("torch", "ultralytics", "onnx", "fcntl")
# A teaching photo shows one colour's twelve cards, or the Wilds and Skips; a list longer than two such sets is
# not a teaching photo.
MAX_LISTED = 24


class DeckRefused(Refused):
    """A decks request refused with a code from ``vision.teach.Problem`` or the decks pages' own; the message
    is already in the page's language."""

    def __init__(
        self,
        code: str,
        english: str = "",
        *,
        status: int = 400,
        photo: int | None = None,
        field: str = "photo",
        **values: Any,
    ):
        super().__init__(words.problem(code, english, **values), code=code, status=status, field=field)
        self.photo = photo

    def to_dict(self) -> dict[str, Any]:
        body = super().to_dict()
        if self.photo is not None:
            body["photo"] = self.photo
        return body


def training_missing() -> str | None:
    """The first module learning needs that this server lacks, or ``None`` when a deck can be learnt here."""
    for module in TRAINING_MODULES:
        if importlib.util.find_spec(module) is None:
            return module
    return None


def _unavailable() -> str | None:
    """Why photos cannot be checked on this server, or ``None`` when they can."""
    try:
        store.teach_module()
    except store.DecksUnavailable as exc:
        return gettext(
            "The camera is not installed on this server (%(module)s is missing): "
            "pip install 'phase10-companion[vision]', then restart the app.",
            module=exc.module,
        )
    return None


def _taught() -> list[store.Deck]:
    try:
        return store.taught()
    except store.DecksUnavailable:
        return []


def _readable_names() -> list[str]:
    return [d.name for d in _taught() if d.readable]


@bp.app_template_global("camera_deck")
def camera_deck(game: Game | None = None) -> store.Choice:
    """The deck the camera reads this game's photos with (or, with no game, every other photo)."""
    return store.choice_for(game.camera_deck if game is not None else None)


# --------------------------------------------------------------------------------------------- the list


@bp.get("/decks/")
def index() -> str:
    return _index_page()


def _index_page(form: ServerDeckForm | None = None) -> str:
    decks = _taught()
    default = store.default_name()
    if form is None:
        form = ServerDeckForm().offer([d.name for d in decks if d.readable])
        form.deck.data = default if default in dict(form.deck.choices) else ""
    return render_template(
        "decks/index.html",
        decks=decks,
        default=default,
        choice=store.choice_for(None),
        form=form,
        job=job_view(teaching.status(store.folder())),
        unavailable=_unavailable(),
        training=training_missing() is None,
    )


@bp.post("/decks/default")
def choose_default() -> Any:
    form = ServerDeckForm().offer(_readable_names())
    if not form.validate_on_submit():
        flash(gettext("Choose one of the decks listed: nothing was changed."))
        return _index_page(form), 400
    name = form.deck.data or None
    store.set_default(name)
    flash(
        gettext("The camera now reads photos with the deck %(name)s.", name=name)
        if name
        else gettext("The camera now reads photos with its own models.")
    )
    return redirect(url_for("decks.index"))


# --------------------------------------------------------------------------------------------- removing


def _listed_or_404(name: str) -> str:
    """The deck named in the address, when the decks page lists it; a 404 for anything else (a path, a hidden
    or missing folder): nothing else reaches the disk."""
    listed = store.listed(name)
    if listed is None:
        shown = name if len(name) <= store.NAME_MAX else name[: store.NAME_MAX] + "…"
        raise NotFound(words.problem("no-deck", "", name=shown))
    return listed


def _removal_refused(name: str, teaching_now: str | None) -> str | None:
    """Why the deck ``name`` cannot be removed now (it is being learnt again), or ``None`` when it can."""
    return words.problem("deck-teaching", "", name=name) if teaching_now == name else None


def _games_with(name: str) -> int:
    """How many games chose the deck ``name`` for their photos."""
    count = db.session.execute(
        db.select(func.count()).select_from(Game).where(Game.camera_deck == name)
    ).scalar_one()
    return int(count)


@bp.get("/decks/remove/<name>")
def remove_page(name: str) -> str:
    """The confirmation a removal needs, with what it changes for the games and the server; works without
    script (the removal itself is the POST of its form)."""
    name = _listed_or_404(name)
    progress = teaching.status(store.folder())
    now = str(progress.get("name") or "") if progress.get("state") in teaching.RUNNING else None
    return render_template(
        "decks/remove.html",
        name=name,
        is_default=store.default_name() == name,
        games=_games_with(name),
        refused=_removal_refused(name, now),
    )


@bp.post("/decks/remove/<name>")
def remove(name: str) -> Any:
    """Remove a taught deck: anyone on the decks page may, as anyone may teach one or choose the server's
    (the page's CSRF token is checked by the app). Refused, with nothing changed, while it is being learnt."""
    name = _listed_or_404(name)
    decks = store.folder()
    try:
        with teaching.no_new_run(decks) as now:
            refused = _removal_refused(name, now)
            was_default = store.remove(name) if refused is None else False
    except LookupError:
        # Removed by another request (or phase10 deck remove) since this one found it.
        raise NotFound(words.problem("no-deck", "", name=name)) from None
    if refused is not None:
        flash(refused)
        return _index_page(), 409
    games = _games_with(name)
    said = [gettext("The deck %(name)s was removed.", name=name)]
    if was_default:
        said.append(gettext("The camera now reads photos with its own models."))
    if games:
        said.append(
            ngettext(
                "%(num)d game that chose it now reads its photos with the camera's own models.",
                "%(num)d games that chose it now read their photos with the camera's own models.",
                games,
            )
        )
    flash(" ".join(said))
    return redirect(url_for("decks.index"))


# --------------------------------------------------------------------------------------------- teaching


@bp.get("/decks/teach")
def teach_page() -> str:
    limit_mb = photo_limit() / (1024 * 1024)
    return render_template(
        "decks/teach.html",
        form=TeachForm(),
        steps=words.steps(),
        unavailable=_unavailable(),
        training=training_missing() is None,
        needs_training=words.needs_training(),
        limits={"photo_mb": round(limit_mb), "photos": int(current_app.config["DECK_MAX_PHOTOS"])},
        script={
            "check": url_for("decks.check"),
            "teach": url_for("decks.start_teaching"),
            "status": url_for("decks.teaching_status"),
            "decks": url_for("decks.index"),
            "lang": i18n.current_language(),
            "long_side": _teach_long_side(),
            # The names taken already: the page offers to replace a deck when its name is typed.
            "taken": [d.name for d in _taught()],
            "words": words.script_words(),
        },
    )


def _teach_long_side() -> int:
    """How long a side the page shrinks a teaching photo to: ``vision.teach`` cuts cards from at least this."""
    try:
        return int(store.teach_module().TEACH_LONG_SIDE)
    except store.DecksUnavailable:
        return 2000  # nothing is checked on this server then; the number only keeps the page whole


def _checked(teach: Any, data: bytes, cards: str, photo: int | None = None) -> int:
    """How many cards a teaching photo shows, once ``vision.teach.check_photo`` found them to be the ones
    ``cards`` names; :class:`DeckRefused` saying what to fix."""
    try:
        named = teach.parse_cards(cards)
        if len(named) > MAX_LISTED:
            raise teach.TeachingError(teach.Problem.BAD_CARDS, "too many cards in the list")
        return len(teach.check_photo(data, named))
    except teach.TeachingError as exc:
        code = exc.code.value
        status = 400 if code in ("not-a-photo", "bad-cards") else 422
        raise DeckRefused(code, str(exc), status=status, photo=photo, **exc.values) from None


def _teach_module() -> Any:
    try:
        return store.teach_module()
    except store.DecksUnavailable:
        raise Refused(_unavailable() or "", code="camera-missing", status=503) from None


@bp.post("/decks/check")
@answers_in_json
def check() -> tuple[Response, int]:
    """One teaching photo (``photo``, the ``cards`` it shows): how many cards were found, or what to fix."""
    data, _name = photo_bytes()  # type: ignore[misc]
    count = _checked(_teach_module(), data, form_field("cards") or "")
    return jsonify(cards=count, message=words.count_found(count)), 200


@bp.post("/decks/teach")
@answers_in_json
def start_teaching() -> tuple[Response, int]:
    """Start learning a deck from checked photos (``name``; ``photo`` and ``cards``, repeated, in step order)."""
    limit_request()
    try:
        uploads = request.files.getlist("photo")
        lists = request.form.getlist("cards")
        name = (request.form.get("name") or "").strip()
        # Teaching again under a taught deck's name replaces it, as ``phase10 deck teach`` does, but only when
        # the form's box says so: a name typed by chance never costs a group its deck.
        replace = request.form.get("replace") == "1"
    except RequestEntityTooLarge:
        raise too_large() from None
    teach = _teach_module()
    try:
        teach.check_name(name)
    except teach.TeachingError as exc:
        raise DeckRefused(exc.code.value, str(exc), status=400, field="name") from None
    most = int(current_app.config["DECK_MAX_PHOTOS"])
    if not uploads:
        raise DeckRefused("no-photos")
    if len(uploads) > most:
        raise DeckRefused("too-many-photos", most=most)
    if len(lists) != len(uploads):
        raise BadInput(gettext("Each photo needs its card list."), field="cards")
    decks = store.folder()
    # The teaching run replaces the deck only once the new one is ready (vision.teach.teach): until then, and
    # for good if the run fails, the games read with the old one.
    if (decks / name).exists() and not replace:
        raise DeckRefused("deck-exists", status=409, field="name", name=name)
    if training_missing() is not None:
        raise DeckRefused("needs-training", status=503)
    if teaching.status(decks).get("state") in teaching.RUNNING:
        raise _busy(teaching.status(decks))
    photos = []
    for i, (upload, cards) in enumerate(zip(uploads, lists, strict=True), 1):
        data = upload.stream.read(photo_limit() + 1)
        if len(data) > photo_limit():
            raise too_large()
        # Checked again here, so that a run is started only from photos it can learn from.
        _checked(teach, data, cards, photo=i)
        photos.append((data, cards))
    try:
        progress = teaching.start(
            decks,
            name,
            photos,
            minutes=float(current_app.config["DECK_TEACH_MINUTES"]),
            teacher=str(current_app.config["DECK_TEACHER"]),
            keep_detector=_keep_detector(),
            # A deck taught again under its name learns from the photos kept while it read them, too.
            kept=kept_training.folder(),
        )
    except teaching.Busy as exc:
        raise _busy(exc.progress) from None
    return jsonify(job_view(progress)), 202


def _keep_detector() -> bool | None:
    """The server's DECK_KEEP_DETECTOR: True, False, or None to let the run decide (by the deck's faces and pace)."""
    keep = current_app.config["DECK_KEEP_DETECTOR"]
    return None if keep is None else bool(keep)


@bp.post("/decks/improve/<name>")
def improve(name: str) -> Any:
    """Learn a taught deck again from its own faces and the photos kept for training while the camera read with
    it (the form under the deck on the decks page; its CSRF token is checked by the app). The old deck reads
    photos until the new one is ready."""
    name = _listed_or_404(name)
    refused: str | None = None
    if training_missing() is not None:
        refused = words.needs_training()
    elif not store.kept_stems().get(name):
        refused = words.problem("nothing-kept", "", name=name)
    if refused is None:
        try:
            teaching.start(
                store.folder(),
                name,
                [],
                minutes=float(current_app.config["DECK_TEACH_MINUTES"]),
                teacher=str(current_app.config["DECK_TEACHER"]),
                keep_detector=_keep_detector(),
                kept=kept_training.folder(),
            )
        except teaching.Busy as exc:
            refused = _busy(exc.progress).message
    if refused is not None:
        flash(refused)
        return _index_page(), 409
    flash(
        gettext("The deck %(name)s is being learnt again; it reads photos as before until then.", name=name)
    )
    return redirect(url_for("decks.index"))


def _busy(progress: dict[str, Any]) -> Refused:
    name = progress.get("name") or "?"
    return Refused(
        gettext(
            "A deck is being learnt on this server now (%(name)s): one at a time. Wait until it is done, "
            "then try again.",
            name=name,
        ),
        code="teaching-busy",
        status=409,
    )


@bp.get("/decks/teaching")
def teaching_status() -> Response:
    """The last teaching run's progress, for the walkthrough to poll."""
    response = jsonify(job_view(teaching.status(store.folder())))
    response.headers["Cache-Control"] = "no-store"
    return response


def job_view(progress: dict[str, Any]) -> dict[str, Any]:
    """A teaching run's progress as the page shows it: the file's figures, with the stage and any error in
    the page's language and the time it has taken."""
    state = progress.get("state", "idle")
    out: dict[str, Any] = {"state": state}
    if state == "idle":
        return out
    for key in ("job", "name", "stage", "done", "total", "photos", "minutes", "code", "deck"):
        if key in progress:
            out[key] = progress[key]
    stage = str(progress.get("stage") or "starting")
    out["stage_label"] = words.stage(stage)
    started = float(progress.get("started_at") or time.time())
    ended = float(progress.get("updated_at") or time.time()) if state not in teaching.RUNNING else time.time()
    out["elapsed_s"] = max(0, round(ended - started))
    if state == "failed":
        out["error"] = _run_error(progress)
    return out


def _run_error(progress: dict[str, Any]) -> str:
    english = str(progress.get("error") or "")
    code = str(progress.get("code") or "crashed")
    kept = progress.get("values")
    values: dict[str, Any] = kept if isinstance(kept, dict) else {}
    said = words.problem(code, english, **{k: v for k, v in values.items() if k != "photo"})
    photo = values.get("photo")
    if isinstance(photo, int):
        return gettext("Photo %(number)s: %(problem)s", number=photo, problem=said)
    return said


# --------------------------------------------------------------------------------------------- a game's deck


def _game(game_id: str) -> Game:
    game = db.session.get(Game, game_id) if is_game_id(game_id) else None
    if game is None:
        raise NotFound(gettext("There is no game at this address. Check the link you were given."))
    return game


@bp.get("/decks/games/<game_id>")
def game_deck(game_id: str) -> str:
    game = _game(game_id)
    return _game_page(game)


def _game_page(game: Game, form: GameDeckForm | None = None) -> str:
    names = _readable_names()
    if form is None:
        form = GameDeckForm().offer(names, store.default_name())
        form.deck.data = game.camera_deck if game.camera_deck in names else ""
    return render_template(
        "decks/game.html",
        game=game,
        form=form,
        choice=store.choice_for(game.camera_deck),
        editor=page_token(game) is not None,
        has_decks=bool(names),
    )


@bp.post("/decks/games/<game_id>")
@editor_required
def choose_game_deck(game_id: str) -> Any:
    game = _game(game_id)
    form = GameDeckForm().offer(_readable_names(), store.default_name())
    if not form.validate_on_submit():
        flash(gettext("Choose one of the decks listed: nothing was changed."))
        return _game_page(game, form), 400
    game.camera_deck = form.deck.data or None
    db.session.commit()
    flash(
        gettext("The camera reads this game's photos with the deck %(name)s.", name=game.camera_deck)
        if game.camera_deck
        else gettext("The camera reads this game's photos with the server's deck.")
    )
    return redirect(url_for("decks.game_deck", game_id=game.id))
