"""Uploads are hostile until decoded: every bad file gets a clean BadImageError, nothing else."""

from __future__ import annotations

import re
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


@pytest.mark.parametrize(("name", "message"), [("nope.jpg", "no such file"), ("", "folder")])
def test_missing_file_and_folder_are_bad_images(tmp_path: Path, name: str, message: str) -> None:
    with pytest.raises(BadImageError, match=message):
        read_bytes(tmp_path / name)


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


# Hostile files below are built from real JPEGs and PNGs by rearranging their bytes. Each test names the finding
# it checks: (1) the pixel limit must hold for the image the decoder actually reads; (2) scans, buffers and other
# pieces that make decoding slow or large are bounded.

_MARKER = re.compile(rb"\xff[^\x00\xff\xd0-\xd7]")


def _parts(jpeg: bytes) -> list[bytes]:
    """A JPEG written by OpenCV cut into its pieces: SOI, each segment (a scan with its coded data), EOI."""
    parts, i = [jpeg[:2]], 2
    while jpeg[i + 1] != 0xD9:
        end = i + 2 + struct.unpack(">H", jpeg[i + 2 : i + 4])[0]
        if jpeg[i + 1] == 0xDA:
            m = _MARKER.search(jpeg, end)
            assert m is not None
            end = m.start()
        parts.append(jpeg[i:end])
        i = end
    return [*parts, jpeg[i:]]


def _with_size(sof: bytes, w: int, h: int) -> bytes:
    return sof[:5] + struct.pack(">HH", h, w) + sof[9:]


def _sof(parts: list[bytes]) -> int:
    return next(k for k, p in enumerate(parts) if p[1] in (0xC0, 0xC1, 0xC2))


def _com(payload: bytes) -> bytes:
    return b"\xff\xfe" + struct.pack(">H", len(payload) + 2) + payload


def _progressive(w: int = 64, h: int = 48, sampling: int | None = None) -> bytes:
    img = np.random.default_rng(3).integers(0, 256, (h, w, 3), np.uint8)
    params = [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]
    if sampling is not None:
        params += [cv2.IMWRITE_JPEG_SAMPLING_FACTOR, sampling]
    ok, buf = cv2.imencode(".jpg", img, params)
    assert ok
    return buf.tobytes()


def _hide_frame(filler: bytes) -> bytes:
    """A 64x48 JPEG whose real frame header says 2000x2000; ``filler`` + a length before it makes a parser that
    reads ``filler`` as a segment jump over it, to a 64x48 header that libjpeg sees inside a comment."""
    parts = _parts(_jpeg())
    k = _sof(parts)
    fake, real = parts[k], _with_size(parts[k], 2000, 2000)
    hidden = real + b"\xff\xfe" + struct.pack(">H", len(fake) + 2)
    jump = filler + struct.pack(">H", len(hidden) + 2) + hidden
    return b"".join([parts[0], jump, fake, *parts[1:k], *parts[k + 1 :]])


def test_ff00_before_the_frame_header_cannot_hide_it() -> None:
    """Finding 1: FF 00 read as a segment with a length hid the real 2000x2000 frame from the pixel check."""
    with pytest.raises(BadImageError, match="stray bytes"):
        decode(_hide_frame(b"\xff\x00"), max_pixels=100_000)


def test_a_fill_byte_before_ff00_cannot_hide_the_frame_header() -> None:
    """Finding 1: fill bytes (FF FF ...) before FF 00 must not open the same gap; fill bytes alone stay fine."""
    with pytest.raises(BadImageError, match="stray bytes"):
        decode(_hide_frame(b"\xff\xff\xff\x00"), max_pixels=100_000)
    parts = _parts(_jpeg())
    k = _sof(parts)
    filled = b"".join([*parts[:k], b"\xff\xff\xff", *parts[k:]])
    assert decode(filled).width == 64
    with pytest.raises(BadImageError, match="too large"):
        decode(
            b"".join([*parts[:k], b"\xff\xff", _with_size(parts[k], 2000, 2000), *parts[k + 1 :]]),
            max_pixels=10**5,
        )


@pytest.mark.parametrize("where", ["before the scan", "between scans"])
def test_two_frame_headers_are_refused(where: str) -> None:
    """Finding 1: a second frame header, wherever it is, means two readings of the size could differ."""
    parts = _parts(_progressive())
    k = _sof(parts)
    at = k + 1 if where == "before the scan" else len(parts) - 3
    data = b"".join([*parts[:at], _with_size(parts[k], 2000, 2000), *parts[at:]])
    with pytest.raises(BadImageError, match="two image headers"):
        decode(data)


def test_a_scan_without_a_frame_header_is_refused() -> None:
    """Finding 1: no frame header before the first scan leaves nothing to check the size against."""
    parts = _parts(_jpeg())
    with pytest.raises(BadImageError, match="no image header"):
        decode(b"".join(p for p in parts if p[1] != 0xC0))


@pytest.mark.parametrize(
    "marker",
    [
        b"\xff\xd0",
        b"\xff\x01",
        b"\xff\xd8",
        b"\xff\xc8\x00\x02",
        b"\xff\xf0\x00\x02",
        b"\xff\xcc\x00\x04\x00\x10",
    ],
    ids=["RST0", "TEM", "second SOI", "JPG", "JPG0", "DAC"],
)
def test_markers_that_do_not_belong_before_the_scan_are_refused(marker: bytes) -> None:
    """Finding 1: markers libjpeg skips, rejects or reads differently have no place before the first scan."""
    parts = _parts(_jpeg())
    k = _sof(parts)
    with pytest.raises(BadImageError, match="does not belong"):
        decode(b"".join([*parts[:k], marker, *parts[k:]]))


@pytest.mark.parametrize("marker", [0xC3, 0xC5, 0xC9, 0xCA, 0xCB, 0xCF])
def test_lossless_hierarchical_and_arithmetic_frames_are_refused(marker: int) -> None:
    """Finding 1: frame kinds no camera writes are refused by name (libjpeg decodes some without scaling down)."""
    parts = _parts(_jpeg())
    k = _sof(parts)
    parts[k] = bytes([0xFF, marker]) + parts[k][2:]
    with pytest.raises(BadImageError, match="cameras do not write"):
        decode(b"".join(parts))


def test_the_decoded_image_must_have_the_size_of_the_header(monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 1: if the decoder still reads a different size than was checked, the image is refused."""
    real = cv2.imdecode

    def twice_as_big(buf: np.ndarray, flags: int) -> np.ndarray:
        img = real(buf, flags)
        assert img is not None
        return cv2.resize(img, (128, 96))

    monkeypatch.setattr(cv2, "imdecode", twice_as_big)
    with pytest.raises(BadImageError, match="does not match its header"):
        decode(_jpeg())


def test_only_the_checked_image_reaches_the_decoder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 1: what follows the end of the image (a phone's preview or video, or a bigger image) is not read."""
    seen: list[int] = []
    real = cv2.imdecode

    def spy(buf: np.ndarray, flags: int) -> np.ndarray | None:
        seen.append(len(buf))
        return real(buf, flags)

    monkeypatch.setattr(cv2, "imdecode", spy)
    jpeg, png = _jpeg(), _png(64, 48)
    assert decode(jpeg + _jpeg(640, 480)).width == 64
    assert decode(png + b"trailing bytes").width == 64
    assert seen == [len(jpeg), len(png)]


def test_too_many_scans_are_refused() -> None:
    """Finding 2: a progressive JPEG with its scans repeated costs a pass over the image for every scan."""
    parts = _parts(_progressive())
    first = next(k for k, p in enumerate(parts) if p[1] == 0xDA) - 1  # the table before the first scan
    scans = parts[first:-1]
    assert sum(p[1] == 0xDA for p in scans) == 10
    bomb = b"".join([*parts[:first], *scans, *scans, *scans, *scans, parts[-1]])
    with pytest.raises(BadImageError, match="too many scans"):
        decode(bomb)
    # The last scan (a refinement of the brightness, with its table) repeated up to the limit and one past it.
    last = parts[-3] + parts[-2]
    at_limit = b"".join([*parts[:-1], last * (32 - 10), parts[-1]])
    assert sum(p[1] == 0xDA for p in _parts(at_limit)) == 32
    with pytest.raises(BadImageError, match="too many scans"):
        decode(b"".join([*parts[:-1], last * (33 - 10), parts[-1]]))
    assert decode(at_limit).width == 64


@pytest.mark.parametrize("progressive", [True, False])
def test_a_buffered_jpeg_is_held_to_a_coefficient_budget(progressive: bool) -> None:
    """Finding 2: a multi-scan JPEG holds all its coefficients; 30 MP without colour subsampling needs 180 MB."""
    if progressive:
        parts = _parts(_progressive(sampling=cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444))
    else:
        # A sequential JPEG in two scans is buffered the same way.
        _ok, buf = cv2.imencode(
            ".jpg",
            np.zeros((48, 64, 3), np.uint8),
            [cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444],
        )
        one = _parts(buf.tobytes())
        parts = [*one[:-1], *[p for p in one if p[1] == 0xDA], one[-1]]
    k = _sof(parts)
    big = [*parts[:k], _with_size(parts[k], 6000, 5000), *parts[k + 1 :]]
    with pytest.raises(BadImageError, match="progressive JPEG too large"):
        decode(b"".join(big))
    # The same size in one baseline scan needs no such buffer.
    baseline = _parts(_jpeg())
    k = _sof(baseline)
    assert (
        decode(b"".join([*baseline[:k], _with_size(baseline[k], 6000, 5000), *baseline[k + 1 :]])).width
        == 6000
    )


def test_a_jpeg_made_of_thousands_of_segments_is_refused() -> None:
    """Finding 2: every segment costs a step of the check; 10,000 tiny comments are not a camera photo."""
    parts = _parts(_jpeg())
    assert decode(b"".join([parts[0], _com(b"x") * 100, *parts[1:]])).width == 64
    with pytest.raises(BadImageError, match="too many pieces"):
        decode(b"".join([parts[0], _com(b"x") * 10_000, *parts[1:]]))


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png(w: int, h: int, *, before_idat: bytes = b"") -> bytes:
    ok, buf = cv2.imencode(".png", np.full((h, w, 3), 90, np.uint8))
    assert ok
    data = buf.tobytes()
    at = 8 + 25  # after the signature and the IHDR chunk
    return data[:at] + before_idat + data[at:]


def test_a_png_over_its_own_pixel_cap_is_refused() -> None:
    """Finding 2: a PNG is decoded at full size, so it has a lower cap than a JPEG."""
    with pytest.raises(BadImageError, match="at most 16 for a PNG"):
        decode(_png(5000, 4000))
    assert decode(_png(640, 480), max_pixels=1_000_000).width == 640
    with pytest.raises(BadImageError, match="too large"):
        decode(_png(640, 480), max_pixels=100_000)


def test_compressed_png_text_is_bounded() -> None:
    """Finding 2: libpng inflates every zTXt chunk (up to 8 MB each), though nothing here reads them."""
    text = _chunk(b"zTXt", b"comment\x00\x00" + zlib.compress(bytes(1_000_000), 9))
    assert decode(_png(64, 48, before_idat=text * 2)).width == 64
    with pytest.raises(BadImageError, match="compressed text"):
        decode(_png(64, 48, before_idat=text * 9))


def test_a_png_made_of_too_many_chunks_is_refused() -> None:
    """Finding 2: every chunk costs a step of the check; a photo does not come in tens of thousands of pieces."""
    with pytest.raises(BadImageError, match="too many pieces"):
        decode(_png(64, 48, before_idat=_chunk(b"tEXt", b"k\x00v") * 20_001))


@pytest.mark.parametrize(
    ("chunk", "message"),
    [
        (_chunk(b"acTL", struct.pack(">II", 1, 0)), "animated"),
        (_chunk(b"CgBI", b"\x50\x00\x20\x06"), "does not belong"),
        (_chunk(b"IHDR", struct.pack(">IIBBBBB", 9000, 9000, 8, 2, 0, 0, 0)), "two image headers"),
    ],
    ids=["animation", "unknown-critical-chunk", "second-header"],
)
def test_png_chunks_no_photo_has_are_refused(chunk: bytes, message: str) -> None:
    """Finding 1: chunks that change what libpng or OpenCV read (another header, frames) are refused."""
    with pytest.raises(BadImageError, match=message):
        decode(_png(64, 48, before_idat=chunk))


def test_a_cut_png_is_incomplete_even_with_iend_in_its_text() -> None:
    """Finding 1: the end of a PNG is its IEND chunk, not the letters IEND anywhere in the file."""
    data = _png(64, 48, before_idat=_chunk(b"tEXt", b"note\x00IEND"))
    with pytest.raises(BadImageError, match="incomplete"):
        decode(data[:-20])


def _at_quality(quality: int, **params: int) -> bytes:
    img = np.random.default_rng(5).integers(0, 256, (48, 64, 3), np.uint8)
    extra = [v for k, val in params.items() for v in (getattr(cv2, k), val)]
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality, *extra])
    assert ok
    return buf.tobytes()


@pytest.mark.parametrize("quality", [20, 35, 50, 64, 65, 80, 92, 99])
def test_the_jpeg_quality_is_read_from_the_luminance_table(quality: int) -> None:
    """libjpeg scales the luminance table of the JPEG standard (ITU-T T.81, Annex K.1) by its quality setting, so
    the table's coarseness gives the setting back: exactly for a file libjpeg wrote, baseline or progressive."""
    assert decode(_at_quality(quality)).jpeg_quality == quality
    assert decode(_at_quality(quality, IMWRITE_JPEG_PROGRESSIVE=1)).jpeg_quality == quality


def test_a_png_has_no_jpeg_quality() -> None:
    ok, buf = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))
    assert ok and decode(buf.tobytes()).jpeg_quality is None


def test_the_quality_comes_from_the_luminance_table_only_and_survives_16_bit_tables() -> None:
    """A DQT segment may hold several tables, 8- or 16-bit (T.81, B.2.4.1): only table 0 (luminance) counts, and
    a 16-bit table as coarse as an 8-bit one gives the same quality."""
    parts = _parts(_at_quality(40))
    tables = [k for k, p in enumerate(parts) if p[1] == 0xDB]
    segments = b"".join(parts[k] for k in tables)
    luma = next(segments[i + 5 : i + 69] for i in range(0, len(segments), 69) if segments[i + 4] == 0)
    sixteen = b"\x00" + b"".join(struct.pack(">H", v) for v in luma)
    chroma_only = [p for p in (parts[k] for k in tables) if p[4] != 0]
    rebuilt_16 = b"\xff\xdb" + struct.pack(">H", 2 + 1 + 128) + b"\x10" + sixteen[1:]
    base = [p for k, p in enumerate(parts) if k not in tables]
    assert chroma_only and len(rebuilt_16) == 2 + 2 + 1 + 128
    # The chroma table, before the luminance table or after it, changes nothing.
    assert decode(b"".join([base[0], rebuilt_16, *chroma_only, *base[1:]])).jpeg_quality == 40
    assert decode(b"".join([base[0], *chroma_only, rebuilt_16, *base[1:]])).jpeg_quality == 40
