"""Leave one design family out: how the camera reads a kind of deck it was never trained on.

For each family of ``vision.families``, a classifier is fine-tuned on crops of the *other* families only, then the
left-out family's scenes are read with it (held-out fonts and tables, the seeds of ``bench_families.py``, the app's
way: JPEG bytes, decoded as an upload, served models). One more classifier, trained the same way on all six
families, says how much of a row's shortfall is the family being unseen rather than the short training. By
default every run takes every crop of its families, so the control sees about a fifth more than a left-out run;
with ``--budget N`` each run draws the same N.

Both start from a classifier that never saw any family (``--base``: the release before the families,
``git show e2ca365:models/index-classifier.pt``), and all read with one detector that never saw a family either:
the one of ``--detector DIR`` (the table of record starts from the detector before the families, ``card-index.onnx``,
``card-index-dynamic.onnx`` and ``card-index.pt`` of ``git show 25b952e:models/``; the shipped one has seen
every family) fine-tuned ``--detector-epochs`` 640-px epochs (default ``DETECTOR_EPOCHS``) on
``--free-detector-scenes`` scenes of the original drawings (default ``FREE_DETECTOR_SCENES``) whose light faces are
reprinted dark or on their own colour at the chance ``--detector-recolour`` (default ``DETECTOR_RECOLOUR``;
``vision.recolour``), and kept as it is (``--detector-weight 1``, the default; a smaller weight averages it weight by
weight with DIR). ``--detector-recolour 0`` reads with DIR as it is. That fine-tune takes about 3 minutes on a GPU
(``--device cuda``) and hours on a 2-core CPU. The original drawings are coloured figures on white card with
bare, patched, tabbed or underlined corners: the classic family's layout and some of the tabbed family's, so those
two rows are not as unseen as the other four, and the table says so.

    python bench/bench_left_out.py --base BASE.pt --detector DIR [--runs runs/left-out] [--scenes 200]
        [--vignettes 2000] [--read 100] [--families dark,printed] [--control/--no-control] [--dark-share 0.15]
        [--epochs 2] [--dev] [--device cuda]

``--dev`` reads the family dev scenes (seeds 850 000 on), to choose by; ``--dark-share`` sets the share of
training crops redrawn on a dark face (``vision.train.dark_face``).

``--reprint P`` (default ``REPRINT_SHARE``) adds to the crops of each training family those of ``--reprint-scenes``
(default ``REPRINT_SCENES``) more scenes of it whose light faces are reprinted dark or on their own colour at the
chance P (``vision.recolour``), before the crop budget is drawn. The reprint is a transform of the training
families' faces at full size, laid on the tables and lit as every scene is, not a drawing of any family;
``--reprint 0`` is the recipe before it. Runs and data with reprints carry a ``-reprint{P}`` tag in their names,
and ``-scenes{N}`` with another number of reprinted scenes than the first tables' 200 (``-scenes400`` by
default); runs with a ``--budget`` other than ``BUDGET`` (the fixed 100 000 crops of the tables before) carry
``-budget{N}``, and ``-whole`` for the default, 0: every crop there is; runs of more than the first tables' one
epoch carry ``-epochs{N}`` (``-epochs2`` by default, ``EPOCHS``).

``--detector-groups "dark,colour-face,printed;classic,tabbed,accessible"`` leaves families out of the detector too:
for each group, the detector of ``--detector`` is fine-tuned ``--detector-epochs`` 640-px epochs on scenes of every
family *outside* the group (``--detector-scenes``) beside scenes of the original drawings (``--detector-original``),
and a left-out family is read with its group's detector, averaged weight by weight with the start at
``--detector-weight`` (the rule the shipped detector was made by is one half; 1 reads the fine-tune alone). The
group detectors of models/TRAINING-HISTORY.md were made with ``--detector-epochs 1 --detector-weight 0.5``.
Leaving a group out is stricter than leaving one family out: the detector saw neither the family nor its group's
others. The control column then
reads each family with a detector of another group, one that did see it, so that both columns had a family-trained
detector of the same budget. The group detectors' scenes are reprinted at ``--detector-recolour`` too, in data and
detectors of their own.

``--device cuda`` trains the classifiers and the detector fine-tunes on a GPU where there is one (the crop jitter
and the detector's augmentations stay on the CPU); reads always run on the CPU, as the app does. Each run's
``run.json`` and each detector's ``detector.json`` say where it trained. Detectors of more than the first
tables' one fine-tuning epoch carry ``-epochs{N}`` in their names, and the family-free detector's data carries
``-scenes{N}`` when it holds another number of scenes than the first tables' 1 800; the table before this
detector is ``--free-detector-scenes 1800 --detector-epochs 1 --detector-weight 0.5``.

Training data and runs are kept under ``--runs``; a finished run is not trained again, so the script resumes. A
finished run whose recipe (families, base, budget, epochs, rate, redraws) is not the one asked for stops the
script rather than being read as if it were.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

ALL = "all"  # the control run's name: every family, the same crop budget
# The fixed crop budget of the runs before the whole pool became the default (--budget 0). Run names keep
# it as the untagged one, so that runs trained with it stay cached under their names and are not read as whole.
BUDGET = 100_000
# The chance that a light face in the classifier's reprinted scenes is reprinted (--reprint). Crops of the
# crop-sized dark redraw alone leave the table and the figure's edges unlike a photo, and a classifier trained on
# them still read most yellow figures on a dark face as another colour (models/TRAINING-HISTORY.md, "Reprinted
# faces for the classifier").
REPRINT_SHARE = 0.7
# Reprinted scenes per training family (--reprint-scenes). Twice the first tables' 200 read a dark deck nobody
# trained on 9 exact scenes better (models/TRAINING-HISTORY.md, "Twice the reprinted scenes"). Data and runs with
# another number than REPRINT_SCENES_UNTAGGED, the first tables', carry it in their names, so that those stay
# cached under theirs and a set of another size is not taken for the one asked for.
REPRINT_SCENES = 400
REPRINT_SCENES_UNTAGGED = 200
# Epochs per classifier run (--epochs). Two read the three families nobody drew anything like 13 exact scenes of
# 300 better than one, beside the family-free detector with reprinted faces (models/TRAINING-HISTORY.md, "Two
# epochs and a family-free detector with reprinted faces"). Runs of another count than the first tables' one
# carry ``-epochs{N}`` in their names.
EPOCHS = 2
# The chance that a light face in the scenes of a detector the script fine-tunes is reprinted
# (--detector-recolour): the family-free one, or the group detectors. Chosen with EPOCHS, same history section.
DETECTOR_RECOLOUR = 0.4
# The family-free detector's seed stream (data and training), apart from the group detectors' (60-66).
FREE_DETECTOR_SEED = 67
# The family-free detector: 6 epochs on 3 600 scenes, not averaged with its start. It missed 22 and 25 fewer cards
# of the dark and colour-face families than one epoch on 1 800 averaged at one half, and the light rows read as
# before (models/TRAINING-HISTORY.md, "A family-free detector trained longer, not averaged"): the average kept half
# of a start that never saw a reprinted face.
FREE_DETECTOR_SCENES = 3600
DETECTOR_EPOCHS = 6
DETECTOR_WEIGHT = 1.0
# The first tables' family-free detector saw 1 800 scenes: data of another count carries it in its name.
FREE_DETECTOR_SCENES_UNTAGGED = 1800


def _data(runs: Path, family: Any, scenes: int, vignettes: int, workers: int) -> Path:
    """One family's training crops (scenes drawn from that family only, and vignettes of it)."""
    from vision.dataset import vignette_crops_path, write_dataset, write_vignette_crops
    from vision.families import FAMILIES

    root = runs / "data" / family.value
    seed = 40 + FAMILIES.index(family)  # a seed stream per family, apart from the shipped run's (21, 24)
    if not (root / "data.yaml").exists():
        write_dataset(
            root,
            train=scenes,
            val=max(2, scenes // 10),
            heldout=0,
            seed=seed,
            workers=workers,
            families=(family,),
        )
    if not vignette_crops_path(root, vignettes, (family,)).exists():
        write_vignette_crops(root, vignettes, seed=seed, workers=workers, families=(family,))
    return root


def _scenes_tag(scenes: int) -> str:
    return "" if scenes == REPRINT_SCENES_UNTAGGED else f"-scenes{scenes}"


def _reprinted(runs: Path, family: Any, scenes: int, share: float, workers: int) -> Path:
    """Crops of ``scenes`` more scenes of ``family`` with its light faces reprinted at the chance ``share``."""
    from vision.dataset import write_dataset
    from vision.families import FAMILIES

    root = runs / "data" / f"{family.value}-reprint{share:g}{_scenes_tag(scenes)}"
    if not (root / "crops_train.npz").exists():
        # A seed stream per family, apart from the family data's (40-45) and the group detectors' (60-66).
        write_dataset(
            root,
            train=scenes,
            val=2,
            heldout=0,
            seed=90 + FAMILIES.index(family),
            workers=workers,
            families=(family,),
            recolour=share,
        )
    return root


def _crops(runs: Path, families: list[Any], args: argparse.Namespace) -> tuple[Any, Any, Any, Any]:
    import numpy as np

    from vision.dataset import vignette_crops_path

    xs, ys, vx, vy = [], [], [], []
    for f in families:
        root = runs / "data" / f.value
        for part in (
            np.load(root / "crops_train.npz"),
            np.load(vignette_crops_path(root, args.vignettes, (f,))),
        ):
            xs.append(part["x"])
            ys.append(part["y"])
        val = np.load(root / "crops_val.npz")
        vx.append(val["x"])
        vy.append(val["y"])
    for f in families if args.reprint else ():
        part = np.load(
            _reprinted(runs, f, args.reprint_scenes, args.reprint, args.workers) / "crops_train.npz"
        )
        xs.append(part["x"])
        ys.append(part["y"])
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(vx), np.concatenate(vy)


def _start(args: argparse.Namespace) -> Path:
    """The folder of the detector every run starts from (``--detector``, else the shipped one)."""
    from vision.detector import MODELS_DIR

    return Path(args.detector or MODELS_DIR)


def _copy_detector(src: Path, dst: Path) -> None:
    """A detector's three files (export, served graph, weights) from one models folder into another."""
    from vision.detector import DETECTOR_FILE, DYNAMIC_DETECTOR_FILE

    for f in (DETECTOR_FILE, DYNAMIC_DETECTOR_FILE, "card-index.pt"):
        shutil.copy(src / f, dst / f)


def _train(runs: Path, name: str, families: list[Any], args: argparse.Namespace) -> Path:
    """A models folder: the classifier fine-tuned on ``families``' crops, beside the detector of ``--detector``."""
    import numpy as np
    import torch

    from vision.detector import CLASSIFIER_FILE
    from vision.train import CLASSIFIER_NAME, _classifier_init, classifier_width, train_classifier

    out = runs / name
    recipe = {
        "families": [f.value for f in families],
        "budget": args.budget,
        "epochs": args.epochs,
        "lr": args.lr,
        "dark_share": args.dark_share,
        "reprint": args.reprint,
        "reprint_scenes": args.reprint_scenes if args.reprint else 0,
        "base": str(args.base),
    }
    if (out / "run.json").exists():
        done = json.loads((out / "run.json").read_text())
        # Runs written before these were recorded were trained at the fixed ``BUDGET``, with no reprint or redraw.
        for key, old in (("budget", BUDGET), ("reprint", 0), ("reprint_scenes", 0), ("dark_share", 0.0)):
            done.setdefault(key, old)
        changed = sorted(k for k, v in recipe.items() if done.get(k) != v)
        if changed:
            raise SystemExit(
                f"{out} was trained with another {', '.join(changed)}: give another --runs folder"
            )
        return out
    torch.set_num_threads(args.threads)
    xtr, ytr, xva, yva = _crops(runs, families, args)
    if args.budget and len(xtr) > args.budget:
        # Every run sees the same number of crops, so the control's extra family is not extra training.
        keep = np.random.default_rng(0).permutation(len(xtr))[: args.budget]
        xtr, ytr = xtr[keep], ytr[keep]
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    state = _classifier_init(args.base, 32)
    t0 = time.time()
    metrics = train_classifier(
        (xtr, ytr),
        (xva, yva),
        work,
        epochs=args.epochs,
        seed=23,
        init=state,
        width=classifier_width(state),
        max_lr=args.lr,
        dark_share=args.dark_share,
        device=args.device,
    )
    seconds = time.time() - t0
    shutil.copy(work / f"{CLASSIFIER_NAME}.onnx", out / CLASSIFIER_FILE)
    shutil.copy(work / f"{CLASSIFIER_NAME}.pt", out / f"{CLASSIFIER_NAME}.pt")
    # The detector's weights too, so that a deck can be taught from this folder (bench_teaching.py --base).
    _copy_detector(_start(args), out)
    run = {**recipe, "crops": len(xtr), "seconds": round(seconds), "device": args.device, "metrics": metrics}
    (out / "run.json").write_text(json.dumps(run, indent=1))
    print(f"  trained {name}: {len(xtr)} crops, {seconds:.0f} s, {metrics}", flush=True)
    return out


def _groups(text: str | None) -> list[tuple[Any, ...]]:
    """``"a,b;c"`` as groups of families; every family in at most one group."""
    from bench_families import _families

    from vision.families import Family

    if not text:
        return []
    groups = [tuple(Family(f) for f in _families(part)) for part in text.split(";") if part.strip()]
    named = [f for g in groups for f in g]
    if len(named) != len(set(named)):
        raise SystemExit("--detector-groups: a family stands in more than one group")
    return groups


def _group_name(group: tuple[Any, ...]) -> str:
    return "+".join(f.value for f in group)


def _fine_tune_detector(
    out: Path, data: Path, train: list[Path], seed: int, args: argparse.Namespace, record: dict[str, Any]
) -> None:
    """The detector of ``--detector`` fine-tuned ``--detector-epochs`` 640-px epochs on the scenes under ``train``
    (validated on ``data``'s), saved in ``out`` with its served graph; ``record`` and the training time go
    beside it."""
    from vision.modelfiles import make_dynamic_detector
    from vision.train import TrainConfig, train_detector

    mix = out.parent / "mix"
    mix.mkdir(parents=True, exist_ok=True)
    images = ", ".join(str(t.resolve() / "images" / "train") for t in train)
    (mix / "data.yaml").write_text(
        f"path: {data.resolve()}\ntrain: [{images}]\nval: images/val\nnames:\n  0: index\n"
    )
    start = _start(args)
    cfg = TrainConfig(
        out=out,
        data=mix,
        heldout_images=0,
        init=start / "card-index.pt",
        epochs=args.detector_epochs,
        imgsz=640,
        threads=args.threads,
        seed=seed,
        device=args.device,
    )
    t1 = time.time()
    onnx = train_detector(cfg, mix / "data.yaml", out.parent / "work")
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(onnx, out / "card-index.onnx")
    make_dynamic_detector(out / "card-index.onnx", out / "card-index-dynamic.onnx")
    shutil.copy(onnx.with_suffix(".pt"), out / "card-index.pt")  # last: it marks the run finished
    run = {
        **record,
        "epochs": args.detector_epochs,
        "device": args.device,
        "train_seconds": round(time.time() - t1),
        "start": str(start),
    }
    (out.parent / "detector.json").write_text(json.dumps(run, indent=1))
    print(f"  {out.parent.name}: {run}", flush=True)


def _recolour_tag(args: argparse.Namespace) -> str:
    # Recoloured faces make other data and another detector: each gets a name of its own.
    return f"-recolour{args.detector_recolour:g}" if args.detector_recolour else ""


def _free_scenes_tag(args: argparse.Namespace) -> str:
    # The family-free detector's data is named by its scene count when that is not the first tables' 1 800.
    scenes = args.free_detector_scenes
    return "" if scenes == FREE_DETECTOR_SCENES_UNTAGGED else f"-scenes{scenes}"


def _epochs_tag(args: argparse.Namespace) -> str:
    # A detector of more fine-tuning epochs than the first tables' one is another detector.
    return "" if args.detector_epochs == 1 else f"-epochs{args.detector_epochs}"


def _tuned_detector(runs: Path, group: tuple[Any, ...], args: argparse.Namespace) -> Path:
    """The detector of ``--detector`` fine-tuned on the families outside ``group`` and the original drawings."""
    from vision.dataset import write_dataset
    from vision.families import FAMILIES

    tag = _recolour_tag(args)
    out = runs / f"detector-without-{_group_name(group)}{tag}{_epochs_tag(args)}" / "tune"
    if (out / "card-index.pt").exists():
        return out
    seen = tuple(f for f in FAMILIES if f not in group)
    data = runs / "data" / f"detector-{_group_name(seen)}{tag}"
    # A seed stream per group, apart from the classifier data's (40-45) and every shipped run's.
    seed = 60 + min(FAMILIES.index(f) for f in group)
    t0 = time.time()
    if not (data / "data.yaml").exists():
        write_dataset(
            data,
            train=args.detector_scenes,
            val=max(2, args.detector_scenes // 20),
            heldout=0,
            seed=seed,
            workers=args.workers,
            crops=False,
            hands=0.3,
            families=seen,
            recolour=args.detector_recolour or None,
        )
    original = runs / "data" / f"detector-original{tag}"
    if args.detector_original and not (original / "data.yaml").exists():
        write_dataset(
            original,
            train=args.detector_original,
            val=0,
            heldout=0,
            seed=66,
            workers=args.workers,
            crops=False,
            hands=0.3,
            recolour=args.detector_recolour or None,
        )
    record = {
        "seen": [f.value for f in seen],
        "scenes": args.detector_scenes,
        "original": args.detector_original,
        "recolour": args.detector_recolour,
        "render_seconds": round(time.time() - t0),
    }
    _fine_tune_detector(out, data, [data, original] if args.detector_original else [data], seed, args, record)
    return out


def _free_detector(runs: Path, args: argparse.Namespace) -> Path:
    """The detector of ``--detector`` fine-tuned on original-design scenes alone, their light faces reprinted at
    ``--detector-recolour``: it still never saw a family (``--free-detector-scenes`` of them)."""
    from vision.dataset import write_dataset

    tag = _recolour_tag(args) + _free_scenes_tag(args)
    out = runs / f"detector-free{tag}{_epochs_tag(args)}" / "tune"
    if (out / "card-index.pt").exists():
        return out
    data = runs / "data" / f"detector-free{tag}"
    scenes = args.free_detector_scenes
    t0 = time.time()
    if not (data / "data.yaml").exists():
        write_dataset(
            data,
            train=scenes,
            val=max(2, scenes // 20),
            heldout=0,
            seed=FREE_DETECTOR_SEED,
            workers=args.workers,
            crops=False,
            hands=0.3,
            recolour=args.detector_recolour,
        )
    record = {
        "seen": [],
        "original": scenes,
        "recolour": args.detector_recolour,
        "render_seconds": round(time.time() - t0),
    }
    _fine_tune_detector(out, data, [data], FREE_DETECTOR_SEED, args, record)
    return out


def _averaged(tune: Path, args: argparse.Namespace) -> Path:
    """A folder with the fine-tuned detector ``tune`` at ``--detector-weight`` (averaged with its start)."""
    from vision.modelfiles import make_dynamic_detector
    from vision.train import average_detectors

    if args.detector_weight >= 1:
        return tune
    out = tune.parent / f"average-{args.detector_weight:g}"
    if not (out / "card-index-dynamic.onnx").exists():
        onnx = average_detectors(
            _start(args) / "card-index.pt",
            tune / "card-index.pt",
            out / "card-index.pt",
            weight=args.detector_weight,
        )
        make_dynamic_detector(onnx, out / "card-index-dynamic.onnx")
    return out


def _group_detector(runs: Path, group: tuple[Any, ...], args: argparse.Namespace) -> Path:
    """A folder with the group's detector at ``--detector-weight`` (the fine-tune averaged with its start)."""
    return _averaged(_tuned_detector(runs, group, args), args)


def _paired(classifier: Path, detector: Path) -> Path:
    """A models folder: the classifier of one run beside the detector of ``detector``."""
    from vision.detector import CLASSIFIER_FILE
    from vision.train import CLASSIFIER_NAME

    out = classifier.parent / f"{classifier.name}@{detector.parent.name}-{detector.name}"
    if not (out / CLASSIFIER_FILE).exists():
        out.mkdir(parents=True, exist_ok=True)
        _copy_detector(detector, out)
        shutil.copy(classifier / f"{CLASSIFIER_NAME}.pt", out / f"{CLASSIFIER_NAME}.pt")
        shutil.copy(classifier / CLASSIFIER_FILE, out / CLASSIFIER_FILE)  # last: it marks the folder whole
    return out


def _read(models: Path, family: str, n: int, pool: ProcessPoolExecutor, first: int) -> dict[str, Any]:
    from bench_families import read_family

    tally = read_family(family, n, pool, models_dir=models, first=first)
    return {
        "precision": tally.precision,
        "recall": tally.recall,
        "exact": tally.exact,
        "scenes": tally.scenes,
        "right": tally.right_cards,
        "read": tally.read_cards,
        "true": tally.true_cards,
        "errors": dict(tally.kinds),
    }


def _measured(models: Path, family: str, n: int, pool: ProcessPoolExecutor, first: int) -> dict[str, Any]:
    """The reading of ``family``'s ``n`` scenes from seed ``first`` on with ``models``, kept beside them."""
    from bench_families import FIRST_SEED

    file = models / (f"read-{family}-{n}.json" if first == FIRST_SEED else f"read-{family}-{n}-{first}.json")
    if file.exists():
        result: dict[str, Any] = json.loads(file.read_text())
        return result
    result = _read(models, family, n, pool, first)
    file.write_text(json.dumps(result, indent=1))
    return result


def _cell(r: dict[str, Any]) -> str:
    return f"{r['precision']:.3f} | {r['recall']:.3f} | {r['exact'] / r['scenes']:.2f} ({r['exact']}/{r['scenes']})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True, help="classifier weights that never saw a family")
    ap.add_argument(
        "--detector",
        type=Path,
        default=None,
        help="a folder with a detector that never saw a family (default: the shipped one, which has)",
    )
    ap.add_argument("--runs", type=Path, default=Path("runs/left-out"))
    ap.add_argument("--scenes", type=int, default=200, help="training scenes per family")
    ap.add_argument("--vignettes", type=int, default=2000, help="training vignettes per family")
    ap.add_argument(
        "--budget", type=int, default=0, help="training crops per run (0, the default: all there are)"
    )
    ap.add_argument("--epochs", type=int, default=EPOCHS)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--read", type=int, default=100, help="scenes of the left-out family read per run")
    ap.add_argument("--families", default="all", help="families to leave out in turn (comma-separated)")
    ap.add_argument("--control", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument(
        "--dark-share",
        type=float,
        default=None,
        help="share of crops redrawn on a dark face while training (default: vision.train.DARK_FACE_SHARE)",
    )
    ap.add_argument(
        "--reprint",
        type=float,
        default=REPRINT_SHARE,
        help="chance that a light face of the classifier's reprinted scenes is reprinted (0: none)",
    )
    ap.add_argument(
        "--reprint-scenes", type=int, default=REPRINT_SCENES, help="reprinted scenes per training family"
    )
    ap.add_argument("--dev", action="store_true", help="read the family dev scenes (seeds 850 000 on)")
    ap.add_argument(
        "--detector-groups",
        default=None,
        help='families left out of the detector together, e.g. "dark,colour-face,printed;classic,tabbed,accessible"',
    )
    ap.add_argument("--detector-scenes", type=int, default=1200, help="family scenes per group detector")
    ap.add_argument("--detector-original", type=int, default=600, help="original-design scenes beside them")
    ap.add_argument(
        "--free-detector-scenes",
        type=int,
        default=FREE_DETECTOR_SCENES,
        help="original-design scenes of the family-free detector",
    )
    ap.add_argument(
        "--detector-epochs",
        type=int,
        default=DETECTOR_EPOCHS,
        help="640-px epochs of each detector fine-tune",
    )
    ap.add_argument(
        "--detector-recolour",
        type=float,
        default=DETECTOR_RECOLOUR,
        help="chance that a light face in a fine-tuned detector's scenes is printed dark or on its colour (0: "
        "without groups, read with --detector as it is)",
    )
    ap.add_argument(
        "--detector-weight",
        type=float,
        default=DETECTOR_WEIGHT,
        help="the fine-tune's share in its average with the start (1: the fine-tune alone)",
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--device",
        default="cpu",
        help='where the classifiers and detector fine-tunes train ("cuda" where there is one); reads stay on the CPU',
    )
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()

    from bench_families import DEV_SEED, FIRST_SEED, _families

    from vision.families import FAMILIES, Family
    from vision.train import DARK_FACE_SHARE

    if args.dark_share is None:
        args.dark_share = DARK_FACE_SHARE
    first = DEV_SEED if args.dev else FIRST_SEED
    tag = f"-reprint{args.reprint:g}{_scenes_tag(args.reprint_scenes)}" if args.reprint else ""
    if args.budget != BUDGET:
        tag += f"-budget{args.budget}" if args.budget else "-whole"
    if args.epochs != 1:
        tag += f"-epochs{args.epochs}"

    left_out = [Family(f) for f in _families(args.families)]
    if any(f not in FAMILIES for f in left_out):
        raise SystemExit("--families: only the families training draws can be left out of it")
    groups = _groups(args.detector_groups)
    group_of = {f: g for g in groups for f in g}
    if groups and any(f not in group_of for f in left_out):
        raise SystemExit("--detector-groups: every family left out must stand in a group")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    t0 = time.time()
    for f in FAMILIES:
        _data(args.runs, f, args.scenes, args.vignettes, args.workers)
        if args.reprint:
            _reprinted(args.runs, f, args.reprint_scenes, args.reprint, args.workers)
    print(f"data: {time.time() - t0:.0f} s", flush=True)
    rows = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        detectors = {g: _group_detector(args.runs, g, args) for g in groups if any(f in g for f in left_out)}
        # Without groups, every run reads with one family-free detector: --detector, or its fine-tune on
        # reprinted faces of the original drawings.
        free = (
            _averaged(_free_detector(args.runs, args), args)
            if not groups and args.detector_recolour
            else None
        )
        for f in left_out:
            models = _train(args.runs, f"without-{f.value}{tag}", [g for g in FAMILIES if g is not f], args)
            if groups:
                models = _paired(models, detectors[group_of[f]])
            elif free:
                models = _paired(models, free)
            rows.append((f, _measured(models, f.value, args.read, pool, first)))
            print(f"  read {f.value} without it: {_cell(rows[-1][1])}", flush=True)
        control = _train(args.runs, ALL + tag, list(FAMILIES), args) if args.control else None
        seen = {}
        for f, _ in rows if control else ():
            # With detector groups, the control reads with a detector that saw the family: another group's.
            others = [g for g in groups if f not in g]
            if others:
                folder = _paired(control, _group_detector(args.runs, others[0], args))
            else:
                folder = _paired(control, free) if free else control
            seen[f] = _measured(folder, f.value, args.read, pool, first)

    print()
    print(
        "| left-out family | precision | recall | exact scenes | missed / colour / figure / extra "
        "| trained on it too: precision | recall | exact scenes |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for f, r in rows:
        e = r["errors"]
        errors = f"{e.get('missed', 0)} / {e.get('colour', 0)} / {e.get('figure', 0)} / {e.get('extra', 0)}"
        note = " (layout partly in the base's data)" if f in (Family.CLASSIC, Family.TABBED) else ""
        print(f"| {f.value}{note} | {_cell(r)} | {errors} | {_cell(seen[f]) if f in seen else '| |'} |")
    names = [f"without-{f.value}{tag}" for f in left_out] + ([ALL + tag] if args.control else [])
    runs = [json.loads((args.runs / n / "run.json").read_text()) for n in names]
    if runs:
        print(
            f"\ntraining: {runs[0]['crops']} crops, {runs[0]['epochs']} epoch(s) per run; "
            f"median {sorted(r['seconds'] for r in runs)[len(runs) // 2]} s per run"
        )
    print(f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
