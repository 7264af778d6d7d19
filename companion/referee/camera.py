"""The camera as the web layer sees it: imported on first use, so the app runs without the ``vision`` extra.

The models are loaded once per process by ``vision`` itself; nothing here holds a lock around a request, so
several uploads are read at the same time (onnxruntime sessions are safe to ``run()`` from many threads).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vision.decode import Decoded
    from vision.reader import PhotoReading

INSTALL_HINT = "pip install 'phase10-companion[vision]'"


class CameraUnavailable(RuntimeError):
    """The camera cannot read photos on this server; the message says how to enable it."""


class PhotoError(ValueError):
    """The upload is not a photo the camera can read (not an image, empty, cut off, too many pixels)."""


@dataclass(frozen=True, slots=True)
class CameraStatus:
    ready: bool
    message: str | None = None


def _reader() -> ModuleType:
    try:
        return importlib.import_module("vision.reader")
    except ImportError as exc:
        raise CameraUnavailable(
            f"The camera is not installed on this server ({exc.name or 'vision'} is missing). "
            f"To enable it: {INSTALL_HINT}, then restart the app."
        ) from None


def _model_files() -> list[Path]:
    detector = importlib.import_module("vision.detector")
    folder = Path(detector.MODELS_DIR)
    return [folder / detector.DETECTOR_FILE, folder / detector.CLASSIFIER_FILE]


def status() -> CameraStatus:
    """Whether a photo can be read now, without loading the models."""
    try:
        _reader()
        missing = [p for p in _model_files() if not p.exists()]
    except CameraUnavailable as exc:
        return CameraStatus(False, str(exc))
    except ImportError as exc:
        return CameraStatus(False, f"The camera is not installed on this server ({exc.name}). {INSTALL_HINT}")
    if missing:
        return CameraStatus(
            False,
            f"The card model is missing ({missing[0].name} is not in {missing[0].parent}); "
            "reinstall the app or train one with 'phase10 train'.",
        )
    return CameraStatus(True)


def read(data: bytes, *, max_pixels: int, models_dir: Path | None = None) -> PhotoReading:
    """The camera's reading of a photo, with the shipped models or, given ``models_dir``, a taught deck's.

    Raises :class:`PhotoError` for an upload that is not a readable photo and :class:`CameraUnavailable` when the
    vision extra or the model is missing.
    """
    reader = _reader()
    try:
        reading: PhotoReading = reader.read_photo(data, max_pixels=max_pixels, models_dir=models_dir)
        return reading
    except reader.BadImageError as exc:
        raise PhotoError(str(exc)) from None
    except FileNotFoundError as exc:
        raise CameraUnavailable(f"The card model is missing on this server: {exc}") from None


def decode_upright(data: bytes, *, max_pixels: int, long_side: int) -> Decoded:
    """The photo decoded upright (EXIF orientation applied), reduced by a power of two to at least ``long_side``."""
    _reader()
    decode = importlib.import_module("vision.decode")
    try:
        decoded: Decoded = decode.decode(data, max_pixels=max_pixels, target=long_side)
        return decoded
    except decode.BadImageError as exc:
        raise PhotoError(str(exc)) from None
