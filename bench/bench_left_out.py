"""Leave one design family out: how the camera reads a kind of deck it was never trained on.

For each family of ``vision.families``, a classifier is fine-tuned on crops of the *other* families only, then the
left-out family's scenes are read with it (held-out fonts and tables, the seeds of ``bench_families.py``, the app's
way: JPEG bytes, decoded as an upload, served models). One more classifier, trained the same way on all six
families with the same number of crops, says how much of a row's shortfall is the family being unseen rather than
the short training.

Both start from a classifier that never saw any family (``--base``: the release before the families,
``git show e2ca365:models/index-classifier.pt``), and all read with a detector trained on the original drawings
only (``--detector DIR``: the table of record used the detector before the families, ``card-index.onnx``,
``card-index-dynamic.onnx`` and ``card-index.pt`` of ``git show 25b952e:models/``; the shipped one has seen
every family). The original drawings are coloured figures on white card with bare, patched, tabbed or
underlined corners: the classic family's layout and some of the tabbed family's, so those two rows are not as
unseen as the other four, and the table says so.

    python bench/bench_left_out.py --base BASE.pt --detector DIR [--runs runs/left-out] [--scenes 200]
        [--vignettes 2000] [--read 100] [--families dark,printed] [--control/--no-control] [--dark-share 0.15]
        [--dev]

``--dev`` reads the family dev scenes (seeds 850 000 on), to choose by; ``--dark-share`` sets the share of
training crops redrawn on a dark face (``vision.train.dark_face``).

Training data and runs are kept under ``--runs``; a finished run is not trained again, so the script resumes.
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


def _crops(runs: Path, families: list[Any], vignettes: int) -> tuple[Any, Any, Any, Any]:
    import numpy as np

    from vision.dataset import vignette_crops_path

    xs, ys, vx, vy = [], [], [], []
    for f in families:
        root = runs / "data" / f.value
        for part in (np.load(root / "crops_train.npz"), np.load(vignette_crops_path(root, vignettes, (f,)))):
            xs.append(part["x"])
            ys.append(part["y"])
        val = np.load(root / "crops_val.npz")
        vx.append(val["x"])
        vy.append(val["y"])
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(vx), np.concatenate(vy)


def _train(runs: Path, name: str, families: list[Any], args: argparse.Namespace) -> Path:
    """A models folder: the classifier fine-tuned on ``families``' crops, beside the detector of ``--detector``."""
    import numpy as np
    import torch

    from vision.detector import CLASSIFIER_FILE, DETECTOR_FILE, DYNAMIC_DETECTOR_FILE, MODELS_DIR
    from vision.train import CLASSIFIER_NAME, _classifier_init, classifier_width, train_classifier

    out = runs / name
    if (out / "run.json").exists():
        return out
    torch.set_num_threads(args.threads)
    xtr, ytr, xva, yva = _crops(runs, families, args.vignettes)
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
    )
    seconds = time.time() - t0
    shutil.copy(work / f"{CLASSIFIER_NAME}.onnx", out / CLASSIFIER_FILE)
    shutil.copy(work / f"{CLASSIFIER_NAME}.pt", out / f"{CLASSIFIER_NAME}.pt")
    # The detector's weights too, so that a deck can be taught from this folder (bench_teaching.py --base).
    for f in (DETECTOR_FILE, DYNAMIC_DETECTOR_FILE, "card-index.pt"):
        shutil.copy((args.detector or MODELS_DIR) / f, out / f)
    run = {
        "families": [f.value for f in families],
        "crops": len(xtr),
        "epochs": args.epochs,
        "lr": args.lr,
        "dark_share": args.dark_share,
        "seconds": round(seconds),
        "metrics": metrics,
        "base": str(args.base),
    }
    (out / "run.json").write_text(json.dumps(run, indent=1))
    print(f"  trained {name}: {len(xtr)} crops, {seconds:.0f} s, {metrics}", flush=True)
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
    ap.add_argument("--budget", type=int, default=100_000, help="training crops per run (0: all there are)")
    ap.add_argument("--epochs", type=int, default=1)
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
    ap.add_argument("--dev", action="store_true", help="read the family dev scenes (seeds 850 000 on)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()

    from bench_families import DEV_SEED, FIRST_SEED, _families

    from vision.families import FAMILIES, Family
    from vision.train import DARK_FACE_SHARE

    if args.dark_share is None:
        args.dark_share = DARK_FACE_SHARE
    first = DEV_SEED if args.dev else FIRST_SEED

    left_out = [Family(f) for f in _families(args.families)]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    t0 = time.time()
    for f in FAMILIES:
        _data(args.runs, f, args.scenes, args.vignettes, args.workers)
    print(f"data: {time.time() - t0:.0f} s", flush=True)
    rows = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for f in left_out:
            models = _train(args.runs, f"without-{f.value}", [g for g in FAMILIES if g is not f], args)
            rows.append((f, _measured(models, f.value, args.read, pool, first)))
            print(f"  read {f.value} without it: {_cell(rows[-1][1])}", flush=True)
        control = _train(args.runs, ALL, list(FAMILIES), args) if args.control else None
        seen = {f: _measured(control, f.value, args.read, pool, first) for f, _ in rows} if control else {}

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
    runs = [
        json.loads((args.runs / n / "run.json").read_text())
        for n in os.listdir(args.runs)
        if (args.runs / n / "run.json").exists()
    ]
    if runs:
        print(
            f"\ntraining: {runs[0]['crops']} crops, {runs[0]['epochs']} epoch(s) per run; "
            f"median {sorted(r['seconds'] for r in runs)[len(runs) // 2]} s per run"
        )
    print(f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
