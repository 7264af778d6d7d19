"""Readings as columns: a selection cuts every column alike; the box-overlap arithmetic the camera shares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from vision.detections import Detections, box_iou, match_boxes, outline_iou, shared_fraction, suppress
from vision.inference import Runtime

BOXES = [(0.0, 0.0, 10.0, 10.0), (20.0, 0.0, 30.0, 10.0), (40.0, 0.0, 50.0, 10.0)]


def _named() -> Detections:
    return Detections.from_boxes(BOXES, [0.9, 0.3, 0.6]).with_classes([5, 7, 9], [0.8, 0.2, 0.5])


@pytest.mark.parametrize(
    ("index", "rows"),
    [
        pytest.param(np.array([True, False, True]), [0, 2], id="mask"),
        pytest.param(np.array([2, 0]), [2, 0], id="index-array"),
        pytest.param([1], [1], id="index-list"),
        pytest.param(slice(1, None), [1, 2], id="slice"),
        pytest.param(np.array([], np.intp), [], id="nothing"),
    ],
)
def test_a_selection_cuts_every_column_alike(index: Any, rows: list[int]) -> None:
    picked = _named()[index]
    assert len(picked) == len(rows)
    assert picked.boxes() == [BOXES[i] for i in rows]
    assert picked.confidence.tolist() == [[0.8, 0.2, 0.5][i] for i in rows]
    assert picked.class_id is not None and picked.class_id.tolist() == [[5, 7, 9][i] for i in rows]


def test_a_mask_on_a_column_selects_rows() -> None:
    dets = Detections.from_boxes(BOXES, [0.9, 0.3, 0.6])
    assert dets[dets.confidence >= 0.5].boxes() == [BOXES[0], BOXES[2]]


def test_merge_keeps_the_order_of_its_parts() -> None:
    dets = _named()
    merged = Detections.merge([dets[np.array([2])], dets[np.array([], np.intp)], dets[np.array([0, 1])]])
    assert merged.boxes() == [BOXES[2], BOXES[0], BOXES[1]]
    assert merged.class_id is not None and merged.class_id.tolist() == [9, 5, 7]
    assert len(Detections.merge([])) == 0


@pytest.mark.parametrize(
    "parts",
    [
        pytest.param(lambda d: [d, Detections.empty()], id="named-and-unnamed"),
        pytest.param(
            lambda d: [d, Detections(d.xyxy, d.confidence, d.class_id, {"group": np.zeros(3)})],
            id="other-data",
        ),
    ],
)
def test_merge_refuses_parts_with_other_columns(parts: Callable[[Detections], list[Detections]]) -> None:
    with pytest.raises(ValueError, match="different columns"):
        Detections.merge(parts(_named()))


@pytest.mark.parametrize(
    ("xyxy", "confidence"),
    [
        pytest.param(np.zeros((2, 3)), np.zeros(2), id="three-coordinates"),
        pytest.param(np.zeros((2, 4)), np.zeros(3), id="a-confidence-too-many"),
    ],
)
def test_columns_must_have_a_row_per_box(xyxy: np.ndarray, confidence: np.ndarray) -> None:
    with pytest.raises(ValueError):
        Detections(xyxy, confidence)


def test_iou_and_shared_width() -> None:
    a, b = (0.0, 0.0, 10.0, 10.0), (5.0, 0.0, 15.0, 10.0)
    assert box_iou([a], [b])[0, 0] == pytest.approx(50 / 150)
    assert shared_fraction([a], [(5.0, 50.0, 25.0, 60.0)], 0)[0, 0] == pytest.approx(0.5)
    assert box_iou([a], [(20.0, 0.0, 30.0, 10.0)])[0, 0] == 0


@pytest.mark.parametrize(
    ("weak", "kept"),
    [
        pytest.param((1.0, 0.0, 11.0, 10.0), 1, id="overlapping"),
        pytest.param((1.0, 1.0, 6.0, 9.0), 1, id="inside"),
        pytest.param((8.0, 0.0, 18.0, 10.0), 2, id="apart"),
    ],
)
def test_suppress_drops_a_box_overlapping_or_inside_a_stronger_one(
    weak: tuple[float, float, float, float], kept: int
) -> None:
    dets = Detections.from_boxes([weak, (0.0, 0.0, 10.0, 10.0)], [0.4, 0.9])
    out = suppress(dets, max_iou=0.5, max_contained=0.7)
    assert len(out) == kept and out.boxes()[0] == (0.0, 0.0, 10.0, 10.0)


def test_boxes_are_matched_one_to_one_best_first() -> None:
    truth = [(0.0, 0.0, 10.0, 10.0), (20.0, 0.0, 30.0, 10.0)]
    found = [(21.0, 0.0, 31.0, 10.0), (1.0, 0.0, 11.0, 10.0), (2.0, 0.0, 12.0, 10.0)]
    assert match_boxes(found, truth, 0.5) == {0: 1, 1: 0}
    assert match_boxes([], truth, 0.5) == {}


@pytest.mark.parametrize(
    ("name", "variable", "runtime"),
    [
        (None, None, Runtime.ONNXRUNTIME),
        (None, "opencv", Runtime.OPENCV),
        ("onnxruntime", "opencv", Runtime.ONNXRUNTIME),
    ],
)
def test_the_runtime_is_named_once(
    monkeypatch: pytest.MonkeyPatch, name: str | None, variable: str | None, runtime: Runtime
) -> None:
    if variable is None:
        monkeypatch.delenv("PHASE10_VISION_RUNTIME", raising=False)
    else:
        monkeypatch.setenv("PHASE10_VISION_RUNTIME", variable)
    assert Runtime.named(name) is runtime


def test_an_unknown_runtime_is_refused() -> None:
    with pytest.raises(ValueError, match="use onnxruntime or opencv"):
        Runtime.named("torch")


def test_outline_iou_of_turned_and_shifted_quads() -> None:
    # The cutting bench's measure of a cut face against its card's outline (any convex four corners).
    square = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)]
    assert outline_iou(square, square) == 1.0
    assert abs(outline_iou(square, [(x + 5, y) for x, y in square]) - 1 / 3) < 1e-6
    diamond = [(5.0, 0.0), (10.0, 5.0), (5.0, 10.0), (0.0, 5.0)]  # inside the square, half its area
    assert abs(outline_iou(square, diamond) - 0.5) < 1e-6
    assert outline_iou(square, [(20.0, 0.0), (30.0, 0.0), (30.0, 10.0), (20.0, 10.0)]) == 0.0
