"""Taught decks on this server's disk, as the web layer sees them: which decks there are, which one the server
reads with by default, and which models folder the camera reads a game's photos with.

A deck is a folder under the decks folder (``DECKS_FOLDER``: ``PHASE10_DECKS``, else the instance folder's
``decks/``, where ``phase10 deck`` puts them too) holding the models ``vision.detector.Models`` reads and the
``deck.json`` that ``vision.teach`` writes. The server's default is ``default.json`` beside the decks.
"""

from __future__ import annotations

import importlib
import json
import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from flask import current_app

DEFAULT_FILE = "default.json"
# vision.teach allows names of 1 to 40 letters, digits, "-" and "_"; nothing longer is ever stored.
NAME_MAX = 40


class DecksUnavailable(RuntimeError):
    """Decks cannot be listed or taught on this server: a module of the camera is missing (``module``)."""

    def __init__(self, module: str) -> None:
        super().__init__(f"the camera's deck teaching cannot be loaded here ({module} is missing)")
        self.module = module


def folder() -> Path:
    return Path(current_app.config["DECKS_FOLDER"])


def teach_module() -> ModuleType:
    """``vision.teach``, imported on first use; :class:`DecksUnavailable` when it cannot be."""
    try:
        return importlib.import_module("vision.teach")
    except ImportError as exc:
        raise DecksUnavailable(exc.name or "vision") from None


@dataclass(frozen=True, slots=True)
class Deck:
    """A taught deck as the decks page lists it."""

    name: str
    cards: list[str]
    taught_at: str | None
    photos: int
    figures: dict[str, Any] | None
    readable: bool  # its models are there, so the camera can read with it
    kept: int = 0  # photos kept for training while the camera read with it
    kept_new: int = 0  # of those, the ones it has not learnt from yet
    detector_taught: bool = True  # else it kept the detector it started from
    # For a detector kept because the run had time for too few of its batches: those it would have had, and the
    # fewest worth teaching (vision.teach.detector_kept_for_time).
    short_of_time: tuple[int, int] | None = None


def taught() -> list[Deck]:
    """Every deck taught on this server, by name."""
    out = []
    kept = kept_stems()
    teach = teach_module()
    for meta in teach.list_decks(folder()):
        name = str(meta.get("name") or "")
        if not name:
            continue
        trained_from = meta.get("trained_from") or {}
        figures = meta.get("figures")
        learnt = trained_from.get("kept") if isinstance(trained_from, dict) else None
        mine = kept.get(name, frozenset())
        out.append(
            Deck(
                name=name,
                cards=[str(c) for c in meta.get("cards") or []],
                taught_at=meta.get("taught_at"),
                photos=len(trained_from.get("photos") or []) if isinstance(trained_from, dict) else 0,
                figures=figures if isinstance(figures, dict) else None,
                readable=models_folder(name) is not None,
                kept=len(mine),
                kept_new=len(mine - set(learnt if isinstance(learnt, list) else ())),
                detector_taught=teach.detector_taught(meta),
                short_of_time=teach.detector_kept_for_time(meta),
            )
        )
    return out


_KEPT: dict[str, Any] = {}


def kept_stems() -> dict[str, frozenset[str]]:
    """The photos kept for training (``companion.referee.training``), by the deck the camera read them with.

    Read again only when a photo has been kept or removed since (the meta folder's time or its count of records
    changes then; the count for file systems whose times are coarse), so the decks page does not open every
    record of a full training folder on each visit."""
    from ..referee.training import folder as training_folder

    root = training_folder()
    try:
        stamp = (root / "meta").stat().st_mtime_ns
        count = len(os.listdir(root / "meta"))
    except OSError:
        return {}
    key = (str(root), stamp, count)
    if _KEPT.get("key") != key:
        found = teach_module().kept_stems(root)
        _KEPT.update(key=key, stems={deck: frozenset(stems) for deck, stems in found.items()})
    stems: dict[str, frozenset[str]] = _KEPT["stems"]
    return stems


def _safe(name: object) -> str | None:
    """``name`` when it can only mean a folder directly under the decks folder (no path, no hidden folder)."""
    if not isinstance(name, str) or not 0 < len(name) <= NAME_MAX or name.startswith("."):
        return None
    return name if Path(name).name == name and "\\" not in name else None


def models_folder(name: str) -> Path | None:
    """The folder the camera reads with for the deck ``name``, or ``None`` when there is no such deck (never
    taught, removed, or missing its models). Needs only the camera's reader, not the teaching extras."""
    safe = _safe(name)
    if safe is None:
        return None
    try:
        detector = importlib.import_module("vision.detector")
    except ImportError:
        return None
    deck = folder() / safe
    files = (deck / detector.DETECTOR_FILE, deck / detector.CLASSIFIER_FILE)
    return deck if all(f.is_file() for f in files) else None


def listed(name: object) -> str | None:
    """``name`` when it is the name of a deck :func:`taught` lists (whether or not its models are there), else
    ``None``: a name from a request reaches the disk only through this."""
    safe = _safe(name)
    try:
        return safe if safe is not None and safe in {d.name for d in taught()} else None
    except DecksUnavailable:
        return None


def remove(name: str) -> bool:
    """Forget the taught deck ``name`` (one :func:`listed` names; :class:`LookupError` for any other), and make
    the shipped models the server's default if it was the default; returns whether it was. Games that chose it
    keep its name (their choice is their editors', not this page's) and read with the shipped models, as
    :func:`choice_for` says."""
    safe = listed(name)
    if safe is None:
        raise LookupError(f"there is no deck called {name!r} here")
    deck = folder() / safe
    # Moved aside in one step before it is deleted: a photo read meanwhile finds the whole deck or none of it,
    # never half its models. The hidden name is one vision.teach never lists.
    gone = deck.with_name(f".{safe}-removed-{secrets.token_hex(4)}")
    try:
        os.replace(deck, gone)
    except FileNotFoundError:
        raise LookupError(f"the deck {name!r} was removed meanwhile") from None
    shutil.rmtree(gone, ignore_errors=True)
    was_default = default_name() == safe
    if was_default:
        set_default(None)
    return was_default


def default_name() -> str | None:
    """The deck this server reads with when a game has chosen none (``None``: the shipped models)."""
    try:
        data = json.loads((folder() / DEFAULT_FILE).read_text())
    except (OSError, ValueError):
        return None
    return _safe(data.get("deck")) if isinstance(data, dict) else None


def set_default(name: str | None) -> None:
    """Make ``name`` the server's default deck (``None``: the shipped models). Written whole or not at all, so
    another server process never reads half a file."""
    path = folder() / DEFAULT_FILE
    if name is None:
        path.unlink(missing_ok=True)
        return
    write_json(path, {"deck": name})


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` in one step (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True, slots=True)
class Choice:
    """The deck the camera reads a photo with: ``folder`` ``None`` for the shipped models. ``source`` says who
    chose it (``"game"`` or ``"server"``), ``missing`` names a chosen deck that is no longer on the server."""

    name: str | None = None
    folder: Path | None = None
    source: str | None = None
    missing: str | None = None


def choice_for(game_deck: str | None) -> Choice:
    """The deck for a game's photos (its own choice, else the server's default, else the shipped models)."""
    chosen, source = (game_deck, "game") if game_deck else (default_name(), "server")
    if not chosen:
        return Choice()
    found = models_folder(chosen)
    if found is None:
        return Choice(source=source, missing=chosen)
    return Choice(chosen, found, source)
