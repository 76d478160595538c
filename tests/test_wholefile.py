"""An image opened to decode in one call gives the pixels and the information Pillow gives when
it decodes the file a block at a time; a file that does not read plainly is left to Pillow."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest
from PIL import Image, PngImagePlugin

from inpaint.io import read_image
from inpaint.wholefile import opened_whole


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """A PNG's chunks, (type, body), read plainly (an independent reader for the tests)."""
    out, pos = [], 8
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        out.append((data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]))
        pos += 12 + n
    return out


def _png(chunks: list[tuple[bytes, bytes]]) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + b"".join(struct.pack(">I", len(body)) + kind + body
                                           + struct.pack(">I", zlib.crc32(kind + body)) for kind, body in chunks)


def _rechunked(data: bytes, size: int, text_after: bool = False) -> bytes:
    """The same PNG with its pixel data in IDAT chunks of ``size`` bytes (libpng writes 8 KB ones),
    and with ``text_after`` a text chunk after them too."""
    chunks = _chunks(data)
    pixels = b"".join(body for kind, body in chunks if kind == b"IDAT")
    at = next(i for i, (kind, _) in enumerate(chunks) if kind == b"IDAT")
    rest = [c for c in chunks if c[0] != b"IDAT"]
    parts = [(b"IDAT", pixels[i:i + size]) for i in range(0, len(pixels), size)]
    after = [(b"tEXt", b"Comment\x00after the pixels")] if text_after else []
    return _png(rest[:at] + parts + after + rest[at:])


@pytest.fixture
def photo(tmp_path):
    rng = np.random.default_rng(4)
    arr = rng.integers(0, 256, (70, 90, 3), dtype=np.uint8)
    info = PngImagePlugin.PngInfo()
    info.add_text("Title", "before the pixels")
    path = tmp_path / "p.png"
    Image.fromarray(arr).save(path, pnginfo=info)
    return path, arr


@pytest.mark.parametrize("size,text_after", [(997, False), (8192, True), (1, False)])
def test_a_png_of_many_idat_chunks_decodes_in_one_call_to_the_same_pixels(tmp_path, photo, monkeypatch, size,
                                                                          text_after):
    path, arr = photo
    many = tmp_path / "many.png"
    many.write_bytes(_rechunked(path.read_bytes(), size, text_after))
    with Image.open(many) as plain:
        plain_pixels, plain_info = np.asarray(plain), dict(plain.info)
    reads = []
    load_read = PngImagePlugin.PngImageFile.load_read
    monkeypatch.setattr(PngImagePlugin.PngImageFile, "load_read",
                        lambda self, n: reads.append(load_read(self, n)) or reads[-1])
    whole = opened_whole(many, Image.open(many))
    whole.load()
    assert len([r for r in reads if r]) == 1  # the data in one block
    np.testing.assert_array_equal(np.asarray(whole), arr)
    np.testing.assert_array_equal(np.asarray(whole), plain_pixels)
    assert whole.info == plain_info and whole.info["Title"] == "before the pixels"
    assert whole.info.get("Comment") == ("after the pixels" if text_after else None)


def test_the_reading_of_a_photo_takes_its_data_whole(tmp_path, photo):
    path, arr = photo
    many = tmp_path / "many.png"
    many.write_bytes(_rechunked(path.read_bytes(), 512))
    np.testing.assert_array_equal(read_image(many).rgb, arr)


def test_a_jpeg_reads_its_file_at_once_to_the_same_pixels(tmp_path, photo):
    path, arr = photo
    jpg = tmp_path / "p.jpg"
    Image.fromarray(arr).save(jpg, quality=90)
    with Image.open(jpg) as img:
        plain = np.asarray(img)
    with opened_whole(jpg, Image.open(jpg)) as whole:
        assert whole.decodermaxblock >= jpg.stat().st_size
        np.testing.assert_array_equal(np.asarray(whole), plain)


def test_files_that_do_not_read_plainly_are_left_to_pillow(tmp_path, photo):
    path, _ = photo
    data = _rechunked(path.read_bytes(), 300)
    cut = tmp_path / "cut.png"
    cut.write_bytes(data[:len(data) // 2])  # truncated in the pixel data
    with Image.open(cut) as opened:
        assert opened_whole(cut, opened) is opened
        with pytest.raises(OSError, match="truncated"):
            opened.load()
    chunks = _chunks(data)
    apart = tmp_path / "apart.png"  # IDAT chunks with another between them
    at = next(i for i, (kind, _) in enumerate(chunks) if kind == b"IDAT")
    apart.write_bytes(_png(chunks[:at + 1] + [(b"tEXt", b"a\x00b")] + chunks[at + 1:]))
    frames = [Image.new("RGB", (8, 6), c) for c in ("red", "blue")]
    anim = tmp_path / "anim.png"
    frames[0].save(anim, save_all=True, append_images=frames[1:])
    one = tmp_path / "one.png"  # one IDAT chunk: nothing to join
    Image.new("RGB", (8, 6), "green").save(one)
    for path in (apart, anim, one):
        with Image.open(path) as opened:
            assert opened_whole(path, opened) is opened


@pytest.mark.parametrize("channels", [2, 3])
def test_a_16_bit_png_of_many_idat_chunks_keeps_its_full_depth(tmp_path, channels):
    """A 16-bit photo is decoded again for its low bytes (and grey+alpha as bytes): those decodings
    take the joined data too, and the full-depth pixels are the file's."""
    from inpaint.io import write_png

    arr = np.random.default_rng(7).integers(0, 65536, (40, 52, channels), dtype=np.uint16)
    one = tmp_path / "one.png"
    with one.open("wb") as fh:
        write_png(fh, arr)
    many = tmp_path / "many.png"
    many.write_bytes(_rechunked(one.read_bytes(), 700))
    assert sum(kind == b"IDAT" for kind, _ in _chunks(many.read_bytes())) > 10
    np.testing.assert_array_equal(read_image(many).wide, arr)
