"""Copies of the picture as it was, which a file's metadata can hold beside the picture.

After an edit they would still show what the mask removed (a person, a licence plate), so no
output keeps them: the EXIF thumbnail and any other JPEG image inside the EXIF block (a preview a
thumbnail links to, a maker note's preview, a private tag's), XMP thumbnails
(``xmp:Thumbnails``), Photoshop's thumbnails (image resources 1033 and 1036: JPEG's APP13,
TIFF's tag 34377, PNG's raw profiles), FlashPix extension data (APP2 ``FPXR``, a camera's
screennail), any other APPn block holding a JPEG image, and the data after a JPEG's end (a
motion photo's video, an editor's copy of the original).  Each is taken out where it sits, so
the rest of the metadata stays; the output plan says what went (:func:`note`).
"""

from __future__ import annotations

import re
import struct
import zlib
from typing import Any

#: A JPEG image's first bytes (start of image, then a marker) and its last.
_SOI, _EOI = b"\xff\xd8\xff", b"\xff\xd9"
#: Fewer bytes between the two are not a picture (the marker bytes by chance, in a maker note's numbers).
MIN_PICTURE = 256
#: Photoshop's image resources holding a thumbnail (1033: Photoshop 4's, BGR; 1036: later).
PHOTOSHOP_THUMBNAILS = (1033, 1036)
#: The TIFF tags of Photoshop's image resources and of XMP.
TAG_PHOTOSHOP, TAG_XMP = 34377, 700

_XMP_APP1 = b"http://ns.adobe.com/xap/1.0/\x00"
_XMP_EXTENSION = b"http://ns.adobe.com/xmp/extension/\x00"
_PHOTOSHOP_APP13 = b"Photoshop 3.0\x00"

_THUMBNAILS = re.compile(rb"<(\w+):Thumbnails\b[^>]*?(?:/>|>.*?</\1:Thumbnails\s*>)", re.S)
_IMAGE_NAMESPACE = re.compile(rb"""xmlns:(\w+)\s*=\s*["']http://ns\.adobe\.com/xap/1\.0/g/img/["']""")
_MOTION = re.compile(rb"""(\w+:(?:MotionPhoto|MicroVideo)\s*=\s*["'])1(["'])|(<(\w+):(?:MotionPhoto|MicroVideo)>)"""
                     rb"""\s*1\s*(</\4:)""")


def blank_pictures(data: bytes) -> tuple[bytes, int]:
    """``data`` with every JPEG image inside it zeroed (its start marker to its end marker), and
    how many: in place, so its length and every offset into it stay."""
    buf, count, i = bytearray(data), 0, 0
    while (start := buf.find(_SOI, i)) >= 0:
        stop = buf.find(_EOI, start + 3)
        end = len(buf) if stop < 0 else stop + 2
        if end - start < MIN_PICTURE:
            i = start + 3
            continue
        buf[start:end] = bytes(end - start)
        count += 1
        i = end
    return (bytes(buf), count) if count else (data, 0)


def xmp_without_previews(xmp: bytes, motion: bool = False) -> tuple[bytes, bool]:
    """An XMP packet without its thumbnails (and, with ``motion``, no longer saying that a video
    follows the picture); and whether it had thumbnails."""
    out = _THUMBNAILS.sub(b"", xmp)
    for prefix in set(_IMAGE_NAMESPACE.findall(out)):
        p = re.escape(prefix)
        out = re.sub(rb"<" + p + rb":image\b[^>]*>.*?</" + p + rb":image\s*>", b"", out, flags=re.S)
        out = re.sub(rb"\s" + p + rb":image\s*=\s*(\"[^\"]*\"|'[^']*')", b"", out)
    thumbnails = out != xmp
    if motion:
        out = _MOTION.sub(lambda m: m.group(1) + b"0" + m.group(2) if m.group(1) else m.group(3) + b"0" + m.group(5),
                          out)
    return out, thumbnails


def irb_without_previews(irb: bytes) -> tuple[bytes, bool]:
    """Photoshop's image resources without the thumbnails; and whether any went.  What cannot be
    read as resources is kept, but for any JPEG image in it (:func:`blank_pictures`)."""
    out, i, dropped = bytearray(), 0, False
    while i + 12 <= len(irb) and irb[i:i + 4] in (b"8BIM", b"MeSa", b"AgHg", b"PHUT", b"DCSR"):
        rid = int.from_bytes(irb[i + 4:i + 6], "big")
        data_at = i + 6 + ((irb[i + 6] + 2) & ~1)  # the name: a length byte and its text, padded to even
        size = int.from_bytes(irb[data_at:data_at + 4], "big")
        end = data_at + 4 + size + (size & 1)
        if end > len(irb) + 1:
            break
        if rid in PHOTOSHOP_THUMBNAILS:
            dropped = True
        else:
            out += irb[i:min(end, len(irb))]
        i = end
    rest, blanked = blank_pictures(irb[i:]) if i < len(irb) else (b"", 0)
    return (bytes(out) + rest, True) if dropped or blanked else (irb, False)


def drop_exif_thumbnail(segment: bytes) -> bytes:
    """An APP1 EXIF segment without its thumbnail (IFD1), which would still show the picture as
    it was before the edit; any other segment as it is.

    The thumbnail's bytes and its directory are zeroed and IFD0's link to it is cleared, in
    place: the segment keeps its length and every other offset in it (a maker note's too), so
    nothing else in the file moves.  A segment whose directories cannot be followed is kept as
    it is."""
    if segment[1:2] != b"\xe1" or segment[4:10] != b"Exif\x00\x00":
        return segment
    tiff = bytearray(segment[10:])
    end = {b"II": "<", b"MM": ">"}.get(bytes(tiff[:2]))
    if end is None or len(tiff) < 8:
        return segment

    def num(fmt: str, at: int) -> int:
        return struct.unpack_from(end + fmt, tiff, at)[0]

    try:
        ifd0 = num("I", 4)
        link = ifd0 + 2 + 12 * num("H", ifd0)
        ifd1 = num("I", link)
        if ifd1 == 0:
            return segment
        count = num("H", ifd1)
        table_end = ifd1 + 2 + 12 * count + 4
        if ifd1 < 8 or table_end > len(tiff):
            return segment
        values: dict[int, list[int]] = {}
        for i in range(count):
            at = ifd1 + 2 + 12 * i
            tag, kind, n = num("H", at), num("H", at + 2), num("I", at + 4)
            size = {3: 2, 4: 4}.get(kind)
            if tag in (0x0111, 0x0117, 0x0201, 0x0202) and size and n <= 4096:
                first = at + 8 if n * size <= 4 else num("I", at + 8)
                values[tag] = [num("H" if size == 2 else "I", first + j * size) for j in range(n)]
        parts = list(zip(values.get(0x0201, []), values.get(0x0202, []))) + \
            list(zip(values.get(0x0111, []), values.get(0x0117, [])))
        for start, length in parts:
            tiff[start:min(start + length, len(tiff))] = bytes(max(0, min(length, len(tiff) - start)))
        tiff[ifd1:table_end] = bytes(table_end - ifd1)
        struct.pack_into(end + "I", tiff, link, 0)
    except struct.error:
        return segment
    return segment[:10] + bytes(tiff)


def _segment(marker: int, payload: bytes) -> bytes:
    return bytes((0xFF, marker)) + struct.pack(">H", len(payload) + 2) + payload


def clean_segments(segments: list[bytes], motion: bool = False) -> tuple[list[bytes], list[str]]:
    """A JPEG's APPn and COM segments (marker and length included) without the copies of the
    picture they hold; and what went, in a note's words.  ``motion``: the data after the JPEG's end
    is dropped, so its XMP stops saying that a video follows."""
    kept, what = [], []
    fpxr = [s for s in segments if s[1] == 0xE2 and s[4:8] == b"FPXR"]
    drop_fpxr = any(blank_pictures(s)[1] for s in fpxr)
    extension = [s for s in segments if s[1] == 0xE1 and s[4:].startswith(_XMP_EXTENSION)]
    joined = b"".join(s[4 + len(_XMP_EXTENSION) + 40:] for s in extension)  # after the GUID, length and offset
    drop_extension = bool(extension) and xmp_without_previews(joined)[1]
    for seg in segments:
        kind, body = seg[1], seg[4:]
        if kind == 0xE1 and body.startswith(b"Exif\x00"):
            thumb = drop_exif_thumbnail(seg)
            blanked, count = blank_pictures(thumb[10:])
            if thumb != seg:
                what.append("the EXIF thumbnail")
            if count:
                what.append("a preview in the EXIF data")
            kept.append(thumb[:10] + blanked)
        elif kind == 0xE1 and body.startswith(_XMP_APP1):
            xmp, thumbnails = xmp_without_previews(body[len(_XMP_APP1):], motion)
            if thumbnails:
                what.append("the XMP thumbnails")
            kept.append(_segment(kind, _XMP_APP1 + xmp) if xmp != body[len(_XMP_APP1):] else seg)
        elif kind == 0xE1 and body.startswith(_XMP_EXTENSION):
            if not drop_extension:
                kept.append(seg)
        elif kind == 0xED and body.startswith(_PHOTOSHOP_APP13):
            irb, changed = irb_without_previews(body[len(_PHOTOSHOP_APP13):])
            if changed:
                what.append("Photoshop's thumbnail")
            kept.append(_segment(kind, _PHOTOSHOP_APP13 + irb) if changed else seg)
        elif seg in fpxr:
            if not drop_fpxr:
                kept.append(seg)
        elif motion and kind == 0xE2 and body.startswith(b"MPF\x00"):
            pass  # the index of the pictures after the end, which go
        elif 0xE3 <= kind <= 0xEF and kind not in (0xED, 0xEE) and blank_pictures(body)[1]:
            what.append(f"an APP{kind - 0xE0} block holding a preview")
        else:
            kept.append(seg)
    if drop_extension:
        what.append("the extended XMP (it holds thumbnails)")
    if drop_fpxr:
        what.append("the FlashPix data (a screennail)")
    return kept, list(dict.fromkeys(what))


def exif_without_previews(exif: Any) -> tuple[Any, list[str]]:
    """An ``Image.Exif`` (whose writer keeps no thumbnail directory) without the other copies of
    the picture: JPEG images in its values (a maker note's preview, a private tag's), Photoshop's
    thumbnails (tag 34377) and XMP thumbnails (tag 700, a TIFF's); ``exif`` itself where none
    is there.  And what went, in a note's words."""
    from PIL import ExifTags, Image

    changes: list[tuple[Any, int, bytes]] = []
    what = []
    try:
        ifds = [exif, exif.get_ifd(ExifTags.IFD.Exif)]
    except Exception:  # noqa: BLE001 - a damaged link: its values are not written either
        ifds = [exif]
    for index, ifd in enumerate(ifds):
        for tag, value in list(ifd.items()):
            if isinstance(value, str) and tag == TAG_XMP:
                value = value.encode("utf-8")
            if not isinstance(value, (bytes, bytearray)):
                continue
            value = bytes(value)
            if tag == TAG_PHOTOSHOP and index == 0:
                new, changed = irb_without_previews(value)
                word = "Photoshop's thumbnail"
            elif tag == TAG_XMP and index == 0:
                new, changed = xmp_without_previews(value)
                word = "the XMP thumbnails"
            else:
                new, count = blank_pictures(value)
                changed, word = count > 0, "a preview in the EXIF data"
            if changed:
                changes.append((index, tag, new))
                what.append(word)
    if not changes:
        return exif, []
    copy = Image.Exif()
    copy.load(exif.tobytes())
    for index, tag, new in changes:
        (copy if index == 0 else copy.get_ifd(ExifTags.IFD.Exif))[tag] = new
    return copy, list(dict.fromkeys(what))


#: The keywords of PNG text chunks that hold another format's metadata as hexadecimal text
#: (ImageMagick's and exiftool's raw profiles).
_RAW_PROFILE = b"Raw profile type "


def raw_profile_has_preview(kind: bytes, data: bytes) -> bool:
    """Whether a PNG text chunk is a raw profile (EXIF, APP1, Photoshop's 8BIM, XMP as
    hexadecimal text) that holds a copy of the picture."""
    if not data.startswith(_RAW_PROFILE) or kind not in (b"tEXt", b"zTXt", b"iTXt"):
        return False
    keyword, _, rest = data.partition(b"\x00")
    try:
        if kind == b"zTXt":
            text = zlib.decompress(rest[1:])
        elif kind == b"iTXt":  # compression flag and method, language, translated keyword
            flag, rest = rest[0], rest[2:]
            text = rest.split(b"\x00", 2)[2]
            text = zlib.decompress(text) if flag else text
        else:
            text = rest
        raw = bytes.fromhex(b"".join(text.split(b"\n")[3:]).decode("ascii").replace(" ", ""))
    except (ValueError, IndexError, zlib.error, UnicodeDecodeError):
        return True  # cannot be read: it may hold one
    name = keyword[len(_RAW_PROFILE):].lower()
    if name == b"8bim":
        return irb_without_previews(raw)[1]
    if name == b"xmp":
        return xmp_without_previews(raw)[1]
    return blank_pictures(raw)[1] > 0 or (name in (b"exif", b"app1") and _exif_has_thumbnail(raw))


def _exif_has_thumbnail(raw: bytes) -> bool:
    """Whether raw EXIF bytes (with or without their ``Exif`` header) link a second directory."""
    tiff = raw[raw.find(b"II*\x00") if b"II*\x00" in raw[:16] else raw.find(b"MM\x00*"):]
    seg = b"\xff\xe1\x00\x00Exif\x00\x00" + tiff
    return drop_exif_thumbnail(seg) != seg


def note(what: list[str]) -> str | None:
    """The note for the copies of the picture that an output leaves out, or None."""
    if not what:
        return None
    items = list(dict.fromkeys(what))
    listed = items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    return f"copies of the picture as it was are not kept (they would still show what the edit removed): {listed}"
