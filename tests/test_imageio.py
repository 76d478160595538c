"""inpaint.io: reading images and masks, original-mode write-back, safe atomic writes.

At the library level: unreadable files raise InputError with a message naming the problem,
grey/RGBA/16-bit/palette/EXIF-rotated inputs get a correct 8-bit RGB view, masks follow the
documented rule (> 127, or opaque where the mask has transparency), results are written back in
the original mode, and writes are atomic.  The command-line behaviour is in test_cli.py.
"""

from __future__ import annotations

import io
import os
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs
from PIL import Image, ImageCms

from inpaint import io as imageio
from inpaint.errors import InputError, InputWarning
from inpaint.io import atomic, encode, memory, outputs

H, W = 40, 48
ORIENTATION, MAKE = 0x0112, 0x010F

# EXIF orientation -> the numpy transform that makes the stored pixels upright (EXIF spec).
UPRIGHT = {
    1: lambda a: a,
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1, :],
    5: lambda a: a.swapaxes(0, 1),
    6: lambda a: np.rot90(a, -1),
    7: lambda a: a.swapaxes(0, 1)[::-1, ::-1],
    8: lambda a: np.rot90(a, 1),
}


def files_state(folder: Path) -> dict:
    """Every file under ``folder`` with its bytes and mtime (to prove nothing was touched)."""
    return {p.relative_to(folder): (p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def rgb(rng):
    return rng.integers(0, 256, (H, W, 3), dtype=np.uint8)


@pytest.fixture
def png(tmp_path, rgb):
    path = tmp_path / "img.png"
    Image.fromarray(rgb).save(path)
    return path


# ---------------------------------------------------------------------------------------
# Unreadable input
# ---------------------------------------------------------------------------------------

def _missing(tmp_path, png):
    return tmp_path / "nope.png", r"does not exist"


def _folder(tmp_path, png):
    (tmp_path / "dir.png").mkdir()
    return tmp_path / "dir.png", r"is a folder"


def _text(tmp_path, png):
    p = tmp_path / "notes.png"
    p.write_text("this is not an image\n")
    return p, r"not an image"


def _empty(tmp_path, png):
    p = tmp_path / "empty.png"
    p.write_bytes(b"")
    return p, r"not an image"


def _truncated(fraction):
    def make(tmp_path, png):
        data = png.read_bytes()
        p = tmp_path / "cut.png"
        p.write_bytes(data[:max(int(len(data) * fraction), 40)])
        return p, r"(truncated|cannot read|not an image)"
    return make


def _truncated_jpeg(tmp_path, png):
    buf = io.BytesIO()
    Image.open(png).save(buf, format="JPEG")
    p = tmp_path / "cut.jpg"
    p.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    return p, r"(truncated|cannot read)"


@pytest.mark.parametrize("make", [
    pytest.param(_missing, id="missing"),
    pytest.param(_folder, id="folder"),
    pytest.param(_text, id="text-file"),
    pytest.param(_empty, id="empty-file"),
    pytest.param(_truncated(0.02), id="png-cut-in-header"),
    pytest.param(_truncated(0.5), id="png-cut-half"),
    pytest.param(_truncated(0.97), id="png-cut-near-end"),
    pytest.param(_truncated_jpeg, id="jpeg-cut-half"),
])
@pytest.mark.parametrize("reader", ["image", "mask"])
def test_unreadable_files_raise_input_error(tmp_path, png, make, reader):
    path, pattern = make(tmp_path, png)
    before = files_state(tmp_path)
    with pytest.raises(InputError, match=pattern) as info:
        if reader == "image":
            imageio.read_image(path)
        else:
            imageio.read_mask(path, (W, H))
    msg = str(info.value)
    assert reader in msg and path.name in msg
    assert files_state(tmp_path) == before


@pytest.mark.parametrize("side", [12, 20], ids=["warning-range", "error-range"])
def test_decompression_bomb_guard_names_the_limit(tmp_path, monkeypatch, side):
    # Pillow warns between MAX_IMAGE_PIXELS and twice that, and raises beyond; both are refused,
    # and the message states the limit that was set (not Pillow's internal 2x threshold).
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 100)
    path = tmp_path / "big.png"
    Image.new("RGB", (side, side)).save(path)
    with pytest.raises(InputError, match=r"too large") as info:
        imageio.read_image(path)
    msg = str(info.value)
    assert "100 pixels" in msg
    assert "--max-pixels" not in msg  # the command's flag: the command adds it, the app has none
    assert f"{side * side}" in msg


def test_image_at_the_limit_is_accepted(tmp_path, monkeypatch):
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 100)
    path = tmp_path / "ok.png"
    Image.new("RGB", (10, 10), (1, 2, 3)).save(path)
    assert imageio.read_image(path).rgb.shape == (10, 10, 3)


def test_no_memory_to_convert_the_pixels_is_said_as_such(tmp_path, monkeypatch):
    # Under a small address-space limit Pillow's convert raises MemoryError (with no message): that
    # is the memory, not a pixel mode Pillow cannot convert.
    path = tmp_path / "palette.png"
    Image.new("P", (12, 10)).save(path)

    def no_memory(self, *args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(Image.Image, "convert", no_memory)
    with pytest.raises(InputError) as info:
        imageio.read_image(path)
    assert str(info.value) == f"image {path} is too large for the memory available"


# ---------------------------------------------------------------------------------------
# Input kinds: the 8-bit RGB view
# ---------------------------------------------------------------------------------------

def _kind(mode, rng):
    """(PIL image in ``mode``, expected 8-bit RGB view)."""
    if mode == "L":
        g = rng.integers(0, 256, (H, W), dtype=np.uint8)
        return Image.fromarray(g), np.repeat(g[..., None], 3, axis=2)
    if mode == "LA":
        g = rng.integers(0, 256, (H, W, 2), dtype=np.uint8)
        return Image.fromarray(g, "LA"), np.repeat(g[..., :1], 3, axis=2)
    if mode == "RGBA":
        a = rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
        return Image.fromarray(a, "RGBA"), a[..., :3]
    if mode == "I;16":
        v = rng.integers(0, 65536, (H, W), dtype=np.uint16)
        return Image.fromarray(v), np.repeat((v >> 8).astype(np.uint8)[..., None], 3, axis=2)
    if mode == "I":  # 8-bit range stored in 32-bit ints stays as is
        v = rng.integers(0, 256, (H, W)).astype(np.int32)
        return Image.fromarray(v), np.repeat(v.astype(np.uint8)[..., None], 3, axis=2)
    if mode == "P":
        pal = rng.integers(0, 256, (16, 3), dtype=np.uint8)
        idx = rng.integers(0, 16, (H, W), dtype=np.uint8)
        img = Image.fromarray(idx, "P")
        img.putpalette(pal.tobytes())
        return img, pal[idx]
    if mode == "1":
        b = rng.integers(0, 2, (H, W)).astype(bool)
        g = np.where(b, 255, 0).astype(np.uint8)
        return Image.fromarray(b), np.repeat(g[..., None], 3, axis=2)
    raise AssertionError(mode)


@pytest.mark.parametrize("mode", ["L", "LA", "RGBA", "I;16", "I", "P", "1"])
def test_rgb_view_of_each_mode(tmp_path, rng, mode):
    img, expected = _kind(mode, rng)
    path = tmp_path / ("in.tif" if mode == "I" else "in.png")  # PNG cannot store mode I
    img.save(path)
    pic = imageio.read_image(path)
    assert pic.image.mode == mode  # the original mode is kept for the write-back
    assert pic.rgb.dtype == np.uint8 and pic.rgb.shape == (H, W, 3)
    np.testing.assert_array_equal(pic.rgb, expected)
    assert pic.size == (W, H)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_is_applied_and_reset(tmp_path, rgb, orientation):
    exif = Image.Exif()
    exif[ORIENTATION] = orientation
    exif[MAKE] = "TestCam"
    path = tmp_path / "rot.png"  # PNG: lossless, so the pixels can be compared exactly
    Image.fromarray(rgb).save(path, exif=exif)
    pic = imageio.read_image(path)
    expected = UPRIGHT[orientation](rgb)
    np.testing.assert_array_equal(pic.rgb, expected)
    assert pic.size == (expected.shape[1], expected.shape[0])
    assert pic.exif.get(ORIENTATION, 1) == 1
    assert pic.exif[MAKE] == "TestCam"


def test_exif_rotated_jpeg_reads_upright(tmp_path, rgb):
    exif = Image.Exif()
    exif[ORIENTATION] = 6
    exif[MAKE] = "TestCam"
    path = tmp_path / "rot.jpg"
    Image.fromarray(rgb).save(path, exif=exif, quality=95)
    with Image.open(path) as raw:
        stored = np.asarray(raw.convert("RGB"))
    pic = imageio.read_image(path)
    assert pic.size == (H, W)
    np.testing.assert_array_equal(pic.rgb, np.rot90(stored, -1))
    assert pic.exif.get(ORIENTATION, 1) == 1 and pic.exif[MAKE] == "TestCam"


# ---------------------------------------------------------------------------------------
# Masks
# ---------------------------------------------------------------------------------------

def _box():
    m = np.zeros((H, W), bool)
    m[12:26, 15:33] = True
    return m


def _mask_case(kind, tmp_path, rng):
    """(mask file, expected boolean mask)."""
    box = _box()
    path = tmp_path / "mask.png"
    if kind == "binary-L":
        Image.fromarray(np.where(box, 255, 0).astype(np.uint8)).save(path)
        return path, box
    if kind == "anti-aliased-L":
        ramp = np.tile(np.linspace(0, 255, W).round().astype(np.uint8), (H, 1))
        Image.fromarray(ramp).save(path)
        return path, ramp > 127
    if kind == "mode-1":
        Image.fromarray(box).save(path)
        return path, box
    if kind == "RGB-colour":  # brightness (grey value) > 127 marks the object
        rgb = np.zeros((H, W, 3), np.uint8)
        rgb[box] = (255, 255, 255)
        rgb[:4, :4] = (255, 0, 0)  # pure red: grey 76, not the object
        Image.fromarray(rgb).save(path)
        return path, box
    if kind == "RGBA-transparent":  # opaque pixels are the object, whatever their colour
        rgba = np.zeros((H, W, 4), np.uint8)
        rgba[..., :3] = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
        alpha = np.where(box, 255, 0).astype(np.uint8)
        alpha[box & (rng.random((H, W)) < 0.2)] = 200  # anti-aliased but still opaque enough
        alpha[~box & (rng.random((H, W)) < 0.2)] = 60
        rgba[..., 3] = alpha
        Image.fromarray(rgba, "RGBA").save(path)
        return path, alpha > 127
    if kind == "RGBA-opaque":  # no transparency at all: brightness rule
        rgba = np.full((H, W, 4), 255, np.uint8)
        rgba[..., :3] = np.where(box, 255, 0)[..., None]
        Image.fromarray(rgba, "RGBA").save(path)
        return path, box
    if kind == "LA-transparent":
        la = np.zeros((H, W, 2), np.uint8)
        la[..., 1] = np.where(box, 255, 0)
        Image.fromarray(la, "LA").save(path)
        return path, box
    if kind == "P-transparent":
        idx = np.where(box, 1, 0).astype(np.uint8)
        img = Image.fromarray(idx, "P")
        img.putpalette([255, 255, 255, 0, 0, 0] + [0] * 762)  # entry 0 white but transparent
        img.info["transparency"] = 0
        img.save(path, transparency=0)
        return path, box
    if kind == "I;16":
        Image.fromarray(np.where(box, 65535, 1000).astype(np.uint16)).save(path)
        return path, box
    if kind == "JPEG":
        path = tmp_path / "mask.jpg"
        Image.fromarray(np.where(box, 255, 0).astype(np.uint8)).save(path, quality=75)
        with Image.open(path) as raw:
            assert np.unique(np.asarray(raw)).size > 2  # really has JPEG noise
        return path, box
    raise AssertionError(kind)


MASK_KINDS = ["binary-L", "anti-aliased-L", "mode-1", "RGB-colour", "RGBA-transparent", "RGBA-opaque",
              "LA-transparent", "P-transparent", "I;16", "JPEG"]


@pytest.mark.parametrize("kind", MASK_KINDS)
def test_mask_rule(tmp_path, rng, kind):
    path, expected = _mask_case(kind, tmp_path, rng)
    mask = imageio.read_mask(path, (W, H))
    assert mask.dtype == bool and mask.shape == (H, W)
    np.testing.assert_array_equal(mask, expected)


@pytest.mark.parametrize("size", [(H, W), (W + 1, H), (W, H - 1)], ids=["transposed", "wider", "shorter"])
def test_mask_size_mismatch(tmp_path, size):
    path = tmp_path / "mask.png"
    Image.new("L", size).save(path)
    with pytest.raises(InputError, match="same size") as info:
        imageio.read_mask(path, (W, H))
    assert f"{size[0]}x{size[1]}" in str(info.value) and f"{W}x{H}" in str(info.value)


# ---------------------------------------------------------------------------------------
# Write-back in the original mode
# ---------------------------------------------------------------------------------------

def _fake_source_map(mask):
    """Each masked pixel copies the pixel 14 rows below it (outside the box)."""
    sm = np.full(mask.shape + (2,), -1, np.int32)
    ys, xs = np.nonzero(mask)
    sm[ys, xs, 0] = ys + 14
    sm[ys, xs, 1] = xs
    return sm


@pytest.mark.parametrize("mode", ["L", "LA", "RGBA", "I;16", "I", "P", "1"])
def test_a_copying_fill_keeps_mode_and_values(tmp_path, rng, mode):
    """A fill that only copies source pixels is written back as exact copies, in every mode."""
    img, _ = _kind(mode, rng)
    if mode == "P":
        img.info["transparency"] = 3
    path = tmp_path / ("in.tif" if mode == "I" else "in.png")
    img.save(path, **({"transparency": 3} if mode == "P" else {}))
    pic = imageio.read_image(path)
    mask = _box()
    filled = pic.rgb.copy()
    ys, xs = np.nonzero(mask)
    filled[ys, xs] = pic.rgb[ys + 14, xs]
    out, note = imageio.apply_fill(pic, filled, _fake_source_map(mask), mask)
    assert note is None and out.mode == mode and out.size == (W, H)
    orig, res = np.asarray(pic.image), np.asarray(out)
    np.testing.assert_array_equal(res[~mask], orig[~mask])
    ys, xs = np.nonzero(mask)
    np.testing.assert_array_equal(res[ys, xs], orig[ys + 14, xs])
    if mode == "P":
        assert out.getpalette() == pic.image.getpalette()
        assert out.info.get("transparency") == 3


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
def test_apply_fill_asks_for_the_source_map_only_when_it_needs_it(tmp_path, rng, mode):
    """8-bit RGB takes the blended fill whole (the map is never built); RGBA copies the source's
    alpha, so it asks for the map.  Known pixels stay exact either way."""
    arr = rng.integers(0, 256, (H, W, len(mode)), dtype=np.uint8)
    Image.fromarray(arr, mode).save(tmp_path / "in.png")
    pic = imageio.read_image(tmp_path / "in.png")
    mask = _box()
    filled = pic.rgb.copy()
    filled[mask] = rng.integers(0, 256, (int(mask.sum()), 3))
    asked = []

    def source_map():
        asked.append(True)
        return _fake_source_map(mask)

    out, note = imageio.apply_fill(pic, filled, source_map, mask)
    res = np.asarray(out)
    assert note is None and asked == ([True] if mode == "RGBA" else [])
    np.testing.assert_array_equal(res[~mask], arr[~mask])
    np.testing.assert_array_equal(res[mask][:, :3], filled[mask])
    if mode == "RGBA":
        ys, xs = np.nonzero(mask)
        np.testing.assert_array_equal(res[ys, xs, 3], arr[ys + 14, xs, 3])


def test_apply_fill_refuses_an_incomplete_map(tmp_path, rng):
    Image.fromarray(rng.integers(0, 256, (H, W), dtype=np.uint8), "L").save(tmp_path / "in.png")
    pic = imageio.read_image(tmp_path / "in.png")  # grey: the fill goes through the map
    mask = _box()
    sm = _fake_source_map(mask)
    sm[13, 16] = -1
    from inpaint.errors import SourceMapError

    with pytest.raises(SourceMapError, match="source map"):
        imageio.apply_fill(pic, pic.rgb, sm, mask)


# ---------------------------------------------------------------------------------------
# Output formats and conversions
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, fmt", [("a.png", "PNG"), ("a.PNG", "PNG"), ("a.jpg", "JPEG"), ("a.jpeg", "JPEG"),
                                       ("a.tif", "TIFF"), ("a.webp", "WEBP"), ("a.bmp", "BMP")])
def test_output_format(name, fmt):
    assert imageio.output_format(name) == fmt


@pytest.mark.parametrize("name, said", [("a.xyz", "cannot write .xyz files"), ("a", "cannot tell the image format"),
                                        ("a.png.bak", "cannot write .bak files")])
def test_output_format_unknown(name, said):
    with pytest.raises(InputError, match=said):
        imageio.output_format(name)


@pytest.mark.parametrize("mode, fmt, out_mode, note", [
    ("RGBA", "JPEG", "RGB", "no alpha channel"),
    ("LA", "JPEG", "L", "no alpha channel"),
    ("I;16", "JPEG", "L", "8 bits"),
    ("P", "JPEG", "RGB", None),
    ("L", "JPEG", "L", None),
    ("RGBA", "PNG", "RGBA", None),
    ("I;16", "PNG", "I;16", None),
    ("I", "PNG", "L", None),  # 8-bit values in a 32-bit image
    ("I", "JPEG", "L", None),
    ("P", "PNG", "P", None),
    ("RGBA", "WEBP", "RGBA", None),
    ("L", "WEBP", "RGB", None),
])
def test_convert_for(rng, mode, fmt, out_mode, note):
    img, _ = _kind(mode, rng)
    out, got = imageio.convert_for(img, fmt)
    assert out.mode == out_mode
    if note is None:
        assert got is None
    else:
        assert note in got


def test_convert_16_bit_to_8_bit_keeps_the_high_byte(rng):
    img, expected = _kind("I;16", rng)
    out, _ = imageio.convert_for(img, "JPEG")
    np.testing.assert_array_equal(np.asarray(out), expected[..., 0])


def test_convert_32_bit_to_png_keeps_16_bits_and_notes_clipping():
    wide = np.array([[-5, 0, 300], [65535, 70000, 7]], np.int32)
    out, note = imageio.convert_for(Image.fromarray(wide), "PNG")
    assert out.mode == "I;16" and "clipped" in note
    np.testing.assert_array_equal(np.asarray(out), np.clip(wide, 0, 65535))


@pytest.mark.parametrize("ext", ["png", "jpg", "tif"])
def test_mode_i_image_round_trips(tmp_path, rng, ext):
    # a 32-bit "I" image (e.g. read from TIFF) holding 8-bit values can be written to any format
    img, expected = _kind("I", rng)
    out = tmp_path / f"out.{ext}"
    imageio.save_image(img, out)
    if ext != "jpg":
        np.testing.assert_array_equal(imageio.read_image(out).rgb, expected)


def test_convert_palette_with_transparency_for_jpeg_notes_the_loss(rng):
    img, _ = _kind("P", rng)
    img.info["transparency"] = 0
    out, note = imageio.convert_for(img, "JPEG")
    assert out.mode == "RGB" and "no alpha channel" in note


# ---------------------------------------------------------------------------------------
# save_image: atomic, keeps EXIF and ICC
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("ext", ["png", "jpg"])
def test_save_keeps_exif_and_icc(tmp_path, rgb, ext):
    exif = Image.Exif()
    exif[MAKE] = "TestCam"
    exif[ORIENTATION] = 1
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    out = tmp_path / f"out.{ext}"
    assert imageio.save_image(Image.fromarray(rgb), out, exif=exif, icc_profile=icc) is None
    with Image.open(out) as back:
        assert back.getexif()[MAKE] == "TestCam"
        assert back.info.get("icc_profile") == icc
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_save_missing_folder(tmp_path, rgb):
    with pytest.raises(InputError, match="does not exist"):
        imageio.save_image(Image.fromarray(rgb), tmp_path / "no" / "out.png")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("existing", [False, True], ids=["new-file", "replacing"])
def test_save_is_atomic(tmp_path, rgb, monkeypatch, existing):
    out = tmp_path / "out.png"
    if existing:
        Image.new("RGB", (3, 3)).save(out)
    before = files_state(tmp_path)

    def failing_encode(img, fh, *args):
        fh.write(b"\x89PNG\r\n\x1a\n half an image")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "encode", failing_encode)
    with pytest.raises(OSError, match="No space left"):
        imageio.save_image(Image.fromarray(rgb), out)
    assert files_state(tmp_path) == before  # no partial output, no temp file left behind


def test_save_replaces_atomically(tmp_path, rgb):
    out = tmp_path / "out.png"
    Image.new("RGB", (3, 3)).save(out)
    imageio.save_image(Image.fromarray(rgb), out)
    with Image.open(out) as back:
        np.testing.assert_array_equal(np.asarray(back), rgb)
    assert [p.name for p in tmp_path.iterdir()] == ["out.png"]
    assert not any(name.endswith(".tmp") for name in os.listdir(tmp_path))


def test_saved_files_get_normal_permissions(tmp_path):
    import os
    import stat

    from PIL import Image

    from inpaint.io import save_image

    old = os.umask(0o022)
    try:
        out = tmp_path / "new.png"
        save_image(Image.new("RGB", (4, 4)), out)
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        kept = tmp_path / "kept.png"
        kept.write_bytes(b"x")
        kept.chmod(0o640)
        save_image(Image.new("RGB", (4, 4)), kept)
        assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    finally:
        os.umask(old)


# ---------------------------------------------------------------------------------------
# Full depth: 16-bit colour, float, the seam carver's moves
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("channels", [1, 3, 4])
def test_png16_round_trip(tmp_path, rng, channels):
    arr = rng.integers(0, 65536, (H, W, channels)).astype(np.uint16)
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    with open(tmp_path / "d.png", "wb") as fh:
        imageio.write_png(fh, arr[..., 0] if channels == 1 else arr, icc_profile=icc, dpi=(300, 300))
    pic = imageio.read_image(tmp_path / "d.png")
    assert pic.icc_profile == icc
    if channels == 1:
        assert pic.mode == "I;16"
        np.testing.assert_array_equal(np.asarray(pic.image), arr[..., 0])
    else:
        assert pic.mode == ("RGB;16" if channels == 3 else "RGBA;16")
        np.testing.assert_array_equal(pic.wide, arr)
        np.testing.assert_array_equal(pic.rgb, (arr[..., :3] >> 8).astype(np.uint8))
    assert pic.scale == 257


@settings(max_examples=40, deadline=None)
@given(h=hs.integers(1, 70), w=hs.integers(1, 70), channels=hs.sampled_from([1, 2, 3, 4]),
       depth=hs.sampled_from([8, 16]), band=hs.sampled_from([1, 7, 1000, 1 << 22]), seed=hs.integers(0, 999))
def test_png_writer_round_trips_through_pillow(h, w, channels, depth, band, seed):
    """Any shape, channel count and depth, whole or in parallel deflate bands of any size, decodes
    (by Pillow's and zlib's own decoders) to the exact array."""
    rng = np.random.default_rng(seed)
    arr = rng.integers(0, 256 if depth == 8 else 65536, (h, w, channels)).astype(np.uint8 if depth == 8 else np.uint16)
    old = encode.PNG_BAND
    encode.PNG_BAND = band
    try:
        fh = io.BytesIO()
        imageio.write_png(fh, arr[..., 0] if channels == 1 else arr)
    finally:
        encode.PNG_BAND = old
    raw = fh.getvalue()
    if depth == 8:
        img = Image.open(io.BytesIO(raw))
        assert img.mode == {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[channels]
        np.testing.assert_array_equal(np.asarray(img).reshape(h, w, channels), arr)
    # the IDAT stream is one valid zlib stream of Up-filtered rows
    pos, idat = 8, b""
    while pos < len(raw):
        n = int.from_bytes(raw[pos:pos + 4], "big")
        if raw[pos + 4:pos + 8] == b"IDAT":
            idat += raw[pos + 8:pos + 8 + n]
        pos += 12 + n
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, -1)
    assert (rows[:, 0] == 2).all()
    data = np.cumsum(rows[:, 1:], axis=0, dtype=np.uint8)  # undo Up, modulo 256
    want = arr.astype(">u2").view(np.uint8) if depth == 16 else arr
    np.testing.assert_array_equal(data, want.reshape(h, -1))


@settings(max_examples=60, deadline=None)
@given(first=hs.binary(max_size=3000), second=hs.binary(max_size=3000), repeat=hs.sampled_from([1, 40, 300]))
def test_adler32_of_two_parts_combines_to_that_of_the_whole(first, second, repeat):
    """The parallel PNG writer's checksum: parts long enough to wrap the modulus (repeated) too."""
    second = second * repeat
    combined = encode.adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
    assert combined == zlib.adler32(first + second)


def test_png_writer_keeps_metadata_and_pillow_reads_it(tmp_path, rng):
    """8-bit outputs written by the fast writer keep the colour profile, EXIF and resolution."""
    arr = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    img = Image.fromarray(arr)
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    exif = Image.Exif()
    exif[0x010F] = "maker"
    img.info["dpi"] = (300, 300)
    imageio.save_images([(img, tmp_path / "o.png", {"exif": exif, "icc_profile": icc})])
    back = Image.open(tmp_path / "o.png")
    np.testing.assert_array_equal(np.asarray(back), arr)
    assert back.info["icc_profile"] == icc and back.getexif()[0x010F] == "maker"
    assert tuple(round(d) for d in back.info["dpi"]) == (300, 300)


def test_16_bit_colour_is_turned_upright(tmp_path, rng):
    arr = rng.integers(0, 65536, (H, W, 3)).astype(np.uint16)
    exif = Image.Exif()
    exif[ORIENTATION] = 6
    with open(tmp_path / "d.png", "wb") as fh:
        imageio.write_png(fh, arr, exif=exif)
    pic = imageio.read_image(tmp_path / "d.png")
    np.testing.assert_array_equal(pic.wide, np.rot90(arr, -1))
    np.testing.assert_array_equal(pic.rgb, (np.rot90(arr, -1) >> 8).astype(np.uint8))


def test_fill_of_16_bit_colour_moves_the_source_by_the_blend(tmp_path, rng):
    arr = rng.integers(0, 65536, (H, W, 3)).astype(np.uint16)
    with open(tmp_path / "d.png", "wb") as fh:
        imageio.write_png(fh, arr)
    pic = imageio.read_image(tmp_path / "d.png")
    mask = _box()
    sm = _fake_source_map(mask)
    filled = pic.rgb.copy()
    ys, xs = np.nonzero(mask)
    filled[ys, xs] = pic.rgb[ys + 14, xs]  # a pure copy: exact at full depth
    out, note = imageio.apply_fill(pic, filled, sm, mask)
    assert note is None and isinstance(out, imageio.DeepImage)
    np.testing.assert_array_equal(out.array[ys, xs], arr[ys + 14, xs])
    np.testing.assert_array_equal(out.array[~mask], arr[~mask])
    filled[ys, xs] = np.clip(pic.rgb[ys + 14, xs].astype(int) + 1, 0, 255)  # a blend one step brighter
    out, _ = imageio.apply_fill(pic, filled, sm, mask)
    moved = out.array[ys, xs].astype(int) - arr[ys + 14, xs].astype(int)
    assert set(np.unique(moved)) <= {0, 257}


def test_float_image_with_values_0_to_1(tmp_path, rng):
    values = rng.random((H, W)).astype(np.float32)
    Image.fromarray(values, "F").save(tmp_path / "f.tif")
    pic = imageio.read_image(tmp_path / "f.tif")
    assert pic.scale == pytest.approx(1 / 255)
    np.testing.assert_array_equal(pic.rgb[..., 0], np.rint(values * 255).astype(np.uint8))
    out, note = imageio.convert_for(pic.image, "PNG")
    assert out.mode == "I;16" and "floating-point" in note
    np.testing.assert_array_equal(np.asarray(out), np.rint(values * 65535).astype(np.uint16))
    assert imageio.convert_for(pic.image, "TIFF") == (pic.image, None)


def test_a_float_image_with_nan_values_says_so(tmp_path, rng):
    values = rng.random((H, W)).astype(np.float32)
    values[::3, ::4] = np.nan
    Image.fromarray(values, "F").save(tmp_path / "f.tif")
    with pytest.warns(InputWarning, match=rf"holds {int(np.isnan(values).sum())} NaN values .* may copy them"):
        imageio.read_image(tmp_path / "f.tif")


@pytest.mark.parametrize("mode", ["L", "RGBA", "I;16", "P", "1"])
def test_apply_moves_copies_pixels_at_full_depth(tmp_path, rng, mode):
    img, _ = _kind(mode, rng)
    img.save(tmp_path / "in.png")
    pic = imageio.read_image(tmp_path / "in.png")
    rows, cols = np.meshgrid(np.arange(H), np.arange(W - 5), indexing="ij")
    source = np.stack([rows, cols * 1 + (cols >= 10) * 5], axis=-1).astype(np.int32)  # drop 5 columns
    result = pic.rgb[source[..., 0], source[..., 1]]
    out, note = imageio.apply_moves(pic, result, source)
    assert note is None and out.mode == mode and out.size == (W - 5, H)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(pic.image)[source[..., 0], source[..., 1]])


def test_animated_file_warns_and_uses_the_first_frame(tmp_path, rng):
    frames = [Image.fromarray(rng.integers(0, 256, (H, W), dtype=np.uint8)) for _ in range(3)]
    frames[0].save(tmp_path / "a.gif", save_all=True, append_images=frames[1:])
    with pytest.warns(InputWarning, match=r"has 3 frames: only the first is used"):
        pic = imageio.read_image(tmp_path / "a.gif")
    assert pic.frames == 3
    np.testing.assert_array_equal(pic.rgb[..., 0], np.asarray(frames[0].convert("P").convert("L")))


def test_memory_check(monkeypatch, tmp_path, png):
    monkeypatch.setattr(memory, "available_memory", lambda: 10_000)
    with pytest.raises(InputError, match=r"needs about .* of memory but only"):
        imageio.read_image(png, work_bytes_per_pixel=100)
    assert imageio.check_memory(100, "x") is None
    assert "of the" in imageio.check_memory(6_000, "x")


def test_the_memory_check_counts_the_address_space_limit(monkeypatch):
    used = memory.address_space_used()
    assert used and used > 0
    monkeypatch.setattr(memory, "address_space_limit", lambda: used + (300 << 20))  # room for 300 MiB more
    assert 290 << 20 < memory.available_memory() <= 300 << 20
    with pytest.raises(InputError, match=r"needs about 400\.0 MiB of memory but only .* is available under the "
                                         r"address-space limit \(ulimit -v: \d+ MB\); .*raise the limit"):
        imageio.check_memory(400 << 20, "x")
    assert imageio.check_memory(100 << 20, "x") is None


@pytest.mark.parametrize("name, mode, size, message", [
    ("", "RGB", (4, 4), "file name is empty"),
    ("x.psd", "RGB", (4, 4), "PSD is not a format"),
    ("x.ico", "RGB", (300, 10), "ICO icon holds at most 256x256"),
    ("x.jpg", "RGB", (70000, 10), "JPEG holds at most 65500 pixels a side"),
    ("x.xbm", "RGB", (4, 4), "not a format"),
    ("nodir/x.png", "RGB", (4, 4), "output folder nodir does not exist"),
])
def test_check_output_refuses(tmp_path, monkeypatch, name, mode, size, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match=message):
        imageio.check_output(name, mode=mode, size=size)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("mode", ["1", "L", "LA", "P", "RGB", "RGBA", "I;16", "I", "F", "CMYK", "RGB;16", "RGBA;16"])
@pytest.mark.parametrize("ext", ["png", "jpg", "tif", "webp", "bmp", "gif"])
def test_check_output_accepts_every_mode_the_writer_handles(tmp_path, mode, ext):
    assert imageio.check_output(tmp_path / f"x.{ext}", mode=mode, size=(8, 8))
    img = outputs._probe(mode)
    imageio.save_image(img, tmp_path / f"x.{ext}")  # and the real write works too
    assert [p.name for p in tmp_path.iterdir()] == [f"x.{ext}"]


def test_same_file_by_names_links_and_files_yet_to_be_written(tmp_path, monkeypatch):
    """Two names of one file are the same file (a relative name, a hard link, a symbolic link);
    an existing file and a name of none never are; two names of no file are when they resolve alike."""
    a = tmp_path / "a.png"
    a.write_bytes(b"x")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert imageio.same_file(a, "../a.png")
    os.link(a, tmp_path / "hard.png")
    os.symlink(a, tmp_path / "soft.png")
    assert imageio.same_file(tmp_path / "hard.png", a) and imageio.same_file(a, tmp_path / "soft.png")
    b = tmp_path / "b.png"
    b.write_bytes(b"x")
    assert not imageio.same_file(a, b)
    assert not imageio.same_file(a, tmp_path / "new.png") and not imageio.same_file(tmp_path / "new.png", a)
    os.symlink(tmp_path / "gone.png", tmp_path / "dangling.png")
    assert not imageio.same_file(a, tmp_path / "dangling.png")
    assert imageio.same_file(tmp_path / "new.png", "../new.png")
    assert imageio.same_file(tmp_path / "dangling.png", tmp_path / "gone.png")  # the link's own target
    assert not imageio.same_file(tmp_path / "new.png", tmp_path / "other.png")


def test_apply_fill_takes_a_mask_of_integers_as_every_other_function_does(tmp_path, rng):
    Image.fromarray(rng.integers(0, 256, (H, W), dtype=np.uint8), "L").save(tmp_path / "in.png")
    pic = imageio.read_image(tmp_path / "in.png")
    mask = _box()
    sm = _fake_source_map(mask)
    want = np.asarray(imageio.apply_fill(pic, pic.rgb, sm, mask)[0])
    for as_numbers in (mask.astype(np.uint8), mask.astype(np.int64) * 7):
        np.testing.assert_array_equal(np.asarray(imageio.apply_fill(pic, pic.rgb, sm, as_numbers)[0]), want)
    with pytest.raises(InputError, match="the mask is 4x3 but the picture is"):
        imageio.apply_fill(pic, pic.rgb, sm, np.zeros((3, 4), bool))


def test_the_readers_and_the_plan_refuse_arguments_that_are_not_what_they_take(tmp_path, rng):
    Image.fromarray(np.where(_box(), 255, 0).astype(np.uint8), "L").save(tmp_path / "m.png")
    for size in (None, 32, (32,), ("a", 3), (0, 5)):
        with pytest.raises(InputError, match=r"must be \(width, height\)"):
            imageio.read_mask(tmp_path / "m.png", size)
    assert imageio.read_mask(tmp_path / "m.png", (str(W), str(H))).shape == (H, W)
    for bad in (None, b"/x.png", 5):
        with pytest.raises(InputError, match="must be a file name"):
            imageio.read_image(bad)
    with pytest.raises(InputError, match="work_bytes_per_pixel must be an integer"):
        imageio.read_image(tmp_path / "m.png", work_bytes_per_pixel="8")
    pic = imageio.read_image(tmp_path / "m.png")
    for quality in (0, 500, -5, float("nan"), "high", True):
        with pytest.raises(InputError, match="quality must be an integer from 1 to 100"):
            imageio.plan_output(pic, tmp_path / "o.jpg", quality=quality)


def test_a_photo_given_as_a_mask_gets_a_warning_and_a_feathered_mask_none(tmp_path, rng):
    from inpaint.errors import InputWarning

    yy, xx = np.mgrid[0:H, 0:W]
    photo = np.dstack([(xx * 5) % 256, (yy * 7 + 40) % 256, np.full((H, W), 90)]).astype(np.uint8)
    photo = np.clip(photo.astype(int) + rng.integers(-30, 31, photo.shape), 0, 255).astype(np.uint8)
    photo[_box()] = (255, 0, 0)                                  # the object painted over a copy of the photo
    Image.fromarray(photo).save(tmp_path / "painted.png")
    with pytest.warns(InputWarning, match="looks like a photo, not a mask"):
        imageio.read_mask(tmp_path / "painted.png", (W, H))
    feather = np.clip(255 - np.hypot(yy - H / 2, xx - W / 2) * 12, 0, 255).astype(np.uint8)
    Image.fromarray(feather).save(tmp_path / "feather.png")
    import warnings

    speckle = np.where(rng.random((H, W)) < 0.5, 255, 0).astype(np.uint8)   # fine dots: black and white only
    Image.fromarray(speckle).save(tmp_path / "speckle.png")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        imageio.read_mask(tmp_path / "feather.png", (W, H))
        imageio.read_mask(tmp_path / "speckle.png", (W, H))


@pytest.mark.parametrize("top, shift", [(200, 0), (4000, 4), (30000, 7), (60000, 8)])
def test_deep_samples_are_seen_through_the_bits_they_use(tmp_path, top, shift):
    """A 16-bit file whose values use fewer bits (12-bit data, or values under 256) is seen at
    full contrast: its view is the high byte of the bits used, not of 16 bits (which left 12-bit
    data 16 levels of near black, and values under 256 all black)."""
    grey = np.zeros((8, 16), np.uint16)
    grey[:, 8:] = top
    grey[0, 0] = top // 3
    Image.fromarray(grey).save(tmp_path / "g.png")
    rgb = np.zeros((8, 16, 3), np.uint16)
    rgb[:, 8:] = top
    tifffile = pytest.importorskip("tifffile")
    tifffile.imwrite(tmp_path / "c.tif", rgb)
    for name, values in (("g.png", grey), ("c.tif", rgb[..., 0])):
        pic = imageio.read_image(tmp_path / name)
        expected = np.minimum(values.astype(np.int64) >> shift, 255).astype(np.uint8)
        np.testing.assert_array_equal(pic.rgb[..., 0], expected)
        assert pic.scale == (257.0 if shift == 8 else 2 ** shift)


def test_a_fill_of_16_bit_values_under_256_copies_the_right_side(tmp_path, run):
    """Seen through the bits they use, dark 16-bit values are filled from what matches: a hole
    in the left (50) half takes 50s, outside it every value is kept (a blind view took either)."""
    grey = np.full((48, 64), 50, np.uint16)
    grey[:, 32:] = 200
    Image.fromarray(grey).save(tmp_path / "d.png")
    mask = np.zeros((48, 64), np.uint8)
    mask[18:30, 8:20] = 255
    Image.fromarray(mask).save(tmp_path / "d_mask.png")
    code, _, err = run(tmp_path / "d.png", "-o", tmp_path / "out.png", "--backend", "numpy", "-q")
    assert code == 0, err
    with Image.open(tmp_path / "out.png") as im:
        out = np.asarray(im)
    assert out.dtype == np.uint16 and (out == grey).all()


@pytest.mark.parametrize("orientation, stored", [(1, (4000, 3000)), (6, (3000, 4000))])
def test_a_mask_of_another_size_is_refused_from_its_header(tmp_path, monkeypatch, orientation, stored):
    """A mask's size is compared from its header (and EXIF turn), before its pixels are decoded:
    a huge mask for a small photo costs no decoding."""
    from inpaint.io import read as readmod

    path = tmp_path / "m.png"
    exif = Image.Exif()
    exif[0x0112] = orientation
    Image.new("1", stored).save(path, exif=exif.tobytes())

    def no_decoding(*args, **kwargs):
        raise AssertionError("the mask was decoded")

    monkeypatch.setattr(readmod, "opened_whole", no_decoding)
    with pytest.raises(InputError, match=r"m\.png is 4000x3000 but the image is 64x48"):
        imageio.read_mask(path, (64, 48))
