"""One teaching run at a time for the whole server, in its own process, with its progress in a file.

Learning a deck takes minutes of every core, so it never runs in a request: ``start`` hands the photos to a new
process (``python -m companion.decks.job``) and returns at once. The run is marked by an exclusive ``flock`` on
``.teaching.lock`` in the decks folder: ``start`` takes it and the process inherits it, and the kernel lets go
of it when that process ends however it ends, so a crashed run never blocks the next one and every server
process (waitress threads, gunicorn workers) sees the same answer. The process writes its progress to
``.teaching.json`` beside it, whole each time, which any server process can read.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .store import write_json

LOCK_FILE = ".teaching.lock"
PROGRESS_FILE = ".teaching.json"
JOB_DIR = ".teaching"
SPEC_FILE = "spec.json"
LOG_FILE = "log.txt"
RUNNING = ("starting", "running")
ROOT = Path(__file__).resolve().parents[2]


class Busy(RuntimeError):
    """A teaching run is going on already; ``progress`` is what it last wrote."""

    def __init__(self, progress: dict[str, Any]) -> None:
        super().__init__("a deck is being taught on this server now")
        self.progress = progress


def _lock_fd(decks: Path) -> int | None:
    """An open descriptor holding the teaching lock, or ``None`` when a run holds it."""
    import fcntl  # POSIX only: where it is missing, the decks pages say teaching cannot run (TRAINING_MODULES)

    decks.mkdir(parents=True, exist_ok=True)
    fd = os.open(decks / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def running(decks: Path) -> bool:
    """Whether a teaching run holds the lock now."""
    if not (decks / LOCK_FILE).exists():
        return False
    fd = _lock_fd(decks)
    if fd is None:
        return True
    os.close(fd)
    return False


@contextlib.contextmanager
def no_new_run(decks: Path) -> Iterator[str | None]:
    """Holds the teaching lock for the block when no run holds it, so that no run starts meanwhile (``start``
    waits a moment for it), and yields ``None``; when a run holds it already, yields the name of the deck that
    run is teaching. What changes a deck on disk does so inside this block, and never to the deck taught now."""
    try:
        fd = _lock_fd(decks)
    except ImportError:
        # No flock here: no run can be started on this server either (the decks pages say so).
        yield None
        return
    if fd is None:
        progress = status(decks)
        yield str(progress.get("name") or "") if progress.get("state") in RUNNING else None
        return
    try:
        yield None
    finally:
        os.close(fd)


def read_progress(decks: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((decks / PROGRESS_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def status(decks: Path) -> dict[str, Any]:
    """The last teaching run as its process left it: ``state`` is ``idle`` (none yet), ``starting``,
    ``running``, ``done`` or ``failed``. A run that stopped without saying so (killed, the machine restarted)
    reads as failed with code ``stopped``."""
    progress = read_progress(decks)
    if progress is None:
        return {"state": "idle"}
    if progress.get("state") in RUNNING and not running(decks):
        # Read again: the run may have written its end between the first read and the lock test.
        progress = read_progress(decks) or progress
        if progress.get("state") in RUNNING:
            progress = {**progress, "state": "failed", "code": "stopped", "error": "the teaching run stopped"}
    return progress


def start(
    decks: Path,
    name: str,
    photos: Sequence[tuple[bytes, str]],
    *,
    minutes: float,
    teacher: str,
    threads: int | None = None,
    kept: Path | None = None,
    keep_detector: bool | None = None,
) -> dict[str, Any]:
    """Start teaching the deck ``name`` from ``photos`` (bytes, card list) in a new process, and from the photos
    kept for training in ``kept`` that were read with it (with no ``photos``: the deck learnt again from its own
    faces and those), keeping the detector it starts from or teaching it as ``keep_detector`` says
    (``vision.teach.teach``'s); returns the progress it starts with. Raises :class:`Busy` when a run is going on
    already."""
    fd = _lock_fd(decks)
    # A run that has written its end lets go of the lock as its process exits, a moment later.
    deadline = time.monotonic() + 3
    while fd is None and status(decks).get("state") not in RUNNING and time.monotonic() < deadline:
        time.sleep(0.05)
        fd = _lock_fd(decks)
    if fd is None:
        raise Busy(status(decks))
    try:
        job = decks / JOB_DIR
        shutil.rmtree(job, ignore_errors=True)
        job.mkdir()
        listed = []
        for i, (data, cards) in enumerate(photos, 1):
            path = job / f"photo-{i}.jpg"
            path.write_bytes(data)
            listed.append({"photo": str(path), "cards": cards})
        job_id = secrets.token_hex(8)
        spec = {
            "job": job_id,
            "decks": str(decks),
            "name": name,
            "photos": listed,
            "minutes": minutes,
            "teacher": teacher,
            "threads": threads or os.cpu_count() or 1,
            "kept": str(kept) if kept is not None else None,
            "keep_detector": keep_detector,
        }
        (job / SPEC_FILE).write_text(json.dumps(spec))
        now = time.time()
        progress = {
            "job": job_id,
            "name": name,
            "state": "starting",
            "stage": "starting",
            "done": 0,
            "total": 0,
            "photos": len(photos),
            "minutes": minutes,
            "started_at": now,
            "updated_at": now,
        }
        write_json(decks / PROGRESS_FILE, progress)
        with (job / LOG_FILE).open("ab") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "companion.decks.job", str(job / SPEC_FILE), str(fd)],
                pass_fds=(fd,),
                # Its own session: a Ctrl+C meant for the server, or the server's restart, leaves the run alone.
                start_new_session=True,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
            )
        # Reaped when it ends, so a long-lived server keeps no finished run as a zombie.
        threading.Thread(target=process.wait, name=f"teaching-{job_id}", daemon=True).start()
        return progress
    finally:
        # The process holds the lock through its inherited copy of this descriptor from here on.
        os.close(fd)


class ProgressFile:
    """The teaching run's progress callback (``vision.teach.teach``'s ``progress(stage, done, total)``): writes
    the progress file when the stage changes and at most every ``every`` seconds within a stage."""

    def __init__(self, decks: Path, base: dict[str, Any], every: float = 0.5) -> None:
        self.path = decks / PROGRESS_FILE
        self.state = dict(base)
        self.every = every
        self.written = 0.0

    def write(self, **changes: Any) -> None:
        self.state.update(changes, updated_at=time.time())
        write_json(self.path, self.state)
        self.written = time.monotonic()

    def __call__(self, stage: str, done: int, total: int) -> None:
        changed = stage != self.state.get("stage") or done >= total
        self.state.update(stage=stage, done=int(done), total=int(total))
        if changed or time.monotonic() - self.written >= self.every:
            self.write(state="running")
