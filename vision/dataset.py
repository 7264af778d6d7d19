"""Write a synthetic data set: YOLO images + labels for the detector, corner crops for the classifier.

Layout of ``root``::

    data.yaml                     Ultralytics data file (one class: an upright card index)
    images/{train,val}/*.jpg      scenes
    labels/{train,val}/*.txt      YOLO labels
    crops_{split}.npz             classifier crops (x: N x CROP x CROP x 3 BGR uint8, y: class index)
    scenes_{split}.json           ground truth per scene: visible cards by group, in table order

Training and validation scenes come from the training pools (fonts, corner styles, textures); the held-out test
set (``split="heldout"``) comes from the held-out pools and a different seed stream.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.crops import CLASS_OF, CROP, NONE_CLASS, crop_index
from vision.decode import decode
from vision.detections import match_boxes
from vision.detector import CROP_VIEWS, DETECTOR_FILE, Models
from vision.evaluate import truth_groups
from vision.families import Family
from vision.hands import ORIGINAL_DRAW, HandRate
from vision.render import Split
from vision.scene import Scene, make_scene, make_vignette, yolo_lines


def _families(names: tuple[str, ...] | None) -> tuple[Family, ...] | None:
    return None if names is None else tuple(Family(n) for n in names)


def _one(
    args: tuple[int, str, str, bool, dict[str, Any]],
) -> tuple[str, list[list[str]], np.ndarray, np.ndarray]:
    """Render and write one scene: its seed, pool, folder, whether to cut crops, and ``make_scene``'s keyword
    options (the families by name, so that a job pickles plainly)."""
    seed, split_name, out_dir, with_crops, options = args
    split = Split(split_name)  # a pool's name: train, heldout or dev
    scene = make_scene(seed, split, **{**options, "families": _families(options["families"])})
    name = f"{split_name}_{seed:06d}"
    img_dir = Path(out_dir) / "images"
    lab_dir = Path(out_dir) / "labels"
    cv2.imwrite(str(img_dir / f"{name}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (lab_dir / f"{name}.txt").write_text("\n".join(yolo_lines(scene)) + "\n")
    x, y = scene_crops(scene, np.random.default_rng([seed, 7])) if with_crops else _no_crops()
    groups = [list(g) for g in truth_groups(scene)]
    return name, groups, x, y


def _no_crops() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((0, CROP, CROP, 3), np.uint8), np.zeros(0, np.int64)


def scene_crops(
    scene: Scene, rng: np.random.Generator, *, half_hits: int = 4, table: int = 3
) -> tuple[np.ndarray, np.ndarray]:
    """Classifier crops of a scene: two jittered views of every visible index, and "none" crops of what an
    index must not be taken for (upside-down corners, centre figures, and ``half_hits`` boxes half off an
    index and ``table`` squares anywhere)."""
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for pc in scene.cards:
        if not pc.visible:
            continue
        for _ in range(2):
            xs.append(
                crop_index(
                    scene.image,
                    pc.box,
                    shift=(float(rng.normal(0, 0.07)), float(rng.normal(0, 0.07))),
                    zoom=float(rng.uniform(0.88, 1.2)),
                )
            )
            ys.append(CLASS_OF[pc.card])
    h, w = scene.image.shape[:2]
    negs = list(scene.negatives)
    # Background and half-hit boxes too: what a false detection on the table or a neighbour looks like.
    for pc in scene.cards[:half_hits]:
        x0, y0, x1, y1 = pc.box
        bw, bh = x1 - x0, y1 - y0
        negs.append((x0 + 0.6 * bw, y0 + 0.55 * bh, x1 + 0.6 * bw, y1 + 0.55 * bh))
    for _ in range(table):
        s = float(rng.uniform(15, 60))
        x, y = float(rng.uniform(0, w - s)), float(rng.uniform(0, h - s))
        negs.append((x, y, x + s, y + s))
    for n in negs:
        xs.append(crop_index(scene.image, n))
        ys.append(NONE_CLASS)
    return (np.stack(xs), np.array(ys, np.int64)) if xs else _no_crops()


def _vignette_crops(job: tuple[range, tuple[str, ...] | None]) -> tuple[np.ndarray, np.ndarray]:
    seeds, families = job
    xs, ys = [], []
    for seed in seeds:
        # Scenes already show the classifier plenty of table and half-hit boxes; vignettes add faces.
        vignette = make_vignette(seed, _families(families))
        x, y = scene_crops(vignette, np.random.default_rng([seed, 8]), half_hits=0, table=0)
        xs.append(x)
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def vignette_crops_path(root: Path, n: int, families: tuple[Family, ...] | None = None) -> Path:
    """Where the crops of ``n`` vignettes live: named by the count (so asking for more never reuses fewer) and
    the design families they are drawn from."""
    drawn = "" if families is None else "_" + "-".join(sorted(f.value for f in families))
    return root / f"crops_vignettes_{n}{drawn}.npz"


def write_vignette_crops(
    root: Path, n: int, *, seed: int = 0, workers: int = 2, families: tuple[Family, ...] | None = None
) -> Path:
    """Classifier crops of ``n`` vignettes (``vision.scene.make_vignette``: a few cards, each its own design)
    into ``vignette_crops_path(root, n)``; the first ``k`` of them are the ``k`` a smaller count renders."""
    base = seed * 1_000_000
    names = None if families is None else tuple(f.value for f in families)
    chunks = [(range(a, min(a + 250, base + n)), names) for a in range(base, base + n, 250)]
    xs, ys = [], []
    with ProcessPoolExecutor(max_workers=workers) as ex:
        for i, (x, y) in enumerate(ex.map(_vignette_crops, chunks)):
            xs.append(x)
            ys.append(y)
            if (i + 1) % 8 == 0 or i + 1 == len(chunks):
                print(f"  vignettes: {min((i + 1) * 250, n)}/{n}", flush=True)
    out = vignette_crops_path(root, n, families)
    root.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, x=np.concatenate(xs), y=np.concatenate(ys))
    return out


def write_split(
    root: Path,
    split_name: str,
    seeds: range,
    *,
    with_crops: bool,
    workers: int,
    hands: HandRate = ORIGINAL_DRAW,
    families: tuple[Family, ...] | None = None,
    bold_tables: float | None = None,
    recolour: float | None = None,
    loose: float | None = None,
    lone: float | None = None,
) -> None:
    """Render ``seeds`` of one split into ``root`` (``split_name`` in train/val/heldout/dev); ``hands``,
    ``families``, ``bold_tables``, ``recolour``, ``loose`` and ``lone`` as in ``vision.scene.make_scene``."""
    img_dir = root / "images" / split_name
    lab_dir = root / "labels" / split_name
    img_dir.mkdir(parents=True, exist_ok=True)
    lab_dir.mkdir(parents=True, exist_ok=True)
    # Train and val share the training pools but not seeds; held-out and dev have their own pools and seed streams.
    pool_name = Split.TRAIN.value if split_name == "val" else Split(split_name).value
    names = None if families is None else tuple(f.value for f in families)
    # One mapping for every job: each of make_scene's options is named once, here and in its signature.
    options: dict[str, Any] = {
        "hands": hands,
        "families": names,
        "bold_tables": bold_tables,
        "recolour": recolour,
        "loose": loose,
        "lone": lone,
    }
    jobs = [(s, pool_name, str(root / "_tmp" / split_name), with_crops, options) for s in seeds]
    (root / "_tmp" / split_name / "images").mkdir(parents=True, exist_ok=True)
    (root / "_tmp" / split_name / "labels").mkdir(parents=True, exist_ok=True)
    truth: dict[str, list[list[str]]] = {}
    xs, ys = [], []
    with ProcessPoolExecutor(max_workers=workers) as ex:
        for i, (name, groups, x, y) in enumerate(ex.map(_one, jobs, chunksize=4)):
            truth[name] = groups
            xs.append(x)
            ys.append(y)
            if (i + 1) % 100 == 0 or i + 1 == len(jobs):
                print(f"  {split_name}: {i + 1}/{len(jobs)} scenes", flush=True)
    for sub in ("images", "labels"):
        src = root / "_tmp" / split_name / sub
        dst = root / sub / split_name
        for f in src.iterdir():
            os.replace(f, dst / f.name)
    if with_crops:
        np.savez_compressed(root / f"crops_{split_name}.npz", x=np.concatenate(xs), y=np.concatenate(ys))
    (root / f"scenes_{split_name}.json").write_text(json.dumps(truth))


def write_dataset(
    root: Path,
    *,
    train: int,
    val: int,
    heldout: int,
    seed: int = 0,
    workers: int = 2,
    crops: bool = True,
    hands: HandRate = ORIGINAL_DRAW,
    families: tuple[Family, ...] | None = None,
    bold_tables: float | None = None,
    recolour: float | None = None,
    loose: float | None = None,
    lone: float | None = None,
) -> Path:
    """Render a full data set and its ``data.yaml``; returns the path of ``data.yaml``. ``hands``, ``families``,
    ``bold_tables``, ``recolour``, ``loose`` and ``lone`` (as in ``vision.scene.make_scene``) apply to the training
    pools' scenes; held-out scenes are always drawn as they always were."""
    root.mkdir(parents=True, exist_ok=True)
    base = seed * 1_000_000
    starts = {
        "train": (base, train, hands),
        "val": (base + 500_000, val, hands),
        "heldout": (base + 900_000, heldout, ORIGINAL_DRAW),
    }
    for name, (first, count, rate) in starts.items():
        if count or name != "heldout":
            write_split(
                root,
                name,
                range(first, first + count),
                with_crops=crops,
                workers=workers,
                hands=rate,
                families=families if name != "heldout" else None,
                bold_tables=bold_tables if name != "heldout" else None,
                recolour=recolour if name != "heldout" else None,
                loose=loose if name != "heldout" else None,
                lone=lone if name != "heldout" else None,
            )
    data = root / "data.yaml"
    data.write_text(
        f"path: {root.resolve()}\ntrain: images/train\nval: images/val\n"
        + ("test: images/heldout\n" if heldout else "")
        + "names:\n  0: index\n"
    )
    return data


# --- crops as the shipped detector boxes them ------------------------------------------------------------------
# Scene crops are cut around the renderer's own index boxes with random jitter; at serve time the classifier reads
# the detector's boxes instead (a "10" cut short at its "0", a box on a neighbour's edge, on a score pad). Crops of
# fresh scenes boxed by a detector, each named after the true index it covers (or "none"), show the classifier
# exactly what it will be asked to read, in the reader's own crop views.


@functools.cache
def _boxing_models(models_dir: str) -> Models:
    cv2.setNumThreads(1)  # one worker process per core
    return Models(Path(models_dir), threads=1)


def _detector_crops(args: tuple[int, str, HandRate]) -> tuple[np.ndarray, np.ndarray]:
    seed, models_dir, hands = args
    scene = make_scene(seed, Split.TRAIN, hands=hands)
    _, jpg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    image = decode(jpg.tobytes()).image  # as the reader sees a photo
    truth = [pc for pc in scene.cards if pc.visible]
    boxes = _boxing_models(models_dir).detect(image).boxes()
    label = [NONE_CLASS] * len(boxes)
    for i, j in match_boxes(boxes, [t.box for t in truth], 0.5).items():
        label[i] = CLASS_OF[truth[j].card]
    xs = [crop_index(image, b, shift=(dx, dy), zoom=z) for b in boxes for dx, dy, z in CROP_VIEWS]
    ys = [k for k in label for _ in CROP_VIEWS]
    return (np.stack(xs), np.array(ys, np.int64)) if xs else _no_crops()


def detector_crops_path(
    root: Path, n: int, models_dir: Path, seed: int, hands: HandRate = ORIGINAL_DRAW
) -> Path:
    """Where the crops of ``n`` scenes of ``seed``'s stream boxed by the detector in ``models_dir`` live: named by
    the count, the seed, the hand rate and the detector file's digest, so other scenes are never reused."""
    digest = hashlib.sha256((models_dir / DETECTOR_FILE).read_bytes()).hexdigest()[:10]
    rate = "" if hands is ORIGINAL_DRAW else f"_hands{hands:g}"
    return root / f"crops_detector_{n}_seed{seed}{rate}_{digest}.npz"


def write_detector_crops(
    root: Path, n: int, models_dir: Path, *, seed: int = 0, workers: int = 2, hands: HandRate = ORIGINAL_DRAW
) -> Path:
    """Crops of ``n`` fresh training-pool scenes as the detector in ``models_dir`` boxes them, into
    ``detector_crops_path(root, n, models_dir, seed, hands)`` (seeds from ``seed``'s stream, apart from its
    train/val/held-out seeds). ``Models`` loads the classifier too, so the folder needs both files."""
    base = seed * 1_000_000 + 300_000
    jobs = [(s, str(models_dir), hands) for s in range(base, base + n)]
    xs, ys = [], []
    with ProcessPoolExecutor(max_workers=workers) as ex:
        for i, (x, y) in enumerate(ex.map(_detector_crops, jobs, chunksize=8)):
            xs.append(x)
            ys.append(y)
            if (i + 1) % 200 == 0 or i + 1 == n:
                print(f"  detector crops: {i + 1}/{n} scenes", flush=True)
    out = detector_crops_path(root, n, models_dir, seed, hands)
    root.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, x=np.concatenate(xs), y=np.concatenate(ys))
    return out
