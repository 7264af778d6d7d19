"""Uploads are hostile until decoded: every bad file gets a clean BadImageError, nothing else."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.decode import BadImageError, decode, read_bytes


def _jpeg(w: int = 64, h: int = 48) -> bytes:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, : w // 2] = (0, 0, 255)  # left half red, to see where it ends up after rotation
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return buf.tobytes()


def _with_orientation(jpeg: bytes, orientation: int) -> bytes:
    ifd = struct.pack("<H", 1) + struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack("<I", 0)
    tiff = b"II*\x00" + struct.pack("<I", 8) + ifd
    payload = b"Exif\x00\x00" + tiff
    app1 = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return jpeg[:2] + app1 + jpeg[2:]


def _png_header(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"hello, this is text and not a photo", "not a photo"),
        (b"GIF89a" + b"\x00" * 40, "not a photo"),
        (_jpeg()[:200], "incomplete"),
        (_jpeg()[: len(_jpeg()) // 2 + 300], "incomplete"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "damaged"),
        (_png_header(100_000, 100_000) + b"IEND", "too large"),
        (_png_header(64, 64), "incomplete"),
    ],
    ids=[
        "empty",
        "text",
        "gif",
        "jpeg-head-only",
        "jpeg-cut-in-half",
        "jpeg-no-frame",
        "png-bomb",
        "png-cut",
    ],
)
def test_bad_uploads_are_refused_with_a_message(data: bytes, message: str) -> None:
    with pytest.raises(BadImageError, match=message):
        decode(data)


def test_a_huge_jpeg_is_refused_from_its_header() -> None:
    # A JPEG header claiming 60000 x 60000 pixels; the refusal must come before any decoding.
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, 60000, 60000, 1) + b"\x01\x11\x00"
    data = b"\xff\xd8" + sof + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00" + b"\x00" * 16 + b"\xff\xd9"
    with pytest.raises(BadImageError, match="too large"):
        decode(data)


def test_max_pixels_is_configurable() -> None:
    with pytest.raises(BadImageError, match="too large"):
        decode(_jpeg(64, 48), max_pixels=1000)
    assert decode(_jpeg(64, 48), max_pixels=64 * 48).width == 64


def test_missing_file_and_folder_are_bad_images(tmp_path: Path) -> None:
    with pytest.raises(BadImageError, match="no such file"):
        read_bytes(tmp_path / "nope.jpg")
    with pytest.raises(BadImageError, match="folder"):
        read_bytes(tmp_path)


@pytest.mark.parametrize(
    ("orientation", "size"), [(1, (64, 48)), (3, (64, 48)), (6, (48, 64)), (8, (48, 64))]
)
def test_exif_orientation_is_applied(orientation: int, size: tuple[int, int]) -> None:
    d = decode(_with_orientation(_jpeg(), orientation))
    assert (d.width, d.height) == size
    assert d.image.shape[1::-1] == size
    red = d.image[..., 2] > 128
    # Orientation 6 turns the photo clockwise: the red left half ends up on top.
    where = {1: red[:, :20].all(), 3: red[:, -20:].all(), 6: red[:20].all(), 8: red[-20:].all()}
    assert where[orientation]


def test_big_jpegs_are_decoded_at_reduced_size() -> None:
    big = np.full((3024, 4032, 3), 200, np.uint8)
    _ok, buf = cv2.imencode(".jpg", big)
    d = decode(buf.tobytes())
    assert (d.width, d.height) == (4032, 3024)
    assert d.image.shape[:2] == (756, 1008)
    assert d.scale == 4
