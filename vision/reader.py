"""Read a laid-down phase from a photo: the public entry point of the card camera.

>>> from vision.reader import read_photo, BadImageError            # doctest: +SKIP
>>> reading = read_photo("phase.jpg")                              # doctest: +SKIP
>>> [[str(c) for c in g] for g in reading.groups]                  # doctest: +SKIP
[['R7', 'B7', 'G7'], ['G3', 'Y4', 'R5', 'B6']]

``read_photo`` accepts bytes or a path, checks the file before decoding it (format, truncation, pixel count),
applies EXIF orientation, decodes JPEGs at reduced size, finds each card's index with the detector, names it with
the classifier, and groups the cards as they lie (``vision.layout``). Boxes are in the original photo's pixels
after EXIF rotation. Only numpy, OpenCV and onnxruntime are used.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.rules.cards import Card
from vision.crops import CLASS_CARDS, NONE_CLASS, Image
from vision.decode import DEFAULT_MAX_PIXELS, BadImageError, decode, read_bytes
from vision.detections import Box, Detections, box_iou, overlaps, shared_fraction
from vision.detector import card_classes, get_models, unturned_box
from vision.inference import Runtime
from vision.layout import gap_boxes, group_boxes

__all__ = [
    "BadImageError",
    "CardReading",
    "PhotoReading",
    "annotate",
    "draw_reading",
    "read_image",
    "read_photo",
]


@dataclass(frozen=True, slots=True)
class CardReading:
    card: Card
    confidence: float  # detector score x classifier probability
    box: tuple[int, int, int, int]  # x1, y1, x2, y2 of the card's index, original pixels after EXIF rotation

    def to_dict(self) -> dict[str, Any]:
        return {"card": str(self.card), "confidence": round(self.confidence, 3), "box": list(self.box)}


# Under this JPEG quality (PhotoReading.jpeg_quality) a photo counts as heavily compressed, and the referee's answers
# and the command line say its colours are to be checked: below it a taught deck with thin coloured indexes began to
# read blue and green for each other, above it hardly (models/MODEL_CARD.md, after "Eight decks taught with today's
# defaults"). The app's own pages send at 85.
LOW_JPEG_QUALITY = 65


@dataclass(frozen=True, slots=True)
class PhotoReading:
    cards: tuple[CardReading, ...]  # in table order (group by group)
    groups: tuple[tuple[Card, ...], ...]
    width: int
    height: int
    # milliseconds: decode, inference (= detector + classifier), post, total
    timings: dict[str, float] = field(default_factory=dict)
    # Degrees clockwise the photo was turned to read it: 180 when the cards lay upside down in it (photographed
    # from across the table), 90 or 270 when sideways (vision.detector.TURNS). Boxes stay in the photo's pixels.
    turned: int = 0
    # About the JPEG quality the photo was saved at (vision.decode.Decoded.jpeg_quality); None for a PNG or an
    # image handed over already decoded. Small indexes lose their colour first in a heavily compressed photo.
    jpeg_quality: int | None = None

    @property
    def compression_note(self) -> str | None:
        """For a JPEG saved under ``LOW_JPEG_QUALITY``, what to tell the player (small indexes may have lost their
        colour); ``None`` for any other photo."""
        if self.jpeg_quality is None or self.jpeg_quality >= LOW_JPEG_QUALITY:
            return None
        return (
            f"this photo was saved at a low JPEG quality (about {self.jpeg_quality}), which washes the colour out "
            "of small cards: check the colours, or use the camera's own photo rather than a copy"
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``phase10 detect --json`` object (without ``file``)."""
        return {
            "cards": [c.to_dict() for c in self.cards],
            "groups": [[str(c) for c in g] for g in self.groups],
            "width": self.width,
            "height": self.height,
            "timings_ms": {k: round(v, 1) for k, v in self.timings.items()},
            "turned": self.turned,
            "jpeg_quality": self.jpeg_quality,
        }

    def card_groups(self) -> list[tuple[CardReading, ...]]:
        """``cards`` cut into the groups they lie in."""
        out, i = [], 0
        for g in self.groups:
            out.append(self.cards[i : i + len(g)])
            i += len(g)
        return out


class CardModels(Protocol):
    """What the reader asks of the models (``vision.detector.Models``)."""

    def ways_up(self, img: Image) -> list[tuple[int, Image, Detections, Detections]]: ...

    def other_ways(
        self, img: Image, tried: Collection[int]
    ) -> list[tuple[int, Image, Detections, Detections]]: ...

    def classify(self, img: Image, boxes: list[Box]) -> NDArray[np.float32]: ...


def _read_way(models: CardModels, turn: int, image: Image, dets: Detections, weak: Detections) -> _Way:
    """The cards of one way up: ``dets`` (the index boxes of ``image``, the photo turned ``turn``) classified;
    ``weak``, the first look's weak boxes, kept for later."""
    probs = _read_grown(image, models, dets, models.classify(image, dets.boxes()))
    dets, probs = _read_whole(image, models, dets, probs)
    k, prob = card_classes(probs, dets.confidence)
    named = dets.with_classes(k, dets.confidence * prob)
    readings = _drop_split_indexes(named[k != NONE_CLASS])
    return _Way(turn, image, readings, group_boxes(readings.xyxy), weak)


@dataclass(slots=True)
class _Way:
    """The cards read with the photo turned ``turn`` degrees (``image``), before the gaps and the weak boxes
    (``weak``) are looked into."""

    turn: int
    image: Image
    readings: Detections
    order: list[list[int]]
    weak: Detections


def read_image(
    image: Image,
    *,
    scale: float = 1.0,
    runtime: Runtime | str | None = None,
    models_dir: Path | None = None,
) -> PhotoReading:
    """Read an already decoded BGR image; ``scale`` maps its pixels to the original photo's; ``models_dir``
    reads with the models of that folder (a taught deck's) instead of the shipped ones."""
    models: CardModels = get_models(runtime, models_dir)
    t0 = time.perf_counter()
    h, w = image.shape[:2]
    ways_up = models.ways_up(image)
    td = time.perf_counter()
    ways = [_read_way(models, *way) for way in ways_up]
    way = max(ways, key=_upright_score)  # the first of equals: the detector's choice
    if not len(way.readings):
        # No card read the chosen ways up: the next surest turn that reads one is read instead (a lone card on
        # its side whose look as it came boxes a sideways index the classifier then calls no card).
        tried = {w.turn for w in ways}
        tl = time.perf_counter()
        others = models.other_ways(image, tried)
        td += time.perf_counter() - tl  # the other turns' looks count as the detector's time
        for other_way in others:
            other = _read_way(models, *other_way)
            if len(other.readings):
                way = other
                break
    tw = time.perf_counter()
    classifier, post = tw - td, 0.0  # the ways' classifying (and their few card rules) as inference
    readings, order = _drop_far_twins(way.readings, way.order)
    tg = time.perf_counter()
    found = _read_gaps(way.image, models, readings, order)
    if len(found):
        readings = Detections.merge([readings, found])
    found = _read_weak(way.image, models, readings, way.weak)
    gap_time = time.perf_counter() - tg  # the classifier's, so counted as inference
    if len(found):
        readings = Detections.merge([readings, found])
    if len(readings) != sum(map(len, order)):
        order = group_boxes(readings.xyxy)
    cards, groups = _in_table_order(readings, order, scale, way.turn, way.image.shape[1], way.image.shape[0])
    t2 = time.perf_counter()
    classifier += gap_time
    post += t2 - tw - gap_time
    timings = {
        "inference": (td - t0 + classifier) * 1000,
        "post": post * 1000,
        # The two parts of "inference", not added to the total again.
        "detector": (td - t0) * 1000,
        "classifier": classifier * 1000,
    }
    return PhotoReading(cards, groups, round(w * scale), round(h * scale), timings, way.turn)


# The ways up (vision.detector.RIVAL_SHARE). A deck with its index in all four corners shows each card's index at
# both top corners, and in a fan each card lies on the one before it, so only the last card shows its top right:
# read the right way up, a row whose last two readings are one card, further apart than the row's usual step
# (FAR_TWIN times it), ends on that card's second index; read upside down, a fan shows the top corners of the other
# ends of its cards and its row starts with such a pair instead. The rows that say which way is up decide; where
# they do not, the way whose cards the models are surer of (the sum of their confidences) is read.
FAR_TWIN = 1.4


def _upright_score(way: _Way) -> tuple[int, float]:
    return _fan_ends(way.readings, way.order), float(way.readings.confidence.sum())


def _far_twin(readings: Detections, row: Sequence[int], at_end: bool) -> bool:
    """Whether ``row`` (of at least three readings) ends (``at_end``) or starts with two readings of one card
    further apart than FAR_TWIN of its other steps."""
    if len(row) < 3:
        return False
    assert readings.class_id is not None
    ids = readings.class_id[list(row)]
    mid = (readings.xyxy[list(row), 0] + readings.xyxy[list(row), 2]) / 2
    steps = np.abs(np.diff(mid))
    if at_end:
        pair, step, others = ids[-2:], steps[-1], steps[:-1]
    else:
        pair, step, others = ids[:2], steps[0], steps[1:]
    return bool(pair[0] == pair[1] and step > FAR_TWIN * float(np.median(others)))


def _fan_ends(readings: Detections, order: list[list[int]]) -> int:
    """The rows that end on a far twin less those that start with one."""
    return sum(_far_twin(readings, row, True) - _far_twin(readings, row, False) for row in order)


def _drop_far_twins(readings: Detections, order: list[list[int]]) -> tuple[Detections, list[list[int]]]:
    """The readings without the last of a row that ends on a far twin (a four-corner card's second index)."""
    twins = {row[-1] for row in order if _far_twin(readings, row, True)}
    if not twins:
        return readings, order
    kept = [i for i in range(len(readings)) if i not in twins]
    readings = readings[np.asarray(kept, np.intp)]
    return readings, group_boxes(readings.xyxy)


def _card(class_id: int) -> Card:
    card = CLASS_CARDS[class_id]
    assert card is not None, "a reading is a card"
    return card


def _in_table_order(
    readings: Detections, order: list[list[int]], scale: float, turn: int, w: int, h: int
) -> tuple[tuple[CardReading, ...], tuple[tuple[Card, ...], ...]]:
    """The readings group by group, each box clipped to the image, and taken back to the photo's pixels from the
    image that was read (``w`` x ``h``, turned ``turn`` degrees clockwise, the original photo's ``scale`` pixels
    per pixel)."""
    assert readings.class_id is not None
    class_ids = readings.class_id.tolist()
    confidences = readings.confidence.tolist()
    boxes = readings.boxes()
    cards: list[CardReading] = []
    groups: list[tuple[Card, ...]] = []
    for g in order:
        groups.append(tuple(_card(class_ids[i]) for i in g))
        for i in g:
            x1, y1, x2, y2 = boxes[i]
            clipped = (max(x1, 0), max(y1, 0), min(x2, w), min(y2, h))
            u1, v1, u2, v2 = unturned_box(clipped, turn, w, h)
            box = (round(u1 * scale), round(v1 * scale), round(u2 * scale), round(v2 * scale))
            cards.append(CardReading(_card(class_ids[i]), confidences[i], box))
    return tuple(cards), tuple(groups)


# The detector now and then boxes an index from its ink rather than from the card's corner: where a white card lies
# on another white card with no shadow between them, the card's edge is faint. The classifier, which learnt that an
# index sits a little in from a corner, calls such a crop "not a card". A box the detector is sure of is then read
# again grown up and left by GROW of its side, to where the corner must be, and the reading is taken when the
# classifier is at least GROW_MIN_PROB sure of a card there. What that gained, and that it adds no reading where
# there is no card, is in models/TRAINING-HISTORY.md ("Reading a sure box again from its card's corner").
GROW = 0.2
GROW_MIN_SCORE = 0.5
GROW_MIN_PROB = 0.7


def _read_grown(
    image: Image, models: CardModels, dets: Detections, probs: NDArray[np.float32]
) -> NDArray[np.float32]:
    """``probs`` with the rows of sure boxes read as "not a card" replaced by their grown boxes' reading, where
    the classifier is sure of a card there."""
    k, _ = card_classes(probs, dets.confidence)
    redo = np.flatnonzero((dets.confidence >= GROW_MIN_SCORE) & (k == NONE_CLASS))
    if redo.size == 0:
        return probs
    grown: list[Box] = []
    for x1, y1, x2, y2 in dets[redo].boxes():
        side = max(x2 - x1, y2 - y1)
        grown.append((x1 - GROW * side, y1 - GROW * side, x2, y2))
    out = probs.copy()
    for i, row in zip(redo.tolist(), models.classify(image, grown), strict=True):
        best = int(row.argmax())
        if best != NONE_CLASS and row[best] >= GROW_MIN_PROB:
            out[i] = row
    return out


# The detector now and then boxes a two-digit index by one of its digits: a box that starts at the second digit (the
# "2" of a Y12) or stops inside it (the "1" of an R10), and the crop, anchored at the box's corner, then shows one
# digit. A box the classifier reads, unsure (under WHOLE_SURE), as a figure that is one digit of a two-digit figure
# in its colour (1 of 10, 11 and 12; 2 of 12) is read again grown left and grown right by WHOLE of its height, and
# the two-digit card is taken, with the grown box, where the classifier is at least WHOLE_MIN_PROB sure of it and
# the grown box takes in no more than WHOLE_OVERLAP of another card's box (a fanned neighbour's index beside it).
# What that gained is in models/MODEL_CARD.md ("A two-digit index boxed by one digit").
WHOLE = 0.4
WHOLE_SURE = 0.9
WHOLE_MIN_PROB = 0.7
WHOLE_OVERLAP = 0.25


def _wholes() -> dict[int, tuple[int, ...]]:
    """Each one-digit class that is a digit of a two-digit class of its colour, with those classes."""
    out: dict[int, tuple[int, ...]] = {}
    for i, part in enumerate(CLASS_CARDS):
        wholes = tuple(
            j
            for j, whole in enumerate(CLASS_CARDS)
            if part is not None and whole is not None and _part_of(part, whole)
        )
        if wholes:
            out[i] = wholes
    return out


def _read_whole(
    image: Image, models: CardModels, dets: Detections, probs: NDArray[np.float32]
) -> tuple[Detections, NDArray[np.float32]]:
    """``dets`` and ``probs`` with each unsure one-digit reading that a grown box reads as its two-digit whole
    replaced by that box and its reading."""
    k = probs.argmax(axis=1)
    p = probs[np.arange(len(probs)), k]
    redo = [i for i in range(len(dets)) if int(k[i]) in WHOLES and p[i] < WHOLE_SURE]
    if not redo:
        return dets, probs
    grown: list[Box] = []
    for x1, y1, x2, y2 in dets[np.asarray(redo, np.intp)].boxes():
        g = WHOLE * (y2 - y1)
        grown += [(x1 - g, y1, x2, y2), (x1, y1, x2 + g, y2)]
    rows = models.classify(image, grown)
    cards = np.flatnonzero(k != NONE_CLASS)  # redo's own rows among them
    inside = overlaps(np.asarray(grown), dets.xyxy[cards])[1]  # share of the smaller box in the other
    xyxy, out = dets.xyxy.copy(), probs.copy()
    for n, i in enumerate(redo):
        best = -1.0
        for m in (2 * n, 2 * n + 1):
            whole = int(rows[m].argmax())
            sure = float(rows[m][whole])
            alone = not (inside[m][cards != i] > WHOLE_OVERLAP).any()
            if whole in WHOLES[int(k[i])] and sure >= WHOLE_MIN_PROB and sure > best and alone:
                best, xyxy[i], out[i] = sure, grown[m], rows[m]
    return replace(dets, xyxy=xyxy), out


# A fan whose step is about twice its usual one somewhere has a card there whose index the detector missed
# (glare, a worn corner): the classifier reads the place where its index must be, and a card it is at least this
# sure of is taken. The detector's own score does not exist for such a box, so it counts as GAP_SCORE.
GAP_MIN_PROB = 0.6
GAP_SCORE = 0.5


def _read_gaps(image: Image, models: CardModels, readings: Detections, order: list[list[int]]) -> Detections:
    boxes = gap_boxes(readings.xyxy, order)
    if not boxes:
        return Detections.empty().with_classes([], [])
    k, prob = card_classes(models.classify(image, boxes), np.full(len(boxes), GAP_SCORE))
    found = Detections.from_boxes(boxes, np.zeros(len(boxes))).with_classes(k, GAP_SCORE * prob)
    return found[(k != NONE_CLASS) & (prob >= GAP_MIN_PROB)]


# The weak boxes of the first look (vision.detector.WEAK_CONF up to DET_CONF) that overlap no reading (IoU over
# WEAK_APART) are read too, and a card the classifier is at least WEAK_MIN_PROB sure of is taken, with the detector's
# own score times that as its confidence (under MIN_CARD_CONF: the app marks it for the player to check). Most such
# sure readings are the second index of a card already read (a four-corner deck's top right, a card's other end), so
# one is not taken where a reading of the same card lies within WEAK_TWIN box heights of it, whichever way (a card
# lying askew puts its top right off its top left's row). What that gained is in models/MODEL_CARD.md ("Weak
# boxes").
WEAK_APART = 0.2
WEAK_MIN_PROB = 0.9
WEAK_TWIN = 6.0


def _read_weak(image: Image, models: CardModels, readings: Detections, weak: Detections) -> Detections:
    """The cards read surely from ``weak`` boxes that neither overlap ``readings`` nor repeat one nearby."""
    if len(readings):
        weak = weak[np.asarray((box_iou(weak.xyxy, readings.xyxy) <= WEAK_APART).all(axis=1), bool)]
    if not len(weak):
        return Detections.empty().with_classes([], [])
    k, prob = card_classes(models.classify(image, weak.boxes()), np.ones(len(weak)))
    sure = (k != NONE_CLASS) & (prob >= WEAK_MIN_PROB)
    assert readings.class_id is not None
    apart = np.linalg.norm(_centres(weak.xyxy)[:, None] - _centres(readings.xyxy)[None, :], axis=2)
    twin = (k[:, None] == readings.class_id[None, :]) & (apart < WEAK_TWIN * weak.height[:, None])
    keep = sure & ~twin.any(axis=1)
    return weak.with_classes(k, weak.confidence * prob)[keep]


def _centres(xyxy: NDArray[np.float64]) -> NDArray[np.float64]:
    """N x 2: each box's centre."""
    return np.asarray((xyxy[:, :2] + xyxy[:, 2:]) / 2, np.float64)


# Two boxes that read the same card and share most of their width on one row are one index the detector saw
# twice (the "1" and the "10" of a 10): fanned neighbours are at least a quarter of a card apart, so even two
# equal cards side by side overlap by well under half an index. The same holds when one box reads a single digit
# of the other's two-digit index in its colour (B1 on a B11, Y2 on a Y12): the part goes, the whole stays
# (models/TRAINING-HISTORY.md, "The held-out figure, step by step": the part rule).
SPLIT_OVERLAP = 0.5
SPLIT_ROW = 0.7  # the share of their height two boxes on one row have in common


def _part_of(part: Card, whole: Card) -> bool:
    """``part`` is one digit of the two-digit ``whole`` in the same colour (B1 of B11, Y2 of Y12)."""
    return (
        part.color is not None
        and part.color == whole.color
        and part.number is not None
        and whole.number is not None
        and part.number < 10 <= whole.number
        and str(part.number) in str(whole.number)
    )


WHOLES = _wholes()


def _two_digits(card: Card) -> bool:
    return card.number is not None and card.number >= 10


def _drop_split_indexes(readings: Detections) -> Detections:
    """The readings without the second reading of an index seen twice, nor a part of a two-digit index: two-digit
    readings first, each kind by confidence, so a whole index claims its box before its parts."""
    assert readings.class_id is not None
    cards = [_card(k) for k in readings.class_id.tolist()]
    confidences = readings.confidence.tolist()
    wide = shared_fraction(readings.xyxy, readings.xyxy, 0)
    tall = shared_fraction(readings.xyxy, readings.xyxy, 1)
    kept: list[int] = []
    for i in sorted(range(len(cards)), key=lambda i: (not _two_digits(cards[i]), -confidences[i])):
        twin = any(
            (cards[j] == cards[i] or _part_of(cards[i], cards[j]))
            and wide[i, j] > SPLIT_OVERLAP
            and tall[i, j] > SPLIT_ROW
            for j in kept
        )
        if not twin:
            kept.append(i)
    return readings[np.asarray(kept, np.intp)]


def read_photo(
    source: bytes | str | Path,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    runtime: Runtime | str | None = None,
    models_dir: Path | None = None,
) -> PhotoReading:
    """Read the cards in a photo (bytes or a file path).

    Raises :class:`BadImageError` (a ``ValueError`` with a message for the player) for a missing or empty file,
    something that is not a JPEG/PNG, a truncated upload, or more than ``max_pixels`` pixels.
    """
    t0 = time.perf_counter()
    data = read_bytes(source)
    decoded = decode(data, max_pixels=max_pixels)
    t1 = time.perf_counter()
    reading = read_image(decoded.image, scale=decoded.scale, runtime=runtime, models_dir=models_dir)
    timings = {"decode": (t1 - t0) * 1000, **reading.timings}
    timings["total"] = timings["decode"] + timings["inference"] + timings["post"]
    return PhotoReading(
        reading.cards,
        reading.groups,
        decoded.width,
        decoded.height,
        timings,
        reading.turned,
        decoded.jpeg_quality,
    )


def draw_reading(image: Image, reading: PhotoReading, scale: float = 1.0) -> Image:
    """``image`` (BGR, ``scale`` original pixels per pixel) with a box and a label on every card found."""
    out = image.copy()
    thick = max(1, round(max(out.shape[:2]) / 700))
    colours = {"R": (40, 40, 220), "B": (200, 90, 20), "G": (40, 160, 40), "Y": (0, 190, 230)}
    for gi, g in enumerate(reading.card_groups()):
        for c in g:
            x1, y1, x2, y2 = (round(v / scale) for v in c.box)
            col = colours.get(str(c.card)[0], (60, 60, 60)) if c.card.is_natural else (160, 40, 160)
            cv2.rectangle(out, (x1, y1), (x2, y2), col, thick + 1)
            label = f"{c.card} {c.confidence:.2f} g{gi + 1}"
            fs = 0.4 * thick
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, fs, thick)
            ty = max(y1 - 3, th + 3)
            cv2.rectangle(out, (x1, ty - th - 3), (x1 + tw + 2, ty + 2), (255, 255, 255), -1)
            cv2.putText(out, label, (x1 + 1, ty), cv2.FONT_HERSHEY_SIMPLEX, fs, col, thick, cv2.LINE_AA)
    return out


def annotate(source: bytes | str | Path, reading: PhotoReading, out: Path, *, quality: int = 88) -> Path:
    """Write the photo with the reading drawn on it (JPEG or PNG by ``out``'s suffix)."""
    decoded = decode(read_bytes(source))
    img = draw_reading(decoded.image, reading, decoded.scale)
    ok = cv2.imwrite(str(out), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError(f"cannot write {out}")
    return out
