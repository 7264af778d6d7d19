"""Photos of a chosen lay-down, drawn with the camera's own card renderer: one row per group, cards fanned as
players lay them, on a table surface. The cards are known, so the verdict the app gives can be checked."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from companion.rules import Card, parse_groups
from tests.vision.test_decode import _with_orientation
from vision.render import CARD_H, CARD_W, PLAIN_GLYPH, Split, random_design, render_card


def _table(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    grain = np.sin(xx * 0.03 + np.sin(yy * 0.01) * 3) * 0.5 + 0.5
    base = np.array([60, 100, 150], np.float32)  # BGR: a mid-brown wood
    img = base[None, None, :] * (0.8 + 0.2 * grain[..., None])
    img += rng.normal(0, 4, img.shape).astype(np.float32)
    return img


def _paste(dst: np.ndarray, rgba: np.ndarray, m: np.ndarray) -> None:
    h, w = dst.shape[:2]
    warped = cv2.warpAffine(rgba, m, (w, h), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3:4].astype(np.float32) / 255.0
    dst[:] = dst * (1 - alpha) + warped[..., 2::-1].astype(np.float32) * alpha


def phase_scene(
    text: str,
    *,
    seed: int = 0,
    size: tuple[int, int] = (1024, 768),
    quality: int = 92,
    card_width: float | None = None,
) -> tuple[bytes, list[tuple[Card, tuple[float, float, float, float]]]]:
    """A JPEG of the groups in ``text`` (``"R7 B7 G7 | G3 Y4 W B6"``), one row per group, top to bottom, and
    each card with its index box in the photo's pixels, in table order."""
    groups = parse_groups(text)
    rng = np.random.default_rng(seed)
    w, h = size
    img = _table(w, h, rng)
    # The deck of these photos prints its indexes plainly, as the official cards do: the photos test what the app
    # does with a reading, while the camera's accuracy on every kind of design is measured in tests/vision.
    design = dataclasses.replace(
        random_design(rng, Split.TRAIN), corner_style="plain", glyph=PLAIN_GLYPH, border=(0, 0)
    )
    longest = max(len(g) for g in groups)
    frac = 0.36
    cw = card_width or min(0.16 * w, 0.8 * w / ((longest - 1) * frac + 1), 0.8 * h / (len(groups) * 1.75))
    scale = cw / CARD_W
    y = 0.08 * h
    truth: list[tuple[Card, tuple[float, float, float, float]]] = []
    for group in groups:
        x = 0.08 * w
        for card in group:
            face, (bx1, by1, bx2, by2) = render_card(card, design, rng)
            a = math.radians(rng.uniform(-1.5, 1.5))
            c, s = math.cos(a) * scale, math.sin(a) * scale
            m = np.float32([[c, -s, x], [s, c, y]])
            _paste(img, face, m)
            corners = np.float32([[bx1, by1, 1], [bx2, by1, 1], [bx2, by2, 1], [bx1, by2, 1]]) @ m.T
            truth.append((card, (*corners.min(0), *corners.max(0))))  # type: ignore[arg-type]
            x += frac * cw
        y += CARD_H * scale * 1.25
    ok, buf = cv2.imencode(".jpg", np.clip(img, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return buf.tobytes(), truth


def phase_photo(text: str, **kwargs: object) -> bytes:
    """Only the JPEG of :func:`phase_scene`."""
    return phase_scene(text, **kwargs)[0]  # type: ignore[arg-type]


def rotated_for_exif(jpeg: bytes) -> bytes:
    """The photo's pixels turned a quarter anticlockwise and tagged orientation 6, the way a phone held upright
    stores a picture: decoders that honour EXIF turn it back."""
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    turned = cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
    ok, buf = cv2.imencode(".jpg", turned, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return _with_orientation(buf.tobytes(), 6)


def known_reading(
    text: str,
    truth: list[tuple[Card, tuple[float, float, float, float]]],
    misread: dict[int, str],
    missed: tuple[int, ...] = (),
    size: tuple[int, int] = (1024, 768),
):
    """What a camera that reads ``truth`` perfectly would answer, except for the cards in ``misread`` (index ->
    the wrong card, at low confidence) and the ones it ``missed``: for testing the page's corrections
    independently of the model's accuracy."""
    from vision.reader import CardReading, PhotoReading

    cards, groups, start = [], [], 0
    for n in (len(g) for g in parse_groups(text)):
        row = []
        for i in range(start, start + n):
            if i in missed:
                continue
            card, box = truth[i]
            wrong = misread.get(i)
            read = CardReading(
                Card.parse(wrong) if wrong else card,
                0.41 if wrong else 0.97,
                tuple(round(v) for v in box),  # type: ignore[arg-type]
            )
            cards.append(read)
            row.append(read.card)
        groups.append(tuple(row))
        start += n
    return PhotoReading(
        tuple(cards), tuple(groups), size[0], size[1], {"decode": 1.0, "inference": 1.0, "post": 0.0}
    )
