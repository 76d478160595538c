"""Outputs keep what the input had, or say what they could not, before the work.

Each case writes a picture through the same path as the commands (read, plan, fill, save) and
reads the result back with a decoder independent of Pillow where there is one (tifffile, OpenCV,
jpeglib's DCT coefficients, a raw PNG chunk parse).
"""

from __future__ import annotations

import contextlib
import io
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageCms

from inpaint import io as imageio
from inpaint.errors import InputError
from inpaint.io import jpeg_edit
from inpaint.io.formats import FORMATS

tifffile = pytest.importorskip("tifffile")
cv2 = pytest.importorskip("cv2")
jpeglib = pytest.importorskip("jpeglib")

REPO = Path(__file__).resolve().parents[1]
PHOTO = REPO / "datasets" / "objects" / "fig_bowl" / "image.png"
H, W = 40, 56


def _mask(h=H, w=W):
    m = np.zeros((h, w), bool)
    m[13:22, 19:30] = True
    return m


def _fill(path, out, mask=None, quality=None, size=None):
    """Read, plan, fill the mask with a copy of pixel (0, 0) and write, as the commands do."""
    pic = imageio.read_image(path)
    mask = _mask(pic.size[1], pic.size[0]) if mask is None else mask
    plan = imageio.plan_output(pic, out, quality=quality, size=size)
    filled = pic.rgb.copy()
    filled[mask] = pic.rgb[0, 0]
    src = np.zeros(mask.shape + (2,), np.int32)
    result, _ = imageio.apply_fill(pic, filled, src, mask)
    note = imageio.save_images([(result, out, {"plan": plan, "mask": mask})])[0]
    return pic, plan, [n for n in plan.notes + [note] if n], mask


class _Read:
    """What a test reads from an image file, read and closed (no open file left behind)."""

    def __init__(self, path):
        with Image.open(path) as im:
            im.load()
            self.mode, self.info = im.mode, dict(im.info)
            self.quantization = getattr(im, "quantization", None)
            self.exif = im.getexif()
            self.pixels = np.asarray(im)

    def getexif(self):
        return self.exif


def _open(path):
    return _Read(path)


def _rng_rgb(h=H, w=W, seed=0):
    return (np.random.default_rng(seed).random((h, w, 3)) * 255).astype(np.uint8)


def _png_chunks(path):
    data = Path(path).read_bytes()[8:]
    chunks = {}
    while data:
        n = struct.unpack(">I", data[:4])[0]
        chunks.setdefault(data[4:8].decode(), []).append(data[8:8 + n])
        data = data[12 + n:]
    return chunks


def test_one_table_names_every_output_format():
    assert set(FORMATS) == set(imageio.OUTPUT_FORMATS)
    assert FORMATS["PNG"].deep and FORMATS["TIFF"].deep and not FORMATS["WEBP"].deep
    assert FORMATS["JPEG"].exif_limit == 65533 and FORMATS["WEBP"].lossy == "option"


def test_a_resized_lossy_result_is_not_told_of_a_mask(tmp_path):
    src = tmp_path / "a.png"
    Image.fromarray(_rng_rgb()).save(src)
    pic = imageio.read_image(src)
    assert imageio.plan_output(pic, tmp_path / "o.jpg", size=(W - 5, H)).notes == [
        "JPEG is lossy: the result is not stored exactly (write .png, .tif or .webp to keep it)"]
    assert imageio.plan_output(pic, tmp_path / "o.jpg").notes == [
        "JPEG is lossy: the pixels outside the mask are not kept exactly (write .png, .tif or .webp to keep them)"]


@pytest.mark.parametrize("ext", ["gif", "png", "jpg", "webp"])
def test_a_gifs_comment_is_kept_or_said_dropped(tmp_path, ext):
    src, out = tmp_path / "c.gif", tmp_path / f"o.{ext}"
    Image.fromarray(_rng_rgb()).save(src, comment=b"taken at dawn")
    _, _, notes, _ = _fill(src, out)
    info = _open(out).info
    if ext == "webp":
        assert "WEBP cannot hold the GIF's comment: it was dropped" in notes
    else:
        assert info.get("comment", info.get("Comment")) in (b"taken at dawn", "taken at dawn")
        assert not any("comment" in n for n in notes), notes


def test_a_jpegs_comment_is_kept_in_a_gif(tmp_path):
    src, out = tmp_path / "c.jpg", tmp_path / "o.gif"
    Image.fromarray(_rng_rgb()).save(src, comment=b"taken at dusk")
    _, _, notes, _ = _fill(src, out)
    assert _open(out).info["comment"] == b"taken at dusk" and not any("comment" in n for n in notes)


# --- resolution -----------------------------------------------------------------------------------

@pytest.mark.parametrize("src_ext", ["png", "jpg", "bmp"])
@pytest.mark.parametrize("ext", ["png", "jpg", "tif", "bmp"])
def test_the_resolution_is_kept(tmp_path, src_ext, ext):
    # Pillow's writers take the resolution only as an option: a TIFF had none, a BMP 96 dpi.
    src, out = tmp_path / f"d.{src_ext}", tmp_path / f"o.{ext}"
    Image.fromarray(_rng_rgb()).save(src, dpi=(300, 150))
    _, _, notes, _ = _fill(src, out, quality=90 if ext == "jpg" else None)
    assert not any("resolution" in n for n in notes)
    if ext == "tif":  # read with tifffile, not Pillow
        with tifffile.TiffFile(out) as tif:
            tags = tif.pages[0].tags
            got = [v[0] / v[1] for v in (tags["XResolution"].value, tags["YResolution"].value)]
            assert tags["ResolutionUnit"].value == 2
    else:
        got = _open(out).info["dpi"]
    assert got == pytest.approx((300, 150), abs=0.02)  # PNG and BMP store whole dots per metre


@pytest.mark.parametrize("ext", ["tif", "png", "jpg", "gif"])
def test_a_tiff_without_a_resolution_gets_none(tmp_path, ext):
    # Pillow reports 1 dpi for a TIFF without resolution tags; 1 dpi is not the picture's.
    src, out = tmp_path / "n.tif", tmp_path / f"o.{ext}"
    Image.fromarray(_rng_rgb()).save(src)
    _, _, notes, _ = _fill(src, out, quality=90 if ext == "jpg" else None)
    assert not any("resolution" in n for n in notes), notes
    if ext == "tif":
        with tifffile.TiffFile(out) as tif:
            assert "XResolution" not in tif.pages[0].tags
    else:
        assert "dpi" not in _open(out).info


def test_a_format_without_a_resolution_says_it_was_dropped(tmp_path):
    src = tmp_path / "d.png"
    Image.fromarray(_rng_rgb()).save(src, dpi=(300, 300))
    _, _, notes, _ = _fill(src, tmp_path / "o.webp")
    assert notes == ["WEBP cannot hold the resolution (300 dpi): it was dropped"]
    Image.fromarray(_rng_rgb()).save(src)
    assert _fill(src, tmp_path / "o.webp")[2] == []


# --- TIFF: no stale layout tags -------------------------------------------------------------------

@pytest.mark.parametrize("size", [(56, 30), (44, 40)])
def test_tiff_resized_declares_its_new_size(tmp_path, size):
    src, out = tmp_path / "a.tif", tmp_path / "b.tif"
    Image.fromarray(_rng_rgb()).save(src)
    w, h = size
    r = subprocess.run([sys.executable, "-m", "inpaint", "resize", str(src), "--width", str(w), "--height", str(h),
                        "-o", str(out), "--backend", "numpy"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    arr = tifffile.imread(out)
    assert arr.shape == (h, w, 3)
    assert _open(out).pixels.shape == (h, w, 3)


def test_planar_tiff_keeps_every_pixel_outside_the_mask(tmp_path):
    rgb = _rng_rgb()
    src, out = tmp_path / "planar.tif", tmp_path / "out.tif"
    tifffile.imwrite(src, rgb.transpose(2, 0, 1).copy(), photometric="rgb", planarconfig="separate")
    _, _, notes, mask = _fill(src, out)
    back = tifffile.imread(out)
    assert back.shape == (H, W, 3) and notes == []
    assert np.array_equal(back[~mask], rgb[~mask])


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_exif_with_layout_tags_gives_a_readable_tiff(tmp_path, fmt):
    rgb = _rng_rgb()
    exif = Image.Exif()
    exif[256], exif[257], exif[284], exif[0x010F] = 4000, 3000, 2, "camera maker"
    src = tmp_path / ("a.jpg" if fmt == "JPEG" else "a.png")
    Image.fromarray(rgb).save(src, fmt, exif=exif.tobytes())
    out = tmp_path / "b.tif"
    pic, _, _, mask = _fill(src, out)
    back = tifffile.imread(out)
    assert back.shape == (H, W, 3)
    if fmt == "PNG":
        assert np.array_equal(back[~mask], rgb[~mask])
    with tifffile.TiffFile(out) as tif:
        tags = tif.pages[0].tags
        assert tags["ImageWidth"].value == W and tags["PlanarConfiguration"].value == 1
    assert _open(out).getexif()[0x010F] == "camera maker"


@pytest.mark.parametrize("orientation", [5, 6, 7, 8])
def test_tiff_turned_upright_is_written_upright(tmp_path, orientation):
    rgb = _rng_rgb()
    src, out = tmp_path / "o.tif", tmp_path / "u.tif"
    exif = Image.Exif()
    exif[0x0112] = orientation
    Image.fromarray(rgb).save(src, exif=exif.tobytes())
    _fill(src, out)
    back = tifffile.imread(out)
    assert back.shape == (W, H, 3)  # turned a quarter
    assert _open(out).getexif().get(0x0112, 1) == 1


@pytest.mark.parametrize("ext", [".tif", ".png", ".jpg"])
def test_bigtiff_input_is_written_with_its_tags(tmp_path, ext):
    # A BigTIFF's EXIF has a BigTIFF header, which Pillow's writer failed on after the work.
    rgb = _rng_rgb()
    src, out = tmp_path / "big.tif", tmp_path / f"o{ext}"
    tifffile.imwrite(src, rgb, bigtiff=True, photometric="rgb", extratags=[(315, "s", 0, "A. Photographer", True)])
    _, _, notes, mask = _fill(src, out)
    back = _open(out)
    if ext != ".jpg":
        got = tifffile.imread(out) if ext == ".tif" else cv2.cvtColor(cv2.imread(str(out)), cv2.COLOR_BGR2RGB)
        assert np.array_equal(got[~mask], rgb[~mask])
    assert back.getexif().get(315) == "A. Photographer"


def _planar16(path, bigtiff=False):
    planes = (np.random.default_rng(4).random((3, H, W)) * 65535).astype(np.uint16)
    tifffile.imwrite(path, planes, planarconfig="separate", photometric="rgb", bigtiff=bigtiff)
    return np.moveaxis(planes, 0, -1)


@pytest.mark.parametrize("bigtiff", [False, True])
def test_16bit_planar_tiff_is_read_as_it_is(tmp_path, bigtiff):
    # Pillow decodes such a file as noise (or not at all); tifffile reads it.
    truth = _planar16(tmp_path / "p.tif", bigtiff)
    _, _, _, mask = _fill(tmp_path / "p.tif", tmp_path / "o.png")
    got = cv2.cvtColor(cv2.imread(str(tmp_path / "o.png"), cv2.IMREAD_UNCHANGED), cv2.COLOR_BGR2RGB)
    assert got.dtype == np.uint16 and np.array_equal(got[~mask], truth[~mask])
    _, _, notes, _ = _fill(tmp_path / "p.tif", tmp_path / "o.tif")
    back = tifffile.imread(tmp_path / "o.tif")
    assert notes == [] and back.dtype == np.uint16 and np.array_equal(back[~mask], truth[~mask])


def test_16bit_planar_tiff_without_tifffile_is_refused_clearly(tmp_path, monkeypatch):
    _planar16(tmp_path / "p.tif")
    monkeypatch.setitem(sys.modules, "tifffile", None)  # not installed
    with pytest.raises(InputError, match="colour planes stored apart.*tifffile"):
        imageio.read_image(tmp_path / "p.tif")


def _add_gps_ifd(path):
    """Give the classic little-endian TIFF ``path`` a GPS IFD (tifffile writes none): appended at
    the end, pointed to by the placeholder tag 65000, renamed GPSTag (34853, still the last tag)."""
    with tifffile.TiffFile(path) as tif:
        at = tif.pages[0].tags[65000].valueoffset
    data = bytearray(Path(path).read_bytes())
    data += b"\0" * (len(data) % 2)
    start = len(data)
    entries = [(0, 1, 4, b"\x02\x03\x00\x00"), (1, 2, 2, b"N\0\0\0"),
               (2, 5, 3, struct.pack("<6I", 52, 1, 31, 1, 25, 2)), (3, 2, 2, b"E\0\0\0"),
               (4, 5, 3, struct.pack("<6I", 13, 1, 24, 1, 36, 1)), (18, 2, 7, b"WGS-84\0")]
    extra_at = start + 2 + 12 * len(entries) + 4
    ifd, extra = struct.pack("<H", len(entries)), b""
    for tag, kind, count, value in entries:
        if len(value) > 4:
            ifd += struct.pack("<HHII", tag, kind, count, extra_at + len(extra))
            extra += value + b"\0" * (len(value) % 2)
        else:
            ifd += struct.pack("<HHI", tag, kind, count) + value
    data += ifd + b"\0\0\0\0" + extra
    data[at - 8:at - 6] = struct.pack("<H", 34853)
    data[at:at + 4] = struct.pack("<I", start)
    Path(path).write_bytes(bytes(data))


def _tags(raw):
    """The tags of a TIFF file, or of an EXIF block, as tifffile reads them (GPS IFD included)."""
    raw = raw[6:] if raw.startswith(b"Exif\0\0") else raw
    with tifffile.TiffFile(io.BytesIO(raw)) as tif:
        return {tag.name: tag.value for tag in tif.pages[0].tags.values()}


@pytest.mark.parametrize("ext", [".tif", ".png", ".jpg", ".webp"])
@pytest.mark.parametrize("planar", ["separate", "contig"])
def test_a_tiffs_tags_and_gps_ifd_are_kept(tmp_path, planar, ext):
    # A 16-bit TIFF with planes stored apart is read with tifffile: its tags, GPS IFD and ICC
    # profile were left behind.
    src, out = tmp_path / "gps.tif", tmp_path / f"o{ext}"
    planes = (np.random.default_rng(6).random((3, H, W)) * 65535).astype(np.uint16)
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    tifffile.imwrite(src, planes if planar == "separate" else np.moveaxis(planes, 0, -1), planarconfig=planar,
                     photometric="rgb", iccprofile=icc, software="Editor 2",
                     extratags=[(271, "s", 0, "Maker", True), (65000, "I", 1, 0, True)])
    _add_gps_ifd(src)
    before = _tags(src.read_bytes())
    assert before["GPSTag"]["GPSLatitude"] == (52, 1, 31, 1, 25, 2)  # the input holds it
    _, _, notes, mask = _fill(src, out)
    if ext == ".tif":
        after = _tags(out.read_bytes())
        got = tifffile.imread(out)
    else:
        after = _tags(_open(out).info["exif"])
        got = cv2.cvtColor(cv2.imread(str(out), cv2.IMREAD_UNCHANGED), cv2.COLOR_BGR2RGB)
    assert after["GPSTag"] == before["GPSTag"]
    assert (after["Make"], after["Software"]) == ("Maker", "Editor 2")
    assert _open(out).info.get("icc_profile") == icc
    if ext in (".tif", ".png"):  # lossless: every pixel outside the mask kept (at 8 bits in a TIFF)
        truth = np.moveaxis(planes, 0, -1)
        want = truth[~mask] if got.dtype == np.uint16 else (truth[~mask] >> 8).astype(np.uint8)
        assert np.array_equal(got[~mask], want)
    assert not any("EXIF" in n or "ICC" in n for n in notes), notes


@pytest.mark.parametrize("pages", [1, 2])
def test_a_tiffs_tags_and_xmp_are_kept_together(tmp_path, pages):
    # Pillow's writer took the XMP or the EXIF tags, not both; and a multi-page TIFF's first page is
    # a copy (the file is closed), which had lost the page's tags and XMP.
    src, out = tmp_path / "pages.tif", tmp_path / "o.tif"
    rgb = _rng_rgb()
    with tifffile.TiffWriter(src) as tif:
        tif.write(rgb, photometric="rgb", software="Editor 3", extratags=[(271, "s", 0, "Maker", True),
                                                                          (700, "B", 9, b"<x:xmp/>\0", True)])
        if pages == 2:
            tif.write(rgb, photometric="rgb")
    with pytest.warns(UserWarning, match="has 2 pages") if pages == 2 else contextlib.nullcontext():
        _, _, notes, mask = _fill(src, out)
    after = _tags(out.read_bytes())
    assert (after["Make"], after["Software"]) == ("Maker", "Editor 3") and after["XMP"].startswith(b"<x:xmp/>")
    assert np.array_equal(tifffile.imread(out)[~mask], rgb[~mask])


def test_a_format_without_exif_says_the_gps_position_was_dropped(tmp_path):
    src = tmp_path / "gps.tif"
    tifffile.imwrite(src, _rng_rgb(), photometric="rgb", extratags=[(65000, "I", 1, 0, True)])
    _add_gps_ifd(src)
    _, _, notes, _ = _fill(src, tmp_path / "o.bmp")
    assert "BMP cannot hold EXIF data: it was dropped (the GPS position too)" in notes


def test_a_gps_value_trimmed_from_a_jpegs_exif_is_named_as_gps():
    from inpaint.io.plan import fit_exif

    exif = Image.Exif()
    exif[271] = "Maker"
    gps = exif.get_ifd(0x8825)
    gps[1], gps[2] = "N", (52.0, 31.0, 12.5)
    gps[27] = b"ASCII\0\0\0" + b"x" * 70000  # GPSProcessingMethod, beyond JPEG's 64 KB
    raw, note = fit_exif(exif, 65533)
    assert note.endswith("dropped its GPSProcessingMethod"), note
    kept = _tags(raw)
    assert kept["Make"] == "Maker" and kept["GPSTag"]["GPSLatitude"] == (52, 1, 31, 1, 25, 2)


def test_16bit_planar_tiff_is_turned_upright(tmp_path):
    planes = (np.random.default_rng(7).random((3, H, W)) * 65535).astype(np.uint16)
    tifffile.imwrite(tmp_path / "p.tif", planes, planarconfig="separate", photometric="rgb",
                     extratags=[(274, "H", 1, 6, True)])  # orientation 6: turn 90 degrees clockwise to view
    pic = imageio.read_image(tmp_path / "p.tif")
    assert np.array_equal(pic.wide, np.rot90(np.moveaxis(planes, 0, -1), k=-1))
    assert pic.exif.get(0x0112, 1) == 1  # the result is upright: no orientation to apply again


@pytest.mark.parametrize("kind", ["I;16", "F"])
def test_wide_grey_to_a_format_without_grey_is_reduced_with_a_note(tmp_path, kind):
    # QOI holds RGB and RGBA only: the grey made 8-bit is made RGB too, not refused.
    grey = np.random.default_rng(9).random((H, W))
    src, out = tmp_path / "g.tif", tmp_path / "o.qoi"
    if kind == "F":
        tifffile.imwrite(src, grey.astype(np.float32))
    else:
        tifffile.imwrite(src, (grey * 65535).astype(np.uint16))
    _, _, notes, mask = _fill(src, out)
    assert "reduced to 8 bits" in notes[0] or "written with 8 bits" in notes[0], notes  # (and tifffile's tags)
    back = _open(out)
    assert back.mode == "RGB"
    want = np.rint(grey * 255) if kind == "F" else (grey * 65535).astype(np.uint16) >> 8
    assert np.abs(back.pixels[..., 0][~mask].astype(int) - want[~mask]).max() <= 1


def test_16bit_grey_tiff_keeps_16_bits(tmp_path):
    grey = (np.random.default_rng(1).random((H, W)) * 65535).astype(np.uint16)
    src, out = tmp_path / "g16.tif", tmp_path / "o.tif"
    tifffile.imwrite(src, grey)
    _, _, notes, mask = _fill(src, out)
    back = tifffile.imread(out)
    assert back.dtype == np.uint16 and notes == []
    assert np.array_equal(back[~mask], grey[~mask])


@pytest.mark.parametrize("channels", [2, 3, 4])
def test_16bit_colour_to_tiff_keeps_16_bits(tmp_path, channels):
    wide = (np.random.default_rng(2).random((H, W, channels)) * 65535).astype(np.uint16)
    src, out = tmp_path / "c16.png", tmp_path / "o.tif"
    with open(src, "wb") as fh:
        imageio.write_png(fh, wide, dpi=(300, 300))
    _, _, notes, mask = _fill(src, out)
    assert notes == []
    with tifffile.TiffFile(out) as tif:
        page = tif.pages[0]
        back = page.asarray()
        assert page.photometric == (1 if channels == 2 else 2) and page.bitspersample == 16
        assert list(page.extrasamples) == ([2] if channels in (2, 4) else [])  # an unassociated alpha
        x, y = page.tags["XResolution"].value, page.tags["YResolution"].value
        assert page.tags["ResolutionUnit"].value == 2  # per inch: PNG's 11811 per metre
        assert (x[0] / x[1], y[0] / y[1]) == pytest.approx((300, 300), abs=0.01)
    assert back.dtype == np.uint16 and np.array_equal(back[~mask], wide[~mask])


@pytest.mark.parametrize("compression", [("zlib", False), ("zlib", True), (None, False)])
@pytest.mark.parametrize("byteorder", ["<", ">"])
def test_16bit_compressed_tiff_is_read_at_16_bits(tmp_path, compression, byteorder):
    # Pillow decodes a compressed TIFF through libtiff to 8 bits a channel; its low bytes are
    # read again with the other byte order.
    wide = (np.random.default_rng(8).random((H, W, 3)) * 65535).astype(np.uint16)
    src = tmp_path / "z16.tif"
    tifffile.imwrite(src, wide, photometric="rgb", compression=compression[0], predictor=compression[1],
                     byteorder=byteorder)
    for ext in (".tif", ".png"):
        _, _, notes, mask = _fill(src, tmp_path / f"o{ext}")
        back = (tifffile.imread(tmp_path / "o.tif") if ext == ".tif" else
                cv2.cvtColor(cv2.imread(str(tmp_path / "o.png"), cv2.IMREAD_UNCHANGED), cv2.COLOR_BGR2RGB))
        assert notes == [] and back.dtype == np.uint16 and np.array_equal(back[~mask], wide[~mask])


def test_16bit_colour_to_a_format_of_8_bits_says_it_is_reduced(tmp_path):
    wide = (np.random.default_rng(2).random((H, W, 3)) * 65535).astype(np.uint16)
    src, out = tmp_path / "c16.png", tmp_path / "o.bmp"
    with open(src, "wb") as fh:
        imageio.write_png(fh, wide)
    _, _, notes, mask = _fill(src, out)
    assert notes == ["BMP is written with 8 bits per channel here: the 16-bit image was reduced "
                     "(write .png or .tif to keep 16 bits)"]
    back = cv2.cvtColor(cv2.imread(str(out)), cv2.COLOR_BGR2RGB)
    assert np.array_equal(back[~mask], (wide[~mask] >> 8).astype(np.uint8))


def test_16bit_colour_key_to_tiff_becomes_alpha(tmp_path):
    wide = (np.random.default_rng(3).random((H, W, 3)) * 65535).astype(np.uint16)
    key = tuple(int(v) for v in wide[0, 1])
    src, out = tmp_path / "t16.png", tmp_path / "o.tif"
    with open(src, "wb") as fh:
        imageio.write_png(fh, wide, transparency=key)
    _, _, notes, mask = _fill(src, out)
    back = tifffile.imread(out)
    alpha = np.where((wide == key).all(axis=2), 0, 65535)
    assert notes == [] and back.dtype == np.uint16 and back.shape == (H, W, 4)
    assert np.array_equal(back[..., :3][~mask], wide[~mask]) and np.array_equal(back[..., 3][~mask], alpha[~mask])
    assert back[0, 1, 3] == 0 and (alpha == 0).sum() == 1


# --- transparency ---------------------------------------------------------------------------------

@pytest.mark.parametrize("empty", [False, True])
def test_16bit_png_keeps_its_colour_key(tmp_path, empty):
    wide = (np.random.default_rng(3).random((H, W, 3)) * 65535).astype(np.uint16)
    src, out = tmp_path / "t16.png", tmp_path / "o.png"
    with open(src, "wb") as fh:
        imageio.write_png(fh, wide, transparency=(1, 2, 3))
    mask = np.zeros((H, W), bool) if empty else _mask()
    _, _, notes, _ = _fill(src, out, mask=mask)
    chunks = _png_chunks(out)
    assert chunks["tRNS"] == [struct.pack(">3H", 1, 2, 3)] and notes == []
    assert chunks["IHDR"][0][8:10] == bytes([16, 2])
    back = cv2.cvtColor(cv2.imread(str(out), cv2.IMREAD_UNCHANGED), cv2.COLOR_BGR2RGB)
    assert np.array_equal(back[~mask], wide[~mask])


@pytest.mark.parametrize("mode", ["P", "RGB", "L"])
def test_colour_key_to_tiff_becomes_alpha(tmp_path, mode):
    rgb = _rng_rgb()
    img = Image.fromarray(rgb).convert(mode) if mode != "P" else Image.fromarray(rgb).quantize(64)
    key = 5 if mode in ("P", "L") else tuple(int(v) for v in np.asarray(img)[0, 1])
    img.info["transparency"] = key
    src, out = tmp_path / "k.png", tmp_path / "o.tif"
    img.save(src, transparency=key)
    with Image.open(src) as im:
        expect = np.asarray(im.convert("RGBA" if mode != "L" else "LA"))
    _, _, notes, mask = _fill(src, out)
    back = tifffile.imread(out)
    assert back.shape[2] == expect.shape[2] and notes == []
    assert np.array_equal(back[~mask], expect[~mask])


@pytest.mark.parametrize("ext", ["bmp", "ppm"])
def test_colour_key_dropped_with_a_note(tmp_path, ext):
    img = Image.fromarray(_rng_rgb()).quantize(64)
    src, out = tmp_path / "k.png", tmp_path / f"o.{ext}"
    img.save(src, transparency=5)
    _, _, notes, _ = _fill(src, out)
    assert any("transparen" in n for n in notes)


def test_a_pngs_chunks_that_no_output_keeps_are_named(tmp_path):
    src = tmp_path / "p.png"
    Image.fromarray(_rng_rgb()).save(src)
    data = src.read_bytes()

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    src.write_bytes(data[:33] + chunk(b"prVw", b"a private preview") + chunk(b"tIME", bytes(7)) + data[33:])
    _, _, notes, _ = _fill(src, tmp_path / "o.png")
    assert notes == ["the PNG's other chunks (prVw) were dropped"]  # (the time of the last change: stale)


def test_a_tiffs_layers_and_sub_images_are_said_dropped(tmp_path):
    src = tmp_path / "t.tif"
    rgb = _rng_rgb()
    with tifffile.TiffWriter(src) as tif:
        tif.write(rgb, photometric="rgb", subifds=1, extratags=[(37724, 7, None, b"Adobe Photoshop layers", True)])
        tif.write(rgb[::2, ::2], photometric="rgb", subfiletype=1)  # its reduced copy, as a SubIFD
    _, _, notes, _ = _fill(src, tmp_path / "o.tif")
    assert notes == ["the TIFF's sub-images (SubIFDs: reduced copies, or a raw image) were dropped",
                     "the TIFF's Photoshop layers (ImageSourceData) were dropped"]


def test_grey_alpha_16_bits_stays_16_bits(tmp_path):
    la = (np.random.default_rng(4).random((H, W, 2)) * 65535).astype(np.uint16)
    src, out = tmp_path / "la16.png", tmp_path / "o.png"
    with open(src, "wb") as fh:
        imageio.write_png(fh, la)
    pic, _, notes, mask = _fill(src, out)
    assert pic.mode == "LA;16" and notes == []
    assert _png_chunks(out)["IHDR"][0][8:10] == bytes([16, 4])
    back = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)  # OpenCV gives grey+alpha as BGRA
    assert back.dtype == np.uint16
    assert np.array_equal(back[..., 0][~mask], la[..., 0][~mask])
    assert np.array_equal(back[..., 3][~mask], la[..., 1][~mask])


def _premultiplied(bits, channels, seed=6):
    """Colours multiplied by their alpha, as a TIFF with an associated alpha stores them."""
    top = (1 << bits) - 1
    rng = np.random.default_rng(seed)
    alpha = rng.integers(0, top + 1, (H, W, 1), dtype=np.int64)
    colour = rng.integers(0, top + 1, (H, W, channels - 1), dtype=np.int64) * alpha // top
    return np.concatenate([colour, alpha], axis=2).astype(np.uint8 if bits == 8 else np.uint16)


@pytest.mark.parametrize("bits", [8, 16])
@pytest.mark.parametrize("channels", [2, 4])
@pytest.mark.parametrize("compression", [None, "zlib"])
def test_an_associated_alpha_tiff_keeps_its_stored_values(tmp_path, bits, channels, compression):
    if bits == 16 and channels == 2:
        pytest.skip("Pillow cannot open 16-bit grey with an associated alpha")
    stored = _premultiplied(bits, channels)
    src, out = tmp_path / "assoc.tif", tmp_path / "o.tif"
    tifffile.imwrite(src, stored, photometric="rgb" if channels == 4 else "minisblack", extrasamples=[1],
                     compression=compression)
    pic, _, notes, mask = _fill(src, out)
    assert pic.source.associated and notes == []
    with tifffile.TiffFile(out) as tif:
        page = tif.pages[0]
        back = page.asarray()
        assert list(page.extrasamples) == [1]  # still associated
    assert back.dtype == stored.dtype and np.array_equal(back[~mask], stored[~mask])
    assert (back[mask] == stored[0, 0]).all()


def test_an_associated_alpha_fill_keeps_colours_within_their_alpha(tmp_path):
    stored = _premultiplied(16, 4)
    src = tmp_path / "assoc.tif"
    tifffile.imwrite(src, stored, photometric="rgb", extrasamples=[1])
    pic = imageio.read_image(src)
    mask = _mask()
    filled = pic.rgb.copy()
    filled[mask] = 255  # a blend brighter than the copied source pixels
    src_map = np.zeros(mask.shape + (2,), np.int32)
    src_map[..., 1] = np.arange(W)[None, :]  # each column's top pixel: alphas of every level
    result, _ = imageio.apply_fill(pic, filled, src_map, mask)
    back = result.array
    assert np.array_equal(back[~mask], stored[~mask])
    assert (back[mask][:, :3] <= back[mask][:, 3:]).all()
    assert np.array_equal(back[mask][:, 3], stored[0][np.nonzero(mask)[1]][:, 3])


@pytest.mark.parametrize("width", [W - 9, W + 9])
def test_an_associated_alpha_tiff_resized_stays_associated(tmp_path, run, width):
    stored = _premultiplied(16, 4)
    src, out = tmp_path / "assoc.tif", tmp_path / "o.tif"
    tifffile.imwrite(src, stored, photometric="rgb", extrasamples=[1])
    code, _, err = run("resize", src, "--width", width, "-o", out, "--backend", "numpy")
    assert code == 0, err
    with tifffile.TiffFile(out) as tif:
        back = tif.pages[0].asarray()
        assert list(tif.pages[0].extrasamples) == [1]
    assert back.shape == (H, width, 4)
    assert (back[..., :3] <= back[..., 3:]).all()  # means of stored values stay within their alpha
    if width < W:  # removing seams moves stored pixels: each row is a subsequence of its input row
        for y in range(H):
            it = iter([tuple(p) for p in stored[y]])
            assert all(p in it for p in map(tuple, back[y]))


@pytest.mark.parametrize("bits", [8, 16])
def test_an_associated_alpha_is_divided_out_in_a_png(tmp_path, bits):
    stored = _premultiplied(bits, 4)
    src, out = tmp_path / "assoc.tif", tmp_path / "o.png"
    tifffile.imwrite(src, stored, photometric="rgb", extrasamples=[1])
    _, _, notes, mask = _fill(src, out)
    assert notes == []
    top = (1 << bits) - 1
    colour, alpha = stored[..., :3].astype(np.float64), stored[..., 3:].astype(np.float64)
    straight = np.where(alpha > 0, np.minimum(np.floor(colour * top / np.maximum(alpha, 1) + 0.5), top), 0)
    back = cv2.cvtColor(cv2.imread(str(out), cv2.IMREAD_UNCHANGED), cv2.COLOR_BGRA2RGBA)
    assert back.dtype == stored.dtype
    assert np.array_equal(back[..., 3][~mask], stored[..., 3][~mask])
    diff = np.abs(back[..., :3].astype(np.int64) - straight)[~mask]
    assert diff.max() <= (1 if bits == 8 else 0)  # (Pillow's own division for 8 bits)


# --- colour spaces --------------------------------------------------------------------------------

def test_cmyk_kept_in_tiff_and_converted_with_a_note_elsewhere(tmp_path):
    cmyk = Image.fromarray(_rng_rgb()).convert("CMYK")
    src = tmp_path / "c.tif"
    cmyk.save(src)
    _, _, notes, mask = _fill(src, tmp_path / "o.tif")
    back = tifffile.imread(tmp_path / "o.tif")
    assert back.shape == (H, W, 4) and notes == []
    assert np.array_equal(back[~mask], np.asarray(cmyk)[~mask])
    _, _, notes, _ = _fill(src, tmp_path / "o.png")
    assert any("CMYK colour: converted to RGB" in n for n in notes)


def test_cmyk_jpeg_reencoded_with_its_tables_and_a_note(tmp_path):
    src, out = tmp_path / "c.jpg", tmp_path / "o.jpg"
    Image.fromarray(_rng_rgb()).convert("CMYK").save(src, quality=80)
    _, plan, notes, _ = _fill(src, out)
    assert plan.jpeg_edit is None and any("CMYK" in n and "quantisation tables" in n for n in notes)
    assert _open(out).mode == "CMYK"
    assert _open(out).quantization == _open(src).quantization


def test_lab_to_png_says_it_was_converted(tmp_path):
    src = tmp_path / "lab.tif"
    Image.fromarray(_rng_rgb()).convert("LAB").save(src)
    _, _, notes, _ = _fill(src, tmp_path / "o.png")
    assert any("CIELAB" in n for n in notes)


# --- metadata -------------------------------------------------------------------------------------

def test_huge_exif_to_jpeg_is_trimmed_before_the_work(tmp_path):
    exif = Image.Exif()
    exif[0x010F] = "maker"
    exif[0x010E] = "x" * 70000
    src, out = tmp_path / "big.png", tmp_path / "o.jpg"
    Image.fromarray(_rng_rgb()).save(src, exif=exif.tobytes())
    pic = imageio.read_image(src)
    plan = imageio.plan_output(pic, out)
    assert any("EXIF block" in n and "ImageDescription" in n for n in plan.notes)
    _fill(src, out)
    kept = _open(out).getexif()
    assert kept[0x010F] == "maker" and 0x010E not in kept


def test_xmp_and_icc_kept_in_png_and_jpeg(tmp_path):
    from PIL import ImageCms

    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'
    src = tmp_path / "m.jpg"
    Image.fromarray(_rng_rgb()).save(src, quality=90, icc_profile=icc, xmp=xmp)
    for ext in ("png", "jpg", "webp", "tif"):
        out = tmp_path / f"o.{ext}"
        _fill(src, out)
        back = _open(out)
        assert back.info.get("icc_profile") == icc, ext
        got = back.info.get("xmp") or back.info.get("XML:com.adobe.xmp") or back.getexif().get(700)
        got = got.encode() if isinstance(got, str) else bytes(got or b"")
        assert xmp in got, ext


def test_quality_refused_for_a_lossless_output_before_the_work(tmp_path):
    src = tmp_path / "a.png"
    Image.fromarray(_rng_rgb()).save(src)
    with pytest.raises(imageio.InputError if hasattr(imageio, "InputError") else Exception, match="--quality"):
        imageio.plan_output(imageio.read_image(src), tmp_path / "o.png", quality=80)


# --- JPEG: the blocks outside the fill keep their coefficients ------------------------------------

_CV2_SAMPLING = {"4:4:0": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_440, "4:1:1": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_411}


def _photo_jpeg(path, subsampling, quality=90, progressive=False, orientation=None, crop=None):
    img = Image.open(PHOTO).convert("RGB")
    if crop:
        img = img.crop(crop)
    if subsampling in _CV2_SAMPLING:  # layouts Pillow cannot write (a 4:2:2 photo turned by jpegtran is 4:4:0)
        assert not (progressive or orientation)
        cv2.imwrite(str(path), cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR),
                    [cv2.IMWRITE_JPEG_QUALITY, quality, cv2.IMWRITE_JPEG_SAMPLING_FACTOR, _CV2_SAMPLING[subsampling]])
        return
    kw = {}
    if orientation:
        exif = Image.Exif()
        exif[0x0112] = orientation
        kw["exif"] = exif.tobytes()
    img.save(path, quality=quality, subsampling=subsampling, progressive=progressive, **kw)


def _grid_pixels(grid, mcu, shape):
    return np.kron(grid, np.ones(mcu, bool))[:shape[0], :shape[1]]


@pytest.mark.parametrize("subsampling,progressive,orientation", [
    (0, False, None), (1, False, None), (2, False, None), (2, True, None), (2, False, 6), (1, False, 3),
    (0, True, 8), ("4:4:0", False, None), ("4:1:1", False, None)])
def test_jpeg_blocks_outside_the_fill_are_kept(tmp_path, subsampling, progressive, orientation):
    src, out = tmp_path / "p.jpg", tmp_path / "o.jpg"
    _photo_jpeg(src, subsampling, progressive=progressive, orientation=orientation, crop=(3, 5, 403, 306))
    pic = imageio.read_image(src)
    h, w = pic.rgb.shape[:2]
    mask = np.zeros((h, w), bool)
    mask[101:140, 57:120] = True
    _, plan, notes, _ = _fill(src, out, mask=mask)
    assert plan.jpeg_edit is not None and notes == []
    # in the stored frame: the coefficients of every MCU without a filled pixel are the input's
    stored_mask = jpeg_edit.STORED[orientation or 1](mask)
    a, b = jpeglib.read_dct(str(src)), jpeglib.read_dct(str(out))
    vv, hv = (int(x) for x in np.asarray(a.samp_factor)[0])
    mcu = (8 * vv, 8 * hv)
    grid = jpeg_edit.touched_mcus(stored_mask, mcu)
    ygrid = np.kron(grid, np.ones((vv, hv), bool))[:a.Y.shape[0], :a.Y.shape[1]]
    assert np.array_equal(a.Y[~ygrid], b.Y[~ygrid])
    assert np.array_equal(a.Cb[~grid[:a.Cb.shape[0], :a.Cb.shape[1]]], b.Cb[~grid[:b.Cb.shape[0], :b.Cb.shape[1]]])
    assert np.array_equal(a.Cr[~grid[:a.Cr.shape[0], :a.Cr.shape[1]]], b.Cr[~grid[:b.Cr.shape[0], :b.Cr.shape[1]]])
    assert not np.array_equal(a.Y, b.Y)  # the fill is there
    # decoded by OpenCV (another libjpeg build): identical outside the touched MCUs, except the one
    # pixel next to them where subsampled chroma is interpolated across the border
    pa, pb = cv2.imread(str(src), cv2.IMREAD_UNCHANGED | cv2.IMREAD_IGNORE_ORIENTATION), \
        cv2.imread(str(out), cv2.IMREAD_UNCHANGED | cv2.IMREAD_IGNORE_ORIENTATION)
    near = _grid_pixels(grid, mcu, pa.shape)
    if subsampling:
        near = cv2.dilate(near.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    assert np.array_equal(pa[~near], pb[~near])
    # the markers (EXIF with its orientation) are the input's, and the size stays close
    assert _open(out).getexif().get(0x0112, 1) == (orientation or 1)
    assert abs(out.stat().st_size / src.stat().st_size - 1) < 0.05


def _set_table_selectors(data: bytes, selectors: tuple[int, ...]) -> bytes:
    """The JPEG with its components' quantisation-table selectors (Tq in SOF0) set to
    ``selectors`` (Y, Cb, Cr): a valid file that decodes to other colours."""
    i = data.index(b"\xff\xc0")
    count = data[i + 9]
    out = bytearray(data)
    for c in range(count):
        out[i + 10 + 3 * c + 2] = selectors[c]
    return bytes(out)


@pytest.mark.parametrize("subsampling, selectors", [
    (2, (1, 0, 0)), (0, (1, 0, 0)),   # luma on table 1, chroma on table 0
    (2, (0, 0, 1)), (0, (0, 0, 1)),   # luma and Cb on table 0, Cr on table 1
    (2, (0, 1, 0)), (1, (1, 1, 0)),
])
def test_jpeg_with_unusual_table_selectors_is_filled_with_the_right_tables(tmp_path, subsampling, selectors):
    usual, src = tmp_path / "usual.jpg", tmp_path / "p.jpg"
    _photo_jpeg(usual, subsampling, quality=85, crop=(3, 5, 243, 186))
    src.write_bytes(_set_table_selectors(usual.read_bytes(), selectors))
    a = jpeglib.read_dct(str(src))
    assert list(np.asarray(a.quant_tbl_no)) == list(selectors)
    pic = imageio.read_image(src)
    h, w = pic.rgb.shape[:2]
    mask = np.zeros((h, w), bool)
    mask[61:120, 57:150] = True
    out = tmp_path / "o.jpg"
    plan = imageio.plan_output(pic, out)
    filled = pic.rgb.copy()
    filled[mask] = np.roll(pic.rgb, (37, 41), axis=(0, 1))[mask]  # texture, not a flat colour
    result, _ = imageio.apply_fill(pic, filled, np.zeros(mask.shape + (2,), np.int32), mask)
    assert imageio.save_images([(result, out, {"plan": plan, "mask": mask})])[0] is None
    assert plan.jpeg_edit is not None and plan.notes == []
    b = jpeglib.read_dct(str(out))
    assert list(np.asarray(b.quant_tbl_no)) == list(selectors)
    # edited block by block: the blocks of the MCUs without a filled pixel are the input's
    grid = jpeg_edit.touched_mcus(mask, (8 * (1 + (subsampling == 2)), 8 * (1 + (subsampling > 0))))
    cgrid = grid[:a.Cb.shape[0], :a.Cb.shape[1]]
    for old, new in ((a.Cb, b.Cb), (a.Cr, b.Cr)):
        assert np.array_equal(old[~cgrid], new[~cgrid])
    # decoded by OpenCV: the filled pixels are the fill's, within JPEG's error (as for the same
    # photo with the usual selectors); quantised with one table and stored under the other they
    # were speckled
    got = cv2.cvtColor(cv2.imread(str(out), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB).astype(int)
    inner = np.zeros_like(mask)
    inner[69:112, 65:142] = True  # away from the border blocks that mix fill and photo
    error = np.abs(got[inner] - filled[inner].astype(int)).mean()
    assert error < 6, error


#: A stand-in for a motion photo's video: an MP4 box header, and bytes that hold markers too.
_TRAILER = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 4 + b"\xff\xd9\xff\xd8tail"


@pytest.mark.parametrize("progressive", [False, True])
def test_data_after_the_jpegs_end_is_dropped_with_a_note(tmp_path, progressive):
    # (a motion photo's video, an editor's copy of the original: they would show what was removed)
    src, out = tmp_path / "p.jpg", tmp_path / "o.jpg"
    _photo_jpeg(src, 2, progressive=progressive, crop=(3, 5, 203, 166))
    picture = src.read_bytes()
    src.write_bytes(picture + _TRAILER)
    assert jpeg_edit.jpeg_end(src.read_bytes()) == len(picture)
    pic, plan, notes, mask = _fill(src, out)
    assert plan.jpeg_edit is not None
    assert len(notes) == 1 and f"{len(_TRAILER)} bytes after the JPEG's end" in notes[0]
    data = out.read_bytes()
    assert _TRAILER not in data and jpeg_edit.jpeg_end(data) == len(data)
    assert cv2.imread(str(out)).shape[:2] == pic.rgb.shape[:2]


def test_data_after_the_jpegs_end_dropped_elsewhere_with_a_note(tmp_path):
    src = tmp_path / "p.jpg"
    _photo_jpeg(src, 2, crop=(3, 5, 203, 166))
    src.write_bytes(src.read_bytes() + _TRAILER)
    _, _, notes, _ = _fill(src, tmp_path / "o.png")
    assert any(f"{len(_TRAILER)} bytes after the JPEG's end" in n for n in notes)


def test_jpeg_with_an_empty_mask_is_a_coefficient_copy(tmp_path):
    src, out = tmp_path / "p.jpg", tmp_path / "o.jpg"
    _photo_jpeg(src, 2)
    pic = imageio.read_image(src)
    plan = imageio.plan_output(pic, out)
    imageio.save_images([(imageio.unchanged(pic), out, {"plan": plan, "mask": np.zeros(pic.rgb.shape[:2], bool)})])
    a, b = jpeglib.read_dct(str(src)), jpeglib.read_dct(str(out))
    assert np.array_equal(a.Y, b.Y) and np.array_equal(a.Cb, b.Cb)
    assert np.array_equal(_open(src).pixels, _open(out).pixels)
    assert out.read_bytes() == src.read_bytes()  # nothing changed: the input itself


@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("mcu", [(8, 8), (8, 16), (16, 16)])
def test_mcu_box_is_the_box_of_the_touched_mcus(orientation, mcu):
    rng = np.random.default_rng(orientation)
    for h, w in ((37, 53), (64, 48), (9, 70)):
        mask = np.zeros((h, w), bool)
        y, x = rng.integers(0, h), rng.integers(0, w)
        mask[y:y + rng.integers(1, 12), x:x + rng.integers(1, 15)] = True
        mask[rng.integers(0, h), rng.integers(0, w)] = True
        (sy0, sy1, sx0, sx1), (uy0, uy1, ux0, ux1) = jpeg_edit.mcu_box(mask, orientation, mcu)
        turn = jpeg_edit.STORED[orientation]
        stored = turn(mask)
        grid = jpeg_edit.touched_mcus(stored, mcu)
        rows, cols = np.nonzero(grid)
        assert (sy0, sx0) == (rows.min() * mcu[0], cols.min() * mcu[1])
        assert (sy1, sx1) == (min((rows.max() + 1) * mcu[0], stored.shape[0]),
                              min((cols.max() + 1) * mcu[1], stored.shape[1]))
        # the upright box holds the same pixels
        index = np.arange(h * w).reshape(h, w)
        assert np.array_equal(turn(index[uy0:uy1, ux0:ux1]), turn(index)[sy0:sy1, sx0:sx1])
        # the grid from the bounding box alone is the grid of the whole mask
        full = np.zeros((-(-stored.shape[0] // mcu[0]) * mcu[0], -(-stored.shape[1] // mcu[1]) * mcu[1]), bool)
        full[:stored.shape[0], :stored.shape[1]] = stored
        assert np.array_equal(grid, full.reshape(grid.shape[0], mcu[0], grid.shape[1], mcu[1]).any(axis=(1, 3)))
    assert jpeg_edit.mcu_box(np.zeros((5, 7), bool), orientation, mcu) is None


def _segments(path):
    """The marker segments of a JPEG up to its first scan: (marker, bytes)."""
    data, i, out = Path(path).read_bytes(), 2, []
    while data[i + 1] != 0xDA:
        n = struct.unpack(">H", data[i + 2:i + 4])[0]
        out.append((data[i + 1], data[i:i + 2 + n]))
        i += 2 + n
    return out


def test_jpeg_markers_are_the_inputs_byte_for_byte(tmp_path):
    src, out = tmp_path / "p.jpg", tmp_path / "o.jpg"
    exif = Image.Exif()
    exif[0x010F] = "Maker"
    exif[0x0112] = 6
    Image.open(PHOTO).convert("RGB").crop((0, 0, 200, 150)).save(
        src, quality=88, subsampling=2, dpi=(300, 300), exif=exif.tobytes(), comment=b"a comment",
        icc_profile=b"\0" * 300)
    _, plan, notes, _ = _fill(src, out, mask=_mask(200, 150))
    assert plan.jpeg_edit is not None and notes == []
    app = [seg for m, seg in _segments(src) if 0xE0 <= m <= 0xEF or m == 0xFE]
    assert [seg for m, seg in _segments(out) if 0xE0 <= m <= 0xEF or m == 0xFE] == app
    assert _open(out).info["dpi"] == (300, 300)


def test_jpeg_plan_written_twice_gives_the_same_file(tmp_path):
    src = tmp_path / "p.jpg"
    _photo_jpeg(src, 1)
    pic = imageio.read_image(src)
    plan = imageio.plan_output(pic, tmp_path / "o.jpg")
    h, w = pic.rgb.shape[:2]
    outs = []
    for name, (y, x) in (("a.jpg", (10, 10)), ("b.jpg", (100, 200)), ("c.jpg", (10, 10))):
        mask = np.zeros((h, w), bool)
        mask[y:y + 30, x:x + 40] = True
        rgb = pic.rgb.copy()
        rgb[mask] = 0
        imageio.save_images([(Image.fromarray(rgb), tmp_path / name, {"plan": plan, "mask": mask})])
        outs.append(jpeglib.read_dct(str(tmp_path / name)))
    a = jpeglib.read_dct(str(src))
    assert np.array_equal(outs[0].Y, outs[2].Y)  # the second write left the plan's header as read
    assert np.array_equal(outs[1].Y[:4, :4], a.Y[:4, :4])  # ...and the first one's blocks are not in it


def test_jpeg_without_jpeglib_keeps_its_tables_with_a_note(tmp_path, monkeypatch):
    monkeypatch.setattr(jpeg_edit, "available", lambda: False)
    src, out = tmp_path / "p.jpg", tmp_path / "o.jpg"
    _photo_jpeg(src, 1, quality=83)
    _, plan, notes, _ = _fill(src, out)
    assert plan.jpeg_edit is None and any("jpeglib" in n for n in notes)
    back = _open(out)
    assert back.quantization == _open(src).quantization
    from PIL import JpegImagePlugin

    with Image.open(out) as im:
        assert JpegImagePlugin.get_sampling(im) == 1


def test_jpeg_quality_option_is_a_plain_reencode(tmp_path):
    src, out = tmp_path / "p.jpg", tmp_path / "o.jpg"
    _photo_jpeg(src, 2, quality=92)
    _, plan, notes, _ = _fill(src, out, quality=60)
    assert plan.jpeg_edit is None and notes == []
    assert _open(out).quantization != _open(src).quantization
    assert out.stat().st_size < 0.7 * src.stat().st_size


@pytest.mark.parametrize("selectors", [None, (0, 0, 1)], ids=["usual", "luma-and-cb-on-one-table"])
def test_cli_jpeg_fill_keeps_blocks_and_exits_0(tmp_path, selectors):
    src, out, mpath = tmp_path / "p.jpg", tmp_path / "o.jpg", tmp_path / "m.png"
    _photo_jpeg(src, 2, crop=(0, 0, 160, 128))
    if selectors is not None:
        src.write_bytes(_set_table_selectors(src.read_bytes(), selectors))
    mask = np.zeros((128, 160), np.uint8)
    mask[40:60, 50:80] = 255
    Image.fromarray(mask).save(mpath)
    r = subprocess.run([sys.executable, "-m", "inpaint", str(src), "-m", str(mpath), "-o", str(out),
                        "--backend", "numpy", "--method", "criminisi"],  # (the blocks are the writer's: any fill)
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "note" not in r.stderr
    a, b = jpeglib.read_dct(str(src)), jpeglib.read_dct(str(out))
    grid = jpeg_edit.touched_mcus(mask > 0, (16, 16))
    assert np.array_equal(a.Cb[~grid], b.Cb[~grid]) and np.array_equal(a.Cr[~grid], b.Cr[~grid])
    assert list(np.asarray(b.quant_tbl_no)) == list(np.asarray(a.quant_tbl_no))


def test_a_jpeg_the_block_editor_fails_on_is_encoded_again_with_a_note_in_plain_words(tmp_path, monkeypatch):
    def fails(*args, **kwargs):
        raise RuntimeError("jpeg_write_coefficients: bad state 202 (JERR_BAD_STATE)")

    monkeypatch.setattr(jpeg_edit, "_edit", fails)
    src, out = tmp_path / "p.jpg", tmp_path / "o.jpg"
    _photo_jpeg(src, 2, quality=88, crop=(0, 0, 160, 128))
    _, plan, notes, _ = _fill(src, out)
    assert plan.jpeg_edit is not None
    assert notes == ["the JPEG could not be edited block by block, so it was encoded again with its own "
                     "quantisation tables: the pixels outside the mask change slightly"]
    assert _open(out).quantization == _open(src).quantization


def test_a_jpeg_is_edited_block_by_block_without_the_system_s_temporary_folder(tmp_path, monkeypatch):
    """The block editor's work files (jpeglib's copies of the input) go to a temporary folder
    beside the output, removed after it: a temporary folder without room (here: none at all)
    neither spoils the edit nor keeps a file."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no such folder"))
    src, out = tmp_path / "p.jpg", tmp_path / "o.jpg"
    _photo_jpeg(src, 2, quality=88, crop=(0, 0, 160, 128))
    _, plan, notes, _ = _fill(src, out)
    assert plan.jpeg_edit is not None and notes == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.jpg", "p.jpg"]


def test_a_jpeg_edit_that_finds_no_room_fails_as_the_write_and_is_not_encoded_again(tmp_path, monkeypatch):
    """No room for the block editor's work is no room for the output: the write fails with the
    disk's error (and leaves nothing), where encoding the whole JPEG again would change every block."""
    import errno

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(jpeg_edit, "_edit", full)
    src, out = tmp_path / "p.jpg", tmp_path / "o.jpg"
    _photo_jpeg(src, 2, quality=88, crop=(0, 0, 160, 128))
    with pytest.raises(OSError, match="No space left"):
        _fill(src, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.jpg"]


# -- metadata beyond EXIF, ICC and XMP ---------------------------------------------------------------

def _png_with_text_and_tones(path):
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Title", "A field")
    info.add_text("Comment", "zipped " * 20, zip=True)
    info.add_itxt("Author", "Ärger über Öl")
    info.add(b"gAMA", struct.pack(">I", 100000))  # gamma 1.0: the file displays with other tones without it
    info.add(b"cHRM", struct.pack(">8I", 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000))
    info.add(b"sBIT", b"\x07\x07\x07")
    Image.fromarray(_rng_rgb()).save(path, pnginfo=info)


def test_png_text_and_colour_chunks_are_kept_in_png(tmp_path):
    _png_with_text_and_tones(tmp_path / "a.png")
    _, _, notes, _ = _fill(tmp_path / "a.png", tmp_path / "o.png")
    assert notes == []
    before, after = _png_chunks(tmp_path / "a.png"), _png_chunks(tmp_path / "o.png")
    for kind in ("tEXt", "zTXt", "iTXt", "gAMA", "cHRM", "sBIT"):
        assert after.get(kind) == before[kind], kind


def test_png_text_and_colour_chunks_dropped_with_a_note(tmp_path):
    _png_with_text_and_tones(tmp_path / "a.png")
    _, _, notes, _ = _fill(tmp_path / "a.png", tmp_path / "o.jpg")
    assert any("text, gamma, chromaticity, significant bits chunks" in n and "tones" in n for n in notes)


def _jpeg_with_comment_and_iptc(path, blocks=60, mode="RGB"):
    img = Image.fromarray(_rng_rgb())
    img = img.convert("CMYK") if mode == "CMYK" else img
    img.save(path, quality=90)
    data = path.read_bytes()
    com = b"\xff\xfe" + struct.pack(">H", 13) + b"hello world"
    iptc = b"".join(b"\xff\xed" + struct.pack(">H", 22) + b"Photoshop 3.0\x00" + bytes([i]) * 6 for i in range(blocks))
    path.write_bytes(data[:2] + com + iptc + data[2:])
    return com, iptc


@pytest.mark.parametrize("how", ["quality", "resize", "cmyk"])
def test_jpeg_comments_and_iptc_survive_an_encode_again(tmp_path, how):
    src = tmp_path / "a.jpg"
    com, iptc = _jpeg_with_comment_and_iptc(src, mode="CMYK" if how == "cmyk" else "RGB")
    out = tmp_path / "o.jpg"
    if how == "resize":
        pic = imageio.read_image(src)
        plan = imageio.plan_output(pic, out, size=(W - 6, H))
        assert plan.jpeg_edit is None
        imageio.save_images([(Image.fromarray(pic.rgb[:, :W - 6].copy()), out, {"plan": plan})])
    else:
        _, plan, _, _ = _fill(src, out, quality=80 if how == "quality" else None)
        assert plan.jpeg_edit is None
    segments = jpeg_edit.app_segments(out.read_bytes())
    assert com in segments and sum(s[1] == 0xED for s in segments) == 60
    assert b"".join(s for s in segments if s[1] == 0xED) == iptc
    assert cv2.imread(str(out)) is not None


def test_jpeg_comment_becomes_png_text_and_iptc_is_noted(tmp_path):
    _jpeg_with_comment_and_iptc(tmp_path / "a.jpg", blocks=2)
    _, _, notes, _ = _fill(tmp_path / "a.jpg", tmp_path / "o.png")
    assert _png_chunks(tmp_path / "o.png")["tEXt"] == [b"Comment\x00hello world"]
    assert any("IPTC (APP13)" in n for n in notes)


# -- what outputs keep: float ranges, palettes, late text, XMP orientation, keys, resolution ------------

def _square_mask(path: Path, shape: tuple[int, int]) -> Path:
    m = np.zeros(shape, np.uint8)
    m[shape[0] // 2 - 4:shape[0] // 2 + 4, shape[1] // 2 - 4:shape[1] // 2 + 4] = 255
    Image.fromarray(m).save(path)
    return path


def test_a_float_image_a_little_over_one_is_read_as_zero_to_one_and_said_before_the_work(tmp_path, run):
    yy, xx = np.mgrid[0:48, 0:64]
    src = (0.2 + xx / 64 * 0.85).astype(np.float32)           # 0.2 .. 1.037
    tifffile.imwrite(tmp_path / "f.tif", src)
    mask = _square_mask(tmp_path / "m.png", (48, 64))
    code, _, err = run(tmp_path / "f.tif", "--mask", mask, "-o", tmp_path / "o.png", "--backend", "numpy")
    assert code == 0, err
    notes = [ln for ln in err.splitlines() if "note:" in ln]
    assert notes == ["inpaint: note: PNG cannot store floating-point pixels: written as 16-bit integers (0..1 as "
                     "0..65535); values outside 0..1 were clipped"], err
    with Image.open(tmp_path / "o.png") as o:
        got = np.asarray(o).astype(np.int64)
    keep = np.asarray(Image.open(mask)) == 0
    want = np.clip(np.rint(src.astype(np.float64) * 65535), 0, 65535)
    np.testing.assert_array_equal(got[keep], want[keep])


def test_a_gif_keeps_its_palette_indices(tmp_path, run):
    pal = np.zeros((48, 64), np.uint8)
    pal[:, :16], pal[:, 16:32], pal[:, 32:48], pal[:, 48:] = 5, 40, 200, 251
    img = Image.fromarray(pal, "P")
    img.putpalette(list(np.random.default_rng(1).integers(0, 256, 768)))
    img.save(tmp_path / "p.gif", optimize=False)
    mask = _square_mask(tmp_path / "m.png", (48, 64))
    assert run(tmp_path / "p.gif", "--mask", mask, "-o", tmp_path / "o.gif", "--backend", "numpy")[0] == 0
    with Image.open(tmp_path / "o.gif") as o:
        got = np.asarray(o)
        assert len(o.getpalette()) == 768
    keep = np.asarray(Image.open(mask)) == 0
    np.testing.assert_array_equal(got[keep], pal[keep])


def test_text_after_a_pngs_picture_data_is_kept(tmp_path, run):
    import zlib

    Image.fromarray(np.random.default_rng(2).integers(0, 256, (48, 64, 3), dtype=np.uint8)).save(tmp_path / "a.png")
    data = (tmp_path / "a.png").read_bytes()
    body = b"Copyright\0(c) Someone 2024"
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    (tmp_path / "late.png").write_bytes(data[:-12] + chunk + data[-12:])   # before IEND, after IDAT
    mask = _square_mask(tmp_path / "m.png", (48, 64))
    assert run(tmp_path / "late.png", "--mask", mask, "-o", tmp_path / "o.png", "--backend", "numpy")[0] == 0
    with Image.open(tmp_path / "o.png") as o:
        o.load()
        assert o.text == {"Copyright": "(c) Someone 2024"}


def test_a_palette_with_an_alpha_per_entry_goes_to_gif_with_a_note(tmp_path, run):
    rgb = np.random.default_rng(1).integers(0, 256, (48, 64, 3)).astype(np.uint8)
    Image.fromarray(rgb).quantize(64).save(tmp_path / "pa.png", transparency=bytes([0, 64, 128, 192] + [255] * 60))
    mask = _square_mask(tmp_path / "m.png", (48, 64))
    for argv in ([tmp_path / "pa.png", "--mask", mask, "-o", tmp_path / "o.gif"],
                 ["resize", tmp_path / "pa.png", "--width", "58", "-o", tmp_path / "r.gif"]):
        code, _, err = run(*argv, "--backend", "numpy")
        assert code == 0 and "GIF holds one fully transparent colour" in err and "warning" not in err, err
    with Image.open(tmp_path / "o.gif") as o:
        assert o.info.get("transparency") == 0


def test_an_upright_output_says_orientation_1_in_its_xmp_too(tmp_path, run):
    rgb = np.random.default_rng(1).integers(0, 256, (48, 64, 3)).astype(np.uint8)
    xmp = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
           b'<rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/></rdf:RDF></x:xmpmeta>')
    exif = Image.Exif()
    exif[0x112] = 6
    Image.fromarray(rgb).save(tmp_path / "xo.jpg", quality=92, exif=exif, xmp=xmp)
    mask = _square_mask(tmp_path / "m.png", (64, 48))
    for ext in ("png", "tif", "webp"):
        assert run(tmp_path / "xo.jpg", "--mask", mask, "-o", tmp_path / f"o.{ext}", "--backend", "numpy")[0] == 0
        with Image.open(tmp_path / f"o.{ext}") as o:
            found = o.info.get("xmp") or o.info.get("XML:com.adobe.xmp") or (o.tag_v2.get(700) if ext == "tif" else b"")
            found = found.encode() if isinstance(found, str) else found
            assert b'tiff:Orientation="1"' in found and o.getexif().get(0x112, 1) == 1, ext
    assert run(tmp_path / "xo.jpg", "--mask", mask, "-o", tmp_path / "o.jpg", "--backend", "numpy")[0] == 0
    with Image.open(tmp_path / "o.jpg") as o:                  # edited block by block: stored as it was
        assert b'tiff:Orientation="6"' in o.info["xmp"] and o.getexif()[0x112] == 6


def test_a_16_bit_grey_colour_key_becomes_alpha_where_the_format_has_it(tmp_path, run):
    grey = np.random.default_rng(3).integers(0, 65536, (48, 64)).astype(np.uint16)
    grey[:8, :8] = 4321
    Image.fromarray(grey).save(tmp_path / "g.png", transparency=4321)
    mask = _square_mask(tmp_path / "m.png", (48, 64))
    for ext in ("tif", "webp"):
        code, _, err = run(tmp_path / "g.png", "--mask", mask, "-o", tmp_path / f"o.{ext}", "--backend", "numpy")
        assert code == 0 and "transparency was dropped" not in err, err
    t = tifffile.imread(tmp_path / "o.tif")
    assert t.dtype == np.uint16 and t.shape == (48, 64, 2)
    assert (t[:8, :8, 1] == 0).all() and (t[..., 1][grey != 4321] == 65535).all()
    with Image.open(tmp_path / "o.webp") as w:
        assert w.mode == "RGBA" and (np.asarray(w)[:8, :8, 3] == 0).all()


def test_resolution_is_the_pictures_own_never_one_pillow_invents(tmp_path, run):
    import zlib

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rgb = np.random.default_rng(4).integers(0, 256, (48, 64, 3)).astype(np.uint8)
    cv2.imwrite(str(tmp_path / "c16.png"), (rgb.astype(np.uint16) * 257)[..., ::-1])   # 16-bit colour
    stale = Image.Exif()
    stale[282], stale[283], stale[296] = 72.0, 72.0, 2
    raw = stale.tobytes()
    data = (tmp_path / "c16.png").read_bytes()
    at = data.index(b"IDAT") - 4                                 # 300 dpi in pHYs, 72 in a stale EXIF
    extra = (chunk(b"pHYs", struct.pack(">IIB", 11811, 11811, 1))
             + chunk(b"eXIf", raw[6:] if raw[:4] == b"Exif" else raw))
    (tmp_path / "c16.png").write_bytes(data[:at] + extra + data[at:])
    mask = _square_mask(tmp_path / "m.png", (48, 64))
    assert run(tmp_path / "c16.png", "--mask", mask, "-o", tmp_path / "o.tif", "--backend", "numpy")[0] == 0
    with tifffile.TiffFile(tmp_path / "o.tif") as t:
        x = t.pages[0].tags["XResolution"].value
        assert round(x[0] / x[1]) == 300
    exif = Image.Exif()
    exif[0x010F] = "Camera"                                      # EXIF, and no resolution anywhere
    Image.fromarray(rgb).save(tmp_path / "nodpi.jpg", quality=90, exif=exif)
    for ext in ("png", "webp"):
        code, _, err = run(tmp_path / "nodpi.jpg", "--mask", mask, "-o", tmp_path / f"n.{ext}", "--backend", "numpy")
        assert code == 0 and "cannot hold the resolution" not in err, err
    with Image.open(tmp_path / "n.png") as o:
        assert "dpi" not in o.info


def test_the_mapping_file_says_what_its_format_loses(tmp_path, run):
    rgb = np.random.default_rng(5).integers(0, 256, (48, 64, 3)).astype(np.uint8)
    Image.fromarray(rgb).save(tmp_path / "a.png")
    mask = _square_mask(tmp_path / "m.png", (48, 64))
    for ext, said in (("gif", "GIF stores at most 256 colours"), ("jpg", "JPEG is lossy: the map's colours")):
        code, _, err = run(tmp_path / "a.png", "--mask", mask, "-o", tmp_path / "o.png", "-y",
                           "--save-mapping", tmp_path / f"map.{ext}", "--backend", "numpy")
        assert code == 0 and f"--save-mapping {tmp_path / f'map.{ext}'}: {said}" in err, err


# -- sample types, colour keys, thumbnails and profiles kept as the input had them ---------------

def _raw_png(path, ihdr, chunks, rows):
    """A PNG of ``rows`` (bytes of each row, unfiltered) with ``chunks`` before its pixels."""
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    Path(path).write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + b"".join(chunk(k, d) for k, d in chunks)
                           + chunk(b"IDAT", zlib.compress(b"".join(b"\0" + r for r in rows))) + chunk(b"IEND", b""))


def test_an_unsigned_32_bit_tiff_keeps_its_values(tmp_path):
    # Pillow holds them as signed 32 bits: values from 2**31 up came back negative, and as 0 in PNG
    yy, xx = np.mgrid[0:H, 0:W]
    truth = (xx * 100000 + yy * 7 + 3_000_000_000).astype(np.uint32)
    truth[0, :4] = [0, 1, 2**31 - 1, 2**32 - 1]
    tifffile.imwrite(tmp_path / "u.tif", truth)
    _, _, notes, mask = _fill(tmp_path / "u.tif", tmp_path / "o.tif")
    back = tifffile.imread(tmp_path / "o.tif")
    assert notes == [] and back.dtype == np.uint32 and np.array_equal(back[~mask], truth[~mask])
    _, _, notes, mask = _fill(tmp_path / "u.tif", tmp_path / "o.png")
    png = cv2.imread(str(tmp_path / "o.png"), cv2.IMREAD_UNCHANGED)
    assert png.dtype == np.uint16 and np.array_equal(png[~mask], np.minimum(truth, 65535)[~mask])
    assert any("clipped to 0..65535" in n for n in notes), notes


@pytest.mark.parametrize("source", ["pgm", "int16"])
def test_16_bit_grey_is_written_to_tiff_in_its_own_sample_type(tmp_path, source):
    # Pillow reads both as 32-bit grey, and its TIFF writer stored them as int32
    yy, xx = np.mgrid[0:H, 0:W]
    if source == "pgm":
        truth = (xx * 1100 + yy * 13 + 5).astype(np.uint16)
        (tmp_path / "g.pgm").write_bytes(f"P5\n{W} {H}\n65535\n".encode() + truth.astype(">u2").tobytes())
        src = tmp_path / "g.pgm"
    else:
        truth = (xx * 1100 - yy * 700 - 9000).astype(np.int16)
        tifffile.imwrite(tmp_path / "s.tif", truth)
        src = tmp_path / "s.tif"
    _, _, notes, mask = _fill(src, tmp_path / "o.tif")
    back = tifffile.imread(tmp_path / "o.tif")
    assert notes == [] and back.dtype == truth.dtype and np.array_equal(back[~mask], truth[~mask])


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_a_low_bit_grey_pngs_colour_key_is_kept(tmp_path, depth):
    # Pillow scales the pixels to 8 bits but not the key: it matched the wrong grey, or none
    yy, xx = np.mgrid[0:H, 0:W]
    value = ((xx // 3 + yy // 3) % (1 << depth)).astype(np.uint8)
    bits = np.unpackbits(value[..., None], axis=2)[..., 8 - depth:].reshape(H, -1)
    _raw_png(tmp_path / "g.png", struct.pack(">IIBBBBB", W, H, depth, 0, 0, 0, 0),
             [(b"tRNS", struct.pack(">H", 1))], [np.packbits(r).tobytes() for r in bits])
    clear = value == 1
    _, _, notes, mask = _fill(tmp_path / "g.png", tmp_path / "o.png")
    chunks = _png_chunks(tmp_path / "o.png")
    out_depth, key = chunks["IHDR"][0][8], struct.unpack(">H", chunks["tRNS"][0])[0]
    grey = cv2.imread(str(tmp_path / "o.png"), cv2.IMREAD_UNCHANGED)  # libpng scales low depths to 8 bits
    assert notes == [] and key < (1 << out_depth)
    assert np.array_equal((grey == key * 255 // ((1 << out_depth) - 1))[~mask], clear[~mask])
    _, _, notes, mask = _fill(tmp_path / "g.png", tmp_path / "o.tif")
    back = tifffile.imread(tmp_path / "o.tif")
    assert notes == [] and back.shape == (H, W, 2) and np.array_equal((back[..., 1] == 0)[~mask], clear[~mask])


def _jpeg_with_thumbnail(path, rgb):
    """A JPEG whose EXIF holds a thumbnail of ``rgb`` in IFD1, as cameras write it."""
    thumb = io.BytesIO()
    Image.fromarray(rgb).resize((24, 16)).save(thumb, "JPEG", quality=90)
    thumb = thumb.getvalue()

    def ifd(entries, nxt):
        return struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", *e) for e in entries) \
            + struct.pack("<I", nxt)
    at1 = 8 + 18
    tiff = b"II*\x00" + struct.pack("<I", 8) + ifd([(0x0112, 3, 1, 1)], at1) \
        + ifd([(0x0103, 3, 1, 6), (0x0201, 4, 1, at1 + 42), (0x0202, 4, 1, len(thumb))], 0) + thumb
    Image.fromarray(rgb).save(path, quality=92, exif=b"Exif\x00\x00" + tiff)
    return thumb


@pytest.mark.parametrize("ext", ["jpg", "png"])
def test_an_exif_thumbnail_is_dropped_with_a_note(tmp_path, ext):
    # it would still show the object the mask removes
    thumb = _jpeg_with_thumbnail(tmp_path / "t.jpg", _rng_rgb())
    _, plan, notes, _ = _fill(tmp_path / "t.jpg", tmp_path / f"o.{ext}")
    assert any("EXIF thumbnail" in n for n in notes), notes
    out = (tmp_path / f"o.{ext}").read_bytes()
    assert thumb[2:200] not in out
    if ext == "jpg":  # edited block by block: every other APPn marker is the input's, byte for byte
        assert plan.jpeg_edit is not None
        before, after = _segments(tmp_path / "t.jpg"), _segments(tmp_path / "o.jpg")
        assert [s for s in before if 0xE2 <= s[0] <= 0xEF or s[0] == 0xE0] \
            == [s for s in after if 0xE2 <= s[0] <= 0xEF or s[0] == 0xE0]
        app1 = [s for m, s in after if m == 0xE1]
        assert len(app1) == 1 and len(app1[0]) == len([s for m, s in before if m == 0xE1][0])
        tiff = app1[0][10:]
        ifd0 = struct.unpack("<I", tiff[4:8])[0]
        count = struct.unpack("<H", tiff[ifd0:ifd0 + 2])[0]
        assert struct.unpack("<I", tiff[ifd0 + 2 + 12 * count:ifd0 + 6 + 12 * count])[0] == 0  # no IFD1
        assert cv2.imread(str(tmp_path / "o.jpg")) is not None


def _icc(space):
    icc = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    icc[16:20] = space
    return bytes(icc)


@pytest.mark.parametrize("src_mode, space, ext, kept", [
    ("CMYK", b"CMYK", "png", False), ("CMYK", b"CMYK", "tif", True), ("L", b"GRAY", "webp", False),
    ("L", b"GRAY", "tif", True), ("L", b"GRAY", "png", True), ("RGB", b"GRAY", "png", False)])
def test_an_icc_profile_is_kept_only_for_its_colour_space(tmp_path, src_mode, space, ext, kept):
    # a CMYK profile in an RGB file makes a colour-managed viewer fail
    src = tmp_path / ("i.jpg" if src_mode == "CMYK" else "i.png")
    Image.fromarray(_rng_rgb()).convert(src_mode).save(src, icc_profile=_icc(space))
    _, _, notes, _ = _fill(src, tmp_path / f"o.{ext}")
    out = tmp_path / f"o.{ext}"
    if ext == "png":
        held = "iCCP" in _png_chunks(out)
    elif ext == "tif":
        with tifffile.TiffFile(out) as tif:
            held = 34675 in tif.pages[0].tags
    else:
        held = b"ICCP" in out.read_bytes()[:64]
    assert held == kept
    assert any("ICC colour profile is for" in n for n in notes) != kept, notes


def test_a_16_bit_grey_and_alpha_tiff_is_read(tmp_path):
    # the tool writes such TIFFs; Pillow cannot open them
    yy, xx = np.mgrid[0:H, 0:W]
    truth = np.dstack([xx * 1100 + yy * 3 + 1, (xx + yy) * 1000]).astype(np.uint16)
    tifffile.imwrite(tmp_path / "ga.tif", truth, photometric="minisblack", extrasamples=[2], resolution=(150, 150),
                     resolutionunit=2)
    _, _, notes, mask = _fill(tmp_path / "ga.tif", tmp_path / "o.png")
    got = cv2.imread(str(tmp_path / "o.png"), cv2.IMREAD_UNCHANGED)  # grey+alpha as BGRA
    assert notes == [] and got.dtype == np.uint16
    assert np.array_equal(got[..., 0][~mask], truth[..., 0][~mask]) and np.array_equal(got[..., 3][~mask],
                                                                                       truth[..., 1][~mask])
    _fill(tmp_path / "ga.tif", tmp_path / "o.tif")
    _, _, notes, _ = _fill(tmp_path / "o.tif", tmp_path / "again.tif")  # its own output, read back
    with tifffile.TiffFile(tmp_path / "again.tif") as tif:
        back, page = tif.pages[0].asarray(), tif.pages[0]
        assert tuple(page.extrasamples) == (2,) and page.tags[282].value == (150, 1)
    assert notes == [] and np.array_equal(back[~mask], truth[~mask])


def test_a_16_bit_ppm_keeps_16_bits(tmp_path):
    # Pillow reads it with 8 bits per channel
    truth = (np.random.default_rng(3).random((H, W, 3)) * 65535).astype(np.uint16)
    (tmp_path / "p.ppm").write_bytes(f"P6\n{W} {H}\n65535\n".encode() + truth.astype(">u2").tobytes())
    _, _, notes, mask = _fill(tmp_path / "p.ppm", tmp_path / "o.png")
    got = cv2.cvtColor(cv2.imread(str(tmp_path / "o.png"), cv2.IMREAD_UNCHANGED), cv2.COLOR_BGR2RGB)
    assert notes == [] and got.dtype == np.uint16 and np.array_equal(got[~mask], truth[~mask])


def test_a_16_bit_cmyk_tiff_says_it_is_reduced_to_8_bits(tmp_path):
    truth = (np.random.default_rng(2).random((H, W, 4)) * 65535).astype(np.uint16)
    tifffile.imwrite(tmp_path / "c.tif", truth, photometric="separated")
    with pytest.warns(UserWarning, match="reduced to 8 bits"):
        _, _, _, mask = _fill(tmp_path / "c.tif", tmp_path / "o.tif")
    assert np.array_equal(tifffile.imread(tmp_path / "o.tif")[~mask], (truth >> 8)[~mask])


def test_a_planar_tiff_written_upright_says_orientation_1_in_its_xmp(tmp_path):
    planes = (np.random.default_rng(7).random((3, W, H)) * 65535).astype(np.uint16)
    xmp = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
           b'<rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/></rdf:RDF></x:xmpmeta>')
    tifffile.imwrite(tmp_path / "p.tif", planes, planarconfig="separate", photometric="rgb",
                     extratags=[(274, "H", 1, 6, True), (700, "B", len(xmp), xmp, True)])
    _fill(tmp_path / "p.tif", tmp_path / "o.tif")
    with tifffile.TiffFile(tmp_path / "o.tif") as tif:
        page = tif.pages[0]
        assert page.shape == (H, W, 3) and page.tags[274].value == 1
        assert b'tiff:Orientation="1"' in page.tags[700].value and b'"6"' not in page.tags[700].value


def test_what_no_output_keeps_is_said_dropped(tmp_path):
    # a PNG's background colour and unitless aspect ratio, an ICO's other sizes, a TIFF's extra channel
    rgb = _rng_rgb()
    _raw_png(tmp_path / "c.png", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0),
             [(b"bKGD", struct.pack(">HHH", 10, 20, 30)), (b"pHYs", struct.pack(">IIB", 2, 1, 0))],
             [r.tobytes() for r in rgb])
    _, _, notes, _ = _fill(tmp_path / "c.png", tmp_path / "o.png")
    assert any("background colour (bKGD)" in n for n in notes) and any("aspect ratio" in n for n in notes), notes
    Image.fromarray(rgb[:32, :32]).convert("RGBA").save(tmp_path / "i.ico", sizes=[(16, 16), (32, 32)])
    _, _, notes, _ = _fill(tmp_path / "i.ico", tmp_path / "o.ico", mask=np.zeros((32, 32), bool))
    assert any("other sizes (16x16)" in n for n in notes), notes
    tifffile.imwrite(tmp_path / "x.tif", np.dstack([rgb, rgb[..., :1]]), photometric="rgb", extrasamples=[0])
    _, _, notes, _ = _fill(tmp_path / "x.tif", tmp_path / "o.tif")
    assert any("extra channel" in n for n in notes), notes


def test_a_jpeg_replaced_after_it_was_read_is_not_edited_from_the_new_file(tmp_path):
    """The blocks a JPEG keeps come from the file as it was read: where another file took its
    place meanwhile (another run writing it), the result is encoded whole from the fill of the
    file read, with a note, not a mix of the two files."""
    src, out = tmp_path / "p.jpg", tmp_path / "o.jpg"
    _photo_jpeg(src, 2, quality=88, crop=(0, 0, 160, 128))
    pic = imageio.read_image(src)
    first = pic.rgb.copy()
    Image.fromarray(255 - first).save(src, quality=88)  # replaced, as another run would
    plan = imageio.plan_output(pic, out)
    assert plan.jpeg_edit is None and any("changed on disk after it was read" in n for n in plan.notes)
    mask = np.zeros(first.shape[:2], bool)
    mask[40:60, 50:70] = True
    imageio.save_images([(Image.fromarray(first), out, {"plan": plan, "mask": mask})])
    got = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert np.abs(got - first).mean() < 4  # the file read, encoded again: not the new one
