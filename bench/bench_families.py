"""How the camera reads each design family (``vision.families``): card precision, recall and exact scenes.

Family scenes are drawn with the held-out fonts and tables, on a seed stream of their own (seeds 700 000 on), so a
family's figure is what a deck of that kind in an unseen typeface on an unseen table gets. Each scene goes the
app's way: JPEG bytes, decoded as an upload, read by the served models (onnxruntime). A family the models were
trained without is a family the camera has never seen; one they were trained on is not, and the table says which.

    python bench/bench_families.py [--models DIR] [--scenes 100] [--families all,unseen] [--trained-on all] [--dev]

``--families`` takes names, ``all`` (the six families training draws) and ``unseen`` (the families no model of
the project is trained on: the shipped models' figure there is a deck of a kind they have never seen).

``--models`` reads with the models in DIR (the served files are made there first if only the exports are there);
``--trained-on`` names the families those models saw in training (``none``, ``all`` or a list), for the table.
``--dev`` reads the family dev scenes instead (seeds 850 000 on), the ones to choose by.
``--turn 90|180|270`` turns every scene that far clockwise before it is encoded, as a photo taken from beside or
across the table is (the reader turns it back: ``vision.detector.TURNS``); ``--as-taken`` reads each photo only
as it came, as the reader did before it looked at turned photos.
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIRST_SEED = 700_000
# The family dev scenes: the same drawing on seeds of their own, read to choose between readers or models so that
# the figures of record (FIRST_SEED on) are not what chose them.
DEV_SEED = 850_000


# How far a card lies askew of the photo's way up, in bands of this many degrees, for the table of cards found by
# tilt: loose cards lie up to 25 degrees askew on the table, and the camera turns a few degrees more.
TILT_BAND = 10
TILT_BANDS = 4  # the last band takes every card further askew


def _render(job: tuple[int, str, int]) -> tuple[bytes, list[tuple[str, ...]], list[tuple[str, float, Any]]]:
    """A family scene (seed, family) as JPEG bytes, turned ``turn`` degrees clockwise, its true groups, and each
    card that shows its index: its name, how far askew it lies (degrees, either way) and its outline in the
    scene's own pixels."""
    import cv2

    from vision.detector import turned
    from vision.evaluate import truth_groups
    from vision.families import Family
    from vision.render import Split
    from vision.scene import make_scene

    seed, family, turn = job
    scene = make_scene(seed, Split.HELDOUT, families=[Family(family)])
    ok, jpg = cv2.imencode(".jpg", turned(scene.image, turn), [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    cards = [(str(pc.card), pc.askew(), pc.outline.astype("float32")) for pc in scene.cards if pc.visible]
    return jpg.tobytes(), [tuple(g) for g in truth_groups(scene)], cards


def _found(
    cards: list[tuple[str, float, Any]], reading: Any, turn: int, size: tuple[int, int]
) -> list[tuple[float, bool]]:
    """Each card of ``cards`` (as ``_render`` gives them) with whether a reading of that card has its index box
    on the card (each reading counted once); ``size`` is the photo's width and height as read."""
    import cv2

    from vision.detector import unturned_box

    left = list(reading.cards)
    out = []
    for name, tilt, outline in cards:
        hit = None
        for r in left:
            x1, y1, x2, y2 = unturned_box(r.box, turn, *size)
            inside = (
                cv2.pointPolygonTest(outline.reshape(-1, 1, 2), ((x1 + x2) / 2, (y1 + y2) / 2), False) >= 0
            )
            if str(r.card) == name and inside:
                hit = r
                break
        if hit is not None:
            left.remove(hit)
        out.append((tilt, hit is not None))
    return out


def _families(text: str) -> list[str]:
    """Family names from a comma-separated list of names, ``all`` (the families training draws), ``unseen``
    (those it never draws) or ``none``."""
    from vision.families import FAMILIES, UNSEEN_FAMILIES, Family

    groups = {"all": FAMILIES, "unseen": UNSEEN_FAMILIES, "none": ()}
    known = {f.value for f in Family}
    names: list[str] = []
    for t in (t.strip() for t in text.split(",")):
        if t in groups:
            names += [f.value for f in groups[t]]
        elif t in known:
            names.append(t)
        elif t:
            raise SystemExit(f"unknown family: {t} (known: {', '.join(sorted(known))}, all, unseen)")
    return list(dict.fromkeys(names))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=Path, default=None, help="models folder (default: the shipped models)")
    ap.add_argument("--scenes", type=int, default=100, help="scenes per family")
    ap.add_argument(
        "--families", default="all,unseen", help="families to read (comma-separated names, all or unseen)"
    )
    ap.add_argument(
        "--trained-on",
        default="all",
        help="families the models were trained on (for the table's last column)",
    )
    ap.add_argument("--dev", action="store_true", help="the family dev scenes (seeds 850 000 on)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="rendering processes")
    ap.add_argument(
        "--slow-path",
        action="store_true",
        help="read as before the speed work: square detector, fp32 classifier, every view, both looks",
    )
    ap.add_argument(
        "--turn", type=int, choices=(0, 90, 180, 270), default=0, help="turn every scene (degrees)"
    )
    ap.add_argument("--as-taken", action="store_true", help="read each photo only as it came, never turned")
    args = ap.parse_args()
    if args.models is not None:
        os.environ["PHASE10_MODELS"] = str(args.models.resolve())  # read by vision.detector at import
        _served_files(args.models)

    from vision import detector
    from vision.detector import MODELS_DIR
    from vision.evaluate import Tally

    if args.as_taken:
        detector.TURNS = (0,)

    families = _families(args.families)
    first = DEV_SEED if args.dev else FIRST_SEED
    trained = set(_families(args.trained_on))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"models: {MODELS_DIR}; {args.scenes} scenes per family, held-out fonts and tables, seeds {first}+")
    if args.slow_path:
        sys.path.insert(0, str(ROOT / "bench"))
        from bench_vision import configure

        slow = argparse.Namespace(
            square=True,
            fp32=True,
            all_views=True,
            both_looks=True,
            spinning=False,
            enlarged="never",
            as_taken=True,
        )
        print(f"reading: {configure(slow)}")
    print()
    print(
        "| family | seen in training | card precision | card recall | exact scenes | missed / wrong colour / wrong figure / extra |"
    )
    print("|---|---|---|---|---|---|")
    total = Tally()
    turns: Counter[int] = Counter()
    tilts: Counter[tuple[int, bool]] = Counter()
    t0 = time.time()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for family in families:
            tally = read_family(
                family, args.scenes, pool, total=total, first=first, turn=args.turn, turns=turns, tilts=tilts
            )
            print(
                f"| {family} | {'yes' if family in trained else 'no'} | {tally.precision:.4f} "
                f"({tally.right_cards}/{tally.read_cards}) | {tally.recall:.4f} ({tally.right_cards}/"
                f"{tally.true_cards}) | {tally.exact_rate:.3f} ({tally.exact}/{tally.scenes}) | "
                f"{tally.kinds_text()} |",
                flush=True,
            )
    print(
        f"| all | | {total.precision:.4f} | {total.recall:.4f} | {total.exact_rate:.3f} "
        f"({total.exact}/{total.scenes}) |"
    )
    print(
        f"\nscenes turned {args.turn} degrees; read turned: "
        + ", ".join(f"{t}: {n}" for t, n in sorted(turns.items()))
    )
    print("\ncards found by how far they lie askew of the photo (a reading of the card on the card):\n")
    print("| askew (degrees) | cards | found |")
    print("|---|---|---|")
    for band in range(TILT_BANDS):
        seen, found = tilts[(band, False)] + tilts[(band, True)], tilts[(band, True)]
        lo = band * TILT_BAND
        span = f"{lo}–{lo + TILT_BAND}" if band < TILT_BANDS - 1 else f"{lo} or more"
        print(f"| {span} | {seen} | {found / max(seen, 1):.3f} ({found}) |")
    print(f"\n{time.time() - t0:.0f} s")


def read_family(
    family: str,
    n: int,
    pool: ProcessPoolExecutor,
    *,
    models_dir: Path | None = None,
    total: Any = None,
    first: int = FIRST_SEED,
    turn: int = 0,
    turns: Counter[int] | None = None,
    tilts: Counter[tuple[int, bool]] | None = None,
) -> Any:
    """The tally (with its error kinds) of ``n`` of ``family``'s scenes from seed ``first`` on, each turned
    ``turn`` degrees clockwise, read the app's way (JPEG bytes, decoded as an upload) with the models in
    ``models_dir`` (default: the process's); each scene is added to ``total`` too, the turn it was read in to
    ``turns``, and each card, by its band of tilt (``TILT_BAND``) and whether it was found, to ``tilts``."""
    from vision.decode import decode
    from vision.evaluate import Tally
    from vision.reader import read_image

    tally = Tally()
    jobs = [(first + i, family, turn) for i in range(n)]
    for jpeg, truth, cards in pool.map(_render, jobs, chunksize=4):
        image = decode(jpeg).image
        reading = read_image(image, models_dir=models_dir)
        if turns is not None:
            turns[reading.turned] += 1
        if tilts is not None:
            for tilt, found in _found(cards, reading, turn, (image.shape[1], image.shape[0])):
                tilts[(min(int(tilt // TILT_BAND), TILT_BANDS - 1), found)] += 1
        read = [[str(c) for c in g] for g in reading.groups]
        tally.add(truth, read)
        if total is not None:
            total.add(truth, read)
    return tally


def _served_files(folder: Path) -> None:
    """Make the served detector file from a training run's export, when it is missing (the classifier is served
    as exported)."""
    from vision.detector import DETECTOR_FILE, DYNAMIC_DETECTOR_FILE
    from vision.modelfiles import make_dynamic_detector

    if not (folder / DYNAMIC_DETECTOR_FILE).exists():
        make_dynamic_detector(folder / DETECTOR_FILE, folder / DYNAMIC_DETECTOR_FILE)


if __name__ == "__main__":
    main()
