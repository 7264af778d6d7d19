"""The corner crop the classifier reads, shared by training and serving (numpy + OpenCV only).

A crop is the detected index box grown by a margin and resampled to ``CROP`` x ``CROP`` pixels from the
decoded photo (larger than the detector's input), so the classifier reads the index sharper than the detector
saw it.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.rules.cards import Card, Color

# A photo or a crop as OpenCV decodes it: H x W x 3, BGR, 8 bits a channel.
Image = NDArray[np.uint8]

CROP = 40
MARGIN = 0.15

# Classifier classes: 48 numbered cards, Wild, Skip, and "none" (not a card's upright corner).
CLASS_CARDS: tuple[Card | None, ...] = (
    *(
        Card.number_card(n, c)
        for c in (Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW)
        for n in range(1, 13)
    ),
    Card.wild(),
    Card.skip(),
    None,
)
NONE_CLASS = len(CLASS_CARDS) - 1
CLASS_OF: dict[Card, int] = {c: i for i, c in enumerate(CLASS_CARDS) if c is not None}


def crop_index(
    image: Image,
    box: Sequence[float],
    *,
    shift: tuple[float, float] = (0.0, 0.0),
    zoom: float = 1.0,
) -> Image:
    """``CROP`` x ``CROP`` BGR crop of ``box`` (image pixels); ``shift``/``zoom`` only for training jitter.

    The crop is square, as wide as the box's longer side plus a margin, and anchored at the box's top-left
    corner (where the card's corner is): the aspect of the index survives, so a narrow "1" never gets
    stretched into something that looks like "11".
    """
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0, 2.0)
    full = side * (1 + 2 * MARGIN) * zoom
    left = x0 - MARGIN * side + shift[0] * side
    top = y0 - MARGIN * side + shift[1] * side
    s = CROP / full
    if s < 1 / 1.5:
        # Shrinking by a large factor aliases: area-resample the region first, then place it.
        ix0, iy0 = max(int(left) - 2, 0), max(int(top) - 2, 0)
        ix1, iy1 = min(int(left + full) + 3, image.shape[1]), min(int(top + full) + 3, image.shape[0])
        if ix1 > ix0 and iy1 > iy0:
            small = cv2.resize(image[iy0:iy1, ix0:ix1], None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
            m = np.array([[1, 0, (ix0 - left) * s], [0, 1, (iy0 - top) * s]], np.float32)
            return _warp(small, m)
    return _warp(image, np.array([[s, 0, -left * s], [0, s, -top * s]], np.float32))


def _warp(image: cv2.typing.MatLike, m: NDArray[np.float32]) -> Image:
    crop = cv2.warpAffine(image, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(crop, np.uint8)


def to_input(crops: NDArray[np.uint8]) -> NDArray[np.float32]:
    """N x CROP x CROP x 3 uint8 BGR -> N x 3 x CROP x CROP float32, white-balanced per crop.

    Each channel is divided by its own bright level (the card's paper), so a warm bulb or cool daylight that
    tints the whole photo does not shift a red index towards yellow or a blue one towards green.
    """
    x = crops.astype(np.float32)
    flat = x.reshape(len(x), -1, 3)
    white = np.percentile(flat, 92, axis=1)  # N x 3
    white = np.maximum(white, 24.0)
    x = np.clip(x / white[:, None, None, :], 0, 1.25) - 0.5
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))
