"""Faces reprinted in another polarity (``vision.recolour``) for the detector's training scenes.

A reprinted face must still show its index where its label says (the strokes stand out from the ground, now
light on dark or white on colour), must leave alone the faces it cannot turn round honestly (a light figure on a
coloured tab, a face already dark), and must not change any scene rendered without it.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from companion.rules.cards import Card, parse_cards
from vision.recolour import recoloured
from vision.render import Split, random_design, render_card
from vision.scene import make_scene

CARDS = parse_cards("R1 B6 G9 Y10 R12 B11 G7 Y3 W S")


def _luma(rgb: np.ndarray) -> np.ndarray:
    return rgb[..., :3].astype(np.float32) @ np.float32([0.299, 0.587, 0.114])


Reprint = tuple[Card, np.ndarray, np.ndarray, tuple[int, int, int, int]]


@functools.cache
def _changed_faces(n: int, seed: int) -> list[Reprint]:
    """The faces among ``n`` drawn ones that ``recoloured`` changed: (card, before, after, index box)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        card = CARDS[i % len(CARDS)]
        face, box = render_card(card, random_design(rng, Split.TRAIN), rng)
        new = recoloured(face, rng)
        if not np.array_equal(new, face):
            out.append((card, face, new, box))
    return out


def test_a_reprinted_face_turns_its_ground_dark_or_coloured_and_keeps_its_shape() -> None:
    """Where the face was plain paper (a strip down its left side, further in than any rim and clear of the
    centre figure) it is now dark or strongly coloured; the alpha (the card's outline) is untouched; both kinds of
    reprint occur."""
    faces = _changed_faces(60, 3)
    assert len(faces) >= 15
    kinds = []
    for _card, old, new, _box in faces:
        assert np.array_equal(old[..., 3], new[..., 3])
        h = old.shape[0]
        strip = (slice(int(0.4 * h), int(0.6 * h)), slice(16, 30))
        before = np.median(old[strip][..., :3].reshape(-1, 3).astype(np.float32), 0)
        if before.min() < 200 or before.max() - before.min() > 20:
            continue  # not plain paper there in this design (a sidebar, a border, a tinted stock)
        after = np.median(new[strip][..., :3].reshape(-1, 3).astype(np.float32), 0)
        assert after.max() < 110 or after.max() - after.min() > 40, after
        kinds.append("dark" if after.max() < 110 else "colour")
    assert len(kinds) >= 10 and set(kinds) == {"dark", "colour"}


def test_a_reprinted_index_still_stands_out_inside_its_label() -> None:
    """Inside the index box the strokes differ from the ground by as much as a reader needs; the box is the one
    the renderer labelled, so the labels still agree with the pixels."""
    for _card, _old, new, (x1, y1, x2, y2) in _changed_faces(60, 3):
        patch = _luma(new[y1:y2, x1:x2])
        assert np.percentile(patch, 95) - np.percentile(patch, 5) > 60


@pytest.mark.parametrize("seed", [0, 1])
def test_faces_it_cannot_turn_round_are_left_as_they_are(seed: int) -> None:
    """A face mostly in colour (a figure on a filled circle, a tab) or already dark (a Wild or Skip printed on
    black) would come out as a dark figure on colour, which no deck prints: it comes back unchanged."""
    rng = np.random.default_rng(seed)
    face = np.zeros((40, 30, 4), np.uint8)
    face[..., 3] = 255
    face[..., :3] = (200, 30, 40)  # a red face
    face[10:20, 5:15, :3] = 255  # a white figure
    assert np.array_equal(recoloured(face, rng), face)
    face[..., :3] = 20  # a black face
    face[10:20, 5:15, :3] = 240
    assert np.array_equal(recoloured(face, rng), face)


def test_scenes_without_recolouring_stay_as_they_were() -> None:
    """``recolour=None`` draws nothing for it, so data sets rendered before it existed render the same; a chance
    of 1 changes the picture."""
    plain = make_scene(123, Split.TRAIN, size=(320, 240))
    again = make_scene(123, Split.TRAIN, size=(320, 240), recolour=None)
    assert np.array_equal(plain.image, again.image)
    changed = make_scene(123, Split.TRAIN, size=(320, 240), recolour=1.0)
    assert not np.array_equal(plain.image, changed.image)


def test_a_plain_light_card_can_be_reprinted_dark() -> None:
    """A coloured figure on white paper, the commonest print: within a few draws it comes out bright on dark,
    its ink keeping its hue (a red figure stays redder than it is green or blue)."""
    face = np.full((120, 80, 4), 245, np.uint8)
    face[40:80, 25:55, :3] = (200, 30, 40)
    seen_dark = False
    for seed in range(10):
        new = recoloured(face, np.random.default_rng(seed))
        ground = new[20:30, 30:50, :3].reshape(-1, 3).mean(0)  # further in than any rim
        if ground.max() < 90:
            seen_dark = True
            r, g, b = new[60, 40, :3].astype(int)
            assert r > g + 40 and r > b + 40 and r > 120
    assert seen_dark
