"""No output keeps a copy of the picture as it was (a thumbnail, a preview, a motion photo's video):
it would still show what the edit removed.  Each case builds a file whose metadata holds a
picture of the object, removes the object, and looks for that picture in the output, through the
format's own structure and as raw bytes."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from inpaint import io as imageio
from inpaint.io import previews

jpeglib = pytest.importorskip("jpeglib")
tifffile = pytest.importorskip("tifffile")

H, W = 48, 64
OBJECT = (255, 0, 255)  # the removed object's colour: what a copy of the picture shows


def _scene():
    rng = np.random.default_rng(3)
    img = (rng.random((H, W, 3)) * 60 + 90).astype(np.uint8)
    mask = np.zeros((H, W), bool)
    mask[16:32, 20:40] = True
    img[mask] = OBJECT
    return img, mask


def _jpeg(img, size=None, quality=90):
    buf = io.BytesIO()
    (Image.fromarray(img).resize(size) if size else Image.fromarray(img)).save(buf, "JPEG", quality=quality)
    return buf.getvalue()


def _segment(marker, payload):
    return bytes((0xFF, marker)) + struct.pack(">H", len(payload) + 2) + payload


def _with_segments(jpeg, segments):
    return jpeg[:2] + b"".join(segments) + jpeg[2:]


def _xmp(thumb, extra=""):
    import base64

    return ("<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
            "<rdf:Description rdf:about='' xmlns:xmp='http://ns.adobe.com/xap/1.0/' "
            "xmlns:xmpGImg='http://ns.adobe.com/xap/1.0/g/img/' xmlns:dc='http://purl.org/dc/elements/1.1/' "
            f"{extra}><dc:creator><rdf:Seq><rdf:li>Someone</rdf:li></rdf:Seq></dc:creator><xmp:Thumbnails><rdf:Alt>"
            "<rdf:li rdf:parseType='Resource'><xmpGImg:format>JPEG</xmpGImg:format>"
            f"<xmpGImg:image>{base64.b64encode(thumb).decode()}</xmpGImg:image></rdf:li>"
            "</rdf:Alt></xmp:Thumbnails></rdf:Description></rdf:RDF></x:xmpmeta>").encode()


def _irb(thumb):
    """Photoshop's image resources: a caption (IPTC, kept) and the thumbnail (1036)."""
    def block(rid, data):
        return b"8BIM" + struct.pack(">H", rid) + b"\x00\x00" + struct.pack(">I", len(data)) + data + b"\x00" * (
            len(data) & 1)

    iptc = b"\x1c\x02\x78" + struct.pack(">H", 7) + b"caption"
    return block(0x0404, iptc) + block(0x040C, struct.pack(">IIIIIIHH", 1, 32, 24, 96, 96 * 24, len(thumb), 24, 1)
                                       + thumb)


def _exif_with_maker_preview(thumb):
    exif = Image.Exif()
    exif[0x010F] = "Camera maker"
    exif.get_ifd(0x8769)[0x927C] = b"Maker\x00\x01\x02" + thumb + b"\x00settings"
    return exif


def _shows_object(data):
    """Whether any JPEG image inside ``data`` decodes to a picture holding the object's colour."""
    i = 0
    while (start := data.find(b"\xff\xd8\xff", i)) >= 0:
        i = start + 3
        try:
            pic = np.asarray(Image.open(io.BytesIO(data[start:])).convert("RGB")).astype(int)
        except Exception:  # noqa: BLE001 - not a whole JPEG there
            continue
        if (np.abs(pic - OBJECT).sum(axis=2) < 90).mean() > 0.05:
            return True
    return False


def _remove(tmp_path, src, ext=".jpg", quality=None):
    """Read, plan, fill the object with the colour around it and write, as the command does."""
    pic = imageio.read_image(src)
    _, mask = _scene()
    out = tmp_path / f"out{ext}"
    plan = imageio.plan_output(pic, out, quality=quality)
    filled = pic.rgb.copy()
    filled[mask] = pic.rgb[0, 0]
    result, _ = imageio.apply_fill(pic, filled, np.zeros(mask.shape + (2,), np.int32), mask)
    note = imageio.save_images([(result, out, {"plan": plan, "mask": mask})])[0]
    return out, [n for n in plan.notes + [note] if n]


def _said(notes, what):
    return any(n.startswith("copies of the picture as it was are not kept") and what in n for n in notes)


@pytest.mark.parametrize("quality", [None, 90])
def test_jpeg_markers_lose_their_copies_of_the_picture_and_keep_the_rest(tmp_path, quality):
    img, _ = _scene()
    thumb = _jpeg(img, (32, 24))
    src = tmp_path / "in.jpg"
    exif = _exif_with_maker_preview(thumb)
    raw = exif.tobytes()
    data = _with_segments(_jpeg(img), [
        _segment(0xE1, raw if raw.startswith(b"Exif\x00\x00") else b"Exif\x00\x00" + raw),
        _segment(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + _xmp(thumb)),
        _segment(0xED, b"Photoshop 3.0\x00" + _irb(thumb)),
        _segment(0xE2, b"FPXR\x00\x02\x00\x00" + thumb),
    ])
    src.write_bytes(data)
    assert _shows_object(data)
    out, notes = _remove(tmp_path, src, quality=quality)
    got = out.read_bytes()
    assert not _shows_object(got)
    for what in ("the XMP thumbnails", "Photoshop's thumbnail", "a preview in the EXIF data", "FlashPix"):
        assert _said(notes, what), (what, notes)
    with Image.open(out) as back:  # the rest of the metadata stays
        assert back.getexif()[0x010F] == "Camera maker"
        assert len(back.getexif().get_ifd(0x8769)[0x927C]) == len(exif.get_ifd(0x8769)[0x927C])  # blanked in place
        assert b"Someone" in back.info["xmp"] and b"Thumbnails" not in back.info["xmp"]
        assert b"caption" in back.info["photoshop"][0x0404] and 0x040C not in back.info["photoshop"]


@pytest.mark.parametrize("quality", [None, 90])
def test_a_motion_photos_video_goes_and_its_xmp_says_so(tmp_path, quality):
    img, _ = _scene()
    video = b"\x00\x00\x00\x18ftypmp42" + _jpeg(img) * 2  # (a video's frames show the object too)
    xmp = _xmp(b"", extra="xmlns:GCamera='http://ns.google.com/photos/1.0/camera/' GCamera:MotionPhoto='1'")
    src = tmp_path / "in.jpg"
    src.write_bytes(_with_segments(_jpeg(img), [_segment(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + xmp)]) + video)
    out, notes = _remove(tmp_path, src, quality=quality)
    got = out.read_bytes()
    from inpaint.io.jpeg_edit import jpeg_end

    assert jpeg_end(got) == len(got) and not _shows_object(got)
    assert _said(notes, f"the {len(video)} bytes after the JPEG's end")
    with Image.open(out) as back:
        assert b"GCamera:MotionPhoto='0'" in back.info["xmp"]


def test_an_exif_preview_linked_after_the_thumbnail_is_blanked(tmp_path):
    img, _ = _scene()
    thumb = _jpeg(img, (32, 24))
    # IFD0 (one tag) -> IFD1 (thumbnail) -> IFD2 (a larger preview), little-endian
    ifd0, ifd1 = 8, 8 + 2 + 12 + 4
    ifd2 = ifd1 + 2 + 2 * 12 + 4
    data_at = ifd2 + 2 + 2 * 12 + 4
    t = bytearray(b"II*\x00" + struct.pack("<I", ifd0))
    t += struct.pack("<H", 1) + struct.pack("<HHII", 0x010F, 2, 4, 0x00656d61) + struct.pack("<I", ifd1)
    t += struct.pack("<H", 2) + struct.pack("<HHII", 0x0201, 4, 1, data_at) \
        + struct.pack("<HHII", 0x0202, 4, 1, len(thumb)) + struct.pack("<I", ifd2)
    t += struct.pack("<H", 2) + struct.pack("<HHII", 0x0201, 4, 1, data_at + len(thumb)) \
        + struct.pack("<HHII", 0x0202, 4, 1, len(thumb)) + struct.pack("<I", 0)
    t += thumb + thumb
    src = tmp_path / "in.jpg"
    src.write_bytes(_with_segments(_jpeg(img), [_segment(0xE1, b"Exif\x00\x00" + bytes(t))]))
    out, notes = _remove(tmp_path, src)
    assert not _shows_object(out.read_bytes()) and _said(notes, "the EXIF thumbnail")


def test_a_png_raw_profile_with_a_thumbnail_goes(tmp_path):
    img, _ = _scene()
    exif = Image.Exif()
    exif[0x010F] = "Camera maker"
    raw = b"Exif\x00\x00" + exif.tobytes() + _jpeg(img, (32, 24))
    hexed = raw.hex().encode()
    text = b"\nexif\n" + str(len(raw)).encode() + b"\n" + b"\n".join(hexed[i:i + 72] for i in range(0, len(hexed), 72))
    src = tmp_path / "in.png"
    Image.fromarray(img).save(src)
    data = src.read_bytes()
    chunk_data = b"Raw profile type exif\x00\x00" + zlib.compress(text)
    crc = struct.pack(">I", zlib.crc32(b"zTXt" + chunk_data))
    chunk = struct.pack(">I", len(chunk_data)) + b"zTXt" + chunk_data + crc
    src.write_bytes(data[:33] + chunk + data[33:])  # after IHDR
    assert previews.raw_profile_has_preview(b"zTXt", chunk_data)
    out, notes = _remove(tmp_path, src, ".png")
    assert not _shows_object(out.read_bytes()) and b"Raw profile type exif" not in out.read_bytes()
    assert _said(notes, "raw profile")


@pytest.mark.parametrize("ext", [".tif", ".png", ".jpg"])
def test_a_tiffs_photoshop_thumbnail_goes(tmp_path, ext):
    img, _ = _scene()
    src = tmp_path / "in.tif"
    tifffile.imwrite(src, img, photometric="rgb", extratags=[(34377, 7, None, _irb(_jpeg(img, (32, 24))), True)])
    assert _shows_object(src.read_bytes())
    out, notes = _remove(tmp_path, src, ext)
    assert not _shows_object(out.read_bytes()) and _said(notes, "Photoshop's thumbnail")


def test_the_parts_without_a_picture_are_left_as_they_are():
    assert previews.blank_pictures(b"\x00\xff\xd8\xff\xe0" + b"\x01" * 100 + b"\xff\xd9") == (
        b"\x00\xff\xd8\xff\xe0" + b"\x01" * 100 + b"\xff\xd9", 0)  # too short to be a picture
    xmp = _xmp(b"").replace(b"<xmp:Thumbnails>", b"<xmp:Other>").replace(b"</xmp:Thumbnails>", b"</xmp:Other>")
    xmp = xmp.replace(b"<xmpGImg:image></xmpGImg:image>", b"")
    assert previews.xmp_without_previews(xmp) == (xmp, False)
    assert previews.clean_segments([_segment(0xFE, b"a comment")]) == ([_segment(0xFE, b"a comment")], [])
    assert previews.note([]) is None


def test_the_apps_photo_keeps_no_preview_for_its_saves(tmp_path):
    from mobile_ui import storage

    img, _ = _scene()
    src = tmp_path / "a.png"
    Image.fromarray(img).save(src, exif=_exif_with_maker_preview(_jpeg(img, (32, 24))))
    assert _shows_object(src.read_bytes())
    photo = storage.load_image(src)
    assert not _shows_object(photo.exif) and b"Camera maker" in photo.exif
    out, _ = storage.save_photo(photo.pixels, tmp_path / "b.png", photo)
    assert not _shows_object(out.read_bytes())


@pytest.mark.parametrize("quality", [None, 90])
def test_a_phones_mpo_jpeg_is_edited_as_a_jpeg_without_its_other_pictures(tmp_path, quality):
    """A phone's JPEG with its other pictures after its end (a preview, an HDR gain map: Pillow
    reads it as MPO) keeps its blocks and markers, and loses the other pictures and their index."""
    img, mask = _scene()
    src = tmp_path / "in.jpg"
    Image.fromarray(img).save(src, "MPO", save_all=True, append_images=[Image.fromarray(img).resize((32, 24))],
                              quality=88, comment=b"a comment")
    with Image.open(src) as im:
        assert im.format == "MPO" and im.n_frames == 2
    pic = imageio.read_image(src)
    assert pic.source.format == "JPEG" and pic.source.trailer > 0 and pic.source.subsampling == 2
    out, notes = _remove(tmp_path, src, quality=quality)
    assert _said(notes, f"the {pic.source.trailer} bytes after the JPEG's end") and not any("pages" in n for n in notes)
    got = out.read_bytes()
    from inpaint.io.jpeg_edit import jpeg_end

    assert jpeg_end(got) == len(got) and b"MPF\x00" not in got and not _shows_object(got)
    with Image.open(out) as back:
        assert back.format == "JPEG" and back.info.get("comment") == b"a comment"
    if quality is None:  # block by block: the blocks away from the object are the input's
        a, b = jpeglib.read_dct(str(src)), jpeglib.read_dct(str(out))
        assert np.array_equal(a.Y[:, :2], b.Y[:, :2]) and np.array_equal(a.qt, b.qt)
