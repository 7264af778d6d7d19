"""A light-faced card reprinted in another polarity, for the detector's training scenes (numpy + OpenCV only).

A detector that has only seen dark figures on light card misses indexes printed the other way round: bright
figures on a black face, white figures on a face filled with the card's colour. ``recoloured`` turns a rendered
light face into one of those, pixel by pixel: it keeps the face's layout, lettering and ink hues and changes only
which of paper and ink is light. It is the scene-level counterpart of the classifier's dark-face redraw
(``vision.train.dark_face``), and like it a transform of other faces, not a drawing of any design family, so that
a family left out of training stays unseen.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

# Faces with more coloured area than this are left as they are: a tab or band already prints a light figure on
# colour, and turning it round would print a dark figure on colour, which no deck does (as in the classifier's
# redraw, ``vision.train.DARK_FACE_MAX_COLOURED``). A pixel counts as coloured at a Lab chroma over 25.
MAX_COLOURED = 0.3
_CHROMA = 25.0


def _lab(rgb: NDArray[np.uint8]) -> NDArray[np.float32]:
    return np.asarray(cv2.cvtColor(rgb.astype(np.float32) / 255, cv2.COLOR_RGB2Lab), np.float32)


def _rim(alpha: NDArray[np.uint8], width: float) -> NDArray[np.float32]:
    """1 within ``width`` pixels of the face's edge, 0 further in (soft over one pixel)."""
    inside = cv2.distanceTransform((alpha > 127).astype(np.uint8), cv2.DIST_L2, 3)
    return np.asarray(np.clip(width + 0.5 - inside, 0, 1), np.float32)


def recoloured(face: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """``face`` (RGBA, as ``vision.render.render_card`` draws it) printed dark or on its own colour, or as it was.

    Half the faces it changes get a dark ground (black, charcoal or a dark tint) with their inks lifted to bright,
    full colours and black ink turned light; the other half a ground in the card's own ink (the face's most
    coloured ink, or a random hue on a card printed in black only) with every ink turned white. Most keep a rim
    of the old paper round the edge, as such decks print.
    """
    rgb, alpha = face[..., :3], face[..., 3]
    lab = _lab(rgb)
    opaque = alpha > 127
    light = lab[..., 0]
    chroma_abs = np.hypot(lab[..., 1], lab[..., 2])
    if (chroma_abs[opaque] > _CHROMA).mean() > MAX_COLOURED:
        return face
    paper = np.median(lab[opaque & (light >= np.percentile(light[opaque], 80))], 0)
    far = np.sqrt(((lab - paper) ** 2).sum(-1))
    ink = np.clip((far - 6) / 24, 0, 1)[..., None]  # 0 on the paper, 1 on the ink
    if paper[0] < 60 or (ink[..., 0][opaque] < 0.5).mean() < 0.5:
        return face  # the ground is not light paper: a face already dark or filled (a Wild, a Skip)
    chroma = np.hypot(lab[..., 1] - paper[1], lab[..., 2] - paper[2])
    coloured_ink = (ink[..., 0] > 0.5) & (chroma > _CHROMA)
    if rng.random() < 0.5:
        # The ink rules of vision.train.dark_face, for a whole face: not shared, because each draws its random
        # numbers in its own order, and sharing would change the data both recorded recipes were measured on.
        ground = np.array([rng.uniform(3, 22), *rng.normal(0, 12, 2)], np.float32)
        black = (np.clip((paper[0] - light) / 40, 0, 1) * (1 - np.clip(chroma / 25, 0, 1)))[..., None]
        figure = lab.copy()
        figure[..., 0] = np.maximum(light, rng.uniform(50, 72))
        level = float(np.percentile(chroma[coloured_ink], 90)) if coloured_ink.sum() > 8 else 0.0
        if level > 0:
            figure[..., 1:] = (lab[..., 1:] - paper[1:]) * max(
                rng.uniform(1.0, 1.4), rng.uniform(40, 70) / level
            )
        figure = figure * (1 - black) + np.array([rng.uniform(75, 100), 0, 0], np.float32) * black
    else:
        if coloured_ink.sum() > 8:
            ab = np.median(lab[coloured_ink][:, 1:] - paper[1:], 0)
        else:
            hue = rng.uniform(0, 2 * np.pi)
            ab = np.array([np.cos(hue), np.sin(hue)], np.float32)
        ab = ab / max(float(np.hypot(*ab)), 1e-3) * rng.uniform(40, 75)
        ground = np.array([rng.uniform(35, 65), *ab], np.float32)
        figure = np.broadcast_to(np.array([rng.uniform(92, 100), 0, 0], np.float32), lab.shape)
    rim = _rim(alpha, float(rng.uniform(3, 14))) if rng.random() < 0.7 else np.zeros(alpha.shape, np.float32)
    base = ground * (1 - rim[..., None]) + paper * rim[..., None]
    out = base * (1 - ink) + figure * ink
    rgb_out = cv2.cvtColor(out.astype(np.float32), cv2.COLOR_Lab2RGB)
    result = face.copy()
    result[..., :3] = np.clip(rgb_out * 255 + 0.5, 0, 255).astype(np.uint8)
    return result
