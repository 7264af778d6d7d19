"""The two shipped ONNX models at serve time, without torch: onnxruntime (default) or OpenCV's DNN module.

``get_models()`` loads them once per process (a lazy, thread-safe singleton). onnxruntime sessions may be run
from many threads at once and release the GIL, so concurrent photos do not queue behind one another; an OpenCV
``Net`` may not, so that runtime keeps one net per thread.

With onnxruntime the detector runs from ``card-index-dynamic.onnx`` when that file was made from the
``card-index.onnx`` beside it (``vision.modelfiles.make_dynamic_detector``): the same weights, and on the same input the same boxes,
but it takes an input of any size and hands back the head's raw maps. A photo is then looked at without the square
letterbox's grey bands, the half-size look costs a quarter of the first, and only the anchors that clear the score
floor are decoded. Likewise the classifier runs from ``index-classifier-int8.onnx`` when that was made from the
``index-classifier.onnx`` beside it (``vision.modelfiles.make_int8_classifier``). OpenCV DNN, or models from ``phase10 train``
without those files, run the exports as they are.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.crops import CLASS_CARDS, NONE_CLASS, crop_index, to_input

MODELS_DIR = Path(os.environ.get("PHASE10_MODELS", Path(__file__).resolve().parents[1] / "models"))
DETECTOR_FILE = "card-index.onnx"
CLASSIFIER_FILE = "index-classifier.onnx"
# Made from DETECTOR_FILE by make_dynamic_detector; used only while its recorded source digest matches that file.
DYNAMIC_DETECTOR_FILE = "card-index-dynamic.onnx"
# Made from CLASSIFIER_FILE by make_int8_classifier, under the same rule.
INT8_CLASSIFIER_FILE = "index-classifier-int8.onnx"
SOURCE_DIGEST = "source_sha256"

DET_CONF = 0.25
NMS_IOU = 0.5
MIN_CARD_PROB = 0.35  # chosen on the validation scenes (training designs), not on the held-out set
# A reading is kept only when detector score x classifier probability reaches this: a box the detector half
# believes in and the classifier half recognises is more often a neighbour's edge, an upside-down index or a
# doubled box than a card (chosen on the validation scenes: 355 -> 360 of 400 read exactly, the middle
# of a plateau from 0.2 to 0.3).
MIN_CARD_CONF = 0.25
# The detector was trained on cards 8-17 % of the photo's width. A close-up (a few cards filling the frame) is
# outside that range, so the photo is also looked at shrunk to half the input, where such cards fall inside it.
# Only boxes that are large for the photo (an index at least this fraction of its long side) are taken from the
# shrunk look: there, small indexes would be a few pixels and what it finds among them is mostly noise.
DETECT_SCALES = ((1.0, 0.0), (0.5, 0.055))
# The shrunk look adds nothing to a photo of cards in the trained range, so it is taken only where the first look
# suggests a close-up: an index at least CLOSE_UP_HEIGHT of the long side, or fewer than CLOSE_UP_FEW boxes scored
# at least CLOSE_UP_SURE (a close-up's indexes are often too big to be found at all). Chosen on the dev,
# validation, plain-deck and close-up photos (models/MODEL_CARD.md, "Latency").
CLOSE_UP_HEIGHT = 0.05
CLOSE_UP_FEW = 4
CLOSE_UP_SURE = 0.5
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


@dataclass(frozen=True, slots=True)
class Detection:
    box: tuple[float, float, float, float]  # in the pixels of the image given to ``detect``
    score: float


def letterbox(img: np.ndarray, size: int, fill: float = 1.0) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Fit ``img`` into ``fill`` of a ``size`` square (aspect kept, grey padding); returns it, the scale and the
    offset of the image in the square."""
    resized, r = _fit(img, size, fill)
    return _pad(resized, size, size, r)


def fit_input(
    img: np.ndarray, size: int, fill: float = 1.0, margin: int = 0
) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Like ``letterbox``, but padded only by ``margin`` on each side and up to the next multiple of
    ``INPUT_STRIDE`` (for a detector that takes any input size): a 4:3 photo fills a 640x480 input instead of
    sitting in a 640x640 one."""
    resized, r = _fit(img, size, fill)
    nh, nw = resized.shape[:2]

    def up(n: int) -> int:
        return -(-(n + 2 * margin) // INPUT_STRIDE) * INPUT_STRIDE

    return _pad(resized, up(nh), up(nw), r)


def _fit(img: np.ndarray, size: int, fill: float) -> tuple[np.ndarray, float]:
    h, w = img.shape[:2]
    r = min(size / w, size / h) * fill
    nw, nh = round(w * r), round(h * r)
    return cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR), r


def _pad(resized: np.ndarray, height: int, width: int, r: float) -> tuple[np.ndarray, float, tuple[int, int]]:
    nh, nw = resized.shape[:2]
    top, left = (height - nh) // 2, (width - nw) // 2
    if (height, width) == (nh, nw):
        return resized, r, (0, 0)
    out = cv2.copyMakeBorder(
        resized, top, height - nh - top, left, width - nw - left, cv2.BORDER_CONSTANT, value=(114, 114, 114)
    )
    return out, r, (left, top)


def _blob(img: np.ndarray) -> np.ndarray:
    """BGR uint8 HxWx3 -> RGB float32 1x3xHxW in [0, 1], as the detector was trained."""
    blob = np.ascontiguousarray(img[..., ::-1].transpose(2, 0, 1)[None], dtype=np.float32)
    blob /= np.float32(255)  # in place: a second photo-sized array is a few thousand fresh pages to fault in
    return blob


def decode_yolo(out: np.ndarray, r: float, pad: tuple[int, int], conf: float = DET_CONF) -> list[Detection]:
    """YOLO head output (1, 4 + classes, N) -> boxes after NMS, in the letterboxed image's source pixels."""
    pred = out[0].T  # N x (4 + nc)
    scores = pred[:, 4:].max(axis=1)
    keep = scores >= conf
    pred, scores = pred[keep], scores[keep]
    if len(pred) == 0:
        return []
    cx, cy, w, h = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    return _nms(cx - w / 2, cy - h / 2, w, h, scores, r, pad, conf)


def decode_maps(
    maps: list[np.ndarray], height: int, r: float, pad: tuple[int, int], conf: float = DET_CONF
) -> list[Detection]:
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
        return []
    cat = np.concatenate
    return _nms(cat(xs), cat(ys), cat(ws), cat(hs), cat(ss), r, pad, conf)


def _nms(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    h: np.ndarray,
    scores: np.ndarray,
    r: float,
    pad: tuple[int, int],
    conf: float,
) -> list[Detection]:
    x1, y1 = (x - pad[0]) / r, (y - pad[1]) / r
    bw, bh = w / r, h / r
    idx = cv2.dnn.NMSBoxes(
        np.stack([x1, y1, bw, bh], 1).tolist(), scores.astype(float).tolist(), conf, NMS_IOU
    )
    idx = np.array(idx).reshape(-1)
    return [
        Detection((float(x1[i]), float(y1[i]), float(x1[i] + bw[i]), float(y1[i] + bh[i])), float(scores[i]))
        for i in idx
    ]


def merge_detections(dets: list[Detection]) -> list[Detection]:
    """Strongest first; drop a box that overlaps a kept one (IoU) or lies mostly inside it."""
    kept: list[Detection] = []
    for d in sorted(dets, key=lambda d: -d.score):
        x1, y1, x2, y2 = d.box
        area = max((x2 - x1) * (y2 - y1), 1e-6)
        clash = False
        for k in kept:
            a1, b1, a2, b2 = k.box
            inter = max(0.0, min(x2, a2) - max(x1, a1)) * max(0.0, min(y2, b2) - max(y1, b1))
            k_area = max((a2 - a1) * (b2 - b1), 1e-6)
            if inter / (area + k_area - inter) > NMS_IOU or inter / min(area, k_area) > CONTAINED:
                clash = True
                break
        if not clash:
            kept.append(d)
    return kept


def close_up(first: list[Detection], long_side: float) -> bool:
    """Whether the first look's boxes suggest cards larger than the detector was trained on (``CLOSE_UP_*``)."""
    sure = sum(d.score >= CLOSE_UP_SURE for d in first)
    return sure < CLOSE_UP_FEW or any(d.box[3] - d.box[1] >= CLOSE_UP_HEIGHT * long_side for d in first)


def default_threads() -> int:
    """Intra-op threads per session: every core, up to four, so that on a many-core server reading several
    photos at once each run does not fan its small ops out over every core."""
    return max(1, min(os.cpu_count() or 1, 4))


def session_options(threads: int | None = None) -> Any:
    """onnxruntime options for both models: every graph optimisation, one op at a time, and threads that sleep
    between ops instead of spinning. Spinning threads would hold the cores through the numpy and OpenCV work
    between two runs (crops, decoding, grouping), and on a small machine that work is on the same cores."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.intra_op_num_threads = threads or default_threads()
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return opts


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _derived_session(derived: Path, source: Path, opts: Any) -> Any:
    """A session of ``derived`` when it exists and records ``source``'s digest, else None: a retrained model beside
    an old derived file must not be read with the old weights."""
    if not derived.exists():
        return None
    import onnxruntime as ort

    sess = ort.InferenceSession(str(derived), opts, providers=["CPUExecutionProvider"])
    if sess.get_modelmeta().custom_metadata_map.get(SOURCE_DIGEST) != _digest(source):
        return None
    return sess


class Models:
    """The detector and the classifier, ready to run."""

    def __init__(
        self,
        models_dir: Path = MODELS_DIR,
        runtime: str = "onnxruntime",
        threads: int | None = None,
        *,
        any_size: bool = True,
        int8: bool = True,
    ):
        """``any_size=False`` ignores ``card-index-dynamic.onnx``, ``int8=False`` ignores
        ``index-classifier-int8.onnx``: the exports as trained, for comparing."""
        det_path, cls_path = models_dir / DETECTOR_FILE, models_dir / CLASSIFIER_FILE
        for p in (det_path, cls_path):
            if not p.exists():
                raise FileNotFoundError(f"model file missing: {p} (train with 'phase10 train')")
        self.runtime = runtime
        self._det_path, self._cls_path = det_path, cls_path
        self.dynamic = False  # the detector takes any input size and returns raw head maps
        self.int8 = False  # the classifier runs with 8-bit weights and activations
        if runtime == "onnxruntime":
            import onnxruntime as ort

            opts = session_options(threads)
            det = _derived_session(models_dir / DYNAMIC_DETECTOR_FILE, det_path, opts) if any_size else None
            self.dynamic = det is not None
            if det is None:
                det = ort.InferenceSession(str(det_path), opts, providers=["CPUExecutionProvider"])
                self.imgsz = int(det.get_inputs()[0].shape[2])
            else:
                self.imgsz = int(det.get_modelmeta().custom_metadata_map["imgsz"])
            cls = _derived_session(models_dir / INT8_CLASSIFIER_FILE, cls_path, opts) if int8 else None
            self.int8 = cls is not None
            if cls is None:
                cls = ort.InferenceSession(str(cls_path), opts, providers=["CPUExecutionProvider"])
            self._det, self._cls = det, cls
            self._det_in = self._det.get_inputs()[0].name
            self._cls_in = self._cls.get_inputs()[0].name
        elif runtime == "opencv":
            self._local = threading.local()
            net = cv2.dnn.readNetFromONNX(str(det_path))
            self._local.det = net
            self.imgsz = _onnx_input_size(det_path)
        else:
            raise ValueError(f"unknown runtime {runtime!r}: use onnxruntime or opencv")

    def _nets(self) -> tuple[cv2.dnn.Net, cv2.dnn.Net]:
        local = self._local
        if not hasattr(local, "det"):
            local.det = cv2.dnn.readNetFromONNX(str(self._det_path))
        if not hasattr(local, "cls"):
            local.cls = cv2.dnn.readNetFromONNX(str(self._cls_path))
        return local.det, local.cls

    def detect(self, img: np.ndarray) -> list[Detection]:
        found: list[Detection] = []
        long_side = max(img.shape[:2])
        for k, (fill, min_height) in enumerate(DETECT_SCALES):
            if k and not close_up(found, long_side):
                break
            dets = self._look(img, fill, margin=round(SHRUNK_MARGIN * self.imgsz) if k else 0)
            found.extend(d for d in dets if d.box[3] - d.box[1] >= min_height * long_side)
        return merge_detections(found)

    def _look(self, img: np.ndarray, fill: float, margin: int) -> list[Detection]:
        """The detector's boxes with the photo filling ``fill`` of the input."""
        if self.dynamic:
            boxed, r, pad = fit_input(img, self.imgsz, fill, margin)
            maps = self._det.run(None, {self._det_in: _blob(boxed)})
            return decode_maps(maps, boxed.shape[0], r, pad)
        boxed, r, pad = letterbox(img, self.imgsz, fill)
        blob = _blob(boxed)
        if self.runtime == "onnxruntime":
            out = self._det.run(None, {self._det_in: blob})[0]
        else:
            det, _ = self._nets()
            det.setInput(blob)
            out = det.forward()
        return decode_yolo(np.asarray(out), r, pad)

    def classify(self, img: np.ndarray, boxes: list[tuple[float, float, float, float]]) -> np.ndarray:
        """Class probabilities (len(boxes) x classes) for the index crops at ``boxes``: the plain crop of each,
        averaged with the other ``CROP_VIEWS`` where that one is unsure (``SURE_VIEW``)."""
        if not boxes:
            return np.zeros((0, len(CLASS_CARDS)), np.float32)
        (dx, dy, z), *others = CROP_VIEWS
        first = self.classify_crops(np.stack([crop_index(img, b, shift=(dx, dy), zoom=z) for b in boxes]))
        unsure = np.flatnonzero(first.max(axis=1) < SURE_VIEW)
        if not others or unsure.size == 0:
            return first
        crops = np.stack(
            [crop_index(img, boxes[i], shift=(dx, dy), zoom=z) for dx, dy, z in others for i in unsure]
        )
        p = self.classify_crops(crops).reshape(len(others), len(unsure), -1)
        out = first.copy()
        out[unsure] = (first[unsure] + p.sum(axis=0)) / len(CROP_VIEWS)
        return out

    def classify_crops(self, crops: np.ndarray) -> np.ndarray:
        """Class probabilities of ready-made index crops (N x CROP x CROP x 3 BGR uint8), one view each."""
        x = to_input(crops)
        if self.runtime == "onnxruntime":
            logits = self._cls.run(None, {self._cls_in: x})[0]
        else:
            _, cls = self._nets()
            cls.setInput(x)
            logits = cls.forward()
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)


def _onnx_input_size(path: Path) -> int:
    # OpenCV does not report an ONNX input shape; onnxruntime (same extra) reads it without running anything.
    import onnxruntime as ort

    return int(ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).get_inputs()[0].shape[2])


_lock = threading.Lock()
_models: dict[tuple[str, str], Models] = {}


def get_models(runtime: str | None = None, models_dir: Path | None = None) -> Models:
    """The process-wide models for a runtime, loaded on first use."""
    runtime = runtime or os.environ.get("PHASE10_VISION_RUNTIME", "onnxruntime")
    d = models_dir or MODELS_DIR
    key = (runtime, str(d))
    m = _models.get(key)
    if m is None:
        with _lock:
            m = _models.get(key)
            if m is None:
                m = Models(d, runtime)
                _models[key] = m
    return m


def card_of(probs: np.ndarray, score: float = 1.0) -> tuple[int, float]:
    """(class, probability) of one crop whose box the detector scored ``score``; NONE_CLASS when it is not a
    card or either model is too unsure (``MIN_CARD_PROB``, ``MIN_CARD_CONF``)."""
    k = int(probs.argmax())
    p = float(probs[k])
    if k == NONE_CLASS or p < MIN_CARD_PROB or score * p < MIN_CARD_CONF:
        return NONE_CLASS, p
    return k, p
