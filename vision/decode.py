"""Hostile-input-safe photo decoding: format, structure and size checks before any pixel is decoded, EXIF
orientation, and reduced-size JPEG decoding (a 12-MP photo is read at a quarter of its size, which is all the models
need).

The checks read the file the way the decoders do (libjpeg-turbo and libpng inside OpenCV) and refuse anything where
the two readings could differ, so that the size that was checked is the size that is decoded. Besides the pixel
count they bound what else makes decoding slow or large: the scans of a progressive JPEG, which all have to be held
in memory and each pass over the whole image; the full-size decode of a PNG; compressed PNG text; and the number of
pieces a file is made of, since every piece costs a step here.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

DEFAULT_MAX_PIXELS = 50_000_000
# Long side the models need; larger photos are decoded at 1/2, 1/4 or 1/8 down to at least this.
TARGET_LONG_SIDE = 1000

# libjpeg's standard progressive script writes 10 scans for a colour photo and phones write at most about a dozen;
# every scan is a pass over the whole image, so a file with many more is built to be slow to decode.
MAX_JPEG_SCANS = 32
# A progressive (or otherwise multi-scan) JPEG is decoded by holding every 8x8 block's 64 coefficients (2 bytes
# each) in memory until the last scan; this caps that buffer, which comes on top of a worker's models. It admits
# any 12-MP photo and a 27-MP one with the usual colour subsampling, and with MAX_JPEG_SCANS it bounds the time
# the scans take.
MAX_JPEG_COEFFICIENT_BYTES = 80 * 2**20
# A camera JPEG has a few dozen headers and metadata blocks (a 16-MB file has room for some 250 full-size ones);
# each one costs a step here, so a file made of thousands is refused before it costs more.
MAX_JPEG_SEGMENTS = 1000
# PNG has no reduced-size decode and OpenCV holds the image twice while reading it, so a PNG costs some 6 bytes per
# pixel; a 16-MB PNG of a real photo has far fewer pixels than this (screenshots of 5K screens still fit).
PNG_MAX_PIXELS = 16_000_000
# libpng inflates every compressed text or ICC chunk (up to 8 MB each) even though nothing here uses them;
# photo editors write one or two.
MAX_PNG_COMPRESSED_CHUNKS = 8
# libpng writes 8-KB IDAT chunks, so a 16-MB PNG has about 2000; a file of tiny chunks costs a step here for each.
MAX_PNG_CHUNKS = 20_000

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Huffman-coded baseline, extended sequential and progressive frames: what cameras and editors write.
_SOF_READ = {0xC0: False, 0xC1: False, 0xC2: True}  # marker -> progressive
# Every other frame header (lossless, hierarchical, arithmetic-coded); DHT (C4), JPG (C8) and DAC (CC) are not
# frame headers.
_SOF_OTHER = frozenset({0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})
_DHT, _EOI, _SOS, _DQT, _DRI, _APP1, _COM = 0xC4, 0xD9, 0xDA, 0xDB, 0xDD, 0xE1, 0xFE
# Segments a photo carries before or between its scans: tables, restart interval, application data, comments.
_TABLES = frozenset({_DHT, _DQT, _DRI, _COM, *range(0xE0, 0xF0)})
_FILL = re.compile(rb"\xff+")
# The JPEG standard's example luminance table (ITU-T T.81, Annex K.1), which libjpeg scales by its quality setting
# (quality q < 50: by 50 / q; else by 2 - q / 50). Only its sum is used, so the order of its entries does not matter.
_STANDARD_LUMA_SUM = sum(
    [
        *(16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56),
        *(14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92),
        *(49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99),
    ]
)
# A marker as libjpeg finds one in or after a scan: 0xFF (any run of them), then a byte that is neither 0x00 (a
# stuffed 0xFF inside the coded data) nor a restart marker (D0-D7, which the decoder consumes inside a scan and
# ignores between segments). Matching the last 0xFF of a run keeps the search linear.
_MARKER = re.compile(rb"\xff[^\x00\xff\xd0-\xd7]")


class BadImageError(ValueError):
    """The upload is not a usable photo; the message can be shown to a player as it is."""


@dataclass(frozen=True, slots=True)
class Decoded:
    image: np.ndarray  # BGR, upright (EXIF orientation applied), possibly reduced
    width: int  # original size after orientation
    height: int
    scale: float  # original pixels per decoded pixel
    # About the libjpeg quality (1-100) the JPEG was saved at, from how coarse its luminance table is; None for a
    # PNG. Camera encoders use tables of their own, so it says how much detail was thrown away, not the setting.
    jpeg_quality: int | None = None


@dataclass(frozen=True, slots=True)
class _Frame:
    width: int
    height: int
    progressive: bool
    components: dict[int, tuple[int, int]]  # component id -> (horizontal, vertical) sampling factor

    def coefficient_bytes(self) -> int:
        """The whole-image coefficient buffer libjpeg allocates for a multi-scan file (as jdcoefct.c sizes it)."""
        hmax = max(h for h, _ in self.components.values())
        vmax = max(v for _, v in self.components.values())
        total = 0
        for h, v in self.components.values():
            wide = math.ceil(self.width * h / (8 * hmax))
            high = math.ceil(self.height * v / (8 * vmax))
            total += math.ceil(wide / h) * h * math.ceil(high / v) * v
        return total * 64 * 2


def _damaged(what: str) -> BadImageError:
    return BadImageError(f"the photo is damaged ({what}): take or choose it again")


def _cut_off() -> BadImageError:
    return BadImageError("the photo is incomplete (the upload was cut off): send it again")


def _header_cut() -> BadImageError:
    # The headers alone cannot tell a file cut short from one whose lengths are wrong.
    return BadImageError("the photo is damaged or incomplete: take or choose it again")


def _read_sof(seg: bytes, marker: int) -> _Frame:
    if len(seg) < 6:
        raise _damaged("its image header is too short")
    precision, height, width, count = struct.unpack(">BHHB", seg[:6])
    if len(seg) != 6 + 3 * count:
        raise _damaged("its image header has the wrong length")
    if precision != 8:
        raise BadImageError(
            f"this photo uses {precision}-bit JPEG, which cameras do not write: save it again as a normal JPEG"
        )
    if count not in (1, 3, 4):
        raise BadImageError(
            f"this photo has an unusual colour format ({count} channels): save it again as a JPEG"
        )
    if width == 0 or height == 0:
        raise BadImageError("the image has no pixels")
    components: dict[int, tuple[int, int]] = {}
    for k in range(count):
        cid, sampling = seg[6 + 3 * k], seg[7 + 3 * k]
        h, v = sampling >> 4, sampling & 0x0F
        # libjpeg renumbers repeated component ids, after which scans would not map onto components as read here.
        if cid in components or not (1 <= h <= 4 and 1 <= v <= 4):
            raise _damaged("its colour channels are described wrongly")
        components[cid] = (h, v)
    return _Frame(width, height, _SOF_READ[marker], components)


def _check_sos(seg: bytes, frame: _Frame | None) -> None:
    if frame is None:
        raise _damaged("it has no image header")
    count = seg[0] if seg else 0
    if not 1 <= count <= 4 or len(seg) != 4 + 2 * count:
        raise _damaged("a scan header has the wrong length")
    ids = {seg[1 + 2 * k] for k in range(count)}
    if len(ids) != count or not ids <= frame.components.keys():
        raise _damaged("a scan names colour channels the image does not have")


def _segment(data: bytes, i: int) -> tuple[int, bytes]:
    """(end, payload) of the segment whose length field starts at ``i``."""
    if i + 2 > len(data):
        raise _header_cut()
    (length,) = struct.unpack(">H", data[i : i + 2])
    if length < 2:
        raise _damaged("a header has an impossible length")
    end = i + length
    if end > len(data):
        raise _header_cut()
    return end, data[i + 2 : end]


def _luma_quality(seg: bytes) -> int | None:
    """The quality (1-100) at which libjpeg writes a luminance table as coarse on average as table 0 of this DQT
    segment, or ``None`` when the segment does not define table 0 (or is malformed: the decoder judges that)."""
    i = 0
    while i < len(seg):
        precision, table = seg[i] >> 4, seg[i] & 0x0F
        size = 128 if precision else 64
        values = seg[i + 1 : i + 1 + size]
        if len(values) < size:
            return None
        if table == 0:
            entries = struct.unpack(">64H", values) if precision else tuple(values)
            scale = 100 * sum(entries) / _STANDARD_LUMA_SUM  # libjpeg's percentage
            quality = (200 - scale) / 2 if scale <= 100 else 5000 / scale
            return max(1, min(100, round(quality)))
        i += 1 + size
    return None


def _too_many_pieces() -> BadImageError:
    return BadImageError("this photo is made of too many pieces to be a camera photo")


def _jpeg_headers(data: bytes) -> tuple[_Frame, int, int, int, int | None]:
    """(frame, EXIF orientation, where the first scan's coded data starts, number of segments, quality as
    :func:`_luma_quality` estimates it) of a JPEG, read as libjpeg reads it.

    Up to the first scan every segment must follow the previous one directly (0xFF fill bytes allowed): libjpeg
    skips stray bytes there with only a warning, so a parser that read them as anything else could be shown a
    frame header that libjpeg never sees, and libjpeg one that the parser never saw.
    """
    n = len(data)
    frame: _Frame | None = None
    orientation = 0
    segments = 0
    quality: int | None = None
    i = 2
    while True:
        if i >= n:
            raise _header_cut()
        if data[i] != 0xFF:
            raise _damaged("there are stray bytes between its headers")
        fill = _FILL.match(data, i)
        assert fill is not None
        i = fill.end()
        if i >= n:
            raise _header_cut()
        marker = data[i]
        if marker == 0x00:
            raise _damaged("there are stray bytes between its headers")
        if marker == _EOI:
            raise _damaged("it has no image in it")
        if marker in _SOF_OTHER:
            raise BadImageError(
                "this photo uses a kind of JPEG that cameras do not write (lossless, hierarchical or "
                "arithmetic-coded): save it again as a normal JPEG"
            )
        # Restart markers, a second start-of-image and reserved markers have no place before the first scan.
        if marker != _SOS and marker not in _SOF_READ and marker not in _TABLES:
            raise _damaged("it contains a marker that does not belong in a photo")
        end, seg = _segment(data, i + 1)
        segments += 1
        if segments > MAX_JPEG_SEGMENTS:
            raise _too_many_pieces()
        if marker in _SOF_READ:
            if frame is not None:
                raise _damaged("it has two image headers")
            frame = _read_sof(seg, marker)
        elif marker == _APP1 and orientation == 0 and seg[:6] == b"Exif\x00\x00":
            orientation = _exif_orientation(seg[6:])
        elif marker == _DQT:
            # The table the first scan uses is the last one defined before it.
            quality = _luma_quality(seg) or quality
        elif marker == _SOS:
            _check_sos(seg, frame)
            assert frame is not None  # _check_sos refuses a scan before the frame
            return frame, orientation or 1, end, segments, quality
        i = end


def _jpeg_scans(data: bytes, i: int, frame: _Frame, segments: int) -> tuple[int, int]:
    """(number of scans, end of the image) of a JPEG whose first scan's coded data starts at ``i``.

    Markers are found here as libjpeg finds them, in the coded data and between segments alike: nothing it reads
    as a marker is skipped, and the first end-of-image marker ends the image, as it ends libjpeg's reading (phones
    put preview images and videos after it).
    """
    scans = 1
    while True:
        m = _MARKER.search(data, i)
        if m is None:
            raise _cut_off()
        marker = data[m.start() + 1]
        if marker == _EOI:
            return scans, m.end()
        if marker in _SOF_READ or marker in _SOF_OTHER:
            raise _damaged("it has two image headers")
        if marker != _SOS and marker not in _TABLES:
            raise _damaged("it contains a marker that does not belong in a photo")
        i, seg = _segment(data, m.end())
        segments += 1
        if segments > MAX_JPEG_SEGMENTS:
            raise _too_many_pieces()
        if marker == _SOS:
            _check_sos(seg, frame)
            scans += 1
            if scans > MAX_JPEG_SCANS:
                raise BadImageError(
                    f"this photo has too many scans to be a camera photo (more than {MAX_JPEG_SCANS}): "
                    "save it again as a normal JPEG"
                )


def _check_coefficients(frame: _Frame) -> None:
    need = frame.coefficient_bytes()
    if need > MAX_JPEG_COEFFICIENT_BYTES:
        pixels = frame.width * frame.height
        most = MAX_JPEG_COEFFICIENT_BYTES / need * pixels
        raise BadImageError(
            f"this photo is a progressive JPEG too large to read ({pixels / 1e6:.0f} megapixels; at most "
            f"{math.floor(most / 1e6)} for this kind of JPEG): send a smaller copy or save it as a normal JPEG"
        )


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
    if len(data) < 33 or data[8:16] != b"\x00\x00\x00\x0dIHDR":
        raise BadImageError("the PNG image is damaged: take or choose it again")
    w, h = struct.unpack(">II", data[16:24])
    return w, h


def _png_end(data: bytes) -> int:
    """Where the PNG's IEND chunk ends, after checking every chunk before it; what follows is not read."""
    n = len(data)
    i = 8
    chunks = compressed = 0
    while True:
        if i + 8 > n:
            raise BadImageError("the PNG image is incomplete (the upload was cut off): send it again")
        length: int
        kind: bytes
        length, kind = struct.unpack_from(">I4s", data, i)
        end = i + 12 + length
        if length > 0x7FFFFFFF or not kind.isalpha():
            raise BadImageError("the PNG image is damaged: take or choose it again")
        if end > n:
            raise BadImageError("the PNG image is incomplete (the upload was cut off): send it again")
        chunks += 1
        if chunks > MAX_PNG_CHUNKS:
            raise BadImageError("this PNG image is made of too many pieces to be a photo")
        if kind == b"IEND":
            return end
        if kind == b"IHDR" and chunks > 1:
            raise BadImageError(
                "the PNG image is damaged (it has two image headers): take or choose it again"
            )
        if not kind[0] & 0x20 and kind not in (b"IHDR", b"PLTE", b"IDAT"):
            # A critical chunk is one a decoder must understand; what libpng does not know it cannot read.
            raise BadImageError(
                "the PNG image is damaged (it contains a part that does not belong in a photo): "
                "take or choose it again"
            )
        elif kind in (b"acTL", b"fcTL", b"fdAT"):
            raise BadImageError("animated PNG images are not photos: send a still photo")
        elif kind in (b"zTXt", b"iCCP") or (kind == b"iTXt" and _itxt_compressed(data, i + 8, end - 4)):
            compressed += 1
            if compressed > MAX_PNG_COMPRESSED_CHUNKS:
                raise BadImageError("this PNG image has too much compressed text in it to be a photo")
        i = end


def _itxt_compressed(data: bytes, start: int, stop: int) -> bool:
    # keyword (1-79 bytes), a zero byte, then the compression flag
    z = data.find(b"\x00", start, min(stop, start + 80))
    return z < 0 or z + 1 >= stop or data[z + 1] != 0


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


def _check_pixels(w: int, h: int, max_pixels: int, kind: str = "") -> None:
    if w <= 0 or h <= 0:
        raise BadImageError("the image has no pixels")
    if w * h > max_pixels:
        advice = f" for a {kind}: send it as a JPEG or a smaller copy" if kind else ""
        raise BadImageError(
            f"the image is too large ({w}x{h} = {w * h / 1e6:.0f} megapixels; at most "
            f"{max_pixels / 1e6:.0f}{advice})"
        )


def decode(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS, target: int = TARGET_LONG_SIDE) -> Decoded:
    """Check and decode a JPEG or PNG photo; raises :class:`BadImageError` with a player-readable message."""
    if not data:
        raise BadImageError("the file is empty")
    orientation = 1
    factor = 1
    quality: int | None = None
    # The format is pinned here, by its first bytes: OpenCV picks its decoder from the same bytes, so a file that
    # passed the checks of one format is never handed to another decoder.
    if data[:3] == b"\xff\xd8\xff":
        frame, orientation, start, segments, quality = _jpeg_headers(data)
        w, h = frame.width, frame.height
        _check_pixels(w, h, max_pixels)
        if frame.progressive:
            _check_coefficients(frame)
        scans, end = _jpeg_scans(data, start, frame, segments)
        if scans > 1:
            # A sequential JPEG in several scans is buffered whole like a progressive one.
            _check_coefficients(frame)
        while factor < 8 and max(w, h) / (factor * 2) >= target:
            factor *= 2
    elif data[:8] == _PNG_SIGNATURE:
        w, h = _png_size(data)
        if max_pixels > PNG_MAX_PIXELS:
            _check_pixels(w, h, PNG_MAX_PIXELS, "PNG")
        _check_pixels(w, h, max_pixels)
        end = _png_end(data)
    else:
        raise BadImageError("this is not a photo: send a JPEG or PNG image")
    flags = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4}.get(
        factor, cv2.IMREAD_REDUCED_COLOR_8
    )
    # Only the image itself goes to the decoder, not what follows its end (and was not checked).
    img = cv2.imdecode(np.frombuffer(data, np.uint8, count=end), flags | cv2.IMREAD_IGNORE_ORIENTATION)
    if img is None or img.size == 0:
        raise BadImageError("the image could not be decoded (damaged file)")
    # libjpeg scales by rounding up; any other size means the decoder read a different image than was checked.
    if img.shape[:2] != (-(-h // factor), -(-w // factor)):
        raise _damaged("its picture does not match its header")
    if orientation != 1:
        img = _orient(img, orientation)
    if orientation in (5, 6, 7, 8):
        w, h = h, w
    scale = w / img.shape[1]
    return Decoded(img, w, h, scale, quality)
