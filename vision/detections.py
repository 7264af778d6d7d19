"""Boxes found in a photo, one column per field, and the box-overlap arithmetic every part of the camera uses.

Shaped like roboflow/supervision's ``Detections``: an N x 4 array of boxes, a confidence and (once the classifier
has named them) a class per box, and any further columns in ``data``. A selection is a mask or an index array
(``dets[dets.confidence >= 0.5]``) and gives a new ``Detections`` with every column cut the same way, so no caller
keeps lists of tuples in step by hand.

>>> d = Detections.from_boxes([(0, 0, 10, 10), (20, 0, 30, 10)], [0.9, 0.3])
>>> len(d[d.confidence >= 0.5]), d[np.array([1])].boxes()
(1, [(20.0, 0.0, 30.0, 10.0)])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

Box = tuple[float, float, float, float]  # x1, y1, x2, y2
Floats = NDArray[np.float64]
Mask = NDArray[np.bool_]
Indexes = NDArray[np.intp]

# The least side or area a ratio divides by, so that a ratio over a degenerate box is a number.
TINY = 1e-6


@dataclass(frozen=True, slots=True, eq=False)
class Detections:
    xyxy: Floats  # N x 4: x1, y1, x2, y2
    confidence: Floats  # N
    # N classes (positions in ``vision.crops.CLASS_CARDS``) once the boxes are named; None before.
    class_id: NDArray[np.int64] | None = None
    data: dict[str, NDArray[Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        if self.xyxy.shape != (n, 4):
            raise ValueError(f"xyxy must be N x 4, not {self.xyxy.shape}")
        columns = {"confidence": self.confidence, **self.data}
        if self.class_id is not None:
            columns["class_id"] = self.class_id
        for name, column in columns.items():
            if len(column) != n:
                raise ValueError(f"{name} has {len(column)} rows for {n} boxes")

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4), np.float64), np.zeros(0, np.float64))

    @classmethod
    def from_boxes(cls, boxes: Sequence[Box] | ArrayLike, confidence: ArrayLike) -> Detections:
        return cls(
            np.asarray(boxes, np.float64).reshape(-1, 4), np.asarray(confidence, np.float64).reshape(-1)
        )

    @classmethod
    def merge(cls, parts: Iterable[Detections]) -> Detections:
        """One ``Detections`` of every row of ``parts``, in order; the parts must have the same columns."""
        parts = list(parts)
        if not parts:
            return cls.empty()
        named = parts[0].class_id is not None
        if any((p.class_id is not None) != named or p.data.keys() != parts[0].data.keys() for p in parts):
            raise ValueError("cannot merge detections with different columns")
        return cls(
            np.concatenate([p.xyxy for p in parts]),
            np.concatenate([p.confidence for p in parts]),
            np.concatenate([p.class_id for p in parts if p.class_id is not None]) if named else None,
            {k: np.concatenate([p.data[k] for p in parts]) for k in parts[0].data},
        )

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: Mask | Indexes | Sequence[int] | slice) -> Detections:
        """The rows a boolean mask, an index array or a slice selects, every column alike."""
        if not isinstance(index, slice):
            index = np.asarray(index)
            if index.dtype != np.bool_:
                index = index.astype(np.intp).reshape(-1)
        return Detections(
            self.xyxy[index],
            self.confidence[index],
            None if self.class_id is None else self.class_id[index],
            {k: v[index] for k, v in self.data.items()},
        )

    def with_classes(self, class_id: ArrayLike, confidence: ArrayLike) -> Detections:
        """The same boxes named: a class and a new confidence for each."""
        return Detections(
            self.xyxy,
            np.asarray(confidence, np.float64).reshape(-1),
            np.asarray(class_id, np.int64).reshape(-1),
            dict(self.data),
        )

    def boxes(self) -> list[Box]:
        """The boxes as tuples of Python floats."""
        return [(x1, y1, x2, y2) for x1, y1, x2, y2 in self.xyxy.tolist()]

    @property
    def height(self) -> Floats:
        return self.xyxy[:, 3] - self.xyxy[:, 1]


def _as_boxes(boxes: Sequence[Box] | Floats) -> Floats:
    return np.asarray(boxes, np.float64).reshape(-1, 4)


def axis_overlap(a: Sequence[Box] | Floats, b: Sequence[Box] | Floats, axis: int) -> Floats:
    """len(a) x len(b): how far each box of ``a`` and each of ``b`` share along x (``axis=0``) or y (``axis=1``),
    0 where they do not."""
    pa, pb = _as_boxes(a), _as_boxes(b)
    lo = np.maximum(pa[:, None, axis], pb[None, :, axis])
    hi = np.minimum(pa[:, None, axis + 2], pb[None, :, axis + 2])
    shared: Floats = np.maximum(0.0, hi - lo)
    return shared


def shared_fraction(a: Sequence[Box] | Floats, b: Sequence[Box] | Floats, axis: int) -> Floats:
    """``axis_overlap`` as a share of the shorter of the two boxes' sides along that axis."""
    pa, pb = _as_boxes(a), _as_boxes(b)
    sa, sb = pa[:, axis + 2] - pa[:, axis], pb[:, axis + 2] - pb[:, axis]
    return axis_overlap(pa, pb, axis) / np.maximum(np.minimum(sa[:, None], sb[None, :]), TINY)


def areas(boxes: Sequence[Box] | Floats) -> Floats:
    """Each box's area, at least ``TINY``."""
    b = _as_boxes(boxes)
    return np.maximum((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]), TINY)


def overlaps(a: Sequence[Box] | Floats, b: Sequence[Box] | Floats) -> tuple[Floats, Floats]:
    """len(a) x len(b) intersection over union, and intersection over the smaller box's area."""
    inter = axis_overlap(a, b, 0) * axis_overlap(a, b, 1)
    area_a, area_b = areas(a)[:, None], areas(b)[None, :]
    return inter / (area_a + area_b - inter), inter / np.minimum(area_a, area_b)


def box_iou(a: Sequence[Box] | Floats, b: Sequence[Box] | Floats) -> Floats:
    """len(a) x len(b) intersection over union."""
    return overlaps(a, b)[0]


def outline_iou(a: ArrayLike, b: ArrayLike) -> float:
    """Intersection over union of two convex outlines (their corners in order, e.g. a card's four)."""
    p, q = (np.asarray(x, np.float32).reshape(-1, 2) for x in (a, b))
    inter, _ = cv2.intersectConvexConvex(p, q)
    union = abs(cv2.contourArea(p)) + abs(cv2.contourArea(q)) - inter
    return float(inter / union) if union > 0 else 0.0


def nms(xywh: ArrayLike, scores: ArrayLike, score_floor: float, max_iou: float) -> Indexes:
    """The rows OpenCV's non-maximum suppression keeps of boxes given as x, y, width, height (score above
    ``score_floor``, strongest first, none overlapping a stronger kept one by more than ``max_iou``), in the order
    it returns them."""
    keep = cv2.dnn.NMSBoxes(
        np.asarray(xywh).tolist(), np.asarray(scores).astype(float).tolist(), score_floor, max_iou
    )
    return np.asarray(keep, np.intp).reshape(-1)


def suppress(dets: Detections, max_iou: float, max_contained: float) -> Detections:
    """Strongest first, the boxes that neither overlap a stronger kept one by more than ``max_iou`` (IoU) nor lie
    inside it by more than ``max_contained`` (of the smaller box's area)."""
    order = np.argsort(-dets.confidence, kind="stable")
    iou, contained = overlaps(dets.xyxy, dets.xyxy)
    kept: list[int] = []
    for i in order.tolist():
        if not kept or not ((iou[i, kept] > max_iou) | (contained[i, kept] > max_contained)).any():
            kept.append(i)
    return dets[np.asarray(kept, np.intp)]


def match_boxes(a: Sequence[Box] | Floats, b: Sequence[Box] | Floats, min_iou: float) -> dict[int, int]:
    """Greedy one-to-one matching of boxes ``a`` to boxes ``b``, best IoU first, at ``min_iou`` or more:
    index in a -> index in b."""
    iou = box_iou(a, b).tolist() if len(a) and len(b) else []
    pairs = sorted(((v, i, j) for i, row in enumerate(iou) for j, v in enumerate(row)), reverse=True)
    out: dict[int, int] = {}
    used: set[int] = set()
    for v, i, j in pairs:
        if v < min_iou:
            break
        if i not in out and j not in used:
            out[i] = j
            used.add(j)
    return out
