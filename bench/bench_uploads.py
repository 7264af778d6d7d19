"""Hostile uploads against the photo decoder: for each file, whether it is refused (and with what message) or read,
how long the decode takes and the peak resident memory of the process that did it.

    .venv/bin/python bench/bench_uploads.py [--no-app]

The files are built here, in memory, from real JPEGs and PNGs (nothing is written but temporary files). Each one is
decoded by ``vision.decode.decode`` in a fresh Python process, so that one file's memory cannot hide another's; the
peak is that process's VmHWM after the decode (interpreter, OpenCV and the file's bytes included). Each file is then
posted to ``POST /api/check`` of the real app in another fresh process, after one ordinary photo has loaded the card
models (a worker as it runs), with that request's HTTP status, time and the process's peak memory.

The budget: every file is refused, or read within 2 s and 400 MB, by the decode and by the app (the request's time,
the worker's peak, no server error); the last line says whether all were.
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_referee import machine  # noqa: E402

BUDGET_SECONDS = 2.0
BUDGET_MB = 400
MiB = 2**20
_MARKER = re.compile(rb"\xff[^\x00\xff\xd0-\xd7]")


def peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- building the files ---------------------------------------------------------------------------------------


def photo_like(w: int, h: int, seed: int = 0) -> np.ndarray:
    """A picture with a photo's mix of smooth areas and fine detail (so JPEG sizes are realistic)."""
    rng = np.random.default_rng(seed)
    coarse = rng.integers(0, 256, (h // 48 + 2, w // 48 + 2, 3), dtype=np.uint8)
    img = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
    img += rng.integers(0, 10, (h, w, 1), dtype=np.uint8)
    return img


def jpeg(img: np.ndarray, *params: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, list(params))
    assert ok
    return buf.tobytes()


def flat(w: int, h: int) -> np.ndarray:
    return np.full((h, w, 3), 128, np.uint8)


def parts(data: bytes) -> list[bytes]:
    """A JPEG written by OpenCV cut into its pieces: SOI, each segment (a scan with its coded data), EOI."""
    out, i = [data[:2]], 2
    while data[i + 1] != 0xD9:
        end = i + 2 + struct.unpack(">H", data[i + 2 : i + 4])[0]
        if data[i + 1] == 0xDA:
            m = _MARKER.search(data, end)
            assert m is not None
            end = m.start()
        out.append(data[i:end])
        i = end
    return [*out, data[i:]]


def sof_index(p: list[bytes]) -> int:
    return next(k for k, s in enumerate(p) if s[1] in (0xC0, 0xC1, 0xC2))


def with_size(sof: bytes, w: int, h: int) -> bytes:
    return sof[:5] + struct.pack(">HH", h, w) + sof[9:]


def scans_of(p: list[bytes]) -> list[list[bytes]]:
    """Each scan with the tables written just before it."""
    out: list[list[bytes]] = []
    pending: list[bytes] = []
    for s in p[sof_index(p) + 1 : -1]:
        pending.append(s)
        if s[1] == 0xDA:
            out.append(pending)
            pending = []
    return out


def ff00_hidden_frame(side: int) -> bytes:
    """A 100x100 JPEG whose real frame header says side x side, hidden behind FF 00 read as a segment length."""
    p = parts(jpeg(photo_like(100, 100)))
    k = sof_index(p)
    fake, real = p[k], with_size(p[k], side, side)
    hidden = real + b"\xff\xfe" + struct.pack(">H", len(fake) + 2)
    jump = b"\xff\x00" + struct.pack(">H", len(hidden) + 2) + hidden
    return b"".join([p[0], jump, fake, *p[1:k], *p[k + 1 :]])


def scan_bomb(w: int, h: int) -> bytes:
    """A flat progressive JPEG with its AC scans (and their tables) repeated 1,000 times."""
    p = parts(jpeg(flat(w, h), cv2.IMWRITE_JPEG_PROGRESSIVE, 1))
    scans = scans_of(p)
    ac = b"".join(b"".join(s) for s in scans if s[-1][4] == 1)  # AC scans name one component
    return b"".join(p[:-1]) + ac * 1000 + p[-1]


def progressive_at_cap(img: np.ndarray, *, scans: int = 0, restart: int = 0) -> bytes:
    """A progressive JPEG; with ``scans``, its first (DC, all components) scan repeated up to that many scans."""
    params = [cv2.IMWRITE_JPEG_PROGRESSIVE, 1, cv2.IMWRITE_JPEG_QUALITY, 90]
    if restart:
        params += [cv2.IMWRITE_JPEG_RST_INTERVAL, restart]
    data = jpeg(img, *params)
    if not scans:
        return data
    p = parts(data)
    have = scans_of(p)
    dc = b"".join(have[0])
    return b"".join(p[:-1]) + dc * (scans - len(have)) + p[-1]


def progressive_444(img: np.ndarray) -> bytes:
    return jpeg(
        img,
        cv2.IMWRITE_JPEG_PROGRESSIVE,
        1,
        cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
        cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444,
    )


def baseline_16mb_444() -> bytes:
    img = photo_like(8160, 6120, seed=5)
    for quality in (90, 85, 80, 75, 70, 60, 50):
        data = jpeg(
            img,
            cv2.IMWRITE_JPEG_QUALITY,
            quality,
            cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
            cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444,
        )
        if len(data) <= 16 * MiB:
            return data
    raise AssertionError("no quality fits 16 MB")


def with_exif_orientation(data: bytes, orientation: int) -> bytes:
    ifd = struct.pack("<H", 1) + struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack("<I", 0)
    payload = b"Exif\x00\x00" + b"II*\x00" + struct.pack("<I", 8) + ifd
    return data[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + data[2:]


def phone_photo() -> bytes:
    return with_exif_orientation(jpeg(photo_like(4032, 3024, seed=1), cv2.IMWRITE_JPEG_QUALITY, 92), 6)


def relabelled(data: bytes, marker: int) -> bytes:
    p = parts(data)
    k = sof_index(p)
    p[k] = bytes([0xFF, marker]) + p[k][2:]
    return b"".join(p)


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_raw(w: int, h: int, depth: int, colour: int, filter_type: int = 0, extra: bytes = b"") -> bytes:
    """A PNG of zero samples, every row with ``filter_type``: the most pixels (and the most work) per byte."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    row = bytes([filter_type]) + bytes((w * channels * depth + 7) // 8)
    z = zlib.compressobj(1)
    block = row * 64
    body = b"".join(z.compress(block) for _ in range(h // 64)) + z.compress(row * (h % 64)) + z.flush()
    head = chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 0)) + extra
    if colour == 3:
        head += chunk(b"PLTE", bytes(range(256)) * 3)
    idat = b"".join(chunk(b"IDAT", body[i : i + 65536]) for i in range(0, len(body), 65536))
    return b"\x89PNG\r\n\x1a\n" + head + idat + chunk(b"IEND", b"")


def png_photo(w: int, h: int) -> bytes:
    # A smooth picture: a 50-MP PNG of a real photo would not fit in 16 MB.
    x = np.linspace(0, 255, w, dtype=np.float32)[None, :]
    y = np.linspace(0, 255, h, dtype=np.float32)[:, None]
    img = np.dstack([(x + 0 * y), (y + 0 * x), ((x + y) / 2)]).astype(np.uint8)
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    assert ok
    return buf.tobytes()


def ztxt_bomb() -> bytes:
    text = chunk(b"zTXt", b"comment\x00\x00" + zlib.compress(bytes(8_000_000), 9))
    return png_raw(64, 64, 8, 2, extra=text * 1500)


def huge_ihdr() -> bytes:
    small = png_raw(64, 64, 8, 2)
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0))
    return small[:8] + ihdr + small[8 + len(ihdr) :]


def random_scan() -> bytes:
    p = parts(jpeg(photo_like(4032, 3024)))
    head = b"".join(p[: next(k for k, s in enumerate(p) if s[1] == 0xDA)])
    sos = next(s for s in p if s[1] == 0xDA)
    length = struct.unpack(">H", sos[2:4])[0]
    return head + sos[: 2 + length] + os.urandom(16 * MiB - len(head) - 2 - length - 2) + b"\xff\xd9"


def small_jpeg_with_scan(fill: bytes) -> bytes:
    p = parts(jpeg(photo_like(640, 480)))
    return b"".join(p[:-1]) + fill * ((16 * MiB - sum(map(len, p))) // len(fill)) + p[-1]


def comments() -> bytes:
    p = parts(jpeg(photo_like(640, 480)))
    com = b"\xff\xfe\x00\x03x"
    return b"".join([p[0], com * 10_000, *p[1:]])


CASES: list[tuple[str, Callable[[], bytes]]] = [
    ("FF 00 hides a 12000x12000 frame", lambda: ff00_hidden_frame(12000)),
    ("FF 00 hides a 30000x30000 frame", lambda: ff00_hidden_frame(30000)),
    ("scan bomb: 49 MP progressive, AC scans x1000", lambda: scan_bomb(8100, 6050)),
    ("scan bomb: 27 MP progressive, AC scans x1000", lambda: scan_bomb(6400, 4300)),
    ("49 MP progressive photo, normal scans", lambda: progressive_at_cap(photo_like(8100, 6050, seed=2))),
    ("12 MP progressive photo, 4:4:4", lambda: progressive_444(photo_like(4032, 3024, seed=4))),
    ("27 MP progressive photo (at the cap)", lambda: progressive_at_cap(photo_like(6400, 4300, seed=3))),
    ("27 MP progressive, 32 scans (DC repeated)", lambda: progressive_at_cap(flat(6400, 4300), scans=32)),
    ("27 MP progressive, restart every block", lambda: progressive_at_cap(flat(6400, 4300), restart=1)),
    ("50 MP baseline 4:4:4 photo (16 MB)", baseline_16mb_444),
    ("12 MP phone photo (control)", phone_photo),
    ("12 MP photo relabelled arithmetic (SOF9)", lambda: relabelled(phone_photo(), 0xC9)),
    ("truncated JPEG (12 MP photo cut in half)", lambda: (lambda d: d[: len(d) // 2])(phone_photo())),
    ("JPEG with 10,000 tiny COM segments", comments),
    ("JPEG header + 16 MB of random scan data", random_scan),
    ("JPEG scan of 16 MB of FF 00 (stuffed bytes)", lambda: small_jpeg_with_scan(b"\xff\x00")),
    ("JPEG scan of 16 MB of fill bytes", lambda: small_jpeg_with_scan(b"\xff")),
    ("JPEG scan of 16 MB of restart markers", lambda: small_jpeg_with_scan(b"\xff\xd0")),
    ("50 MP PNG", lambda: png_photo(8160, 6120)),
    ("16 MP PNG, 16-bit RGBA, Paeth (at the cap)", lambda: png_raw(4618, 3464, 16, 6, filter_type=4)),
    ("16 MP PNG, 1-bit palette (at the cap)", lambda: png_raw(4618, 3464, 1, 3)),
    ("PNG with 1,500 zTXt chunks of 8 MB", ztxt_bomb),
    ("PNG with a 100000x100000 IHDR", huge_ihdr),
    (
        "PNG with 1,000,000 tEXt chunks",
        lambda: png_raw(64, 64, 8, 2, extra=chunk(b"tEXt", b"k\x00v") * 1_000_000),
    ),
    ("16 MB of random bytes", lambda: os.urandom(16 * MiB)),
]


# --- measuring ------------------------------------------------------------------------------------------------


def child_decode(path: str) -> None:
    from vision.decode import BadImageError, decode

    data = Path(path).read_bytes()
    t = time.perf_counter()
    try:
        d = decode(data)
        outcome = f"read {d.width}x{d.height} as {d.image.shape[1]}x{d.image.shape[0]}"
        refused = False
    except BadImageError as exc:
        outcome, refused = str(exc), True
    seconds = time.perf_counter() - t
    print(json.dumps({"outcome": outcome, "refused": refused, "seconds": seconds, "peak_mb": peak_mb()}))


def child_app(path: str) -> None:
    import logging

    from companion.app import create_app

    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {"SECRET_KEY": "x" * 32, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/bench.db", "TESTING": True}
        )
        client = app.test_client()

        def post(data: bytes, name: str) -> Any:
            form = {"phase": "2", "photo": (io.BytesIO(data), name)}
            return client.post("/api/check", data=form, content_type="multipart/form-data")

        warm = post(jpeg(photo_like(1600, 1200), cv2.IMWRITE_JPEG_QUALITY, 90), "warm.jpg")
        data = Path(path).read_bytes()
        name = "photo.png" if data[:4] == b"\x89PNG" else "photo.jpg"
        t = time.perf_counter()
        answer = post(data, name)
        seconds = time.perf_counter() - t
        error = (answer.get_json(silent=True) or {}).get("error", "")
        print(
            json.dumps(
                {
                    "status": answer.status_code,
                    "warm": warm.status_code,
                    "error": error,
                    "seconds": seconds,
                    "peak_mb": peak_mb(),
                }
            )
        )


def run_child(mode: str, path: Path) -> dict[str, Any]:
    try:
        out = subprocess.run(
            [sys.executable, __file__, mode, str(path)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return {"error": "timed out after 300 s"}
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"error": f"exit {out.returncode}: {out.stderr.strip().splitlines()[-1:]}"}
    answer: dict[str, Any] = json.loads(lines[-1])
    return answer


def main() -> int:
    with_app = "--no-app" not in sys.argv
    print(f"machine: {machine()}")
    print(f"budget: refused, or read within {BUDGET_SECONDS:g} s and {BUDGET_MB} MB peak resident memory")
    print()
    all_ok = True
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "upload"
        for name, build in CASES:
            data = build()
            path.write_bytes(data)
            del data
            size = path.stat().st_size
            d = run_child("--child-decode", path)
            if "error" in d:
                ok, line = False, f"decode failed: {d['error']}"
            else:
                ok = d["seconds"] <= BUDGET_SECONDS and d["peak_mb"] <= BUDGET_MB
                line = (
                    f"{'refused' if d['refused'] else 'read':7s} {d['seconds']:6.3f} s {d['peak_mb']:6.0f} MB"
                )
            all_ok &= ok
            print(f"{name:46s} {size / MiB:6.2f} MB  decode: {line}  {'ok' if ok else 'OVER BUDGET'}")
            if "outcome" in d:
                print(f"    {d['outcome']}")
            if with_app:
                a = run_child("--child-app", path)
                if "status" not in a:
                    all_ok = False
                    print(f"    app: failed: {a['error']}  OVER BUDGET")
                else:
                    app_ok = (
                        a["status"] < 500 and a["seconds"] <= BUDGET_SECONDS and a["peak_mb"] <= BUDGET_MB
                    )
                    all_ok &= app_ok
                    print(
                        f"    app: HTTP {a['status']} in {a['seconds']:.3f} s, worker peak {a['peak_mb']:.0f} MB"
                        f"  {'ok' if app_ok else 'OVER BUDGET'}"
                        # A refusal's message is the decoder's, printed above.
                        + (f"\n      {a['error']}" if a["error"] and not d.get("refused") else "")
                    )
    where = "in the decode and in the app" if with_app else "in the decode"
    print()
    if all_ok:
        print(
            f"every file met the budget {where} (refused, or read within {BUDGET_SECONDS:g} s and {BUDGET_MB} MB)"
        )
    else:
        print(
            f"NOT every file met the budget {where} (refused, or read within {BUDGET_SECONDS:g} s and {BUDGET_MB} MB)"
        )
    return 0 if all_ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child-decode":
        child_decode(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--child-app":
        child_app(sys.argv[2])
    else:
        sys.exit(main())
