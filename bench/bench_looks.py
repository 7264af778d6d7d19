"""How well teaching measures a deck's look from the photos it is given (``vision.teach.measure_look``).

The look draws the cards nobody photographed: their kind of face, their paper and, for the colours taught, their
inks. Each deck is one design of a family in the held-out fonts (the teaching bench's designs, seeds 0 on), and
its teaching photos are rendered and cut as ``phase10 deck teach`` cuts them. A look is right when its kind of face
is the deck's, its paper is a light card stock, and every ink it measured lies within INK_HUE degrees of hue of the
deck's. Every design prints on a light stock, white to cream, and the cutting brings each photo's faces to neutral
light by their brightest pixels, the stock's: a stock measured darker than PAPER_L (Lab lightness) or more
coloured than PAPER_CHROMA is a rim, a frame or the table taken for the paper.

    python bench/bench_looks.py [--decks 5] [--photos red,specials] [--families all,unseen]

``--photos`` names the teaching photos taken, as ``bench_teaching.py`` does (``all`` for the five).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAPER_L, PAPER_CHROMA = 80.0, 8.0
INK_HUE = 20.0


def _lab(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    import cv2
    import numpy as np

    lab = cv2.cvtColor(np.array([[rgb]], np.float32) / 255, cv2.COLOR_RGB2Lab)[0, 0]
    return float(lab[0]), float(lab[1]), float(lab[2])


def _hue_apart(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    import math

    (_, a1, b1), (_, a2, b2) = _lab(a), _lab(b)
    d = math.degrees(math.atan2(b1, a1) - math.atan2(b2, a2))
    return abs((d + 180) % 360 - 180)


def _judge(job: tuple[str, int, tuple[int, ...]]) -> tuple[str, list[str]]:
    """The family and what its deck's look got wrong (nothing: right)."""
    import math

    from bench_teaching import _design

    from vision.render import inks
    from vision.scene import make_teaching_photo
    from vision.teach import TEACHING_SETS, cut_cards, measure_look

    family, seed, sets = job
    design = _design(family, seed)
    faces: dict[Any, list[Any]] = {}
    for k in sets:
        cards = TEACHING_SETS[k]
        scene = make_teaching_photo([cards[:6], cards[6:]], design, seed * 10 + k)
        for laid, c in zip(scene.cards, cut_cards(scene.image, len(cards)), strict=True):
            faces.setdefault(laid.card, []).append(c.face)
    look = measure_look(faces)
    wrong = []
    if look.face != design.face:
        wrong.append(f"face {look.face} for {design.face}")
    lightness, a, b = _lab(look.paper)
    if lightness < PAPER_L or math.hypot(a, b) > PAPER_CHROMA:
        wrong.append(f"paper {look.paper}")
    printed = inks(design)
    for colour, ink, measured in zip(printed, look.inks, look.measured, strict=True):
        if measured and _hue_apart(ink, printed[colour]) > INK_HUE:
            wrong.append(f"{colour.name.lower()} ink {ink} for {printed[colour]}")
    return family, wrong


def main() -> None:
    from bench_families import _families
    from bench_teaching import PHOTO_SETS

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decks", type=int, default=5, help="decks (designs) per family")
    ap.add_argument("--photos", default="red,specials", help="teaching photos taken, or all")
    ap.add_argument("--families", default="all,unseen", help="families (names, all, unseen)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    names = PHOTO_SETS if args.photos == "all" else tuple(t.strip() for t in args.photos.split(","))
    if not names or any(n not in PHOTO_SETS for n in names):
        raise SystemExit(f"--photos takes all or some of: {', '.join(PHOTO_SETS)}")
    sets = tuple(PHOTO_SETS.index(n) for n in names)
    families = _families(args.families)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"teaching photos: {', '.join(names)}; {args.decks} decks a family (designs 0 on, held-out fonts)")
    jobs = [(f, seed, sets) for f in families for seed in range(args.decks)]
    right: Counter[str] = Counter()
    with ProcessPoolExecutor(args.threads) as pool:
        for (family, seed, _), (_, wrong) in zip(jobs, pool.map(_judge, jobs), strict=True):
            right[family] += not wrong
            if wrong:
                print(f"  {family} design {seed}: {'; '.join(wrong)}")
    print("\n| family | looks right |\n|---|---|")
    for f in families:
        print(f"| {f} | {right[f]} of {args.decks} |")
    print(f"| all | {sum(right.values())} of {len(jobs)} |")


if __name__ == "__main__":
    main()
