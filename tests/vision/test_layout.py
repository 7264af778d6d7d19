"""Detections to groups: each fanned row is one group, in table order; loose cards stand alone."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.layout import gap_boxes, group_boxes


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


@pytest.mark.parametrize(
    ("step", "rise"),
    [
        # The last card of a fan lies whole: the next index to its right is a card width (about 4 index heights)
        # away.
        pytest.param(30, 5, id="right-of-a-fan"),
        # Fan steps of 40 px: a gap of a card width is not one missed card, so it is not bridged.
        pytest.param(40, 0, id="not-bridged"),
    ],
)
def test_a_loose_card_a_card_width_after_a_fan_is_its_own_group(step: float, rise: float) -> None:
    row = _row(100, 100, 5, step)
    loose = [(100 + 4 * step + 100, 100 + rise, 100 + 4 * step + 120, 124 + rise)]
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


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(5, 12),
    step=st.floats(12, 50),
    angle=st.floats(-8, 8),
    jitter=st.lists(st.floats(-0.06, 0.06), min_size=12, max_size=12),
    missing=st.integers(1, 10),
)
def test_a_card_missing_inside_a_regular_fan_is_found_where_it_lies(
    n: int, step: float, angle: float, jitter: list[float], missing: int
) -> None:
    """Oracle: the box taken out. Each index sits up to 6 % of a step off; the gap holds the missing one."""
    full = _row(100, 100, n, step, angle)
    full = [(x1 + j * step, y1, x2 + j * step, y2) for (x1, y1, x2, y2), j in zip(full, jitter, strict=False)]
    k = 1 + missing % (n - 2)  # never the first or last card
    seen = full[:k] + full[k + 1 :]
    found = gap_boxes(seen, [list(range(n - 1))])  # one fan (its grouping is tested above)
    assert len(found) == 1
    assert all(abs(a - b) < 0.25 * step for a, b in zip(found[0], full[k], strict=True))


REGULAR = _row(100, 100, 7, 30)


ODD = [*REGULAR[:3], (REGULAR[2][0] + 6, 100, REGULAR[2][0] + 26, 124), *REGULAR[4:]]


@pytest.mark.parametrize(
    ("fan", "groups"),
    [
        pytest.param(REGULAR, group_boxes(REGULAR), id="complete"),
        # Three cards: no usual step to measure the gap against.
        pytest.param([REGULAR[0], REGULAR[2], REGULAR[3]], [[0, 1, 2]], id="short"),
        # A step far shorter than the rest (two boxes on one card, or two groups chained): the spacing means
        # something other than a missing card, so nothing is guessed.
        pytest.param(ODD, [list(range(len(ODD)))], id="irregular"),
    ],
)
def test_no_gap_is_guessed_in_a_complete_short_or_irregular_fan(
    fan: list[tuple[float, float, float, float]], groups: list[list[int]]
) -> None:
    assert gap_boxes(fan, groups) == []
