"""Photos of real cards scored as a person named them (bench/bench_photos.py, vision.evaluate.labelled_photos):
issue 17 asks for the camera's figures on real photos, and this is how a folder of them is read and counted. The
photos here are rendered stand-ins with the plain deck the shipped models read; what is tested is the naming,
the two folder layouts and the scoring, through the real reader."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest

from tests.photo.scenes import phase_scene
from vision.evaluate import labelled_photos
from vision.train import write_extra_example

ROOT = Path(__file__).resolve().parents[2]
LAY_DOWN = "R7 B7 G7 | G3 Y4 W B6"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_photos", ROOT / "bench" / "bench_photos.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_folder_of_named_photos_is_read_and_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, _ = phase_scene(LAY_DOWN, seed=3)
    second, _ = phase_scene("R1 R2 R3 R4", seed=4)
    (tmp_path / "table.jpg").write_bytes(first)
    (tmp_path / "table.txt").write_text("R7 B7 G7 | G3, Y4, W, B6\n")
    # Named wrong on purpose: the bench must count the reading against the name, not agree with itself.
    (tmp_path / "IMG_2.JPG").write_bytes(second)
    (tmp_path / "IMG_2.txt").write_text("R1 R2 R3 Y4")
    (tmp_path / "unnamed.jpg").write_bytes(first)  # no text file: left out
    photos = labelled_photos(tmp_path)
    assert [p.path.name for p in photos] == ["IMG_2.JPG", "table.jpg"]
    assert photos[1].groups == (("R7", "B7", "G7"), ("G3", "Y4", "W", "B6")) and photos[1].grouped

    assert _bench().main([str(tmp_path), "--errors"]) == 0
    out = capsys.readouterr().out
    assert "| 2 | 0.9091 (10/11) | 0.9091 (10/11) | 0.500 (1/2) | 0 / 1 / 0 / 0 |" in out
    assert "IMG_2.JPG: named R1 R2 R3 Y4; read R1 R2 R3 R4 (1 colour)" in out


def test_kept_photos_are_scored_by_their_cards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The referee page keeps a corrected photo as images/ and labels/ (cards and boxes, not groups).
    jpeg, truth = phase_scene(LAY_DOWN, seed=5)
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    write_extra_example(tmp_path, "kept-1", image, truth)
    (photo,) = labelled_photos(tmp_path)
    assert not photo.grouped
    assert photo.groups == (tuple(sorted(str(c) for c, _ in truth)),)
    assert photo.scored([["B6", "W"], ["R7"]]) == [("B6", "R7", "W")]

    assert _bench().main([str(tmp_path)]) == 0
    assert "| 1 | 1.0000 (7/7) | 1.0000 (7/7) | 1.000 (1/1) | 0 / 0 / 0 / 0 |" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("named", "says"),
    [
        ("R7 X9", "'X9' is not a card"),
        (" | ", "names no cards"),
        ("R13", "'R13' is not a card: numbers run from 1 to 12"),
    ],
)
def test_a_name_that_cannot_be_read_is_refused_with_its_file(tmp_path: Path, named: str, says: str) -> None:
    (tmp_path / "a.jpg").write_bytes(phase_scene("R7", seed=1)[0])
    (tmp_path / "a.txt").write_text(named)
    with pytest.raises(ValueError, match=says) as err:
        labelled_photos(tmp_path)
    assert "a.txt" in str(err.value)
    with pytest.raises(SystemExit) as exit_:
        _bench().main([str(tmp_path)])
    assert exit_.value.code == 2


def test_a_folder_without_named_photos_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(phase_scene("R7", seed=1)[0])
    with pytest.raises(ValueError, match="no photo with a text file"):
        labelled_photos(tmp_path)
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    with pytest.raises(ValueError, match="no labelled photo"):
        labelled_photos(tmp_path)
    (tmp_path / "images" / "k.jpg").write_bytes(b"")
    (tmp_path / "labels" / "k.txt").write_text(f"{99} 0.5 0.5 0.1 0.1\n")
    with pytest.raises(ValueError, match="is not a card's label line"):
        labelled_photos(tmp_path)
