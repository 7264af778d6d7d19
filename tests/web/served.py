"""Serving an app on a loopback port from a thread, for tests that need real concurrent requests, and running
the real ``phase10 serve`` in a subprocess, for tests of the server itself."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from flask import Flask
from werkzeug.serving import make_server


@contextmanager
def served(app: Flask) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _default_sigint() -> None:
    # A shell that starts a job in the background ignores SIGINT for it; the server must see Ctrl+C.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@dataclass
class Serving:
    """A running ``phase10 serve``: its address, its process, and what it printed."""

    port: int
    process: subprocess.Popen[str]
    banner: str
    stderr_path: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def wait_for_log(self, text: str, limit: float = 30) -> str:
        """stderr once it holds ``text``: the log line is written as the response is closed, a moment after the
        client has read it. The limit only keeps a broken server from hanging the test."""
        deadline = time.monotonic() + limit
        while text not in (log := self.stderr()) and time.monotonic() < deadline:
            time.sleep(0.05)
        return log


@contextmanager
def phase10_serve(tmp_path: Path, *args: str) -> Iterator[Serving]:
    """``phase10 serve`` in a subprocess on a free loopback port, with a fresh SQLite file; stopped at the end."""
    port = free_port()
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp_path}/served.sqlite3", SECRET_KEY="served test " * 4)
    stderr_path = tmp_path / "serve.stderr"
    with stderr_path.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port), *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            preexec_fn=_default_sigint if os.name == "posix" else None,
        )
    # A server that neither starts nor exits would block the read below for ever.
    watchdog = threading.Timer(120, process.kill)
    watchdog.start()
    try:
        assert process.stdout is not None
        lines = []
        while line := process.stdout.readline():
            lines.append(line)
            if "Press Ctrl+C" in line:
                break
        watchdog.cancel()
        banner = "".join(lines)
        assert "Press Ctrl+C" in banner, banner + stderr_path.read_text()
        yield Serving(port, process, banner, stderr_path)
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.terminate()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()
