"""Slow clients (security review, finding 4): how long a page takes while uploads stall, per server.

Starts ``phase10 serve`` (waitress), then gunicorn with 4 sync workers, then the same gunicorn behind nginx
configured as the README says (when nginx is installed), each on a loopback port with a fresh SQLite file, and times GETs of the home page from a few client threads: first alone, then while STALLED clients
hold photo uploads open (headers promising 1 MiB, a few bytes of body, then nothing). waitress reads a request whole
before a thread sees it, so a stalled upload holds only a connection; a sync worker reads the body itself and is
held until gunicorn's worker timeout (30 s) kills it, which is why gunicorn must sit behind a buffering proxy.

A GET that gets no answer within --timeout counts as one that took at least that long; once --timeout has passed
in a phase no client starts another GET, so the run ends by itself (about --timeout seconds for the gunicorn
phase with stalled uploads, a few seconds for the others).

    .venv/bin/python bench/bench_slow_clients.py [--gets 200] [--clients 4] [--stalled 20] [--timeout 60]
"""

from __future__ import annotations

import argparse
import math
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_referee import machine  # noqa: E402

# The buffering proxy the README puts in front of gunicorn, with the same settings.
NGINX_CONF = """
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    server {{
        listen 127.0.0.1:{port};
        server_tokens off;
        client_max_body_size 16m;
        client_header_timeout 10s;
        client_body_timeout 10s;
        send_timeout 10s;
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_request_buffering on;
            proxy_buffering on;
            proxy_set_header Host $host;
        }}
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(base: str, proc: subprocess.Popen[bytes], name: str) -> None:
    for _ in range(600):
        if proc.poll() is not None:
            raise SystemExit(f"{name} exited with status {proc.returncode}")
        try:
            urllib.request.urlopen(base + "/", timeout=5).read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{name} did not answer within a minute")


@contextmanager
def running(command: list[str], env: dict[str, str], base: str, name: str) -> Iterator[None]:
    proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(base, proc, name)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def stall(port: int, count: int) -> list[socket.socket]:
    stalled = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(
            f"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: multipart/form-data; boundary=x\r\n"
            f"Content-Length: {1024 * 1024}\r\n\r\n".encode()
            + b"--x\r\n"
        )
        stalled.append(sock)
    return stalled


def dropped(stalled: list[socket.socket]) -> int:
    """How many stalled uploads the server has answered or closed (their socket turned readable)."""
    readable, _, _ = select.select(stalled, [], [], 0)
    return len(readable)


def timed_gets(base: str, gets: int, clients: int, timeout: float) -> tuple[list[float], int]:
    """Latencies in ms of ``gets`` GETs of / from ``clients`` threads (inf for no answer), and how many were
    never started because the phase ran past ``timeout``."""
    latencies: list[float] = []
    lock = threading.Lock()
    deadline = [0.0]
    start = threading.Barrier(clients, action=lambda: deadline.__setitem__(0, time.monotonic() + timeout))

    def client(share: int) -> None:
        start.wait()
        for _ in range(share):
            if time.monotonic() > deadline[0]:
                return
            t0 = time.perf_counter()
            try:
                with urllib.request.urlopen(base + "/", timeout=timeout) as response:
                    response.read()
                    ms = (time.perf_counter() - t0) * 1000 if response.status == 200 else math.inf
            except OSError:
                ms = math.inf
            with lock:
                latencies.append(ms)

    shares = [gets // clients + (i < gets % clients) for i in range(clients)]
    threads = [threading.Thread(target=client, args=(share,)) for share in shares]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, gets - len(latencies)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def shown(ms: float, timeout: float) -> str:
    return f">{timeout * 1000:.0f}" if math.isinf(ms) else f"{ms:.1f}"


def measure(name: str, base: str, port: int, args: argparse.Namespace) -> None:
    for count in (0, args.stalled):
        stalled = stall(port, count)
        try:
            latencies, skipped = timed_gets(base, args.gets, args.clients, args.timeout)
            closed = dropped(stalled) if stalled else 0
        finally:
            for sock in stalled:
                sock.close()
        answered = sum(not math.isinf(ms) for ms in latencies)
        note = []
        if skipped:
            note.append(f"{skipped} not started: the phase ran past {args.timeout:.0f} s")
        if count:
            note.append(f"stalled uploads dropped by the server meanwhile: {closed}/{count}")
        print(
            f"{name:<28} {count:>7} {answered:>4}/{len(latencies):<4} "
            + " ".join(
                f"{shown(percentile(latencies, p), args.timeout):>9}" if latencies else f"{'-':>9}"
                for p in (50, 95, 100)
            )
            + ("   " + "; ".join(note) if note else ""),
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gets", type=int, default=200, help="GETs of / per phase (default 200)")
    parser.add_argument("--clients", type=int, default=4, help="client threads sending them (default 4)")
    parser.add_argument(
        "--stalled", type=int, default=20, help="stalled uploads in the second phase (default 20)"
    )
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds a GET may wait, and a phase may run (default 60)"
    )
    args = parser.parse_args()

    print(f"machine: {machine()}")
    print(
        f"{args.gets} GETs of / from {args.clients} client threads, a new connection each; a stalled upload is "
        "a photo upload (POST /api/check) promising 1 MiB that sends 5 bytes of it"
    )
    print(
        f"{'server':<28} {'stalled':>7} {'answered':>9} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9}", flush=True
    )
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = dict(os.environ, SECRET_KEY="bench " * 8, DATABASE_URL=f"sqlite:///{tmp}/serve.sqlite3")
        serve = [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port)]
        with running(serve, env, base, "phase10 serve"):
            measure("phase10 serve (waitress)", base, port, args)

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = dict(os.environ, SECRET_KEY="bench " * 8, DATABASE_URL=f"sqlite:///{tmp}/gunicorn.sqlite3")
        migrate = [sys.executable, "-m", "flask", "--app", "companion.app:create_app", "db", "upgrade"]
        subprocess.run(migrate, env=env, cwd=ROOT, check=True, capture_output=True)
        gunicorn = [
            str(Path(sys.executable).with_name("gunicorn")),
            "-w",
            "4",
            "-b",
            f"127.0.0.1:{port}",
            "companion.app:create_app()",
        ]
        with running(gunicorn, env, base, "gunicorn"):
            measure("gunicorn -w 4 (sync workers)", base, port, args)

        nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
        if nginx is None:
            print("nginx -> gunicorn -w 4: not measured (no nginx on this machine)")
            return 0
        upstream, port = free_port(), free_port()
        base = f"http://127.0.0.1:{port}"
        conf = Path(tmp) / "nginx.conf"
        conf.write_text(NGINX_CONF.format(tmp=tmp, port=port, upstream=upstream))
        gunicorn[4] = f"127.0.0.1:{upstream}"
        with (
            running(gunicorn, env, f"http://127.0.0.1:{upstream}", "gunicorn"),
            running([nginx, "-c", str(conf), "-g", "daemon off;"], env, base, "nginx"),
        ):
            measure("nginx -> gunicorn -w 4", base, port, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
