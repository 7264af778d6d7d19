"""Design families: the kinds of deck that printers make, each drawn in many variants.

The original renderer draws one family (coloured figures on white card). Printed Phase 10 decks differ far more:
white figures on coloured corner tabs, whole faces in the card's colour, black faces, colour-blind symbols and
indexes in all four corners, cream paper with a visible dot screen; Wilds as a word, a letter, a star or a jester's
hat, in any of the four colours or black; Skips as a word, a letter or a struck-through circle. A family is a
recognisable *layout*; the inks (blue printed violet or teal, yellow orange or ochre, ...) vary in every family,
because the same layout is printed by different presses.

Families are what generality is measured on: a model trained without one of them is tested on scenes of that
family only (``bench/bench_families.py``), with the held-out fonts and tables, so that the figure is what a deck
nobody drew for the project would get.
"""

from __future__ import annotations

import colorsys
import dataclasses
import enum

import numpy as np

from companion.rules.cards import Color
from vision.render import (
    CARD_H,
    CARD_W,
    INKS,
    RGB,
    Design,
    Split,
    random_design,
)


class Family(enum.Enum):
    CLASSIC = "classic"  # coloured figures on white card, the index bare, ruled, underlined or hollow
    TABBED = "tabbed"  # white figures on a coloured tab, band, box, triangle or full corner
    COLOUR_FACE = "colour-face"  # the whole face in the card's colour, figures in white
    DARK = "dark"  # black, navy or charcoal faces, bright figures
    ACCESSIBLE = (
        "accessible"  # colour-blind shapes under the index, indexes in all four corners, bold figures
    )
    PRINTED = "printed"  # cream paper, a dot screen or scan grain, muted inks, medallions and emblems
    TINTED = "tinted"  # a pale wash of the card's colour over the face, figures in a deeper shade of it
    ILLUSTRATED = "illustrated"  # a picture in many colours in the middle, the figure on a badge before it


# The families training draws. The others are drawn only to be read: no model of the project has seen one, so
# the shipped models' figure on them is what a deck of a kind nobody trained on gets, without training models
# that leave a family out.
FAMILIES: tuple[Family, ...] = (
    Family.CLASSIC,
    Family.TABBED,
    Family.COLOUR_FACE,
    Family.DARK,
    Family.ACCESSIBLE,
    Family.PRINTED,
)
UNSEEN_FAMILIES: tuple[Family, ...] = tuple(f for f in Family if f not in FAMILIES)


def family_number(family: Family) -> int:
    """The family's place in ``Family``, which random streams are seeded by: a family added later comes last, so
    every earlier family's scenes stay the same pictures."""
    return list(Family).index(family)


# Corner styles per family. Circle and boxed stay out: they are the held-out set's own corner styles.
_CORNERS: dict[Family, tuple[str, ...]] = {
    Family.CLASSIC: ("plain", "plain", "underlined", "sidebar", "pip", "outline", "ruled"),
    Family.TABBED: ("patch", "tab", "diamond", "band", "block", "corner", "triangle"),
    Family.COLOUR_FACE: ("plain", "plain", "underlined", "patch", "block", "outline"),
    Family.DARK: ("plain", "plain", "underlined", "pip", "patch", "ruled"),
    Family.ACCESSIBLE: ("plain", "underlined", "patch", "block", "ruled"),
    Family.PRINTED: ("plain", "ruled", "outline", "tab", "underlined"),
    Family.TINTED: ("plain", "plain", "underlined", "outline", "ruled", "patch", "pip"),
    Family.ILLUSTRATED: ("plain", "plain", "underlined", "ruled", "pip", "patch", "tab"),
}
_CENTRES: dict[Family, tuple[str, ...]] = {
    Family.CLASSIC: ("plain", "plain", "oval", "shadow", "word"),
    Family.TABBED: ("plain", "oval", "medallion", "logo"),
    Family.COLOUR_FACE: ("plain", "plain", "medallion", "word"),
    Family.DARK: ("plain", "shadow", "medallion", "logo"),
    Family.ACCESSIBLE: ("plain", "plain", "word"),
    Family.PRINTED: ("medallion", "logo", "word", "plain"),
    Family.TINTED: ("plain", "plain", "oval", "shadow", "word"),
    Family.ILLUSTRATED: ("picture",),
}
_WILD_MARKS = ("word", "letter", "star", "joker")
_SKIP_MARKS = ("word", "letter", "symbol")

# Hue (degrees), saturation and value ranges each printed colour is found in. They do not overlap in hue, so a
# reader can still tell the four apart; within a deck the four keep their order around the colour wheel.
_INK_RANGES: dict[str, tuple[tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    "red": ((-14, 12), (0.7, 0.95), (0.7, 0.92)),
    "blue": ((195, 275), (0.6, 0.95), (0.45, 0.85)),  # teal to violet
    "green": ((80, 160), (0.6, 0.95), (0.4, 0.8)),  # lime to dark green
    "yellow": ((33, 54), (0.85, 1.0), (0.8, 1.0)),  # orange to lemon
}


def _hsv_ink(rng: np.random.Generator, colour: str, muted: float, bright: bool) -> RGB:
    (h0, h1), (s0, s1), (v0, v1) = _INK_RANGES[colour]
    if bright:  # on a dark face only light inks read
        v0, v1 = max(v0, 0.8), 1.0
    h = (float(rng.uniform(h0, h1)) % 360) / 360
    s = float(rng.uniform(s0, s1)) * muted
    v = float(rng.uniform(v0, v1))
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    return (int(r * 255), int(g * 255), int(b * 255))


def random_palette(
    rng: np.random.Generator, *, muted: float = 1.0, bright: bool = False
) -> tuple[RGB, RGB, RGB, RGB]:
    """A deck's four inks: red, blue, green and yellow as one press prints them."""
    return (
        _hsv_ink(rng, "red", muted, bright),
        _hsv_ink(rng, "blue", muted, bright),
        _hsv_ink(rng, "green", muted, bright),
        _hsv_ink(rng, "yellow", muted, bright),
    )


def _pick(rng: np.random.Generator, options: tuple[str, ...]) -> str:
    return str(options[int(rng.integers(len(options)))])


def family_design(rng: np.random.Generator, family: Family, split: Split = Split.TRAIN) -> Design:
    """A random design of ``family``; fonts and letterforms come from ``split``'s pool."""
    base = random_design(rng, split)
    r = rng.random(8)
    palette: tuple[RGB, RGB, RGB, RGB]
    if family is Family.PRINTED:
        palette = random_palette(rng, muted=float(rng.uniform(0.65, 0.9)))
    elif family is Family.DARK or r[0] < 0.6:
        palette = random_palette(rng, bright=family is Family.DARK)
    else:
        palette = (INKS[Color.RED], INKS[Color.BLUE], INKS[Color.GREEN], INKS[Color.YELLOW])
    design = dataclasses.replace(
        base,
        corner_style=_pick(rng, _CORNERS[family]),
        centre_style=_pick(rng, _CENTRES[family]),
        palette=palette,
        wild_mark=_pick(rng, _WILD_MARKS),
        skip_mark=_pick(rng, _SKIP_MARKS),
        special_ink="fixed" if r[1] < 0.25 else "deck",
        wild_black=bool(r[2] < 0.3),
        four_corners=bool(r[3] < 0.2),
    )
    if family is Family.COLOUR_FACE:
        tone = int(rng.uniform(238, 255))
        design = dataclasses.replace(
            design, face="colour", paper=(tone, tone, tone), face_margin=int(rng.integers(3, 15)), frame=0
        )
    elif family is Family.DARK:
        dark = ((18, 18, 22), (20, 26, 60), (40, 40, 44), (8, 8, 8))[int(rng.integers(4))]
        design = dataclasses.replace(
            design, face="dark", dark=dark, face_margin=int(rng.integers(3, 15)), frame=0, shade=1.0
        )
    elif family is Family.ACCESSIBLE:
        design = dataclasses.replace(
            design,
            colour_mark=True,
            four_corners=bool(r[4] < 0.7),
            glyph=dataclasses.replace(design.glyph, weight=max(design.glyph.weight, 0)),
        )
    elif family is Family.PRINTED:
        cream = (int(rng.uniform(236, 250)), int(rng.uniform(228, 242)), int(rng.uniform(200, 224)))
        design = dataclasses.replace(
            design,
            paper=cream,
            print_texture="halftone" if r[5] < 0.5 else "scan",
            wear=max(design.wear, float(rng.uniform(0.1, 0.5))),
        )
    elif family is Family.TINTED:
        design = dataclasses.replace(
            design,
            face="tint",
            tint=float(rng.uniform(0.15, 0.35)),
            face_margin=int(rng.integers(0, 10)),
            frame=0,
        )
    if design.four_corners and design.corner_style in ("sidebar", "tab", "band", "corner", "triangle"):
        # A copy of an edge-anchored shape would hang in mid-card: decks with four indexes print them bare, or
        # on a box that stands free of the edges.
        free = "plain" if design.corner_style == "sidebar" else "block"
        design = dataclasses.replace(design, corner_style=free)
    assert design.index_x * CARD_W < CARD_W / 2 and design.index_y * CARD_H < CARD_H / 3
    return design
