"""The corner crop the classifier reads, shared by training and serving (numpy + OpenCV only).

A crop is the detected index box grown by a margin and resampled to ``CROP`` x ``CROP`` pixels from the
full-resolution image, so the classifier reads the index sharper than the detector saw it.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.rules.cards import Card, Color

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
    image: np.ndarray,
    box: tuple[float, float, float, float],
    *,
    shift: tuple[float, float] = (0.0, 0.0),
    zoom: float = 1.0,
) -> np.ndarray:
    """``CROP`` x ``CROP`` BGR crop around ``box`` (image pixels); ``shift``/``zoom`` only for training jitter."""
    x0, y0, x1, y1 = box
    w, h = max(x1 - x0, 2.0), max(y1 - y0, 2.0)
    cx = (x0 + x1) / 2 + shift[0] * w
    cy = (y0 + y1) / 2 + shift[1] * h
    sw, sh = w * (1 + 2 * MARGIN) * zoom, h * (1 + 2 * MARGIN) * zoom
    m = np.float32([[CROP / sw, 0, CROP / 2 - cx * CROP / sw], [0, CROP / sh, CROP / 2 - cy * CROP / sh]])
    # Shrinking a large box by a big factor aliases: pre-blur the source region in proportion.
    factor = min(sw, sh) / CROP
    interp = cv2.INTER_AREA if factor > 1.5 else cv2.INTER_LINEAR
    if factor > 1.5:
        ix0, iy0 = max(int(cx - sw / 2) - 2, 0), max(int(cy - sh / 2) - 2, 0)
        ix1, iy1 = min(int(cx + sw / 2) + 3, image.shape[1]), min(int(cy + sh / 2) + 3, image.shape[0])
        if ix1 > ix0 and iy1 > iy0:
            region = image[iy0:iy1, ix0:ix1]
            scale_x, scale_y = CROP / sw, CROP / sh
            small = cv2.resize(region, None, fx=scale_x, fy=scale_y, interpolation=interp)
            m = np.float32([[1, 0, (ix0 - cx) * scale_x + CROP / 2], [0, 1, (iy0 - cy) * scale_y + CROP / 2]])
            return cv2.warpAffine(
                small, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
    return cv2.warpAffine(image, m, (CROP, CROP), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def to_input(crops: np.ndarray) -> np.ndarray:
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
