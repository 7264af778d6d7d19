"""Fixtures for the card camera tests: rendered scenes as JPEG files, and the shipped models."""

from __future__ import annotations

from pathlib import Path

import pytest

cv2 = pytest.importorskip("cv2")
pytest.importorskip("onnxruntime")

from vision.render import Split  # noqa: E402
from vision.scene import Scene, make_scene  # noqa: E402

# Seeds no training, validation or benchmark scene uses (those start at 0, 500 000 and 900 000).
FRESH_SEEDS = range(123_000, 123_006)


@pytest.fixture(scope="session")
def fresh_scenes() -> list[Scene]:
    return [make_scene(s, Split.HELDOUT) for s in FRESH_SEEDS]


@pytest.fixture(scope="session")
def scene_jpeg(tmp_path_factory: pytest.TempPathFactory, fresh_scenes: list[Scene]) -> Path:
    path = tmp_path_factory.mktemp("photos") / "phase.jpg"
    cv2.imwrite(str(path), fresh_scenes[0].image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path
