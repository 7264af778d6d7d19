"""Uploads are hostile until decoded: every way a photo can be wrong gets a clear JSON error (413 or 400), the app
runs without the vision extra, and a slow photo does not hold up anyone else's request."""

from __future__ import annotations

import io
import struct
import sys
import threading
import urllib.request
import zlib

import pytest

from companion.referee import camera
from tests.web.served import served

from .scenes import phase_photo


def _post_photo(client, data: bytes, name: str = "phase.jpg", **fields):
    form = {"phase": "2", **fields, "photo": (io.BytesIO(data), name)}
    return client.post("/api/check", data=form, content_type="multipart/form-data")


def _png_header(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` x ``height`` pixels: a decompression bomb's calling card."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    body = struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    idat = zlib.compress(b"\x00" * 64)
    body += struct.pack(">I", len(idat)) + b"IDAT" + idat + struct.pack(">I", zlib.crc32(b"IDAT" + idat))
    body += struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    return b"\x89PNG\r\n\x1a\n" + body


def test_no_photo_field_is_400(client):
    answer = client.post("/api/check", data={"phase": "2"}, content_type="multipart/form-data")
    assert answer.status_code == 400 and "no photo was sent" in answer.json["error"]


def _cut_in_half() -> bytes:
    whole = phase_photo("R7 B7 G7 | G3 Y4 W B6")
    return whole[: len(whole) // 2]


@pytest.mark.parametrize(
    ("upload", "name", "words"),
    [
        pytest.param(lambda: b"", "phase.jpg", "empty", id="zero-bytes"),
        pytest.param(
            lambda: b"%PDF-1.7 this is a document, not a photo" * 10,
            "phase.pdf",
            "not a photo",
            id="not-an-image",
        ),
        pytest.param(_cut_in_half, "phase.jpg", "cut off", id="truncated-jpeg"),
    ],
)
def test_an_upload_that_is_not_a_whole_photo_is_400(client, upload, name, words):
    answer = _post_photo(client, upload(), name)
    assert answer.status_code == 400 and words in answer.json["error"]


def test_decompression_bomb_is_refused_from_its_header(client):
    answer = _post_photo(client, _png_header(100_000, 100_000), "bomb.png")
    assert (
        answer.status_code == 400
        and "too large" in answer.json["error"]
        and "megapixels" in answer.json["error"]
    )


def test_pixel_limit_is_configurable(app_factory):
    client = app_factory(PHOTO_MAX_PIXELS=2_000_000).test_client()
    answer = _post_photo(client, phase_photo("R7 B7 G7", size=(2000, 1500)))
    assert answer.status_code == 400 and "too large" in answer.json["error"]


def test_upload_over_the_size_limit_is_413_with_the_limit(app_factory):
    client = app_factory(PHOTO_MAX_BYTES=4096).test_client()
    answer = _post_photo(client, b"\xff\xd8\xff" + b"\x00" * (4096 + 300 * 1024))
    assert answer.status_code == 413
    assert "too large" in answer.json["error"] and "MB" in answer.json["error"]


def test_photo_just_over_the_limit_inside_a_small_body_is_413(app_factory):
    # The body limit leaves room for the other fields; the photo itself is measured too.
    client = app_factory(PHOTO_MAX_BYTES=4096).test_client()
    answer = _post_photo(client, b"\xff\xd8\xff" + b"\x00" * 5000)
    assert answer.status_code == 413


def test_default_limit_is_16_mb(app):
    assert app.config["PHOTO_MAX_BYTES"] == 16 * 1024 * 1024


def test_training_upload_over_the_limit_is_413_too(app_factory):
    client = app_factory(PHOTO_MAX_BYTES=4096).test_client()
    answer = client.post(
        "/referee/training",
        data={"allow": "1", "photo": (io.BytesIO(b"\xff\xd8\xff" + b"\x00" * 6000), "p.jpg")},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 413 and "too large" in answer.json["error"]


def test_without_the_vision_extra_the_app_runs_and_says_how_to_enable_the_camera(client, monkeypatch):
    # A missing onnxruntime/OpenCV makes `import vision.reader` fail; None in sys.modules does the same.
    monkeypatch.setitem(sys.modules, "vision.reader", None)
    page = client.get("/referee/")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "pip install &#39;phase10-companion[vision]&#39;" in text and "tap the cards in" in text
    assert 'capture="environment"' not in text
    answer = _post_photo(client, phase_photo("R7 B7 G7"))
    assert answer.status_code == 503 and "pip install 'phase10-companion[vision]'" in answer.json["error"]
    # Tap entry still works.
    assert client.post("/api/check", json={"phase": 1, "cards": "R5 B5 W G8 Y8 W"}).json["valid"] is True


def test_web_layer_imports_no_camera_code_at_start(tmp_path):
    import subprocess

    code = (
        "import sys; from companion.app import create_app; "
        f"create_app({{'SECRET_KEY': 'x' * 32, 'SQLALCHEMY_DATABASE_URI': 'sqlite:///{tmp_path}/x.db'}}); "
        "print(sorted(m for m in ('cv2', 'onnxruntime', 'numpy', 'vision.reader') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_slow_photo_does_not_hold_up_other_requests(app, monkeypatch):
    """While one upload is being read, another request is answered: no lock is held around a request."""
    reading_started = threading.Event()
    release = threading.Event()

    def slow_read(data: bytes, *, max_pixels: int):
        reading_started.set()
        # Released by the test once the second request has been answered; the guard only ends a broken run.
        release.wait(timeout=60)
        raise camera.PhotoError("released")

    monkeypatch.setattr(camera, "read", slow_read)
    results: dict[str, int] = {}
    with served(app) as base:

        def upload() -> None:
            boundary = "xyz"
            body = (
                (
                    f'--{boundary}\r\nContent-Disposition: form-data; name="phase"\r\n\r\n2\r\n'
                    f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p.jpg"\r\n'
                    "Content-Type: image/jpeg\r\n\r\n"
                ).encode()
                + b"\xff\xd8\xff\xe0 data"
                + f"\r\n--{boundary}--\r\n".encode()
            )
            req = urllib.request.Request(
                base + "/api/check",
                data=body,
                headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
            )
            try:
                urllib.request.urlopen(req, timeout=60)
            except urllib.error.HTTPError as exc:
                results["upload"] = exc.code

        first = threading.Thread(target=upload)
        first.start()
        assert reading_started.wait(timeout=60)
        second = urllib.request.Request(
            base + "/api/check",
            data=b'{"phase": 1, "cards": "R5 B5 W G8 Y8 W"}',
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(second, timeout=60) as response:
            results["second"] = response.status
        answered_while_reading = not release.is_set()
        release.set()
        first.join(timeout=60)
    assert answered_while_reading and results == {"second": 200, "upload": 400}


def test_no_cards_found_is_422_with_the_photo_size(client, monkeypatch):
    class Empty:
        cards = ()
        groups = ()
        width = 10
        height = 10
        turned = 0
        jpeg_quality = None
        compression_note = None

        def to_dict(self):
            return {"cards": []}

    monkeypatch.setattr(camera, "read", lambda data, *, max_pixels: Empty())
    answer = _post_photo(client, b"\xff\xd8\xff")
    assert answer.status_code == 422 and "no cards were found" in answer.json["error"]
    assert answer.json["cards"] == [] and answer.json["width"] == 10


def test_hit_photo_with_an_unknown_kind_is_refused_before_reading(client, monkeypatch):
    monkeypatch.setattr(camera, "read", lambda data, *, max_pixels: pytest.fail("the photo was read"))
    answer = _post_photo(client, b"\xff\xd8\xff", kind="pair")
    assert answer.status_code == 400 and "kind" in answer.json["error"]


def test_004_the_camera_is_not_asked_about_playing_cards(client, monkeypatch):
    monkeypatch.setattr(camera, "read", lambda data, *, max_pixels: pytest.fail("the photo was read"))
    answer = _post_photo(client, b"\xff\xd8\xff", rules="playing-cards", phase="1")
    assert answer.status_code == 422 and "Phase 10 cards only" in answer.json["error"]


def test_a_photo_that_cannot_be_judged_still_returns_what_was_read(client, monkeypatch):
    from .scenes import known_reading, phase_scene

    jpeg, truth = phase_scene("R9 B10 G11", seed=7)
    monkeypatch.setattr(camera, "read", lambda data, *, max_pixels: known_reading("R9 B10 G11", truth, {}))
    answer = _post_photo(client, jpeg, kind="run")
    assert answer.status_code == 422 and "row below" in answer.json["error"]
    assert [c["card"] for c in answer.json["cards"]] == ["R9", "B10", "G11"] and answer.json["detected"] == [
        [0, 1, 2]
    ]
