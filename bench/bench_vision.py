"""Card camera figures: held-out accuracy and 12-MP photo latency, printed (not asserted).

    .venv/bin/python bench/bench_vision.py [--heldout N] [--split heldout|val] [--runs N] [--skip-torch]

``--split val`` scores the validation scenes (training designs) instead, for choosing between models without
looking at the held-out set; ``--runs 0`` skips the latency part; ``PHASE10_MODELS=DIR`` scores other weights;
``--data DIR`` scores another rendered data set; ``--errors`` says where the lost cards went (missed by the detector, dropped as "not a card", misread as
another card, read where there is none) and which cards were taken for which.

Held-out: the scenes in datasets/cards/images/heldout (rendered by ``phase10 train`` with held-out fonts, corner
styles and table textures and their own seeds), or freshly rendered held-out scenes when that folder is missing.
Latency: a 4032x3024 JPEG scene (12.2 MP), ``read_photo`` from bytes to groups, median and p90 over runs, split
into decode, inference (detector + classifier) and post-processing, for onnxruntime and OpenCV DNN, with
Ultralytics/torch inference on the same decoded image alongside (the ``train`` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.crops import CLASS_CARDS, NONE_CLASS, crop_index, to_input  # noqa: E402
from vision.decode import decode  # noqa: E402
from vision.detector import MODELS_DIR, card_of, get_models  # noqa: E402
from vision.evaluate import Tally, average_precision, match_boxes, truth_groups  # noqa: E402
from vision.layout import group_boxes  # noqa: E402
from vision.reader import read_image, read_photo  # noqa: E402
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

    def add(
        self, truth: list[tuple[str, tuple[float, float, float, float]]], dets, reading, exact: bool
    ) -> None:
        tboxes = [b for _, b in truth]
        to_det = match_boxes(tboxes, [d.box for d in dets], 0.3)
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


def heldout(
    n: int, runtime: str, split: str = "heldout", errors: bool = False, data: Path | None = None
) -> dict[str, float]:
    data = data or ROOT / "datasets" / "cards"
    truth_file = data / f"scenes_{split}.json"
    items: list[tuple[np.ndarray, list[tuple[str, ...]], list[tuple[float, float, float, float]]]] = []
    if truth_file.exists():
        truth = json.loads(truth_file.read_text())
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
        source = f"{len(items)} scenes from {data}/images/{split}"
    elif split != "heldout":
        raise SystemExit(f"{truth_file} missing: render the data set first (phase10 train)")
    else:
        for seed in range(900_000, 900_000 + n):
            s = make_scene(seed, Split.HELDOUT)
            items.append((s.image, truth_groups(s), [pc.box for pc in s.cards if pc.visible]))
        source = f"{len(items)} freshly rendered held-out scenes"
    models = get_models(runtime)
    tally = Tally()
    errs = Errors()
    preds, truths = [], []
    for img, groups, boxes in items:
        dets = models.detect(img)
        preds.append([(d.score, d.box) for d in dets])
        truths.append(boxes)
        reading = read_image(img, runtime=runtime)
        exact = tally.add(groups, [[str(c) for c in g] for g in reading.groups])
        if errors:
            # Label lines list the visible cards in the order of the truth groups.
            errs.add(list(zip((c for g in groups for c in g), boxes, strict=True)), dets, reading, exact)
    ap = average_precision(preds, truths)
    print(f"{split}: {source}")
    print(f"  index mAP50            {ap:.3f}")
    print(f"  card precision         {tally.precision:.4f}  ({tally.right_cards}/{tally.read_cards})")
    print(f"  card recall            {tally.recall:.4f}  ({tally.right_cards}/{tally.true_cards})")
    print(f"  exact scenes           {tally.exact_rate:.3f}  ({tally.exact}/{tally.scenes})")
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


def latency(runs: int, skip_torch: bool) -> None:
    data = _photo_12mp()
    print(f"latency: one 4032x3024 JPEG ({len(data) / 1e6:.1f} MB), {runs} runs after 2 warm-ups")
    for runtime in ("onnxruntime", "opencv"):
        get_models(runtime)
        for _ in range(2):
            read_photo(data, runtime=runtime)
        t: dict[str, list[float]] = {"decode": [], "inference": [], "post": [], "total": []}
        for _ in range(runs):
            r = read_photo(data, runtime=runtime)
            for k in t:
                t[k].append(r.timings[k])
        print(f"  {runtime:12s} total {_stats(t['total'])}")
        for k in ("decode", "inference", "post"):
            print(f"  {'':12s} {k:9s} {_stats(t[k])}")
        # The inference split: the detector alone on the decoded image (the rest is the classifier's crops).
        img = decode(data).image
        models = get_models(runtime)
        det_ms = []
        for _ in range(runs):
            t0 = time.perf_counter()
            models.detect(img)
            det_ms.append((time.perf_counter() - t0) * 1000)
        print(f"  {'':12s} {'detector':9s} {_stats(det_ms)}")
    if skip_torch:
        return
    try:
        os.environ["YOLO_OFFLINE"] = "1"
        import torch
        from ultralytics import YOLO

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
    models = get_models("onnxruntime")
    imgsz = models.imgsz
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
            scores = res.boxes.conf.tolist()
            kept = [
                b
                for b, p, s in zip(boxes, probs, scores, strict=True)
                if card_of(p, float(s))[0] != NONE_CLASS
            ]
            group_boxes(kept)
        if i >= 2:
            times.append((time.perf_counter() - t0) * 1000)
    print(
        f"  {'torch':12s} inference+post {_stats(times)} (Ultralytics predict + torch classifier, one crop view)"
    )
    print(f"  {'':12s} {'detector':9s} {_stats(det_ms)} (Ultralytics predict)")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--heldout", type=int, default=300, help="how many scenes to score")
    ap.add_argument("--split", choices=("heldout", "val", "dev"), default="heldout")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--runtime", default="onnxruntime")
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--errors", action="store_true", help="where the lost cards went")
    ap.add_argument("--data", type=Path, help="a rendered data set (default datasets/cards)")
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    size = sum(p.stat().st_size for p in MODELS_DIR.glob("*.onnx"))
    print(f"models: {MODELS_DIR} (ONNX {size / 1e6:.1f} MB)")
    heldout(args.heldout, args.runtime, args.split, args.errors, args.data)
    if args.runs > 0:
        latency(args.runs, args.skip_torch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
