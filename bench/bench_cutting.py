"""Teaching photos as players take them: how often each is cut into the cards it shows.

Teaching a deck starts by cutting every card's face out of its photos (``vision.teach.cut_cards``). The renderer
draws teaching photos under each of ``vision.scene.TEACHING_CONDITIONS``: the mild photo from straight above,
the phone held at a slant, a soft shadow over part of the cards, a dim warm bulb, a table as light as the cards,
the held-out tables and printed cloths, a lamp's reflection clipped to white, a gingham tablecloth, and cards
laid by hand, each turned its own way with uneven gaps. Each photo shows one of the five teaching sets (twelve
cards in two rows) of a deck of one of the six design families with the held-out fonts, the families and sets
taken in turn.

Each photo is cut as the app cuts it, told how many cards the player's list names. A photo is cut right when
it gives as many faces as it shows cards, each face's outline holding the centre of the card's index that the
list names at its place in reading order. A refused photo is counted by the reason given to the player
(``vision.teach.Problem``). A photo cut into another number of faces than it shows is refused too, when the
player's list is checked against it, but with a count that misleads; one cut into the right number of faces in
the wrong places would teach the deck wrong faces, and is the worst outcome. Of the photos cut right, those whose
every face follows its card's outline closely (intersection over union at least ``OUTLINE_IOU``) are counted
too: a face cut short of a band, or inset where a printed frame is taken for the card's edge, holds its index
but is taught a little off. For the photos cut right, the faces' outlines are compared with the cards', and the
index box found on each face (``vision.teach.index_box``) with the renderer's own (intersection over union).

    python bench/bench_cutting.py [--photos 60] [--conditions mild,hand-held] [--processes 2] [--dev]

Photos of record are drawn at seeds 910 000 on; ``--dev`` draws others (seeds 1 000 on), the ones to change the
cutting by, so that the figures of record are not what chose it.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIRST_SEED = 910_000
DEV_SEED = 1_000
# A face that follows its card's outline at least this closely is cut snugly.
OUTLINE_IOU = 0.9


def _cut(job: tuple[int, str]) -> tuple[str, list[float], list[float]]:
    """One photo: its outcome ("right", "count", "order" or the refusal's Problem name) and, when it was cut
    right, each face's outline IoU against its card's and each face's index-box IoU against the renderer's
    box."""
    import cv2
    import numpy as np

    from vision.detections import box_iou, outline_iou
    from vision.families import FAMILIES, family_design
    from vision.render import Split, render_card
    from vision.scene import make_teaching_photo
    from vision.teach import TEACHING_SETS, TeachingError, cut_cards, index_box

    seed, conditions = job
    k = seed % 1_000
    design = family_design(np.random.default_rng([seed, 77]), FAMILIES[k % len(FAMILIES)], Split.HELDOUT)
    cards = TEACHING_SETS[k % len(TEACHING_SETS)]
    scene = make_teaching_photo([cards[:6], cards[6:]], design, seed, conditions=conditions)
    try:
        cut = cut_cards(scene.image, count=len(scene.cards))
    except TeachingError as err:
        return err.code.name.lower(), [], []
    if len(cut) != len(scene.cards):
        return "count", [], []
    for c, laid in zip(cut, scene.cards, strict=True):
        x0, y0, x1, y1 = laid.box
        outline = np.asarray(c.quad, np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(outline, ((x0 + x1) / 2, (y0 + y1) / 2), False) < 0:
            return "order", [], []
    faces = [outline_iou(c.quad, laid.outline) for c, laid in zip(cut, scene.cards, strict=True)]
    ious = []
    for c, laid in zip(cut, scene.cards, strict=True):
        _, box = render_card(laid.card, design, np.random.default_rng(0))
        ious.append(float(box_iou([index_box(c.face)], [box])[0, 0]))
    return "right", faces, ious


def main() -> None:
    import numpy as np

    from vision.render import Split, font_files
    from vision.scene import TEACHING_CONDITIONS

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--photos", type=int, default=60, help="photos per condition")
    ap.add_argument("--conditions", default=",".join(TEACHING_CONDITIONS))
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--dev", action="store_true", help=f"draw the dev photos (seeds {DEV_SEED}+)")
    args = ap.parse_args()
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    unknown = [c for c in conditions if c not in TEACHING_CONDITIONS]
    if unknown:
        ap.error(f"unknown conditions {unknown}; known: {', '.join(TEACHING_CONDITIONS)}")
    first = DEV_SEED if args.dev else FIRST_SEED

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    # The held-out fonts come from the Debian font packages `.ci/system-deps` installs; without them the pool
    # falls back to one face, and the photos, so the figures, are not the ones of record.
    print(f"held-out font files: {len(font_files(Split.HELDOUT))}")
    print(
        f"{args.photos} teaching photos per condition, seeds {first}+, twelve cards each, the six families and five "
        "teaching sets in turn\n"
    )
    print(
        "| conditions | cut right | of them snugly | refused (why) | wrong number of cards "
        "| right number, wrong places | face outline IoU: median, lowest | index box IoU: median, share over 0.6 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    with ProcessPoolExecutor(args.processes) as pool:
        for cond in conditions:
            t0 = time.monotonic()
            jobs = [(first + k, cond) for k in range(args.photos)]
            outcomes = list(pool.map(_cut, jobs))
            tally = Counter(o for o, _, _ in outcomes)
            snug = sum(1 for o, faces, _ in outcomes if o == "right" and min(faces) >= OUTLINE_IOU)
            faces = [v for _, vs, _ in outcomes for v in vs]
            ious = [v for _, _, vs in outcomes for v in vs]
            refused = {k: v for k, v in tally.items() if k not in ("right", "count", "order")}
            why = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in sorted(refused.items())) or "none"
            face = f"{np.median(faces):.3f}, {min(faces):.3f}" if faces else "-"
            box = f"{np.median(ious):.3f}, {np.mean(np.array(ious) > 0.6):.3f}" if ious else "-"
            print(
                f"| {cond} | {tally['right']}/{args.photos} | {snug} | {sum(refused.values())} ({why}) | "
                f"{tally['count']} | {tally['order']} | {face} | {box} |",
                flush=True,
            )
            print(f"<!-- {cond}: {time.monotonic() - t0:.0f} s -->", file=sys.stderr)


if __name__ == "__main__":
    main()
