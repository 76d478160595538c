"""Encoders: the format of an output name, the conversion a format needs, a fast PNG writer and a
16-bit colour TIFF writer."""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from ..errors import InputError
from .formats import COLOUR_SPACES, holds
from .pictures import DeepImage
from .read import float_scale


def output_format(path: str | os.PathLike[str]) -> str:
    """The Pillow format name for ``path``'s extension."""
    ext = Path(path).suffix.lower()
    Image.preinit()  # the common formats only: loading every plugin costs tens of milliseconds
    fmt = Image.EXTENSION.get(ext)
    if fmt is None:
        Image.init()
        fmt = Image.EXTENSION.get(ext)
    if fmt is None and ext:
        raise InputError(f"cannot write {ext} files ({path}): use an extension such as .png, .jpg, .tif or .webp")
    if fmt is None:
        raise InputError(f"cannot tell the image format of {path}: use an extension such as .png or .jpg")
    return fmt


def _float_to(img: Image.Image, fmt: str, allowed: set[str]) -> tuple[Image.Image, str | None]:
    arr = np.asarray(img).astype(np.float64)
    scale = float_scale(arr)
    arr = np.nan_to_num(arr, nan=0.0)
    if scale < 1:
        hi = 1.0
    else:
        hi = 65535.0 if "I;16" in allowed else 255.0 * scale
    clipped = f"; values outside 0..{hi:g} were clipped" if arr.size and (arr.min() < 0 or arr.max() > hi) else ""
    if scale < 1 and "I;16" in allowed:  # 0..1 -> 0..65535
        target = Image.fromarray(np.clip(np.rint(arr * 65535), 0, 65535).astype(np.uint16))
        return target, (f"{fmt} cannot store floating-point pixels: written as 16-bit integers (0..1 as "
                        f"0..65535){clipped}")
    if scale > 1 and "I;16" in allowed:
        target = Image.fromarray(np.clip(np.rint(arr), 0, 65535).astype(np.uint16))
        return target, f"{fmt} cannot store floating-point pixels: written as 16-bit integers{clipped}"
    grey = np.clip(np.rint(arr / scale), 0, 255).astype(np.uint8)
    return Image.fromarray(grey), f"{fmt} cannot store floating-point pixels: written with 8 bits{clipped}"


def grey_values(img: Image.Image, dtype: str | None = None) -> np.ndarray:
    """The values of a grey image of mode ``I`` as int64; ``dtype`` ``'uint32'``: the file's
    unsigned 32-bit values, which Pillow holds as the same bits, signed
    (:attr:`~inpaint.io.pictures.Source.dtype`)."""
    arr = np.asarray(img)
    if dtype == "uint32" and arr.dtype == np.int32:
        arr = arr.view(np.uint32)
    return arr.astype(np.int64)


def convert_for(img: Image.Image | DeepImage, fmt: str, dtype: str | None = None) -> tuple[Image.Image, str | None]:
    """Convert ``img`` to a mode ``fmt`` can store (:data:`~inpaint.io.formats.FORMATS`); return it
    and a note if something is lost.

    Parameters
    ----------
    img : PIL.Image.Image or DeepImage
    fmt : str
        Pillow format name.
    dtype : str, optional
        The file's grey sample type of a mode ``I`` image (:attr:`~inpaint.io.pictures.Source.dtype`):
        an unsigned 32-bit image's values are read as unsigned.

    Returns
    -------
    PIL.Image.Image or DeepImage, str or None
    """
    can = holds(fmt)
    if isinstance(img, DeepImage):
        if can is not None and can.deep:
            key = img.info.get("transparency")
            if key is None or img.mode.split(";")[0] in can.key:
                return img, None
            # a colour key the format cannot hold: as an alpha channel, as for 8 bits
            colour = img.array if img.array.shape[2] == 3 else img.array[..., :1]
            alpha = np.where((colour == np.asarray(key, np.uint16)).all(axis=2), 0, 65535).astype(np.uint16)
            info = {k: v for k, v in img.info.items() if k != "transparency"}
            return DeepImage(np.dstack([img.array, alpha]), info), None
        flat, note = convert_for(img.to_8bit(), fmt)
        extra = (f"{fmt} is written with 8 bits per channel here: the 16-bit image was reduced "
                 "(write .png or .tif to keep 16 bits)")
        return flat, "; ".join(n for n in (extra, note) if n)
    if can is None:
        return img, None
    allowed = can.modes
    keyed = "transparency" in img.info
    if fmt == "GIF" and img.mode == "P" and isinstance(img.info.get("transparency"), bytes):
        return _one_clear_entry(img)
    if img.mode in allowed and not (keyed and img.mode not in can.key):
        return img, None
    has_alpha = img.mode in ("RGBA", "LA", "PA") or keyed
    dropped = f"{fmt} has no alpha channel: transparency was dropped"
    if keyed and img.mode.startswith("I;16") and isinstance(img.info["transparency"], int):
        # a 16-bit grey colour key the format cannot hold: as a 16-bit alpha channel, where it has one
        grey = np.asarray(img).astype(np.uint16)
        alpha = np.where(grey == img.info["transparency"], 0, 65535).astype(np.uint16)
        info = {k: v for k, v in img.info.items() if k != "transparency"}
        if can.deep:
            return DeepImage(np.dstack([grey, alpha]), info), None
        if "RGBA" in allowed or "LA" in allowed:
            return convert_for(DeepImage(np.dstack([grey, alpha]), info), fmt)
    if keyed and img.mode in allowed:  # a colour key the format cannot hold: as an alpha channel
        alpha = "LA" if img.mode in ("1", "L") and "LA" in allowed else "RGBA" if "RGBA" in allowed else None
        if alpha is not None and img.mode in ("1", "L", "P", "RGB"):
            return img.convert(alpha), None
        target = img.copy()
        target.info.pop("transparency", None)
        return target, f"{fmt} cannot hold the transparent colour of a {img.mode} image: transparency was dropped"
    if img.mode == "F":
        return _fit(*_float_to(img, fmt, allowed), fmt)
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        wide = grey_values(img, dtype)
        if img.mode == "I" and wide.size and wide.min() >= 0 and wide.max() <= 255:
            target = Image.fromarray(wide.astype(np.uint8))  # 8-bit values, as read_image sees them
            note = None
        elif "I;16" in allowed:  # e.g. a 32-bit "I" image to PNG: keep 16 bits
            target = Image.fromarray(np.clip(wide, 0, 65535).astype(np.uint16))
            clipped = wide.size and (wide.min() < 0 or wide.max() > 65535)
            note = f"{fmt} stores at most 16 bits: values were clipped to 0..65535" if clipped else None
        else:
            target = Image.fromarray((np.clip(wide, 0, 65535) >> 8).astype(np.uint8))
            note = f"{fmt} stores 8 bits per channel: the 16-bit image was reduced to 8 bits"
        if keyed:
            note = "; ".join(n for n in (note, dropped) if n)
        return _fit(target, note, fmt)
    if img.mode in COLOUR_SPACES:
        target = img.convert("RGB")
        return target, f"{fmt} cannot hold {COLOUR_SPACES[img.mode]} colour: converted to RGB"
    if img.mode in ("L", "LA", "1") and "L" in allowed:
        target = img.convert("L")
        note = dropped if has_alpha else None
    elif "RGBA" in allowed and has_alpha:
        target = img.convert("RGBA")
        note = None
    elif fmt == "GIF" and img.mode not in ("L", "P"):
        target = img.convert("RGB")
        note = "GIF stores at most 256 colours: the colours were reduced"
        if has_alpha:
            note += "; transparency was dropped"
    else:
        target = img.convert("RGB")
        note = dropped if has_alpha else None
    return target, note


#: The file sample types a grey image of mode ``I`` is written back in (TIFF).
_GREY_TYPES = ("uint16", "int16", "uint32")
#: An ICC profile's colour space (header bytes 16..20) by the colour of the modes written.
_ICC_SPACE = {"RGB": b"RGB ", "RGBA": b"RGB ", "RGBX": b"RGB ", "P": b"RGB ", "PA": b"RGB ", "RGB;16": b"RGB ",
              "RGBA;16": b"RGB ", "L": b"GRAY", "LA": b"GRAY", "1": b"GRAY", "I": b"GRAY", "I;16": b"GRAY",
              "I;16B": b"GRAY", "I;16L": b"GRAY", "F": b"GRAY", "LA;16": b"GRAY", "CMYK": b"CMYK", "LAB": b"Lab "}


def icc_fits(icc: bytes, mode: str) -> bool:
    """Whether an ICC profile describes images of ``mode``: its header's colour space (bytes
    16..20) is the mode's ('RGB ', 'GRAY', 'CMYK', 'Lab ').  A profile of another colour space
    would make a colour-managed viewer fail or show wrong colours.  Modes not listed take any."""
    space = _ICC_SPACE.get(mode)
    return space is None or bytes(icc[16:20]) == space


def _one_clear_entry(img: Image.Image) -> tuple[Image.Image, str | None]:
    """A palette image whose entries each have an alpha (a PNG's tRNS, as pngquant writes it) as a
    GIF holds it: its first fully transparent entry transparent, every other entry opaque."""
    alphas = img.info["transparency"]
    clear = [i for i, a in enumerate(alphas) if a == 0]
    target = img.copy()
    if clear:
        target.info["transparency"] = clear[0]
    else:
        target.info.pop("transparency", None)
    lost = len(clear) > 1 or any(0 < a < 255 for a in alphas)
    return target, ("GIF holds one fully transparent colour: the palette's other transparent and partly "
                    "transparent colours were made opaque" if lost else None)


def _fit(img: Image.Image, note: str | None, fmt: str) -> tuple[Image.Image, str | None]:
    """``img`` (grey or float made narrower) converted on to a mode ``fmt`` holds (QOI: no grey),
    the notes joined."""
    more = None
    if img.mode not in holds(fmt).modes:
        img, more = convert_for(img, fmt)
    return img, "; ".join(n for n in (note, more) if n) or None


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


#: zlib level of PNG outputs: level 3 writes a photo about twice as fast as Pillow's default 6,
#: for files about 1.5 % larger.
PNG_LEVEL = 3
#: Bytes of filtered rows per deflate band: each band is compressed on its own thread, so even a
#: phone-size photo's few hundred kilobytes are several bands (a band restarts zlib's 32 KB
#: window: a 512x384 photo's file in 2 bands is 0.2 % larger than in one).
PNG_BAND = 128 << 10
#: PNG colour types by channel count (grey, grey+alpha, RGB, RGBA).
_PNG_COLOUR = {1: 0, 2: 4, 3: 2, 4: 6}
#: Pillow modes the PNG writer takes (8 bits per channel; transparency chunks go through Pillow).
_PNG_MODES = ("L", "LA", "RGB", "RGBA")


#: Adler-32's modulus.
_ADLER_BASE = 65521


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from their own checksums and the
    second's length (zlib's ``adler32_combine``, which Python's :mod:`zlib` does not offer)."""
    rem = second_length % _ADLER_BASE
    low = first & 0xFFFF
    high = (rem * low) % _ADLER_BASE
    low = (low + (second & 0xFFFF) + _ADLER_BASE - 1) % _ADLER_BASE
    high = (high + (first >> 16) + (second >> 16) + _ADLER_BASE - rem) % _ADLER_BASE
    return low | (high << 16)


def _deflate(data: memoryview, level: int) -> list[bytes]:
    """One zlib stream of ``data``, its bands compressed in parallel (zlib releases the GIL).

    Every band but the last ends with a sync flush, so the raw deflate streams join into one;
    the header and the Adler-32 of the whole data frame them (as pigz does).  Each band's thread
    sums its own part too, and the sums are combined (:func:`adler32_combine`)."""
    n = len(data)
    bands = max(1, min(os.cpu_count() or 1, n // PNG_BAND))
    if bands == 1:
        comp = zlib.compressobj(level)
        return [comp.compress(data), comp.flush()]
    step = -(-n // bands)
    sums = [1] * bands

    def band(i: int) -> bytes:
        comp = zlib.compressobj(level, zlib.DEFLATED, -15)
        last = i == bands - 1
        part = data[i * step:(i + 1) * step]
        sums[i] = zlib.adler32(part)
        return comp.compress(part) + comp.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)

    from concurrent.futures import ThreadPoolExecutor

    try:
        with ThreadPoolExecutor(bands) as pool:
            parts = list(pool.map(band, range(bands)))
    except RuntimeError as exc:  # no thread can start (a process or memory limit): the same bands on this one
        if "can't start new thread" not in str(exc):
            raise
        parts = [band(i) for i in range(bands)]
    total = sums[0]
    for i in range(1, bands):
        total = adler32_combine(total, sums[i], len(data[i * step:(i + 1) * step]))
    return [b"\x78\x5e"] + parts + [struct.pack(">I", total & 0xFFFFFFFF)]


def write_png(fh: Any, arr: np.ndarray, *, exif: Any = None, icc_profile: bytes | None = None,
              dpi: Any = None, transparency: Any = None, xmp: bytes | None = None,
              chunks: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Write a PNG from an (H, W[, C]) uint8 or uint16 array (grey, grey+alpha, RGB or RGBA).

    Every row uses PNG's Up filter and the deflate runs in parallel bands: for photos the file
    is within a few per cent of Pillow's adaptive filtering, written several times faster.
    ``transparency`` is a grey or RGB image's colour key (tRNS), in the array's units;
    ``chunks`` are other chunks, ``(type, data)``, written as they are before the pixels.
    """
    arr = np.asarray(arr)
    if arr.ndim == 2:
        arr = arr[..., None]
    h, w, c = arr.shape
    depth = 16 if arr.dtype == np.uint16 else 8
    data = np.ascontiguousarray(arr.astype(">u2") if depth == 16 else arr).view(np.uint8).reshape(h, -1)
    rows = np.empty((h, data.shape[1] + 1), np.uint8)
    rows[:, 0] = 2  # filter 2 (Up): each byte minus the one above it, modulo 256
    rows[0, 1:] = data[0]
    np.subtract(data[1:], data[:-1], out=rows[1:, 1:])
    out = [b"\x89PNG\r\n\x1a\n", _png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, _PNG_COLOUR[c], 0, 0, 0))]
    if icc_profile:
        out.append(_png_chunk(b"iCCP", b"ICC Profile\0\0" + zlib.compress(icc_profile)))
    if transparency is not None and c in (1, 3):
        key = transparency if isinstance(transparency, tuple) else (transparency,)
        out.append(_png_chunk(b"tRNS", struct.pack(f">{len(key)}H", *(int(v) for v in key))))
    if dpi:
        ppm = [int(round(float(d) / 0.0254)) for d in dpi[:2]]
        out.append(_png_chunk(b"pHYs", struct.pack(">IIB", ppm[0], ppm[1], 1)))
    if exif is not None and len(exif):
        raw = exif.tobytes() if hasattr(exif, "tobytes") else bytes(exif)
        if raw.startswith(b"Exif\x00\x00"):
            raw = raw[6:]
        out.append(_png_chunk(b"eXIf", raw))
    if xmp:
        out.append(_png_chunk(b"iTXt", b"XML:com.adobe.xmp\0\0\0\0\0" + bytes(xmp)))
    out.extend(_png_chunk(kind, data) for kind, data in chunks)
    fh.write(b"".join(out))
    for part in _deflate(memoryview(rows).cast("B"), PNG_LEVEL):
        if part:
            fh.write(_png_chunk(b"IDAT", part))
    fh.write(_png_chunk(b"IEND", b""))


#: TIFF strips of about this many bytes (a reader holds one at a time).
TIFF_STRIP = 1 << 20


def divided_by_alpha(img: Image.Image | DeepImage) -> Image.Image | DeepImage:
    """An RGBA or LA image whose colours are multiplied by its alpha (an associated alpha), with the
    alpha divided out, rounded (a fully clear pixel's colour is 0), as other formats store it."""
    if isinstance(img, DeepImage):
        arr = img.array.astype(np.uint64)
        colour, alpha = arr[..., :-1], arr[..., -1:]
        straight = np.minimum((colour * 65535 + alpha // 2) // np.maximum(alpha, 1), 65535)
        return DeepImage(np.dstack([np.where(alpha > 0, straight, 0), arr[..., -1:]]).astype(np.uint16),
                         dict(img.info))
    out = Image.frombytes({"RGBA": "RGBa", "LA": "La"}[img.mode], img.size, img.tobytes()).convert(img.mode)
    out.info.update(img.info)
    return out


def write_tiff(fh: Any, arr: np.ndarray, *, exif: Any = None, icc_profile: bytes | None = None,
               dpi: Any = None, xmp: bytes | None = None, associated: bool = False) -> None:
    """Write an uncompressed TIFF from an (H, W, C) integer array: uint16 grey+alpha, RGB or
    RGBA, or grey (C = 1) of any integer type (a 16-bit or unsigned 32-bit grey image, which
    Pillow's writer would store as signed 32 bits).

    Pillow has no mode for 16-bit colour, so its writer cannot take one; the tags still go
    through Pillow's own directory writer, as its TIFFs' do (EXIF tags, with the EXIF and GPS
    directories nested, ICC profile, XMP, resolution).  An alpha channel is unassociated unless
    ``associated`` (the colours are multiplied by it)."""
    from PIL import TiffImagePlugin, TiffTags

    h, w, c = arr.shape
    ifd = TiffImagePlugin.ImageFileDirectory_v2(prefix=b"II")
    if exif is not None:
        if not isinstance(exif, Image.Exif):
            raw, exif = exif, Image.Exif()
            exif.load(raw)
        for key in exif:  # as Pillow's own TIFF writer takes them
            ifd[key] = exif.get_ifd(key) if key in TiffTags.TAGS_V2_GROUPS else exif.get(key)
    if dpi:  # the picture's own resolution, as Pillow's writer takes it, over EXIF's copy
        ifd[282], ifd[283], ifd[296] = float(dpi[0]), float(dpi[1]), 2  # per inch
    if icc_profile:
        ifd[34675] = bytes(icc_profile)
    if xmp:
        ifd[700] = bytes(xmp)
    size = arr.dtype.itemsize
    stride = w * c * size
    rows = max(1, min(h, TIFF_STRIP // max(stride, 1)))
    counts = [stride * min(rows, h - y) for y in range(0, h, rows)]
    ifd[256], ifd[257], ifd[258], ifd[259] = w, h, (8 * size,) * c, 1
    ifd[262] = 1 if c <= 2 else 2  # grey (black is zero) or RGB
    ifd[277], ifd[278], ifd[284] = c, rows, 1
    if arr.dtype.kind == "i":
        ifd[339] = (2,) * c  # signed integers
    if c in (2, 4):
        ifd[338] = (1,) if associated else (2,)  # the last channel is an alpha
    ifd.tagtype[273] = ifd.tagtype[279] = TiffTags.LONG
    ifd[279] = tuple(counts)
    ifd[273] = tuple(range(0, stride * h, stride * rows))  # from the pixels' start: Pillow adds it
    fh.write(b"II*\0" + struct.pack("<I", 8))
    fh.write(ifd.tobytes(8))
    fh.write(memoryview(np.ascontiguousarray(arr, arr.dtype.newbyteorder("<"))).cast("B"))  # (no copy as bytes)


def encode(img: Image.Image | DeepImage, fh: Any, fmt: str, options: dict | None = None) -> str | None:
    """Write ``img`` to ``fh`` as ``fmt``; a note when the format lost something.

    ``options`` are the plan's (:class:`inpaint.io.plan.OutputPlan`): ``exif`` (bytes or
    ``Image.Exif``), ``icc_profile``, ``xmp``, ``quality``, ``lossless`` (WebP), ``qtables``,
    ``subsampling`` and ``jpeg_segments`` (JPEG), ``png_chunks`` (PNG), ``comment`` (GIF).  PNG goes through
    :func:`write_png` where it can."""
    opts = dict(options or {})
    exif, icc, xmp = opts.get("exif"), opts.get("icc_profile"), opts.get("xmp")
    if exif is not None and not len(exif):
        exif = None
    dtype = opts.get("dtype")
    associated = bool(opts.get("associated")) and img.mode.split(";")[0] in ("RGBA", "LA")
    if associated and fmt != "TIFF":  # only a TIFF says its colours are multiplied by the alpha
        img = divided_by_alpha(img)
    img, note = convert_for(img, fmt, dtype)
    if associated and fmt == "TIFF":
        arr = img.array if isinstance(img, DeepImage) else np.asarray(img)
        write_tiff(fh, arr, exif=exif, icc_profile=icc, dpi=img.info.get("dpi"), xmp=xmp, associated=True)
        return note
    if fmt == "TIFF" and isinstance(img, Image.Image) and img.mode == "I" and dtype in _GREY_TYPES:
        # the file's own sample type, not Pillow's signed 32 bits; a filled value past its range
        # (a blend's) is clipped, the others are the file's
        info = np.iinfo(dtype)
        grey = np.clip(grey_values(img, dtype), info.min, info.max).astype(dtype)
        write_tiff(fh, grey[..., None], exif=exif, icc_profile=icc, dpi=img.info.get("dpi"), xmp=xmp)
        return note
    if isinstance(img, DeepImage) and fmt == "PNG":
        write_png(fh, img.array, exif=exif, icc_profile=icc, dpi=img.info.get("dpi"),
                  transparency=img.info.get("transparency"), xmp=xmp, chunks=opts.get("png_chunks", ()))
        return note
    if isinstance(img, DeepImage):
        write_tiff(fh, img.array, exif=exif, icc_profile=icc, dpi=img.info.get("dpi"), xmp=xmp)
        return note
    if fmt == "PNG" and img.mode in _PNG_MODES and ("transparency" not in img.info or img.mode in ("L", "RGB")):
        write_png(fh, np.asarray(img), exif=exif, icc_profile=icc or img.info.get("icc_profile"),
                  dpi=img.info.get("dpi"), transparency=img.info.get("transparency"), xmp=xmp,
                  chunks=opts.get("png_chunks", ()))
        return note
    can = holds(fmt)
    kwargs: dict[str, Any] = {}
    if exif is not None and can is not None and can.exif:
        kwargs["exif"] = exif.tobytes() if hasattr(exif, "tobytes") else exif
    if icc and can is not None and can.icc:
        kwargs["icc_profile"] = icc
    if xmp and can is not None and can.xmp:
        if fmt == "TIFF":  # Pillow's TIFF writer takes tiffinfo or exif, not both: XMP joins the tags
            tags = Image.Exif()
            if "exif" in kwargs:
                tags.load(kwargs["exif"])
            tags[700] = xmp
            kwargs["exif"] = tags
        elif fmt == "PNG":
            from PIL import PngImagePlugin

            info = PngImagePlugin.PngInfo()
            info.add_itxt("XML:com.adobe.xmp", xmp.decode("utf-8", "replace"))
            kwargs["pnginfo"] = info
        else:
            kwargs["xmp"] = xmp
    if img.info.get("dpi") and can is not None and can.dpi:  # Pillow's writers take it only as an option
        kwargs["dpi"] = img.info["dpi"]
    if fmt == "PNG" and opts.get("png_chunks"):
        from PIL import PngImagePlugin

        info = kwargs.setdefault("pnginfo", PngImagePlugin.PngInfo())
        for kind, data in opts["png_chunks"]:
            info.add(kind, data)
    if fmt == "JPEG" and opts.get("jpeg_segments"):
        kwargs["extra"] = b"".join(opts["jpeg_segments"])  # written as they are, after the encoder's own
    if fmt == "JPEG" and opts.get("qtables") and opts.get("quality") is None:
        kwargs["qtables"] = opts["qtables"]
    elif fmt in ("JPEG", "WEBP", "AVIF") and not opts.get("lossless"):
        kwargs["quality"] = int(opts.get("quality") or 95)
    if fmt == "JPEG" and opts.get("subsampling") is not None and img.mode == "RGB":
        kwargs["subsampling"] = opts["subsampling"]
    if fmt == "WEBP" and opts.get("lossless"):
        kwargs["lossless"] = True
        kwargs["exact"] = True  # keep the colour of fully transparent pixels too
    if fmt == "PNG":
        kwargs["compress_level"] = PNG_LEVEL
        if img.mode == "1" and isinstance(img.info.get("transparency"), int):
            # Pillow holds a 1-bit image's key as 0 or 255, and would write 255 in a 1-bit file
            kwargs["transparency"] = 1 if img.info["transparency"] else 0
    if fmt == "ICO":
        kwargs["sizes"] = [img.size]
    if fmt == "GIF" and opts.get("comment"):
        kwargs["comment"] = opts["comment"]
    if fmt == "GIF" and img.mode == "P":
        kwargs["optimize"] = False  # Pillow would drop the unused entries and renumber the palette's indices
    img.save(fh, format=fmt, **kwargs)
    return note
