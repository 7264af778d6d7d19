"""The camera as the web layer sees it: imported on first use, so the app runs without the ``vision`` extra.

The models are loaded once per process by ``vision`` itself; nothing here holds a lock around a request, so
several uploads are read at the same time (onnxruntime sessions are safe to ``run()`` from many threads).
"""

from __future__ import annotations

import importlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

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
        with _reading_with(reader, models_dir):
            reading: PhotoReading = reader.read_photo(data, max_pixels=max_pixels)
        return reading
    except reader.BadImageError as exc:
        raise PhotoError(str(exc)) from None
    except FileNotFoundError as exc:
        raise CameraUnavailable(f"The card model is missing on this server: {exc}") from None


# --- reading with a taught deck ---------------------------------------------------------------------------------
#
# ``vision.reader.read_photo`` takes its models from ``vision.detector.get_models`` and has no way to be handed
# others. Until it has one, the reader's ``get_models`` is wrapped once: within ``_reading_with`` (per thread and
# per request, through a context variable) it answers the deck's models, everywhere else exactly what it answered
# before.

_DECK_MODELS: ContextVar[Any] = ContextVar("deck_models", default=None)
_wrap_lock = threading.Lock()
# A deck's models load once and stay loaded for the next photo; a few decks at most, so that a server whose
# groups try many decks keeps its memory. Keyed by the files' identity too: a deck taught again under its name
# is a new deck.
DECKS_KEPT = 4
_deck_models: OrderedDict[tuple[str, ...], Any] = OrderedDict()


def _wrap(reader: ModuleType) -> None:
    with _wrap_lock:
        shipped: Callable[..., Any] = reader.get_models
        if getattr(shipped, "reads_taught_decks", False):
            return

        def get_models(runtime: Any = None, *args: Any, **kwargs: Any) -> Any:
            deck = _DECK_MODELS.get()
            if deck is not None and not args and not kwargs:
                return deck
            return shipped(runtime, *args, **kwargs)

        get_models.reads_taught_decks = True  # type: ignore[attr-defined]
        setattr(reader, "get_models", get_models)  # noqa: B010  (mypy refuses assigning to a module's function)


def deck_models(models_dir: Path) -> Any:
    """The models of the deck in ``models_dir`` (``vision.detector.Models``), loaded on first use."""
    detector = importlib.import_module("vision.detector")
    files = [models_dir / detector.DETECTOR_FILE, models_dir / detector.CLASSIFIER_FILE]
    try:
        key = (str(models_dir), *(f"{s.st_ino}:{s.st_mtime_ns}" for s in (f.stat() for f in files)))
    except OSError as exc:
        raise FileNotFoundError(f"model file missing: {exc.filename}") from None
    with _wrap_lock:
        models = _deck_models.get(key)
        if models is not None:
            _deck_models.move_to_end(key)
            return models
    models = detector.Models(models_dir)
    with _wrap_lock:
        _deck_models[key] = models
        while len(_deck_models) > DECKS_KEPT:
            _deck_models.popitem(last=False)
    return models


@contextmanager
def _reading_with(reader: ModuleType, models_dir: Path | None) -> Iterator[None]:
    if models_dir is None:
        yield
        return
    _wrap(reader)
    token = _DECK_MODELS.set(deck_models(models_dir))
    try:
        yield
    finally:
        _DECK_MODELS.reset(token)


def decode_upright(data: bytes, *, max_pixels: int, long_side: int) -> Decoded:
    """The photo decoded upright (EXIF orientation applied), reduced by a power of two to at least ``long_side``."""
    _reader()
    decode = importlib.import_module("vision.decode")
    try:
        decoded: Decoded = decode.decode(data, max_pixels=max_pixels, target=long_side)
        return decoded
    except decode.BadImageError as exc:
        raise PhotoError(str(exc)) from None
