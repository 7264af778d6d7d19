"""From index boxes to groups as they lie on the table.

Cards of one laid-down group overlap like a fan, each shifted right by less than a card width, so the visible
top-left indexes of a group form a chain along a row: each one's right neighbour sits a short step away at about
the same height. A loose card, or the first card of another group, is further than that: the last card of a fan
lies whole, so anything right of its index is at least a card width away. Chains are found by linking every index
to its nearest such neighbour; groups come out top to bottom, then left to right, each ordered left to right.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.detections import Box, Floats

# In units of the typical index-box height (stable across one- and two-digit indexes, unlike the width).
MAX_STEP = 2.6  # farthest right a fanned neighbour's index may be
MAX_RISE = 0.75  # most it may sit higher or lower, plus a slope allowance
SLOPE = 0.25


def group_boxes(boxes: Sequence[Box] | Floats) -> list[list[int]]:
    """Indexes into ``boxes`` grouped as on the table.

    >>> group_boxes([(0, 0, 10, 12), (30, 40, 40, 52), (14, 1, 24, 13), (28, 0, 38, 12)])
    [[0, 2, 3], [1]]
    """
    n = len(boxes)
    if n == 0:
        return []
    b = np.asarray(boxes, dtype=float)
    x = b[:, 0]
    y = (b[:, 1] + b[:, 3]) / 2
    unit = float(np.median(b[:, 3] - b[:, 1]))
    unit = max(unit, 1.0)
    # Candidate links i -> j: j right of i within reach. Each index takes its nearest; each target keeps the
    # nearest claimant, so chains never fork.
    nxt = [-1] * n
    prev = [-1] * n
    cands = []
    for i in range(n):
        for j in range(n):
            dx = x[j] - x[i]
            if dx <= 0.15 * unit or dx > MAX_STEP * unit:
                continue
            dy = abs(y[j] - y[i])
            if dy > MAX_RISE * unit + SLOPE * dx:
                continue
            cands.append((dx + 2 * dy, i, j))
    for _, i, j in sorted(cands):
        if nxt[i] == -1 and prev[j] == -1:
            nxt[i], prev[j] = j, i
    groups = []
    for i in range(n):
        if prev[i] != -1:
            continue
        chain = [i]
        while nxt[chain[-1]] != -1:
            chain.append(nxt[chain[-1]])
        groups.append(chain)

    # Table order: rows from the top; groups on about the same row from the left.
    def key(g: list[int]) -> tuple[float, float]:
        return float(np.mean(y[g])), float(x[g[0]])

    groups = _bridge_gaps(groups, x, y, unit)
    groups.sort(key=key)
    return _row_order(groups, y, x, unit)


BRIDGE = 2.1  # a gap of up to this many of a fan's own steps is one card the detector missed


def _bridge_gaps(groups: list[list[int]], x: Floats, y: Floats, unit: float) -> list[list[int]]:
    """Join two chains when the second continues the first after a gap of about one card.

    An index the detector misses breaks its fan in two; the fan's own spacing tells such a gap from the space
    after a fan's last card, which lies whole and so is a full card width wide.
    """

    def step(g: list[int]) -> float | None:
        return float(np.median(np.diff(x[g]))) if len(g) > 1 else None

    merged = True
    while merged:
        merged = False
        for a in groups:
            for b in groups:
                if a is b:
                    continue
                steps = [s for s in (step(a), step(b)) if s is not None]
                if not steps:
                    continue
                dx = x[b[0]] - x[a[-1]]
                dy = abs(y[b[0]] - y[a[-1]])
                if 0 < dx <= BRIDGE * max(steps) and dy <= MAX_RISE * unit:
                    a.extend(b)
                    groups.remove(b)
                    merged = True
                    break
            if merged:
                break
    return groups


def _row_order(groups: list[list[int]], y: Floats, x: Floats, unit: float) -> list[list[int]]:
    """Groups whose mean heights are within one index height are one row, read left to right."""
    rows: list[list[list[int]]] = []
    for g in groups:
        gy = float(np.mean(y[g]))
        if rows and abs(gy - float(np.mean(y[rows[-1][0]]))) < unit:
            rows[-1].append(g)
        else:
            rows.append([g])
    return [g for row in rows for g in sorted(row, key=lambda g: float(x[g[0]]))]


# A fan's steps vary a little (hands are not machines); a step this many times its usual one holds one card whose
# index went unread. Fans with a step outside REGULAR, other than such gaps, are left alone: their spacing says
# something else is going on (two groups chained, a doubled box), and a guess there reads cards that are not there.
GAP = (1.65, 2.5)
REGULAR = (0.7, 1.35)


def gap_boxes(boxes: Sequence[Box] | Floats, groups: Sequence[Sequence[int]]) -> list[Box]:
    """Where an index should be but none was read: in a fan of four or more cards whose steps are regular, a
    step about twice the usual one holds a card, halfway between its neighbours.

    >>> gap_boxes([(0, 0, 10, 12), (20, 0, 30, 12), (40, 0, 50, 12), (80, 2, 90, 14)], [[0, 1, 2, 3]])
    [(60.0, 1.0, 70.0, 13.0)]
    """
    b = np.asarray(boxes, dtype=float).reshape(-1, 4)
    out: list[Box] = []
    for g in groups:
        if len(g) < 4:
            continue
        steps = np.diff(b[list(g), 0])
        step = float(np.median(steps))
        if step <= 0:
            continue
        ratio = steps / step
        gap = (ratio >= GAP[0]) & (ratio <= GAP[1])
        regular = (ratio >= REGULAR[0]) & (ratio <= REGULAR[1])
        if not gap.any() or not (gap | regular).all():
            continue
        for n in np.flatnonzero(gap).tolist():
            x1, y1, x2, y2 = ((b[g[n]] + b[g[n + 1]]) / 2).tolist()
            out.append((x1, y1, x2, y2))
    return out
