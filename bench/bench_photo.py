"""Photo referee figures: upload to verdict through the app, printed (not asserted).

    .venv/bin/python bench/bench_photo.py [--runs N] [--concurrent N]

A 4032x3024 JPEG (12.2 MP) of a laid-down phase 2, rendered with the camera's card renderer, is posted to
``POST /api/check`` through the Flask test client (multipart parsing, upload checks, decode, detection,
classification, layout, the referee and the JSON answer: everything but the network). Figures: median and p90 of
the whole request, the camera's own split (decode, inference, post) and the tap-entry JSON check for comparison;
with ``--concurrent N``, N uploads at once through a threaded server (wall time per photo).
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.app import create_app  # noqa: E402
from companion.referee import camera  # noqa: E402

LAY_DOWN = "R7 B7 G7 | G3 Y4 W B6"


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def multipart(photo: bytes) -> tuple[bytes, str]:
    boundary = "bench-boundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="phase"\r\n\r\n2\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="phase.jpg"\r\n'
        "Content-Type: image/jpeg\r\n\r\n"
    ).encode()
    return head + photo + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--concurrent", type=int, default=2)
    args = parser.parse_args()

    status = camera.status()
    if not status.ready:
        print(f"bench_photo: the camera cannot read photos here: {status.message}", file=sys.stderr)
        return 1
    from tests.photo.scenes import phase_photo

    photo = phase_photo(LAY_DOWN, size=(4032, 3024), quality=90)
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {"SECRET_KEY": "bench " * 8, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/bench.sqlite3"}
        )
        client = app.test_client()

        def upload() -> dict:
            data = {"phase": "2", "photo": (io.BytesIO(photo), "phase.jpg")}
            response = client.post("/api/check", data=data, content_type="multipart/form-data")
            assert response.status_code == 200, response.get_json()
            return response.get_json()

        first = upload()  # loads the models once for the process
        totals, splits = [], {"decode": [], "inference": [], "post": []}
        for _ in range(args.runs):
            t0 = time.perf_counter()
            body = upload()
            totals.append((time.perf_counter() - t0) * 1000)
            for key in splits:
                splits[key].append(body["timings_ms"].get(key, 0.0))
        typed = []
        for _ in range(200):
            t0 = time.perf_counter()
            client.post("/api/check", json={"phase": 2, "groups": LAY_DOWN})
            typed.append((time.perf_counter() - t0) * 1000)

        print(f"machine: {machine()}")
        print(
            f"photo: 4032x3024 JPEG, {len(photo) / 1e6:.1f} MB; verdict: valid={first['valid']}, cards read: "
            + " | ".join(" ".join(first["cards"][k]["card"] for k in g) for g in first["detected"])
        )
        print(
            f"upload to verdict (POST /api/check, {args.runs} runs): median {statistics.median(totals):.0f} ms, "
            f"p90 {pct(totals, 0.9):.0f} ms (target: median <= 300 ms)"
        )
        print(
            "  camera split (median): "
            + ", ".join(f"{k} {statistics.median(v):.0f} ms" for k, v in splits.items())
        )
        print(
            f"tap entry (JSON check, 200 runs): median {statistics.median(typed):.2f} ms, p99 {pct(typed, 0.99):.2f} ms"
        )

        if args.concurrent > 1:
            from werkzeug.serving import make_server

            logging.getLogger("werkzeug").setLevel(logging.WARNING)

            server = make_server("127.0.0.1", 0, app, threaded=True)
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
            body, content_type = multipart(photo)
            url = f"http://127.0.0.1:{server.server_port}/api/check"

            def one() -> None:
                req = urllib.request.Request(url, data=body, headers={"Content-Type": content_type})
                with urllib.request.urlopen(req, timeout=120) as response:
                    response.read()

            rounds = []
            for _ in range(5):
                workers = [threading.Thread(target=one) for _ in range(args.concurrent)]
                t0 = time.perf_counter()
                for w in workers:
                    w.start()
                for w in workers:
                    w.join()
                rounds.append((time.perf_counter() - t0) * 1000)
            server.shutdown()
            wall = statistics.median(rounds)
            print(
                f"{args.concurrent} uploads at once over HTTP: median wall {wall:.0f} ms for all, "
                f"{wall / args.concurrent:.0f} ms per photo"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
