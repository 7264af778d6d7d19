"""Photos people took of their own cards: how the camera reads them, printed (not asserted).

    python bench/bench_photos.py DIR [DIR ...] [--deck NAME | --models DIR] [--errors]

Every other figure of the camera reads rendered scenes; this bench reads photos of real cards where someone has
them. Each DIR is either

* a folder of photos (JPEG or PNG), each with a text file of the same name beside it (``IMG_0412.jpg`` and
  ``IMG_0412.txt``) naming what the photo shows as a lay-down is typed: its groups in table order, separated by
  ``|``, each group's cards in the order they lie ("R7 B7 G7 | G3 Y4 W B6"); photos without one are left out; or
* the photos a server kept for training (its instance folder's ``training/``: ``images/`` and ``labels/``, where
  the referee page keeps a photo whose reading a player corrected), whose labels name the cards, not their groups.

Each photo is read the app's way (``vision.reader.read_photo``: the photo's bytes decoded as an upload is, with
the shipped models, a taught deck's (``--deck NAME``, from ``PHASE10_DECKS`` or the instance folder's
``decks/``) or the models in ``--models DIR``) and scored as the benches score rendered scenes
(``vision.evaluate.Tally``): card precision and recall over the multiset of cards per photo, exact photos (every
group read as named; for kept photos, every card), and what went wrong (missed, wrong colour, wrong figure,
extra). ``--errors`` lists each photo read wrong.

A taught deck learns from the photos kept while it read, so kept photos read with the deck they taught are not
photos it has never seen: score a deck on photos kept after its last teaching, or on a folder of its own.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", type=Path, metavar="DIR", help="photos with what they show")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--deck", metavar="NAME", help="read with a deck taught by 'phase10 deck teach'")
    which.add_argument("--models", type=Path, metavar="DIR", help="read with the models in DIR")
    ap.add_argument("--errors", action="store_true", help="list each photo read wrong")
    args = ap.parse_args(argv)

    from vision.evaluate import Tally, error_kinds, labelled_photos
    from vision.reader import BadImageError, read_photo

    models = args.models
    if args.deck:
        from companion.cli.deck import deck_models
        from vision.teach import TeachingError

        try:
            models = deck_models(args.deck)
        except TeachingError as exc:
            ap.error(str(exc))
    try:
        photos = [p for folder in args.folders for p in labelled_photos(folder)]
    except (OSError, ValueError) as exc:
        ap.error(str(exc))

    tally = Tally()
    unread = []
    wrong = []
    for photo in photos:
        try:
            reading = read_photo(photo.path, models_dir=models)
        except BadImageError as exc:
            unread.append(f"{photo.path}: {exc}")
            continue
        read = photo.scored([[str(c) for c in g] for g in reading.groups])
        if not tally.add(photo.groups, read):
            kinds = error_kinds(photo.groups, read)
            wrong.append(
                f"{photo.path.name}: named {' | '.join(' '.join(g) for g in photo.groups)}; read "
                f"{' | '.join(' '.join(g) for g in read) or 'nothing'} "
                f"({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()) if n)})"
            )

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"models: {models or 'shipped'}; photos: {len(photos)} in {', '.join(map(str, args.folders))}\n")
    print(
        "| photos | card precision | card recall | exact photos | missed / wrong colour / wrong figure / extra |"
    )
    print("|---|---|---|---|---|")
    print(
        f"| {tally.scenes} | {tally.precision:.4f} ({tally.right_cards}/{tally.read_cards}) | {tally.recall:.4f} "
        f"({tally.right_cards}/{tally.true_cards}) | {tally.exact_rate:.3f} ({tally.exact}/{tally.scenes}) | "
        f"{tally.kinds_text()} |"
    )
    for line in unread:
        print(f"not read: {line}")
    if args.errors:
        print()
        for line in wrong:
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
