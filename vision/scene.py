"""Synthetic table photos with labels: laid-down groups fanned in rows, loose cards, a hand, other objects.

A scene is built on a flat *table plane* and then photographed through a random camera (a homography:
tilt, rotation, scale), lit (gradient, white balance, glare), shadowed, blurred, noised and JPEG-compressed.
Each card's label is its *index box*: the axis-aligned box, in image pixels, around the card's top-left corner
region (see ``vision.render``). A card lying upside down is drawn turned by 180°, so its visually upright index is
labelled and its upside-down one never is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.rules.cards import Card, Color
from vision.families import Family, family_design, family_number
from vision.recolour import recoloured
from vision.render import CARD_H, CARD_W, Design, Split, random_design, render_card

SYMBOLS: tuple[Card, ...] = (
    *(
        Card.number_card(n, c)
        for c in (Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW)
        for n in range(1, 13)
    ),
    Card.wild(),
    Card.skip(),
)

_Box = tuple[float, float, float, float]

# Faces of a real deck (``vision.teach``): per card, one or more RGBA faces (CARD_H x CARD_W x 4, the table
# transparent) each with its index box in card pixels, as ``render_card`` returns them.
TaughtFace = tuple[np.ndarray, tuple[int, int, int, int]]
FaceBook = Mapping[Card, Sequence[TaughtFace]]

TRAIN_TEXTURES = ("wood", "felt", "laminate", "weave")
HELDOUT_TEXTURES = ("marble", "checker")
# Printed tablecloths and oilcloths: bold colour edges all over the table, which the quiet training tables above
# never show. Asked for by ``bold_tables``; none is a grid, so the held-out checker cloth stays unseen.
BOLD_TEXTURES = ("stripes", "dots", "blotches")


@dataclass(slots=True)
class PlacedCard:
    card: Card
    box: tuple[float, float, float, float]  # index box, image pixels
    group: int  # index into Scene.groups
    visible: bool
    # The whole card's four corners, image pixels, in the order its face's corners are drawn.
    outline: np.ndarray

    def askew(self) -> float:
        """How far the card lies from level in the image, in degrees either way (its face's top edge; a card
        lying upside down folds onto upright)."""
        dx, dy = self.outline[1] - self.outline[0]
        return abs((math.degrees(math.atan2(float(dy), float(dx))) + 90) % 180 - 90)


@dataclass(slots=True)
class Scene:
    image: np.ndarray  # BGR uint8
    cards: list[PlacedCard]
    groups: list[list[Card]]  # ground truth, in table order (rows top to bottom, then loose cards)
    negatives: list[tuple[float, float, float, float]] = field(default_factory=list)


def _texture(kind: str, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A procedural table surface (BGR float32 0..255)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    low = cv2.resize(rng.normal(0, 1, (h // 32 + 2, w // 32 + 2)).astype(np.float32), (w, h))
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    if kind == "wood":
        base = np.array(rng.choice([[40, 80, 140], [30, 60, 100], [80, 130, 180], [20, 35, 60]]), np.float32)
        freq = rng.uniform(0.02, 0.08)
        ang = rng.uniform(-0.3, 0.3)
        u = xx * math.sin(ang) + yy * math.cos(ang)
        grain = np.sin(u * freq + low * rng.uniform(2, 6)) * 0.5 + 0.5
        streak = cv2.GaussianBlur(fine, (0, 0), sigmaX=8, sigmaY=0.7)
        v = 0.75 + 0.25 * grain + 0.6 * streak
        img = base[None, None, :] * v[..., None]
    elif kind == "felt":
        base = np.array(rng.choice([[40, 110, 30], [110, 60, 20], [40, 40, 130], [60, 60, 60]]), np.float32)
        v = 1 + 0.05 * fine + 0.08 * low
        img = base[None, None, :] * v[..., None]
    elif kind == "laminate":
        base = rng.uniform(60, 230, 3).astype(np.float32)
        v = 1 + 0.02 * fine + 0.04 * low
        img = base[None, None, :] * v[..., None]
    elif kind == "weave":
        base = rng.uniform(50, 200, 3).astype(np.float32)
        p = rng.uniform(3, 7)
        pattern = np.sin(xx * math.pi / p) * np.sin(yy * math.pi / p)
        v = 1 + 0.08 * pattern + 0.04 * fine + 0.06 * low
        img = base[None, None, :] * v[..., None]
    elif kind == "marble":
        base = rng.uniform(170, 235, 3).astype(np.float32)
        veins = np.abs(np.sin((xx + yy) * 0.01 + low * 3.0))
        v = 1 - 0.35 * (veins < 0.08) * (1 - veins / 0.08) + 0.02 * fine
        img = base[None, None, :] * v[..., None]
    elif kind == "stripes":
        a, b = rng.uniform(30, 230, 3), rng.uniform(30, 230, 3)
        period, duty, ang = rng.uniform(20, 90), rng.uniform(0.3, 0.7), rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang) + 4 * low
        m = ((u / period) % 1.0 < duty)[..., None]
        img = (a * m + b * (1 - m)).astype(np.float32) * (1 + 0.03 * fine[..., None])
    elif kind == "dots":
        a, b = rng.uniform(30, 230, 3), rng.uniform(30, 230, 3)
        pitch = rng.uniform(30, 90)
        r = pitch * rng.uniform(0.15, 0.4)
        # Staggered rows of dots, as polka-dot cloth is printed.
        dy = (yy % pitch) - pitch / 2
        dx = ((xx + (yy // pitch % 2) * pitch / 2) % pitch) - pitch / 2
        m = (dx * dx + dy * dy < r * r)[..., None]
        img = (a * m + b * (1 - m)).astype(np.float32) * (1 + 0.03 * fine[..., None])
    elif kind == "blotches":
        inks = rng.uniform(30, 230, (3, 3))
        cell = int(rng.integers(40, 120))
        field = cv2.resize(rng.normal(0, 1, (h // cell + 2, w // cell + 2)).astype(np.float32), (w, h))
        level = np.digitize(field, [-0.4, 0.4])
        img = inks[level].astype(np.float32) * (1 + 0.03 * fine[..., None])
    else:  # checker tablecloth
        a, b = rng.uniform(30, 230, 3), rng.uniform(30, 230, 3)
        s = rng.uniform(25, 70)
        m = ((xx // s + yy // s) % 2)[..., None]
        img = (a * m + b * (1 - m)).astype(np.float32) * (1 + 0.03 * fine[..., None])
    return np.asarray(np.clip(img, 0, 255), np.float32)


def _camera(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """Homography from the table plane to the photo: tilt (top edge farther away), rotation, jitter."""
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    tilt = rng.uniform(0, 0.16)
    dst = src.copy()
    dst[0, 0] += tilt * w
    dst[1, 0] -= tilt * w
    dst[0, 1] += tilt * h * 0.4
    dst[1, 1] += tilt * h * 0.4
    dst += rng.normal(0, 0.02, (4, 2)).astype(np.float32) * np.array([w, h], np.float32)
    hmat = cv2.getPerspectiveTransform(src, dst)
    ang = rng.uniform(-9, 9)
    scale = rng.uniform(0.92, 1.05)
    rot = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), ang, scale), [0, 0, 1]])
    return np.asarray(rot @ hmat, np.float64)


def _affine(x: float, y: float, angle_deg: float, scale: float) -> np.ndarray:
    """Card pixels -> table plane: scale, rotate about the card's top-left, then move to (x, y)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a) * scale, math.sin(a) * scale
    return np.array([[c, -s, x], [s, c, y], [0, 0, 1]], dtype=np.float64)


def _project(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ m.T
    return np.asarray(p[:, :2] / p[:, 2:3], np.float64)


def _paste(dst: np.ndarray, rgba: np.ndarray, m: np.ndarray, shadow: float = 0.0) -> np.ndarray:
    """Warp ``rgba`` into ``dst`` (float32 BGR) through ``m``; returns the quad in image pixels."""
    h, w = rgba.shape[:2]
    quad = _project(m, np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))
    x0, y0 = np.floor(quad.min(0)).astype(int) - 8
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 8
    H, W = dst.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return quad
    t = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64) @ m
    # Downscaling by a large factor aliases; pre-blur the face roughly to the output scale.
    scale = math.sqrt(abs(np.linalg.det(m[:2, :2]))) if m[2, 0] == 0 and m[2, 1] == 0 else 0.5
    src = rgba
    if scale < 0.6:
        src = cv2.GaussianBlur(rgba, (0, 0), 0.45 / max(scale, 0.1))
    warped = cv2.warpPerspective(src, t, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3:4].astype(np.float32) / 255.0
    roi = dst[y0:y1, x0:x1]
    if shadow > 0:
        sh = cv2.GaussianBlur(alpha[..., 0], (0, 0), 3 + 4 * shadow)
        sh = np.roll(sh, (int(2 + 4 * shadow), int(2 + 4 * shadow)), axis=(0, 1))
        roi *= 1 - 0.45 * shadow * sh[..., None]
    roi[:] = roi * (1 - alpha) + warped[..., 2::-1].astype(np.float32) * alpha
    return quad


def _distractor(kind: str, rng: np.random.Generator) -> tuple[np.ndarray, list[_Box]]:
    """An RGBA object that is not a card: a coin, a pen, a die, or a score pad with written digits; with the
    boxes of the pad's numbers (in the object's pixels), which a classifier must learn are not card indexes."""
    if kind != "pad":
        return _object(kind, rng), []
    w, h = int(rng.integers(140, 260)), int(rng.integers(180, 320))
    img = np.zeros((h, w, 4), np.uint8)
    img[:] = (250, 250, 235, 255) if rng.random() < 0.5 else (150, 240, 250, 255)
    ink = (int(rng.integers(0, 120)), 30, int(rng.integers(0, 160)), 255)
    y = 20
    font = int(
        rng.choice([cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN])
    )
    numbers: list[_Box] = []
    while y < h - 10:
        words = [str(int(rng.integers(0, 120))) for _ in range(int(rng.integers(1, 4)))]
        scale = rng.uniform(0.6, 1.2)
        cv2.putText(img, " ".join(words), (8, y), font, scale, ink, 2, cv2.LINE_AA)
        # Hershey advances add up, so each number's place is the width of the text before it.
        for i, word in enumerate(words):
            x0 = 8 + (cv2.getTextSize(" ".join(words[:i]) + " ", font, scale, 2)[0][0] if i else 0)
            (tw, th), base = cv2.getTextSize(word, font, scale, 2)
            numbers.append((float(x0 - 2), float(y - th - 3), float(x0 + tw + 2), float(y + base)))
        y += int(rng.integers(22, 36))
    return img, numbers


def _object(kind: str, rng: np.random.Generator) -> np.ndarray:
    if kind == "coin":
        r = int(rng.integers(20, 45))
        img = np.zeros((2 * r, 2 * r, 4), np.uint8)
        col = rng.choice([[200, 160, 60], [180, 180, 180], [170, 110, 60]])
        cv2.circle(img, (r, r), r - 1, (*map(int, col), 255), -1, cv2.LINE_AA)
        cv2.circle(img, (r, r), int(r * 0.8), (*map(int, np.array(col) * 0.8), 255), 2, cv2.LINE_AA)
        return img
    if kind == "pen":
        length, thick = int(rng.integers(150, 320)), int(rng.integers(10, 18))
        img = np.zeros((thick, length, 4), np.uint8)
        col = rng.integers(0, 255, 3)
        img[:] = (*map(int, col), 255)
        img[:, : length // 8] = (40, 40, 40, 255)
        return img
    if kind == "die":
        s = int(rng.integers(30, 55))
        img = np.zeros((s, s, 4), np.uint8)
        cv2.rectangle(img, (0, 0), (s - 1, s - 1), (240, 240, 240, 255), -1)
        for _ in range(int(rng.integers(1, 7))):
            cx, cy = rng.integers(s // 5, s - s // 5, 2)
            cv2.circle(img, (int(cx), int(cy)), max(2, s // 10), (20, 20, 20, 255), -1, cv2.LINE_AA)
        return img
    raise ValueError(f"unknown object {kind!r}")


class _Occupancy:
    """Rough free-space test on the table plane (axis-aligned boxes with a margin)."""

    def __init__(self) -> None:
        self.boxes: list[tuple[float, float, float, float]] = []

    def free(self, box: tuple[float, float, float, float], margin: float) -> bool:
        x0, y0, x1, y1 = box
        return all(
            x1 + margin < a or b + margin < x0 or y1 + margin < c or d + margin < y0
            for a, c, b, d in self.boxes
        )

    def add(self, box: tuple[float, float, float, float]) -> None:
        self.boxes.append(box)


def _card_box(m: np.ndarray) -> tuple[float, float, float, float]:
    q = _project(m, np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], dtype=np.float64))
    return _bounds(q)


def _designs(
    rng: np.random.Generator, split: Split, families: Sequence[Family] | None
) -> Callable[[], Design]:
    """A function that draws one deck design: of the original renderer, or of a random one of ``families``."""
    if families is None:
        return lambda: random_design(rng, split)
    pool = tuple(families)
    if not pool:
        raise ValueError("no design family to draw from")
    return lambda: family_design(rng, pool[int(rng.integers(len(pool)))], split)


def _one_design(design: Design) -> Callable[[], Design]:
    """A draw that always gives ``design``: every card of the scene from one deck."""
    return lambda: design


# Loose cards thrown on top of a scene's own where ``make_scene``'s ``loose`` asks: how many (a range, the end
# excluded) and how far each may turn. The usual draw turns a loose card at most 25 degrees, so cards lying
# further askew were rare in training, and the detector missed many of them (models/TRAINING-HISTORY.md, "Loose
# cards lying askew").
LOOSE_EXTRA, LOOSE_TILT = (2, 5), 45.0
# Lone cards laid nearly upright where ``make_scene``'s ``lone`` asks: how many (a range, the end excluded) and how
# far each may turn. A card lying alone was missed far more often than the same faces in a row, upright or not
# (models/TRAINING-HISTORY.md, "Where fully visible cards are lost"), and most scenes show none or one.
LONE_EXTRA, LONE_TILT = (3, 7), 10.0
HAND_RATE = 0.12  # how often a scene tries to show a hand held in a fan, unless ``hands`` says otherwise


# One planned card: the card, its card-to-table affine, its group's index and whether it lies upside down.
_Planned = tuple[Card, np.ndarray, int, bool]


@dataclass(slots=True)
class _Table:
    """What a scene has put on the table so far: planned cards, the groups they form, the space they take."""

    w: int
    h: int
    plan: list[_Planned] = field(default_factory=list)
    groups: list[list[Card]] = field(default_factory=list)
    occ: _Occupancy = field(default_factory=_Occupancy)

    def fits(self, box: _Box, margin: float) -> bool:
        return (
            box[0] > 0 and box[1] > 0 and box[2] < self.w and box[3] < self.h and self.occ.free(box, margin)
        )


def make_scene(
    seed: int,
    split: Split = Split.TRAIN,
    size: tuple[int, int] | None = None,
    *,
    hands: float | None = None,
    families: Sequence[Family] | None = None,
    deck: Design | None = None,
    faces: FaceBook | None = None,
    bold_tables: float | None = None,
    recolour: float | None = None,
    loose: float | None = None,
    lone: float | None = None,
) -> Scene:
    """Render scene number ``seed`` of a split; the same seed always gives the same scene.

    ``hands`` is the chance that the scene shows a hand held in a fan, placed wherever it fits (up to 20 tries);
    ``None`` keeps the original draw (``HAND_RATE``, one try), so the data sets rendered without it stay
    byte-identical. At one try, a hand fits on only 1–3 % of scenes.

    ``families`` draws the decks from those design families (``vision.families``), with fonts and tables from
    ``split``'s pools, on a seed stream of their own; ``None`` draws the original renderer's designs.

    ``deck`` draws every card of the scene from that one design (a group's own deck, as one printing looks);
    ``faces`` pastes the cards it holds from those faces instead (photos of a real deck, lightly jittered), the
    others drawn as before. Either puts the scene on a seed stream of its own; tables come from ``split``.

    ``bold_tables`` is the chance that a training or dev scene lies on a printed cloth (``BOLD_TEXTURES``);
    ``None`` keeps the original draw. Held-out scenes keep their own tables.

    ``recolour`` is the chance that a drawn light face is printed dark or on its own colour instead
    (``vision.recolour``); ``None`` draws nothing for it, so that scenes rendered without it stay byte-identical.

    ``loose`` is the chance that a training or dev scene also throws ``LOOSE_EXTRA`` loose cards turned up to
    ``LOOSE_TILT`` either way, as a card dropped on the table lies; ``None`` draws nothing for it. Held-out scenes
    keep their own draw.

    ``lone`` is the chance that a training or dev scene also lays ``LONE_EXTRA`` cards alone, each turned up to
    ``LONE_TILT`` either way, where they fit; ``None`` draws nothing for it. Held-out scenes keep their own draw.
    """
    if deck is not None and families is not None:
        raise ValueError("a scene draws its cards from one deck or from design families, not both")
    stream = [seed, {Split.TRAIN: 0, Split.HELDOUT: 1, Split.DEV: 2}[split]]
    if families is not None:
        stream += [3, *sorted(family_number(f) for f in families)]
    if deck is not None or faces is not None:
        stream += [4, int(deck is not None), int(faces is not None)]
    rng = np.random.default_rng(stream)
    if size is None:
        size = (1024, 768) if rng.random() < 0.7 else (768, 1024)
    w, h = size
    # Dev scenes test unseen faces only: they lie on the training tables.
    textures: tuple[str, ...] = HELDOUT_TEXTURES if split is Split.HELDOUT else TRAIN_TEXTURES
    if bold_tables is not None and split is not Split.HELDOUT and rng.random() < bold_tables:
        textures = BOLD_TEXTURES
    canvas = _texture(str(rng.choice(textures)), w, h, rng)
    cam = _camera(w, h, rng)
    canvas = cv2.warpPerspective(canvas, cam, (w, h), borderMode=cv2.BORDER_REFLECT)

    draw = _designs(rng, split, families) if deck is None else _one_design(deck)
    deck_design = draw()

    def design() -> Design:
        return deck_design if rng.random() < 0.8 else draw()

    table = _Table(w, h)
    cw, scale = _lay_rows(table, rng)
    _lay_loose_cards(table, rng, cw, scale)
    if loose is not None and split is not Split.HELDOUT and rng.random() < loose:
        _lay_loose_cards(table, rng, cw, scale, count=int(rng.integers(*LOOSE_EXTRA)), tilt=LOOSE_TILT)
    if lone is not None and split is not Split.HELDOUT and rng.random() < lone:
        _lay_loose_cards(table, rng, cw, scale, count=int(rng.integers(*LONE_EXTRA)), tilt=LONE_TILT)
    if rng.random() < (HAND_RATE if hands is None else hands):
        _lay_hand(table, rng, cw, scale, tries=1 if hands is None else 20)
    written = _lay_objects(canvas, cam, table, rng)
    cards_out, negatives = _lay_cards(canvas, cam, table.plan, design, rng, written, faces, recolour)
    img = _photometric(canvas, rng)
    return Scene(img, cards_out, table.groups, negatives)


def _lay_rows(table: _Table, rng: np.random.Generator) -> tuple[float, float]:
    """Plan 0-2 laid-down groups fanned in rows; returns the card width and the card-to-table scale."""
    w, h = table.w, table.h
    n_rows = int(rng.choice([0, 1, 2], p=[0.04, 0.4, 0.56]))
    row_sizes = [int(rng.integers(2, 13)) for _ in range(n_rows)]
    cw = rng.uniform(85, 170) * min(w, h) / 768
    frac = [rng.uniform(0.24, 0.5) for _ in row_sizes]
    widest = max(((n - 1) * f + 1 for n, f in zip(row_sizes, frac, strict=True)), default=1.0)
    cw = min(cw, 0.88 * w / widest)
    gap = rng.uniform(0.12, 0.7)
    if n_rows:
        cw = min(cw, 0.8 * h / (n_rows * 1.55 + (n_rows - 1) * gap))
    ch = cw * 1.55
    scale = cw / CARD_W
    y = rng.uniform(0.04 * h, max(0.05 * h, h - n_rows * ch - (n_rows - 1) * gap * ch - 0.04 * h))
    for n, f in zip(row_sizes, frac, strict=True):
        row_w = ((n - 1) * f + 1) * cw
        x = rng.uniform(0.04 * w, max(0.05 * w, w - row_w - 0.04 * w))
        ang = rng.uniform(-5, 5)
        g = len(table.groups)
        table.groups.append([])
        cards = [SYMBOLS[int(rng.integers(len(SYMBOLS)))] for _ in range(n)]
        for i, card in enumerate(cards):
            dx = i * f * cw + rng.normal(0, 0.02 * cw)
            cx = x + dx * math.cos(math.radians(ang))
            cy = y + dx * math.sin(math.radians(ang)) + rng.normal(0, 0.02 * ch)
            table.plan.append((card, _affine(cx, cy, ang + rng.normal(0, 1.5), scale), g, False))
            table.groups[g].append(card)
        table.occ.add(
            (x - 0.05 * cw, y - 0.1 * ch, x + row_w + 0.05 * cw, y + 1.1 * ch + abs(ang) / 60 * row_w)
        )
        y += ch * (1 + gap)
    return float(cw), float(scale)


def _lay_loose_cards(
    table: _Table,
    rng: np.random.Generator,
    cw: float,
    scale: float,
    *,
    count: int | None = None,
    tilt: float = 25.0,
) -> None:
    """Plan loose cards (``count``, or the usual draw), each its own group and turned up to ``tilt`` degrees
    either way; some lie upside down."""
    ch = cw * 1.55
    if count is None:
        count = int(rng.choice([0, 0, 0, 1, 2, 3]) if table.groups else rng.integers(2, 5))
    for _ in range(count):
        for _try in range(20):
            ang = rng.uniform(-tilt, tilt)
            x, y0 = rng.uniform(0, table.w - cw), rng.uniform(0, table.h - ch)
            m = _affine(x, y0, ang, scale)
            box = _card_box(m)
            if table.fits(box, 0.1 * cw):
                table.occ.add(box)
                card = SYMBOLS[int(rng.integers(len(SYMBOLS)))]
                table.plan.append((card, m, len(table.groups), bool(rng.random() < 0.3)))
                table.groups.append([card])
                break


def _lay_hand(table: _Table, rng: np.random.Generator, cw: float, scale: float, *, tries: int) -> None:
    """Plan a hand held in a fan: cards turned about a common pivot below them, where it fits."""
    ch = cw * 1.55
    n = int(rng.integers(3, 8))
    step = rng.uniform(7, 13)
    for _try in range(tries):
        px, py = rng.uniform(0.2 * table.w, 0.8 * table.w), rng.uniform(0.5 * table.h, 1.1 * table.h)
        hand: list[tuple[Card, np.ndarray]] = []
        for i in range(n):
            a = (i - (n - 1) / 2) * step
            # The card's bottom centre sits above the pivot; rotate the card about the pivot by ``a``.
            rot = _affine(px, py, a, 1.0) @ _affine(-cw / 2, -ch * 1.05, 0, scale)
            hand.append((SYMBOLS[int(rng.integers(len(SYMBOLS)))], rot))
        boxes = [_card_box(m) for _, m in hand]
        box = (
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        )
        if table.fits(box, 0.05 * cw):
            table.occ.add(box)
            g = len(table.groups)
            table.groups.append([c for c, _ in hand])
            table.plan.extend((c, m, g, False) for c, m in hand)
            return


def _lay_objects(canvas: np.ndarray, cam: np.ndarray, table: _Table, rng: np.random.Generator) -> list[_Box]:
    """Paste objects that are not cards under or beside the cards; returns the boxes of the numbers written on
    score pads, in photo pixels."""
    w, h = table.w, table.h
    written: list[_Box] = []
    for _ in range(int(rng.integers(0, 4))):
        obj, numbers = _distractor(str(rng.choice(["coin", "pen", "die", "pad"])), rng)
        oh, ow = obj.shape[:2]
        m = _affine(rng.uniform(-0.1 * w, w), rng.uniform(-0.1 * h, h), rng.uniform(0, 360), min(w, h) / 768)
        if rng.random() < 0.6:
            corners = _project(m, np.array([[0, 0], [ow, oh]], np.float64))
            if not table.occ.free(_bounds(corners), 0):
                continue
        _paste(canvas, obj, cam @ m, shadow=rng.uniform(0, 1))
        for x0, y0, x1, y1 in numbers:
            written.append(
                _bounds(_project(cam @ m, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)))
            )
    return written


def _bounds(points: np.ndarray) -> _Box:
    """The axis-aligned box around some points."""
    x0, y0 = points.min(0)
    x1, y1 = points.max(0)
    return (float(x0), float(y0), float(x1), float(y1))


def _lay_cards(
    canvas: np.ndarray,
    cam: np.ndarray,
    plan: list[tuple[Card, np.ndarray, int, bool]],
    design: Callable[[], Design],
    rng: np.random.Generator,
    written: Sequence[_Box] = (),
    faces: FaceBook | None = None,
    recolour: float | None = None,
) -> tuple[list[PlacedCard], list[_Box]]:
    """Paste the planned cards (card, plane affine, group, upside down) into ``canvas`` in order, each over the
    ones before it; returns every card with its index box and whether enough of the index shows, and the
    boxes a card's index must not be taken for (its upside-down corner, its centre figure, the upright copy of
    a four-corner index, and those of the ``written`` numbers on the table that no card covers). A card
    ``faces`` holds is pasted from one of its faces there, the others are rendered, and reprinted in another
    polarity at the chance ``recolour``."""
    h, w = canvas.shape[:2]
    owner = np.full((h, w), -1, np.int32)
    placed: list[tuple[Card, np.ndarray, int, np.ndarray]] = []
    owned: list[tuple[int, tuple[float, float, float, float]]] = []  # (the card it lies on, box)
    for idx, (card, m, g, upside_down) in enumerate(plan):
        taught = faces.get(card) if faces is not None else None
        four_corners = False
        if taught:
            face, ibox = _jittered(taught[int(rng.integers(len(taught)))], rng)
        else:
            drawn = design()
            four_corners = drawn.four_corners
            face, ibox = render_card(card, drawn, rng)
            if recolour is not None and rng.random() < recolour:
                face = recoloured(face, rng)
        if upside_down:
            face = np.ascontiguousarray(face[::-1, ::-1])
        full = cam @ m
        quad = _paste(canvas, face, full, shadow=rng.uniform(0.2, 1.0))
        cv2.fillPoly(owner, [np.round(quad).astype(np.int32)], idx)
        x1, y1, x2, y2 = ibox
        corner = _project(full, np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64))
        placed.append((card, corner, g, quad))
        # The opposite (upside-down) corner and the big centre figure are what the index must not be taken for.
        opp = _project(full, np.array([[CARD_W - x2, CARD_H - y2], [CARD_W - x1, CARD_H - y1]], np.float64))
        owned.append((idx, _bounds(opp)))
        cen = _project(
            full, np.array([[0.2 * CARD_W, 0.3 * CARD_H], [0.8 * CARD_W, 0.7 * CARD_H]], np.float64)
        )
        owned.append((idx, _bounds(cen)))
        if four_corners:
            # The index printed again, upright, in the top-right corner (vision.render): the same figure, but
            # with card and not the card's own corner beside it, so the classifier learns to leave it.
            copy = _project(full, np.array([[CARD_W - x2, y1], [CARD_W - x1, y2]], np.float64))
            owned.append((idx, _bounds(copy)))

    cards_out: list[PlacedCard] = []
    for idx, (card, corner, g, quad) in enumerate(placed):
        poly = np.round(corner).astype(np.int32)
        x0, y0 = poly.min(0)
        x1, y1 = poly.max(0)
        bx = (float(max(x0, 0)), float(max(y0, 0)), float(min(x1, w - 1)), float(min(y1, h - 1)))
        inside = (bx[2] - bx[0]) * (bx[3] - bx[1]) / max(1.0, float((x1 - x0) * (y1 - y0)))
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [poly], 1)
        area = int(mask.sum())
        seen = int(((owner == idx) & (mask == 1)).sum())
        visible = area > 0 and inside > 0.8 and seen / area > 0.6
        cards_out.append(PlacedCard(card, bx, g, visible, quad))
    negatives = [n for i, n in owned if _mostly_owned(owner, n, i) and n[2] > n[0] + 4 and n[3] > n[1] + 4]
    negatives += [
        n
        for n in written
        if n[0] >= 0 and n[1] >= 0 and n[2] < w and n[3] < h and _mostly_owned(owner, n, -1, 0.98)
    ]
    return cards_out, negatives


def _jittered(taught: TaughtFace, rng: np.random.Generator) -> TaughtFace:
    """A photographed face as another photo of the same card might show it: a little brighter or darker, its
    white balance moved a little, sometimes softer. The scene's camera adds its own light on top; this keeps
    the few photos a deck is taught from from being learnt pixel for pixel."""
    face, box = taught
    rgb = face[..., :3].astype(np.float32)
    gains = rng.normal(1.0, 0.04, 3) * rng.uniform(0.88, 1.08)
    mean = rgb.mean()
    rgb = (rgb - mean) * rng.uniform(0.9, 1.08) + mean
    rgb *= gains[None, None, :].astype(np.float32)
    if rng.random() < 0.35:
        rgb = cv2.GaussianBlur(rgb, (0, 0), rng.uniform(0.3, 1.0))
    out = face.copy()
    out[..., :3] = np.clip(rgb, 0, 255).astype(np.uint8)
    return out, box


VIGNETTE = 224  # side of a vignette, pixels


def make_vignette(seed: int, families: Sequence[Family] | None = None) -> Scene:
    """A small photo of one to four fanned cards, every card in a design of its own (training pools only).

    A full scene shows one deck design on most of its cards, so 2 000 scenes hold a few thousand designs; the
    classifier, which has to read faces it has never seen, gets many more from these cheap vignettes. They go
    through the same camera, light and JPEG as scenes, at the card sizes scenes have.
    """
    rng = np.random.default_rng(
        [seed, 2] if families is None else [seed, 2, 3, *sorted(family_number(f) for f in families)]
    )
    draw = _designs(rng, Split.TRAIN, families)
    w = h = VIGNETTE
    canvas = _texture(str(rng.choice(TRAIN_TEXTURES)), w, h, rng)
    cam = _camera(w, h, rng)
    canvas = cv2.warpPerspective(canvas, cam, (w, h), borderMode=cv2.BORDER_REFLECT)
    cw = rng.uniform(60, 140)
    n = int(rng.integers(1, 5))
    f = rng.uniform(0.24, 0.5)
    ang = rng.uniform(-10, 10)
    x, y = rng.uniform(0.04, 0.3) * w, rng.uniform(0.04, 0.3) * h
    plan: list[tuple[Card, np.ndarray, int, bool]] = []
    for i in range(n):
        dx = i * f * cw
        cx = x + dx * math.cos(math.radians(ang))
        cy = y + dx * math.sin(math.radians(ang)) + rng.normal(0, 0.02 * cw)
        card = SYMBOLS[int(rng.integers(len(SYMBOLS)))]
        plan.append((card, _affine(cx, cy, ang + rng.normal(0, 1.5), cw / CARD_W), 0, False))
    cards, negatives = _lay_cards(canvas, cam, plan, draw, rng)
    img = _photometric(canvas, rng)
    return Scene(img, cards, [[c for c, *_ in plan]], negatives)


TEACHING_SIZE = (2000, 1500)  # a teaching photo, pixels: a phone photo as the reader decodes it at half size


# How players may take a teaching photo, beyond the mild photo from straight above that ``make_teaching_photo``
# draws by default: what ``bench/bench_cutting.py`` measures the cutting on.
TEACHING_CONDITIONS = (
    "mild",
    "hand-held",
    "shadow",
    "dim-warm",
    "light-table",
    "held-out-table",
    "printed-cloth",
    "glare",
    "gingham",
    "hand-laid",
)


def make_teaching_photo(
    rows: Sequence[Sequence[Card]],
    design: Design,
    seed: int,
    *,
    size: tuple[int, int] = TEACHING_SIZE,
    spacing: float | None = None,
    conditions: str = "mild",
) -> Scene:
    """A photo for teaching the camera a deck: ``rows`` of cards of ``design`` laid side by side, face up and
    upright, on a table, photographed from above through a mild camera (slight tilt and turn, soft light, a
    phone's JPEG). ``spacing`` is the gap between neighbours as a share of a card's width (random when
    ``None``; 0 or less makes them touch or overlap). Each card is its own group, in reading order.

    ``conditions`` (one of ``TEACHING_CONDITIONS``) draws it as players also take such photos: "hand-held", the
    phone at a slant, so the far row is smaller than the near one, and turned a little; "shadow", a soft shadow
    over part of the table and cards; "glare", a lamp's reflection on them, clipped to white in its middle;
    "dim-warm", a dim warm bulb and a noisy exposure; "light-table", a plain table as light as the cards' paper;
    "held-out-table" and "printed-cloth", the held-out tables and the printed cloths of the scenes; "gingham", a
    checked kitchen tablecloth of one ink on a light ground, at times the cards' own white; "hand-laid", the cards
    laid by hand rather than squared up (``_hand_laid``). "mild" is the default photo, drawn as it always was."""
    if conditions not in TEACHING_CONDITIONS:
        raise ValueError(f"unknown teaching photo conditions {conditions!r}")
    rng = np.random.default_rng([seed, 5])
    # What the conditions draw comes from a generator of its own, so each mild photo stays as it was.
    extra = np.random.default_rng([seed, 6])
    w, h = size
    textures = {"held-out-table": HELDOUT_TEXTURES, "printed-cloth": BOLD_TEXTURES}.get(
        conditions, TRAIN_TEXTURES
    )
    canvas = _texture(str(rng.choice(textures)), w, h, rng)
    if conditions == "gingham":
        # Drawn over the table above rather than instead of it: that table's draws keep the cards where the
        # mild photo lays them.
        canvas = _gingham(w, h, extra)
    elif conditions == "light-table":
        # The table's grain or weave brightened to near the cards' paper: the cards stand out by their rims,
        # shadows and print, hardly by their paper.
        canvas = canvas / max(float(canvas.mean()), 1.0) * float(extra.uniform(205, 245))
        canvas = np.clip(canvas * (1 + extra.normal(0, 0.02, 3)).astype(np.float32), 0, 255)
    cam = _hand_held_camera(w, h, extra) if conditions == "hand-held" else _mild_camera(w, h, rng)
    canvas = cv2.warpPerspective(canvas, cam, (w, h), borderMode=cv2.BORDER_REFLECT)
    gap = float(rng.uniform(0.12, 0.3)) if spacing is None else spacing
    across = max((len(r) for r in rows), default=1)
    cw = min(0.86 * w / (across + (across - 1) * gap), 0.86 * h / (len(rows) * 1.55 + (len(rows) - 1) * 0.15))
    ch = cw * 1.55
    row_gap = float(rng.uniform(0.08, 0.2)) * ch
    top = (h - len(rows) * ch - (len(rows) - 1) * row_gap) / 2
    plan: list[_Planned] = []
    groups: list[list[Card]] = []
    for r, row in enumerate(rows):
        left = (w - len(row) * cw - (len(row) - 1) * gap * cw) / 2
        for i, card in enumerate(row):
            x = left + i * cw * (1 + gap) + rng.normal(0, 0.01 * cw)
            y = top + r * (ch + row_gap) + rng.normal(0, 0.015 * ch)
            plan.append((card, _affine(x, y, rng.normal(0, 0.6), cw / CARD_W), len(groups), False))
            groups.append([card])
    if conditions == "hand-laid":
        # In place of the squared-up layout, whose draws are still made: the table, light and JPEG after them
        # stay the mild photo's.
        plan = _hand_laid(rows, w, h, extra)
    cards, negatives = _lay_cards(canvas, cam, plan, lambda: design, rng)
    glare = None
    if conditions == "shadow":
        canvas = _cast_shadow(canvas, extra)
    elif conditions == "glare":
        glare = _lamp_glare(w, h, extra)
    elif conditions == "dim-warm":
        warm = extra.uniform(0.1, 0.2)
        canvas = canvas * float(extra.uniform(0.55, 0.8)) * np.array([1 - warm, 1, 1 + warm], np.float32)
        canvas = canvas + extra.normal(0, extra.uniform(3, 7), canvas.shape).astype(np.float32)
        canvas = np.clip(canvas, 0, 255)
    return Scene(_mild_photometric(canvas, rng, glare), cards, groups, negatives)


def _hand_laid(rows: Sequence[Sequence[Card]], w: int, h: int, rng: np.random.Generator) -> list[_Planned]:
    """Cards laid by hand rather than squared up: each turned by a few degrees (up to 7), the gaps between
    neighbours uneven (from a twentieth of a card's width to a third, never touching), each card a little lower or
    higher in its row, the rows' left ends not lined up, the whole fitted into the photo as the mild layout is."""
    placed: list[tuple[Card, float, float, float]] = []  # card, x and y of its top-left in card widths, angle
    corners = np.array([[0, 0], [1, 0], [1, CARD_H / CARD_W], [0, CARD_H / CARD_W]])
    bottom = 0.0
    for row in rows:
        angles = np.clip(rng.normal(0, 3.0, len(row)), -7, 7)
        spans = [(t.min(0), t.max(0)) for t in (_turned(corners, a) for a in angles.tolist())]
        top = bottom + (float(rng.uniform(0.1, 0.3)) if placed else 0.0)
        right = float(rng.uniform(-0.4, 0.4))
        row_bottom = top
        for card, a, (lo, hi) in zip(row, angles.tolist(), spans, strict=True):
            x = right + float(rng.uniform(0.05, 0.33)) - lo[0]
            y = top + float(rng.uniform(0, 0.08)) - lo[1]
            placed.append((card, x, y, a))
            right = x + hi[0]
            row_bottom = max(row_bottom, y + hi[1])
        bottom = row_bottom
    pts = np.concatenate([_turned(corners, a) + np.array([x, y]) for _, x, y, a in placed])
    (x_lo, y_lo), (x_hi, y_hi) = pts.min(0), pts.max(0)
    cw = min(0.86 * w / (x_hi - x_lo), 0.86 * h / (y_hi - y_lo))
    x0 = (w - (x_hi - x_lo) * cw) / 2 - x_lo * cw
    y0 = (h - (y_hi - y_lo) * cw) / 2 - y_lo * cw
    return [
        (card, _affine(x0 + x * cw, y0 + y * cw, a, cw / CARD_W), i, False)
        for i, (card, x, y, a) in enumerate(placed)
    ]


def _turned(points: np.ndarray, angle_deg: float) -> np.ndarray:
    """``points`` (n x 2) turned about the origin as ``_affine`` turns a card about its top-left."""
    t = math.radians(angle_deg)
    return np.asarray(
        points @ np.array([[math.cos(t), math.sin(t)], [-math.sin(t), math.cos(t)]]), np.float64
    )


# Gingham inks (BGR): red, blue, navy, green, black, orange.
_GINGHAM_INKS = ((40, 40, 190), (170, 90, 30), (90, 40, 20), (60, 130, 40), (35, 35, 35), (30, 120, 230))


def _gingham(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A gingham tablecloth (BGR float32 0..255): bands of one ink across and down a light ground, half the ink
    where one band lies and all of it where two cross, woven. Its ground runs from a cream to a bright white,
    as the cards' paper does, so at times it is their white."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ground = np.float32(rng.uniform(215, 250)) * (1 - np.array([rng.uniform(0, 0.12), 0.02, 0], np.float32))
    ink = np.asarray(_GINGHAM_INKS[int(rng.integers(len(_GINGHAM_INKS)))], np.float32) * np.float32(
        rng.uniform(0.85, 1.15)
    )
    pitch = float(rng.uniform(0.025, 0.08)) * w
    across = ((xx / pitch) % 1.0 < 0.5).astype(np.float32)
    down = ((yy / pitch) % 1.0 < 0.5).astype(np.float32)
    share = ((across + down) / 2)[..., None]
    weave = (
        1 + 0.03 * np.sin(xx * math.pi / 2.5) * np.sin(yy * math.pi / 2.5) + 0.02 * rng.normal(0, 1, (h, w))
    )
    img = (ground * (1 - share) + ink * share) * weave.astype(np.float32)[..., None]
    return np.asarray(np.clip(img, 0, 255), np.float32)


def _hand_held_camera(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A photo taken with the phone at a slant: the far side 12-28 % narrower than the near one, and turned by
    up to 8 degrees."""
    return _slanted_camera(w, h, rng, (0.06, 0.14), 0.01, 8.0)


def _cast_shadow(canvas: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A soft shadow (the photographer's, a lamp's) darkening a random part of the photo by 35-60 %."""
    h, w = canvas.shape[:2]
    m = np.zeros((h, w), np.float32)
    centre = (int(rng.uniform(0.2, 0.8) * w), int(rng.uniform(0.2, 0.8) * h))
    axes = (int(rng.uniform(0.2, 0.45) * w), int(rng.uniform(0.25, 0.6) * h))
    cv2.ellipse(m, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    soft = cv2.GaussianBlur(m, (0, 0), float(rng.uniform(8, 40)))
    return np.asarray(canvas * (1 - float(rng.uniform(0.35, 0.6)) * soft)[..., None], np.float32)


def _lamp_glare(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A lamp's reflection on a glossy table or glossy cards, as light added to what the camera sees: a bright
    spot (its radius 3-8 % of the photo's long side), whose middle the camera clips to white and whose edge
    fades into the table and cards around it."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
    r = float(rng.uniform(0.03, 0.08)) * max(w, h)
    spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
    return np.asarray(float(rng.uniform(150, 300)) * spot, np.float32)


def _mild_camera(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A photo taken from nearly straight above: a little tilt, a few degrees of turn."""
    return _slanted_camera(w, h, rng, (0.0, 0.05), 0.005, 3.0)


def _slanted_camera(
    w: int, h: int, rng: np.random.Generator, tilt: tuple[float, float], shake: float, turn: float
) -> np.ndarray:
    """The table plane to the photo: the far side narrower by ``tilt`` (a range, a share of the width on each
    side), each corner off by ``shake`` of the photo's size, turned by up to ``turn`` degrees."""
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    slant = rng.uniform(*tilt)
    dst = src.copy()
    dst[0, 0] += slant * w
    dst[1, 0] -= slant * w
    dst += rng.normal(0, shake, (4, 2)).astype(np.float32) * np.array([w, h], np.float32)
    rot = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-turn, turn), 1.0), [0, 0, 1]])
    return np.asarray(rot @ cv2.getPerspectiveTransform(src, dst), np.float64)


def _mild_photometric(
    canvas: np.ndarray, rng: np.random.Generator, glare: np.ndarray | None = None
) -> np.ndarray:
    """Room light and a phone camera held still: a soft gradient, a little white balance, noise, a good JPEG.
    ``glare`` (per pixel) is light reflected straight into the lens, added after the white balance, so that the
    camera clips it to white as a phone does."""
    h, w = canvas.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    ramp = (xx * math.cos(ang) + yy * math.sin(ang)) / max(w, h)
    light = rng.uniform(0.85, 1.05) + rng.uniform(0, 0.12) * ramp
    warm = rng.uniform(-0.06, 0.06)
    gains = np.array([1 - warm, 1 + rng.normal(0, 0.015), 1 + warm], np.float32)
    img = canvas * light[..., None] * gains[None, None, :]
    if glare is not None:
        img = img + glare[..., None]
    img += rng.normal(0, rng.uniform(0.5, 3), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(80, 93))])
    assert ok
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


def _mostly_owned(owner: np.ndarray, box: _Box, idx: int, share: float = 0.6) -> bool:
    x0, y0, x1, y1 = (round(v) for v in box)
    h, w = owner.shape
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return False
    return float((owner[y0:y1, x0:x1] == idx).mean()) > share


def _photometric(canvas: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Room light and a phone camera: gradient, white balance, glare, blur, noise, JPEG."""
    h, w = canvas.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    ramp = (xx * math.cos(ang) + yy * math.sin(ang)) / max(w, h)
    light = rng.uniform(0.65, 1.1) + rng.uniform(0, 0.35) * ramp
    img = canvas * light[..., None]
    # White balance: warm bulbs, cool daylight (BGR gains).
    warm = rng.uniform(-0.22, 0.22)
    gains = np.array([1 - warm, 1 + rng.normal(0, 0.04), 1 + warm], np.float32) * rng.uniform(0.85, 1.15)
    img *= gains[None, None, :]
    if rng.random() < 0.35:
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.05, 0.25) * max(w, h)
        glare = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        img += rng.uniform(40, 140) * glare[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    r = rng.random()
    if r < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.6))
    elif r < 0.4:
        k = int(rng.integers(3, 8))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = np.asarray(cv2.warpAffine(kernel, rot, (k, k)), np.float32)
        img = cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))
    noise = rng.uniform(0, 7)
    if noise > 1:
        img = np.clip(img.astype(np.float32) + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 96))])
    assert ok
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


def draw_labels(scene: Scene) -> np.ndarray:
    """The scene with every labelled index box and its card drawn (for eyeballing labels)."""
    img = scene.image.copy()
    for pc in scene.cards:
        col = (0, 255, 0) if pc.visible else (0, 0, 255)
        x0, y0, x1, y1 = (round(v) for v in pc.box)
        cv2.rectangle(img, (x0, y0), (x1, y1), col, 1)
        cv2.putText(
            img, f"{pc.card}/{pc.group}", (x0, max(10, y0 - 2)), cv2.FONT_HERSHEY_SIMPLEX, 0.4, col, 1
        )
    for n in scene.negatives:
        x0, y0, x1, y1 = (round(v) for v in n)
        cv2.rectangle(img, (x0, y0), (x1, y1), (255, 0, 0), 1)
    return img


def yolo_lines(scene: Scene) -> list[str]:
    """YOLO label lines (class 0 = a card's upright top-left index) for the visible cards."""
    h, w = scene.image.shape[:2]
    out = []
    for pc in scene.cards:
        if not pc.visible:
            continue
        x0, y0, x1, y1 = pc.box
        out.append(
            f"0 {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"
        )
    return out
