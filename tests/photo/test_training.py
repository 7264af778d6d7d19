"""Corrected photos become training data: kept only when allowed, labelled from the confirmed cards and boxes, in
the layout ``phase10 train --extra-data`` reads (checked with the trainer's own reader)."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

from tests.web.conftest import ApiGame
from vision.crops import CLASS_OF
from vision.train import read_extra

from .scenes import phase_photo, rotated_for_exif

CONFIRMED = [
    {"card": "R7", "box": [100, 80, 180, 190]},
    {"card": "W", "box": [400, 90, 470, 200]},
    {"card": "G12", "box": [600, 300, 690, 420]},
]


def _editor(client):
    """A game this client holds the edit secret of: photos are kept for a game, by its editors only."""
    game = ApiGame(client, {"players": ["Ana", "Ben"]})
    game.login()
    return game.id


def _keep(
    client,
    photo: bytes,
    *,
    width=1024,
    height=768,
    cards=CONFIRMED,
    allow="1",
    headers=None,
    game=...,
    turned=None,
):
    if game is ...:
        game = _editor(client)
    form = {
        "photo": (io.BytesIO(photo), "phase.jpg"),
        "width": str(width),
        "height": str(height),
        "cards": cards if isinstance(cards, str) else json.dumps(cards),
        "groups": json.dumps([["R7", "W"], ["G12"]]),
        "phase": "2",
    }
    if game is not None:
        form["game"] = game
    if turned is not None:
        form["turned"] = turned
    if allow:
        form["allow"] = allow
    return client.post(
        "/referee/training", data=form, content_type="multipart/form-data", headers=headers or {}
    )


def test_confirmed_photo_is_kept_with_yolo_labels_the_trainer_reads(client, tmp_path):
    answer = _keep(client, phase_photo("R7 B7 G7 | G3 Y4 W B6"))
    assert answer.status_code == 201, answer.json
    name = answer.json["kept"]
    root = tmp_path / "training"
    assert (root / "images" / f"{name}.jpg").exists() and (root / "meta" / f"{name}.json").exists()
    examples = read_extra(root)
    assert len(examples) == 1
    rows = examples[0][1]
    assert [c for c, _ in rows] == [CLASS_OF[_card(x["card"])] for x in CONFIRMED]
    for (_, box), item in zip(rows, CONFIRMED, strict=True):
        assert box == pytest.approx(item["box"], abs=1)
    assert json.loads((root / "meta" / f"{name}.json").read_text())["groups"] == [["R7", "W"], ["G12"]]


def test_a_large_photo_is_kept_at_a_reduced_size_with_its_boxes_scaled(client, tmp_path):
    answer = _keep(client, phase_photo("R7 B7 G7", size=(4200, 3000)), width=4200, height=3000)
    assert answer.status_code == 201, answer.json
    image, rows = read_extra(tmp_path / "training")[0]
    import cv2

    assert cv2.imread(str(image)).shape[:2] == (1500, 2100)
    assert rows[0][1] == pytest.approx([50, 40, 90, 95], abs=1)


def test_exif_orientation_is_applied_before_labelling(client, tmp_path):
    turned = rotated_for_exif(phase_photo("R7 B7 G7"))
    wrong = _keep(client, turned, width=768, height=1024)
    assert wrong.status_code == 400 and "1024x768" in wrong.json["error"]
    right = _keep(client, turned, width=1024, height=768)
    assert right.status_code == 201
    import cv2

    image, _rows = read_extra(tmp_path / "training")[0]
    assert cv2.imread(str(image)).shape[:2] == (768, 1024)


@pytest.mark.parametrize("turned", ["90", "180", "270"])
def test_a_photo_the_camera_read_turned_is_kept_turned_with_its_cards_upright(client, tmp_path, turned):
    """The camera reads a photo taken from across or beside the table turned (vision.detector.TURNS), and the
    page sends the turn back: the kept photo is stored turned so, each label on its index there, because the
    detector learns only upright indexes."""
    import cv2

    from vision.detector import turned as turned_image

    upright = cv2.imdecode(np.frombuffer(phase_photo("R7 B7 G7 | G3 Y4 W B6"), np.uint8), cv2.IMREAD_COLOR)
    back = {"90": 270, "180": 180, "270": 90}[turned]
    ok, jpeg = cv2.imencode(".jpg", turned_image(upright, back), [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    as_taken = turned_image(upright, back)
    h, w = as_taken.shape[:2]
    # The reading's boxes are in the photo as taken: the confirmed cards' boxes of the upright photo, turned back.
    from vision.detector import turned_box

    cards = [
        {"card": x["card"], "box": list(turned_box(tuple(x["box"]), back, 1024, 768))} for x in CONFIRMED
    ]
    answer = _keep(client, jpeg.tobytes(), width=w, height=h, cards=cards, turned=turned)
    assert answer.status_code == 201, answer.json
    image, rows = read_extra(tmp_path / "training")[0]
    kept = cv2.imread(str(image))
    assert kept.shape[:2] == (768, 1024)
    assert np.abs(kept.astype(int) - upright.astype(int)).mean() < 4  # the upright photo again, bar JPEG
    for (_, box), item in zip(rows, CONFIRMED, strict=True):
        assert box == pytest.approx(item["box"], abs=1)
    name = answer.json["kept"]
    assert json.loads((tmp_path / "training" / "meta" / f"{name}.json").read_text())["turned"] == int(turned)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"turned": "45"}, "0, 90, 180 or 270"),
        ({"turned": "<script>"}, "0, 90, 180 or 270"),
        ({"allow": None}, "only when you allow it"),
        ({"cards": [{"card": "R7"}]}, "without its place on the photo"),
        ({"cards": [{"card": "AH", "box": [1, 1, 40, 40]}]}, "Phase 10 cards only"),
        ({"cards": [{"card": "R7", "box": [2000, 2000, 2100, 2100]}]}, "outside the photo"),
        ({"cards": [{"card": "R7", "box": [1, 2, "x", 4]}]}, "four numbers"),
        ({"cards": "[{"}, "not valid JSON"),
        ({"cards": []}, "at least one card"),
        ({"width": "wide"}, "size is missing"),
    ],
)
def test_nothing_is_kept_from_a_bad_request(client, tmp_path, change, words):
    kwargs = {"allow": "1", "cards": CONFIRMED, "width": 1024}
    kwargs.update(change)
    answer = _keep(client, phase_photo("R7"), **kwargs)
    assert answer.status_code == 400 and words in answer.json["error"]
    assert not (tmp_path / "training" / "images").exists()


def test_not_a_photo_is_not_kept(client, tmp_path):
    answer = _keep(client, b"GIF89a not a photo")
    assert answer.status_code == 400 and "not a photo" in answer.json["error"]


def test_the_training_folder_has_a_limit(app_factory):
    client = app_factory(TRAINING_MAX_PHOTOS=1).test_client()
    assert _keep(client, phase_photo("R7")).status_code == 201
    full = _keep(client, phase_photo("R7"))
    assert full.status_code == 507 and "--extra-data" in full.json["error"]


def test_one_game_keeps_a_bounded_number_of_photos(app_factory, tmp_path):
    """Security review, finding 7: one device could fill the training folder; each game has its own cap."""
    client = app_factory(TRAINING_MAX_PER_GAME=2).test_client()
    game = _editor(client)
    assert [_keep(client, phase_photo("R7"), game=game).status_code for _ in range(2)] == [201, 201]
    capped = _keep(client, phase_photo("R7"), game=game)
    assert capped.status_code == 429 and "2 photos" in capped.json["error"]
    assert _keep(client, phase_photo("R7")).status_code == 201  # another game still may
    assert len(list((tmp_path / "training" / "images").glob("*.jpg"))) == 3


@pytest.mark.parametrize("who", ["nobody", "stranger", "unknown game"])
def test_only_a_games_editor_can_keep_training_photos(app, client, tmp_path, who):
    """Security review, finding 7: anonymous photos labelled at will poisoned ``--extra-data``; keeping one now
    needs the edit secret of a game (its cookie on the page, or its bearer token)."""
    game = ApiGame(client, {"players": ["Ana", "Ben"]})
    if who == "nobody":
        answer = _keep(client, phase_photo("R7"), game=None)
    elif who == "stranger":
        answer = _keep(client, phase_photo("R7"), game=game.id)
    else:
        answer = _keep(client, phase_photo("R7"), game="nosuchgame00")
    assert answer.status_code in (403, 404) and answer.json["field"] == "game"
    assert not (tmp_path / "training" / "images").exists()
    bearer = _keep(client, phase_photo("R7"), game=game.id, headers=game.auth)
    assert bearer.status_code == 201


def test_keeping_a_photo_needs_the_pages_csrf_token(app_factory):
    client = app_factory(WTF_CSRF_ENABLED=True).test_client()
    game = _editor(client)
    refused = _keep(client, phase_photo("R7"), game=game)
    assert refused.status_code == 400 and "expired" in refused.get_data(as_text=True)
    token = re.search(r'data-csrf="([^"]+)"', client.get("/referee/").get_data(as_text=True)).group(1)
    assert _keep(client, phase_photo("R7"), headers={"X-CSRFToken": token}, game=game).status_code == 201


def _card(text):
    from companion.rules import Card

    return Card.parse(text)


def test_a_kept_photo_names_the_deck_the_camera_read_it_with(app_factory, tmp_path):
    """Issue 17, part 3: kept photos feed the deck they were read with, so each one records it (``null``: the
    camera's own models), the game's own deck first, else the server's."""
    from tests.web.test_decks import make_deck

    decks = tmp_path / "decks"
    make_deck(decks, "kitchen")
    make_deck(decks, "cabin")
    client = app_factory(DECKS_FOLDER=str(decks)).test_client()
    meta = tmp_path / "training" / "meta"

    def kept_with() -> str | None:
        answer = _keep(client, phase_photo("R7 B7 G7"))
        assert answer.status_code == 201, answer.json
        return json.loads((meta / f"{answer.json['kept']}.json").read_text())["deck"]

    assert kept_with() is None
    assert client.post("/decks/default", data={"deck": "cabin"}).status_code == 302
    assert kept_with() == "cabin"
    game = _editor(client)
    assert client.post(f"/decks/games/{game}", data={"deck": "kitchen"}).status_code == 302
    answer = _keep(client, phase_photo("R7 B7 G7"), game=game)
    assert json.loads((meta / f"{answer.json['kept']}.json").read_text())["deck"] == "kitchen"
    assert answer.json["message"] == (
        "Thank you: the deck kitchen will learn from this photo when it learns from its kept photos on the decks "
        "page (3 kept)."
    )
