"""Teaching the camera a deck: how the shipped models read a deck, and how its taught models read it.

One deck design of a family (``vision.families``) with the held-out fonts, its five rendered teaching photos
(``vision.teach.teaching_photos``), and scenes drawn with that deck alone on the held-out tables (seeds 750 000
on). The scenes are read the app's way (JPEG bytes, decoded as an upload, read by ``vision.reader``) with the
shipped models, then the deck is taught (``vision.teach.teach``, the time it took measured here) and the same
scenes are read with the deck's models.

    python bench/bench_teaching.py [--family tabbed] [--scenes 100] [--minutes 15] [--threads 2] [--seed 0]
        [--base DIR] [--kept N] [--dev] [--bold-tables P] [--render-share S] [--classifier-share S]
        [--detector-lr LR] [--keep-detector | --teach-detector] [--photos red,blue,green,yellow,specials]

``--photos`` teaches from some of the five photos only (the colours named, ``specials`` the Wilds and Skips), as
a group does that photographs fewer: the cards of the others are then drawn in the deck's measured look, and the
bench also gives the precision and recall of the cards nobody photographed.

``--base DIR`` reads and teaches from the models in DIR instead of the shipped ones: with a run of
``bench/bench_left_out.py`` that never saw the family (``runs/left-out/without-dark``), the figures are what
teaching does for a kind of deck the camera has never seen.

``--kept N`` then measures what photos players correct and keep do for the taught deck: N more scenes drawn with
the deck's own design (seeds 760 000 on, none of them read here), labelled with their cards as a kept photo is,
and the deck learnt again from them (``vision.teach.teach`` with no teaching photos) for ``--minutes``. The
taught faces are cut out of rendered photos, so they only approximate the deck's printed faces, as a phone's cut
faces approximate a real deck's; the kept scenes show the deck itself. As a control the taught deck is also
learnt on for the same time from its teaching photos alone (from its own models, ``base_models``), so the gain
of the kept photos is told apart from the gain of more time.

``--dev`` reads scenes at seeds 870 000 on instead, to choose between ways of teaching (``--bold-tables``, the
share of rendered teaching scenes on printed cloths; ``--render-share``, the share of its time spent rendering;
``--classifier-share``, the share training the classifier; ``--detector-lr``, the taught detector's learning rate)
without reading the scenes of record. The detector is taught as ``phase10 deck teach`` teaches it: a deck with
its index twice at the top (``vision.teach.index_twice``) has it taught where the machine's pace gives it
``vision.teach.DETECTOR_FEWEST_BATCHES`` batches, and kept otherwise, any other deck however few it gets;
``--keep-detector`` always keeps it (the classifier alone learns), ``--teach-detector`` always teaches it, as
every teaching figure before that rule was measured.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIRST_SEED = 750_000
KEPT_SEED = 760_000
# Teaching dev scenes (``--dev``): for choosing how to teach without reading the scenes of record.
DEV_SEED = 870_000


def _pace(batch_ends: list[float]) -> str:
    """The taught detector's seconds a batch, medians: over the batches teaching measures its pace by
    (``vision.teach.DETECTOR_PACE_BATCHES`` after the first ``DETECTOR_WARM_BATCHES``), over those warm-up batches
    after the first, and over the rest of the pass."""
    import numpy as np

    from vision.teach import DETECTOR_PACE_BATCHES, DETECTOR_WARM_BATCHES

    gaps = np.diff(batch_ends)  # gaps[i]: batch i + 2
    warm = gaps[: DETECTOR_WARM_BATCHES - 1]
    paced = gaps[DETECTOR_WARM_BATCHES - 1 : DETECTOR_WARM_BATCHES - 1 + DETECTOR_PACE_BATCHES]
    rest = gaps[DETECTOR_WARM_BATCHES - 1 + DETECTOR_PACE_BATCHES :]

    def median(x: Any, what: str) -> str:
        return f"{np.median(x):.2f} s over {what} ({len(x)})" if len(x) else f"none {what}"

    return "detector pace, seconds a batch (medians): " + "; ".join(
        [
            median(warm, "the warm-up batches after the first"),
            median(paced, "the batches the pace is measured on"),
            median(rest, "the rest of the pass"),
        ]
    )


def _design(family: str, seed: int) -> Any:
    import numpy as np

    from vision.families import Family, family_design, family_number
    from vision.render import Split

    fam = Family(family)
    return family_design(np.random.default_rng([seed, 31, family_number(fam)]), fam, Split.HELDOUT)


def _keep(job: tuple[int, str, int, str, str]) -> None:
    """Draw one scene of the deck and store it as a photo kept for training while the camera read with
    ``deck`` (``companion.referee.training.keep``'s layout)."""
    from vision.render import Split
    from vision.scene import make_scene
    from vision.teach import KEPT_DECK
    from vision.train import write_extra_example

    scene_seed, family, seed, folder, deck = job
    scene = make_scene(scene_seed, Split.HELDOUT, deck=_design(family, seed))
    stem = f"kept-{scene_seed}"
    write_extra_example(
        Path(folder), stem, scene.image, [(pc.card, pc.box) for pc in scene.cards if pc.visible]
    )
    meta = Path(folder) / "meta"
    meta.mkdir(parents=True, exist_ok=True)
    (meta / f"{stem}.json").write_text(json.dumps({KEPT_DECK: deck}))


def _render(job: tuple[int, str, int]) -> tuple[bytes, list[tuple[str, ...]]]:
    import cv2

    from vision.evaluate import truth_groups
    from vision.render import Split
    from vision.scene import make_scene

    scene_seed, family, seed = job
    scene = make_scene(scene_seed, Split.HELDOUT, deck=_design(family, seed))
    ok, jpg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return jpg.tobytes(), [tuple(g) for g in truth_groups(scene)]


def _reader_init(models: str) -> None:
    # vision.detector reads PHASE10_MODELS when it is first imported, which in this fresh process is after this.
    os.environ["PHASE10_MODELS"] = models


def _read(jpeg: bytes) -> list[list[str]]:
    from vision.decode import decode
    from vision.reader import read_image

    decoded = decode(jpeg)
    return [[str(c) for c in g] for g in read_image(decoded.image, scale=decoded.scale).groups]


def _tally(
    models: Path, scenes: list[tuple[bytes, list[tuple[str, ...]]]], only: set[str] | None = None
) -> Any:
    """How the models in ``models`` read the scenes; with ``only``, a second tally of just those cards (what is
    read as one of them, and what shows one), as ``(all, those)``."""
    from vision.evaluate import Tally

    tally, part = Tally(), Tally()
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=spawn, initializer=_reader_init, initargs=(str(models),)) as pool:
        for (_, truth), read in zip(scenes, pool.map(_read, [j for j, _ in scenes]), strict=True):
            tally.add(truth, read)
            if only is not None:
                part.add(*([[c for c in g if c in only] for g in gs] for gs in (truth, read)))
    return tally if only is None else (tally, part)


def _row(name: str, t: Any) -> str:
    return (
        f"| {name} | {t.precision:.4f} ({t.right_cards}/{t.read_cards}) | {t.recall:.4f} "
        f"({t.right_cards}/{t.true_cards}) | {t.exact_rate:.3f} ({t.exact}/{t.scenes}) | {t.kinds_text()} |"
    )


PART_HEAD = "| models | card precision | card recall | missed / wrong colour / wrong figure / extra |\n|---|---|---|---|"


def _part_row(name: str, t: Any) -> str:
    return (
        f"| {name} | {t.precision:.4f} ({t.right_cards}/{t.read_cards}) | {t.recall:.4f} "
        f"({t.right_cards}/{t.true_cards}) | {t.kinds_text()} |"
    )


# The five usual teaching photos (``vision.teach.TEACHING_SETS``), in their order.
PHOTO_SETS = ("red", "blue", "green", "yellow", "specials")


TABLE_HEAD = (
    "| models | card precision | card recall | exact scenes | missed / wrong colour / wrong figure / extra |\n"
    "|---|---|---|---|---|"
)


def main() -> None:
    from companion.cli.deck import add_detector_options
    from vision.families import Family

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", default="tabbed", choices=[f.value for f in Family])
    ap.add_argument("--scenes", type=int, default=100, help="scenes drawn with the deck")
    ap.add_argument("--minutes", type=float, default=15.0, help="teaching time")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="teaching threads and processes")
    ap.add_argument("--seed", type=int, default=0, help="which deck design of the family")
    ap.add_argument("--keep", type=Path, default=None, help="teach into this decks folder and keep the deck")
    ap.add_argument("--base", type=Path, default=None, help="models to read with first and teach from")
    ap.add_argument("--kept", type=int, default=0, help="then learn the deck again from N kept photos")
    ap.add_argument("--dev", action="store_true", help=f"read the teaching dev scenes (seeds {DEV_SEED}+)")
    ap.add_argument(
        "--bold-tables", type=float, default=None, help="share of teaching scenes on printed cloths"
    )
    ap.add_argument(
        "--render-share", type=float, default=None, help="share of the teaching time spent rendering"
    )
    ap.add_argument(
        "--classifier-share",
        type=float,
        default=None,
        help="share of the teaching time training the classifier",
    )
    ap.add_argument("--detector-lr", type=float, default=None, help="the taught detector's learning rate")
    add_detector_options(ap)
    ap.add_argument(
        "--photos",
        default=",".join(PHOTO_SETS),
        help="the teaching photos to teach from (comma-separated: red, blue, green, yellow, specials)",
    )
    args = ap.parse_args()
    chosen = [t.strip() for t in args.photos.split(",") if t.strip()]
    if not chosen or any(t not in PHOTO_SETS for t in chosen):
        raise SystemExit(f"--photos takes some of: {', '.join(PHOTO_SETS)}")

    from vision.detector import MODELS_DIR
    from vision.teach import (
        BOLD_TABLES,
        CLASSIFIER_SHARE,
        DETECTOR_FEWEST_BATCHES,
        DETECTOR_LR,
        RENDER_SHARE,
        TEACHING_SETS,
        teach,
        teaching_photos,
    )

    first = DEV_SEED if args.dev else FIRST_SEED
    bold = BOLD_TABLES if args.bold_tables is None else args.bold_tables
    share = RENDER_SHARE if args.render_share is None else args.render_share
    cls_share = CLASSIFIER_SHARE if args.classifier_share is None else args.classifier_share
    lr = DETECTOR_LR if args.detector_lr is None else args.detector_lr

    design = _design(args.family, args.seed)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(
        f"deck: family {args.family}, design {args.seed} (corner {design.corner_style}, face {design.face}, "
        f"centre {design.centre_style}, Wild {design.wild_mark}, Skip {design.skip_mark}); {args.scenes} scenes "
        f"drawn with it alone, held-out tables, seeds {first}+; {bold:g} of teaching scenes on printed cloths, "
        f"{share:g} of the time rendering, {cls_share:g} training the classifier, "
        + {
            True: "the base detector kept",
            False: f"the detector learning at {lr:g}",
            None: f"the detector learning at {lr:g} (with the index twice at the top: where the machine has time "
            f"for {DETECTOR_FEWEST_BATCHES} batches, else kept)",
        }[args.keep_detector]
        + f"; teaching photos: {', '.join(chosen)}"
    )
    spawn = multiprocessing.get_context("spawn")
    jobs = [(first + i, args.family, args.seed) for i in range(args.scenes)]
    with ProcessPoolExecutor(args.threads, mp_context=spawn) as pool:
        scenes = list(pool.map(_render, jobs, chunksize=4))
    base = args.base.resolve() if args.base else MODELS_DIR
    photos = [
        p for name, p in zip(PHOTO_SETS, teaching_photos(design, args.seed), strict=True) if name in chosen
    ]
    untaught = {str(c) for cards in TEACHING_SETS for c in cards} - {
        c for _, cards in photos for c in cards.split()
    }
    shipped, shipped_untaught = _tally(base, scenes, untaught)
    decks = args.keep or Path(tempfile.mkdtemp(prefix="bench-decks-"))
    t0 = time.monotonic()
    batch_ends: list[float] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "detector" and done > len(batch_ends):
            batch_ends.append(time.monotonic())

    folder = teach(
        decks,
        f"bench-{args.family}",
        photos,
        minutes=args.minutes,
        progress=progress,
        threads=args.threads,
        base_models=base,
        bold_tables=bold,
        render_share=share,
        classifier_share=cls_share,
        detector_lr=lr,
        keep_detector=args.keep_detector,
    )
    took = time.monotonic() - t0
    taught, taught_untaught = _tally(folder, scenes, untaught)

    print()
    print(TABLE_HEAD)
    print(_row("shipped" if args.base is None else f"{args.base} (before teaching)", shipped))
    print(_row(f"taught from {len(photos)} photos", taught))
    print(_pace(batch_ends))
    if untaught:
        left = ", ".join(name for name in PHOTO_SETS if name not in chosen)
        print(f"\nthe cards of the photos not taught ({left}) alone:")
        print(PART_HEAD)
        print(_part_row("before teaching", shipped_untaught))
        print(_part_row("taught", taught_untaught))
    print(
        f"\nteaching: {took / 60:.1f} min of {args.minutes:g} allowed, {args.threads} threads; deck in {folder}"
    )
    _stages(folder)
    if args.kept:
        _kept_figures(args, decks, folder, photos, scenes)


def _stages(folder: Path) -> None:
    figures = json.loads((folder / "deck.json").read_text())["figures"]
    print(f"stages (s): {figures['seconds']}; scenes {figures['scenes']}; classifier {figures['classifier']}")
    print(f"detector {figures['detector']}; kept photos {figures.get('kept_photos')}")


def _kept_figures(
    args: argparse.Namespace,
    decks: Path,
    folder: Path,
    photos: list[tuple[bytes, str]],
    scenes: list[tuple[bytes, list[tuple[str, ...]]]],
) -> None:
    """Learn the taught deck again from ``args.kept`` kept photos, and (the control) from its teaching photos
    alone for the same time, each from the taught deck's models; print both readings."""
    import shutil

    from vision.teach import teach

    name = folder.name
    base = decks / f"{name}-taught"
    shutil.copytree(folder, base)
    kept = decks / "kept"
    spawn = multiprocessing.get_context("spawn")
    jobs = [(KEPT_SEED + i, args.family, args.seed, str(kept), name) for i in range(args.kept)]
    with ProcessPoolExecutor(args.threads, mp_context=spawn) as pool:
        list(pool.map(_keep, jobs))
    t0 = time.monotonic()
    again = teach(decks, name, [], minutes=args.minutes, threads=args.threads, kept=kept)
    took = time.monotonic() - t0
    with_kept = _tally(again, scenes)
    _stages(again)
    shutil.copytree(again, decks / f"{name}-with-kept")
    control = teach(
        decks, f"{name}-control", photos, minutes=args.minutes, threads=args.threads, base_models=base
    )
    more = _tally(control, scenes)
    _stages(control)
    print()
    print(TABLE_HEAD.replace("| models |", "| from the taught deck's models, for as long again |", 1))
    print(_row(f"learnt again from {args.kept} kept photos ({took / 60:.1f} min)", with_kept))
    print(_row("control: learnt on from the teaching photos alone", more))


if __name__ == "__main__":
    main()
