"""Metrics on rendered scenes: detector mAP50, card precision/recall, exact-scene rate.

* card precision / recall: per photo, the multiset of cards read against the multiset of visible cards
  (a card counts as found when the same card is read, wherever its box is), summed over photos;
* exact scene: every group read exactly, in order within the group (groups compared as a multiset, since two
  separate groups have no order on the table that the referee cares about);
* mAP50: average precision of the index boxes at IoU 0.5 (one class), all photos pooled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.rules.cards import parse_groups
from vision.crops import CLASS_CARDS, NONE_CLASS
from vision.detections import Box, box_iou
from vision.scene import Scene


def truth_groups(scene: Scene) -> list[tuple[str, ...]]:
    """The groups a perfect reader would report: each group's visible cards, in table order."""
    out: list[tuple[str, ...]] = []
    for gi, _ in enumerate(scene.groups):
        g = tuple(str(pc.card) for pc in scene.cards if pc.group == gi and pc.visible)
        if g:
            out.append(g)
    return out


def average_precision(preds: Sequence[Sequence[tuple[float, Box]]], truths: Sequence[Sequence[Box]]) -> float:
    """AP at IoU 0.5 (all-point interpolation) over photos: ``preds[i]`` = (score, box), ``truths[i]`` = boxes."""
    flat = [(s, i, b) for i, ps in enumerate(preds) for s, b in ps]
    flat.sort(key=lambda t: -t[0])
    n_true = sum(len(t) for t in truths)
    if n_true == 0:
        return 0.0
    used = [np.zeros(len(t), bool) for t in truths]
    tp = np.zeros(len(flat))
    for k, (_, i, b) in enumerate(flat):
        if len(truths[i]) == 0:
            continue
        ious = box_iou([b], truths[i])[0]
        bj = int(ious.argmax())
        if ious[bj] >= 0.5 and not used[i][bj]:
            used[i][bj] = True
            tp[k] = 1
    ctp = np.cumsum(tp)
    recall = ctp / n_true
    precision = ctp / np.arange(1, len(flat) + 1)
    mrec = np.concatenate([[0], recall, [1]])
    mpre = np.concatenate([[1], precision, [0]])
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    idx = np.nonzero(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[idx + 1] - mrec[idx]) * mpre[idx + 1]))


def error_kinds(truth: Sequence[Sequence[str]], read: Sequence[Sequence[str]]) -> Counter[str]:
    """What went wrong in a photo, card by card: a card read in the wrong colour (its figure right), with the
    wrong figure, not read at all ("missed"), or read where there is none ("extra"). A wrong reading is paired
    with a lost card of the same figure first, so a colour slip is not counted as a figure slip."""
    lost = Counter(c for g in truth for c in g) - Counter(c for g in read for c in g)
    extra = Counter(c for g in read for c in g) - Counter(c for g in truth for c in g)
    out: Counter[str] = Counter()
    for card in list(extra.elements()):
        figure = _figure(card)
        same = next((t for t in lost if lost[t] and _figure(t) == figure), None)
        if same is not None:
            lost[same] -= 1
            out["colour"] += 1
        elif sum(lost.values()):
            lost[next(t for t in lost if lost[t])] -= 1
            out["figure"] += 1
        else:
            out["extra"] += 1
    out["missed"] += sum(lost.values())
    return out


def _figure(card: str) -> str:
    return card[1:] if card[0] in "RBGY" else card


@dataclass
class Tally:
    true_cards: int = 0
    read_cards: int = 0
    right_cards: int = 0
    scenes: int = 0
    exact: int = 0
    kinds: Counter[str] = field(default_factory=Counter)  # error_kinds, summed over photos

    def add(self, truth: Sequence[Sequence[str]], read: Sequence[Sequence[str]]) -> bool:
        t = Counter(c for g in truth for c in g)
        r = Counter(c for g in read for c in g)
        self.true_cards += sum(t.values())
        self.read_cards += sum(r.values())
        self.right_cards += sum((t & r).values())
        self.scenes += 1
        self.kinds.update(error_kinds(truth, read))
        ok = Counter(tuple(g) for g in truth) == Counter(tuple(g) for g in read)
        self.exact += ok
        return ok

    @property
    def precision(self) -> float:
        return self.right_cards / self.read_cards if self.read_cards else 0.0

    @property
    def recall(self) -> float:
        return self.right_cards / self.true_cards if self.true_cards else 0.0

    @property
    def exact_rate(self) -> float:
        return self.exact / self.scenes if self.scenes else 0.0

    def kinds_text(self) -> str:
        """The error kinds as the benches' tables print them: missed / wrong colour / wrong figure / extra."""
        return " / ".join(str(self.kinds[k]) for k in ("missed", "colour", "figure", "extra"))


PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclass(frozen=True)
class LabelledPhoto:
    """A photo and what it shows, as a person named it: ``groups`` in table order when ``grouped``, else one
    group holding its cards in ``str`` order (a kept photo's labels name its cards, not their groups)."""

    path: Path
    groups: tuple[tuple[str, ...], ...]
    grouped: bool

    def scored(self, read: Sequence[Sequence[str]]) -> list[tuple[str, ...]]:
        """A reading in the form ``groups`` has, for :meth:`Tally.add`."""
        if self.grouped:
            return [tuple(g) for g in read]
        return [tuple(sorted(c for g in read for c in g))]


def labelled_photos(folder: Path) -> list[LabelledPhoto]:
    """The photos of ``folder`` with what each shows: either photos with a text file of the same name beside
    each naming its groups as a lay-down is typed ("R7 B7 G7 | G3 Y4 W B6"), or a folder of kept photos
    (``images/`` and ``labels/``, ``vision.train.write_extra_example``'s layout). Photos without a text file are
    left out; ``ValueError`` names a text file or label that cannot be read, or a folder without a photo."""
    if (folder / "images").is_dir() and (folder / "labels").is_dir():
        return _kept_photos(folder)
    out = []
    for photo in sorted(p for p in folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES):
        named = photo.with_suffix(".txt")
        if not named.is_file():
            continue
        try:
            groups = [tuple(str(c) for c in g) for g in parse_groups(named.read_text(encoding="utf-8")) if g]
        except ValueError as exc:
            raise ValueError(f"{named}: {exc}") from None
        if not groups:
            raise ValueError(f"{named}: names no cards")
        out.append(LabelledPhoto(photo, tuple(groups), grouped=True))
    if not out:
        raise ValueError(f"{folder}: no photo with a text file of the same name naming its cards")
    return out


def _kept_photos(folder: Path) -> list[LabelledPhoto]:
    out = []
    for photo in sorted(p for p in (folder / "images").iterdir() if p.suffix.lower() in PHOTO_SUFFIXES):
        label = folder / "labels" / f"{photo.stem}.txt"
        if not label.is_file():
            continue
        cards = []
        for line in label.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 5 or not parts[0].isdigit() or not 0 <= int(parts[0]) < NONE_CLASS:
                raise ValueError(f"{label}: {line!r} is not a card's label line (CLASS cx cy w h)")
            cards.append(str(CLASS_CARDS[int(parts[0])]))
        out.append(LabelledPhoto(photo, (tuple(sorted(cards)),), grouped=False))
    if not out:
        raise ValueError(f"{folder}: no labelled photo in images/ and labels/")
    return out
