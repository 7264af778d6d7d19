"""Your deck (issue 17, part 3): the walkthrough checks each teaching photo at once, a teaching run goes on in its
own process with its progress in the decks folder, one at a time, and a game's editor or the decks page chooses
the deck the referee's camera reads with. The real teaching run (minutes of training) is replaced by
:func:`fake_teach`, which the real teaching process runs in its place: the process start, the lock, the
progress file, the polling and the result are the product's own."""

from __future__ import annotations

import io
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.access import cookie_name
from companion.decks import KEEP_DETECTOR_VARIABLE, teaching
from companion.decks import routes as deck_routes
from companion.extensions import db
from companion.models import Game

from .conftest import ApiGame, make_app

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
RED = " ".join(f"R{n}" for n in range(1, 13))

vision = pytest.importorskip("vision.teach", reason="the camera's extras are not installed")


@cache
def photos() -> list[tuple[bytes, str]]:
    """The five usual teaching photos of one drawn deck, as ``vision.teach`` renders them."""
    import numpy as np

    from vision.families import Family, family_design

    return vision.teaching_photos(family_design(np.random.default_rng(3), Family.CLASSIC), 3)


@pytest.fixture
def decks(tmp_path: Path) -> Path:
    return tmp_path / "decks"


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    """The folder the referee keeps corrected photos in (``companion.referee.training``)."""
    return tmp_path / "training"


@pytest.fixture
def app_factory(database: str, decks: Path, kept: Path) -> Iterator[Callable[..., Flask]]:
    made: list[Flask] = []

    def make(**config: Any) -> Flask:
        settings = {
            "DECKS_FOLDER": str(decks),
            "TRAINING_FOLDER": str(kept),
            "DECK_TEACHER": "tests.web.test_decks:fake_teach",
            **config,
        }
        app = make_app(database, **settings)
        made.append(app)
        return app

    yield make
    for app in made:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


@pytest.fixture
def app(app_factory: Callable[..., Flask]) -> Flask:
    return app_factory()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def with_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """This server can learn (the train extra is there); whether the test machine has torch does not matter."""
    monkeypatch.setattr(deck_routes, "training_missing", lambda: None)


def post_check(client: FlaskClient, data: bytes, cards: str, **headers: str) -> Any:
    return client.post(
        "/decks/check", data={"photo": (io.BytesIO(data), "photo.jpg"), "cards": cards}, headers=headers
    )


def post_teach(
    client: FlaskClient,
    name: str,
    shots: Sequence[tuple[bytes, str]],
    headers: dict[str, str] | None = None,
    **fields: str,
) -> Any:
    return client.post(
        "/decks/teach",
        headers=headers,
        data={
            "name": name,
            "photo": [(io.BytesIO(b), f"photo-{i}.jpg") for i, (b, _) in enumerate(shots)],
            "cards": [c for _, c in shots],
            **fields,
        },
    )


def make_deck(decks: Path, name: str, **meta: Any) -> Path:
    """A taught deck as ``vision.teach`` leaves it: the models the camera reads (here the shipped ones) and its
    deck.json."""
    folder = decks / name
    folder.mkdir(parents=True)
    for model in MODELS.glob("*.onnx"):
        shutil.copy(model, folder / model.name)
    deck = {
        "name": name,
        "cards": ["R1", "R2", "R3"],
        "taught_at": "2026-12-10T20:15:00+0100",
        "trained_from": {"photos": [{"sha256": "0" * 64, "cards": ["R1", "R2", "R3"]}]},
        **meta,
    }
    (folder / "deck.json").write_text(json.dumps(deck))
    return folder


def fake_teach(
    decks: Path,
    name: str,
    photos: Sequence[tuple[bytes, str]],
    *,
    minutes: float,
    progress: Callable[[str, int, int], None],
    threads: int,
    kept: Path | None = None,
    keep_detector: bool | None = None,
) -> Path:
    """Stands in for ``vision.teach.teach`` in the teaching process: cuts the photos it was handed as the real
    run does (so they must have arrived whole), or with none takes the cards of the deck taught before; finds
    the kept photos read with the deck as the real run does, reports the real run's stages, and waits for the
    test to let it finish (``release``) or fail (``fail``); the deck it leaves holds the shipped models. Left to
    decide (``keep_detector`` None), it decides as the real run does on a machine too slow to teach the detector
    enough."""
    examples = vision.kept_photos(kept, name) if kept is not None else []
    if photos:
        cards = sorted({str(c) for c in vision.read_photos(photos, progress).faces})
        shown = [{"sha256": "1" * 64} for _ in photos]
    else:
        before = vision.read_deck(decks / name)
        cards, shown = before["cards"], before["trained_from"]["photos"]
        if not examples:
            raise vision.TeachingError(vision.Problem.NOTHING_KEPT, "nothing kept", name=name)
        progress("kept", len(examples), len(examples))
    progress("rendering", 1, 4)
    deadline = time.monotonic() + 60
    while not (decks / "release").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if (decks / "fail").exists():
        raise vision.TeachingError(vision.Problem.NO_CARDS, "photo 1: no cards found in the photo", photo=1)
    progress("rendering", 4, 4)
    progress("classifier", 30, 30)
    progress("detector", 12, 12)
    progress("saving", 2, 2)
    work = decks / f".{name}-work"
    shutil.rmtree(work, ignore_errors=True)
    folder = make_deck(
        work,
        name,
        cards=cards,
        trained_from={"photos": shown, "kept": [p.stem for p, _ in examples]},
        figures={
            "total_seconds": 61.0,
            "classifier": {"val_card_accuracy": 0.987},
            # As the real run records it: a kept detector has no validation of its own.
            "detector": {
                True: {"taught": False},
                False: {"taught": True, "val_map50": 0.91},
                None: {"taught": False, "batches": 5, "of_batches": 300, "projected_batches": 40}
                | {"fewest_batches": 100},
            }[keep_detector],
        },
    )
    # As vision.teach.teach ends: a deck taught before under this name is swapped for the new one only now.
    final = decks / name
    if final.exists():
        old = decks / f".{name}-old"
        os.replace(final, old)
        shutil.rmtree(old)
    os.replace(folder, final)
    shutil.rmtree(work)
    return final


def wait_for(
    client: FlaskClient, states: Sequence[str], stage: str | None = None, seconds: float = 60
) -> dict[str, Any]:
    """Poll the teaching status as the page does, until it reaches one of ``states`` (and ``stage``)."""
    deadline = time.monotonic() + seconds
    while True:
        body: dict[str, Any] = client.get("/decks/teaching").json
        reached = body["state"] in states and (stage is None or body.get("stage") == stage)
        if reached or body["state"] in ("done", "failed") or time.monotonic() > deadline:
            return body
        time.sleep(0.1)


# --------------------------------------------------------------------------------------------- the pages


def test_the_walkthrough_names_five_photos_each_with_the_phone_camera(client, with_training):
    page = client.get("/decks/teach").get_data(as_text=True)
    assert page.count('class="card deck-step"') == 5
    # Phones on the table's Wi-Fi use plain http: the file input with the camera is all they are offered.
    assert page.count('accept="image/*" capture="environment"') == 5
    assert "Lay out the 12 red cards, 1 to 12, face up and upright, in two rows" in page
    assert "Lay out the 8 Wilds and the 4 Skips" in page
    assert f'value="{RED}"' in page and 'value="W W W W W W W W S S S S"' in page
    assert 'id="deck-start"' in page and "deck-needs-training" not in page
    # Data reaches the script through tojson, never inline code.
    assert '<script type="application/json" id="deck-script">' in page
    assert '"long_side": 2000' in page


def test_the_nav_and_the_referee_page_link_to_your_deck(client):
    home = client.get("/").get_data(as_text=True)
    assert 'href="/decks/"' in home
    referee = client.get("/referee/").get_data(as_text=True)
    assert 'href="/decks/"' in referee and "The camera reads with its own models." in referee
    game = ApiGame(client, {"players": ["Ana", "Ben"]})
    from_game = client.get(f"/referee/?game={game.id}").get_data(as_text=True)
    assert f'href="/decks/games/{game.id}"' in from_game


def test_without_the_train_extra_photos_are_still_checked_and_the_page_says_what_to_install(
    client, monkeypatch
):
    monkeypatch.setattr(deck_routes, "training_missing", lambda: "torch")
    page = client.get("/decks/teach").get_data(as_text=True)
    assert "pip install -e &#39;.[train]&#39;" in page and "phase10 deck teach" in page
    assert 'id="deck-start"' not in page
    data, cards = photos()[0]
    assert post_check(client, data, cards).json["cards"] == 12
    refused = post_teach(client, "ours", [(data, cards)])
    assert refused.status_code == 503 and refused.json["code"] == "needs-training"
    assert "train" in refused.json["error"]


def test_the_decks_page_lists_taught_decks_with_their_figures_and_the_default(client, decks):
    assert "No deck has been taught on this server yet" in client.get("/decks/").get_data(as_text=True)
    make_deck(decks, "kitchen", figures={"total_seconds": 840.0, "detector": {"val_map50": 0.912}})
    make_deck(decks, "cabin")
    page = client.get("/decks/").get_data(as_text=True)
    assert "kitchen" in page and "cabin" in page and "3 cards taught" in page and "from 1 photo" in page
    assert "learnt in 14 min" in page and "0.91" in page
    assert "read with by default" not in page
    answer = client.post("/decks/default", data={"deck": "kitchen"})
    assert answer.status_code == 302
    assert json.loads((decks / "default.json").read_text()) == {"deck": "kitchen"}
    assert "read with by default" in client.get("/decks/").get_data(as_text=True)


@pytest.mark.parametrize("deck", ["nosuch", "../kitchen", "default.json", ".teaching"])
def test_only_a_listed_deck_can_become_the_servers_default(client, decks, deck):
    make_deck(decks, "kitchen")
    client.post("/decks/default", data={"deck": "kitchen"})
    answer = client.post("/decks/default", data={"deck": deck})
    assert answer.status_code == 400 and "nothing was changed" in answer.get_data(as_text=True)
    assert json.loads((decks / "default.json").read_text()) == {"deck": "kitchen"}


def test_the_servers_default_needs_the_pages_csrf_token(app_factory, decks):
    client = app_factory(WTF_CSRF_ENABLED=True).test_client()
    make_deck(decks, "kitchen")
    assert client.post("/decks/default", data={"deck": "kitchen"}).status_code == 400
    assert not (decks / "default.json").exists()


# --------------------------------------------------------------------------------------------- checking photos


@pytest.mark.parametrize("step", range(5))
def test_a_rendered_teaching_photo_is_checked_and_answers_its_count(client, step):
    data, cards = photos()[step]
    answer = post_check(client, data, cards)
    assert answer.status_code == 200, answer.json
    assert answer.json["cards"] == 12 and "12 cards found" in answer.json["message"]


def test_a_wrong_list_answers_the_count_mismatch_with_both_counts_in_the_pages_language(client):
    data, _ = photos()[0]
    answer = post_check(client, data, "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11")
    assert answer.status_code == 422 and answer.json["code"] == "count-mismatch"
    assert answer.json["error"].startswith("The photo shows 12 cards, the list names 11:")
    german = post_check(client, data, "R1 R2", **{"Accept-Language": "de"})
    assert german.json["code"] == "count-mismatch"
    assert "12" in german.json["error"] and "2" in german.json["error"] and "Foto" in german.json["error"]


@pytest.mark.parametrize(
    ("data", "cards", "code"),
    [
        (b"this is not a photo", RED, "not-a-photo"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 64, RED, "not-a-photo"),
        (None, "R1 X99", "bad-cards"),
        (None, "", "bad-cards"),
        (None, " ".join(["W"] * 30), "bad-cards"),
    ],
)
def test_what_cannot_be_checked_is_a_400_with_its_code(client, data, cards, code):
    answer = post_check(client, data if data is not None else photos()[0][0], cards)
    assert answer.status_code == 400 and answer.json["code"] == code and answer.json["error"]


def test_a_photo_over_the_apps_limit_is_a_413_and_no_photo_a_400(app_factory):
    client = app_factory(PHOTO_MAX_BYTES=100_000).test_client()
    data, cards = photos()[0]
    assert post_check(client, data, cards).status_code == 413
    missing = client.post("/decks/check", data={"cards": RED})
    assert missing.status_code == 400 and missing.json["field"] == "photo"


# --------------------------------------------------------------------------------------------- teaching


def test_a_teaching_run_goes_on_in_its_own_process_and_reports_its_progress(client, decks, with_training):
    shots = photos()[:2]
    started = post_teach(client, "kitchen", shots)
    assert started.status_code == 202, started.json
    assert started.json["state"] == "starting" and started.json["name"] == "kitchen"
    running = wait_for(client, ["running"])
    assert running["state"] == "running" and running["stage_label"]
    # The web server answers while the run goes on, and refuses a second run.
    assert client.get("/decks/").status_code == 200
    second = post_teach(client, "cabin", shots[:1])
    assert second.status_code == 409 and second.json["code"] == "teaching-busy"
    assert "kitchen" in second.json["error"]
    # The progress is a file any server process can read; the lock is held by the teaching process alone.
    progress = json.loads((decks / teaching.PROGRESS_FILE).read_text())
    assert progress["state"] == "running" and progress["pid"] != os.getpid()
    rendering = wait_for(client, ["running"], stage="rendering")
    assert rendering["stage"] == "rendering" and (rendering["done"], rendering["total"]) == (1, 4)
    (decks / "release").touch()
    done = wait_for(client, ["done", "failed"])
    assert done["state"] == "done" and done["deck"] == "kitchen", done
    page = client.get("/decks/").get_data(as_text=True)
    assert "kitchen" in page and "24 cards taught" in page and "98.7" in page
    # The photos are gone once learnt from; the next run may start.
    assert not list((decks / teaching.JOB_DIR).glob("photo-*"))
    (decks / "release").unlink()
    assert post_teach(client, "cabin", shots[:1]).status_code == 202
    (decks / "release").touch()
    assert wait_for(client, ["done", "failed"])["state"] == "done"


def test_a_server_set_to_keep_the_detector_teaches_the_classifier_alone(
    app_factory, decks, with_training, monkeypatch
):
    # On a slow server a detector taught in the minutes given can read a deck worse than the one it started
    # from (models/MODEL_CARD.md, "On a slower machine"): its operator sets PHASE10_DECK_KEEP_DETECTOR=1 to keep
    # it always, or 0 to teach it always; unset, each run decides by its pace.
    monkeypatch.setenv(KEEP_DETECTOR_VARIABLE, "1")
    client = app_factory().test_client()
    assert post_teach(client, "kitchen", photos()[:1]).status_code == 202
    (decks / "release").touch()
    assert wait_for(client, ["done", "failed"])["state"] == "done"
    assert vision.read_deck(decks / "kitchen")["figures"]["detector"] == {"taught": False}
    page = client.get("/decks/").get_data(as_text=True)
    assert "finds cards as the models it started from do" in page and "mAP50" not in page
    assert "too little time" not in page
    # Set to 0, the detector learns too, and the page says nothing of keeping it.
    monkeypatch.setenv(KEEP_DETECTOR_VARIABLE, "0")
    client = app_factory().test_client()
    assert post_teach(client, "kitchen", photos()[:1], replace="1").status_code == 202
    assert wait_for(client, ["done", "failed"])["state"] == "done"
    assert vision.read_deck(decks / "kitchen")["figures"]["detector"]["taught"] is True
    page = client.get("/decks/").get_data(as_text=True)
    assert "finds cards as the models it started from do" not in page and "mAP50" in page


def test_a_server_left_to_decide_keeps_the_detector_it_has_too_little_time_for_and_says_so(
    app_factory, decks, with_training, monkeypatch
):
    # Unset, the run is left to decide (the fake decides as a slow server's run does), and the decks page says
    # why the deck's detector was kept and how much of it there was time for.
    monkeypatch.delenv(KEEP_DETECTOR_VARIABLE, raising=False)
    client = app_factory().test_client()
    assert post_teach(client, "kitchen", photos()[:1]).status_code == 202
    (decks / "release").touch()
    assert wait_for(client, ["done", "failed"])["state"] == "done"
    spec = json.loads((decks / teaching.JOB_DIR / teaching.SPEC_FILE).read_text())
    assert spec["keep_detector"] is None
    page = client.get("/decks/").get_data(as_text=True)
    assert "finds cards as the models it started from do" in page
    assert "too little time on this server to teach it: 40 of the 100 training batches it needs" in page
    page = client.get("/decks/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "zu wenig Zeit auf diesem Server, um es anzulernen: 40 der 100 Trainingsschritte" in page


@pytest.mark.parametrize("lang", ["en", "de", "ro"])
def test_every_refusal_of_a_teaching_photo_has_its_own_sentence_in_each_language(app, lang):
    # Issue 17: the page words a refusal from its code, so a code without a sentence of its own would reach a
    # German or Romanian player in English (and one without a place as a sentence with a hole).
    from flask_babel import force_locale

    from companion.decks import words

    with app.test_request_context(), force_locale(lang):
        for problem in vision.Problem:
            sentence = words.problem(problem.value, "UNWORDED", found=3, named=4, name="kitchen", place=None)
            assert sentence != "UNWORDED" and "%(" not in sentence, problem


def test_a_failed_run_says_which_photo_and_why_in_the_pages_language(client, decks, with_training):
    (decks).mkdir()
    (decks / "fail").touch()
    (decks / "release").touch()
    assert post_teach(client, "kitchen", photos()[:1]).status_code == 202
    failed = wait_for(client, ["done", "failed"])
    assert failed["state"] == "failed" and failed["code"] == "no-cards"
    assert failed["error"].startswith("Photo 1: No cards found in the photo")
    assert not (decks / "kitchen").exists()


def test_a_run_that_died_reads_as_stopped_and_frees_the_server(client, decks, with_training):
    decks.mkdir()
    teaching.ProgressFile(decks, {"job": "x", "name": "kitchen", "started_at": time.time()}).write(
        state="running", stage="detector", done=3, total=10
    )
    stopped = client.get("/decks/teaching").json
    assert stopped["state"] == "failed" and stopped["code"] == "stopped" and "stopped" in stopped["error"]
    (decks / "release").touch()
    assert post_teach(client, "kitchen", photos()[:1]).status_code == 202
    assert wait_for(client, ["done", "failed"])["state"] == "done"


@pytest.mark.parametrize(
    ("name", "shots", "status", "code"),
    [
        ("../up", 1, 400, "bad-name"),
        ("", 1, 400, "bad-name"),
        ("x" * 41, 1, 400, "bad-name"),
        ("kitchen", 0, 400, "no-photos"),
        ("kitchen", 11, 400, "too-many-photos"),
    ],
)
def test_hostile_teaching_requests_are_refused_and_start_nothing(
    client, decks, with_training, name, shots, status, code
):
    data, cards = photos()[0]
    answer = post_teach(client, name, [(data, cards)] * shots)
    assert answer.status_code == status and answer.json["code"] == code, answer.json
    assert client.get("/decks/teaching").json == {"state": "idle"}


def test_a_photo_that_does_not_pass_its_check_starts_no_run_and_names_its_step(client, decks, with_training):
    (data, cards), (other, _) = photos()[:2]
    answer = post_teach(client, "kitchen", [(data, cards), (other, "R1 R2")])
    assert answer.status_code == 422 and answer.json["code"] == "count-mismatch" and answer.json["photo"] == 2
    bad = post_teach(client, "kitchen", [(b"GIF89a not this", cards)])
    assert bad.status_code == 400 and bad.json["code"] == "not-a-photo" and bad.json["photo"] == 1
    assert client.get("/decks/teaching").json == {"state": "idle"}


@pytest.mark.parametrize("replace", [None, "", "0", "yes", "on"])
def test_a_deck_name_taken_already_is_a_409_unless_the_replace_box_is_ticked(
    client, decks, with_training, replace
):
    make_deck(decks, "kitchen")
    fields = {} if replace is None else {"replace": replace}
    answer = post_teach(client, "kitchen", photos()[:1], **fields)
    assert answer.status_code == 409 and answer.json["code"] == "deck-exists"
    assert "Replace the deck kitchen" in answer.json["error"]
    assert client.get("/decks/teaching").json == {"state": "idle"}
    german = post_teach(client, "kitchen", photos()[:1], {"Accept-Language": "de"}, **fields)
    assert german.status_code == 409 and "„Das Deck kitchen ersetzen“" in german.json["error"]


def test_the_walkthrough_knows_the_names_taken_and_offers_to_replace_a_deck(client, decks, with_training):
    make_deck(decks, "kitchen")
    page = client.get("/decks/teach").get_data(as_text=True)
    script = json.loads(page.split('id="deck-script">', 1)[1].split("</script>", 1)[0])
    assert script["taken"] == ["kitchen"] and script["words"]["replace"] == "Replace the deck {name}"
    # Hidden until the name typed is a taken one (static/decks.js); its value is the one the server takes.
    assert '<div id="deck-replace" hidden>' in page
    assert 'name="replace" value="1"' in page


def test_teaching_again_with_the_box_ticked_replaces_the_deck_once_the_new_one_is_ready(
    client, decks, with_training
):
    make_deck(decks, "kitchen")
    client.post("/decks/default", data={"deck": "kitchen"})
    started = post_teach(client, "kitchen", photos()[:1], replace="1")
    assert started.status_code == 202, started.json
    wait_for(client, ["running"], stage="rendering")
    # Until the new deck is ready the old one is there whole, listed, and read with.
    page = client.get("/decks/").get_data(as_text=True)
    assert "3 cards taught" in page and "read with by default" in page
    assert json.loads((decks / "kitchen" / "deck.json").read_text())["cards"] == ["R1", "R2", "R3"]
    (decks / "release").touch()
    done = wait_for(client, ["done", "failed"])
    assert done["state"] == "done" and done["deck"] == "kitchen", done
    page = client.get("/decks/").get_data(as_text=True)
    assert "12 cards taught" in page and "3 cards taught" not in page and "read with by default" in page
    assert [p.name for p in decks.iterdir() if p.name.startswith(".kitchen")] == []


def test_a_replacing_run_that_fails_leaves_the_old_deck(client, decks, with_training):
    make_deck(decks, "kitchen")
    (decks / "fail").touch()
    (decks / "release").touch()
    assert post_teach(client, "kitchen", photos()[:1], replace="1").status_code == 202
    assert wait_for(client, ["done", "failed"])["state"] == "failed"
    assert json.loads((decks / "kitchen" / "deck.json").read_text())["cards"] == ["R1", "R2", "R3"]
    assert "3 cards taught" in client.get("/decks/").get_data(as_text=True)


def test_teaching_needs_the_pages_csrf_token(app_factory, with_training):
    client = app_factory(WTF_CSRF_ENABLED=True).test_client()
    assert post_teach(client, "kitchen", photos()[:1]).status_code == 400
    assert client.get("/decks/teaching").json == {"state": "idle"}


# --------------------------------------------------------------------------------------------- using a deck


def _editor(client: FlaskClient) -> ApiGame:
    game = ApiGame(client, {"players": ["Ana", "Ben"]})
    client.set_cookie(cookie_name(game.id), game.token)
    return game


def _camera_deck(app: Flask, game_id: str) -> str | None:
    with app.app_context():
        deck: str | None = db.session.get(Game, game_id).camera_deck
        return deck


def test_only_a_games_editor_chooses_its_deck(app, decks):
    make_deck(decks, "kitchen")
    editor = app.test_client()
    game = _editor(editor)
    stranger = app.test_client()
    page = stranger.get(f"/decks/games/{game.id}").get_data(as_text=True)
    assert "Only devices with this game's edit link can choose its deck." in page
    assert stranger.post(f"/decks/games/{game.id}", data={"deck": "kitchen"}).status_code == 403
    assert _camera_deck(app, game.id) is None
    assert 'name="deck"' in editor.get(f"/decks/games/{game.id}").get_data(as_text=True)
    assert editor.post(f"/decks/games/{game.id}", data={"deck": "nosuch"}).status_code == 400
    assert editor.post(f"/decks/games/{game.id}", data={"deck": "kitchen"}).status_code == 302
    assert _camera_deck(app, game.id) == "kitchen"
    assert "with the deck kitchen" in editor.get(f"/decks/games/{game.id}").get_data(as_text=True)
    assert editor.post(f"/decks/games/{game.id}", data={"deck": ""}).status_code == 302
    assert _camera_deck(app, game.id) is None
    assert editor.get("/decks/games/nosuchgame00").status_code == 404


def _hand(client: FlaskClient, game: str | None = None, lang: str | None = None) -> Any:
    data, _ = photos()[0]
    form: dict[str, Any] = {"photo": (io.BytesIO(data), "hand.jpg"), "rules": "standard"}
    if game:
        form["game"] = game
    if lang:
        form["lang"] = lang
    return client.post("/api/hand", data=form)


needs_model = pytest.mark.skipif(
    not (MODELS / "card-index.onnx").exists(), reason="the shipped card model is not in models/"
)


@needs_model
def test_the_referee_reads_a_games_photos_with_its_deck_and_falls_back_when_it_is_removed(app, decks):
    from vision import detector

    folder = make_deck(decks, "kitchen")
    client = app.test_client()
    game = _editor(client)
    client.post(f"/decks/games/{game.id}", data={"deck": "kitchen"})
    read = _hand(client, game.id)
    assert read.status_code == 200 and read.json["deck"] == "kitchen" and "deck_note" not in read.json
    # The camera read with the models in the deck's folder.
    assert any(key[1] == str(folder) for key in detector._other)
    assert len(read.json["cards"]) >= 10
    # A photo from no game, or another game, reads with the shipped models.
    assert _hand(client).json["deck"] is None
    other = ApiGame(client, {"players": ["Cy", "Dee"]})
    assert _hand(client, other.id).json["deck"] is None
    checked = client.post(
        "/api/check",
        data={
            "photo": (io.BytesIO(photos()[0][0]), "p.jpg"),
            "phase": "4",
            "rules": "standard",
            "game": game.id,
        },
    )
    assert checked.json["deck"] == "kitchen", checked.json
    shutil.rmtree(folder)
    gone = _hand(client, game.id, lang="ro")
    assert gone.status_code == 200 and gone.json["deck"] is None
    assert "kitchen" in gone.json["deck_note"] and "own models" in gone.json["deck_note"]
    assert (
        "kitchen" in gone.json["shown"]["deck_note"]
        and gone.json["shown"]["deck_note"] != gone.json["deck_note"]
    )
    page = client.get(f"/referee/?game={game.id}").get_data(as_text=True)
    assert "The deck kitchen is no longer on this server" in page
    assert _hand(client, "nosuchgame00").status_code == 404


@needs_model
def test_the_servers_default_deck_reads_every_game_that_chose_none(app, decks):
    make_deck(decks, "kitchen")
    client = app.test_client()
    client.post("/decks/default", data={"deck": "kitchen"})
    assert _hand(client).json["deck"] == "kitchen"
    game = ApiGame(client, {"players": ["Ana", "Ben"]})
    assert _hand(client, game.id).json["deck"] == "kitchen"
    assert "The camera reads with the deck kitchen." in client.get("/referee/").get_data(as_text=True)
    client.post("/decks/default", data={"deck": ""})
    assert not (decks / "default.json").exists()
    assert _hand(client).json["deck"] is None


def test_the_migration_adds_and_drops_the_games_deck_column(database, tmp_path):
    if not database.startswith("sqlite"):
        pytest.skip("downgrading is checked on SQLite; PostgreSQL runs the upgrade for every test")
    from flask_migrate import downgrade, upgrade
    from sqlalchemy import inspect

    app = make_app(database)
    with app.app_context():
        downgrade(revision="0004_round_counters")
        assert "camera_deck" not in {c["name"] for c in inspect(db.engine).get_columns("games")}
        upgrade()
        assert "camera_deck" in {c["name"] for c in inspect(db.engine).get_columns("games")}
        db.engine.dispose()


# --------------------------------------------------------------------------------------------- removing a deck


def test_a_deck_is_removed_from_the_page_once_the_removal_is_confirmed(client, decks):
    make_deck(decks, "kitchen")
    make_deck(decks, "cabin")
    page = client.get("/decks/").get_data(as_text=True)
    assert 'href="/decks/remove/kitchen" aria-label="Remove the deck kitchen"' in page
    assert "phase10 deck remove" not in page
    # The confirmation is a page of its own: it works without script, and opening it changes nothing.
    confirm = client.get("/decks/remove/kitchen")
    assert confirm.status_code == 200
    html = confirm.get_data(as_text=True)
    assert '<form method="post" action="/decks/remove/kitchen"' in html and 'name="csrf_token"' in html
    assert "Yes, remove the deck kitchen" in html and "Its models are deleted from this server" in html
    assert "by default" not in html and "chose this deck" not in html
    assert (decks / "kitchen" / "deck.json").exists()
    removed = client.post("/decks/remove/kitchen")
    assert removed.status_code == 302 and removed.headers["Location"] == "/decks/"
    assert not (decks / "kitchen").exists() and (decks / "cabin" / "deck.json").exists()
    # Moved aside, then deleted: nothing of it is left beside the decks (the lock file stays, as after a run).
    assert sorted(p.name for p in decks.iterdir()) == [teaching.LOCK_FILE, "cabin"]
    after = client.get("/decks/").get_data(as_text=True)
    assert '<p class="flash" role="status">The deck kitchen was removed.</p>' in after
    assert "<strong>kitchen</strong>" not in after and "<strong>cabin</strong>" in after
    assert client.get("/decks/remove/kitchen").status_code == 404
    assert client.post("/decks/remove/kitchen").status_code == 404


def test_removing_the_servers_deck_and_a_games_deck_falls_back_to_the_shipped_models_and_says_so(app, decks):
    make_deck(decks, "kitchen")
    make_deck(decks, "cabin")
    client = app.test_client()
    game = _editor(client)
    client.post(f"/decks/games/{game.id}", data={"deck": "kitchen"})
    client.post("/decks/default", data={"deck": "kitchen"})
    confirm = client.get("/decks/remove/kitchen").get_data(as_text=True)
    assert "This server reads every game's photos with it by default" in confirm
    assert "1 game chose this deck: it will read its photos with the camera's own models" in confirm
    german = client.get("/decks/remove/kitchen", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Ja, das Deck kitchen entfernen" in german and "1 Spiel hat dieses Deck gewählt" in german

    client.post("/decks/remove/kitchen")
    flash = client.get("/decks/").get_data(as_text=True)
    assert (
        "The deck kitchen was removed. The camera now reads photos with its own models. 1 game that chose it "
        "now reads its photos with the camera&#39;s own models."
    ) in flash
    # The server's choice is the page's own: it goes back to the shipped models, with nothing left pointing at
    # the removed deck. A game's choice is its editors': it keeps the name and reads with the shipped models.
    assert not (decks / "default.json").exists()
    assert _camera_deck(app, game.id) == "kitchen"
    game_page = client.get(f"/decks/games/{game.id}").get_data(as_text=True)
    assert "The deck kitchen is no longer on this server: the camera reads with its own models." in game_page
    assert "The camera reads this game's photos with its own models." in game_page


def test_removing_another_deck_leaves_the_servers_deck_alone(client, decks):
    make_deck(decks, "kitchen")
    make_deck(decks, "cabin")
    client.post("/decks/default", data={"deck": "cabin"})
    assert client.post("/decks/remove/kitchen").status_code == 302
    assert json.loads((decks / "default.json").read_text()) == {"deck": "cabin"}
    page = client.get("/decks/").get_data(as_text=True)
    assert (
        "The deck kitchen was removed." in page
        and "The camera now reads photos with its own models" not in page
    )


@pytest.mark.parametrize(
    "name",
    [
        "nosuch",
        "notadeck",
        ".hidden",
        "..",
        "default.json",
        ".teaching",
        ".teaching.lock",
        "x" * 41,
        "..%2Fvictim",
        "%2e%2e%2fvictim",
        "../victim",
        "kitchen%00",
        "kitchen/",
        "Kitchen",
    ],
)
def test_a_name_that_is_not_a_listed_deck_removes_nothing(client, decks, tmp_path, name):
    make_deck(decks, "kitchen")
    make_deck(decks, ".hidden")  # a deck's files under a name no deck can have
    (decks / "notadeck").mkdir()  # a folder with no deck.json
    make_deck(tmp_path, "victim")  # beside the decks folder, where ".." would lead
    client.post("/decks/default", data={"deck": "kitchen"})
    teaching.ProgressFile(decks, {"job": "x", "name": "kitchen"}).write(state="done")
    (decks / teaching.LOCK_FILE).touch()
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    for answer in (client.get(f"/decks/remove/{name}"), client.post(f"/decks/remove/{name}")):
        assert answer.status_code in (404, 405), (name, answer.status_code)
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == before
    assert json.loads((decks / "default.json").read_text()) == {"deck": "kitchen"}
    # The listed deck beside them is the one that can be removed.
    assert client.get("/decks/remove/kitchen").status_code == 200


def test_a_removal_needs_the_pages_csrf_token(app_factory, decks):
    client = app_factory(WTF_CSRF_ENABLED=True).test_client()
    make_deck(decks, "kitchen")
    answer = client.post("/decks/remove/kitchen")
    assert answer.status_code == 400 and "This form has expired" in answer.get_data(as_text=True)
    assert (decks / "kitchen" / "deck.json").exists()
    # With the token the confirmation page carries, it goes through.
    page = client.get("/decks/remove/kitchen").get_data(as_text=True)
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    assert client.post("/decks/remove/kitchen", data={"csrf_token": token}).status_code == 302
    assert not (decks / "kitchen").exists()


def test_a_deck_being_learnt_again_cannot_be_removed_until_the_run_ends(client, decks, with_training):
    make_deck(decks, "kitchen")
    make_deck(decks, "cabin")
    assert post_teach(client, "kitchen", photos()[:1], replace="1").status_code == 202
    wait_for(client, ["running"], stage="rendering")
    confirm = client.get("/decks/remove/kitchen")
    html = confirm.get_data(as_text=True)
    assert confirm.status_code == 200
    assert "The deck kitchen is being learnt again right now: it can be removed once that is done." in html
    assert 'action="/decks/remove/kitchen"' not in html
    refused = client.post("/decks/remove/kitchen")
    assert refused.status_code == 409
    assert "The deck kitchen is being learnt again right now" in refused.get_data(as_text=True)
    assert json.loads((decks / "kitchen" / "deck.json").read_text())["cards"] == ["R1", "R2", "R3"]
    # Another deck is not the one being learnt: it goes.
    assert client.post("/decks/remove/cabin").status_code == 302 and not (decks / "cabin").exists()
    (decks / "release").touch()
    assert wait_for(client, ["done", "failed"])["state"] == "done"
    assert client.post("/decks/remove/kitchen").status_code == 302 and not (decks / "kitchen").exists()


def test_while_a_deck_is_removed_no_teaching_run_can_start(decks):
    decks.mkdir()
    with teaching.no_new_run(decks) as now:
        assert now is None
        # What start() and every server process test: the lock is taken.
        assert teaching.running(decks)
    assert not teaching.running(decks)


# --------------------------------------------------------------------------------------------- kept photos


def keep_photo(kept: Path, stem: str, deck: str | None) -> None:
    """A corrected photo as ``companion.referee.training.keep`` stores it, read with ``deck``."""
    import numpy as np

    from companion.rules import Card
    from vision.train import write_extra_example

    image = np.full((300, 400, 3), 200, np.uint8)
    write_extra_example(kept, stem, image, [(Card.parse("R7"), (20, 30, 60, 90))])
    (kept / "meta").mkdir(parents=True, exist_ok=True)
    (kept / "meta" / f"{stem}.json").write_text(json.dumps({"deck": deck, "cards": [{"card": "R7"}]}))


def test_photos_kept_with_a_deck_are_counted_under_it_and_a_run_learns_it_again_from_them(
    client, decks, kept, with_training
):
    """Issue 17, part 3: "Confirmed photos kept for training (issue 5's feature) feed the deck too"."""
    make_deck(decks, "kitchen")
    make_deck(decks, "cabin")
    keep_photo(kept, "g1-a", "kitchen")
    keep_photo(kept, "g1-b", "kitchen")
    keep_photo(kept, "g2-a", None)  # read with the camera's own models: no deck learns from it
    page = client.get("/decks/").get_data(as_text=True)
    assert "2 photos read with it were corrected and kept for training" in page
    assert page.count("kept for training") == 1  # cabin read none of them
    assert '<form method="post" action="/decks/improve/kitchen">' in page
    assert 'action="/decks/improve/cabin"' not in page
    started = client.post("/decks/improve/kitchen")
    assert started.status_code == 302 and started.headers["Location"] == "/decks/"
    shown = client.get("/decks/").get_data(as_text=True)
    assert "The deck kitchen is being learnt again; it reads photos as before until then." in shown
    assert "A deck is being learnt now: kitchen" in shown and 'action="/decks/improve/' not in shown
    assert wait_for(client, ["running"], stage="rendering")["name"] == "kitchen"
    # Until the new deck is ready, the old one reads photos.
    assert vision.read_deck(decks / "kitchen")["trained_from"].get("kept") is None
    (decks / "release").touch()
    done = wait_for(client, ["done", "failed"])
    assert done["state"] == "done" and done["deck"] == "kitchen", done
    meta = vision.read_deck(decks / "kitchen")
    assert sorted(meta["trained_from"]["kept"]) == ["g1-a", "g1-b"]
    assert meta["cards"] == ["R1", "R2", "R3"] and len(meta["trained_from"]["photos"]) == 1
    page = client.get("/decks/").get_data(as_text=True)
    assert "2 photos read with it were corrected and kept for training · it has learnt from them all" in page
    assert "/decks/improve/kitchen" not in page
    keep_photo(kept, "g1-c", "kitchen")
    page = client.get("/decks/").get_data(as_text=True)
    assert "3 photos read with it were corrected and kept for training · 1 not learnt from yet" in page
    assert 'action="/decks/improve/kitchen"' in page


def test_a_deck_with_no_kept_photos_is_not_learnt_again_and_nothing_starts(
    client, decks, kept, with_training
):
    make_deck(decks, "kitchen")
    keep_photo(kept, "g1-a", "cabin")
    refused = client.post("/decks/improve/kitchen")
    assert refused.status_code == 409
    assert "No photo read with the deck kitchen has been kept for training yet" in refused.get_data(
        as_text=True
    )
    assert teaching.status(decks)["state"] == "idle"
    assert client.post("/decks/improve/nothing").status_code == 404
    assert client.post("/decks/improve/..").status_code == 404
    assert teaching.status(decks)["state"] == "idle"


def test_learning_from_kept_photos_needs_the_train_extra_and_waits_for_a_run(
    app_factory, decks, kept, monkeypatch
):
    client = app_factory().test_client()
    make_deck(decks, "kitchen")
    keep_photo(kept, "g1-a", "kitchen")
    monkeypatch.setattr(deck_routes, "training_missing", lambda: "torch")
    page = client.get("/decks/").get_data(as_text=True)
    assert (
        "1 photo read with it was corrected and kept for training" in page and "/decks/improve/" not in page
    )
    refused = client.post("/decks/improve/kitchen")
    assert refused.status_code == 409 and "needs the train extra" in refused.get_data(as_text=True)
    monkeypatch.setattr(deck_routes, "training_missing", lambda: None)
    assert post_teach(client, "cabin", photos()[:1]).status_code == 202
    busy = client.post("/decks/improve/kitchen")
    assert busy.status_code == 409 and "A deck is being learnt on this server now (cabin)" in busy.get_data(
        as_text=True
    )
    (decks / "release").touch()
    assert wait_for(client, ["done", "failed"])["state"] == "done"
    assert "kept" not in vision.read_deck(decks / "kitchen")["trained_from"]


def test_teaching_a_deck_again_from_new_photos_learns_from_its_kept_photos_too(
    client, decks, kept, with_training
):
    make_deck(decks, "kitchen")
    keep_photo(kept, "g1-a", "kitchen")
    keep_photo(kept, "g1-b", "cabin")
    assert post_teach(client, "kitchen", photos()[:1], replace="1").status_code == 202
    (decks / "release").touch()
    assert wait_for(client, ["done", "failed"])["state"] == "done"
    assert vision.read_deck(decks / "kitchen")["trained_from"]["kept"] == ["g1-a"]


def test_learning_from_kept_photos_needs_the_pages_csrf_token(app_factory, decks, kept, with_training):
    client = app_factory(WTF_CSRF_ENABLED=True).test_client()
    make_deck(decks, "kitchen")
    keep_photo(kept, "g1-a", "kitchen")
    answer = client.post("/decks/improve/kitchen")
    assert answer.status_code == 400 and "This form has expired" in answer.get_data(as_text=True)
    assert teaching.status(decks)["state"] == "idle"
    page = client.get("/decks/").get_data(as_text=True)
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    assert client.post("/decks/improve/kitchen", data={"csrf_token": token}).status_code == 302
    (decks / "release").touch()
    assert wait_for(client, ["done", "failed"])["state"] == "done"
