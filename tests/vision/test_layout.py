"""Detections to groups: each fanned row is one group, in table order; loose cards stand alone."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from vision.layout import group_boxes


def _row(x0: float, y0: float, n: int, step: float, angle_deg: float = 0.0, w: float = 20, h: float = 24):
    a = math.radians(angle_deg)
    return [
        (
            x0 + i * step * math.cos(a),
            y0 + i * step * math.sin(a),
            x0 + i * step * math.cos(a) + w,
            y0 + i * step * math.sin(a) + h,
        )
        for i in range(n)
    ]


def test_two_rows_are_two_groups_top_first() -> None:
    top, bottom = _row(100, 50, 6, 30), _row(80, 200, 4, 40)
    boxes = bottom + top  # detector order is arbitrary
    groups = group_boxes(boxes)
    assert groups == [list(range(4, 10)), list(range(0, 4))]


def test_a_loose_card_right_of_a_fan_is_its_own_group() -> None:
    # The last card of a fan lies whole: the next index to its right is a card width (about 4 index heights) away.
    row = _row(100, 100, 5, 30)
    loose = [(100 + 4 * 30 + 100, 105, 100 + 4 * 30 + 120, 129)]
    assert group_boxes(row + loose) == [[0, 1, 2, 3, 4], [5]]


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 12),
    m=st.integers(2, 12),
    step=st.floats(8, 55),
    angle=st.floats(-8, 8),
    gap=st.floats(90, 200),
)
def test_rows_are_recovered_whatever_their_size_and_slant(
    n: int, m: int, step: float, angle: float, gap: float
) -> None:
    top = _row(40, 40, n, step, angle)
    bottom = _row(40, 40 + gap + abs(math.sin(math.radians(angle))) * n * step, m, step, angle)
    groups = group_boxes(top + bottom)
    assert groups == [list(range(n)), list(range(n, n + m))]


def test_nothing_found_is_no_groups() -> None:
    assert group_boxes([]) == []


def test_a_fan_with_one_index_missed_stays_one_group() -> None:
    row = _row(100, 100, 8, 45)
    del row[4]  # the detector missed the fifth card: a gap of two steps (90 px, over 3.5 index heights)
    assert group_boxes(row) == [list(range(7))]


def test_a_loose_card_a_card_width_after_a_fan_is_not_bridged() -> None:
    # Fan steps of 40 px; the loose card's index is a whole card (about 100 px) past the fan's last index.
    row = _row(100, 100, 5, 40)
    loose = [(100 + 4 * 40 + 100, 100, 100 + 4 * 40 + 120, 124)]
    assert group_boxes(row + loose) == [[0, 1, 2, 3, 4], [5]]
