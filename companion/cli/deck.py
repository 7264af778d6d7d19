"""``phase10 deck``: teach the camera a group's own deck from photos of its cards, list and remove taught decks.

    phase10 deck teach NAME --photo PHOTO --cards "R1 R2 ... R12" [--photo PHOTO --cards CARDS ...] [--minutes N]
        [--keep-detector | --teach-detector]
    phase10 deck improve NAME [--minutes N] [--keep-detector | --teach-detector]
    phase10 deck list [--json]
    phase10 deck remove NAME

Decks live in the instance folder's ``decks/`` (``PHASE10_DECKS`` names another folder); each deck folder holds
the models that read it, for ``vision.detector.Models``. Photos players corrected and kept for training while
the camera read with a deck (the instance folder's ``training/``, or ``--kept``) are learnt from whenever that
deck is taught again; ``improve`` does so from the deck's own faces, without new teaching photos. Nothing heavy
is imported here at module level: OpenCV loads when a photo is cut, torch and Ultralytics when learning starts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

DECKS_VARIABLE = "PHASE10_DECKS"


def _instance_folder() -> Path:
    from flask import Flask

    # The instance folder as the app finds it (the same probe ``phase10 serve`` makes for its secret key).
    return Path(Flask("companion.app", instance_relative_config=True).instance_path)


def decks_dir() -> Path:
    """Where taught decks live: ``PHASE10_DECKS``, else ``decks/`` in the app's instance folder."""
    named = os.environ.get(DECKS_VARIABLE)
    return Path(named) if named else _instance_folder() / "decks"


def kept_dir() -> Path:
    """Where the app keeps photos for training: ``training/`` in its instance folder."""
    return _instance_folder() / "training"


def deck_models(name: str) -> Path:
    """The models folder of the taught deck ``name`` (for ``vision.detector.Models``); raises
    ``vision.teach.TeachingError`` (code ``bad-name`` or ``no-deck``) when there is no such deck."""
    from vision.detector import CLASSIFIER_FILE, DETECTOR_FILE
    from vision.teach import Problem, TeachingError, deck_folder, read_deck

    folder = deck_folder(decks_dir(), name)
    read_deck(folder)
    for file in (DETECTOR_FILE, CLASSIFIER_FILE):
        if not (folder / file).exists():
            raise TeachingError(Problem.NO_DECK, f"the deck {name!r} has no models: teach it again")
    return folder


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    deck = subparsers.add_parser(
        "deck",
        help="teach the camera your own deck from photos of its cards; list or remove taught decks",
        description="Teach the camera a deck it reads badly, from photos of its cards laid side by side.",
    )
    sub = deck.add_subparsers(dest="deck_command", required=True, metavar="ACTION")
    t = sub.add_parser(
        "teach",
        help="learn a deck from teaching photos (needs the train extra)",
        description=(
            "Each photo shows cards laid side by side, face up and upright, in one or more rows, not "
            "overlapping, on a table, photographed from above; --cards names them in reading order (rows top "
            'to bottom, each left to right), e.g. "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12". Five photos (one '
            "per colour, one with the Wilds and Skips) are the usual teaching; fewer or partial sets help too."
        ),
    )
    t.add_argument("name", metavar="NAME", help="the deck's name (letters, digits, '-', '_')")
    t.add_argument(
        "--photo", action="append", default=[], metavar="PHOTO", help="a teaching photo (JPEG/PNG)"
    )
    t.add_argument(
        "--cards", action="append", default=[], metavar="CARDS", help="the cards of the --photo before it"
    )
    _learning_options(t)
    t.set_defaults(handler=run_teach)
    im = sub.add_parser(
        "improve",
        help="learn a taught deck again with the photos kept for training since (needs the train extra)",
        description=(
            "Learns the deck NAME again, from its own faces and models, with every photo the camera read with "
            "it that a player corrected and kept for training (the referee page's 'Keep this photo for "
            "training'). The old deck keeps reading photos until the new one is ready."
        ),
    )
    im.add_argument("name", metavar="NAME", help="a taught deck's name")
    _learning_options(im)
    im.set_defaults(handler=run_improve)
    ls = sub.add_parser("list", help="the taught decks")
    ls.add_argument("--json", action="store_true", help="one JSON object per deck per line")
    ls.set_defaults(handler=run_list)
    rm = sub.add_parser("remove", help="forget a taught deck")
    rm.add_argument("name", metavar="NAME")
    rm.set_defaults(handler=run_remove)


def _learning_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--minutes", type=float, default=15.0, help="time to learn in (default 15)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="CPU threads (default: all)")
    parser.add_argument(
        "--kept",
        type=Path,
        metavar="FOLDER",
        help="the photos kept for training (default: the instance folder's training/)",
    )
    add_detector_options(parser)


def add_detector_options(parser: argparse.ArgumentParser) -> None:
    """``--keep-detector`` and ``--teach-detector`` as ``keep_detector`` (``vision.teach.teach``'s): True, False,
    or None when neither is given, the run then teaching the detector only where the computer has time for
    enough of it."""
    detector = parser.add_mutually_exclusive_group()
    detector.add_argument(
        "--keep-detector",
        dest="keep_detector",
        action="store_const",
        const=True,
        default=None,
        help=(
            "learn only how the deck's cards read, keeping the detector that finds them: done in about a third of "
            "the minutes (see the README)"
        ),
    )
    detector.add_argument(
        "--teach-detector",
        dest="keep_detector",
        action="store_const",
        const=False,
        help=(
            "teach the detector that finds the cards however few minutes this computer gives it (by default it "
            "is kept where they are too few)"
        ),
    )


def _bad_learning_options(args: argparse.Namespace) -> str | None:
    if not 0 < args.minutes <= 24 * 60:
        return f"--minutes {args.minutes:g}: a time from a fraction of a minute to a day"
    if args.threads < 1:
        return "--threads must be 1 or more"
    if args.kept is not None and not args.kept.is_dir():
        return f"--kept {args.kept}: no such folder"
    return None


def _err(msg: str) -> int:
    print(f"phase10 deck: {msg}", file=sys.stderr)
    return 2


class _Printer:
    """Progress as lines a terminal or a log shows well: when a stage starts, at each tenth of it, and when it
    ends."""

    def __init__(self) -> None:
        self.last: tuple[str, int] = ("", 0)
        self.started = time.monotonic()
        # The terminal as it is now: while a model trains, what it prints is sent to the deck's training log.
        self.out = sys.stdout

    def __call__(self, stage: str, done: int, total: int) -> None:
        key = (stage, -1 if done >= total else done * 10 // max(total, 1))
        if key == self.last:
            return
        self.last = key
        unit = " s" if stage == "classifier" else ""
        print(
            f"[{time.monotonic() - self.started:5.0f} s] {stage}: {done}/{total}{unit}",
            file=self.out,
            flush=True,
        )


def run_teach(args: argparse.Namespace) -> int:
    if not args.photo:
        return _err("give at least one --photo PHOTO with its --cards CARDS")
    if len(args.photo) != len(args.cards):
        return _err(
            f"{len(args.photo)} --photo and {len(args.cards)} --cards: give each photo's cards right after it"
        )
    photos = []
    for path, cards in zip(args.photo, args.cards, strict=True):
        try:
            photos.append((Path(path).read_bytes(), cards))
        except OSError as exc:
            return _err(f"{path}: cannot read it ({exc.strerror or exc})")
    return _learn(args, photos)


def run_improve(args: argparse.Namespace) -> int:
    # No teaching photos: the deck is learnt again from its own faces and the photos kept since.
    return _learn(args, [])


def _learn(args: argparse.Namespace, photos: list[tuple[bytes, str]]) -> int:
    try:
        from vision.teach import TeachingError, check_name, require_training, teach
    except ImportError as exc:
        return _err(
            f"the camera needs the vision extra: pip install 'phase10-companion[vision]' ({exc.name})"
        )
    bad = _bad_learning_options(args)
    if bad:
        return _err(bad)
    try:
        check_name(args.name)
        # Before any photo is cut: a computer that cannot learn says so first.
        require_training()
        folder = teach(
            decks_dir(),
            args.name,
            photos,
            minutes=args.minutes,
            progress=_Printer(),
            threads=args.threads,
            kept=args.kept or kept_dir(),
            keep_detector=args.keep_detector,
        )
    except TeachingError as exc:
        return _err(str(exc))
    _say_ready(args.name, folder)
    return 0


def _say_ready(name: str, folder: Path) -> None:
    from vision.teach import detector_kept_for_time, detector_taught

    meta = json.loads((folder / "deck.json").read_text())
    took = meta["figures"]["total_seconds"]
    photos = len(meta["trained_from"]["photos"])
    kept = len(meta["trained_from"].get("kept") or [])
    print(
        f"deck {name} is ready: {len(meta['cards'])} cards taught from {photos} photo{'s' if photos != 1 else ''}"
        + (f" and {kept} kept photo{'s' if kept != 1 else ''}" if kept else "")
        + ("" if detector_taught(meta) else " (its detector kept)")
        + f" in {took // 60:.0f} min {took % 60:.0f} s; read with it: phase10 detect --deck {name} PHOTO ({folder})"
    )
    short = detector_kept_for_time(meta)
    if short is not None:
        had, fewest = short
        print(
            f"the detector that finds the cards was kept, not taught: in the minutes given this computer had time "
            f"for {had} of its training batches, and fewer than {fewest} can make it read a deck with its index in "
            "every corner worse; give more --minutes to teach it, or --teach-detector to teach it anyway"
        )


def run_list(args: argparse.Namespace) -> int:
    try:
        from vision.teach import detector_taught, list_decks
    except ImportError as exc:
        return _err(
            f"the camera needs the vision extra: pip install 'phase10-companion[vision]' ({exc.name})"
        )
    decks = list_decks(decks_dir())
    for meta in decks:
        row: dict[str, Any] = {
            "name": meta["name"],
            "cards": meta["cards"],
            "taught_at": meta["taught_at"],
            "photos": len(meta["trained_from"]["photos"]),
            "kept": len(meta["trained_from"].get("kept") or []),
            "detector_taught": detector_taught(meta),
        }
        if args.json:
            print(json.dumps(row))
        else:
            print(
                f"{row['name']}: {len(row['cards'])} cards from {row['photos']} photos"
                + (f" and {row['kept']} kept photo{'s' if row['kept'] != 1 else ''}" if row["kept"] else "")
                + ("" if row["detector_taught"] else " (its detector kept)")
                + f", taught {row['taught_at']}"
            )
    if not decks and not args.json:
        print(f"no taught decks in {decks_dir()}")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    try:
        from vision.teach import TeachingError, remove_deck
    except ImportError as exc:
        return _err(
            f"the camera needs the vision extra: pip install 'phase10-companion[vision]' ({exc.name})"
        )
    try:
        remove_deck(decks_dir(), args.name)
    except TeachingError as exc:
        return _err(str(exc))
    print(f"deck {args.name} removed")
    return 0
