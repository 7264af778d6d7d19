"""Card camera figures: accuracy on rendered scenes and 12-MP photo latency, printed (not asserted).

    .venv/bin/python bench/bench_vision.py [--split heldout|val|dev|plain|closeup] [--heldout N] [--runs N]
        [--errors] [--data DIR] [--skip-torch] [--square] [--fp32] [--all-views] [--both-looks] [--turn T]

Accuracy: ``--split heldout`` (the default) scores the held-out scenes, the project's test set: measure it once,
for a configuration chosen on the others. ``val`` scores validation scenes (training designs), ``dev`` scenes of
faces neither pool has, ``plain`` photos of a plainly printed deck (``tests/photo/scenes.py``: 75 seeds x 4
lay-downs), ``closeup`` lone cards and lay-downs filling 22-41 % of the photo's width (where the detector's
second, shrunk look matters). Scenes come from ``--data DIR`` (``datasets/cards``, ``datasets/cards-dev`` for
dev) and are rendered there first when missing (``vision.dataset.write_split``: JPEG quality 92, as every figure
in models/MODEL_CARD.md was measured). ``--errors`` says where the lost cards went (missed by the detector,
dropped as "not a card", misread as another card, read where there is none) and which cards were taken for
which; ``PHASE10_MODELS=DIR`` scores other weights; ``--runs 0`` skips the latency part. ``--turn 90|180|270``
turns every photo that far clockwise before it is read, as one taken from beside or across the table (the reader
turns it back, ``vision.detector.TURNS``).

Configurations, for comparing with what ships: ``--square`` reads with the detector as exported (a 640x640
letterbox) instead of ``card-index-dynamic.onnx``, ``--fp32`` with ``index-classifier.onnx`` even where an int8
twin was made (``vision.modelfiles.make_int8_classifier``; none ships), ``--all-views`` averages every crop view of every index, ``--both-looks`` takes the shrunk look on every
photo rather than only on what the first look takes for a close-up.

Latency: a 4032x3024 JPEG scene (12.2 MP), ``read_photo`` from bytes to groups, median and p90 over runs, split
into decode, detector, classifier and post-processing, for onnxruntime and OpenCV DNN, with Ultralytics/torch
inference on the same decoded image alongside (the ``train`` extra); what decoding at each reduced JPEG size
costs; then, in fresh processes, the first photo (imports and model load included) and ``phase10 check --photo``
as a whole, on a 12-MP photo of a laid-down phase 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision import detector, inference  # noqa: E402
from vision.crops import CLASS_CARDS, NONE_CLASS, crop_index, to_input  # noqa: E402
from vision.decode import decode  # noqa: E402
from vision.detections import Box, Detections, match_boxes  # noqa: E402
from vision.detector import MODELS_DIR, Models, card_classes, get_models  # noqa: E402
from vision.evaluate import Tally, average_precision, truth_groups  # noqa: E402
from vision.inference import Runtime  # noqa: E402
from vision.layout import group_boxes  # noqa: E402
from vision.reader import PhotoReading, read_image, read_photo  # noqa: E402
from vision.render import Split  # noqa: E402
from vision.scene import make_scene  # noqa: E402


def _labels(path: Path, w: int, h: int) -> list[tuple[float, float, float, float]]:
    out = []
    for line in path.read_text().split("\n"):
        p = line.split()
        if len(p) == 5:
            cx, cy, bw, bh = (float(v) for v in p[1:])
            out.append(((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h))
    return out


class Errors:
    """Where each lost card went, over many photos."""

    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()
        self.confusions: Counter[tuple[str, str]] = Counter()
        self.failed_scenes: Counter[str] = Counter()

    def add(self, truth: list[tuple[str, Box]], dets: Detections, reading: PhotoReading, exact: bool) -> None:
        tboxes = [b for _, b in truth]
        to_det = match_boxes(tboxes, dets.xyxy, 0.3)
        to_read = match_boxes(tboxes, [c.box for c in reading.cards], 0.3)
        kinds: set[str] = set()
        for i, (card, _) in enumerate(truth):
            if i in to_read:
                got = str(reading.cards[to_read[i]].card)
                if got != card:
                    self.confusions[(card, got)] += 1
                    kinds.add("misread")
            elif i in to_det:
                kinds.add("dropped as not a card")
            else:
                kinds.add("missed by the detector")
        extra = len(reading.cards) - len(to_read)
        if extra:
            kinds.add("read where there is no card")
        for k in kinds:
            self.kinds[k] += 1
        n_miss = sum(1 for i in range(len(truth)) if i not in to_read and i not in to_det)
        n_drop = sum(1 for i in range(len(truth)) if i not in to_read and i in to_det)
        self.kinds["cards missed by the detector"] += n_miss
        self.kinds["cards dropped as not a card"] += n_drop
        self.kinds["cards misread"] += sum(
            1 for i, j in to_read.items() if str(reading.cards[j].card) != truth[i][0]
        )
        self.kinds["readings where there is no card"] += extra
        if not exact:
            self.failed_scenes[" + ".join(sorted(kinds)) or "cards right, groups or order wrong"] += 1

    def report(self) -> None:
        print("  where cards went wrong:")
        for k in (
            "cards missed by the detector",
            "cards dropped as not a card",
            "cards misread",
            "readings where there is no card",
        ):
            print(f"    {k:34s} {self.kinds[k]}")
        print("  failed scenes by cause:")
        for k, v in self.failed_scenes.most_common():
            print(f"    {v:4d}  {k}")
        print("  misreadings (truth -> read), commonest first:")
        print("    " + ", ".join(f"{a}->{b} {v}" for (a, b), v in self.confusions.most_common(24)))


# (image, truth groups, truth index boxes in the order of the groups' cards, or None where a set has none)
Item = tuple[np.ndarray, list[tuple[str, ...]], list[Box] | None]

# Seeds of the rendered splits (as in vision.dataset.write_dataset, seed 0) and the pool each draws from.
SPLIT_SEEDS = {"heldout": 900_000, "val": 500_000, "dev": 800_000}
DEFAULT_SCENES = {"heldout": 300, "val": 400, "dev": 600}
PLAIN_LAY_DOWNS = (
    "R9 B10 G11 | Y8 R12",
    "R7 B7 G7 | G3 Y4 W B6",
    "B10 B11 B12 R10 | G12 Y12 R12",
    "B5 R5 W | G8 Y8 W",
)
CLOSE_LAY_DOWNS = ("R9 B10 G11", "R7 B7 G7 B8", "W B12 Y3", "G5 R5", "B10 B11 B12 R10 S")


def rendered_scenes(split: str, n: int, data: Path) -> tuple[list[Item], str]:
    """The first ``n`` scenes of a rendered split in ``data``, rendered there first when it has none."""
    truth_file = data / f"scenes_{split}.json"
    if not truth_file.exists():
        from vision.dataset import write_split

        first = SPLIT_SEEDS[split]
        print(f"rendering {n} {split} scenes into {data} (seeds {first}-{first + n - 1})", flush=True)
        write_split(data, split, range(first, first + n), with_crops=False, workers=os.cpu_count() or 1)
    truth = json.loads(truth_file.read_text())
    items: list[Item] = []
    for name in sorted(truth)[:n]:
        img = cv2.imread(str(data / "images" / split / f"{name}.jpg"))
        h, w = img.shape[:2]
        boxes = _labels(data / "labels" / split / f"{name}.txt", w, h)
        groups = [tuple(g) for g in truth[name]]
        if sum(len(g) for g in groups) != len(boxes):
            # Older data sets stored every card, hidden ones too: render the scene again for its truth.
            seed = int(name.split("_")[1])
            groups = truth_groups(make_scene(seed, Split(split) if split != "val" else Split.TRAIN))
        items.append((img, groups, boxes))
    return items, f"{len(items)} scenes from {data}/images/{split}"


def plain_deck(n: int) -> tuple[list[Item], str]:
    """Photos of a plainly printed deck, white cards fanned on white cards (``tests/photo/scenes.py``), decoded
    as the app decodes an upload."""
    from tests.photo.scenes import phase_scene

    items: list[Item] = []
    for seed in range(20, 95):
        for lay in PLAIN_LAY_DOWNS:
            jpeg, truth = phase_scene(lay, seed=seed)
            items.append(
                (decode(jpeg).image, [tuple(g.split()) for g in lay.split(" | ")], [b for _, b in truth])
            )
    items = items[:n]
    return items, f"{len(items)} plain-deck photos ({len(PLAIN_LAY_DOWNS)} lay-downs, seeds 20-94)"


def close_ups(n: int) -> tuple[list[Item], str]:
    """Lone cards 22, 31 and 41 % of the photo's width (8 cards x 6 designs x both ways up, as in
    tests/vision/test_reader.py) and plain-deck lay-downs whose cards are 22-40 % of it."""
    from companion.rules.cards import parse_cards
    from tests.photo.scenes import phase_scene
    from tests.vision.test_reader import _one_card_photo

    items: list[Item] = []
    for width in (140, 200, 260):
        for card in parse_cards("R7 B12 G6 Y9 R1 B10 W S"):
            for seed in range(6):
                for flip in (False, True):
                    items.append((_one_card_photo(card, width, seed, flip), [(str(card),)], None))
    for seed in range(100, 120):
        for i, lay in enumerate(CLOSE_LAY_DOWNS):
            k = len(lay.split())
            frac = (0.22, 0.28, 0.34, 0.40)[(seed + i) % 4]
            jpeg, truth = phase_scene(
                lay, seed=seed, card_width=min(frac * 1024, 0.84 * 1024 / ((k - 1) * 0.36 + 1))
            )
            items.append((decode(jpeg).image, [tuple(lay.split())], [b for _, b in truth]))
    items = items[:n]
    lone = sum(boxes is None for _, _, boxes in items)
    return items, f"{len(items)} close-ups ({lone} lone cards, {len(items) - lone} lay-downs)"


def score(
    n: int | None,
    runtime: Runtime,
    split: str = "heldout",
    errors: bool = False,
    data: Path | None = None,
    turn: int = 0,
) -> dict[str, float]:
    data = data or ROOT / "datasets" / ("cards-dev" if split == "dev" else "cards")
    if split == "plain":
        items, source = plain_deck(n or 300)
    elif split == "closeup":
        items, source = close_ups(n or 388)
    else:
        items, source = rendered_scenes(split, n or DEFAULT_SCENES[split], data)
    if turn:
        # The photos as taken from another side of the table; their label boxes are the upright photo's, so no mAP.
        items = [(detector.turned(img, turn), groups, None) for img, groups, _ in items]
        source += f", each turned {turn} degrees clockwise"
    models = get_models(runtime)
    tally = Tally()
    turns: Counter[int] = Counter()
    errs = Errors()
    preds, truths = [], []
    for img, groups, boxes in items:
        dets = models.detect(img)
        if boxes is not None:
            preds.append(list(zip(dets.confidence.tolist(), dets.boxes(), strict=True)))
            truths.append(boxes)
        reading = read_image(img, runtime=runtime)
        turns[reading.turned] += 1
        exact = tally.add(groups, [[str(c) for c in g] for g in reading.groups])
        if errors and boxes is not None:
            # Label lines list the visible cards in the order of the truth groups.
            errs.add(list(zip((c for g in groups for c in g), boxes, strict=True)), dets, reading, exact)
    print(f"{split}: {source}")
    if truths:
        ap = average_precision(preds, truths)
        of = "" if len(truths) == len(items) else f" (of the {len(truths)} with index boxes)"
        print(f"  index mAP50            {ap:.3f}{of}")
    else:
        ap = float("nan")
    print(f"  card precision         {tally.precision:.4f}  ({tally.right_cards}/{tally.read_cards})")
    print(f"  card recall            {tally.recall:.4f}  ({tally.right_cards}/{tally.true_cards})")
    print(f"  exact scenes           {tally.exact_rate:.3f}  ({tally.exact}/{tally.scenes})")
    print("  read turned            " + ", ".join(f"{t}: {k}" for t, k in sorted(turns.items())))
    if errors:
        errs.report()
    crops_file = data / f"crops_{split}.npz"
    if crops_file.exists():
        # The classifier alone, one view per crop, on the index crops rendered with the scenes (cards only).
        crops = np.load(crops_file)
        cards = crops["y"] != NONE_CLASS
        x, y = crops["x"][cards], crops["y"][cards]
        pred = np.concatenate(
            [models.classify_crops(x[i : i + 512]).argmax(1) for i in range(0, len(x), 512)]
        )
        print(
            f"  classifier on crops    {float((pred == y).mean()):.4f}  ({int((pred == y).sum())}/{len(y)} cards)"
        )
    return {"map50": ap, "precision": tally.precision, "recall": tally.recall, "exact": tally.exact_rate}


def _photo_12mp() -> bytes:
    scene = make_scene(900_123, Split.HELDOUT, size=(4032, 3024))
    ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return buf.tobytes()


def _stats(xs: list[float]) -> str:
    xs = sorted(xs)
    p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
    return f"median {statistics.median(xs):6.1f} ms  p90 {p90:6.1f} ms"


def _load() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def latency(runs: int, skip_torch: bool) -> None:
    data = _photo_12mp()
    print(f"latency: one 4032x3024 JPEG ({len(data) / 1e6:.1f} MB), {runs} runs after 2 warm-ups ({_load()})")
    for runtime in Runtime:
        models = get_models(runtime)
        for _ in range(2):
            read_photo(data, runtime=runtime)
        keys = ("decode", "detector", "classifier", "post", "total")
        t: dict[str, list[float]] = {k: [] for k in keys}
        for _ in range(runs):
            r = read_photo(data, runtime=runtime)
            for k in t:
                t[k].append(r.timings[k])
        what = (
            f"{'any-size' if models.dynamic else 'square'} detector, "
            f"{'int8' if models.int8 else 'fp32'} classifier"
            if runtime is Runtime.ONNXRUNTIME
            else "the exports as trained"
        )
        print(f"  {runtime.value:12s} total {_stats(t['total'])}  ({what})")
        for k in keys[:-1]:
            print(f"  {'':12s} {k:10s} {_stats(t[k])}")
    _decode_sizes(data, runs)
    _fresh_processes(max(3, runs // 3))
    print(f"  ({_load()} at the end)")
    if skip_torch:
        return
    try:
        os.environ["YOLO_OFFLINE"] = "1"
        import torch
        from ultralytics.models import YOLO

        from vision.train import _classifier_net, classifier_width
    except ImportError:
        print("  ultralytics/torch: not installed (train extra)")
        return
    torch.set_num_threads(os.cpu_count() or 2)
    img = decode(data).image
    det = YOLO(str(MODELS_DIR / "card-index.pt"))
    state = torch.load(MODELS_DIR / "index-classifier.pt", map_location="cpu")
    net = _classifier_net(len(CLASS_CARDS), classifier_width(state))
    net.load_state_dict(state)
    net.eval()
    imgsz = get_models(Runtime.ONNXRUNTIME).imgsz
    det_ms = []
    for i in range(runs + 2):
        t0 = time.perf_counter()
        det.predict(img, imgsz=imgsz, conf=0.25, iou=0.5, verbose=False)
        if i >= 2:
            det_ms.append((time.perf_counter() - t0) * 1000)
    times = []
    for i in range(runs + 2):
        t0 = time.perf_counter()
        res = det.predict(img, imgsz=imgsz, conf=0.25, iou=0.5, verbose=False)[0]
        boxes = [tuple(map(float, b)) for b in res.boxes.xyxy.tolist()]
        if boxes:
            with torch.no_grad():
                x = torch.from_numpy(to_input(np.stack([crop_index(img, b) for b in boxes])))
                probs = torch.softmax(net(x), 1).numpy()
            classes, _ = card_classes(probs, res.boxes.conf.numpy())
            group_boxes([b for b, k in zip(boxes, classes.tolist(), strict=True) if k != NONE_CLASS])
        if i >= 2:
            times.append((time.perf_counter() - t0) * 1000)
    print(
        f"  {'torch':12s} inference+post {_stats(times)} (Ultralytics predict + torch classifier, one crop view)"
    )
    print(f"  {'':12s} {'detector':9s} {_stats(det_ms)} (Ultralytics predict)")


# A fresh interpreter reading one photo twice: imports, the first photo (models loaded on the way), the second.
_FIRST_PHOTO = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
from vision.reader import read_photo
t1 = time.perf_counter()
read_photo(sys.argv[2])
t2 = time.perf_counter()
read_photo(sys.argv[2])
t3 = time.perf_counter()
print((t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000)
"""


def _decode_sizes(data: bytes, runs: int) -> None:
    """What cv2.imdecode costs at each reduced JPEG size (vision/decode.py picks the size; the detector's input
    is the smallest size it can use without enlarging the photo)."""
    buf = np.frombuffer(data, np.uint8)
    imgsz = get_models(Runtime.ONNXRUNTIME).imgsz
    for name, flag in (
        ("full", cv2.IMREAD_COLOR),
        ("1/2", cv2.IMREAD_REDUCED_COLOR_2),
        ("1/4", cv2.IMREAD_REDUCED_COLOR_4),
        ("1/8", cv2.IMREAD_REDUCED_COLOR_8),
    ):
        ms = []
        for _ in range(max(3, runs // 2) if name == "full" else runs):
            t0 = time.perf_counter()
            img = cv2.imdecode(buf, flag | cv2.IMREAD_IGNORE_ORIENTATION)
            ms.append((time.perf_counter() - t0) * 1000)
        fits = "" if max(img.shape[:2]) >= imgsz else f", below the detector's {imgsz}-px input"
        print(f"  cv2.imdecode {name:4s} {_stats(ms)}  ({img.shape[1]}x{img.shape[0]}{fits})")


def _fresh_processes(n: int) -> None:
    """The first photo of a new process and ``phase10 check --photo`` as a whole, on a 12-MP phase-2 photo."""
    from tests.photo.scenes import phase_photo

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "phase.jpg"
        path.write_bytes(phase_photo("R7 B7 G7 | G3 Y4 W B6", size=(4032, 3024), quality=90))
        parts: list[list[float]] = [[], [], [], []]
        for _ in range(n):
            t0 = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-c", _FIRST_PHOTO, str(ROOT), str(path)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            parts[3].append((time.perf_counter() - t0) * 1000)
            for k, v in enumerate(out.split()):
                parts[k].append(float(v))
        print(f"  fresh process, {n} runs (shipped configuration):")
        for k, what in enumerate(("imports", "first photo, models loaded", "second photo", "whole process")):
            print(f"    {what:28s} {_stats(parts[k])}")
        script = Path(sys.executable).with_name("phase10")
        cmd = [str(script)] if script.exists() else [sys.executable, "-m", "companion.cli"]
        check = [*cmd, "check", "--photo", str(path), "--phase", "2", "--json"]
        wall = []
        for _ in range(n):
            t0 = time.perf_counter()
            done = subprocess.run(check, capture_output=True, text=True, cwd=ROOT)
            wall.append((time.perf_counter() - t0) * 1000)
        verdict = json.loads(done.stdout).get("valid") if done.stdout.strip() else done.stderr.strip()[-200:]
        print(f"    {'phase10 check --photo':28s} {_stats(wall)}  (valid: {verdict})")


def configure(args: argparse.Namespace) -> str:
    """Apply the configuration flags; returns what they chose, in words."""
    if args.spinning:
        plain_options = inference.session_options

        def spinning(threads: int | None = None) -> object:
            opts = plain_options(threads)
            opts.add_session_config_entry("session.intra_op.allow_spinning", "1")
            return opts

        inference.session_options = spinning
    if args.square or args.fp32 or args.spinning:
        key = (Runtime.ONNXRUNTIME.value, str(MODELS_DIR))
        detector._models[key] = Models(MODELS_DIR, any_size=not args.square, int8=not args.fp32)
    if args.all_views:
        detector.SURE_VIEW = math.inf
    if args.both_looks:
        detector.CLOSE_UP_FEW = sys.maxsize
    if args.as_taken:
        detector.TURNS = (0,)
    enlarged = args.enlarged
    if enlarged != "small":
        detector.SMALL_INDEX = math.inf if enlarged == "always" else 0.0
    models = get_models(Runtime.ONNXRUNTIME)
    return ", ".join(
        (
            "any-size detector" if models.dynamic else "square detector",
            "int8 classifier" if models.int8 else "fp32 classifier",
            "every crop view" if args.all_views else f"more views below {detector.SURE_VIEW}",
            "both looks always" if args.both_looks else "shrunk look for close-ups",
            {"small": "enlarged look for small indexes", "always": "enlarged look unless a close-up"}.get(
                enlarged, "no enlarged look"
            ),
            "spinning threads" if args.spinning else "sleeping threads",
            "the photo as it came only" if args.as_taken else "the photo turned too (upside down, sideways)",
        )
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--heldout", type=int, help="how many scenes to score (default: the whole split)")
    ap.add_argument("--split", choices=("heldout", "val", "dev", "plain", "closeup"), default="heldout")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--runtime", type=Runtime, choices=list(Runtime), default=Runtime.ONNXRUNTIME)
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--errors", action="store_true", help="where the lost cards went")
    ap.add_argument(
        "--data", type=Path, help="a rendered data set (default datasets/cards, datasets/cards-dev)"
    )
    ap.add_argument("--square", action="store_true", help="the detector as exported, in a square letterbox")
    ap.add_argument("--fp32", action="store_true", help="the fp32 classifier, not its int8 twin")
    ap.add_argument("--all-views", action="store_true", help="every crop view of every index")
    ap.add_argument("--both-looks", action="store_true", help="the shrunk look on every photo")
    ap.add_argument("--spinning", action="store_true", help="onnxruntime threads spin between ops")
    ap.add_argument(
        "--enlarged",
        choices=("small", "always", "never"),
        default="small",
        help="the enlarged look: for small indexes (served), on every photo but close-ups, or never",
    )
    ap.add_argument(
        "--as-taken",
        action="store_true",
        help="read the photo only as it came, not turned half round or sideways (the reader before)",
    )
    ap.add_argument(
        "--turn",
        type=int,
        choices=(0, 90, 180, 270),
        default=0,
        help="turn every photo this far clockwise first, as one taken from across or beside the table",
    )
    args = ap.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, {_load()}"
    )
    size = sum(p.stat().st_size for p in MODELS_DIR.iterdir())
    print(f"models: {MODELS_DIR} ({size / 2**20:.1f} MiB in all)")
    print(f"configuration: {configure(args)}")
    if args.heldout != 0:
        score(args.heldout, args.runtime, args.split, args.errors, args.data, args.turn)
    if args.runs > 0:
        latency(args.runs, args.skip_torch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
