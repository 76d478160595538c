"""How a picture will be written to an output, decided before the work: what is kept, what is not.

:func:`plan_output` reads the format table (:data:`inpaint.io.formats.FORMATS`) and the picture's
source, and returns the encoder's options and a note for everything the output cannot keep; it
refuses an output that cannot be written.  The front ends print the notes before the work starts.
"""

from __future__ import annotations

import dataclasses
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np
from PIL import ExifTags, Image

from ..errors import InputError
from . import previews
from .encode import convert_for, icc_fits, output_format
from .formats import holds
from .pictures import DeepImage, Picture

#: Lossy sources: written to a lossy format, their pixels are encoded again either way.
_LOSSY_SOURCES = ("JPEG", "MPO", "AVIF")
#: JPEG quality of a lossy output from a lossless source, or from a JPEG without its tables.
DEFAULT_QUALITY = 95


@dataclasses.dataclass
class OutputPlan:
    """How one output is written.

    Attributes
    ----------
    fmt : str
        Pillow format name.
    notes : list of str
        What the output cannot keep (printed before the work).
    options : dict
        The encoder's options: ``exif``, ``icc_profile``, ``xmp``, ``quality``, ``lossless``,
        ``qtables``, ``subsampling``.
    jpeg_edit : dict or None
        For a JPEG written back as JPEG block by block (:mod:`inpaint.io.jpeg_edit`): the
        source's path, orientation, tables, subsampling and header (read once, here).
    """

    fmt: str
    notes: list = dataclasses.field(default_factory=list)
    options: dict = dataclasses.field(default_factory=dict)
    jpeg_edit: dict | None = None


def _rounded(dpi: Any) -> tuple[int, int]:
    return int(round(float(dpi[0]))), int(round(float(dpi[1])))


def _exif_dpi(exif: Any) -> tuple[int, int] | None:
    """The resolution EXIF holds (tags 282, 283 and the unit 296), in dots per inch, rounded; None
    where it holds none (a format that keeps EXIF but no resolution of its own keeps that one)."""
    try:
        if exif is None or 282 not in exif:
            return None
        per = 2.54 if exif.get(296, 2) == 3 else 1.0  # per centimetre
        return _rounded((float(exif[282]) * per, float(exif.get(283, exif[282])) * per))
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def _probe(picture: Picture) -> Image.Image | DeepImage:
    """A few pixels of ``picture`` with its mode, palette and transparency, to plan the conversion."""
    if picture.wide is not None:
        info = {k: v for k, v in picture.image.info.items() if k == "transparency"}
        return DeepImage(np.ascontiguousarray(picture.wide[:2, :2]), info)
    if picture.image.mode in ("F", "I"):  # the conversion depends on the whole image's range
        arr = np.asarray(picture.image)
        if picture.source.dtype == "uint32":  # the same bits, unsigned (convert_for reads them so)
            ends = arr.view(np.uint32).reshape(-1)
            ends = [ends.min(), ends.max()] if ends.size else [0, 0]
            return Image.fromarray(np.array([ends, ends], np.uint32).view(np.int32))
        finite = arr[np.isfinite(arr)] if arr.dtype.kind == "f" else arr.reshape(-1)
        ends = [finite.min(), finite.max()] if finite.size else [0, 0]
        return Image.fromarray(np.array([ends, ends], dtype=arr.dtype))
    img = picture.image.crop((0, 0, min(2, picture.size[0]), min(2, picture.size[1])))
    if "transparency" in picture.image.info:
        img.info["transparency"] = picture.image.info["transparency"]
    return img


#: The colour of a written mode, in a note's words.
_COLOUR_WORD = {"RGB": "RGB", "RGBA": "RGB", "P": "RGB", "PA": "RGB", "L": "grey", "LA": "grey", "1": "grey",
                "I": "grey", "F": "grey", "CMYK": "CMYK", "LAB": "CIELAB"}

#: The GPS IFD's tag in EXIF.
_GPS_IFD = 0x8825


def _tag_name(tag: int, ifd_id: int | None = None) -> str:
    """An EXIF tag's name; a GPS IFD's tags are numbered apart."""
    if ifd_id == _GPS_IFD:
        return ExifTags.GPSTAGS.get(tag, f"GPS tag {tag}")
    return ExifTags.TAGS.get(tag, f"tag {tag}")


def _has_thumbnail(exif: Image.Exif) -> bool:
    """Whether an EXIF block holds a thumbnail (its IFD1 points at JPEG or strip data).  No output
    keeps it: Pillow writes no IFD1, and a JPEG edited block by block has it removed."""
    try:
        ifd1 = exif.get_ifd(ExifTags.IFD.IFD1)
    except Exception:  # noqa: BLE001 - a damaged link: no thumbnail can be read either
        return False
    return 0x0201 in ifd1 or 0x0111 in ifd1


#: The EXIF tags of the picture's width and height (PixelXDimension, PixelYDimension, in the EXIF IFD).
_PIXEL_DIMENSIONS = (0xA002, 0xA003)


def _sized(exif: Image.Exif, size: tuple[int, int]) -> Image.Exif:
    """A copy of ``exif`` whose picture dimensions, where it states them, are ``size`` (a resize's):
    a viewer that reads them would otherwise lay the result out at the input's size."""
    stated = exif.get_ifd(ExifTags.IFD.Exif)
    if not any(tag in stated for tag in _PIXEL_DIMENSIONS):
        return exif
    copy = Image.Exif()
    copy.load(exif.tobytes())
    dims = copy.get_ifd(ExifTags.IFD.Exif)
    for tag, value in zip(_PIXEL_DIMENSIONS, size):
        if tag in dims:
            dims[tag] = int(value)
    return copy


def fit_exif(exif: Image.Exif, limit: int) -> tuple[bytes | None, str | None]:
    """The EXIF block in at most ``limit`` bytes: its largest values dropped one by one until it
    fits (a maker note, a comment...), or none at all; and a note naming what was dropped."""
    raw = exif.tobytes()
    if len(raw) <= limit:
        return raw, None
    size = len(raw)
    dropped = []
    while len(raw) > limit:
        sizes = []
        for ifd_id, ifd in ((None, exif),) + tuple((i, exif.get_ifd(i)) for i in (0x8769, _GPS_IFD)):
            for tag, value in list(ifd.items()):
                if isinstance(value, (bytes, str, tuple)) and tag not in (0x8769, _GPS_IFD):
                    sizes.append((len(value), ifd_id, tag))
        if not sizes:
            break
        _, ifd_id, tag = max(sizes)
        del (exif if ifd_id is None else exif.get_ifd(ifd_id))[tag]
        dropped.append(_tag_name(tag, ifd_id))
        raw = exif.tobytes()
    if len(raw) > limit:
        return None, f"the EXIF block ({size} bytes) is larger than JPEG's {limit}: it was dropped"
    return raw, (f"the EXIF block ({size} bytes) is larger than JPEG's {limit}: dropped its "
                 + ", ".join(dropped))


#: What the PNG chunks that outputs keep hold, for the note of a format that cannot hold them.
_PNG_CHUNK_WORDS = {b"tEXt": "text", b"zTXt": "text", b"iTXt": "text", b"gAMA": "gamma", b"cHRM": "chromaticity",
                    b"sRGB": "sRGB intent", b"sBIT": "significant bits"}


def _other_metadata(src: Any, fmt: str, plan: OutputPlan) -> list[str]:
    """The input's metadata beyond EXIF, ICC and XMP: a PNG's text and colour chunks, a JPEG's
    comments, IPTC and other APPn blocks.  Kept where the output can hold them, but for the copies
    of the picture they hold (returned, in a note's words); a note says what else was dropped."""
    gone: list[str] = []
    if src.comment:  # a GIF's
        if fmt == "GIF":
            plan.options["comment"] = src.comment
        elif fmt == "PNG":
            plan.options.setdefault("png_chunks", []).append((b"tEXt", b"Comment\x00" + src.comment))
        elif fmt == "JPEG" and len(src.comment) <= 65533:
            plan.options.setdefault("jpeg_segments", []).append(
                b"\xff\xfe" + struct.pack(">H", len(src.comment) + 2) + src.comment)
        else:
            plan.notes.append(f"{fmt} cannot hold the {src.format}'s comment: it was dropped")
    if src.png_chunks:
        if fmt == "PNG":
            plan.options["png_chunks"] = [c for c in src.png_chunks if not previews.raw_profile_has_preview(*c)]
            if len(plan.options["png_chunks"]) < len(src.png_chunks):
                gone.append("a raw profile text chunk holding a thumbnail")
        else:
            words = list(dict.fromkeys(_PNG_CHUNK_WORDS[kind] for kind, _ in src.png_chunks))
            tones = {"gamma", "chromaticity", "sRGB intent"} & set(words)
            plan.notes.append(f"{fmt} cannot hold the PNG's {', '.join(words)} chunks: they were dropped"
                              + (" (the tones may display differently)" if tones else ""))
    if src.segments:
        if fmt == "JPEG":  # edited block by block they are copied with every marker; encoded again, from here
            plan.options["jpeg_segments"], went = previews.clean_segments(src.segments, motion=bool(src.trailer))
            return gone + went
        dropped = []
        for seg in src.segments:
            kind = seg[1]
            if kind == 0xFE and fmt == "PNG":  # a comment becomes the PNG's Comment text
                plan.options.setdefault("png_chunks", []).append((b"tEXt", b"Comment\x00" + seg[4:]))
                continue
            if kind == 0xFE and fmt == "GIF" and "comment" not in plan.options:  # a GIF holds one comment
                plan.options["comment"] = bytes(seg[4:])
                continue
            dropped.append("comments" if kind == 0xFE else "IPTC (APP13)" if kind == 0xED
                           else "extended XMP" if kind == 0xE1 else "FlashPix data (APP2)" if kind == 0xE2
                           else f"APP{kind - 0xE0} blocks")
        if dropped:
            plan.notes.append(f"{fmt} cannot hold the JPEG's {', '.join(dict.fromkeys(dropped))}: dropped")
    return gone


def plan_output(picture: Picture, path: str | os.PathLike[str], *, size: tuple[int, int] | None = None,
                quality: int | None = None) -> OutputPlan:
    """Decide, before the work, how ``picture`` will be written to ``path``.

    Parameters
    ----------
    picture : Picture
        The input, as read.
    path : path-like
        The output.
    size : (int, int), optional
        The result's size when it differs from the picture's (a resize): the JPEG's blocks
        cannot be kept then.
    quality : int, optional
        ``--quality``: encode a JPEG or WebP output again at this quality (1-100).

    Returns
    -------
    OutputPlan

    Raises
    ------
    InputError
        ``quality`` for a lossless format.
    """
    fmt = output_format(path)
    can = holds(fmt)
    if quality is not None and (isinstance(quality, (bool, np.bool_)) or not isinstance(quality, (int, np.integer))
                                or not 1 <= quality <= 100):
        raise InputError(f"the quality must be an integer from 1 to 100, got {quality!r}")
    src = picture.source
    plan = OutputPlan(fmt)
    notes, opts = plan.notes, plan.options
    if quality is not None and (can is None or can.lossy == "never"):
        raise InputError(f"--quality applies to lossy outputs (.jpg, .webp, .avif); {Path(path).name} is {fmt}, "
                         "which is written without loss")
    written, note = convert_for(_probe(picture), fmt, src.dtype)
    if note:
        notes.append(note)
    if src.dtype:
        opts["dtype"] = src.dtype
    if src.associated:
        opts["associated"] = True
    # metadata, within the format's limits
    exif = picture.exif
    if exif is not None and len(exif) and size is not None and tuple(size) != tuple(picture.size):
        exif = _sized(exif, size)
    gone: list[str] = []  # the copies of the picture as it was that the output leaves out (previews)
    if exif is not None and len(exif):
        if can is not None and not can.exif:
            gps = " (the GPS position too)" if len(exif.get_ifd(_GPS_IFD)) else ""
            notes.append(f"{fmt} cannot hold EXIF data: it was dropped{gps}")
        else:
            if src.format != "TIFF" and _has_thumbnail(exif):  # (a TIFF's next directory is its next page)
                gone.append("the EXIF thumbnail")
            exif, went = previews.exif_without_previews(exif)
            gone += went
            raw, note = fit_exif(exif, can.exif_limit) if can is not None and can.exif_limit else (exif.tobytes(), None)
            if note:
                notes.append(note)
            if raw:
                opts["exif"] = raw
    if picture.icc_profile:
        if can is not None and not can.icc:
            notes.append(f"{fmt} cannot hold the ICC colour profile: it was dropped (colours may look different)")
        elif not icc_fits(picture.icc_profile, written.mode) and not (
                fmt == src.format == "JPEG" and written.mode == picture.image.mode):  # (a JPEG's own, as it came)
            space = bytes(picture.icc_profile[16:20]).decode("latin-1").strip() or "unknown"
            notes.append(f"the ICC colour profile is for {space} colour but the {fmt} is written as "
                         f"{_COLOUR_WORD.get(written.mode.split(';')[0], written.mode)}: the profile was dropped")
        else:
            opts["icc_profile"] = picture.icc_profile
    if src.xmp:
        if can is not None and not can.xmp:
            notes.append(f"{fmt} cannot hold XMP metadata: it was dropped")
        else:
            # (the data after a JPEG's end goes: the XMP no longer says that a video follows)
            opts["xmp"], thumbnails = previews.xmp_without_previews(src.xmp, motion=bool(src.trailer))
            if thumbnails:
                gone.append("the XMP thumbnails")
    dpi = picture.image.info.get("dpi")
    if dpi and can is not None and not can.dpi and not (can.exif and _exif_dpi(exif) == _rounded(dpi)):
        notes.append(f"{fmt} cannot hold the resolution ({float(dpi[0]):.0f} dpi): it was dropped")
    # lossless or lossy
    resized = size is not None and tuple(size) != tuple(picture.size)
    kept = "the result is not stored exactly" if resized else "the pixels outside the mask are not kept exactly"
    again = ("the result is encoded lossily again" if resized else
             "the pixels outside the mask are encoded again and change slightly")
    it = "it" if resized else "them"
    lossy_source = src.format in _LOSSY_SOURCES or (src.format == "WEBP" and src.lossless is False)
    if can is not None and can.lossy == "option":  # WebP: lossless, unless --quality says or the input was lossy WebP
        if quality is not None or (src.format == "WEBP" and src.lossless is False):
            opts["quality"] = quality if quality is not None else DEFAULT_QUALITY
            if quality is None and src.format == "WEBP":
                notes.append(f"the input is lossy WebP and so is the output: {again} (write .png to keep the "
                             "result exactly)")
        else:
            opts["lossless"] = True
    elif can is not None and can.lossy == "always":
        if quality is not None:
            opts["quality"] = quality
            if fmt == "JPEG" and src.format == "JPEG" and src.subsampling in (0, 1, 2):
                opts["subsampling"] = src.subsampling
        elif fmt == "JPEG" and src.format == "JPEG" and src.qtables:
            same = size is None or tuple(size) == tuple(picture.size)
            header, why = None, None
            if same:
                from . import jpeg_edit
                from .read import file_stamp

                header, why = jpeg_edit.read_header(picture.path) if picture.path \
                    else (None, "no file")
                if why is None and src.stamp is not None and file_stamp(picture.path) != src.stamp:
                    # its blocks would be another file's than the pixels filled (a run writing it meanwhile)
                    header, why = None, "the file changed on disk after it was read"
            opts["qtables"] = src.qtables  # also the fallback if the block-by-block write fails
            if src.subsampling in (0, 1, 2):
                opts["subsampling"] = src.subsampling
            if same and why is None:
                plan.jpeg_edit = {"path": picture.path, "orientation": src.orientation, "header": header}
                # its markers are copied from the file, without the copies of the picture they hold
                gone += previews.clean_segments(jpeg_edit.app_segments(bytes(header.content)),
                                                motion=bool(src.trailer))[1]
            elif same:
                notes.append(f"the JPEG is encoded again with its own quantisation tables, so the pixels "
                             f"outside the mask change slightly: {why}")
            else:
                notes.append("the JPEG is encoded again at its new size, with its own quantisation tables: its "
                             "pixels change slightly (write .png to keep them exactly)")
        else:
            opts["quality"] = DEFAULT_QUALITY
            if not lossy_source:
                notes.append(f"{fmt} is lossy: {kept} (write .png, .tif or .webp to keep {it})")
            else:  # lossy in, lossy out: encoded again all the same
                notes.append(f"{fmt} is lossy: {again} (write .png, .tif or .webp to keep {it})")
    gone += _other_metadata(src, fmt, plan)
    notes.extend(src.dropped)
    if src.trailer:
        gone.append(f"the {src.trailer} bytes after the JPEG's end (a motion photo's video, a phone's other "
                    "pictures of it such as an HDR gain map, or another program's copy)")
    said = previews.note(gone)
    if said:
        notes.append(said)
    return plan
