"""Train the two models of the card camera and export them to ONNX (needs the ``train`` extra).

1. ``card-index``: a one-class YOLO detector (Ultralytics, built from ``vision/card-index.yaml``, no pretrained
   weights) that finds each card's upright top-left index.
2. ``index-classifier``: a small CNN that names the card from a crop of that index (48 numbered cards, Wild,
   Skip, or "none" for a false detection).

Everything is seeded. Nothing is downloaded: Ultralytics runs offline, without plots and without the AMP check.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.rules.cards import Card
from vision.crops import CLASS_CARDS, CLASS_OF, CROP, MARGIN, NONE_CLASS, Image, crop_index, to_input
from vision.detections import Box
from vision.detector import MODELS_DIR
from vision.families import Family
from vision.hands import ORIGINAL_DRAW, HandRate

if TYPE_CHECKING:
    # torch is imported where it is used: serving imports this module (write_extra_example) without it.
    from torch import nn

MODEL_YAML = Path(__file__).with_name("card-index.yaml")
DETECTOR_NAME = "card-index"
CLASSIFIER_NAME = "index-classifier"
CLASSIFIER_WIDTH = 32  # channels of the classifier's first stage; its stages have 1x, 2x, 4x and 8x this many


@dataclass
class TrainConfig:
    out: Path
    data: Path
    # The defaults made the shipped models (and are the command line's defaults).
    train_images: int = 1500
    val_images: int = 200
    heldout_images: int = 300
    epochs: int = 10
    imgsz: int = 512
    # The exported detector's input size; None = the size it trained at. Exported larger than it trained at,
    # small indexes gain pixels but the two-digit index of a large card splits in two (see the model card);
    # trained at the larger size, it keeps the gain without the split.
    export_imgsz: int | None = None
    batch: int = 16
    seed: int = 0
    threads: int = 2
    classifier_epochs: int = 8
    classifier_width: int = CLASSIFIER_WIDTH
    classifier_lr: float = 3e-3  # the one-cycle schedule's peak
    # Extra classifier crops from this many vignettes (a few cards, each its own design).
    vignettes: int = 6_000
    # Extra classifier crops of this many fresh scenes as the detector in ``detector_models`` boxes them.
    detector_crops: int = 0
    hands: HandRate = ORIGINAL_DRAW  # chance of a hand held in a fan in rendered scenes
    # Design families (``vision.families`` values) the rendered decks are drawn from; None: the original designs.
    families: tuple[str, ...] | None = None
    detector_models: Path | None = None
    extra_data: Path | None = None
    init: Path | None = None  # start from these detector weights (fine-tuning)
    init_classifier: Path | None = None
    mosaic: float = 0.5
    smoke: bool = False
    # Where the detector trains: "cpu" (the shipped runs), or a GPU ("cuda", "0") where one is lent. A GPU's data
    # loader gets more workers, since the augmentations stay on the CPU and would otherwise starve it.
    device: str = "cpu"
    # A fine-tune's learning rate (from --init); None: FINE_TUNE_LR. From scratch Ultralytics' automatic optimizer
    # picks its own rate and ignores any given, so this does not apply there.
    lr0: float | None = None
    stage: str = (
        "all"  # "all" | "classifier" | "detector": the two models are independent and can be run apart
    )


# The detector's fine-tuning rate (AdamW): a tenth of what Ultralytics' automatic optimizer would pick, which moves
# trained weights too far in one epoch.
FINE_TUNE_LR = 0.0002


def _offline() -> None:
    # Ultralytics would otherwise look for fonts, weights and updates on the internet.
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("YOLO_VERBOSE", "True")
    os.environ.setdefault("MPLBACKEND", "Agg")


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# --- extra data (user-confirmed photos) ------------------------------------------------------------------------


def write_extra_example(
    folder: Path, name: str, image_bgr: Image, cards: Sequence[tuple[Card, Sequence[float]]]
) -> None:
    """Store one confirmed photo for fine-tuning: ``images/NAME.jpg`` and ``labels/NAME.txt``.

    ``cards`` holds (card, (x1, y1, x2, y2) index box in the image's pixels). A label line is
    ``CLASS cx cy w h`` (YOLO, normalised) where CLASS is the card's position in ``vision.crops.CLASS_CARDS``.
    """
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    h, w = image_bgr.shape[:2]
    lines = []
    for card, (x1, y1, x2, y2) in cards:
        cls = CLASS_OF[card]
        lines.append(
            f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}"
        )
    cv2.imwrite(str(folder / "images" / f"{name}.jpg"), image_bgr, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (folder / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")


def read_extra(
    folder: Path, stems: Collection[str] | None = None
) -> list[tuple[Path, list[tuple[int, Box]]]]:
    """The labelled photos of ``folder`` (``write_extra_example``'s layout), each with its cards (class, index
    box in the image's pixels); only those named in ``stems`` when it is given. ``ValueError`` when there are
    none."""
    images = folder / "images"
    if not images.is_dir():
        raise ValueError(f"{folder}: expected an images/ folder (and labels/) in YOLO layout")
    out: list[tuple[Path, list[tuple[int, Box]]]] = []
    for img in sorted(images.iterdir()):
        if img.suffix.lower() not in (".jpg", ".jpeg", ".png") or (
            stems is not None and img.stem not in stems
        ):
            continue
        lab = folder / "labels" / f"{img.stem}.txt"
        if not lab.exists():
            continue
        probe = cv2.imread(str(img), cv2.IMREAD_REDUCED_GRAYSCALE_8)
        if probe is None:
            continue
        h, w = _read_image(img).shape[:2]
        rows: list[tuple[int, Box]] = []
        for line in lab.read_text().split("\n"):
            parts = line.split()
            if len(parts) != 5:
                continue
            c, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:])
            if not 0 <= c < NONE_CLASS:
                raise ValueError(f"{lab}: class {c} is not a card class (0..{NONE_CLASS - 1})")
            rows.append((c, ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)))
        out.append((img, rows))
    if not out:
        raise ValueError(f"{folder}: no labelled images found")
    return out


def detector_label(image: Path) -> str:
    """The YOLO label of an extra photo (``images/NAME.jpg`` beside ``labels/NAME.txt``) for the detector: the
    same boxes, every card's class made the detector's one class."""
    src = (image.parent.parent / "labels" / f"{image.stem}.txt").read_text().split("\n")
    return "\n".join("0 " + " ".join(s.split()[1:]) for s in src if len(s.split()) == 5) + "\n"


def _add_extra_to_detector_data(data_root: Path, extra: Path) -> Path:
    """Copy the extra photos beside the synthetic ones with class 0 and return a data.yaml that uses both."""
    examples = read_extra(extra)
    img_dir, lab_dir = data_root / "images" / "extra", data_root / "labels" / "extra"
    shutil.rmtree(img_dir, ignore_errors=True)
    shutil.rmtree(lab_dir, ignore_errors=True)
    img_dir.mkdir(parents=True)
    lab_dir.mkdir(parents=True)
    for img, _rows in examples:
        shutil.copy(img, img_dir / img.name)
        (lab_dir / f"{img.stem}.txt").write_text(detector_label(img))
    data = data_root / "data-extra.yaml"
    base = (
        (data_root / "data.yaml")
        .read_text()
        .replace("train: images/train", "train: [images/train, images/extra]")
    )
    data.write_text(base)
    _log(f"extra data: {len(examples)} photos mixed into detector training")
    return data


def _read_image(path: Path) -> Image:
    im = cv2.imread(str(path))
    if im is None:
        raise ValueError(f"{path}: not an image OpenCV can read")
    return np.asarray(im, np.uint8)


def extra_crops(
    examples: Sequence[tuple[Path, Sequence[tuple[int, Box]]]], rng: np.random.Generator, per_card: int = 4
) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """Classifier crops of labelled photos (as ``read_extra`` gives them): ``per_card`` of each card, each
    shifted and zoomed a little, as real photos are few."""
    xs, ys = [], []
    for img, rows in examples:
        im = _read_image(img)
        for c, box in rows:
            for _ in range(per_card):
                shift = (float(rng.normal(0, 0.06)), float(rng.normal(0, 0.06)))
                xs.append(crop_index(im, box, shift=shift, zoom=float(rng.uniform(0.9, 1.15))))
                ys.append(c)
    return np.stack(xs), np.array(ys, np.int64)


# --- classifier ------------------------------------------------------------------------------------------------


def _classifier_net(n_classes: int, width: int = CLASSIFIER_WIDTH) -> nn.Sequential:
    from torch import nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    w = width
    return nn.Sequential(
        *block(3, w),
        *block(w, w),
        nn.MaxPool2d(2),  # 20 x 20
        *block(w, 2 * w),
        *block(2 * w, 2 * w),
        nn.MaxPool2d(2),  # 10 x 10
        *block(2 * w, 4 * w),
        *block(4 * w, 4 * w),
        nn.MaxPool2d(2),  # 5 x 5
        *block(4 * w, 8 * w),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(8 * w, n_classes),
    )


def classifier_width(state: dict[str, Any]) -> int:
    """The first-stage width of saved classifier weights."""
    return int(state["0.weight"].shape[0])


def _classifier_init(path: Path, width: int) -> dict[str, Any]:
    """Saved classifier weights that fit a classifier ``width`` wide (narrower ones are widened)."""
    import torch

    state: dict[str, Any] = torch.load(path, map_location="cpu")
    if classifier_width(state) > width:
        raise ValueError(
            f"{path}: a classifier {classifier_width(state)} wide does not fit in one {width} wide "
            f"(--classifier-width {classifier_width(state)} or more)"
        )
    return state


def _load_widened(net: nn.Module, state: dict[str, Any]) -> None:
    """Load ``state`` into ``net``, which may be wider: the saved channels come first, the new channels start
    from their fresh initialisation, and every weight from a new channel into an old one is zero, so the wider
    net computes exactly what the saved one did and training goes on from there."""
    import torch

    own = net.state_dict()
    with torch.no_grad():
        for name, new in own.items():
            old = state[name]
            if new.shape == old.shape:
                new.copy_(old)
                continue
            if new.dim() in (2, 4):  # conv or linear weight: [out, in, ...]
                new[: old.shape[0], old.shape[1] :] = 0
                new[: old.shape[0], : old.shape[1]] = old
            else:  # batch-norm vectors
                new[: old.shape[0]] = old
    net.load_state_dict(own)


# Decks printed on black, navy or charcoal faces put bright figures on a dark ground. A classifier that has only
# seen figures darker than their card learns that a bright figure takes the colour of what surrounds it (white on
# a red tab is a red card), so a dark face reads as blue for most of its cards (models/TRAINING-HISTORY.md,
# "Colour read relative to the photo"). A share of the crops, nearly all of them light-faced, is therefore redrawn
# as if printed on a dark face: the paper becomes a dark ground, coloured ink keeps its hue and brightness, and
# black ink turns light.
# It is a transform of every family's crops, not a drawing of any family, so a left-out dark family stays unseen.
DARK_FACE_SHARE = 0.15
# Only crops that are mostly uncoloured are redrawn: a white figure on a red tab or a red face would come out as a
# dark figure on red, which no deck prints, and the colour-faced decks read worse for it (models/TRAINING-HISTORY.md,
# "The narrower redraw made the recipe"). A pixel counts as coloured at a Lab chroma over DARK_FACE_CHROMA; the
# median classic crop is about a quarter coloured, the median tabbed crop half, a colour-faced one two thirds.
DARK_FACE_CHROMA = 25.0
DARK_FACE_MAX_COLOURED = 0.3
# Under this Lab chroma against the paper (the 90th percentile over the ink) a crop's ink has no colour to bring out.
INK_CHROMA_MIN = 8.0


def coloured_share(img: NDArray[np.uint8]) -> float:
    """The share of ``img``'s pixels (BGR) whose Lab chroma exceeds ``DARK_FACE_CHROMA``."""
    lab = cv2.cvtColor(img.astype(np.float32) / 255, cv2.COLOR_BGR2Lab)
    return float((np.hypot(lab[..., 1], lab[..., 2]) > DARK_FACE_CHROMA).mean())


def dark_face(img: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """``img`` (a BGR crop of a light-faced card) as the same print on a dark face."""
    lab = np.asarray(cv2.cvtColor(img.astype(np.float32) / 255, cv2.COLOR_BGR2Lab), np.float32)
    light, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    bright = light >= np.percentile(light, 80)
    paper = np.median(lab[bright], 0)  # the card's stock: the crop's brightest fifth
    far = np.sqrt(((lab - paper) ** 2).sum(-1))
    ink = np.clip((far - 6) / 24, 0, 1)[..., None]  # 0 on the paper, 1 on the ink (and on the table)
    chroma = np.hypot(a - paper[1], b - paper[2])
    # Ink with little colour of its own and darker than the paper is black ink: it turns light.
    black = (np.clip((paper[0] - light) / 40, 0, 1) * (1 - np.clip(chroma / 25, 0, 1)))[..., None]
    coloured = lab.copy()
    # Inks printed on black are bright and full: lift the dark ones and give them back their colour. The colour is
    # the ink's against the paper (the photo's tint taken out), brought to a full chroma: a pale yellow under a
    # cool light is nearly the paper's colour, and left pale on black it reads as a white figure, which the other
    # families teach takes the colour of what surrounds it (models/TRAINING-HISTORY.md, "Full inks").
    coloured[..., 0] = np.maximum(light, rng.uniform(50, 72))
    on_ink = chroma[ink[..., 0] > 0.5]
    level = float(np.percentile(on_ink, 90)) if on_ink.size > 8 else 0.0
    if level > INK_CHROMA_MIN:
        coloured[..., 1:] = (lab[..., 1:] - paper[1:]) * max(
            rng.uniform(1.0, 1.4), rng.uniform(40, 70) / level
        )
    else:  # no coloured ink to speak of: a black or grey print, left as it is
        coloured[..., 1:] *= rng.uniform(1.0, 1.4)
    figure = coloured * (1 - black) + np.array([rng.uniform(75, 100), 0, 0], np.float32) * black
    # The ground: black, charcoal or a dark tint (navy, dark green, maroon) where the paper was.
    ground = np.array([rng.uniform(3, 22), *rng.normal(0, 12, 2)], np.float32)
    # Most dark decks leave a light rim round the face. The crop is anchored at the card's corner (MARGIN of
    # the index's side outside it), so the rim runs along the crop's top and left, that far in.
    paper_left = np.zeros_like(light)
    if rng.random() < 0.7:
        rim = round(CROP * MARGIN / (1 + 2 * MARGIN)) + int(rng.integers(1, 5))
        paper_left[:rim] = 1
        paper_left[:, :rim] = 1
    ground_here = ground * (1 - paper_left[..., None]) + paper * paper_left[..., None]
    out = ground_here * (1 - ink) + figure * ink
    bgr = cv2.cvtColor(out.astype(np.float32), cv2.COLOR_Lab2BGR)
    return np.asarray(np.clip(bgr * 255 + 0.5, 0, 255), np.uint8)


def _augment(
    x: NDArray[np.uint8], rng: np.random.Generator, dark_share: float = DARK_FACE_SHARE
) -> NDArray[np.uint8]:
    """Jitter on uint8 crops: geometry (narrow/wide, slanted, turned), stroke weight, dark faces, white balance,
    exposure, contrast, noise and blur. Geometry and stroke weight stand in for fonts the classifier has never
    seen."""
    n = len(x)
    out = np.empty_like(x)
    c = CROP / 2
    for i in range(n):
        a = np.deg2rad(rng.uniform(-8, 8))
        sx, sy = rng.uniform(0.8, 1.2), rng.uniform(0.9, 1.1)
        sh = rng.uniform(-0.2, 0.2)
        m = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) @ np.array([[sx, sh], [0, sy]])
        t = np.array([c, c]) - m @ np.array([c, c]) + rng.normal(0, 1.0, 2)
        img = cv2.warpAffine(
            x[i],
            np.hstack([m, t[:, None]]).astype(np.float32),
            (CROP, CROP),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        if rng.random() < 0.3:
            # The next card of a fan covering the right part of the corner: a paper band with an edge.
            x0 = int(rng.uniform(0.55, 0.9) * CROP)
            tone = int(rng.uniform(170, 255))
            img[:, x0:] = tone
            img[:, x0 : x0 + 1] = int(tone * rng.uniform(0.3, 0.8))
        r = rng.random()
        if r < 0.15:
            img = cv2.erode(img, np.ones((2, 2), np.uint8))  # darker ink spreads: a bolder face
        elif r < 0.3:
            img = cv2.dilate(img, np.ones((2, 2), np.uint8))  # paper spreads: a lighter face
        if rng.random() < dark_share:
            crop = np.asarray(img, np.uint8)
            if coloured_share(crop) < DARK_FACE_MAX_COLOURED:
                img = dark_face(crop, rng)
        out[i] = img
    f: NDArray[np.floating[Any]] = out.astype(np.float32)
    gains = rng.uniform(0.7, 1.3, (n, 1, 1, 3)) * rng.uniform(0.6, 1.3, (n, 1, 1, 1))
    f = f * gains
    mean = f.mean(axis=(1, 2, 3), keepdims=True)
    f = (f - mean) * rng.uniform(0.7, 1.2, (n, 1, 1, 1)) + mean
    f += rng.normal(0, 1, f.shape) * rng.uniform(0, 8, (n, 1, 1, 1))
    jittered: NDArray[np.uint8] = np.clip(f, 0, 255).astype(np.uint8)
    for j in np.flatnonzero(rng.random(n) < 0.25).tolist():
        jittered[j] = cv2.GaussianBlur(jittered[j], (0, 0), float(rng.uniform(0.5, 1.3)))
    return jittered


def train_classifier(
    train: tuple[NDArray[np.uint8], NDArray[np.int64]],
    val: tuple[NDArray[np.uint8], NDArray[np.int64]],
    out_dir: Path,
    *,
    epochs: int,
    seed: int,
    init: dict[str, Any] | None = None,
    width: int = CLASSIFIER_WIDTH,
    max_lr: float = 3e-3,
    dark_share: float = DARK_FACE_SHARE,
    device: str = "cpu",
) -> dict[str, float]:
    """Fine-tune (from ``init``) or train the index classifier; the best epoch's weights and their ONNX export land
    in ``out_dir``. ``device`` ("cpu", "cuda") only moves the network's steps: the crop jitter stays on the CPU, and
    the same seed draws the same crops and jitter on either."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    # The crop jitter runs in OpenCV between torch steps; two thread pools spinning on two cores starve each other.
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    net = _classifier_net(len(CLASS_CARDS), width)
    if init is not None:
        _load_widened(net, init)
    net.to(device)
    xtr, ytr = train
    xva, yva = val
    counts = np.bincount(ytr, minlength=len(CLASS_CARDS)).astype(np.float32)
    _log(
        f"classifier: {len(xtr)} training crops ({int(counts[NONE_CLASS])} 'none'), {len(xva)} validation crops"
    )
    opt = torch.optim.AdamW(net.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = epochs * ((len(xtr) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=max(steps, 1))
    xva_t = torch.from_numpy(to_input(xva))
    best = -1.0
    metrics: dict[str, float] = {}
    for epoch in range(epochs):
        net.train()
        order = rng.permutation(len(xtr))
        t0, seen, loss_sum = time.time(), 0, 0.0
        for i in range(0, len(order), 128):
            idx = order[i : i + 128]
            xb = torch.from_numpy(to_input(_augment(xtr[idx], rng, dark_share))).to(device)
            yb = torch.from_numpy(ytr[idx]).to(device)
            loss = F.cross_entropy(net(xb), yb, label_smoothing=0.05)
            opt.zero_grad()
            torch.autograd.backward(loss)  # what loss.backward() runs, with the types it lacks
            opt.step()
            sched.step()
            seen += len(idx)
            loss_sum += loss.item() * len(idx)
        net.eval()
        with torch.no_grad():
            pred = (
                torch.cat([net(xva_t[i : i + 512].to(device)).argmax(1) for i in range(0, len(xva_t), 512)])
                .cpu()
                .numpy()
            )
        acc = float((pred == yva).mean()) if len(yva) else 0.0
        cards = yva != NONE_CLASS
        card_acc = float((pred[cards] == yva[cards]).mean()) if cards.any() else 0.0
        _log(
            f"classifier epoch {epoch + 1}/{epochs}: loss {loss_sum / max(seen, 1):.3f}, "
            f"val accuracy {acc:.4f} (cards {card_acc:.4f}), {time.time() - t0:.0f}s"
        )
        if acc >= best:
            best = acc
            metrics = {"val_accuracy": acc, "val_card_accuracy": card_acc}
            # Saved from the CPU, so that a machine without the training device loads it as it is.
            torch.save({k: v.cpu() for k, v in net.state_dict().items()}, out_dir / f"{CLASSIFIER_NAME}.pt")
    net.to("cpu")
    net.load_state_dict(torch.load(out_dir / f"{CLASSIFIER_NAME}.pt", map_location="cpu"))
    net.eval()
    dummy = torch.zeros(1, 3, CROP, CROP)
    torch.onnx.export(
        net,
        (dummy,),
        str(out_dir / f"{CLASSIFIER_NAME}.onnx"),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    return metrics


# --- detector --------------------------------------------------------------------------------------------------


def train_detector(cfg: TrainConfig, data_yaml: Path, work: Path) -> Path:
    """Train the index detector; returns the exported ONNX path (best weights beside it as ``.pt``)."""
    _offline()
    from ultralytics.models import YOLO

    model = YOLO(str(cfg.init)) if cfg.init else YOLO(str(MODEL_YAML), task="detect")
    model.train(
        data=str(data_yaml),
        epochs=cfg.epochs,
        imgsz=cfg.imgsz,
        batch=cfg.batch,
        seed=cfg.seed,
        deterministic=True,
        device=cfg.device,
        workers=0 if cfg.smoke else 2 if cfg.device == "cpu" else min(8, os.cpu_count() or 1),
        project=str(work.resolve()),
        name="detector",
        exist_ok=True,
        # Ultralytics drops the loaded weights when pretrained is False, which would turn --init into training
        # from scratch; without --init the model is built from the YAML and there is nothing to keep.
        pretrained=cfg.init is not None,
        plots=False,
        amp=False,
        # Digits mirror and turn into other digits: no flips. Colour is read by the classifier, but keep hue
        # jitter small anyway so the detector keeps seeing real card colours.
        fliplr=0.0,
        flipud=0.0,
        hsv_h=0.01,
        hsv_s=0.5,
        hsv_v=0.35,
        degrees=0.0,
        scale=0.25,
        translate=0.1,
        mosaic=cfg.mosaic,
        close_mosaic=max(1, cfg.epochs // 5),
        cache="ram" if not cfg.smoke else False,
        val=True,
        verbose=True,
        patience=100,
        # Ultralytics' automatic optimizer ignores lr0 (AdamW at 0.002 for runs this short), which moves trained
        # weights too far in one epoch: fine-tuning names the optimizer so a tenth of that rate holds.
        optimizer="auto" if cfg.init is None else "AdamW",
        lr0=0.01 if cfg.init is None else FINE_TUNE_LR if cfg.lr0 is None else cfg.lr0,
        warmup_epochs=1 if cfg.init is None else 0,
    )
    weights = work / "detector" / "weights"
    best = weights / "best.pt" if (weights / "best.pt").exists() else weights / "last.pt"
    return _export_detector(best, cfg.export_imgsz or cfg.imgsz)


def _export_detector(weights: Path, imgsz: int) -> Path:
    """The ONNX export of detector weights, beside them, as every shipped detector was exported."""
    from ultralytics.models import YOLO

    onnx_path = YOLO(str(weights)).export(format="onnx", imgsz=imgsz, simplify=False, dynamic=False, opset=17)
    return Path(onnx_path)


def average_detectors(first: Path, second: Path, out: Path, *, weight: float = 0.5, imgsz: int = 640) -> Path:
    """A detector whose weights are ``(1 - weight) * first + weight * second``, saved as ``out`` (an Ultralytics
    checkpoint, ``second``'s but for its weights) and exported to ONNX beside it; returns the export's path.

    Both must be fine-tunes of one start (the same network): they then lie in one basin of the loss, and their
    average tends to keep what the start read well and much of what the fine-tune learnt (the shipped detector is
    such an average, ``models/MODEL_CARD.md``). Counters such as BatchNorm's batch count are ``second``'s."""
    import torch

    _offline()
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight {weight}: a share from 0 to 1")
    a = torch.load(first, weights_only=False, map_location="cpu")
    b = torch.load(second, weights_only=False, map_location="cpu")
    sa, sb = a["model"].state_dict(), b["model"].state_dict()
    if sa.keys() != sb.keys() or any(sa[k].shape != v.shape for k, v in sb.items()):
        raise ValueError(f"{first} and {second} are not the same network")
    mixed = {
        k: ((1 - weight) * sa[k].float() + weight * v.float()).to(v.dtype) if v.is_floating_point() else v
        for k, v in sb.items()
    }
    b["model"].load_state_dict(mixed)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(b, out)
    return _export_detector(out, imgsz)


def plot_detector_curves(results_csv: Path, out_png: Path) -> None:
    """Loss and validation mAP per epoch from Ultralytics' results.csv (matplotlib's own fonts, no download)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [line.split(",") for line in results_csv.read_text().strip().split("\n")]
    head = [h.strip() for h in rows[0]]
    cols = {h: [float(r[i]) for r in rows[1:]] for i, h in enumerate(head)}
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.2))
    for k in ("train/box_loss", "train/cls_loss", "train/dfl_loss"):
        a.plot(cols["epoch"], cols[k], label=k.split("/")[1])
    a.set_xlabel("epoch")
    a.set_yscale("log")
    a.legend()
    a.set_title("training loss")
    b.plot(cols["epoch"], cols["metrics/mAP50(B)"], label="mAP50")
    b.plot(cols["epoch"], cols["metrics/mAP50-95(B)"], label="mAP50-95")
    b.set_xlabel("epoch")
    b.set_ylim(0, 1)
    b.legend()
    b.set_title("validation (training designs)")
    fig.tight_layout()
    fig.savefig(out_png, dpi=90)
    plt.close(fig)


# --- the whole run ---------------------------------------------------------------------------------------------


def run(cfg: TrainConfig) -> dict[str, Any]:
    """Data (rendered if missing), classifier, detector, export; results copied into ``cfg.out``."""
    import torch

    torch.set_num_threads(cfg.threads)
    # Loaded (and checked) before anything is rendered, so a misfit fails at once.
    init_classifier = _initial_classifier(cfg)
    started = time.time()
    cfg.out.mkdir(parents=True, exist_ok=True)
    work = cfg.data / "runs"
    work.mkdir(parents=True, exist_ok=True)
    data_yaml = _rendered_data(cfg)
    seconds = {"data": time.time() - started, "classifier": 0.0, "detector": 0.0}
    cls_metrics: dict[str, float] = {}
    if cfg.stage in ("all", "classifier"):
        cls_metrics, seconds["classifier"] = _classifier_stage(cfg, work, init_classifier)
    if cfg.stage in ("all", "detector"):
        seconds["detector"] = _detector_stage(cfg, data_yaml, work)
    report = {
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(cfg).items()},
        "imgsz": cfg.imgsz,
        "classifier": cls_metrics,
        "seconds": {k: round(v) for k, v in seconds.items()},
        "torch_threads": cfg.threads,
    }
    (cfg.out / f"training-{cfg.stage}.json").write_text(json.dumps(report, indent=2) + "\n")
    _log(f"done in {time.time() - started:.0f}s; models in {cfg.out}")
    return report


def _workers(cfg: TrainConfig) -> int:
    return 1 if cfg.smoke else 2


def _initial_classifier(cfg: TrainConfig) -> dict[str, Any] | None:
    """The classifier weights to start from, when this run trains the classifier and was given some."""
    if cfg.init_classifier is None or cfg.stage not in ("all", "classifier"):
        return None
    return _classifier_init(cfg.init_classifier, cfg.classifier_width)


def _rendered_data(cfg: TrainConfig) -> Path:
    """The data set's ``data.yaml``, the scenes rendered first when ``cfg.data`` has none."""
    from vision.dataset import write_dataset

    data_yaml = cfg.data / "data.yaml"
    if data_yaml.exists():
        _log(f"using the data already rendered in {cfg.data}")
        return data_yaml
    _log(f"rendering {cfg.train_images}+{cfg.val_images}+{cfg.heldout_images} scenes into {cfg.data}")
    return write_dataset(
        cfg.data,
        train=cfg.train_images,
        val=cfg.val_images,
        heldout=cfg.heldout_images,
        seed=cfg.seed,
        workers=_workers(cfg),
        hands=cfg.hands,
        families=_families(cfg),
    )


def _families(cfg: TrainConfig) -> tuple[Family, ...] | None:
    return None if cfg.families is None else tuple(Family(f) for f in cfg.families)


def _classifier_crops(cfg: TrainConfig) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """The classifier's training crops: the scenes', then the vignettes', the detector-boxed scenes' and the
    confirmed photos' as the configuration asks for them (each rendered first when missing)."""
    from vision.dataset import (
        detector_crops_path,
        vignette_crops_path,
        write_detector_crops,
        write_vignette_crops,
    )

    tr = np.load(cfg.data / "crops_train.npz")
    xs, ys = [tr["x"]], [tr["y"]]
    if cfg.vignettes:
        vig = vignette_crops_path(cfg.data, cfg.vignettes, _families(cfg))
        if not vig.exists():
            _log(f"rendering {cfg.vignettes} vignettes for the classifier")
            write_vignette_crops(
                cfg.data, cfg.vignettes, seed=cfg.seed, workers=_workers(cfg), families=_families(cfg)
            )
        v = np.load(vig)
        xs.append(v["x"])
        ys.append(v["y"])
    if cfg.detector_crops:
        models_dir = cfg.detector_models or MODELS_DIR
        dc = detector_crops_path(cfg.data, cfg.detector_crops, models_dir, cfg.seed, cfg.hands)
        if not dc.exists():
            _log(f"boxing {cfg.detector_crops} fresh scenes with the detector in {models_dir}")
            write_detector_crops(
                cfg.data,
                cfg.detector_crops,
                models_dir,
                seed=cfg.seed,
                workers=_workers(cfg),
                hands=cfg.hands,
            )
        d = np.load(dc)
        xs.append(d["x"])
        ys.append(d["y"])
    if cfg.extra_data:
        ex, ey = extra_crops(read_extra(cfg.extra_data), np.random.default_rng(11))
        xs.append(ex)
        ys.append(ey)
    return np.concatenate(xs), np.concatenate(ys)


def _classifier_stage(
    cfg: TrainConfig, work: Path, init: dict[str, Any] | None
) -> tuple[dict[str, float], float]:
    """Train and export the classifier into ``cfg.out``; its validation metrics and the seconds training took."""
    xtr, ytr = _classifier_crops(cfg)
    va = np.load(cfg.data / "crops_val.npz")
    t0 = time.time()
    metrics = train_classifier(
        (xtr, ytr),
        (va["x"], va["y"]),
        work,
        epochs=cfg.classifier_epochs,
        seed=cfg.seed,
        init=init,
        width=cfg.classifier_width,
        max_lr=cfg.classifier_lr,
    )
    took = time.time() - t0
    for suffix in (".onnx", ".pt"):
        shutil.copy(work / f"{CLASSIFIER_NAME}{suffix}", cfg.out / f"{CLASSIFIER_NAME}{suffix}")
    return metrics, took


def _detector_stage(cfg: TrainConfig, data_yaml: Path, work: Path) -> float:
    """Train and export the detector into ``cfg.out``, with its training curves; the seconds training took."""
    if cfg.extra_data:
        data_yaml = _add_extra_to_detector_data(cfg.data, cfg.extra_data)
    t0 = time.time()
    onnx_path = train_detector(cfg, data_yaml, work)
    took = time.time() - t0
    shutil.copy(onnx_path, cfg.out / f"{DETECTOR_NAME}.onnx")
    shutil.copy(onnx_path.with_suffix(".pt"), cfg.out / f"{DETECTOR_NAME}.pt")
    results = work / "detector" / "results.csv"
    shutil.copy(results, cfg.out / f"{DETECTOR_NAME}-results.csv")
    plot_detector_curves(results, cfg.out / f"{DETECTOR_NAME}-training.png")
    return took
