"""The classifier's training jitter: a light-faced crop redrawn on a dark face (``vision.train.dark_face``).

Decks printed on black or navy put bright figures on a dark ground (issue 17: "Wild as a word, a letter, a star
or a joker ... on light or dark faces"). The redraw stands in for such decks when none is in the training data, so
what it draws must be one: the paper goes dark, a coloured ink keeps its hue and stays bright, black ink turns
light, and the figure's shape is where it was.
"""

from __future__ import annotations

import colorsys

import cv2
import numpy as np
import pytest

from companion.rules.cards import Color
from vision.crops import CROP
from vision.render import INKS
from vision.train import _augment, coloured_share, dark_face

PAPER = (236, 240, 242)  # BGR: a slightly warm white card


def _crop(ink_rgb: tuple[int, int, int]) -> np.ndarray:
    """A corner crop: paper, a coloured bar (the figure) and a thin black rule (a border line)."""
    img = np.full((CROP, CROP, 3), PAPER, np.uint8)
    img[8:30, 12:22] = ink_rgb[::-1]
    img[34:37, 4:36] = (20, 20, 20)
    return cv2.GaussianBlur(img, (3, 3), 0)


def _hue(bgr: np.ndarray) -> float:
    b, g, r = (float(v) / 255 for v in bgr)
    return colorsys.rgb_to_hsv(r, g, b)[0] * 360


def _lightness(bgr: np.ndarray) -> float:
    px = np.asarray(bgr, np.float32).reshape(1, 1, 3) / 255
    return float(cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0, 0])


@pytest.mark.parametrize("colour", [Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW], ids=lambda c: c.name)
def test_a_dark_face_keeps_the_inks_colour_and_darkens_the_paper(colour: Color) -> None:
    crop = _crop(INKS[colour])
    for seed in range(20):
        out = dark_face(crop, np.random.default_rng(seed))
        paper, figure, rule = out[20, 31], out[18, 17], out[35, 20]
        assert _lightness(paper) < 30, "the card stock becomes a dark ground"
        assert _lightness(figure) >= 45, "the figure is bright on it"
        turn = abs(_hue(figure) - _hue(crop[18, 17]))
        assert min(turn, 360 - turn) < 20, "the ink keeps its hue, so the card keeps its colour"
        assert _lightness(rule) > 60, "black ink turns light"


def test_the_jitter_redraws_about_its_share_of_crops_and_none_when_told_not_to() -> None:
    crops = np.repeat(_crop(INKS[Color.RED])[None], 400, 0)
    dark = lambda x: int((np.median(x.reshape(len(x), -1), 1) < 90).sum())  # noqa: E731
    assert 30 <= dark(_augment(crops, np.random.default_rng(1), 0.15)) <= 95
    assert dark(_augment(crops, np.random.default_rng(1), 0.0)) == 0


def test_white_figures_on_a_coloured_ground_are_not_redrawn() -> None:
    # A tabbed or colour-faced corner is mostly ink with a white figure in it; redrawn, its figure would turn into
    # the dark ground and its tab stay coloured, a card no deck prints (vision.train.DARK_FACE_MAX_COLOURED).
    img = np.full((CROP, CROP, 3), INKS[Color.GREEN][::-1], np.uint8)
    img[8:30, 12:22] = PAPER
    crops = np.repeat(img[None], 400, 0)
    every = _augment(crops, np.random.default_rng(1), 1.0)
    none = _augment(crops, np.random.default_rng(1), 0.0)
    assert np.array_equal(every, none), "asked to redraw every crop, the jitter redraws none of these"
    assert coloured_share(img) > 0.3 > coloured_share(_crop(INKS[Color.GREEN]))


def test_a_pale_ink_under_a_cool_light_comes_out_a_full_colour_on_the_dark_face() -> None:
    # A yellow printed pale, photographed under daylight on a bluish white: against the paper it is still yellow,
    # and a dark deck prints its yellow full. Left pale, the redraw would teach a near-white figure on black,
    # which the tabbed and colour-faced families teach to read by the colour around it.
    paper = (252, 236, 222)  # BGR: a cool, bluish white
    img = np.full((CROP, CROP, 3), paper, np.uint8)
    img[8:30, 12:22] = (195, 232, 242)  # BGR: a pale yellow, close to the paper
    img = cv2.GaussianBlur(img, (3, 3), 0)
    for seed in range(20):
        out = dark_face(img, np.random.default_rng(seed))
        b, g, r = (float(v) / 255 for v in out[18, 17])
        h, s, _v = colorsys.rgb_to_hsv(r, g, b)
        assert 35 <= h * 360 <= 75, "the figure is yellow"
        assert s >= 0.35, "and a full yellow, not a near-white (left as pale as printed, 0.2)"
