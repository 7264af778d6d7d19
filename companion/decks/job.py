"""The teaching run's process: ``python -m companion.decks.job SPEC LOCK_FD``, started by
``companion.decks.teaching.start`` (never by hand: the descriptor it is given is the held teaching lock).

It runs the configured teacher (``vision.teach.teach`` unless the server's settings name another) on the photos
the spec lists and the folder of photos kept for training, with the progress written to the decks folder, and
ends by writing the result or the reason it failed; the photos are deleted once they have been learnt from.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .teaching import ProgressFile, read_progress


def _teacher(spec: str) -> Callable[..., Path]:
    module, _, name = spec.partition(":")
    function: Callable[..., Path] = getattr(importlib.import_module(module), name)
    return function


def _keep_detector(value: object) -> bool | None:
    """The spec's keep_detector as ``vision.teach.teach`` takes it: only a JSON true or false decides; anything
    else lets the run decide by its pace."""
    return value if isinstance(value, bool) else None


def run(spec_path: Path) -> int:
    spec = json.loads(spec_path.read_text())
    decks = Path(spec["decks"])
    progress = ProgressFile(decks, read_progress(decks) or {"job": spec["job"], "name": spec["name"]})
    progress.write(state="running", pid=os.getpid())
    try:
        photos = [(Path(p["photo"]).read_bytes(), str(p["cards"])) for p in spec["photos"]]
        kept = spec.get("kept")
        folder = _teacher(spec["teacher"])(
            decks,
            spec["name"],
            photos,
            minutes=float(spec["minutes"]),
            progress=progress,
            threads=int(spec["threads"]),
            kept=Path(kept) if kept else None,
            keep_detector=_keep_detector(spec.get("keep_detector")),
        )
        end: dict[str, Any] = {"state": "done", "deck": Path(folder).name}
    except Exception as exc:
        code = getattr(getattr(exc, "code", None), "value", None)
        if not isinstance(code, str):
            # Not a refusal of the photos: the whole story goes to the log beside them.
            traceback.print_exc()
            code = "crashed"
        values = getattr(exc, "values", None)
        end = {
            "state": "failed",
            "code": code,
            "error": str(exc) or type(exc).__name__,
            # The refusal's values, so the page words it in its own language (vision.teach.TeachingError).
            "values": values if isinstance(values, dict) else {},
        }
    # The photos go before the end is written: once it is, the next run may start and use the same folder.
    for p in spec["photos"]:
        Path(p["photo"]).unlink(missing_ok=True)
    progress.write(**end)
    return 0 if end["state"] == "done" else 1


def main(argv: Sequence[str]) -> int:
    spec_path, lock_fd = Path(argv[0]), int(argv[1])
    # The lock is held as long as this descriptor is open, in this process and the workers it forks: never
    # closed here, so the run holds it until it ends.
    os.set_inheritable(lock_fd, False)
    # Below the web server: players at the table keep a quick server while a deck is learnt.
    with contextlib.suppress(OSError):
        os.nice(10)
    return run(spec_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
