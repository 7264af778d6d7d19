"""The two shipped ONNX models at serve time, without torch: the detector's looks at a photo and the classifier's
reading of each index box.

``get_models()`` loads them once per process (a lazy, thread-safe singleton) with the runtime chosen then
(``vision.inference``: onnxruntime by default, or OpenCV's DNN module).

With onnxruntime the detector runs from ``card-index-dynamic.onnx`` when that file was made from the
``card-index.onnx`` beside it (``vision.modelfiles.make_dynamic_detector``): the same weights, and on the same input the same boxes,
but it takes an input of any size and hands back the head's raw maps. A photo is then looked at without the square
letterbox's grey bands, the half-size look costs a quarter of the first, and only the anchors that clear the score
floor are decoded. The classifier runs as exported: an ``index-classifier-int8.onnx`` made from the
``index-classifier.onnx`` beside it (``vision.modelfiles.make_int8_classifier``) would be used, but none ships,
because 8-bit weights read the held-out set a few cards short of the export (models/MODEL_CARD.md, "Latency").
OpenCV DNN, or models from ``phase10 train`` without the detector file, run the exports as they are.
"""

from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from vision.crops import CLASS_CARDS, NONE_CLASS, Image, crop_index, to_input
from vision.detections import Box, Detections, Floats, nms, suppress
from vision.inference import Engine, ModelFiles, Runtime, load_engine

MODELS_DIR = Path(os.environ.get("PHASE10_MODELS", Path(__file__).resolve().parents[1] / "models"))
DETECTOR_FILE = "card-index.onnx"
CLASSIFIER_FILE = "index-classifier.onnx"
# Made from DETECTOR_FILE by make_dynamic_detector; used only while its recorded source digest matches that file.
DYNAMIC_DETECTOR_FILE = "card-index-dynamic.onnx"
# Made from CLASSIFIER_FILE by make_int8_classifier, under the same rule.
INT8_CLASSIFIER_FILE = "index-classifier-int8.onnx"

DET_CONF = 0.25
# The first look also keeps its boxes scored from WEAK_CONF up to DET_CONF, apart from the others: mostly nothing,
# now and then the index of a card whose face the detector knows less well (a lone card of an unfamiliar kind of
# face), which the reader takes where the classifier is sure of it (vision.reader, "weak boxes").
WEAK_CONF = 0.03
NMS_IOU = 0.5
MIN_CARD_PROB = 0.35  # chosen on the validation scenes (training designs), not on the held-out set
# A reading is kept only when detector score x classifier probability reaches this: a box the detector half
# believes in and the classifier half recognises is more often a neighbour's edge, an upside-down index or a
# doubled box than a card (chosen on the validation scenes, in the middle of a plateau: models/MODEL_CARD.md,
# "Metrics").
MIN_CARD_CONF = 0.25
# The detector was trained on cards 8-17 % of the photo's width. A close-up (a few cards filling the frame) is
# outside that range, so the photo is also looked at shrunk to half the input, where such cards fall inside it.
# Only boxes that are large for the photo (an index at least this fraction of its long side) are taken from the
# shrunk look: there, small indexes would be a few pixels and what it finds among them is mostly noise.
SHRUNK_FILL, SHRUNK_MIN_HEIGHT = 0.5, 0.055
# The shrunk look adds nothing to a photo of cards in the trained range, so it is taken only where the first look
# suggests a close-up: an index at least CLOSE_UP_HEIGHT of the long side, or fewer than CLOSE_UP_FEW boxes scored
# at least CLOSE_UP_SURE (a close-up's indexes are often too big to be found at all). Chosen on the dev,
# validation, plain-deck and close-up photos (models/MODEL_CARD.md, "Latency").
CLOSE_UP_HEIGHT = 0.05
CLOSE_UP_FEW = 4
CLOSE_UP_SURE = 0.5
# The other way round: in a photo of a whole table from further away the indexes are 10-15 px in the detector's
# input, where it misses some that it finds when the photo is larger. When the first look's sure boxes are that
# small (their median height under SMALL_INDEX of the long side, and not a close-up), the photo is looked at again
# filling ENLARGED_FILL of the input (only the any-size detector can), and its boxes below close-up height join the
# first look's: where both find an index the stronger box stays, which is often the enlarged look's, better placed.
# Chosen on the dev, validation, plain-deck, close-up and family dev photos (models/MODEL_CARD.md, "Small indexes").
SMALL_INDEX = 0.025
ENLARGED_FILL = 1.5
# Without the square letterbox's grey bands the shrunk look would put a close-up's indexes at the very edge of its
# input, where the detector finds less: it gets a grey margin of this fraction of the input size on every side.
SHRUNK_MARGIN = 0.05
# A box lying mostly inside a stronger one is a part of the same index (the "2" of a "12"), not another card.
CONTAINED = 0.7
# The classifier reads each index from a few slightly different crops and averages: a detector box that sits a
# little off, or a face unlike the training fonts, then weighs less on one unlucky crop. The first view is the
# plain crop; the others change a reading only where the first is unsure, so they are cut only for crops whose
# first view gives no class at least SURE_VIEW (models/MODEL_CARD.md, "Latency").
CROP_VIEWS: tuple[tuple[float, float, float], ...] = (
    (0.0, 0.0, 1.0),
    (0.05, 0.05, 1.08),
    (-0.05, -0.03, 0.94),
)
SURE_VIEW = 0.9
# An input of any size still has to divide into the detector's coarsest grid.
INPUT_STRIDE = 32
# A phone held flat over a table cannot tell which way is up (its orientation sensor follows gravity, which then
# points through the screen), and a player photographs the cards of the player opposite or beside: the photo's
# cards may lie upside down or sideways, where the detector, trained to box only upright indexes, finds few or
# none. So the photo is looked at as it came and turned half round, and turned a quarter each way too when neither
# of those looks finds much (their detector scores summing under SIDEWAYS_BELOW, about a handful of indexes: a
# photo turned sideways sums well under it). Where every first look may be a close-up, each turn is judged with
# the shrunk look beside it, the look that finds a close-up's cards. The turn whose looks sum highest is read, but
# a turn other than the photo as it came only where they are sure of at least CLOSE_UP_FEW indexes, or of at
# least TURN_FEWEST and sum TURN_FEW_BY times what the photo as it came sums: two or three loose cards give a few
# boxes whichever way they are turned, and there only a clear lead says which way is up. A quarter turn wins with
# CLOSE_UP_FEW sure indexes and the highest sum too, or where neither the photo as it came nor its half turn is
# sure of more than one index, with the highest sum and a sure index that scores SIDEWAYS_BY times the surest of
# theirs: a lone card or two or three loose cards on their side. Two sure indexes and a lead in the sum are not
# enough there: a lone 6 or 9 on its side looks like an index or two, each scored below the card's own index.
# Chosen on the family dev photos, the close-ups and the plain deck, each read at all four turns
# (models/MODEL_CARD.md, "Photos taken from any side of the table").
TURNS = (0, 180, 90, 270)  # clockwise degrees: the first two always looked at; the first of equals wins
# A deck that prints its index in all four corners shows upright indexes in the top corners of its cards whichever
# way up the photo is, so the two half turns' scores come close and the higher is often the wrong way up, where a
# one-index deck's wrong way up scores far below its right one; the same holds for the two quarter turns of a photo
# taken from beside the table. Where the turn opposite the chosen one is sure of CLOSE_UP_FEW indexes and scores at
# least RIVAL_SHARE of the chosen one, both are read, and the reader tells them apart by their cards
# (vision.reader, "the ways up"; models/MODEL_CARD.md, "A four-corner deck: both ways up read").
RIVAL_SHARE = 0.6
SIDEWAYS_BELOW = 6.0
TURN_FEWEST, TURN_FEW_BY = 2, 1.25
SIDEWAYS_BY = 1.1
_ROTATE = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


def turned(img: Image, turn: int) -> Image:
    """``img`` turned ``turn`` degrees clockwise (0, 90, 180 or 270)."""
    return img if turn == 0 else np.asarray(cv2.rotate(img, _ROTATE[turn]), np.uint8)


def turned_box(box: Box, turn: int, width: int, height: int) -> Box:
    """A box in an image of ``width`` x ``height``, in the pixels of that image turned ``turn`` degrees clockwise.

    >>> turned_box((20, 70, 60, 90), 90, 200, 100)
    (10, 20, 30, 60)
    """
    return unturned_box(box, (360 - turn) % 360, width, height)


def unturned_box(box: Box, turn: int, width: int, height: int) -> Box:
    """A box in an image turned ``turn`` degrees clockwise (``width`` x ``height`` once turned), in the pixels of
    the image before it was turned.

    >>> unturned_box((10, 20, 30, 60), 90, 100, 200)  # a 200x100 image turned a quarter: 100 wide, 200 high
    (20, 70, 60, 90)
    """
    x1, y1, x2, y2 = box
    if turn == 90:
        return (y1, width - x2, y2, width - x1)
    if turn == 180:
        return (width - x2, height - y2, width - x1, height - y1)
    if turn == 270:
        return (height - y2, x1, height - y1, x2)
    return box


def letterbox(img: Image, size: int, fill: float = 1.0) -> tuple[Image, float, tuple[int, int]]:
    """Fit ``img`` into ``fill`` of a ``size`` square (aspect kept, grey padding); returns it, the scale and the
    offset of the image in the square."""
    resized, r = _fit(img, size, fill)
    return _pad(resized, size, size, r)


def fit_input(
    img: Image, size: int, fill: float = 1.0, margin: int = 0
) -> tuple[Image, float, tuple[int, int]]:
    """Like ``letterbox``, but padded only by ``margin`` on each side and up to the next multiple of
    ``INPUT_STRIDE`` (for a detector that takes any input size): a 4:3 photo fills a 640x480 input instead of
    sitting in a 640x640 one."""
    resized, r = _fit(img, size, fill)
    nh, nw = resized.shape[:2]

    def up(n: int) -> int:
        return -(-(n + 2 * margin) // INPUT_STRIDE) * INPUT_STRIDE

    return _pad(resized, up(nh), up(nw), r)


def _fit(img: Image, size: int, fill: float) -> tuple[Image, float]:
    h, w = img.shape[:2]
    r = min(size / w, size / h) * fill
    nw, nh = round(w * r), round(h * r)
    resized = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    return np.asarray(resized, np.uint8), r


def _pad(resized: Image, height: int, width: int, r: float) -> tuple[Image, float, tuple[int, int]]:
    nh, nw = resized.shape[:2]
    top: int = (height - nh) // 2
    left: int = (width - nw) // 2
    if (height, width) == (nh, nw):
        return resized, r, (0, 0)
    out = cv2.copyMakeBorder(
        resized, top, height - nh - top, left, width - nw - left, cv2.BORDER_CONSTANT, value=(114, 114, 114)
    )
    return np.asarray(out, np.uint8), r, (left, top)


def to_blob(img: Image) -> NDArray[np.float32]:
    """BGR uint8 HxWx3 -> RGB float32 1x3xHxW in [0, 1], as the detector was trained."""
    blob = np.ascontiguousarray(img[..., ::-1].transpose(2, 0, 1)[None], dtype=np.float32)
    blob /= np.float32(255)  # in place: a second photo-sized array is a few thousand fresh pages to fault in
    return blob


def decode_yolo(
    out: NDArray[np.float32], r: float, pad: tuple[int, int], conf: float = DET_CONF
) -> Detections:
    """YOLO head output (1, 4 + classes, N) -> boxes after NMS, in the letterboxed image's source pixels."""
    pred = out[0].T  # N x (4 + nc)
    scores = pred[:, 4:].max(axis=1)
    keep = scores >= conf
    pred, scores = pred[keep], scores[keep]
    if len(pred) == 0:
        return Detections.empty()
    cx, cy, w, h = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    return _after_nms(cx - w / 2, cy - h / 2, w, h, scores, r, pad, conf)


def decode_maps(
    maps: Sequence[NDArray[np.float32]], height: int, r: float, pad: tuple[int, int], conf: float = DET_CONF
) -> Detections:
    """The dynamic detector's raw head maps (per level: box distributions 1 x 4*bins x h x w, then class logits
    1 x classes x h x w) -> boxes after NMS, as ``decode_yolo`` gives them for the same input.

    Only anchors whose best logit clears the floor are decoded: a photo has a few hundred of those among
    thousands."""
    floor = math.log(conf / (1 - conf))
    xs, ys, ws, hs, ss = [], [], [], [], []
    for box, cls in zip(maps[0::2], maps[1::2], strict=True):
        _, nc, gh, gw = cls.shape
        stride = height / gh
        best = cls[0].reshape(nc, -1).max(axis=0)
        idx = np.flatnonzero(best >= floor)
        if idx.size == 0:
            continue
        reg = box[0].reshape(4, -1, gh * gw)[:, :, idx]  # sides x bins x anchors
        e = np.exp(reg - reg.max(axis=1, keepdims=True))
        dist = (e * np.arange(reg.shape[1], dtype=np.float32)[None, :, None]).sum(axis=1) / e.sum(axis=1)
        ax, ay = idx % gw + 0.5, idx // gw + 0.5
        x1, y1, x2, y2 = ax - dist[0], ay - dist[1], ax + dist[2], ay + dist[3]
        xs.append(x1 * stride)
        ys.append(y1 * stride)
        ws.append((x2 - x1) * stride)
        hs.append((y2 - y1) * stride)
        ss.append(1 / (1 + np.exp(-best[idx])))
    if not xs:
        return Detections.empty()
    cat = np.concatenate
    return _after_nms(cat(xs), cat(ys), cat(ws), cat(hs), cat(ss), r, pad, conf)


def _after_nms(
    x: NDArray[np.floating],
    y: NDArray[np.floating],
    w: NDArray[np.floating],
    h: NDArray[np.floating],
    scores: NDArray[np.floating],
    r: float,
    pad: tuple[int, int],
    conf: float,
) -> Detections:
    """The boxes NMS keeps, mapped from the model's input to the source image's pixels."""
    x1, y1 = (x - pad[0]) / r, (y - pad[1]) / r
    bw, bh = w / r, h / r
    keep = nms(np.stack([x1, y1, bw, bh], 1), scores, conf, NMS_IOU)
    xyxy = np.stack([x1, y1, x1 + bw, y1 + bh], 1)[keep]
    return Detections(xyxy.astype(np.float64), scores[keep].astype(np.float64))


def close_up(first: Detections, long_side: float) -> bool:
    """Whether the first look's boxes suggest cards larger than the detector was trained on (``CLOSE_UP_*``)."""
    return _sure(first) < CLOSE_UP_FEW or bool((first.height >= CLOSE_UP_HEIGHT * long_side).any())


def small_indexes(first: Detections, long_side: float) -> bool:
    """Whether the first look's sure boxes are small enough for the enlarged look (``SMALL_INDEX``)."""
    sure = first.height[first.confidence >= CLOSE_UP_SURE]
    return bool(sure.size) and float(np.median(sure)) < SMALL_INDEX * long_side


class Models:
    """The detector and the classifier, ready to run."""

    def __init__(
        self,
        models_dir: Path = MODELS_DIR,
        runtime: Runtime | str = Runtime.ONNXRUNTIME,
        threads: int | None = None,
        *,
        any_size: bool = True,
        int8: bool = True,
    ) -> None:
        """``any_size=False`` ignores ``card-index-dynamic.onnx``, ``int8=False`` ignores
        ``index-classifier-int8.onnx``: the exports as trained, for comparing."""
        files = ModelFiles(
            models_dir / DETECTOR_FILE,
            models_dir / CLASSIFIER_FILE,
            models_dir / DYNAMIC_DETECTOR_FILE if any_size else None,
            models_dir / INT8_CLASSIFIER_FILE if int8 else None,
        )
        for p in (files.detector, files.classifier):
            if not p.exists():
                raise FileNotFoundError(f"model file missing: {p} (train with 'phase10 train')")
        self.runtime = Runtime.named(runtime)
        self.engine: Engine = load_engine(self.runtime, files, threads)

    @property
    def imgsz(self) -> int:
        return self.engine.imgsz

    @property
    def dynamic(self) -> bool:
        """The detector takes any input size and returns raw head maps."""
        return self.engine.any_size

    @property
    def int8(self) -> bool:
        """The classifier runs with 8-bit weights and activations."""
        return self.engine.int8

    def ways_up(self, img: Image) -> list[tuple[int, Image, Detections, Detections]]:
        """The turn (clockwise degrees) that sets the cards of ``img`` upright (``TURNS``), ``img`` turned so,
        its index boxes (``detect``'s, strongest first) and its first look's weak boxes (``first_look``); then
        the same for the turn opposite it where that was looked at and its boxes are a rival (``RIVAL_SHARE``):
        the ways up that only reading the cards can tell apart (``vision.reader``)."""
        firsts = {turn: self.first_look(turned(img, turn)) for turn in TURNS[:2]}
        looks = {turn: [sure] for turn, (sure, _) in firsts.items()}
        # Judged with the shrunk looks only where every first look may be a close-up: where one is not, that
        # look finds the cards (a photo's wrong way up always finds few, so it would take one on every photo).
        sized = all(close_up(first, max(img.shape[:2])) for first, *_ in looks.values())
        if sized:
            looks = {turn: self.sized_looks(turned(img, turn), first) for turn, (first, *_) in looks.items()}
        found = {turn: _merged(each) for turn, each in looks.items()}
        if max(float(d.confidence.sum()) for d in found.values()) < SIDEWAYS_BELOW:
            for turn in TURNS[2:]:
                side = turned(img, turn)
                looks[turn] = self.sized_looks(side) if sized else [self.look(side)]
                found[turn] = _merged(looks[turn])
        best = TURNS[0]
        pair = [found[turn] for turn in TURNS[:2]]
        for turn, boxes in found.items():  # the first of equals wins: TURNS' order
            if turn in TURNS[:2]:
                surer = _surer(boxes, found[best], found[TURNS[0]], TURN_FEWEST)
            else:
                surer = _surer(boxes, found[best], found[TURNS[0]], CLOSE_UP_FEW) or _on_its_side(
                    boxes, found[best], pair
                )
            if surer:
                best = turn
        ways = [best]
        other = (best + 180) % 360  # sideways, the other quarter turn: looked at with this one
        if other in found:
            rival = found[other]
            if (
                _sure(rival) >= CLOSE_UP_FEW
                and rival.confidence.sum() >= RIVAL_SHARE * found[best].confidence.sum()
            ):
                ways.append(other)
        out = []
        for turn in ways:
            image = turned(img, turn)
            chosen = looks[turn] if sized else self.sized_looks(image, looks[turn][0])
            weak = firsts[turn][1] if turn in firsts else Detections.empty()
            out.append((turn, image, self.detect(image, chosen), weak))
        return out

    def other_ways(
        self, img: Image, tried: Collection[int]
    ) -> list[tuple[int, Image, Detections, Detections]]:
        """The turns of ``img`` other than ``tried`` whose looks are sure of an index (``CLOSE_UP_SURE``), surest
        sum first, each as ``ways_up`` gives a way (without weak boxes): for a photo whose chosen ways read no
        card at all."""
        out = []
        for turn in TURNS:
            if turn in tried:
                continue
            image = turned(img, turn)
            looks = self.sized_looks(image)
            found = _merged(looks)
            if _sure(found):
                out.append((float(found.confidence.sum()), turn, image, looks))
        out.sort(key=lambda way: -way[0])
        return [(turn, image, self.detect(image, looks), Detections.empty()) for _, turn, image, looks in out]

    def look(self, img: Image) -> Detections:
        """The detector's first look at ``img``: the photo filling the input."""
        return self._look(img, 1.0, margin=0)

    def first_look(self, img: Image) -> tuple[Detections, Detections]:
        """``look``'s boxes, and apart from them the weak boxes of the same look: those scored from ``WEAK_CONF``
        up to ``DET_CONF``. The NMS keeps the same boxes of the first kind either way: a weaker box never
        suppresses a stronger one."""
        every = self._look(img, 1.0, margin=0, floor=WEAK_CONF)
        sure = every.confidence >= DET_CONF
        return every[sure], every[~sure]

    def sized_looks(self, img: Image, first: Detections | None = None) -> list[Detections]:
        """The first look at ``img`` (``first`` where it was taken already), and the shrunk look's large boxes
        where the first suggests a close-up: the looks that find its cards whatever their size in the photo, bar
        the enlarged one (``detect``)."""
        if first is None:
            first = self.look(img)
        long_side = max(img.shape[:2])
        if not close_up(first, long_side):
            return [first]
        shrunk = self._look(img, SHRUNK_FILL, margin=round(SHRUNK_MARGIN * self.imgsz))
        return [first, shrunk[shrunk.height >= SHRUNK_MIN_HEIGHT * long_side]]

    def detect(self, img: Image, looks: list[Detections] | None = None) -> Detections:
        """The index boxes in ``img`` (its pixels), strongest first; ``looks`` is ``sized_looks(img)`` where it
        was taken already."""
        if looks is None:
            looks = self.sized_looks(img)
        first = looks[0]
        long_side = max(img.shape[:2])
        if len(looks) == 1 and self.engine.any_size and small_indexes(first, long_side):
            enlarged = self._look(img, ENLARGED_FILL, margin=0)
            looks = [first, enlarged[enlarged.height < CLOSE_UP_HEIGHT * long_side]]
        return _merged(looks)

    def _look(self, img: Image, fill: float, margin: int, floor: float = DET_CONF) -> Detections:
        """The detector's boxes scored at least ``floor`` with the photo filling ``fill`` of the input."""
        if self.engine.any_size:
            boxed, r, pad = fit_input(img, self.imgsz, fill, margin)
            return decode_maps(self.engine.run_detector(to_blob(boxed)), boxed.shape[0], r, pad, floor)
        boxed, r, pad = letterbox(img, self.imgsz, fill)
        return decode_yolo(self.engine.run_detector(to_blob(boxed))[0], r, pad, floor)

    def classify(self, img: Image, boxes: Sequence[Box] | Floats) -> NDArray[np.float32]:
        """Class probabilities (len(boxes) x classes) for the index crops at ``boxes``: the plain crop of each,
        averaged with the other ``CROP_VIEWS`` where that one is unsure (``SURE_VIEW``)."""
        if len(boxes) == 0:
            return np.zeros((0, len(CLASS_CARDS)), np.float32)
        rows: list[list[float]] = np.asarray(boxes, np.float64).reshape(-1, 4).tolist()
        (dx, dy, z), *others = CROP_VIEWS
        first = self.classify_crops(np.stack([crop_index(img, b, shift=(dx, dy), zoom=z) for b in rows]))
        unsure = np.flatnonzero(first.max(axis=1) < SURE_VIEW)
        if not others or unsure.size == 0:
            return first
        crops = np.stack(
            [
                crop_index(img, rows[i], shift=(dx, dy), zoom=z)
                for dx, dy, z in others
                for i in unsure.tolist()
            ]
        )
        p = self.classify_crops(crops).reshape(len(others), len(unsure), -1)
        out = first.copy()
        out[unsure] = (first[unsure] + p.sum(axis=0)) / len(CROP_VIEWS)
        return out

    def classify_crops(self, crops: NDArray[np.uint8]) -> NDArray[np.float32]:
        """Class probabilities of ready-made index crops (N x CROP x CROP x 3 BGR uint8), one view each."""
        logits = self.engine.run_classifier(to_input(crops))
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        probs: NDArray[np.float32] = e / e.sum(axis=1, keepdims=True)
        return probs


def _surer(boxes: Detections, than: Detections, taken: Detections, fewest: int) -> bool:
    """Whether a turn's boxes set the photo upright rather than ``than``'s, sure of at least ``fewest`` indexes
    (``TURN_*``); ``taken``: the boxes of the photo as it came."""
    sure = _sure(boxes)
    total = float(boxes.confidence.sum())
    if sure < fewest or total <= float(than.confidence.sum()):
        return False
    return sure >= CLOSE_UP_FEW or total > TURN_FEW_BY * float(taken.confidence.sum())


def _on_its_side(boxes: Detections, than: Detections, pair: Sequence[Detections]) -> bool:
    """Whether a quarter turn's boxes set upright a photo of a few cards that the ``pair`` of looks (as it came
    and half round) is sure of at most one index of (``SIDEWAYS_BY``), rather than ``than``'s turn."""
    # A sum above than's is never that of no boxes, so the boxes have a surest one.
    if float(boxes.confidence.sum()) <= float(than.confidence.sum()) or max(map(_sure, pair)) > 1:
        return False
    theirs = max((float(p.confidence.max()) for p in pair if p.confidence.size), default=0.0)
    surest = float(boxes.confidence.max())
    return surest >= CLOSE_UP_SURE and surest > SIDEWAYS_BY * theirs


def _sure(boxes: Detections) -> int:
    """How many of ``boxes`` the detector is sure of (``CLOSE_UP_SURE``)."""
    return int((boxes.confidence >= CLOSE_UP_SURE).sum())


def _merged(looks: Sequence[Detections]) -> Detections:
    """The boxes of several looks at one photo, each index once (``NMS_IOU``, ``CONTAINED``)."""
    return suppress(Detections.merge(list(looks)), NMS_IOU, CONTAINED)


_lock = threading.Lock()
_models: dict[tuple[str, str], Models] = {}


def get_models(runtime: Runtime | str | None = None, models_dir: Path | None = None) -> Models:
    """The process-wide models for a runtime (``Runtime.named``), loaded on first use; ``models_dir`` names
    another folder (a taught deck's), whose models are kept as :func:`_other_models` says."""
    chosen = Runtime.named(runtime)
    if models_dir is not None and Path(models_dir) != MODELS_DIR:
        return _other_models(chosen, Path(models_dir))
    key = (chosen.value, str(MODELS_DIR))
    m = _models.get(key)
    if m is None:
        with _lock:
            m = _models.get(key)
            if m is None:
                m = Models(MODELS_DIR, chosen)
                _models[key] = m
    return m


# A deck's models load once and stay for its next photo; a few folders at most, so that a server whose groups try
# many decks keeps its memory. Keyed by the files' identity too: a deck taught again under its name is new models.
OTHER_MODELS_KEPT = 4
_other: OrderedDict[tuple[str, ...], Models] = OrderedDict()


def _other_models(runtime: Runtime, folder: Path) -> Models:
    try:
        stats = [(folder / f).stat() for f in (DETECTOR_FILE, CLASSIFIER_FILE)]
    except OSError as exc:
        raise FileNotFoundError(f"model file missing: {exc.filename}") from None
    key = (runtime.value, str(folder), *(f"{s.st_ino}:{s.st_mtime_ns}" for s in stats))
    with _lock:
        m = _other.get(key)
        if m is not None:
            _other.move_to_end(key)
            return m
    m = Models(folder, runtime)
    with _lock:
        _other[key] = m
        while len(_other) > OTHER_MODELS_KEPT:
            _other.popitem(last=False)
    return m


def card_classes(probs: NDArray[np.float32], scores: ArrayLike) -> tuple[NDArray[np.int64], Floats]:
    """Per crop whose box the detector scored ``scores``: its class and the classifier's probability of it;
    NONE_CLASS where it is not a card or either model is too unsure (``MIN_CARD_PROB``, ``MIN_CARD_CONF``)."""
    k = probs.argmax(axis=1).astype(np.int64)
    p = probs[np.arange(len(probs)), k].astype(np.float64)
    unsure = (k == NONE_CLASS) | (p < MIN_CARD_PROB) | (np.asarray(scores, np.float64) * p < MIN_CARD_CONF)
    return np.where(unsure, NONE_CLASS, k).astype(np.int64), p
