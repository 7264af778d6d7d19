"""Teaching the camera a group's own deck from a few photos of its cards.

A teaching photo shows cards laid side by side, face up and upright, in one or more rows, not overlapping, on a
table, photographed from above; a list names them in reading order (rows top to bottom, each left to right).

1. **Cutting** (``cut_cards``): the cards are the regions of the photo that differ from the table (the table's
   colour is modelled as a smooth surface fitted to what lies around the cards, so a light gradient is not taken
   for a card, and where that gives no clean set of cards, or not as many as the list names, as a few colours
   told apart by their hue, so a shadow or a checked cloth is not either, and where that does not either, without
   what the table reaches across no sharp edge, so a lamp's reflection on the table is not either, and last as
   the colours the photo's outer band lacks, so a cloth printed in bold inks is not either); each region
   that has a card's shape (its size judged where it lies, as a photo taken at a slant draws near cards larger)
   becomes a quadrilateral whose sides are fitted to the card's edges, and is warped to an upright face of the
   renderer's size. Regions that hold more than one card, too few or too many cards for the list, or something
   that is not a photo are refused with a ``Problem``.
2. **Index boxes** (``index_box``): where a face's upright top-left index is, from its own pixels, boxed as the
   renderer boxes its faces, so taught faces can be labelled in rendered scenes.
3. **The deck's look** (``measure_look``): its four inks, its paper and what kind of face it has, so that cards
   nobody photographed are drawn in the deck's colours.
4. **Learning** (``teach``): scenes drawn with the taught faces (``vision.scene.make_scene(faces=...)``), the
   rest of their cards in the deck's colours; the shipped classifier fine-tuned on their crops with a share of
   ordinary crops, and the shipped detector on the scenes, each stage planned from rates measured on this
   machine and stopped in time; the models go into a deck folder that ``vision.detector.Models`` reads.

Cutting, index boxes and the look need numpy and OpenCV only; learning needs the ``train`` extra.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
import multiprocessing
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.rules.cards import Card, Color, Kind
from vision.crops import CLASS_OF
from vision.decode import BadImageError, decode
from vision.families import FAMILIES, Family, family_design
from vision.render import CARD_H, CARD_W, INKS, RGB, Design, Split
from vision.scene import Scene, make_scene, make_teaching_photo, make_vignette, yolo_lines
from vision.train import FINE_TUNE_LR

Box = tuple[int, int, int, int]
Quad = NDArray[np.float64]  # 4 x 2: top-left, top-right, bottom-right, bottom-left, photo pixels

# Teaching photos are decoded at this long side or more (a phone's 12-MP photo at half size): a card then
# spans more pixels than the renderer's face, so the warp only shrinks.
TEACH_LONG_SIDE = 2000
# The table is found on a copy this size: the outlines are then refined on the full image.
_WORK_SIDE = 1000
CARD_ASPECT = CARD_H / CARD_W


class Problem(enum.Enum):
    """Why a teaching photo, a card list or a deck cannot be used (the code a client can branch on)."""

    NOT_A_PHOTO = "not-a-photo"
    NO_CARDS = "no-cards"
    COUNT_MISMATCH = "count-mismatch"
    OVERLAPPING = "overlapping"
    SIDEWAYS = "sideways"
    UNCLEAR_OUTLINE = "unclear-outline"
    BUSY_TABLE = "busy-table"
    GLARE = "glare"
    BAD_CARDS = "bad-cards"
    BAD_NAME = "bad-name"
    NO_DECK = "no-deck"
    NEEDS_TRAINING = "needs-training"
    NOTHING_KEPT = "nothing-kept"


class TeachingError(ValueError):
    """A teaching photo, card list or deck that cannot be used; ``code`` says which problem, the message says
    what to do, in words a player can act on."""

    def __init__(self, code: Problem, message: str, **values: Any) -> None:
        super().__init__(message)
        self.code = code
        # What the sentence says as data (counts, where the card lies, which photo), so a page can word it in
        # its own language without reading the English.
        self.values: dict[str, Any] = values
        # The outline a refusal is about (working-size pixels), where the cutting names one: what a later look
        # at the photo judges the refusal's cause by.
        self.region: NDArray[np.int32] | None = None


@dataclass(frozen=True, slots=True)
class CutCard:
    """One card cut out of a teaching photo."""

    face: NDArray[
        np.uint8
    ]  # CARD_H x CARD_W x 4, RGB and alpha (the table transparent), as render_card gives
    quad: Quad  # its corners in the photo's pixels (after EXIF orientation), top-left first, clockwise
    row: int  # which row of the photo it lies in, from the top


# --- card lists ------------------------------------------------------------------------------------------------


def parse_cards(text: str) -> list[Card]:
    """The cards a teaching photo shows, as a list names them ("R1 R2 ... W S"; commas allowed)."""
    names = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    if not names:
        raise TeachingError(Problem.BAD_CARDS, "the card list is empty: name the cards in the photo")
    cards = []
    for name in names:
        try:
            card = Card.parse(name)
        except ValueError:
            card = None
        if card is None or card not in CLASS_OF:
            raise TeachingError(
                Problem.BAD_CARDS,
                f"{name!r} is not a Phase 10 card: name numbers as R1..R12, B1..B12, G1..G12, Y1..Y12, and W, S",
            )
        cards.append(card)
    return cards


# --- cutting ---------------------------------------------------------------------------------------------------


def decode_photo(data: bytes) -> NDArray[np.uint8]:
    """A teaching photo's pixels (BGR, upright), through the hardened decoder the reader uses."""
    try:
        decoded = decode(data, target=TEACH_LONG_SIDE)
    except BadImageError as exc:
        raise TeachingError(Problem.NOT_A_PHOTO, f"this is not a photo that can be read: {exc}") from None
    return np.asarray(decoded.image, np.uint8)


def check_photo(data: bytes, cards: str | Sequence[Card]) -> list[CutCard]:
    """Cut the cards out of a teaching photo (JPEG or PNG bytes) and check they are the ones ``cards`` names;
    raises :class:`TeachingError` saying what to fix."""
    named = parse_cards(cards) if isinstance(cards, str) else list(cards)
    cut = cut_cards(decode_photo(data), count=len(named))
    if len(cut) != len(named):
        raise TeachingError(
            Problem.COUNT_MISMATCH,
            f"the photo shows {len(cut)} card{'s' if len(cut) != 1 else ''}, the list names {len(named)}: "
            "name every card in the photo, in reading order",
            found=len(cut),
            named=len(named),
        )
    return cut


def _lab(bgr: NDArray[np.uint8]) -> NDArray[np.float32]:
    return np.asarray(cv2.cvtColor(bgr.astype(np.float32) / 255, cv2.COLOR_BGR2Lab), np.float32)


def _spread(x: NDArray[np.floating[Any]]) -> NDArray[np.float32]:
    """Per column, the spread of ``x`` that its outliers do not pull: the median absolute deviation, scaled to
    a normal distribution's standard deviation."""
    return np.asarray(np.median(np.abs(x - np.median(x, 0)), 0) * 1.4826, np.float32)


def _surface(
    lab: NDArray[np.float32], keep: NDArray[np.bool_]
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The table's colour as a smooth (quadratic) surface per channel, fitted to the pixels ``keep`` marks, and
    the spread of the table about it per channel (its texture)."""
    h, w = lab.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = xx / w - 0.5, yy / h - 0.5
    basis = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], -1)
    pts = np.flatnonzero(keep.ravel())
    if pts.size > 40_000:
        pts = pts[:: pts.size // 40_000]
    a = basis.reshape(-1, 6)[pts]
    b = lab.reshape(-1, 3)[pts]
    coef = np.linalg.lstsq(a, b, rcond=None)[0]
    # Fitted twice: texture and the odd object on the table pull a plain least-squares fit, the inliers do not.
    res = b - a @ coef
    mad = _spread(res) + 1e-3
    inl = (np.abs(res) < 3 * mad).all(1)
    if inl.sum() > 100:
        coef = np.linalg.lstsq(a[inl], b[inl], rcond=None)[0]
        res = b[inl] - a[inl] @ coef
    spread = _spread(res)
    # A floor per channel: a very plain table would otherwise make JPEG noise look like cards.
    spread = np.maximum(spread, np.array([1.5, 1.2, 1.2], np.float32))
    return np.asarray((basis @ coef).astype(np.float32)), np.asarray(spread, np.float32)


def _border(h: int, w: int) -> NDArray[np.bool_]:
    """The photo's outer band, where the table shows: what a table model is first fitted to."""
    keep = np.zeros((h, w), bool)
    m = max(3, round(0.04 * min(h, w)))
    keep[:m], keep[-m:], keep[:, :m], keep[:, -m:] = True, True, True, True
    return keep


# The fewest of the table's spreads a pixel lies from it to be taken for card.
_NEAREST_CARD = 4.5


def _outlined(d: NDArray[np.float32]) -> tuple[NDArray[np.uint8], NDArray[np.bool_]]:
    """The card mask from each pixel's distance to the table model (in the table's own spreads), and the
    pixels to fit the table to next: those a margin away from the cards (their shadows)."""
    # The table's own pixels lie within a few spreads of its model; a card's paper, ink or rim far out.
    d8 = np.clip(d * 10, 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = float(np.clip(otsu / 10, _NEAREST_CARD, 12.0))
    raw = np.asarray((d > thr).astype(np.uint8) * 255, np.uint8)
    mask = _filled(cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
    return mask, cv2.dilate(mask, np.ones((9, 9), np.uint8)) == 0


def _filled(mask: NDArray[Any]) -> NDArray[np.uint8]:
    """A card mask's regions filled (a card's print is no hole in it), without specks too small to be any part
    of a card."""
    h, w = mask.shape
    contours, _ = cv2.findContours(np.asarray(mask, np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = np.zeros((h, w), np.uint8)
    cv2.drawContours(out, [c for c in contours if cv2.contourArea(c) > 2e-4 * h * w], -1, 255, cv2.FILLED)
    return out


def _card_mask(bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Where the photo (at working size) differs from its table, the table a smooth surface of one colour:
    255 on cards, holes filled."""
    h, w = bgr.shape[:2]
    lab = _lab(np.asarray(cv2.GaussianBlur(bgr, (0, 0), 1.0), np.uint8))
    keep = _border(h, w)
    mask = np.zeros((h, w), np.uint8)
    for _ in range(3):
        bg, spread = _surface(lab, keep)
        mask, keep = _outlined(np.sqrt((((lab - bg) / spread) ** 2).sum(-1)))
        if keep.sum() < 0.05 * h * w:
            break
    return mask


# The table as this many colours when it is not one (a checked cloth's two, a shadow's darker one).
_TABLE_COLOURS = 4
# Brightness counts this much against hue in telling a card from a table of several colours: a shadow changes
# a table's brightness, hardly its hue; white paper differs from most tables by its hue too.
_BRIGHTNESS_WEIGHT = 0.7


def _card_mask_by_hue(bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Where the photo (at working size) differs from its table, the table a few colours (``_TABLE_COLOURS``)
    told apart mostly by their share of red, green and blue, which a shadow does not change: 255 on cards,
    holes filled."""
    h, w = bgr.shape[:2]
    f = cv2.GaussianBlur(bgr, (0, 0), 1.5).astype(np.float32) + 8.0
    total = f.sum(-1, keepdims=True)
    shares = f[..., 1:] / total * 100
    feat = np.concatenate([shares, _BRIGHTNESS_WEIGHT * np.log(total)], -1).reshape(-1, 3)
    keep = _border(h, w)
    mask = np.zeros((h, w), np.uint8)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
    for _ in range(3):
        pts = feat[keep.ravel()]
        if len(pts) > 30_000:
            pts = pts[:: len(pts) // 30_000]
        if len(pts) < 10 * _TABLE_COLOURS:
            break
        cv2.setRNGSeed(0)  # k-means starts at random: the same photo is cut the same way every time
        _, member, centres = cv2.kmeans(pts, _TABLE_COLOURS, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
        member = member.ravel()
        d = np.full(len(feat), np.inf, np.float32)
        for k in range(_TABLE_COLOURS):
            own = pts[member == k]
            if len(own) < 50:
                continue
            spread = _spread(own)
            # Floors: a very plain table would otherwise make JPEG noise look like cards.
            spread = np.maximum(spread, np.array([0.4, 0.4, 0.3], np.float32))
            d = np.minimum(d, np.sqrt((((feat - centres[k]) / spread) ** 2).sum(-1)))
        mask, keep = _outlined(d.reshape(h, w))
        if keep.sum() < 0.05 * h * w:
            break
    return mask


# The photo as this many colours when the cards are found by their own: a printed cloth's two or three inks and
# the blends along their edges, the cards' paper and print.
_PHOTO_COLOURS = 8
# A colour is the cards' when the photo's outer band, where the table shows, holds this share of it at most
# against the rest of the photo: a cloth's inks lie all over it, the band included.
_CARD_COLOUR_BAND = 0.15


def _card_mask_by_colour(bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Where the photo (at working size) shows the cards' own colours, found as those the table does not show:
    the photo as a few colours (``_PHOTO_COLOURS``), of which the cards' are the ones the outer band, all table,
    hardly holds. 255 on cards, holes filled (their print)."""
    h, w = bgr.shape[:2]
    lab = _lab(np.asarray(cv2.GaussianBlur(bgr, (0, 0), 1.0), np.uint8)).reshape(-1, 3)
    band = _border(h, w).ravel()
    pts = lab[:: max(1, len(lab) // 40_000)]
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(0)  # k-means starts at random: the same photo is cut the same way every time
    _, _, centres = cv2.kmeans(pts, _PHOTO_COLOURS, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    member = np.argmin(((lab[:, None, :] - centres[None]) ** 2).sum(-1), 1)
    in_band = np.bincount(member[band], minlength=_PHOTO_COLOURS) / max(1, int(band.sum()))
    inside = np.bincount(member[~band], minlength=_PHOTO_COLOURS) / max(1, int((~band).sum()))
    # A colour of a few stray pixels, which the band lacks by chance, is no card's.
    cards = np.flatnonzero((inside >= 0.005) & (in_band <= _CARD_COLOUR_BAND * inside))
    raw = np.isin(member, cards).reshape(h, w).astype(np.uint8) * 255
    # Blends along the cloth's edges may fall among the cards' colours: thin lines and specks, which an opening
    # takes away.
    closed = cv2.morphologyEx(raw, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    return _filled(cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)))


# A pixel the camera clipped to white: every channel at least this.
_CLIPPED = 250
# Canny's thresholds for a sharp edge (on the grey photo at working size): a card's edge or print passes them,
# a lamp's reflection fading across the table (a few levels a pixel) does not.
_EDGE_LOW, _EDGE_HIGH = 20, 60


def _soft(bgr: NDArray[np.uint8], mask: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """The part of a card mask that the table reaches without crossing a sharp edge. A card ends at a sharp
    edge; a lamp's reflection brightens the table toward white, as a card's paper is, so that colour does not
    tell them apart, but it fades smoothly into the table."""
    grey = cv2.cvtColor(cv2.GaussianBlur(bgr, (0, 0), 1.0), cv2.COLOR_BGR2GRAY)
    free = cv2.dilate(cv2.Canny(grey, _EDGE_LOW, _EDGE_HIGH), np.ones((3, 3), np.uint8)) == 0
    _, parts = cv2.connectedComponents(free.astype(np.uint8), connectivity=4)
    table = np.unique(parts[(mask == 0) & free])
    return np.asarray(np.isin(parts, table[table > 0]) & (mask > 0), np.bool_)


def _card_mask_under_glare(bgr: NDArray[np.uint8], mask: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The first look's card mask (``_card_mask``, given) without its soft parts: a lamp's reflection on the
    table that joined cards to each other. 255 on cards, holes filled."""
    cut = np.where(_soft(bgr, mask), 0, mask).astype(np.uint8)
    return _filled(cv2.morphologyEx(cut, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)))


# A refused outline is blamed on a lamp's reflection when this share of it is soft (``_soft``), some of it is
# clipped to white, and its soft part is brighter than the table around it by this many grey levels: a shadow's
# soft edge darkens the table, and a card's paper may clip on its own.
_GLARE_SOFT = 0.03
_GLARE_LIFT = 20


def _glared(bgr: NDArray[np.uint8], mask: NDArray[np.uint8], contour: NDArray[np.int32]) -> bool:
    """Whether a lamp's reflection lies on a refused outline (working size): the camera clipped part of it to
    white, and part of it is soft, reached from the table without crossing a card's edge in the first look's
    card mask (``mask``), and brighter than the table around it."""
    h, w = bgr.shape[:2]
    filled = np.zeros((h, w), np.uint8)
    cv2.drawContours(filled, [contour], -1, 1, cv2.FILLED)
    inside = cv2.dilate(filled, np.ones((5, 5), np.uint8)) > 0
    if not (bgr.min(-1) >= _CLIPPED)[inside].any():
        return False
    soft = _soft(bgr, mask) & inside
    around = (cv2.dilate(filled, np.ones((41, 41), np.uint8)) > 0) & (mask == 0)
    if soft.sum() < _GLARE_SOFT * inside.sum() or not around.any():
        return False
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    return float(np.median(grey[soft])) >= float(np.median(grey[around])) + _GLARE_LIFT


def _order(quad: NDArray[np.float64]) -> Quad:
    """Four corners as top-left, top-right, bottom-right, bottom-left (clockwise on screen)."""
    c = quad.mean(0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]  # clockwise from the left, as y points down
    start = int(np.argmin(q.sum(1)))
    return np.asarray(np.roll(q, -start, axis=0), np.float64)


def _initial_quad(contour: NDArray[np.int32]) -> Quad:
    """The outline's four corners: lines fitted to its four sides (between the rounded corners), started from
    its tightest rectangle, so a slight perspective is followed."""
    rect = _order(np.asarray(cv2.boxPoints(cv2.minAreaRect(contour)), np.float64))
    pts = contour.reshape(-1, 2).astype(np.float64)
    lines = []
    for k in range(4):
        p, q = rect[k], rect[(k + 1) % 4]
        side = q - p
        length = float(np.hypot(*side))
        if length < 4:
            return rect
        along = (pts - p) @ side / length**2
        normal = np.array([side[1], -side[0]]) / length
        off = (pts - p) @ normal
        near = pts[(along > 0.15) & (along < 0.85) & (np.abs(off) < 0.08 * length + 2)]
        line = _robust_line(list(near))
        if line is None:
            return rect
        lines.append(line)
    corners = [_intersect(lines[k - 1], lines[k]) for k in range(4)]
    if any(c is None for c in corners):
        return rect
    quad = np.asarray(corners, np.float64)
    span = max(float(np.hypot(*(rect[1] - rect[0]))), float(np.hypot(*(rect[3] - rect[0]))))
    return rect if np.abs(quad - rect).max() > 0.15 * span else _order(quad)


# Samples (half a pixel apart) on either side of a step that are compared; the middle one is the step.
_STEP = np.array([1.0] * 6 + [0.0] + [-1.0] * 6) / 6


def _robust_line(pts: Sequence[NDArray[np.float64]]) -> NDArray[np.float64] | None:
    """A line (vx, vy, x0, y0) through edge points, fitted again without those more than 2 px off the first
    fit (a spot where the table or a print fooled the search)."""
    if len(pts) < 6:
        return None
    arr = np.asarray(pts, np.float32)
    line = np.asarray(cv2.fitLine(arr, cv2.DIST_HUBER, 0, 0.01, 0.01), np.float64).ravel()
    off = np.abs((arr[:, 0] - line[2]) * line[1] - (arr[:, 1] - line[3]) * line[0])
    close = arr[off <= 2.0]
    if len(close) >= 6 and len(close) < len(arr):
        line = np.asarray(cv2.fitLine(close, cv2.DIST_HUBER, 0, 0.01, 0.01), np.float64).ravel()
    return line


def _intersect(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """Where two lines (vx, vy, x0, y0) cross."""
    d = a[0] * b[1] - a[1] * b[0]
    if abs(d) < 1e-9:
        return None
    t = ((b[2] - a[2]) * b[1] - (b[3] - a[3]) * b[0]) / d
    return np.array([a[2] + t * a[0], a[3] + t * a[1]])


# How strong a step must be, as a share of the strongest across a card's side, to be taken for its edge
# (bench/bench_cutting.py's dev photos chose it among a half, a quarter and a sixth: a half took printed frames for
# the edge on light tables and in shadows, a sixth reached out into the table's grain).
_EDGE_SHARE = 0.25


def _fit_sides(quad: Quad, lab: NDArray[np.float32]) -> Quad:
    """Corners from lines fitted to the card's four edges: along each side of ``quad``, the card's edge is the
    outermost strong step in colour near it (a shadow beside a card is a soft step, a dark card's light rim
    or a coloured stripe a step inside it). Rounded corners are skipped, so the corners are where the straight
    edges would meet."""
    lines = []
    h, w = lab.shape[:2]
    for k in range(4):
        p, q = quad[k], quad[(k + 1) % 4]
        side = q - p
        length = float(np.hypot(*side))
        if length < 8:
            return quad
        t_dir = side / length
        normal = np.array([t_dir[1], -t_dir[0]])  # outward for a clockwise quad on screen
        reach = 0.03 * length + 3
        offs = np.linspace(-reach, reach, int(2 * reach) * 2 + 1)
        pts = []
        for t in np.linspace(0.15, 0.85, 24):
            c = p + side * t
            xs = (c[0] + offs * normal[0]).astype(np.float32)
            ys = (c[1] + offs * normal[1]).astype(np.float32)
            if xs.min() < 1 or ys.min() < 1 or xs.max() > w - 2 or ys.max() > h - 2:
                continue
            prof = cv2.remap(lab, xs[None], ys[None], cv2.INTER_LINEAR)[0]
            # A step, not a gradient: the mean colour a few samples in against a few samples out, so that a
            # woven or grained table's fine texture does not pass for an edge.
            steps = np.stack([np.convolve(prof[:, ch], _STEP, mode="same") for ch in range(3)], -1)
            score = np.sqrt((steps**2).sum(-1))
            score[: len(_STEP) // 2] = score[-(len(_STEP) // 2) :] = 0
            if score.max() < 4.0:
                continue
            # The outermost strong step, at its peak: the window keeps a step's score high for a few samples,
            # and a frame printed a few pixels inside the edge has a peak of its own next to the edge's. On a
            # table nearly the card's colour (a light table, a shadow) the edge is a faint step outside a
            # strong one (the frame, a coloured face's rim), so a step counts from a quarter of the strongest.
            inner, mid, outer = score[:-2], score[1:-1], score[2:]
            strong = max(4.0, _EDGE_SHARE * float(score.max()))
            peaks = np.flatnonzero((mid >= inner) & (mid > outer) & (mid >= strong)) + 1
            if peaks.size == 0:
                continue
            j = int(peaks.max())
            pts.append(c + offs[j] * normal)
        line = _robust_line(pts)
        if line is None:
            return quad
        lines.append(line)
    out = []
    for k in range(4):
        x = _intersect(lines[k - 1], lines[k])
        if x is None:
            return quad
        out.append(x)
    fitted = np.asarray(out)
    span = max(float(np.hypot(*(quad[1] - quad[0]))), float(np.hypot(*(quad[3] - quad[0]))))
    if np.abs(fitted - quad).max() > 0.08 * span:
        return quad  # the fit went astray (a busy table): the outline's own corners are closer
    return _order(fitted)


@dataclass(slots=True)
class _Region:
    contour: NDArray[np.int32]  # working-size pixels
    area: float
    aspect: float  # long side over short side of its tightest rectangle
    fill: float  # its hull's area over that rectangle's
    quad: Quad  # its outline's four corners, top-left first
    centre: tuple[float, float]

    @property
    def upright(self) -> bool:
        """Its long side runs down the photo, as an upright card's does."""
        q = self.quad
        return float(np.hypot(*(q[3] - q[0]))) >= float(np.hypot(*(q[1] - q[0])))


def _region(contour: NDArray[np.int32]) -> _Region:
    (cx, cy), (rw, rh), _ = cv2.minAreaRect(contour)
    long_side, short_side = max(rw, rh), max(min(rw, rh), 1e-3)
    area = float(cv2.contourArea(contour))
    # The shape is judged by the outline's hull: print that matches the table (a blue tab on a blue cloth)
    # bites into the outline at a corner, but not into its hull.
    hull = float(cv2.contourArea(cv2.convexHull(contour)))
    return _Region(
        contour, area, long_side / short_side, hull / (rw * rh + 1e-6), _initial_quad(contour), (cx, cy)
    )


def _place(regions: Sequence[_Region], r: _Region) -> tuple[str, str] | None:
    """Where a region lies among the others as (row, column), each of top/middle/bottom and left/middle/right;
    None when it is the only one."""
    if len(regions) < 2:
        return None
    xs = [g.centre[0] for g in regions]
    ys = [g.centre[1] for g in regions]

    def third(v: float, lo: float, hi: float, names: tuple[str, str, str]) -> str:
        if hi - lo < 1:
            return names[1]
        f = (v - lo) / (hi - lo)
        return names[0] if f < 1 / 3 else names[2] if f > 2 / 3 else names[1]

    return (
        third(r.centre[1], min(ys), max(ys), ("top", "middle", "bottom")),
        third(r.centre[0], min(xs), max(xs), ("left", "middle", "right")),
    )


def _where(where: tuple[str, str] | None) -> str:
    """A place ``_place`` gives, in words (" in the top left of the photo"); nothing for none."""
    if where is None:
        return ""
    row, col = where
    place = "the middle" if where == ("middle", "middle") else f"the {row} {col}"
    return f" in {place} of the photo"


def cut_cards(image: NDArray[np.uint8], count: int | None = None) -> list[CutCard]:
    """The cards of a teaching photo (BGR), each warped to an upright face of the renderer's size, in reading
    order. Raises :class:`TeachingError` when no card is found, when outlines show cards touching, overlapping,
    lying sideways, not standing out from the table, cut short or grown, or when a patterned table hides them (one
    printed in the cards' own colours) or a lamp's reflection joins them.
    ``count``, the number of cards the player says the photo shows, lets a second look at the table settle a
    first one that found another number."""
    h, w = image.shape[:2]
    scale = _WORK_SIDE / max(h, w)
    small = (
        cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
        if scale < 1
        else image
    )
    scale = small.shape[1] / w
    table = np.asarray(small, np.uint8)

    # The table as a smooth surface of one colour first; where that leaves no clean set of cards (a shadow
    # across the table, a checked or printed cloth), not as many as the player names, or a card's outline cut
    # short or grown, the table as a few colours told apart by their hue; where that does not settle it either,
    # the first look without the soft parts a lamp's reflection adds; last, the cards as the colours the table
    # does not show (a cloth printed in bold inks, whose blends along the print's edges no model of the table
    # holds). Where none settles it, the first look's answer stands.
    def settled(look: list[_Region] | TeachingError) -> TypeGuard[list[_Region]]:
        return not isinstance(look, TeachingError) and (count is None or len(look) == count)

    lab = _lab(np.asarray(cv2.GaussianBlur(image, (0, 0), 0.8), np.uint8))

    def outlines(look: list[_Region]) -> list[Quad]:
        return [_fit_sides(r.quad / scale, lab) for r in look]

    first = _card_mask(table)
    found = _looked(first)
    quads = outlines(found) if settled(found) else None
    misfit = None if quads is None else _misfit(quads)
    later: tuple[Callable[[], NDArray[np.uint8]], ...] = (
        lambda: _card_mask_by_hue(table),
        lambda: _card_mask_under_glare(table, first),
        lambda: _card_mask_by_colour(table),
    )
    for mask_of in later:
        if quads is not None and misfit is None:
            break
        again = _looked(mask_of())
        if settled(again):
            again_quads = outlines(again)
            again_misfit = _misfit(again_quads)
            if again_misfit is None or quads is None:
                found, quads, misfit = again, again_quads, again_misfit
    # A count far from the list's on a patterned cloth is the pattern's too (two "cards" of a gingham found where
    # twelve lie); a card or two more or fewer than the list names is likelier the list's, and is said so.
    far_off = count is not None and isinstance(found, list) and abs(len(found) - count) > _COUNT_SLIP
    if (isinstance(found, TeachingError) or far_off) and _busy(table):
        # On a patterned cloth the outlines fail for the pattern's sake: "a card lies sideways" (a stripe) or
        # "cards touch" (dots bridging the gaps) would send the player to fix cards that lie right.
        raise TeachingError(
            Problem.BUSY_TABLE,
            "the table's pattern hides the cards' outlines: lay the cards on a plain surface that differs "
            "from them, a finger's width apart, and take the photo again",
        )
    if isinstance(found, TeachingError):
        refused = found
    elif misfit is not None:
        # Better no face than one cut short of its index, or one with the table beside it: the deck would learn
        # the card without its index, or with a piece of table.
        refused = _refused(Problem.UNCLEAR_OUTLINE, _UNCLEAR, found, found[misfit])
    else:
        refused = None
    if refused is not None:
        if refused.region is not None and _glared(table, first, refused.region):
            # Light shining back from the table joins the cards in the outlines: "cards touch" would send the
            # player to move cards that lie apart.
            place = refused.values.get("place")
            raise TeachingError(Problem.GLARE, _GLARE.format(where=_where(place)), place=place)
        raise refused
    if quads is None:
        assert not isinstance(found, TeachingError)  # refused above
        quads = outlines(found)
    out = []
    for row, quad in _reading_order(quads):
        out.append(CutCard(_warp_face(image, quad), quad, row))
    _white_balance(out)
    return out


# How many cards more or fewer than the list names a player may have laid by mistake.
_COUNT_SLIP = 2


# An outline is cut short where the card's print matches the table (a green band on a teal cloth), and its face
# would be taught without the index there: an outline this much smaller, or this much squatter, than a card where
# it lies is not taken. The squatness is what tells a band cut off (bench/bench_cutting.py's dev photos: the
# figure lies halfway between the outlines cut short and the squattest of the rest); the size is a net for a
# corner cut off both ways. An outline grown by what joined it outside the card (a lamp's reflection on the table
# beside it) is not taken either: this much bigger, or this much taller, than a card where it lies.
_SHORT_AREA = 0.8
_SHORT_ASPECT = 0.895
_GROWN_AREA = 1 / _SHORT_AREA
_GROWN_ASPECT = 1 / _SHORT_ASPECT


def _misfit(quads: Sequence[Quad]) -> int | None:
    """Which of the outlines (fitted to a photo's cards) is cut short or grown: much smaller, squatter, bigger or
    taller than the others say a card is where it lies (the log of each fitted as a plane over the outlines, as
    ``_card_area`` does). None when none is, or too few outlines to tell."""
    if len(quads) < 4:
        return None
    q = np.asarray(quads, np.float64)
    centres = q.mean(1)

    def side(i: int, j: int) -> NDArray[np.float64]:
        return np.asarray(np.hypot(*(q[:, j] - q[:, i]).T), np.float64)

    area = np.log([abs(float(cv2.contourArea(x.astype(np.float32)))) + 1e-6 for x in q])
    aspect = np.log((side(0, 3) + side(1, 2)) / (side(0, 1) + side(3, 2) + 1e-6) + 1e-6)
    for y, tolerance, low, high in (
        (area, 0.25, _SHORT_AREA, _GROWN_AREA),
        (aspect, 0.06, _SHORT_ASPECT, _GROWN_ASPECT),
    ):
        off = y - _plane(centres, y, tolerance, float(np.median(y)), reach=None)(centres)
        for worst in (int(np.argmin(off)), int(np.argmax(off))):
            if not math.log(low) <= off[worst] <= math.log(high):
                return worst
    return None


# A table is patterned rather than plain when, in the photo's outer band, its spread about its smooth colour (the
# length of the Lab spreads) passes the first figure, or when more separate specks than the second stand out from
# it: blotches, stripes, marble and checks widen the spread, polka dots (too small a share of the table to move a
# median) make specks. Plain wood, felt, a weave, a shadow and a table as light as the cards stay under both
# (bench/bench_cutting.py's dev photos chose them).
_BUSY_SPREAD = 18.0
_BUSY_SPECKS = 50


def _busy(table: NDArray[np.uint8]) -> bool:
    """Whether the photo's table (at working size) is patterned: printed, checked, marbled, dotted."""
    h, w = table.shape[:2]
    lab = _lab(np.asarray(cv2.GaussianBlur(table, (0, 0), 1.0), np.uint8))
    band = _border(h, w)
    bg, spread = _surface(lab, band)
    if float(np.linalg.norm(spread)) > _BUSY_SPREAD:
        return True
    # A speck is what the first look would take for card at the least.
    out = ((np.sqrt((((lab - bg) / spread) ** 2).sum(-1)) > _NEAREST_CARD) & band).astype(np.uint8)
    _, _, stats, _ = cv2.connectedComponentsWithStats(out)
    return int((stats[1:, cv2.CC_STAT_AREA] >= 12).sum()) >= _BUSY_SPECKS


def _looked(mask: NDArray[np.uint8]) -> list[_Region] | TeachingError:
    """The card outlines in one table model's card mask of the photo, or why it shows no clean set of cards."""
    try:
        return _card_outlines(mask)
    except TeachingError as err:
        return err


def _card_outlines(mask: NDArray[np.uint8]) -> list[_Region]:
    """The cards' outlines in a card mask: every region big enough to be a card, each checked to be one card
    lying upright. Raises :class:`TeachingError` as ``cut_cards`` does."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    sh, sw = mask.shape
    regions = [_region(np.asarray(c, np.int32)) for c in contours if cv2.contourArea(c) > 1.5e-3 * sh * sw]
    if not regions:
        raise TeachingError(
            Problem.NO_CARDS,
            "no cards found in the photo: lay the cards face up on a plain table and photograph them from above",
        )
    single = [r for r in regions if _card_shaped(r)]
    typical = float(np.median([r.area for r in single])) if single else 0.0
    if not typical:
        # Not one outline has a card's shape: judge the regions by their size alone.
        typical = float(np.median([r.area for r in regions]))
    regions = _mend(regions, typical)
    card_area = _card_area(single, typical)
    cards: list[_Region] = []
    for r in regions:
        # A card where it lies or a typical one, whichever makes the region likelier one card: one region is
        # taken for two cards only when it is too big for both.
        here = card_area(r.centre)
        expected = max(here, typical)
        if r.area < 0.35 * min(here, typical):
            continue  # crumbs, coins, a pen: not a card, and too small to hide one
        if r.area > 1.3 * expected or (r.area > 0.7 * expected and r.fill < 0.8):
            raise _refused(Problem.OVERLAPPING, _TOUCHING, regions, r)
        if _card_shaped(r) and not r.upright:
            raise _refused(Problem.SIDEWAYS, _SIDEWAYS, regions, r)
        if not _card_shaped(r):
            if r.aspect > 1.25 and r.area > 0.9 * expected:
                raise _refused(Problem.OVERLAPPING, _TOUCHING, regions, r)
            raise _refused(Problem.UNCLEAR_OUTLINE, _UNCLEAR, regions, r)
        cards.append(r)
    if not cards:
        raise TeachingError(
            Problem.NO_CARDS, "no cards found in the photo: lay the cards face up on a plain table"
        )
    return cards


_TOUCHING = "cards touch or overlap{where}: lay them apart, a finger's width between neighbours, and take the photo again"
_SIDEWAYS = "a card lies sideways{where}: lay every card upright, its number at the top left"
_GLARE = (
    "a lamp's light shines back from the table{where} and joins the cards: move the lamp or the phone until no "
    "bright patch shows, and take the photo again"
)
_UNCLEAR = (
    "a card's outline is unclear{where}: photograph the cards on a plain table that differs from them, in even "
    "light, from straight above"
)


def _refused(code: Problem, said: str, regions: Sequence[_Region], r: _Region) -> TeachingError:
    """A refusal about one region, saying where among the others it lies."""
    place = _place(regions, r)
    err = TeachingError(code, said.format(where=_where(place)), place=place)
    err.region = r.contour
    return err


def _mend(regions: list[_Region], typical: float) -> list[_Region]:
    """Join the pieces of a card the table's colour cut apart (a green band on a green cloth): outlines that are
    not a card's shape, next to each other, whose hull together is no bigger than one card."""
    width = math.sqrt(typical / CARD_ASPECT)
    kept = [r for r in regions if _card_shaped(r)]
    odd = [r for r in regions if not _card_shaped(r)]
    joined = True
    while joined:
        joined = False
        for a in odd:
            for b in odd:
                if a is b or _gap(a, b) > 0.1 * width:
                    continue
                hull = cv2.convexHull(np.concatenate([a.contour, b.contour]))
                if cv2.contourArea(hull) <= 1.2 * typical:
                    odd = [r for r in odd if r is not a and r is not b]
                    odd.append(_region(np.asarray(hull, np.int32)))
                    joined = True
                    break
            if joined:
                break
    return kept + odd


def _card_area(single: Sequence[_Region], typical: float) -> Callable[[tuple[float, float]], float]:
    """A card's area where it lies in the photo. A phone held at a slant sees the far row smaller than the near
    one, so one size for the whole photo would take near cards for two: the log of the area is fitted as a plane
    over the outlines that have a card's shape (``_plane``: a joined pair or a torn outline left out)."""
    if len(single) < 4:
        return lambda _centre: typical
    xy = np.array([r.centre for r in single], np.float64)
    at = _plane(xy, np.log([r.area for r in single]), 0.25, math.log(typical))
    return lambda centre: float(math.exp(at(np.asarray([centre], np.float64))[0]))


def _plane(
    xy: NDArray[np.float64],
    y: NDArray[np.float64],
    tolerance: float,
    start: float,
    reach: float | None = 0.75,
) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
    """A plane through ``y`` over the points ``xy``, fitted twice, the second time without the points more than
    ``tolerance`` off the first fit (``start``, flat, where fewer than four are left). Its value at other points
    is not extrapolated beyond ``reach`` (in the points' own spans from their mean): a card off on its own."""
    scale = float(np.ptp(xy, 0).max()) or 1.0
    mean = xy.mean(0)
    a = np.column_stack([np.ones(len(xy)), (xy - mean) / scale])
    keep = np.ones(len(y), bool)
    coef = np.array([start, 0.0, 0.0])
    for _ in range(2):
        if keep.sum() < 4:
            break
        coef = np.linalg.lstsq(a[keep], y[keep], rcond=None)[0]
        keep = np.abs(y - a @ coef) < tolerance

    def at(points: NDArray[np.float64]) -> NDArray[np.float64]:
        u = (points - mean) / scale
        if reach is not None:
            u = np.clip(u, -reach, reach)
        return np.asarray(coef[0] + u @ coef[1:], np.float64)

    return at


def _gap(a: _Region, b: _Region) -> float:
    """The gap between two outlines' boxes (0 where they overlap)."""
    ax, ay, aw, ah = cv2.boundingRect(a.contour)
    bx, by, bw, bh = cv2.boundingRect(b.contour)
    return float(max(bx - (ax + aw), ax - (bx + bw), by - (ay + ah), ay - (by + bh), 0))


def _card_shaped(r: _Region) -> bool:
    # A card is 1.55 times as long as it is wide. A phone held at a slant draws it longer or shorter, the more
    # so the nearer it lies; two cards side by side make 1.3 or less and two end to end 3. Rounded corners cost
    # a little fill.
    return 1.32 <= r.aspect <= 2.1 and r.fill >= 0.86


def _reading_order(quads: Sequence[Quad]) -> Iterator[tuple[int, Quad]]:
    """Quads in reading order with their row: a new row starts where the next card (by height) lies more than
    half a card lower than the row so far."""
    if not quads:
        return
    centres = np.array([q.mean(0) for q in quads])
    height = float(np.median([np.hypot(*(q[3] - q[0])) for q in quads]))
    order = np.argsort(centres[:, 1])
    rows: list[list[int]] = [[int(order[0])]]
    for i in order[1:].tolist():
        if centres[i, 1] - np.mean([centres[j, 1] for j in rows[-1]]) > 0.5 * height:
            rows.append([])
        rows[-1].append(i)
    for r, members in enumerate(rows):
        for i in sorted(members, key=lambda j: centres[j, 0]):
            yield r, quads[i]


def _warp_face(image: NDArray[np.uint8], quad: Quad) -> NDArray[np.uint8]:
    """The card under ``quad`` as an upright RGBA face of the renderer's size; outside its outline (rounded
    corners) transparent."""
    dst = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32) - 0.5
    x0, y0 = np.floor(quad.min(0)).astype(int) - 4
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 4
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, image.shape[1]), min(y1, image.shape[0])
    src = image[y0:y1, x0:x1]
    shrink = float(np.hypot(*(quad[1] - quad[0]))) / CARD_W
    if shrink > 1.3:
        # Warping shrinks the photo's card: blur first, as a resize by area would, so fine print does not alias.
        src = np.asarray(cv2.GaussianBlur(src, (0, 0), 0.45 * shrink), np.uint8)
    m = cv2.getPerspectiveTransform((quad - [x0, y0]).astype(np.float32), dst)
    face = cv2.warpPerspective(
        src, m, (CARD_W, CARD_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    rgba = np.empty((CARD_H, CARD_W, 4), np.uint8)
    rgba[..., :3] = cv2.cvtColor(face, cv2.COLOR_BGR2RGB)
    rgba[..., 3] = _corner_alpha(rgba[..., :3])
    return rgba


def _corner_alpha(rgb: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The face's outline as alpha: opaque, except the table showing in the four rounded corners. Each corner
    is cut along the circle that best separates the card's edge colour from the table's there."""
    alpha = np.full(rgb.shape[:2], 255, np.uint8)
    lab = _lab(np.ascontiguousarray(rgb[..., ::-1]))
    # The card's edge colour: along the middle of its four sides, a few pixels in.
    edge = np.concatenate(
        [
            lab[CARD_H // 3 : 2 * CARD_H // 3, 2:5].reshape(-1, 3),
            lab[CARD_H // 3 : 2 * CARD_H // 3, -5:-2].reshape(-1, 3),
            lab[2:5, CARD_W // 3 : 2 * CARD_W // 3].reshape(-1, 3),
            lab[-5:-2, CARD_W // 3 : 2 * CARD_W // 3].reshape(-1, 3),
        ]
    )
    card = np.median(edge, 0)
    size = 32
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    best = 0
    # The corner patch's very corner pixel shows table; the radius where that stops is the card's rounding.
    patches = [
        lab[:size, :size],
        lab[:size, -size:][:, ::-1],
        lab[-size:, :size][::-1],
        lab[-size:, -size:][::-1, ::-1],
    ]
    dist = [np.sqrt(((p - card) ** 2).sum(-1)) for p in patches]
    radii = range(3, size - 2)
    scores = []
    for r in radii:
        outside = (xx - r) ** 2 + (yy - r) ** 2 > r * r
        outside &= (xx < r) & (yy < r)
        if outside.sum() < 3:
            scores.append(0.0)
            continue
        # Table pixels differ from the card's edge colour; a radius that is too large counts card as table.
        scores.append(float(np.mean([np.median(d[outside]) for d in dist])))
    if scores and max(scores) > 12:
        good = [r for r, s in zip(radii, scores, strict=True) if s >= 0.7 * max(scores)]
        best = max(good)
    if best:
        rad = float(best)
        outside = ((xx - rad) ** 2 + (yy - rad) ** 2 > rad * rad) & (xx < rad) & (yy < rad)
        a = np.where(outside, 0, 255).astype(np.uint8)
        alpha[:size, :size] = np.minimum(alpha[:size, :size], a)
        alpha[:size, -size:] = np.minimum(alpha[:size, -size:], a[:, ::-1])
        alpha[-size:, :size] = np.minimum(alpha[-size:, :size], a[::-1])
        alpha[-size:, -size:] = np.minimum(alpha[-size:, -size:], a[::-1, ::-1])
    return alpha


def _white_balance(cards: Sequence[CutCard]) -> None:
    """Bring the faces of one photo to neutral light: each channel scaled so the brightest few per cent of the
    cards (their paper, rims and light print) are white, as the renderer draws paper."""
    if not cards:
        return
    px = np.concatenate([c.face[..., :3][c.face[..., 3] > 0] for c in cards]).astype(np.float32)
    white = np.percentile(px, 98, axis=0)
    gains = np.clip(245.0 / np.maximum(white, 1.0), 0.7, 1.6)
    for c in cards:
        c.face[..., :3] = np.clip(c.face[..., :3].astype(np.float32) * gains, 0, 255).astype(np.uint8)


# --- index boxes -----------------------------------------------------------------------------------------------

# Where the renderer's index boxes end at most (vision.render._corner_layer), and the margin they add past the
# index.
_BOX_MAX = (int(CARD_W * 0.45), int(CARD_H * 0.3))
_BOX_MARGIN = 0.02 * CARD_W
# Print differs from the face's ground by at least this much (CIE76 colour difference); wear, scuffs and JPEG
# stay under it.
_INK_DELTA = 24.0
# How far from the corner, along each edge, a shape anchored at the corner is looked for: past the largest
# rounding the renderer draws.
_ALONG = 20
# The band along a face's edges left out of its print.
_EDGE = 3


def _ground(lab: NDArray[np.float32], alpha: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The colour a face is printed on: a strip down its left side, between the corner and the centre figure,
    inside any rim, frame or stripe."""
    x0, x1 = int(0.085 * CARD_W), int(0.13 * CARD_W)
    y0, y1 = int(0.42 * CARD_H), int(0.58 * CARD_H)
    strip = lab[y0:y1, x0:x1][alpha[y0:y1, x0:x1] > 200]
    if len(strip) == 0:
        strip = lab[y0:y1, x0:x1].reshape(-1, 3)
    return np.asarray(np.median(strip, 0), np.float32)


def _ink_mask(
    lab: NDArray[np.float32], alpha: NDArray[np.uint8], colour: NDArray[np.float32]
) -> NDArray[np.bool_]:
    return np.asarray((np.sqrt(((lab - colour) ** 2).sum(-1)) > _INK_DELTA) & (alpha > 200), np.bool_)


def index_box(face: NDArray[np.uint8]) -> Box:
    """The index box of a face (RGBA, CARD_H x CARD_W, as ``render_card`` or ``cut_cards`` gives it): from the
    card's own corner to just past its upright top-left index, as the renderer boxes its faces.

    Where the index is printed in the ground's colour on a shape anchored at the card's corner (a tab, a band,
    a triangle), the box ends just past the figure cut out of the shape, as the renderer's does, not at the
    shape's end. Otherwise the index is the print nearest the corner that differs from the face's ground, with
    what lies next to it (a second digit, a rule, a pip, a colour-blind mark); rims, frames and border lines
    (print running the whole corner's width or height) are left out, and so is the centre figure (print
    reaching far beyond where an index is)."""
    alpha = face[..., 3]
    lab = _lab(np.ascontiguousarray(face[..., 2::-1]))
    rw, rh = int(0.56 * CARD_W), int(0.4 * CARD_H)
    ground = _ground(lab, alpha)
    delta = np.sqrt(((lab[:rh, :rw] - ground) ** 2).sum(-1))
    # Faint print (a muted ink on a dot screen, a pale yellow) is told from the ground by a lower step, in
    # proportion to the strongest print where an index lies: a bold centre figure reaching into the corner
    # would set the step past a pale index.
    bw, bh = _BOX_MAX
    near = delta[:bh, :bw][alpha[:bh, :bw] > 200]
    step = float(np.clip(0.4 * np.percentile(near, 99.5), 12.0, _INK_DELTA)) if near.size else _INK_DELTA
    region = (delta > step) & (alpha[:rh, :rw] > 200)
    # Bridge the breaks a dot screen or a thin hollow letter leaves in one stroke.
    region = cv2.morphologyEx(region.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)) > 0
    region &= alpha[:rh, :rw] > 200
    # The outermost pixels of a photographed face may show a sliver of table: they are nobody's print.
    region[:_EDGE], region[:, :_EDGE] = False, False
    n, labels, stats, _ = cv2.connectedComponentsWithStats(region.astype(np.uint8), connectivity=8)
    for k in range(1, n):
        x, y, w, h, _area = (int(v) for v in stats[k])
        # Anchored at the corner: it runs along both edges from the rounding on (a frame stands a few pixels
        # in from them; a diamond that only touches them does not, and is boxed by its own extent like any
        # shape standing free).
        if labels[_EDGE, _ALONG] == k and labels[_ALONG, _EDGE] == k:
            far = _figure_in(labels[: y + h, : x + w] == k, lab, ground)
            if far is not None:
                return _box(far)
    # Print that spans the corner's whole width (or height) is a rim, frame, border line or stripe.
    full_rows = region[:bh, :bw].mean(1) > 0.8
    full_cols = region[:bh, :bw].mean(0) > 0.8
    removed = np.zeros_like(region)
    removed[:bh][full_rows] = True
    removed[:bh, :bw][:, full_cols] = True
    top = _edge_band(full_rows)
    left = _edge_band(full_cols)
    region &= ~removed
    near_removed = cv2.dilate(removed.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    n, labels, stats, _ = cv2.connectedComponentsWithStats(region.astype(np.uint8), connectivity=8)
    dist = cv2.distanceTransform(region.astype(np.uint8), cv2.DIST_L2, 3)
    comps: list[tuple[int, int, int, int, int]] = []  # label, x0, y0, x1, y1
    for k in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[k])
        if area < 12:
            continue
        member = labels == k
        if (
            (near_removed & member).any()
            and x <= left + 1
            and y <= top + 1
            and x + w <= left + 32
            and y + h <= top + 32
        ):
            continue  # the rounded corner of a rim, frame or border line, left over from its straight sides
        if float(dist[member].max()) <= 1.6 and area / max(math.hypot(w, h), 1.0) < 1.6:
            continue  # a scuff
        if x + w > 0.5 * CARD_W or y + h > 0.36 * CARD_H:
            continue  # the centre figure or the Wild's word reaching into the corner
        comps.append((k, x, y, x + w, y + h))
    if not comps:
        return _box((0.2 * CARD_W, 0.16 * CARD_H))
    # The index starts near the corner; of what does, its figure (or the shape it is printed on) is the most
    # print. Neighbours join it across gaps up to a frame's width (a frame line can cut a shape in two).
    starts = [c for c in comps if c[1] < 0.2 * CARD_W and c[2] < 0.15 * CARD_H] or comps
    seed = max(starts, key=lambda c: int(stats[c[0]][4]))
    cluster = [seed]
    bx = list(seed[1:])
    reach = max(15.0, 0.45 * (seed[4] - seed[2]))
    grew = True
    while grew:
        grew = False
        for c in comps:
            if c in cluster:
                continue
            gap_x = max(c[1] - bx[2], bx[0] - c[3], 0)
            gap_y = max(c[2] - bx[3], bx[1] - c[4], 0)
            if gap_x <= reach and gap_y <= reach:
                cluster.append(c)
                bx = [min(bx[0], c[1]), min(bx[1], c[2]), max(bx[2], c[3]), max(bx[3], c[4])]
                grew = True
    return _box((float(bx[2]), float(bx[3])))


def _edge_band(full: NDArray[np.bool_]) -> int:
    """How far print spanning the corner reaches in from the card's edge (a rim, frame or border line)."""
    idx = np.flatnonzero(full)
    idx = idx[idx < 0.12 * CARD_W]
    return int(idx.max()) + 1 if idx.size else 0


def _figure_in(
    shape: NDArray[np.bool_], lab: NDArray[np.float32], ground: NDArray[np.float32]
) -> tuple[float, float] | None:
    """The far corner of an index printed on a shape anchored at the card's corner, padded as the renderer
    pads it; None when the shape holds no figure (a rim or frame). The figure is what differs from the
    shape's own colour inside its outline: a photo's blur can fill a thin figure's strokes with the shape's
    ink, but it does not make them the shape's colour."""
    filled = shape | _holes(shape.astype(np.uint8))
    if shape.sum() < 0.5 * filled.sum():
        return None  # rules or a frame enclosing the index, not a shape it is printed on
    box = lab[: shape.shape[0], : shape.shape[1]]
    colour = np.median(box[shape], 0)
    apart = float(np.sqrt(((colour - ground) ** 2).sum()))
    fig = filled & (np.sqrt(((box - colour) ** 2).sum(-1)) > max(12.0, 0.5 * apart))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fig.astype(np.uint8), connectivity=8)
    sh, sw = shape.shape
    keep = np.zeros_like(fig)
    for k in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[k])
        # Along the shape's whole side: the paper between a frame and the card's edge; a line a pixel or two
        # wide: the antialiased edge of a frame. Neither is a figure.
        line = min(w, h) < 3 or area < 1.5 * max(w, h)
        if area >= 12 and w < 0.85 * sw and h < 0.85 * sh and x > 0 and y > 0 and not line:
            keep |= labels == k
    # Less than this is a gap in a rim's print or a frame's antialiasing, not a figure.
    if keep.sum() < 0.0012 * CARD_W * CARD_H:
        return None
    ys, xs = np.nonzero(keep)
    pad = max(3.0, 0.18 * float(ys.max() - ys.min() + 1))
    return float(xs.max()) + 1 + pad, float(ys.max()) + 1 + pad


def _box(far: tuple[float, float]) -> Box:
    bw, bh = _BOX_MAX
    return (0, 0, int(min(bw, far[0] + _BOX_MARGIN)), int(min(bh, far[1] + _BOX_MARGIN)))


def _holes(member: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """What a shape encloses: the pixels of its box not in it and not reachable from outside it."""
    padded = np.pad(member, 1)
    flood = padded.copy()
    mask = np.zeros((padded.shape[0] + 2, padded.shape[1] + 2), np.uint8)
    cv2.floodFill(flood, mask, (0, 0), 1)
    return np.asarray((flood[1:-1, 1:-1] == 0), np.bool_)


# --- the deck's look -------------------------------------------------------------------------------------------

_COLOURS = (Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW)


@dataclass(frozen=True, slots=True)
class Look:
    """What a deck's taught faces say about how it is printed, for drawing the cards nobody photographed."""

    inks: tuple[RGB, RGB, RGB, RGB]  # red, blue, green, yellow
    measured: tuple[bool, bool, bool, bool]  # which inks were measured (the others are the renderer's)
    paper: RGB  # the card stock at the edge
    face: str  # "paper", "colour" or "dark", as vision.render.Design.face
    dark: RGB  # the ground of a dark face
    shaped: bool  # the index is printed on a shape (tab, patch, band...) rather than bare

    def to_dict(self) -> dict[str, Any]:
        return {
            "inks": {c.name.lower(): list(v) for c, v in zip(_COLOURS, self.inks, strict=True)},
            "measured": [c.name.lower() for c, m in zip(_COLOURS, self.measured, strict=True) if m],
            "paper": list(self.paper),
            "face": self.face,
            "dark": list(self.dark),
            "shaped": self.shaped,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Look:
        def rgb(v: Sequence[int]) -> RGB:
            return (int(v[0]), int(v[1]), int(v[2]))

        inks = tuple(rgb(d["inks"][c.name.lower()]) for c in _COLOURS)
        measured = tuple(c.name.lower() in d["measured"] for c in _COLOURS)
        return cls(
            (inks[0], inks[1], inks[2], inks[3]),
            (measured[0], measured[1], measured[2], measured[3]),
            rgb(d["paper"]),
            str(d["face"]),
            rgb(d["dark"]),
            bool(d["shaped"]),
        )


def _rgb(lab: NDArray[np.floating[Any]]) -> RGB:
    px = cv2.cvtColor(np.asarray(lab, np.float32).reshape(1, 1, 3), cv2.COLOR_Lab2RGB)[0, 0]
    r, g, b = (round(float(v) * 255) for v in np.clip(px, 0, 1))
    return (r, g, b)


# How far past the index box the corner is searched for the ink: a box found a little short of a shape's edge.
_INDEX_PAD = 6


def _ink_of(
    lab: NDArray[np.float32], alpha: NDArray[np.uint8], corner: tuple[int, int] | None = None
) -> NDArray[np.float32] | None:
    """A number card's ink: the most strongly coloured hue in its index corner (its figure, or the shape or face
    it stands on), else on the whole face. A deck with a picture in the middle prints it in many colours, more
    strongly coloured than the ink, so the face as a whole does not say which is the card's; the index does.
    ``corner`` is where the index ends (x, y) on the face."""
    if corner is not None:
        x, y = corner
        ink = _ink_of(lab[: y + _INDEX_PAD, : x + _INDEX_PAD], alpha[: y + _INDEX_PAD, : x + _INDEX_PAD])
        if ink is not None:
            return ink
    inner = lab[8:-8, 8:-8][alpha[8:-8, 8:-8] > 200]
    if len(inner) == 0:
        return None
    chroma = np.hypot(inner[:, 1], inner[:, 2])
    if np.percentile(chroma, 99) < 15:
        return None
    # The most strongly coloured pixels: thin strokes blurred by the camera are ink mixed with paper.
    strong = inner[chroma >= np.percentile(chroma, 99.5)]
    hue = np.degrees(np.arctan2(strong[:, 2], strong[:, 1])) % 360
    weight = np.hypot(strong[:, 1], strong[:, 2]) ** 2
    hist = np.bincount((hue // 10).astype(int) % 36, weights=weight, minlength=36)
    peak = int(np.argmax(hist))
    near = np.minimum(np.abs(hue - (peak * 10 + 5)), 360 - np.abs(hue - (peak * 10 + 5))) <= 15
    return np.asarray(np.median(strong[near], 0), np.float32)


# The card stock is looked for in a band this many pixels wide along the face's left and right edges (past the
# first two, where a cut may hold a sliver of table), among its light, nearly neutral pixels: many decks print a
# frame or a line in the card's ink a few pixels in, and the band then holds some of it.
_EDGE_BAND = (2, 8)
_STOCK_L, _STOCK_CHROMA = 60.0, 12.0
# A face's stock is measured where at least this share of its band is stock.
_STOCK_SHARE = 0.2


def _stock(lab: NDArray[np.float32], alpha: NDArray[np.uint8]) -> NDArray[np.float32] | None:
    """The card stock at a face's edges (Lab), or None where the band shows too little of it."""
    a, b = _EDGE_BAND
    rows = slice(CARD_H // 3, 2 * CARD_H // 3)
    band = np.concatenate(
        [lab[rows, a:b][alpha[rows, a:b] > 200], lab[rows, -b:-a][alpha[rows, -b:-a] > 200]]
    )
    light = band[(band[:, 0] >= _STOCK_L) & (np.hypot(band[:, 1], band[:, 2]) <= _STOCK_CHROMA)]
    if len(band) == 0 or len(light) < _STOCK_SHARE * len(band):
        return None
    return np.asarray(np.median(light, 0), np.float32)


def measure_look(faces: Mapping[Card, Sequence[NDArray[np.uint8]]]) -> Look:
    """The deck's inks, paper and kind of face, measured from its taught faces (RGBA); inks of colours that
    were not taught stay the renderer's. The kind of face is the number cards' where any were taught: a deck
    prints its Wilds and Skips on faces of their own (a dark deck's Skips on white, a coloured deck's Wilds on
    black)."""
    inks: dict[Color, list[NDArray[np.float32]]] = {c: [] for c in _COLOURS}
    grounds, numbers, edges, stocks, shaped = [], [], [], [], []
    for card, group in faces.items():
        for face in group:
            alpha = face[..., 3]
            lab = _lab(np.ascontiguousarray(face[..., 2::-1]))
            grounds.append(_ground(lab, alpha))
            band = lab[CARD_H // 3 : 2 * CARD_H // 3, 2:5].reshape(-1, 3)
            edges.append(np.median(band, 0))
            stock = _stock(lab, alpha)
            if stock is not None:
                stocks.append(stock)
            if card.kind is Kind.NUMBER:
                numbers.append(grounds[-1])
            if card.kind is Kind.NUMBER and card.color is not None:
                x1, y1 = index_box(face)[2:]
                ink = _ink_of(lab, alpha, (x1, y1))
                if ink is not None:
                    inks[card.color].append(ink)
                corner = _ink_mask(lab[:y1, :x1], alpha[:y1, :x1], grounds[-1])
                shaped.append(float(corner.mean()) > 0.45)
    ground = np.median(numbers or grounds, 0) if grounds else np.array([95.0, 0.0, 0.0], np.float32)
    # Where no face shows its stock plainly (a face printed to its edge), the band as it is.
    paper = _rgb(np.median(stocks or edges, 0)) if edges else (245, 245, 245)
    # A dark face is nearly black: after the cutting's white balance, which lifts a dark photo by its light rims
    # and figures, its ground can reach the lightness of a saturated blue face, told apart by its colour.
    # The faces' chroma is taken face by face: coloured faces of the four colours lie on all sides of neutral,
    # and the median of their colours is grey.
    chroma = float(np.median([np.hypot(g[1], g[2]) for g in numbers or grounds])) if grounds else 0.0
    if chroma > 25:
        face_kind = "colour"
    elif ground[0] < 50:
        face_kind = "dark"
    else:
        face_kind = "paper"
    measured = [bool(inks[c]) for c in _COLOURS]
    palette = [_rgb(np.median(inks[c], 0)) if inks[c] else INKS[c] for c in _COLOURS]
    return Look(
        (palette[0], palette[1], palette[2], palette[3]),
        (measured[0], measured[1], measured[2], measured[3]),
        paper,
        face_kind,
        _rgb(ground) if face_kind == "dark" else (22, 22, 26),
        bool(shaped) and float(np.mean(shaped)) > 0.5,
    )


def look_design(look: Look, rng: np.random.Generator) -> Design:
    """A random design in the deck's look: a family's layout and a random typeface, the deck's inks, paper and
    kind of face. Cards nobody photographed are drawn in designs like this."""
    if look.face == "dark":
        family = Family.DARK
    elif look.face == "colour":
        family = Family.COLOUR_FACE
    elif look.shaped:
        family = Family.TABBED
    else:
        family = (Family.CLASSIC, Family.ACCESSIBLE, Family.PRINTED)[int(rng.integers(3))]
    design = family_design(rng, family, Split.TRAIN)
    return dataclasses.replace(
        design,
        palette=look.inks,
        paper=look.paper,
        face=look.face,
        dark=look.dark,
        shade=1.0,
        special_ink="deck",
    )


# --- rendered teaching photos ----------------------------------------------------------------------------------

TEACHING_SETS: tuple[tuple[Card, ...], ...] = (
    *(tuple(Card.number_card(n, c) for n in range(1, 13)) for c in _COLOURS),
    (*(Card.wild() for _ in range(8)), *(Card.skip() for _ in range(4))),
)


def teaching_photos(design: Design, seed: int) -> list[tuple[bytes, str]]:
    """The five usual teaching photos of a deck drawn in ``design``, rendered: one per colour with its twelve
    numbers in two rows, one with the eight Wilds and four Skips; each as (JPEG bytes, the cards it shows in
    reading order)."""
    out = []
    for k, cards in enumerate(TEACHING_SETS):
        scene = make_teaching_photo([cards[:6], cards[6:]], design, seed * 10 + k)
        ok, jpg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        assert ok
        out.append((jpg.tobytes(), " ".join(str(c) for c in cards)))
    return out


# --- decks on disk ---------------------------------------------------------------------------------------------

DECK_FILE = "deck.json"
FACES_DIR = "faces"
# Deck names become folder names: letters, digits, "-" and "_", starting with a letter or digit.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")


def check_name(name: str) -> str:
    """``name`` if it can name a deck (and its folder), else :class:`TeachingError`."""
    if not _NAME.fullmatch(name):
        raise TeachingError(
            Problem.BAD_NAME,
            f"{name!r} cannot name a deck: use 1 to 40 letters, digits, '-' or '_', starting with a letter or digit",
        )
    return name


def deck_folder(decks: Path, name: str) -> Path:
    """Where the deck ``name`` lives under ``decks`` (it need not exist)."""
    return decks / check_name(name)


def read_deck(folder: Path) -> dict[str, Any]:
    """A taught deck's ``deck.json``; :class:`TeachingError` when ``folder`` holds no deck."""
    try:
        data: dict[str, Any] = json.loads((folder / DECK_FILE).read_text())
    except (OSError, ValueError):
        raise TeachingError(Problem.NO_DECK, f"there is no taught deck called {folder.name!r}") from None
    return data


def _detector_figures(meta: Mapping[str, Any]) -> object:
    figures = meta.get("figures")
    return figures.get("detector") if isinstance(figures, dict) else None


def detector_taught(meta: Mapping[str, Any]) -> bool:
    """Whether a deck's detector was taught (a ``deck.json``'s), rather than kept as the deck started with it."""
    # Decks taught before the detector could be kept have no such figure: their detector was always taught.
    detector = _detector_figures(meta)
    return not isinstance(detector, dict) or detector.get("taught", True) is not False


def detector_kept_for_time(meta: Mapping[str, Any]) -> tuple[int, int] | None:
    """For a deck whose detector was kept because the run had time for too few of its batches: the batches it
    would have had and the fewest worth teaching (``DETECTOR_FEWEST_BATCHES`` then); else ``None``."""
    detector = _detector_figures(meta)
    if detector_taught(meta) or not isinstance(detector, dict):
        return None
    had, fewest = (
        detector.get("projected_batches", detector.get("of_batches")),
        detector.get("fewest_batches"),
    )
    # A deck.json is a file on disk: figures that are not whole numbers say nothing.
    if type(had) is not int or type(fewest) is not int:
        return None
    return had, fewest


def list_decks(decks: Path) -> list[dict[str, Any]]:
    """Every taught deck under ``decks``, by name."""
    if not decks.is_dir():
        return []
    out = []
    for folder in sorted(decks.iterdir()):
        if folder.is_dir() and _NAME.fullmatch(folder.name) and (folder / DECK_FILE).exists():
            try:
                out.append(read_deck(folder))
            except TeachingError:
                continue
    return out


def remove_deck(decks: Path, name: str) -> None:
    folder = deck_folder(decks, name)
    read_deck(folder)  # refuses a folder that is not a deck
    shutil.rmtree(folder)


def load_faces(folder: Path) -> dict[Card, list[tuple[NDArray[np.uint8], Box]]]:
    """A taught deck's faces (RGBA) with their index boxes, by card."""
    meta = read_deck(folder)
    out: dict[Card, list[tuple[NDArray[np.uint8], Box]]] = {}
    for entry in meta["faces"]:
        img = cv2.imread(str(folder / FACES_DIR / entry["file"]), cv2.IMREAD_UNCHANGED)
        if img is None or img.shape != (CARD_H, CARD_W, 4):
            continue
        x0, y0, x1, y1 = (int(v) for v in entry["index_box"])
        out.setdefault(Card.parse(entry["card"]), []).append(
            (np.asarray(cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA), np.uint8), (x0, y0, x1, y1))
        )
    return out


# --- photos kept for training ---------------------------------------------------------------------------------

# The key of a kept photo's ``meta/NAME.json`` that names the deck the camera read it with (absent or null: the
# shipped models), as ``companion.referee.training.keep`` writes it.
KEPT_DECK = "deck"

# A kept photo and its confirmed cards: (class, index box x1, y1, x2, y2 in the photo's pixels).
Example = tuple[Path, list[tuple[int, tuple[float, float, float, float]]]]


def kept_stems(folder: Path) -> dict[str, set[str]]:
    """The names of the photos kept for training in ``folder``, by the deck the camera read them with (photos
    read with the shipped models are not listed)."""
    meta = folder / "meta"
    out: dict[str, set[str]] = {}
    for file in sorted(meta.glob("*.json")) if meta.is_dir() else []:
        try:
            record = json.loads(file.read_text())
        except (OSError, ValueError):
            continue  # a record being written, or not one of ours: it teaches nothing
        deck = record.get(KEPT_DECK) if isinstance(record, dict) else None
        if isinstance(deck, str) and deck:
            out.setdefault(deck, set()).add(file.stem)
    return out


def kept_photos(folder: Path, name: str) -> list[Example]:
    """The photos kept for training in ``folder`` (the layout ``phase10 train --extra-data`` reads) that the
    camera read with the deck ``name``, each with its confirmed cards (class, index box in its pixels)."""
    stems = kept_stems(folder).get(name)
    if not stems:
        return []
    from vision.train import read_extra

    try:
        return [(img, rows) for img, rows in read_extra(folder, stems) if rows]
    except ValueError:
        return []  # their images or labels are gone


# --- learning --------------------------------------------------------------------------------------------------

Progress = Callable[[str, int, int], None]  # stage, done, total


@dataclass(frozen=True, slots=True)
class Taught:
    """What teaching photos showed: the faces of each card, and where they came from."""

    faces: dict[Card, list[NDArray[np.uint8]]]
    photos: list[dict[str, Any]]  # per photo: its digest and the cards it showed


def read_photos(photos: Sequence[tuple[bytes, str]], progress: Progress | None = None) -> Taught:
    """Cut every teaching photo (bytes, its card list) and check it shows the cards it names, before anything
    is learnt; :class:`TeachingError` names the photo (1 = the first) that does not."""
    faces: dict[Card, list[NDArray[np.uint8]]] = {}
    seen: list[dict[str, Any]] = []
    if not photos:
        raise TeachingError(Problem.NO_CARDS, "no teaching photos: give at least one photo and its card list")
    for i, (data, text) in enumerate(photos):
        try:
            cards = parse_cards(text)
            cut = check_photo(data, cards)
        except TeachingError as exc:
            raise TeachingError(exc.code, f"photo {i + 1}: {exc}", **exc.values, photo=i + 1) from None
        for card, c in zip(cards, cut, strict=True):
            faces.setdefault(card, []).append(c.face)
        seen.append({"sha256": hashlib.sha256(data).hexdigest(), "cards": [str(c) for c in cards]})
        if progress:
            progress("cutting", i + 1, len(photos))
    return Taught(faces, seen)


@dataclass(frozen=True, slots=True)
class Plan:
    """How a teaching run spends its time (seconds from its start) and how much it renders."""

    render_until: float
    classifier_seconds: float
    detector_until: float  # when the detector's last batch must end, its validation and export still to come
    val_scenes: int
    min_scenes: int


# Shares of the time left after the fixed costs, and what those cost. Rendering feeds both models; the
# detector, fine-tuned at its full input size, needs the most time per picture, and its batches are what the time
# buys. It gets one pass over what is rendered, cut off at its deadline. The classifier reads a deck's own faces
# well after a part of the crops it was given, so its time went to the detector; rendering then draws about as many
# pictures as the detector's pass can take, and the pass may end before its deadline: filling those minutes, with a
# second pass or with more pictures, read no better (models/TRAINING-HISTORY.md, "A smaller render share while
# teaching", "More of the teaching time to the detector" and "A second pass for the taught detector").
RENDER_SHARE, CLASSIFIER_SHARE = 0.15, 0.15
_DETECTOR_OVERHEAD = 25.0  # loading, caching the pictures, two validations, the export
# What the detector still does after its last batch: Ultralytics validates at the end of the pass and again on the
# best weights, then the weights are exported. Its batches end this many seconds before the time kept for saving,
# so that a run ends within the minutes it was given, on the slowest machine measured too (models/
# TRAINING-HISTORY.md, "Teaching that ends on time").
DETECTOR_FINISH = 15.0
# Saving the deck at the end: the any-size detector file is made and checked against the export (seconds). The
# classifier is served as exported, in fp32: its int8 twin cost the held-out set cards (models/MODEL_CARD.md).
_SAVING = 8.0
# The classifier's first run (crops), which also measures its pace, and how long the later ones are planned to
# take (seconds): long enough that setting up, validating and exporting each is a small part of it.
_FIRST_RUN = 1024
_RUN_SECONDS = 60.0
# Of the classifier's crops, this share (by count of the deck's own) comes from ordinary decks (vignettes and
# ordinary scenes, as ``_jobs`` mixes them in), so that the deck's models still read other decks.
_ORDINARY_CROPS = 0.4
# The chance that a rendered training scene lies on a printed cloth (``vision.scene.BOLD_TEXTURES``): players'
# tables are not all quiet wood and felt, and a detector taught on quiet tables alone misses indexes on bold ones.
BOLD_TABLES = 0.35
# The taught detector's learning rate (AdamW, held for its one pass): the fine-tuning rate of every detector run.
DETECTOR_LR = FINE_TUNE_LR
# The taught detector's input, that of the shipped one: trained smaller, it learns indexes smaller than the reader
# shows it (models/TRAINING-HISTORY.md, "Teaching on a slower machine").
_DETECTOR_IMGSZ = 640


def plan(
    seconds: float,
    scene_seconds: float,
    render_share: float = RENDER_SHARE,
    classifier_share: float = CLASSIFIER_SHARE,
) -> Plan:
    """The plan for a run of ``seconds`` on a machine that renders a scene in ``scene_seconds`` on one core;
    ``render_share`` of the time left after the fixed costs renders, ``classifier_share`` of it trains the
    classifier, and what those do not take goes to the detector, which trains last. A deck that keeps its
    detector ends where the detector would start: given the detector's time too, its classifier read the decks
    measured no better (models/TRAINING-HISTORY.md, "What a half-taught detector gets wrong")."""
    left = max(seconds - _DETECTOR_OVERHEAD - _SAVING - 2, 0.0)
    return Plan(
        render_until=render_share * left,
        classifier_seconds=classifier_share * left,
        detector_until=seconds - _SAVING - DETECTOR_FINISH,
        val_scenes=8 if seconds < 300 else 16,
        min_scenes=6,
    )


_WORKER: dict[str, Any] = {}


def _worker_init(
    faces: dict[Card, list[tuple[NDArray[np.uint8], Box]]], look: Look, out: str, bold_tables: float
) -> None:
    cv2.setNumThreads(1)
    _WORKER.update(faces=faces, look=look, out=out, bold_tables=bold_tables)


def _render_job(job: tuple[str, int, str]) -> tuple[str, NDArray[np.uint8], NDArray[np.int64]]:
    """Render one picture: ``deck`` (a scene of the taught deck), ``ordinary`` (a scene of any family) or
    ``vignettes`` (ten small photos of ordinary cards, crops only); write scenes as YOLO data into ``split``."""
    kind, seed, split = job
    rng = np.random.default_rng([seed, 9])
    if kind == "vignettes":
        xs, ys = [], []
        for s in range(seed, seed + 10):
            x, y = scene_crops(
                make_vignette(s, FAMILIES), np.random.default_rng([s, 8]), half_hits=0, table=0
            )
            xs.append(x)
            ys.append(y)
        return kind, np.concatenate(xs), np.concatenate(ys)
    if kind == "deck":
        scene = make_scene(
            seed,
            Split.TRAIN,
            deck=look_design(_WORKER["look"], rng),
            faces=_WORKER["faces"],
            bold_tables=_WORKER["bold_tables"],
        )
    else:
        scene = make_scene(seed, Split.TRAIN, families=FAMILIES, bold_tables=_WORKER["bold_tables"])
    out = Path(_WORKER["out"])
    name = f"{kind}_{seed:07d}"
    cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (out / "labels" / split / f"{name}.txt").write_text("\n".join(yolo_lines(scene)) + "\n")
    x, y = scene_crops(scene, rng)
    return kind if split == "train" else "val", x, y


def scene_crops(
    scene: Scene, rng: np.random.Generator, *, half_hits: int = 4, table: int = 3
) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """Classifier crops of a scene, cut as the shipped classifier's training crops were
    (``vision.dataset.scene_crops``)."""
    from vision.dataset import scene_crops as cut

    return cut(scene, rng, half_hits=half_hits, table=table)


@contextmanager
def _ticking(progress: Progress | None, stage: str, seconds: float) -> Iterator[None]:
    """Report a stage that cannot count its own steps by the seconds it has run against those planned."""
    stop = threading.Event()
    start = time.monotonic()

    def tick() -> None:
        while not stop.wait(2.0):
            if progress:
                progress(stage, min(round(time.monotonic() - start), round(seconds)), round(seconds))

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        if progress:
            progress(stage, round(seconds), round(seconds))


# A detector given fewer batches than this is not taught but kept as the deck started with it, where the deck
# prints its index twice along the top (``index_twice``): half-taught, such a detector boxes the second index as a
# card of its own and reads the deck worse than the one it started from; the floor lies between the batch counts
# that read worse and better. A deck with one index at the top read better with a half-taught detector, or as
# well, so its detector is taught however few batches it gets (models/TRAINING-HISTORY.md, "A detector kept when
# the machine is too slow for it" and "Only a deck with its index twice at the top keeps its detector"). The
# pace is measured over DETECTOR_PACE_BATCHES batches after the first DETECTOR_WARM_BATCHES: the first loads and
# caches, and the few after it can run far slower than the rest of the pass, which made the projection keep
# detectors that would have had their batches (models/TRAINING-HISTORY.md, "The detector's pace measured after
# its first batches").
DETECTOR_FEWEST_BATCHES = 100
DETECTOR_WARM_BATCHES = 5
DETECTOR_PACE_BATCHES = 4
# How closely the top right of a face must repeat the middle of its index (normalised cross-correlation), in the
# median face, for the deck to print its index twice at the top: between what a second index and the top right of
# a card without one matched, on cut faces and rendered ones (models/TRAINING-HISTORY.md, "Only a deck with its
# index twice at the top keeps its detector").
INDEX_TWICE_MATCH = 0.6
# The index's middle, without the frame or rim its box may take in from the card's corner.
_INDEX_MIDDLE = 0.2


def _second_index_match(face: NDArray[np.uint8], box: Box) -> float:
    """How closely the top right of ``face`` (RGBA, its index at ``box``) repeats the middle of that index: near
    1 where the card prints the same index there too."""
    grey = cv2.cvtColor(np.ascontiguousarray(face[..., :3]), cv2.COLOR_RGB2GRAY).astype(np.float32)
    h, w = grey.shape
    x1, y1, x2, y2 = box
    dx, dy = round(_INDEX_MIDDLE * (x2 - x1)), round(_INDEX_MIDDLE * (y2 - y1))
    middle = grey[y1 + dy : y2 - dy, x1 + dx : x2 - dx]
    top_right = grey[: min(y2 + (y2 - y1) // 2, h), max(x2, w // 2) :]
    if (
        middle.size == 0
        or float(middle.std()) < 1.0
        or top_right.shape[0] < middle.shape[0]
        or top_right.shape[1] < middle.shape[1]
    ):
        return 0.0
    return float(cv2.matchTemplate(top_right, middle, cv2.TM_CCOEFF_NORMED).max())


def index_twice(faces: Mapping[Card, Sequence[tuple[NDArray[np.uint8], Box]]]) -> bool:
    """Whether the deck's faces (with their index boxes) print the index a second time at the top right, as a
    deck with an index in all four corners does (``INDEX_TWICE_MATCH``)."""
    matches = [_second_index_match(face, box) for group in faces.values() for face, box in group]
    return bool(matches) and float(np.median(matches)) >= INDEX_TWICE_MATCH


def fewest_detector_batches(keep_detector: bool | None, twice: bool) -> int:
    """The fewest batches the detector must have to be taught (``teach``'s ``keep_detector``): the floor only
    where the run decides and the deck prints its index twice at the top (``index_twice``)."""
    return DETECTOR_FEWEST_BATCHES if keep_detector is None and twice else 0


class _TooSlow(Exception):
    """Raised between two detector batches once the pace shows too few would be done: what the detector has
    learnt is not kept, so it is neither validated nor exported, which on a slow machine takes seconds."""


@dataclass(slots=True)
class _DetectorClock:
    """How the detector's training is going: batches done, when the last one ended (time.monotonic), when the
    last of its warm-up batches ended (``DETECTOR_WARM_BATCHES``), and, once its pace is measured, how many batches
    it would end with by its deadline."""

    done: int = 0
    last_end: float = 0.0
    warm_end: float = 0.0
    projected: int | None = None
    too_slow: bool = False


def projected_batches(done: int, pace: float, left: float, batches: int) -> int:
    """How many batches a detector that has done ``done`` at ``pace`` seconds a batch ends with in the ``left``
    seconds to its deadline, at most the ``batches`` of its pass (none is cut short)."""
    return min(done + int(max(left, 0.0) // max(pace, 1e-6)), batches)


@contextmanager
def _detector_deadline(
    until: float, progress: Progress | None, batches: int, fewest: int = 0
) -> Iterator[_DetectorClock]:
    """While training the detector: stop it cleanly (between two batches, then validate and export) before the
    clock (time.monotonic) passes ``until``, and report the batches done. A batch is not cut short, so the last
    one starts only where it ends by ``until`` at the pace of the one before. With ``fewest``, training is
    abandoned (``_TooSlow``) once its pace shows that it would end with fewer batches than that (``too_slow``).
    Yields the clock, kept up to date."""
    from ultralytics.utils.callbacks import base

    clock = _DetectorClock(last_end=time.monotonic())
    started = [clock.last_end]

    def on_batch_start(trainer: Any) -> None:
        started[0] = time.monotonic()

    def on_batch_end(trainer: Any) -> None:
        now = time.monotonic()
        clock.done += 1
        clock.last_end = now
        if clock.done == DETECTOR_WARM_BATCHES:
            clock.warm_end = now
        if progress:
            progress("detector", min(clock.done, batches), batches)
        if clock.done == DETECTOR_WARM_BATCHES + DETECTOR_PACE_BATCHES:
            pace = (now - clock.warm_end) / DETECTOR_PACE_BATCHES
            clock.projected = projected_batches(clock.done, pace, until - now, batches)
            if clock.projected < fewest:
                clock.too_slow = True
                raise _TooSlow
        if now + (now - started[0]) > until:
            trainer.stop = True

    hooks = (("on_train_batch_start", on_batch_start), ("on_train_batch_end", on_batch_end))
    for event, hook in hooks:
        base.default_callbacks[event].append(hook)
    try:
        yield clock
    finally:
        for event, hook in hooks:
            base.default_callbacks[event].remove(hook)


def _render(
    faces: dict[Card, list[tuple[NDArray[np.uint8], Box]]],
    look: Look,
    data: Path,
    until: float,
    p: Plan,
    workers: int,
    seed: int,
    progress: Progress | None,
    bold_tables: float,
) -> tuple[dict[str, list[NDArray[np.uint8]]], dict[str, list[NDArray[np.int64]]], dict[str, int]]:
    """Render scenes until ``until`` (time.monotonic): the validation scenes first, then training scenes of
    the deck with ordinary scenes and vignettes mixed in; returns the crops by use and the pictures by kind."""
    for split in ("train", "val"):
        (data / "images" / split).mkdir(parents=True, exist_ok=True)
        (data / "labels" / split).mkdir(parents=True, exist_ok=True)
    base = 7_000_000 + seed * 100_000
    jobs: Iterator[tuple[str, int, str]] = _jobs(base, p.val_scenes)
    xs: dict[str, list[NDArray[np.uint8]]] = {"deck": [], "ordinary": [], "vignettes": [], "val": []}
    ys: dict[str, list[NDArray[np.int64]]] = {k: [] for k in xs}
    counts = {k: 0 for k in xs}
    expected = max(p.min_scenes + p.val_scenes, 1)
    # Spawned, not forked: the parent has torch's thread pools running, which a forked child can hang on.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_worker_init,
        initargs=(faces, look, str(data), bold_tables),
    ) as ex:
        pending = [ex.submit(_render_job, next(jobs)) for _ in range(2 * workers)]
        while pending:
            fut = pending.pop(0)
            kind, x, y = fut.result()
            xs[kind].append(x)
            ys[kind].append(y)
            counts[kind] += 1
            scenes = counts["deck"] + counts["ordinary"] + counts["val"]
            enough = counts["val"] >= p.val_scenes and counts["deck"] >= p.min_scenes
            if progress:
                expected = max(expected, scenes + len(pending))
                progress("rendering", scenes, expected)
            if not (enough and time.monotonic() > until):
                pending.append(ex.submit(_render_job, next(jobs)))
    if progress:
        progress(
            "rendering",
            counts["deck"] + counts["ordinary"] + counts["val"],
            counts["deck"] + counts["ordinary"] + counts["val"],
        )
    return xs, ys, counts


def _jobs(base: int, val: int) -> Iterator[tuple[str, int, str]]:
    """The pictures to render, in order: the validation scenes, then without end the training pictures, of
    every twenty three ordinary scenes and two batches of vignettes (seeds ten apart: a batch takes ten)."""
    for i in range(val):
        yield "deck", base + i, "val"
    k = 0
    while True:
        i = k % 20
        kind = "ordinary" if i in (5, 12, 18) else "vignettes" if i in (9, 19) else "deck"
        yield kind, base + 1000 + k * 10, "train"
        k += 1


def _base_weights(models: Path) -> tuple[Path, Path]:
    det, cls = models / "card-index.pt", models / "index-classifier.pt"
    for w in (det, cls):
        if not w.exists():
            raise TeachingError(Problem.NEEDS_TRAINING, f"{w}: the weights to fine-tune are missing")
    return det, cls


def require_training() -> None:
    """:class:`TeachingError` unless the ``train`` extra (torch, Ultralytics, onnx) is installed."""
    # Teaching reports its own progress; Ultralytics' per-step log would bury it (set before it is imported,
    # and only where the user has not chosen).
    os.environ.setdefault("YOLO_VERBOSE", "False")
    for module in ("torch", "ultralytics", "onnx"):
        try:
            __import__(module)
        except ImportError:
            raise TeachingError(
                Problem.NEEDS_TRAINING,
                f"teaching a deck needs the train extra: pip install 'phase10-companion[train]' ({module})",
            ) from None


def teach(
    decks: Path,
    name: str,
    photos: Sequence[tuple[bytes, str]],
    *,
    minutes: float = 15.0,
    progress: Progress | None = None,
    threads: int = 2,
    seed: int = 0,
    base_models: Path | None = None,
    kept: Path | None = None,
    bold_tables: float = BOLD_TABLES,
    render_share: float = RENDER_SHARE,
    classifier_share: float = CLASSIFIER_SHARE,
    detector_lr: float = DETECTOR_LR,
    keep_detector: bool | None = None,
) -> Path:
    """Teach the camera the deck ``name`` from teaching photos (JPEG/PNG bytes, the cards each shows in reading
    order), within ``minutes``; returns the deck's folder under ``decks``, ready for
    ``vision.detector.Models``. A deck already taught under that name is replaced once the new one is ready.

    ``kept`` is the folder of photos kept for training (``companion.referee.training``): those the camera read
    with this deck, as players confirmed them, are learnt from too. With no teaching photos, the deck taught
    under ``name`` is learnt again from its own faces and models, with the photos kept since (and
    :class:`TeachingError` ``nothing-kept`` when there are none). ``bold_tables`` is the share of rendered
    scenes on printed cloths (``BOLD_TABLES``); ``render_share`` the share of the run's time spent rendering
    (``RENDER_SHARE``), ``classifier_share`` the share training the classifier (``CLASSIFIER_SHARE``);
    ``detector_lr`` the taught detector's learning rate (``DETECTOR_LR``). With
    ``keep_detector`` True only the classifier learns: the deck keeps the detector it starts from, and the run
    ends when its classifier is ready, about a third of the ``minutes``. With None (the default) the detector of a deck
    that prints its index twice at the top (``index_twice``, recorded as ``figures.index_twice``) is taught where
    this machine's pace gives it at least ``DETECTOR_FEWEST_BATCHES`` batches in the time left, and kept as with
    True where it does not, the run then ending early; any other deck's, and with False every deck's, is taught
    however few it gets.
    ``figures.detector`` in the deck's ``deck.json`` says which it was (``taught``) and, for a detector kept for
    want of time, the batches it would have had (``projected_batches``, ``fewest_batches``).

    Every photo is checked before anything is learnt (:class:`TeachingError`). ``progress(stage, done, total)``
    is called as the run goes: cutting (or, learning a deck again, kept), rendering, classifier, detector,
    saving."""
    from vision.detector import MODELS_DIR

    started = time.monotonic()
    until = started + minutes * 60
    check_name(name)
    examples = kept_photos(kept, name) if kept is not None else []
    if photos:
        taught = read_photos(photos, progress)
        require_training()
        det_init, cls_init = _base_weights(base_models or MODELS_DIR)
    decks.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=decks))
    try:
        if not photos:
            taught, (det_init, cls_init) = _taught_before(decks, name, examples, work, base_models)
            if progress:
                progress("kept", len(examples), len(examples))
        folder = _learn(
            work,
            name,
            taught,
            examples,
            det_init,
            cls_init,
            started,
            until,
            minutes,
            threads,
            seed,
            progress,
            bold_tables,
            render_share,
            classifier_share,
            detector_lr,
            keep_detector,
        )
        final = deck_folder(decks, name)
        old = None
        if final.exists():
            old = final.with_name(f".{name}-old-{os.getpid()}")
            os.replace(final, old)
        os.replace(folder, final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return final
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _taught_before(
    decks: Path, name: str, examples: list[Example], work: Path, base_models: Path | None
) -> tuple[Taught, tuple[Path, Path]]:
    """What the deck ``name`` was taught from (its faces, its photos) and copies of its own weights to go on
    from (or those of ``base_models``), for learning it again from the photos kept since."""
    folder = deck_folder(decks, name)
    meta = read_deck(folder)
    if not examples:
        raise TeachingError(
            Problem.NOTHING_KEPT,
            f"no photo read with the deck {name!r} has been kept for training: correct a reading of it on the "
            "referee page and tick 'Keep this photo for training' first",
            name=name,
        )
    require_training()
    # Copied, so that the deck can be removed or replaced while it is learnt again.
    base = work / "base"
    base.mkdir()
    for weights in _base_weights(base_models or folder):
        shutil.copy(weights, base / weights.name)
    faces = {card: [face for face, _box in group] for card, group in load_faces(folder).items()}
    if not faces:
        raise TeachingError(
            Problem.NO_DECK, f"the deck {name!r} has lost its faces: teach it again", name=name
        )
    trained_from = meta.get("trained_from")
    photos = trained_from.get("photos") if isinstance(trained_from, dict) else None
    return Taught(faces, list(photos) if isinstance(photos, list) else []), _base_weights(base)


# A few real photos beside thousands of drawn tables: the share of the detector's pictures and of the
# classifier's crops of the deck that the kept photos are made to be (by repeating them), within these bounds.
_KEPT_SHARE = 0.05
_KEPT_COPIES = (2, 20)
_KEPT_CROPS_PER_CARD = (4, 64)


def _kept_for_detector(examples: list[Example], images: Path, labels: Path, pictures: int) -> int:
    """Put the kept photos among the detector's training pictures (index boxes, class 0), each repeated so
    that together they weigh about ``_KEPT_SHARE`` of the ``pictures`` drawn; returns how many were added."""
    lo, hi = _KEPT_COPIES
    copies = min(max(round(_KEPT_SHARE * pictures / max(len(examples), 1)), lo), hi)
    added = 0
    from vision.train import detector_label

    for k, (img, _rows) in enumerate(examples):
        label = detector_label(img)
        for j in range(copies):
            stem = f"kept_{k:04d}_{j:02d}"
            shutil.copy(img, images / f"{stem}{img.suffix.lower()}")
            (labels / f"{stem}.txt").write_text(label)
            added += 1
    return added


def _learn(
    work: Path,
    name: str,
    taught: Taught,
    examples: list[Example],
    det_init: Path,
    cls_init: Path,
    started: float,
    until: float,
    minutes: float,
    threads: int,
    seed: int,
    progress: Progress | None,
    bold_tables: float,
    render_share: float,
    classifier_share: float,
    detector_lr: float,
    keep_detector: bool | None,
) -> Path:
    """The teaching run proper, in ``work``; returns the finished deck folder (inside ``work``)."""
    import platform

    import torch

    from vision.detector import DETECTOR_FILE, DYNAMIC_DETECTOR_FILE
    from vision.modelfiles import make_dynamic_detector
    from vision.train import (
        CLASSIFIER_NAME,
        DETECTOR_NAME,
        TrainConfig,
        _classifier_init,
        _export_detector,
        classifier_width,
        train_classifier,
        train_detector,
    )

    torch.set_num_threads(threads)
    deck = work / "deck"
    (deck / FACES_DIR).mkdir(parents=True)
    faces: dict[Card, list[tuple[NDArray[np.uint8], Box]]] = {}
    entries = []
    for card, group in taught.faces.items():
        for k, face in enumerate(group):
            box = index_box(face)
            faces.setdefault(card, []).append((face, box))
            file = f"{card}-{k + 1}.png"
            cv2.imwrite(str(deck / FACES_DIR / file), cv2.cvtColor(face, cv2.COLOR_RGBA2BGRA))
            entries.append({"card": str(card), "file": file, "index_box": list(box)})
    look = measure_look(taught.faces)
    twice = index_twice(faces)
    seconds: dict[str, float] = {"cutting": time.monotonic() - started}

    # Rendering: the rate of one scene on one core, measured on the first, sizes the fixed costs.
    t0 = planned = time.monotonic()
    _ = make_scene(seed, Split.TRAIN, deck=look_design(look, np.random.default_rng(seed)), faces=faces)
    scene_seconds = time.monotonic() - t0
    p = plan(until - t0, scene_seconds, render_share, classifier_share)
    data = work / "data"
    xs, ys, counts = _render(faces, look, data, t0 + p.render_until, p, threads, seed, progress, bold_tables)
    seconds["rendering"] = time.monotonic() - t0
    (data / "data.yaml").write_text(
        f"path: {data.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: index\n"
    )

    # Classifier: the deck's crops and a share of ordinary ones, for as long as the plan gives it.
    t0 = time.monotonic()
    rng = np.random.default_rng(seed)
    deck_x, deck_y = np.concatenate(xs["deck"]), np.concatenate(ys["deck"])
    other_x = (
        np.concatenate(xs["vignettes"] + xs["ordinary"]) if xs["vignettes"] or xs["ordinary"] else deck_x[:0]
    )
    other_y = (
        np.concatenate(ys["vignettes"] + ys["ordinary"]) if ys["vignettes"] or ys["ordinary"] else deck_y[:0]
    )
    keep = rng.permutation(len(other_x))[: int(_ORDINARY_CROPS * len(deck_x))]
    kept_x, kept_y = deck_x[:0], deck_y[:0]
    if examples:
        from vision.train import extra_crops

        cards = sum(len(rows) for _img, rows in examples)
        lo, hi = _KEPT_CROPS_PER_CARD
        per_card = min(max(round(_KEPT_SHARE * len(deck_x) / max(cards, 1)), lo), hi)
        kept_x, kept_y = extra_crops(examples, rng, per_card)
    xtr = np.concatenate([deck_x, kept_x, other_x[keep]])
    ytr = np.concatenate([deck_y, kept_y, other_y[keep]])
    val = (np.concatenate(xs["val"]), np.concatenate(ys["val"]))
    state = _classifier_init(cls_init, 10_000)
    width = classifier_width(state)
    cls_out = work / "classifier"
    cls_out.mkdir()
    # In short runs, each continuing from the last, so the stage ends on time whatever the machine's load does
    # to its pace: each run's pace sizes the next, and the learning rate falls from run to run.
    cls_until = t0 + p.classifier_seconds
    order = rng.permutation(len(xtr))
    pos = passes = runs = 0
    size = min(len(xtr), _FIRST_RUN)
    metrics: dict[str, float] = {}
    with _ticking(progress, "classifier", p.classifier_seconds), _quiet(work / "training.log"):
        while size:
            pick = np.take(order, np.arange(pos, pos + size), mode="wrap")
            left = max(cls_until - time.monotonic(), 0.0)
            lr = 1e-3 * max(0.2, left / max(p.classifier_seconds, 1.0))
            r0 = time.monotonic()
            metrics = train_classifier(
                (xtr[pick], ytr[pick]),
                val,
                cls_out,
                epochs=1,
                seed=seed + runs,
                init=state,
                width=width,
                max_lr=lr,
                # A taught deck is one deck: its own faces, light or dark, are what the classifier learns.
                dark_share=0.0,
            )
            # The pace counts the run's validation and export too, so it errs low and the stage ends early.
            pace = size / max(time.monotonic() - r0, 1e-3)
            state = _classifier_init(cls_out / f"{CLASSIFIER_NAME}.pt", width)
            pos, passes, runs = (pos + size) % len(xtr), passes + size, runs + 1
            size = int(min(pace * min(cls_until - time.monotonic(), _RUN_SECONDS), len(xtr)))
            if size < _FIRST_RUN // 4:
                size = 0
    for suffix in (".onnx", ".pt"):
        shutil.copy(cls_out / f"{CLASSIFIER_NAME}{suffix}", deck / f"{CLASSIFIER_NAME}{suffix}")
    seconds["classifier"] = time.monotonic() - t0

    # Detector: one pass over the scenes, stopped between batches at its deadline; or the one the deck starts
    # from, exported as a taught one is, where that is asked for or where this machine's pace would give the
    # detector of a deck with its index twice at the top too few batches to be worth teaching
    # (``fewest_detector_batches``).
    t0 = time.monotonic()
    det_metrics: dict[str, Any] = {"taught": False}
    kept_pictures = 0
    onnx_path: Path | None = None
    if keep_detector is not True:
        kept_pictures = _kept_for_detector(
            examples,
            data / "images" / "train",
            data / "labels" / "train",
            counts["deck"] + counts["ordinary"],
        )
        train_pictures = counts["deck"] + counts["ordinary"] + kept_pictures
        cfg = TrainConfig(
            out=deck,
            data=data,
            epochs=1,
            imgsz=_DETECTOR_IMGSZ,
            batch=8,
            seed=seed,
            threads=threads,
            init=det_init,
            smoke=train_pictures < 64,
            lr0=detector_lr,
        )
        batches = -(-train_pictures // cfg.batch)
        fewest = fewest_detector_batches(keep_detector, twice)
        if batches < fewest:
            det_metrics |= {"batches": 0, "of_batches": batches, "fewest_batches": fewest}
        else:
            with (
                _detector_deadline(planned + p.detector_until, progress, batches, fewest) as clock,
                _quiet(work / "training.log"),
            ):
                try:
                    trained: Path | None = train_detector(cfg, data / "data.yaml", work / "runs")
                except _TooSlow:
                    trained = None
            # Whether the detector saw every rendered picture before its deadline: the balance of the plan's shares.
            seen: dict[str, Any] = {
                "batches": clock.done,
                "of_batches": batches,
                "pictures": min(clock.done * cfg.batch, train_pictures),
                "learning_rate": detector_lr,
                # What validating and exporting took after the last batch, against DETECTOR_FINISH.
                "finish_seconds": round(time.monotonic() - clock.last_end, 1),
            }
            if clock.too_slow:
                det_metrics |= seen | {"projected_batches": clock.projected, "fewest_batches": fewest}
            else:
                onnx_path = trained
                det_metrics = (
                    {"taught": True} | _detector_metrics(work / "runs" / "detector" / "results.csv") | seen
                )
    if onnx_path is None:
        # Its weights copied first, so that the export lands in the run's folder, not beside the models it came
        # from.
        kept_det = work / "kept-detector"
        kept_det.mkdir()
        shutil.copy(det_init, kept_det / f"{DETECTOR_NAME}.pt")
        with _quiet(work / "training.log"):
            onnx_path = _export_detector(kept_det / f"{DETECTOR_NAME}.pt", _DETECTOR_IMGSZ)
    shutil.copy(onnx_path, deck / f"{DETECTOR_NAME}.onnx")
    shutil.copy(onnx_path.with_suffix(".pt"), deck / f"{DETECTOR_NAME}.pt")
    seconds["detector"] = time.monotonic() - t0

    t0 = time.monotonic()
    if progress:
        progress("saving", 0, 1)
    make_dynamic_detector(deck / DETECTOR_FILE, deck / DYNAMIC_DETECTOR_FILE)
    seconds["saving"] = time.monotonic() - t0
    meta = {
        "name": name,
        "cards": sorted({str(c) for c in taught.faces}, key=lambda c: CLASS_OF[Card.parse(c)]),
        "faces": entries,
        "look": look.to_dict(),
        "trained_from": {
            "photos": taught.photos,
            "kept": [img.stem for img, _rows in examples],
            "detector": {"file": str(det_init), "sha256": _digest(det_init)},
            "classifier": {"file": str(cls_init), "sha256": _digest(cls_init)},
        },
        "taught_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "figures": {
            "minutes": minutes,
            "seconds": {k: round(v, 1) for k, v in seconds.items()},
            "total_seconds": round(time.monotonic() - started, 1),
            "scenes": {"deck": counts["deck"], "ordinary": counts["ordinary"], "validation": counts["val"]},
            "bold_tables": bold_tables,
            "index_twice": twice,
            "kept_photos": {
                "photos": len(examples),
                "detector_pictures": kept_pictures,
                "crops": len(kept_x),
            },
            "vignette_batches": counts["vignettes"],
            "classifier": {"crops": len(xtr), "crops_trained": passes, "runs": runs, **metrics},
            "detector": det_metrics,
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, {threads} threads",
        },
    }
    (deck / DECK_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    if progress:
        progress("saving", 1, 1)
    return deck


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _detector_metrics(results: Path) -> dict[str, float]:
    """The last validation row of Ultralytics' results.csv: mAP50 and mAP50-95 on the deck's scenes."""
    try:
        rows = [line.split(",") for line in results.read_text().strip().split("\n")]
    except OSError:
        return {}
    head = [h.strip() for h in rows[0]]
    last = rows[-1]
    out = {}
    for key, name in (("metrics/mAP50(B)", "val_map50"), ("metrics/mAP50-95(B)", "val_map50_95")):
        if key in head:
            out[name] = round(float(last[head.index(key)]), 4)
    return out


@contextmanager
def _quiet(log: Path) -> Iterator[None]:
    """Send what training prints to a log file, so that a caller's own progress stays readable. This is the
    process's standard output for as long as the block runs: a caller that reports progress by printing keeps
    its own handle on the terminal (as ``phase10 deck teach`` does)."""
    import contextlib

    with log.open("a") as f, contextlib.redirect_stdout(f):
        yield
