"""Hostile-input-safe photo decoding: format and size checks before any pixel is decoded, EXIF orientation,
and reduced-size JPEG decoding (a 12-MP photo is read at a quarter of its size, which is all the models need).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

DEFAULT_MAX_PIXELS = 50_000_000
# Long side the models need; larger photos are decoded at 1/2, 1/4 or 1/8 down to at least this.
TARGET_LONG_SIDE = 1000


class BadImageError(ValueError):
    """The upload is not a usable photo; the message can be shown to a player as it is."""


@dataclass(frozen=True, slots=True)
class Decoded:
    image: np.ndarray  # BGR, upright (EXIF orientation applied), possibly reduced
    width: int  # original size after orientation
    height: int
    scale: float  # original pixels per decoded pixel


def _jpeg_info(data: bytes) -> tuple[int, int, int]:
    """(width, height, EXIF orientation) from a JPEG's headers; raises BadImageError when it is truncated."""
    i, n = 2, len(data)
    size: tuple[int, int] | None = None
    orientation = 1
    while i + 4 <= n:
        if data[i] != 0xFF:
            raise BadImageError("the JPEG file is damaged")
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        seg = data[i + 4 : i + 2 + length]
        if marker == 0xE1 and seg[:6] == b"Exif\x00\x00":
            orientation = _exif_orientation(seg[6:])
        elif marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            if len(seg) >= 5:
                h, w = struct.unpack(">HH", seg[1:5])
                size = (w, h)
        elif marker == 0xDA:
            if size is None:
                break
            # The scan runs to the end-of-image marker; without one the upload was cut off.
            if data.rfind(b"\xff\xd9", i) < 0:
                raise BadImageError("the JPEG file is incomplete (the upload was cut off)")
            return size[0], size[1], orientation
        i += 2 + length
    raise BadImageError("the JPEG file is damaged or incomplete")


def _exif_orientation(tiff: bytes) -> int:
    try:
        endian = "<" if tiff[:2] == b"II" else ">"
        (ifd,) = struct.unpack(endian + "I", tiff[4:8])
        (count,) = struct.unpack(endian + "H", tiff[ifd : ifd + 2])
        for k in range(count):
            e = ifd + 2 + 12 * k
            tag, _typ, _cnt = struct.unpack(endian + "HHI", tiff[e : e + 8])
            if tag == 0x0112:
                (value,) = struct.unpack(endian + "H", tiff[e + 8 : e + 10])
                return value if 1 <= value <= 8 else 1
    except struct.error:
        pass
    return 1


def _png_size(data: bytes) -> tuple[int, int]:
    if len(data) < 33 or data[12:16] != b"IHDR":
        raise BadImageError("the PNG file is damaged")
    w, h = struct.unpack(">II", data[16:24])
    if data.rfind(b"IEND") < 0:
        raise BadImageError("the PNG file is incomplete (the upload was cut off)")
    return w, h


def _orient(img: np.ndarray, orientation: int) -> np.ndarray:
    """Apply an EXIF orientation (1-8) so the image stands as the photographer saw it."""
    if orientation == 2:
        return cv2.flip(img, 1)
    if orientation == 3:
        return cv2.rotate(img, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(img, 0)
    if orientation == 5:
        return cv2.flip(cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE), 1)
    if orientation == 6:
        return cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:
        return cv2.flip(cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE), 1)
    if orientation == 8:
        return cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return img


def read_bytes(source: bytes | str | Path) -> bytes:
    if isinstance(source, bytes | bytearray | memoryview):
        return bytes(source)
    path = Path(source)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise BadImageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise BadImageError(f"{path} is a folder, not a photo") from None
    except OSError as exc:
        raise BadImageError(f"cannot read {path}: {exc.strerror}") from None


def decode(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS, target: int = TARGET_LONG_SIDE) -> Decoded:
    """Check and decode a JPEG or PNG photo; raises :class:`BadImageError` with a player-readable message."""
    if not data:
        raise BadImageError("the file is empty")
    orientation = 1
    if data[:3] == b"\xff\xd8\xff":
        w, h, orientation = _jpeg_info(data)
        is_jpeg = True
    elif data[:8] == b"\x89PNG\r\n\x1a\n":
        w, h = _png_size(data)
        is_jpeg = False
    else:
        raise BadImageError("this is not a photo: send a JPEG or PNG image")
    if w <= 0 or h <= 0:
        raise BadImageError("the image has no pixels")
    if w * h > max_pixels:
        raise BadImageError(
            f"the image is too large ({w}x{h} = {w * h / 1e6:.0f} megapixels; at most {max_pixels / 1e6:.0f})"
        )
    factor = 1
    if is_jpeg:
        while factor < 8 and max(w, h) / (factor * 2) >= target:
            factor *= 2
    flags = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4}.get(
        factor, cv2.IMREAD_REDUCED_COLOR_8
    )
    img = cv2.imdecode(np.frombuffer(data, np.uint8), flags | cv2.IMREAD_IGNORE_ORIENTATION)
    if img is None or img.size == 0:
        raise BadImageError("the image could not be decoded (damaged file)")
    if orientation != 1:
        img = _orient(img, orientation)
    if orientation in (5, 6, 7, 8):
        w, h = h, w
    scale = w / img.shape[1]
    return Decoded(img, w, h, scale)
