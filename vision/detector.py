"""The two shipped ONNX models at serve time, without torch: onnxruntime (default) or OpenCV's DNN module.

``get_models()`` loads them once per process (a lazy, thread-safe singleton). onnxruntime sessions may be run
from many threads at once and release the GIL, so concurrent photos do not queue behind one another; an OpenCV
``Net`` may not, so that runtime keeps one net per thread.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.crops import CLASS_CARDS, NONE_CLASS, crop_index, to_input

MODELS_DIR = Path(os.environ.get("PHASE10_MODELS", Path(__file__).resolve().parents[1] / "models"))
DETECTOR_FILE = "card-index.onnx"
CLASSIFIER_FILE = "index-classifier.onnx"

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
# A box lying mostly inside a stronger one is a part of the same index (the "2" of a "12"), not another card.
CONTAINED = 0.7
# The classifier reads each index from a few slightly different crops and averages: a detector box that sits a
# little off, or a face unlike the training fonts, then weighs less on one unlucky crop.
CROP_VIEWS: tuple[tuple[float, float, float], ...] = (
    (0.0, 0.0, 1.0),
    (0.05, 0.05, 1.08),
    (-0.05, -0.03, 0.94),
)


@dataclass(frozen=True, slots=True)
class Detection:
    box: tuple[float, float, float, float]  # in the pixels of the image given to ``detect``
    score: float


def letterbox(img: np.ndarray, size: int, fill: float = 1.0) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Fit ``img`` into ``fill`` of a ``size`` square (aspect kept, grey padding); returns it, the scale and the
    offset of the image in the square."""
    h, w = img.shape[:2]
    r = min(size / w, size / h) * fill
    nw, nh = round(w * r), round(h * r)
    resized = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    top, left = (size - nh) // 2, (size - nw) // 2
    out = np.full((size, size, 3), 114, np.uint8)
    out[top : top + nh, left : left + nw] = resized
    return out, r, (left, top)


def decode_yolo(out: np.ndarray, r: float, pad: tuple[int, int], conf: float = DET_CONF) -> list[Detection]:
    """YOLO head output (1, 4 + classes, N) -> boxes after NMS, in the letterboxed image's source pixels."""
    pred = out[0].T  # N x (4 + nc)
    scores = pred[:, 4:].max(axis=1)
    keep = scores >= conf
    pred, scores = pred[keep], scores[keep]
    if len(pred) == 0:
        return []
    cx, cy, w, h = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    x1 = (cx - w / 2 - pad[0]) / r
    y1 = (cy - h / 2 - pad[1]) / r
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


class Models:
    """The detector and the classifier, ready to run."""

    def __init__(
        self, models_dir: Path = MODELS_DIR, runtime: str = "onnxruntime", threads: int | None = None
    ):
        det_path, cls_path = models_dir / DETECTOR_FILE, models_dir / CLASSIFIER_FILE
        for p in (det_path, cls_path):
            if not p.exists():
                raise FileNotFoundError(f"model file missing: {p} (train with 'phase10 train')")
        self.runtime = runtime
        self._det_path, self._cls_path = det_path, cls_path
        if runtime == "onnxruntime":
            import onnxruntime as ort

            opts = ort.SessionOptions()
            if threads:
                opts.intra_op_num_threads = threads
            self._det = ort.InferenceSession(str(det_path), opts, providers=["CPUExecutionProvider"])
            self._cls = ort.InferenceSession(str(cls_path), opts, providers=["CPUExecutionProvider"])
            shape = self._det.get_inputs()[0].shape
            self._det_in = self._det.get_inputs()[0].name
            self._cls_in = self._cls.get_inputs()[0].name
        elif runtime == "opencv":
            self._local = threading.local()
            net = cv2.dnn.readNetFromONNX(str(det_path))
            self._local.det = net
            shape = [1, 3, _onnx_input_size(det_path), 0]
        else:
            raise ValueError(f"unknown runtime {runtime!r}: use onnxruntime or opencv")
        self.imgsz = int(shape[2])

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
        for fill, min_height in DETECT_SCALES:
            boxed, r, pad = letterbox(img, self.imgsz, fill)
            blob = np.ascontiguousarray(boxed[..., ::-1].transpose(2, 0, 1)[None], dtype=np.float32) / 255.0
            if self.runtime == "onnxruntime":
                out = self._det.run(None, {self._det_in: blob})[0]
            else:
                det, _ = self._nets()
                det.setInput(blob)
                out = det.forward()
            dets = decode_yolo(np.asarray(out), r, pad)
            found.extend(d for d in dets if d.box[3] - d.box[1] >= min_height * long_side)
        return merge_detections(found)

    def classify(self, img: np.ndarray, boxes: list[tuple[float, float, float, float]]) -> np.ndarray:
        """Class probabilities (len(boxes) x classes) for the index crops at ``boxes``."""
        if not boxes:
            return np.zeros((0, len(CLASS_CARDS)), np.float32)
        views = CROP_VIEWS
        crops = np.stack([crop_index(img, b, shift=(dx, dy), zoom=z) for dx, dy, z in views for b in boxes])
        p = self.classify_crops(crops)
        return p.reshape(len(views), len(boxes), -1).mean(axis=0)

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
