"""``phase10 detect`` and ``phase10 train``, and the photo path of ``phase10 check --photo``.

Nothing heavy is imported here at module level: OpenCV and onnxruntime load when a photo is read, torch and
Ultralytics only when training starts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vision.hands import ORIGINAL_DRAW

if TYPE_CHECKING:
    from companion.rules.cards import Card

REPO_MODELS = Path(__file__).resolve().parents[2] / "models"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "detect",
        help="name the cards in photos of laid-down phases",
        description="Find every card in each photo and group them as they lie on the table.",
    )
    p.add_argument("photos", nargs="+", metavar="PHOTO", help="JPEG or PNG photo(s)")
    p.add_argument("--json", action="store_true", help="one JSON object per photo per line")
    p.add_argument("--annotate", metavar="OUT.jpg", help="write the photo with a box and label on each card")
    p.add_argument("--deck", metavar="NAME", help="read with a deck taught by 'phase10 deck teach'")
    p.add_argument(
        "--max-pixels", type=int, default=None, help="refuse larger images (default 50 megapixels)"
    )
    p.set_defaults(handler=run_detect)

    t = subparsers.add_parser(
        "train",
        help="render synthetic card photos and train the card detector (needs the train extra)",
        description=(
            "Render the synthetic data set, train the index classifier and the index detector from scratch "
            "(or fine-tune the shipped models with --extra-data), and export both to ONNX."
        ),
    )
    t.add_argument(
        "--out", type=Path, default=None, help="where the models go (default: models/, smoke: runs/smoke)"
    )
    t.add_argument("--data", type=Path, default=None, help="data set folder (rendered if missing)")
    t.add_argument("--train-images", type=int, default=1500)
    t.add_argument("--val-images", type=int, default=200)
    t.add_argument("--heldout-images", type=int, default=300)
    t.add_argument("--epochs", type=int, default=10)
    t.add_argument("--imgsz", type=int, default=512, help="detector training input size")
    t.add_argument(
        "--export-imgsz",
        type=int,
        default=None,
        help="detector input size of the exported ONNX model (default: --imgsz)",
    )
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--classifier-epochs", type=int, default=8)
    t.add_argument(
        "--classifier-width",
        type=int,
        default=32,
        help="channels of the classifier's first stage (--init-classifier may be narrower: it is widened)",
    )
    t.add_argument("--classifier-lr", type=float, default=3e-3, help="peak learning rate of the classifier")
    t.add_argument(
        "--vignettes",
        type=int,
        default=6_000,
        help="also train the classifier on crops of this many small photos of a few cards, each its own design",
    )
    t.add_argument(
        "--detector-crops",
        type=int,
        default=0,
        metavar="N",
        help="also train the classifier on N fresh scenes as a detector boxes them (the reader's own crops)",
    )
    t.add_argument(
        "--detector-models",
        type=Path,
        metavar="DIR",
        help="folder with the card-index.onnx and index-classifier.onnx that box --detector-crops "
        "(default: the shipped models)",
    )
    t.add_argument(
        "--hands",
        type=float,
        default=ORIGINAL_DRAW,
        metavar="P",
        help="chance that a rendered scene shows a hand held in a fan, placed wherever it fits "
        "(default: the original draw, a hand on 1-3 % of scenes)",
    )
    t.add_argument(
        "--families",
        type=_family_names,
        metavar="NAMES",
        help="draw the rendered decks from these design families (comma-separated, or 'all'; "
        "default: the original designs)",
    )
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    t.add_argument("--stage", choices=("all", "classifier", "detector"), default="all")
    t.add_argument(
        "--extra-data",
        type=Path,
        metavar="PATH",
        help="YOLO-format folder (images/, labels/ with card classes) of confirmed photos to mix in; "
        "fine-tunes the shipped models unless --init is given",
    )
    t.add_argument("--init", type=Path, help="detector weights (.pt) to start from")
    t.add_argument("--init-classifier", type=Path, help="classifier weights (.pt) to start from")
    t.add_argument(
        "--smoke", action="store_true", help="tiny data, one epoch, small input: checks the pipeline"
    )
    t.set_defaults(handler=run_train)


def _err(msg: str) -> int:
    print(f"phase10: {msg}", file=sys.stderr)
    return 2


def _note_compressed(photo: object, reading: Any) -> None:
    """On stderr (stdout stays the answer), a word on a heavily compressed photo: its small cards' colours may be
    wrong (``vision.reader.LOW_JPEG_QUALITY``)."""
    note = reading.compression_note
    if note:
        print(f"phase10: {photo}: {note}", file=sys.stderr)


def _annotate_path(base: str, i: int, n: int) -> Path:
    p = Path(base)
    return p if n == 1 else p.with_name(f"{p.stem}-{i + 1}{p.suffix or '.jpg'}")


def deck_models_dir(args: argparse.Namespace) -> Path | int | None:
    """The models folder of ``--deck NAME`` (None without it), or the exit status of a deck that is not there,
    its message printed."""
    name = getattr(args, "deck", None)
    if not name:
        return None
    from companion.cli.deck import deck_models
    from vision.teach import TeachingError

    try:
        return deck_models(name)
    except TeachingError as exc:
        return _err(str(exc))


def run_detect(args: argparse.Namespace) -> int:
    try:
        from vision.reader import BadImageError, annotate, read_photo
    except ImportError as exc:
        return _err(
            f"the camera needs the vision extra: pip install 'phase10-companion[vision]' ({exc.name})"
        )
    models_dir = deck_models_dir(args)
    if isinstance(models_dir, int):
        return models_dir
    status = 0
    for i, photo in enumerate(args.photos):
        kwargs: dict[str, Any] = {"models_dir": models_dir}
        if args.max_pixels:
            kwargs["max_pixels"] = args.max_pixels
        try:
            reading = read_photo(Path(photo), **kwargs)
        except BadImageError as exc:
            print(f"phase10: {photo}: {exc}", file=sys.stderr)
            status = 2
            continue
        _note_compressed(photo, reading)
        if args.json:
            print(json.dumps({"file": photo, **reading.to_dict()}), flush=True)
        else:
            groups = " | ".join(" ".join(str(c) for c in g) for g in reading.groups) or "(no cards found)"
            print(f"{photo}: {groups}")
        if args.annotate:
            out = _annotate_path(args.annotate, i, len(args.photos))
            annotate(Path(photo), reading, out)
    return status


def photo_lay_down(args: argparse.Namespace) -> tuple[tuple[tuple[Card, ...], ...], dict[str, Any]] | int:
    """``phase10 check --photo PHOTO``: the groups read from the photo and the fields the JSON answer gains
    (``file``, ``cards``), for ``check`` to judge as it judges typed cards; or the exit status of a photo that
    cannot be read, its message already printed."""
    try:
        from vision.reader import BadImageError, read_photo
    except ImportError as exc:
        return _err(
            f"the camera needs the vision extra: pip install 'phase10-companion[vision]' ({exc.name})"
        )
    models_dir = deck_models_dir(args)
    if isinstance(models_dir, int):
        return models_dir
    try:
        reading = read_photo(Path(args.photo), models_dir=models_dir)
    except BadImageError as exc:
        return _err(f"{args.photo}: {exc}")
    _note_compressed(args.photo, reading)
    if not reading.groups:
        return _err(f"{args.photo}: no cards found in the photo")
    if not getattr(args, "json", False):
        print(f"{args.photo}: " + " | ".join(" ".join(str(c) for c in g) for g in reading.groups))
    return reading.groups, {
        "file": str(args.photo),
        "cards": reading.to_dict()["cards"],
        "turned": reading.turned,
        "jpeg_quality": reading.jpeg_quality,
    }


def _family_names(text: str) -> tuple[str, ...]:
    """``--families`` as family names (argparse turns the error into exit 2 with its sentence)."""
    from vision.families import FAMILIES

    known = [f.value for f in FAMILIES]
    if text.strip() == "all":
        return tuple(known)
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"{text!r}: the families are {', '.join(known)} (or all)")
    return names


def run_train(args: argparse.Namespace) -> int:
    try:
        from vision.train import DETECTOR_NAME, TrainConfig, run
    except ImportError as exc:
        return _err(f"training needs the train extra: pip install 'phase10-companion[train]' ({exc.name})")
    if args.hands is not ORIGINAL_DRAW and not 0 <= args.hands <= 1:
        return _err(f"--hands {args.hands:g}: a chance, from 0 to 1")
    if args.smoke:
        cfg = TrainConfig(
            out=args.out or Path("runs/smoke/models"),
            data=args.data or Path("runs/smoke/data"),
            train_images=8,
            val_images=4,
            heldout_images=0,
            epochs=1,
            imgsz=160,
            batch=4,
            classifier_epochs=1,
            classifier_width=args.classifier_width,
            vignettes=min(args.vignettes, 20),
            detector_crops=min(args.detector_crops, 4),
            detector_models=args.detector_models,
            hands=args.hands,
            families=args.families,
            seed=args.seed,
            threads=args.threads,
            smoke=True,
            stage=args.stage,
        )
    else:
        cfg = TrainConfig(
            out=args.out or REPO_MODELS,
            data=args.data or Path("datasets/cards"),
            train_images=args.train_images,
            val_images=args.val_images,
            heldout_images=args.heldout_images,
            epochs=args.epochs,
            imgsz=args.imgsz,
            export_imgsz=args.export_imgsz,
            batch=args.batch,
            classifier_epochs=args.classifier_epochs,
            classifier_width=args.classifier_width,
            classifier_lr=args.classifier_lr,
            vignettes=args.vignettes,
            detector_crops=args.detector_crops,
            detector_models=args.detector_models,
            hands=args.hands,
            families=args.families,
            seed=args.seed,
            threads=args.threads,
            stage=args.stage,
        )
    if args.extra_data:
        if not args.extra_data.is_dir():
            return _err(f"{args.extra_data}: not a folder")
        cfg.extra_data = args.extra_data
        cfg.init = args.init or _shipped(f"{DETECTOR_NAME}.pt")
        cfg.init_classifier = args.init_classifier or _shipped("index-classifier.pt")
    else:
        cfg.init, cfg.init_classifier = args.init, args.init_classifier
    for p in (cfg.init, cfg.init_classifier):
        if p is not None and not p.exists():
            return _err(f"{p}: no such weights file")
    try:
        run(cfg)
    except ValueError as exc:
        return _err(str(exc))
    return 0


def _shipped(name: str) -> Path | None:
    p = REPO_MODELS / name
    return p if p.exists() else None
