"""Score keeper figures (issue 3): round saves through the API under concurrent clients, and page weight.

Starts gunicorn (sync workers) on loopback with a fresh SQLite file, lets CLIENTS threads each keep one game and
save ROUNDS rounds to it as fast as they can, and prints the latency distribution of the saves. Then measures what
a phone downloads on its first visit to a game page (HTML + CSS + JS, uncompressed).

    .venv/bin/python bench/bench_web.py [--clients 20] [--rounds 30] [--workers 4] [--think MS]

With --think 0 every client saves again the moment its last save returns, which measures the server saturated
(latency is then queueing: clients / throughput). A table saves a round every few minutes; --think 500 (twenty
tables saving twice a second each, together 40 saves/s) is still far above real use.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["Ana", "Ben", "Cy", "Dee"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(method: str, url: str, body: object | None = None, token: str | None = None) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def round_body(number: int) -> dict[str, object]:
    # The player going out turns round the table; the others hold a few cards and miss their phase.
    out = NAMES[(number - 1) % len(NAMES)]
    players: dict[str, object] = {n: {"laid_down": False, "points": 5 * (1 + i)} for i, n in enumerate(NAMES)}
    players[out] = {"laid_down": True}
    return {"round": number, "went_out": out, "players": players}


def wait_until_up(base: str, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(200):
        if proc.poll() is not None:
            raise SystemExit("gunicorn exited; see its output above")
        try:
            urllib.request.urlopen(base + "/", timeout=1).read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("gunicorn did not answer within 20 s")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def page_weight(base: str, game_id: str) -> tuple[int, dict[str, int]]:
    html = urllib.request.urlopen(f"{base}/games/{game_id}").read()
    sizes = {"html": len(html)}
    for asset in re.findall(rb'(?:href|src)="(/static/[^"]+)"', html):
        sizes[asset.decode()] = len(urllib.request.urlopen(base + asset.decode()).read())
    return sum(sizes.values()), sizes


def follower_polls(base: str, game_ids: list[str], per_client: int = 50) -> list[float]:
    """Share pages polling unchanged games with If-None-Match, one thread per game, back to back."""
    latencies: list[float] = []
    lock = threading.Lock()

    def follower(game_id: str) -> None:
        url = f"{base}/api/games/{game_id}"
        with urllib.request.urlopen(url) as first:
            etag = first.headers["ETag"]
        for _ in range(per_client):
            request = urllib.request.Request(url, headers={"If-None-Match": etag})
            t0 = time.perf_counter()
            try:
                urllib.request.urlopen(request, timeout=30).read()
                status = 200
            except urllib.error.HTTPError as exc:
                status = exc.code
            with lock:
                latencies.append((time.perf_counter() - t0) * 1000)
            assert status == 304, status

    threads = [threading.Thread(target=follower, args=(g,)) for g in game_ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean pause in ms between one client's saves (0: back to back, the server saturated)",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, SECRET_KEY="bench " * 8, DATABASE_URL=f"sqlite:///{tmp}/bench.sqlite3")
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from companion.app import create_app\nfrom flask_migrate import upgrade\n"
                "app = create_app()\nwith app.app_context(): upgrade()",
            ],
            env=env,
            check=True,
            cwd=ROOT,
            capture_output=True,
        )
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        gunicorn = Path(sys.executable).with_name("gunicorn")
        proc = subprocess.Popen(
            [
                str(gunicorn),
                "-w",
                str(args.workers),
                "-b",
                f"127.0.0.1:{port}",
                "--log-level",
                "warning",
                "companion.app:create_app()",
            ],
            env=env,
            cwd=ROOT,
        )
        try:
            wait_until_up(base, proc)
            games = []
            for _ in range(args.clients):
                status, body = call("POST", f"{base}/api/games", {"players": NAMES})
                assert status == 201, body
                data = json.loads(body)
                games.append((data["id"], data["edit_token"]))

            latencies: list[float] = []
            failures: list[int] = []
            lock = threading.Lock()
            start = threading.Barrier(args.clients)

            def client(game_id: str, token: str) -> None:
                start.wait()
                pace = random.Random(game_id)
                for number in range(1, args.rounds + 1):
                    if args.think:
                        time.sleep(pace.uniform(0, 2 * args.think) / 1000)
                    t0 = time.perf_counter()
                    status, _ = call("POST", f"{base}/api/games/{game_id}/rounds", round_body(number), token)
                    elapsed = time.perf_counter() - t0
                    with lock:
                        latencies.append(elapsed * 1000)
                        if status != 201:
                            failures.append(status)

            threads = [threading.Thread(target=client, args=game) for game in games]
            wall = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - wall
            total, sizes = page_weight(base, games[0][0])
            polls = follower_polls(base, [g for g, _ in games])
        finally:
            proc.terminate()
            proc.wait(timeout=30)

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )
    print(
        f"gunicorn sync workers: {args.workers}; SQLite (WAL); clients: {args.clients}; "
        f"rounds per client: {args.rounds}; think time: {args.think:.0f} ms; saves: {len(latencies)}; non-201 answers: {len(failures)}"
    )
    print(
        f"round save latency ms: median {statistics.median(latencies):.1f}  p95 {percentile(latencies, 95):.1f}  "
        f"p99 {percentile(latencies, 99):.1f}  max {max(latencies):.1f}"
    )
    print(f"throughput: {len(latencies) / wall:.0f} saves/s over {wall:.1f} s")
    print(
        f"share-page poll (304, {len(polls)} polls from {args.clients} followers back to back) ms: "
        f"median {statistics.median(polls):.1f}  p95 {percentile(polls, 95):.1f}"
    )
    print(
        f"game page first load: {total} bytes ({total / 1024:.1f} KiB) = "
        + ", ".join(f"{k} {v}" for k, v in sizes.items())
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
