"""A rendered photo through ``POST /api/check`` with the shipped model: the right verdict, the same JSON as
``phase10 check --photo``, EXIF orientation applied, hits read from a photo, and one model per process."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from companion.cli import main as cli
from companion.rules import get_ruleset, parse_groups
from companion.rules.referee import check_phase

from .conftest import needs_model
from .scenes import phase_scene, rotated_for_exif

pytestmark = [needs_model, pytest.mark.slow]

PHASE_2 = "R7 B7 G7 | G3 Y4 W B6"


def _upload(client, photo: bytes, **fields):
    data = {"phase": "2", **fields, "photo": (io.BytesIO(photo), "phase.jpg")}
    return client.post("/api/check", data=data, content_type="multipart/form-data")


def _read_groups(body) -> str:
    return " | ".join(" ".join(body["cards"][k]["card"] for k in g) for g in body["detected"])


@pytest.mark.parametrize(
    ("text", "phase"), [(PHASE_2, 2), ("R7 B7 G7 | G3 Y4 R6 B7", 2), ("B5 R5 W | G8 Y8 W", 1)]
)
def test_001_rendered_photo_gets_the_verdict_of_its_cards(client, text, phase):
    jpeg, _truth = phase_scene(text, seed=3)
    answer = _upload(client, jpeg, phase=str(phase))
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert _read_groups(body) == text
    expected = check_phase(parse_groups(text), phase, get_ruleset()).to_dict()
    assert {k: body[k] for k in expected} == expected


def test_photo_answer_is_the_json_of_phase10_check_photo(client, tmp_path):
    jpeg, _truth = phase_scene(PHASE_2, seed=3)
    path = tmp_path / "phase.jpg"
    path.write_bytes(jpeg)
    out = io.StringIO()
    with redirect_stdout(out):
        status = cli(["check", "--photo", str(path), "--phase", "2", "--json"])
    printed = json.loads(out.getvalue())
    body = _upload(client, jpeg).json
    assert status == 0
    assert {k: body[k] for k in printed if k != "file"} == {k: v for k, v in printed.items() if k != "file"}
    assert body["file"] == "phase.jpg"


def test_exif_orientation_is_applied(client):
    jpeg, truth = phase_scene(PHASE_2, seed=3)
    body = _upload(client, rotated_for_exif(jpeg)).json
    assert (body["width"], body["height"]) == (1024, 768)
    assert _read_groups(body) == PHASE_2 and body["valid"] is True
    for card, (_c, box) in zip(body["cards"], truth, strict=True):
        x1, y1, x2, y2 = card["box"]
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        assert box[0] - 8 <= cx <= box[2] + 8 and box[1] - 8 <= cy <= box[3] + 8


@pytest.mark.parametrize("turn", [90, 180, 270])
def test_001_a_phase_photographed_from_across_or_beside_the_table_gets_its_verdict(client, turn):
    """The photo's pixels show the cards upside down or sideways and no EXIF tag says so (a phone held flat
    over the table): the camera reads it turned (vision.detector.TURNS), says how far, and keeps the boxes on
    the indexes of the photo as sent."""
    import cv2
    import numpy as np

    from vision.detector import turned, turned_box

    jpeg, truth = phase_scene(PHASE_2, seed=3)
    upright = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    back = (360 - turn) % 360
    ok, sent = cv2.imencode(".jpg", turned(upright, back), [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    body = _upload(client, sent.tobytes()).json
    assert body["turned"] == turn
    assert _read_groups(body) == PHASE_2 and body["valid"] is True
    for card, (_c, box) in zip(body["cards"], truth, strict=True):
        x1, y1, x2, y2 = turned_box(tuple(card["box"]), turn, body["width"], body["height"])
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        assert box[0] - 8 <= cx <= box[2] + 8 and box[1] - 8 <= cy <= box[3] + 8


def test_000_hit_from_a_photo_of_the_group_and_the_cards_to_add(client):
    # A photo the camera reads right: this test is about the hit flow; how often the camera reads photos right is
    # measured in tests/vision and bench/bench_vision.py (about 1 in 12 plain-deck photos has a card read wrong).
    jpeg, _truth = phase_scene("R9 B10 G11 | Y8 R12", seed=8)
    body = _upload(client, jpeg, kind="run").json
    assert body["legal"] is True and body["group"] == ["Y8", "R9", "B10", "G11", "R12"]
    typed_onto = _upload(client, phase_scene("Y8", seed=6)[0], kind="run", onto="R9 B10 G11").json
    assert typed_onto["legal"] is True and typed_onto["laid"]["low"] == 8
    one_row = _upload(client, phase_scene("R9 B10 G11", seed=7)[0], kind="run")
    assert one_row.status_code == 422 and "row below" in one_row.json["error"]


def test_the_model_is_loaded_once_per_process(client):
    from vision import detector

    jpeg, _truth = phase_scene(PHASE_2, seed=3)
    _upload(client, jpeg)
    first = dict(detector._models)
    _upload(client, jpeg)
    assert len(first) == 1 and detector._models == first
    assert all(detector._models[k] is first[k] for k in first)


def test_a_heavily_compressed_photo_is_read_and_the_answer_says_so(client):
    """A photo saved at a low JPEG quality (a copy forwarded through a messaging app) loses the colour of small
    indexes first (models/MODEL_CARD.md, after "Eight decks taught with today's defaults"): the answer gives the
    quality and, under vision.reader.LOW_JPEG_QUALITY, a note, in the page's language too; a photo as the page sends
    it has none."""
    from vision.reader import LOW_JPEG_QUALITY

    low, _truth = phase_scene(PHASE_2, seed=3, quality=40)
    answer = _upload(client, low, lang="de")
    body = answer.json
    assert answer.status_code == 200, body
    assert body["jpeg_quality"] == 40 < LOW_JPEG_QUALITY
    assert "about 40" in body["photo_note"] and "colour" in body["photo_note"]
    assert "etwa 40" in body["shown"]["photo_note"]
    sent, _truth = phase_scene(PHASE_2, seed=3, quality=85)
    body = _upload(client, sent).json
    assert body["jpeg_quality"] == 85 and "photo_note" not in body and _read_groups(body) == PHASE_2
