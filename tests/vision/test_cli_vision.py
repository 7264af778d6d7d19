"""The command-line contract of ``phase10 detect`` and ``phase10 check --photo``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.rules.cards import Card


def test_detect_json_is_one_object_per_photo(scene_jpeg: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "--json", str(scene_jpeg), str(scene_jpeg)]) == 0
    lines = capsys.readouterr().out.strip().split("\n")
    assert len(lines) == 2
    obj = json.loads(lines[0])
    assert obj["file"] == str(scene_jpeg)
    assert {"cards", "groups"} <= set(obj)
    assert obj["cards"], "no cards found in a rendered scene"
    for c in obj["cards"]:
        assert set(c) == {"card", "confidence", "box"}
        Card.parse(c["card"])
        assert len(c["box"]) == 4 and all(isinstance(v, int) for v in c["box"])
        assert 0 <= c["confidence"] <= 1
    assert [c["card"] for c in obj["cards"]] == [c for g in obj["groups"] for c in g]


def test_a_heavily_compressed_photo_is_read_with_a_word_on_stderr(
    fresh_scenes: list, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A photo saved under vision.reader.LOW_JPEG_QUALITY (a copy forwarded through a messaging app) may have lost the
    colour of its small indexes (models/MODEL_CARD.md): it is still read, its JSON gives the quality, and stderr says
    to check the colours; stdout stays the answer. A photo at a camera's quality gets no such word."""
    import cv2

    low, camera = tmp_path / "forwarded.jpg", tmp_path / "camera.jpg"
    cv2.imwrite(str(low), fresh_scenes[0].image, [cv2.IMWRITE_JPEG_QUALITY, 40])
    cv2.imwrite(str(camera), fresh_scenes[0].image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert main(["detect", "--json", str(low)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["jpeg_quality"] == 40
    assert "forwarded.jpg" in err and "about 40" in err and "check the colours" in err
    assert main(["detect", str(camera)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(str(camera)) and err == ""


def test_detect_annotate_writes_an_image(scene_jpeg: Path, tmp_path: Path) -> None:
    out = tmp_path / "annotated.jpg"
    assert main(["detect", "--annotate", str(out), str(scene_jpeg)]) == 0
    assert out.stat().st_size > 1000


@pytest.mark.parametrize("content", [b"", b"not an image at all", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"])
def test_detect_bad_file_exits_2_with_a_message(
    tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(content)
    assert main(["detect", "--json", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "bad.jpg" in captured.err and "Traceback" not in captured.err


def test_detect_too_many_pixels_exits_2(scene_jpeg: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "--max-pixels", "1000", str(scene_jpeg)]) == 2
    assert "too large" in capsys.readouterr().err


def test_check_photo_prints_the_verdict_with_the_cards(scene_jpeg: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "check", "--photo", str(scene_jpeg), "--phase", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    obj = json.loads(proc.stdout)
    assert obj["file"] == str(scene_jpeg)
    assert obj["cards"] and {"card", "confidence", "box"} == set(obj["cards"][0])
    assert obj["turned"] == 0  # the scene is upright: read as it came (vision.detector.TURNS)


def test_check_photo_bad_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "empty.jpg"
    bad.write_bytes(b"")
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "check", "--photo", str(bad), "--phase", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "empty" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "command",
    [["detect", "--deck", "ours", "x.jpg"], ["check", "--phase", "1", "--photo", "x.jpg", "--deck", "ours"]],
)
def test_a_deck_that_was_never_taught_is_refused_with_exit_2(command, tmp_path, monkeypatch, capsys) -> None:
    """``--deck NAME`` reads with a taught deck's models; a name with no deck says so and reads nothing."""
    from companion.cli import main

    monkeypatch.setenv("PHASE10_DECKS", str(tmp_path))
    assert main(command) == 2
    assert "no taught deck called 'ours'" in capsys.readouterr().err
