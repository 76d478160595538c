"""Reading images: upright, with an 8-bit RGB view and the full-depth pixels (:class:`~inpaint.io.pictures.Picture`)."""

from __future__ import annotations

import os
import re
import stat
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from ..errors import ImageTooLarge, InputError, InputWarning
from ..wholefile import EXTRA_BYTES_PER_FILE_BYTE, opened_whole
from .memory import check_memory
from .naming import shown
from .pictures import Picture, Source
from .warnfilters import filtered, warn

_ORIENTATION = 0x0112
#: TIFF tags that describe a file's layout, not the picture: a TIFF's IFD0 (which Pillow gives as
#: its EXIF) holds them, and so do some cameras' EXIF blocks.  Written into another file they would
#: declare the old size, strips or planes; the writer makes its own.  The ICC profile (34675) and
#: XMP (700) are kept separately.
LAYOUT_TAGS = frozenset({
    254, 255, 256, 257, 258, 259, 262, 263, 264, 265, 266, 273, 277, 278, 279, 280, 281, 284, 288, 289, 290, 291,
    292, 293, 317, 318, 319, 320, 321, 322, 323, 324, 325, 330, 332, 338, 339, 340, 341, 347, 512, 513, 514, 515,
    517, 518, 519, 520, 521, 529, 530, 532, 700, 34675, 37724, 50838, 50839})
#: Layout tags that point at more than the picture's layout (a note says they are dropped).
_TIFF_EXTRAS = {330: "sub-images (SubIFDs: reduced copies, or a raw image)",
                37724: "Photoshop layers (ImageSourceData)"}
#: Grey modes wider than 8 bits: read through an 8-bit view, written back at full depth.
WIDE_GREY = ("I;16", "I;16B", "I;16L", "I", "F")


def _decoded_bytes(img: Image.Image) -> int:
    w, h = img.size
    bands = len(img.getbands())
    depth = 4 if img.mode in ("I", "F") else 2 if img.mode.startswith("I;16") else 1
    return w * h * bands * depth


# ---------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------

def _rawmode(tile: Any) -> str:
    args = tile.args if hasattr(tile, "args") else tile[3]
    raw = args if isinstance(args, str) else (args[0] if isinstance(args, tuple) and args else "")
    return raw if isinstance(raw, str) else ""


def wide_samples(img: Image.Image, tiles: list) -> bool:
    """Whether an image opened by :func:`open_image` (with its ``tiles``) holds more than 8 bits a
    channel: a wide grey mode, or 16-bit samples that Pillow decodes to 8 bits."""
    return img.mode in WIDE_GREY or any(";16" in _rawmode(t) for t in tiles)


def _swap_rawmode(raw: str) -> str:
    """The rawmode of the other byte order (libtiff hands Pillow its samples in the machine's own)."""
    native = "B" if sys.byteorder == "big" else "L"
    order = native if raw.endswith("N") else raw[-1]
    return raw[:-1] + ("L" if order == "B" else "B")


#: A TIFF's rawmodes for colours premultiplied by their alpha (an associated alpha), which Pillow
#: divides out as it decodes; and the stored values' rawmode, which keeps them as they are.
_ASSOCIATED = {"RGBa": "RGBA", "RGBa;16L": "RGBA;16L", "RGBa;16B": "RGBA;16B", "RGBa;16N": "RGBA;16N",
               "RGBaX": "RGBAX", "RGBaXX": "RGBAXX", "La": "LA"}


def keep_associated(img: Image.Image) -> bool:
    """Set a TIFF just opened (not loaded) whose alpha is associated to decode its values as stored,
    not divided by the alpha as Pillow would (which rounds every colour and, at 16 bits, mixes the
    two bytes of a sample); True where it did.  The picture then holds premultiplied colours, as
    the file does, and an output written as a TIFF stores them so again (``Source.associated``)."""
    if img.format != "TIFF" or not img.tile or not all(_rawmode(t) in _ASSOCIATED for t in img.tile):
        return False
    tiles = []
    for t in img.tile:
        args = t.args if hasattr(t, "args") else t[3]
        args = _ASSOCIATED[args] if isinstance(args, str) else (_ASSOCIATED[args[0]],) + tuple(args[1:])
        tiles.append(t._replace(args=args))
    img.tile = tiles
    if img.mode == "La":  # grey: Pillow names the premultiplied mode apart
        img._mode = "LA"
    return True


def check_name(path: str | os.PathLike[str], what: str) -> None:
    """Refuse a file name the system cannot open (a NUL character), and the text ``-``: the
    library reads and writes files only, not standard input and output.  A path object is a file's
    name even when it reads ``-`` (``Path('./-')``, the file named ``-``)."""
    name = os.fspath(path)
    if "\x00" in name:
        raise InputError(f"the {what} file name {name!r} is not valid: it holds a NUL character")
    if isinstance(path, str) and name == "-":
        raise InputError(f"'-' (standard input or output) is not supported for the {what}: give a file name "
                         "(./- for a file named '-')")


def file_limit(pixels: int) -> int:
    """The most bytes a file of an image of ``pixels`` pixels may need: 16 bytes a pixel (four
    float channels, uncompressed) and 1 MiB of headers and metadata."""
    return int(pixels) * 16 + (1 << 20)


def too_large(what: str, pixels: int | Exception | None) -> ImageTooLarge:
    """The error for an image of more than Pillow's pixel limit (``--max-pixels``); ``pixels``
    may be Pillow's error or warning, whose message quotes the count (and its error threshold,
    twice the limit: the message states the limit)."""
    if isinstance(pixels, Exception):
        found = re.search(r"\((\d+) pixels\)", str(pixels))
        pixels = int(found.group(1)) if found else None
    return ImageTooLarge(
        f"{what} is too large: {f'{pixels} pixels, ' if pixels else ''}more than the limit of "
        f"{Image.MAX_IMAGE_PIXELS} pixels (a guard against decompression bombs)")


def check_regular(path: str | os.PathLike[str], what: str, max_bytes: int | None = None) -> None:
    """Refuse, without opening it, anything but a regular file (a named pipe would block the read
    forever, a device like /dev/zero never ends), and a file larger than ``max_bytes``.

    Raises
    ------
    InputError
        Missing, a folder, not a regular file, too large, or a name the system refuses.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{what} {shown(path)} does not exist") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {what} {shown(path)}: {getattr(exc, 'strerror', None) or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{what} {shown(path)} is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        kind = "a named pipe" if stat.S_ISFIFO(st.st_mode) else "a device or socket"
        raise InputError(f"{what} {shown(path)} is {kind}, not a regular file; give a file")
    if max_bytes is not None and st.st_size > max_bytes:
        raise InputError(f"{what} {shown(path)} is {st.st_size} bytes, more than the {max_bytes} bytes it may have")


def open_image(path: str | os.PathLike[str], what: str, work_bytes_per_pixel: int = 0, max_bytes: int | None = None,
               decoded: tuple[Image.Image, list] | None = None,
               check: Callable[[Image.Image], None] | None = None) -> tuple[Image.Image, list]:
    """The first frame of ``path``, loaded; and its tiles (read before loading).  Only a regular
    file of at most ``max_bytes`` is opened (:func:`check_regular`).  ``decoded``: this file's
    single frame and tiles, opened and loaded already (see :func:`read_image`).  ``check``: called
    with the opened image before it is decoded (its header known, its pixels not), to refuse it
    by raising :class:`~inpaint.errors.InputError`."""
    p = Path(path)
    if str(path) == "":
        raise InputError(f"the {what} file name is empty")
    check_name(path, what)
    check_regular(p, what, max_bytes)
    limit = Image.MAX_IMAGE_PIXELS
    if decoded is not None and limit is not None and decoded[0].size[0] * decoded[0].size[1] > limit:
        decoded = None  # past the limit in force: opened again, to be refused as always
    img = None
    notes = []
    try:
        with filtered("error", Image.DecompressionBombWarning):
            img, tiles = decoded if decoded is not None else (Image.open(p), None)
            if tiles is None:
                tiles = list(getattr(img, "tile", []) or [])
            if check is not None:
                check(img)
            frames = int(getattr(img, "n_frames", 1) or 1)
            img.info["inpaint_frames"] = frames
            if frames > 1 and img.format != "MPO":  # (a phone's JPEG with its other pictures after its end)
                kind = "pages" if img.format in ("TIFF", "MPO", "PDF") else "frames"
                notes.append(f"{what} {shown(p)} has {frames} {kind}: only the first is used (the result has one)")
            need = _decoded_bytes(img) + img.size[0] * img.size[1] * work_bytes_per_pixel
            if decoded is None:  # the file's bytes, held while it decodes in one call
                need += EXTRA_BYTES_PER_FILE_BYTE * p.stat().st_size
            note = check_memory(need, f"{what} {shown(p)} ({img.size[0]}x{img.size[1]})")
            if note:
                notes.append(note)
            if decoded is None:
                img = opened_whole(p, img)
                img.info["inpaint_associated"] = keep_associated(img)
                img.load()
    except InputError:
        if img is not None:
            img.close()
        raise
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        if img is not None:
            img.close()
        raise too_large(f"{what} {shown(p)}", exc) from None
    except UnidentifiedImageError:
        if p.suffix.lower() in (".heic", ".heif"):  # a phone's photo: what to do instead
            raise InputError(f"{what} {shown(p)} is a HEIC photo, which this tool cannot read: export it as JPEG "
                             "(on an iPhone: Settings > Camera > Formats > Most Compatible) or PNG") from None
        raise InputError(f"{what} {shown(p)} is not an image this tool can read") from None
    except MemoryError:
        if img is not None:
            img.close()
        raise InputError(f"{what} {shown(p)} is too large for the memory available") from None
    except OSError as exc:
        if img is not None:
            img.close()  # a failed load left the file open (ResourceWarning)
        raise InputError(f"cannot read {what} {shown(p)}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - a hostile file can make a decoder raise anything
        if img is not None:
            img.close()
        raise InputError(f"cannot read {what} {shown(p)}: it is damaged or not a supported image "
                         f"({type(exc).__name__}: {exc})") from None
    if img.format == "TIFF" and 282 not in img.tag_v2:  # Pillow says 1 dpi for a TIFF without a resolution
        img.info.pop("dpi", None)
        img.info.pop("resolution", None)
    if img.format == "JPEG" and "dpi" in img.info and img.info.get("jfif_unit") not in (1, 2):
        try:  # without a JFIF resolution Pillow takes EXIF's, or says 72 dpi where EXIF has none
            invented = 0x011A not in img.getexif()
        except Exception:  # noqa: BLE001 - damaged EXIF: the 72 dpi is Pillow's own too
            invented = True
        if invented:
            img.info.pop("dpi", None)
    if frames > 1 or getattr(img, "fp", None) is not None or img.format == "GIF":
        # multi-frame files keep their file open to seek frames (a GIF of one frame too, once its
        # frames are counted): keep the first frame, close the file
        first = img.copy()
        first.info.update(img.info)
        first.format = img.format  # what the file is decides how its result is written
        if img.format == "MPO":  # a JPEG, its other pictures (previews, a gain map) after its end
            from PIL import JpegImagePlugin

            first.format = "JPEG"
            first.quantization = getattr(img, "quantization", None)  # what its JPEG source reads
            first.info["inpaint_sampling"] = JpegImagePlugin.get_sampling(img)
        _carry_tiff_tags(img, first)
        img.close()
        img = first
    for note in notes:
        warn(InputWarning(note), stacklevel=3)
    return img, tiles


def _carry_tiff_tags(img: Image.Image, copy: Image.Image) -> None:
    """Give ``copy`` of a TIFF's page the page's EXIF tags (with its EXIF and GPS directories) and
    XMP, which a copy's :meth:`~PIL.Image.Image.getexif` no longer reads from the file."""
    if not hasattr(img, "tag_v2"):
        return
    try:
        exif = img.getexif()
        for ifd in (0x8769, 0x8825):
            exif.get_ifd(ifd)
        exif = real_exif(exif)
        if len(exif):
            copy.info["exif"] = exif.tobytes()
    except Exception:  # noqa: BLE001 - damaged tags: the pixels were read; keep none, as for one page
        pass
    if 700 in img.tag_v2 and "xmp" not in copy.info:
        copy.info["xmp"] = img.tag_v2[700]


def _low_bytes(path: Path, tiles: list) -> Image.Image | None:
    """The low bytes of a 16-bit-per-channel image Pillow decoded to 8 bits (its high bytes).

    Decoding the same data again with the opposite byte order makes Pillow keep the other
    byte.  Only for uncompressed, PNG and libtiff data (``raw``, ``zip`` and ``libtiff`` decoders:
    a TIFF compressed with LZW or deflate)."""
    try:
        with opened_whole(path, Image.open(path)) as img:
            keep_associated(img)
            img.tile = [t._replace(args=(_swap_rawmode(t.args) if isinstance(t.args, str)
                                         else (_swap_rawmode(t.args[0]),) + tuple(t.args[1:])))
                        for t in img.tile]
            img.load()
            return img.copy()
    except Exception:  # noqa: BLE001 - fall back to 8 bits with a warning
        return None


def _grey_alpha16(path: Path) -> np.ndarray | None:
    """The 16-bit grey+alpha pixels of a PNG (which Pillow reads as 8-bit RGBA).

    Decoded as 8-bit RGBA: both have four bytes per pixel, so PNG's filters undo the same way
    and each pixel comes out as the bytes grey-high, grey-low, alpha-high, alpha-low."""
    try:
        with opened_whole(path, Image.open(path)) as img:
            img.tile = [t._replace(args=("RGBA",) + (tuple(t.args[1:]) if isinstance(t.args, tuple) else ()))
                        for t in img.tile]
            img.load()
            raw = np.asarray(img).astype(np.uint16)
    except Exception:  # noqa: BLE001 - fall back to 8 bits with a warning
        return None
    return np.stack([(raw[..., 0] << 8) | raw[..., 1], (raw[..., 2] << 8) | raw[..., 3]], axis=2)


def _ppm16(path: Path, img: Image.Image, tiles: list) -> np.ndarray | None:
    """The 16-bit pixels of a binary colour PPM whose maximum value is over 255 (which Pillow
    scales to 8 bits), scaled to 0..65535; None for any other file or one not read."""
    if img.format != "PPM" or img.mode != "RGB" or len(tiles) != 1:
        return None
    tile = tiles[0]
    args = tile.args if hasattr(tile, "args") else tile[3]
    if getattr(tile, "codec_name", tile[0]) != "ppm" or not isinstance(args, tuple) or len(args) < 2 \
            or not isinstance(args[1], int) or not 255 < args[1] <= 65535:
        return None
    maxval, offset = args[1], tile.offset if hasattr(tile, "offset") else tile[2]
    w, h = img.size
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            raw = np.frombuffer(fh.read(w * h * 6), ">u2")
    except OSError:
        return None
    if raw.size != w * h * 3:
        return None
    wide = np.minimum(raw.reshape(h, w, 3), maxval).astype(np.uint16)
    if maxval != 65535:  # as Pillow scales to 8 bits: the full range, one to one
        wide = np.rint(wide.astype(np.float64) * (65535 / maxval)).astype(np.uint16)
    return wide


def _deep(path: Path, img: Image.Image, tiles: list) -> tuple[np.ndarray | None, str | None]:
    """Full-depth pixels of a 16-bit colour image (or None), and a warning if they are lost."""
    raws = [_rawmode(t) for t in tiles]
    lost = (f"image {shown(path)} has 16 bits per channel, which Pillow reads as 8 bits here: "
            "the result is reduced to 8 bits per channel")
    ppm = _ppm16(path, img, tiles)
    if ppm is not None:
        return ppm, None
    if img.mode in WIDE_GREY or not raws or not all(";16" in r for r in raws):
        return None, None
    if img.mode not in ("RGB", "RGBA", "LA"):  # e.g. 16-bit CMYK: Pillow keeps 8 bits of it
        return None, lost
    codecs = {getattr(t, "codec_name", t[0]) for t in tiles}
    if not codecs <= {"zip", "raw", "libtiff"} or not all(r.endswith(("16B", "16L", "16N")) for r in raws):
        return None, lost
    if all(r == "LA;16B" for r in raws) and codecs == {"zip"}:
        wide = _grey_alpha16(path)
        if wide is None or wide.shape[:2] != (img.size[1], img.size[0]):
            return None, lost
        return wide, None
    low = _low_bytes(path, tiles)
    if low is None or low.mode != img.mode or low.size != img.size:
        return None, lost
    wide = (np.asarray(img).astype(np.uint16) << 8) | np.asarray(low).astype(np.uint16)
    if wide.ndim == 2:  # pragma: no cover - LA always has two channels
        wide = wide[..., None]
    return wide, None


#: A float image whose values reach at most this is one of 0..1 (a little over 1 is light beyond
#: white, as an editor's float export holds): read as 0..1, not as a nearly black 0..255 image.
FLOAT_UNIT_MOST = 2.0


def float_scale(arr: np.ndarray) -> float:
    """Value units per 8-bit step of a float or integer grey image: 1/255 for float values in 0..1
    (up to :data:`FLOAT_UNIT_MOST`), else as for integers (:func:`int_scale`)."""
    finite = arr[np.isfinite(arr)] if arr.dtype.kind == "f" else arr
    hi = float(finite.max(initial=0))
    if arr.dtype.kind == "f" and hi <= FLOAT_UNIT_MOST:
        return 1.0 / 255.0
    if arr.dtype.kind == "f":
        return 1.0 if hi <= 255 else 257.0
    return int_scale(int(hi))


def int_scale(hi: int) -> float:
    """Value units per 8-bit step of integer samples whose largest is ``hi``: the view is the high
    byte of the bits the values use (12-bit data in a 16-bit file is seen at full contrast, not
    as 16 levels of near black): 1 up to 255, 257 from 32768 on (the 16-bit high byte), and
    ``2 ** (bits - 8)`` between."""
    if hi <= 255:
        return 1.0
    bits = int(hi).bit_length()
    return 257.0 if bits >= 16 else float(1 << (bits - 8))


def _int_view8(wide: np.ndarray, scale: float) -> np.ndarray:
    """The 8-bit view of integer samples at ``scale`` (:func:`int_scale`)."""
    if scale == 1.0:
        return np.clip(wide, 0, 255).astype(np.uint8)
    if scale == 257.0:
        return (np.clip(wide, 0, 65535) >> 8).astype(np.uint8)
    return np.minimum(np.clip(wide, 0, None) >> (int(scale).bit_length() - 1), 255).astype(np.uint8)


def wide_view(wide: np.ndarray) -> tuple[np.ndarray, float]:
    """The (H, W, 3) uint8 view of 16-bit colour or grey+alpha samples ``wide`` (H, W, C), and its
    scale (:func:`int_scale` of the colour channels' largest value)."""
    colour = wide[..., :3] if wide.shape[2] >= 3 else wide[..., :1]
    scale = int_scale(int(colour.max(initial=0)))
    view = _int_view8(colour, scale)
    return (view if view.shape[2] == 3 else np.repeat(view, 3, axis=2)), scale


def grey_view8(img: Image.Image) -> np.ndarray:
    """The (H, W) uint8 view of a wide grey image (a mode of :data:`WIDE_GREY`: 16-bit, 32-bit
    or float), as the fill sees it: 16 bits by their high byte, 32-bit and float values by their
    range (:func:`float_scale`).  Pillow's ``convert('L')`` clips them instead."""
    arr = np.asarray(img)
    return _view8(arr, img.mode, float_scale(arr))


def _view8(arr: np.ndarray, mode: str, scale: float) -> np.ndarray:
    """The 8-bit grey view of a 16-bit, 32-bit or float grey image."""
    if mode == "F":
        grey = np.clip(np.rint(np.nan_to_num(arr.astype(np.float64) / scale, nan=0.0, posinf=255, neginf=0)),
                       0, 255).astype(np.uint8)
    else:
        grey = _int_view8(arr.astype(np.int64), scale)
    return grey


#: EXIF orientation -> the array transform that makes stored pixels upright (as exif_transpose).
_ORIENT = {
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1],
    5: lambda a: a.swapaxes(0, 1),
    6: lambda a: np.rot90(a, -1),
    7: lambda a: a.swapaxes(0, 1)[::-1, ::-1],
    8: lambda a: np.rot90(a, 1),
}


#: The EXIF orientations that turn a picture (1 and others leave it as stored).
_TURNS = frozenset(range(2, 9))


def upright_size_of(img: Image.Image) -> tuple[int, int]:
    """The (width, height) ``img`` has once :func:`upright` turns it, read from its header and EXIF
    alone (nothing decoded)."""
    try:
        turned = img.getexif().get(_ORIENTATION, 1) in (5, 6, 7, 8)
    except Exception:  # noqa: BLE001 - a damaged EXIF block: kept as stored
        turned = False
    return (img.size[1], img.size[0]) if turned else img.size


def upright(img: Image.Image) -> Image.Image:
    """``img`` turned upright by its EXIF orientation (as stored when the EXIF block is damaged);
    ``img`` itself when it is upright (Pillow's ``exif_transpose`` would copy it)."""
    try:
        up = ImageOps.exif_transpose(img) if img.getexif().get(_ORIENTATION, 1) in _TURNS else img
    except Exception:  # noqa: BLE001 - a damaged EXIF block: keep the stored orientation
        return img
    return img if up is None else up


def _tiff_layout(path: Path) -> tuple[int, int, int] | None:
    """``(planar configuration, bits per sample, samples per pixel)`` of a TIFF's first page,
    read from its header (classic or BigTIFF); None for any other file or a header not read."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
            if head[:2] not in (b"II", b"MM"):
                return None
            end = "<" if head[:2] == b"II" else ">"
            magic = struct.unpack(end + "H", head[2:4])[0]
            if magic == 42:
                count_fmt, entry_size, value_fmt, at = "H", 12, "I", struct.unpack(end + "I", head[4:8])[0]
            elif magic == 43:
                count_fmt, entry_size, value_fmt, at = "Q", 20, "Q", struct.unpack(end + "Q", head[8:16])[0]
            else:
                return None
            fh.seek(at)
            size = struct.calcsize(count_fmt)
            count = struct.unpack(end + count_fmt, fh.read(size))[0]
            if count > 4096:
                return None
            table = fh.read(count * entry_size)
            tags = {}
            for i in range(count):
                entry = table[i * entry_size:(i + 1) * entry_size]
                tag, kind = struct.unpack(end + "HH", entry[:4])
                inline = entry[4 + struct.calcsize(value_fmt):]
                if kind == 3:  # SHORT: the first value, stored inline or at an offset
                    n = struct.unpack(end + value_fmt, entry[4:4 + struct.calcsize(value_fmt)])[0]
                    if n * 2 > len(inline):
                        fh.seek(struct.unpack(end + value_fmt, inline)[0])
                        inline = fh.read(2)
                    tags[tag] = struct.unpack(end + "H", inline[:2])[0]
        return tags.get(284, 1), tags.get(258, 1), tags.get(277, 1)
    except (OSError, struct.error):
        return None


def _separate_planes(p: Path) -> Picture | None:
    """A TIFF Pillow cannot decode, read with tifffile: colour planes stored apart at more than
    8 bits (Pillow decodes them as noise, or not at all) and 16-bit grey with an unassociated
    alpha (which Pillow cannot open); None for any other file."""
    layout = _tiff_layout(p)
    if layout is None:
        return None
    planar, bits, samples = layout
    apart = planar == 2 and bits > 8 and samples in (2, 3, 4)
    if not apart and not (bits == 16 and samples == 2):
        return None
    try:
        import tifffile
    except ImportError:
        what = f"{bits}-bit colour planes stored apart" if apart else "16-bit grey and alpha"
        raise InputError(f"image {shown(p)} is a TIFF with {what}, which Pillow cannot read correctly; install "
                         "tifffile (pip install tifffile) to read it"
                         + (", or save it with interleaved (contiguous) planes" if apart else "")) from None
    try:
        with tifffile.TiffFile(p) as tif:
            page = tif.pages[0]
            if samples == 2 and (int(page.photometric) != 1 or tuple(int(e) for e in page.extrasamples) != (2,)):
                return None  # not grey + unassociated alpha: Pillow's reading (or refusal) stands
            arr = page.asarray()
            axes = page.axes
            associated = tuple(int(e) for e in page.extrasamples)[:1] == (1,)
    except Exception as exc:  # noqa: BLE001 - a damaged file can make the decoder raise anything
        raise InputError(f"cannot read image {shown(p)}: it is damaged ({type(exc).__name__}: {exc})") from None
    if axes.startswith("S"):  # (samples, rows, columns): interleave them
        arr = np.moveaxis(arr, 0, -1)
    if arr.ndim != 3 or arr.dtype != np.uint16:
        raise InputError(f"image {shown(p)} is a TIFF with colour planes stored apart as {arr.dtype} {axes}, "
                         "which cannot be read here; save it with interleaved planes")
    exif, icc, source, dpi = _metadata(p)
    source.associated = associated and arr.shape[2] >= 4
    wide = np.ascontiguousarray(_ORIENT.get(source.orientation, lambda a: a)(arr[..., :4]))
    if source.orientation in _TURNS and source.xmp:  # written upright: the XMP's orientation is 1 too
        source.xmp = _xmp_upright(source.xmp)
    if _ORIENTATION in exif:
        exif[_ORIENTATION] = 1
    rgb, scale = wide_view(wide)
    image = Image.fromarray(rgb)
    if dpi:
        image.info["dpi"] = dpi
    return Picture(rgb=rgb, image=image, exif=exif, icc_profile=icc, path=p, wide=wide,
                   scale=scale, source=source)


def _metadata(p: Path) -> tuple[Image.Exif, bytes | None, Source, tuple[float, float] | None]:
    """A TIFF's EXIF (its EXIF and GPS IFDs read in), ICC profile, what else it holds and its
    resolution in dots per inch, read without decoding its pixels (for a file whose pixels
    another reader decodes).  A file Pillow cannot open has its tags read as an EXIF block."""
    try:
        with Image.open(p) as img:
            exif = img.getexif()
            for ifd in (0x8769, 0x8825):  # as read_image does
                exif.get_ifd(ifd)
            dpi = img.info.get("dpi") if 282 in img.tag_v2 else None
            exif = real_exif(exif)
            return exif, img.info.get("icc_profile"), _source(p, img, exif), dpi
    except UnidentifiedImageError:
        pass
    except Exception:  # noqa: BLE001 - damaged metadata: the pixels are read all the same
        return Image.Exif(), None, Source(format="TIFF"), None
    try:  # a TIFF's first directory is laid out as an EXIF block is: Pillow reads its tags so
        exif = Image.Exif()
        exif.load(p.read_bytes())
        for ifd in (0x8769, 0x8825):
            exif.get_ifd(ifd)
        icc, xmp = exif.get(34675), exif.get(700)
        dpi = None
        if 282 in exif:
            per = 2.54 if exif.get(296, 2) == 3 else 1.0  # per centimetre
            dpi = (float(exif[282]) * per, float(exif.get(283, exif[282])) * per)
        orientation = _orientation(exif)
        exif = real_exif(exif)
        source = Source(format="TIFF", xmp=bytes(xmp) if isinstance(xmp, (bytes, bytearray)) and xmp else None,
                        orientation=orientation)
        return exif, bytes(icc) if isinstance(icc, (bytes, bytearray)) else None, source, dpi
    except Exception:  # noqa: BLE001 - damaged metadata: the pixels are read all the same
        return Image.Exif(), None, Source(format="TIFF"), None


def read_image(path: str | os.PathLike[str], *, work_bytes_per_pixel: int = 0,
               decoded: tuple[Image.Image, list] | None = None) -> Picture:
    """Read an image, upright, with its 8-bit RGB view and its full-depth pixels.

    Parameters
    ----------
    path : path-like
    work_bytes_per_pixel : int
        Memory the caller's job needs per pixel; the image is refused before it is decoded
        when the decoded image and the job do not fit in the available memory.
    decoded : (PIL.Image.Image, list), optional
        The file's single frame, opened and loaded already, and its tiles as read before
        loading (a command decodes its photo while it starts): every check is made as for a
        file opened here, and a picture past the pixel limit in force is opened again.

    Raises
    ------
    InputError
        Missing, unreadable, damaged, not an image, larger than Pillow's decompression-bomb
        limit, or too large for the memory.

    Warns
    -----
    InputWarning
        A multi-frame file (only the first frame is used); a 16-bit colour image that can
        only be read with 8 bits per channel.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(f"the image must be a file name (str or path), got {path!r}")
    if isinstance(work_bytes_per_pixel, bool) or not isinstance(work_bytes_per_pixel, (int, np.integer)) \
            or work_bytes_per_pixel < 0:
        raise InputError(f"work_bytes_per_pixel must be an integer >= 0, got {work_bytes_per_pixel!r}")
    p = Path(path)
    if str(path) != "":
        check_name(path, "image")
        check_regular(p, "image")
        planes = _separate_planes(p)
        if planes is not None:
            return planes
    img, tiles = open_image(p, "image", work_bytes_per_pixel, decoded=decoded)
    frames = int(img.info.pop("inpaint_frames", 1))
    try:
        exif = img.getexif()
        for ifd in (0x8769, 0x8825):  # the EXIF and GPS IFDs, read now from the open file
            exif.get_ifd(ifd)
    except Exception:  # noqa: BLE001 - damaged EXIF: keep none
        exif = Image.Exif()
    icc = img.info.get("icc_profile")
    extra = [words for tag, words in _TIFF_EXTRAS.items() if img.format == "TIFF" and tag in exif]
    exif = real_exif(exif)
    source = _source(p, img, exif)
    source.dropped += [f"the TIFF's {words} were dropped" for words in extra]
    source.dtype = _sample_dtype(img, tiles)
    source.associated = bool(img.info.pop("inpaint_associated", False))
    _scale_grey_key(img, tiles)
    wide, lost = _deep(p, img, tiles)
    if lost:
        warn(InputWarning(lost))
    turned = upright(img)
    if turned is not img and source.xmp:  # written upright: the XMP's orientation is 1 too
        source.xmp = _xmp_upright(source.xmp)
    if wide is not None and turned is not img:
        wide = _ORIENT.get(exif.get(_ORIENTATION, 1), lambda a: a)(wide)
        if wide.shape[:2] != (turned.size[1], turned.size[0]):  # pragma: no cover - defensive
            warn(InputWarning(f"image {shown(p)}: the 16-bit pixels could not be turned upright; "
                                       "the result has 8 bits per channel"))
            wide = None
    if _ORIENTATION in exif:
        exif[_ORIENTATION] = 1
    mode = turned.mode
    scale = 1.0
    if wide is not None:
        rgb, scale = wide_view(wide)
    elif mode in WIDE_GREY:
        arr = np.asarray(turned)
        if source.dtype == "uint32":  # Pillow's signed 32 bits hold the file's unsigned values
            arr = arr.view(np.uint32)
        scale = float_scale(arr)
        rgb = np.repeat(_view8(arr, mode, scale)[..., None], 3, axis=2)
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            warn(InputWarning(f"image {shown(p)} holds {int(np.isnan(arr).sum())} NaN values (not a number): the fill "
                              "sees them as black, and may copy them into the hole"))
    else:
        try:
            # an RGB picture is copied once, straight from Pillow (a conversion would copy it twice more)
            if mode == "P" and isinstance(turned.info.get("transparency"), bytes):
                # an alpha per palette entry: by way of RGBA, which Pillow converts without a warning
                rgb = np.ascontiguousarray(np.asarray(turned.convert("RGBA"), dtype=np.uint8)[..., :3])
            else:
                rgb = np.array(turned if mode == "RGB" else turned.convert("RGB"), dtype=np.uint8)
        except MemoryError:
            raise InputError(f"image {shown(p)} is too large for the memory available") from None
        except Exception as exc:  # noqa: BLE001 - a mode Pillow cannot convert
            raise InputError(f"image {shown(p)} has pixel mode {mode}, which cannot be converted to RGB "
                             f"({exc})") from None
    return Picture(rgb=rgb, image=turned, exif=exif, icc_profile=icc, path=p, wide=wide, scale=scale,
                   frames=frames, source=source)


#: Pillow's rawmodes of 16- and 32-bit grey read into mode ``I``: bits, byte order, signed.
_GREY_RAW = re.compile(r"I;(16|32)([BLN]?)(S?)")
#: The file's grey sample type by (bits, signed), where Pillow's mode ``I`` (signed 32 bits) is
#: not it.
_GREY_DTYPE = {("16", ""): "uint16", ("16", "S"): "int16", ("32", ""): "uint32"}


def _sample_dtype(img: Image.Image, tiles: list) -> str | None:
    """The file's grey sample type (:attr:`Source.dtype`) of an image Pillow reads as mode ``I``."""
    if img.mode != "I" or not tiles:
        return None
    found = {_GREY_RAW.fullmatch(_rawmode(t)) for t in tiles}
    kinds = {(m.group(1), m.group(3)) if m else None for m in found}
    return _GREY_DTYPE.get(kinds.pop()) if len(kinds) == 1 else None


def _scale_grey_key(img: Image.Image, tiles: list) -> None:
    """Scale the colour key of a 2- or 4-bit grey PNG as Pillow scales its pixels to 8 bits:
    Pillow leaves the key in the file's units, where it matches the wrong grey or none."""
    key = img.info.get("transparency")
    if img.format != "PNG" or img.mode != "L" or not isinstance(key, int) or not tiles:
        return
    raws = {_rawmode(t) for t in tiles}
    if len(raws) == 1 and (raw := raws.pop()) in ("L;2", "L;4"):
        top = (1 << int(raw[2])) - 1
        if key <= top:  # (a key out of the file's range matches no pixel: left so)
            img.info["transparency"] = key * (255 // top)


def real_exif(exif: Image.Exif) -> Image.Exif:
    """``exif`` without the TIFF layout tags (:data:`LAYOUT_TAGS`): only the picture's own data.

    A BigTIFF's tags are moved into a classic EXIF block: Pillow writes EXIF as a classic TIFF
    header, and a BigTIFF's would fail the write after the work."""
    if getattr(exif, "bigtiff", False):
        classic = Image.Exif()
        for tag, value in exif.items():
            classic[tag] = value
        for ifd in (0x8769, 0x8825, 0xA005):  # the EXIF, GPS and interoperability IFDs
            inner = dict(exif.get_ifd(ifd))
            if inner:
                classic[ifd] = inner
        exif = classic
    for tag in LAYOUT_TAGS & set(exif.keys()):
        del exif[tag]
    if str(exif.get(270, "")).startswith('{"shape":'):  # tifffile's description of its array layout
        del exif[270]
    return exif


def _webp_lossless(path: Path) -> bool | None:
    """Whether a WebP file holds lossless (VP8L) image data; None if it cannot be told."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(12)
            if head[:4] != b"RIFF" or head[8:12] != b"WEBP":
                return None
            while True:
                chunk = fh.read(8)
                if len(chunk) < 8:
                    return None
                kind, size = chunk[:4], int.from_bytes(chunk[4:], "little")
                if kind in (b"VP8L", b"VP8 "):
                    return kind == b"VP8L"
                fh.seek(size + (size & 1), os.SEEK_CUR)
    except OSError:
        return None


#: The PNG chunks an output keeps as they are: text, gamma, chromaticity, sRGB intent and
#: significant bits (the others are the picture's own, or written from the plan: iCCP, eXIf, pHYs,
#: tRNS, and the XMP iTXt).
_PNG_KEPT = (b"tEXt", b"zTXt", b"iTXt", b"gAMA", b"cHRM", b"sRGB", b"sBIT")


#: A PNG's chunks that the picture itself carries (its pixels, palette, key, EXIF, profile and
#: resolution), that a note of their own names (a background colour, an animation's frames), or
#: that the edit makes stale (the time of the last change).
_PNG_CARRIED = {b"IHDR", b"PLTE", b"tRNS", b"IDAT", b"IEND", b"eXIf", b"iCCP", b"pHYs", b"bKGD", b"acTL", b"fcTL",
                b"fdAT", b"tIME"}


def _png_chunks(path: Path, lost: list[str] | None = None) -> list[tuple[bytes, bytes]]:
    """The chunks of :data:`_PNG_KEPT` in a PNG file, as ``(type, data)`` in file order; what no
    output keeps (a background colour, an aspect ratio without a unit) is added to ``lost``."""
    found: list[tuple[bytes, bytes]] = []
    others: list[bytes] = []  # chunks nothing carries, named in one note
    lost = [] if lost is None else lost
    try:
        with open(path, "rb") as fh:
            if fh.read(8) != b"\x89PNG\r\n\x1a\n":
                return found
            while True:
                head = fh.read(8)
                if len(head) < 8:
                    break
                size, kind = struct.unpack(">I", head[:4])[0], head[4:]
                if kind == b"IEND":
                    break
                if kind == b"bKGD":
                    lost.append("the PNG's background colour (bKGD) was dropped")
                elif kind == b"pHYs" and size == 9:
                    phys = fh.read(9)
                    fh.seek(-9, os.SEEK_CUR)
                    if phys[8] == 0 and phys[:4] != phys[4:8]:  # (Pillow reads only a unit of metres)
                        lost.append("the PNG's pixel aspect ratio (pHYs without a unit) was dropped")
                if kind in _PNG_KEPT:  # (text may follow the picture data too: its chunks are skipped over)
                    data = fh.read(size)
                    if kind != b"iTXt" or not data.startswith(b"XML:com.adobe.xmp\x00"):
                        found.append((kind, data))
                    fh.seek(4, os.SEEK_CUR)
                else:
                    if kind not in _PNG_CARRIED and kind not in others:
                        others.append(kind)
                    fh.seek(size + 4, os.SEEK_CUR)
    except (OSError, struct.error):
        pass
    if others:
        names = ", ".join(k.decode("latin-1") for k in others)
        lost.append(f"the PNG's other chunks ({names}) were dropped")
    return found


def _xmp_upright(xmp: bytes) -> bytes:
    """``xmp`` with its ``tiff:Orientation`` (as an attribute or an element) set to 1."""
    xmp = re.sub(rb'tiff:Orientation=(["\'])\d\1', rb'tiff:Orientation=\g<1>1\g<1>', xmp)
    return re.sub(rb"<tiff:Orientation>\s*\d\s*</tiff:Orientation>", b"<tiff:Orientation>1</tiff:Orientation>", xmp)


def _orientation(exif: Image.Exif) -> int:
    """The EXIF orientation, 1 to 8 (1 where absent or damaged)."""
    try:
        orientation = int(exif.get(_ORIENTATION, 1) or 1)
    except (TypeError, ValueError):
        return 1
    return orientation if orientation in range(1, 9) else 1


def file_stamp(path: str | os.PathLike[str]) -> tuple | None:
    """What tells a file from another one written in its place: (device, inode, size,
    modification time in ns); None where it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _source(path: Path, img: Image.Image, exif: Image.Exif) -> Source:
    """What the file holds beyond its pixels (read before ``exif``'s orientation is reset)."""
    xmp = img.info.get("xmp") or img.info.get("XML:com.adobe.xmp")
    if xmp is None and img.format == "TIFF":
        xmp = getattr(img, "tag_v2", {}).get(700)
    if isinstance(xmp, str):
        xmp = xmp.encode("utf-8")
    src = Source(format=img.format, xmp=bytes(xmp) if xmp else None, orientation=_orientation(exif))
    if img.format == "WEBP":
        src.lossless = _webp_lossless(path)
    elif img.format == "JPEG":
        from PIL import JpegImagePlugin

        src.stamp = file_stamp(path)

        src.qtables = getattr(img, "quantization", None) or None
        sampling = img.info.pop("inpaint_sampling", None)  # (an MPO's first picture, read apart)
        src.subsampling = -1 if img.mode == "CMYK" else sampling if sampling is not None else \
            JpegImagePlugin.get_sampling(img)
        src.progressive = bool(img.info.get("progressive") or img.info.get("progression"))
        from .jpeg_edit import extra_segments, jpeg_end

        try:
            data = path.read_bytes()
            src.trailer = len(data) - jpeg_end(data)
            src.segments = extra_segments(data)
        except (OSError, ValueError):  # a damaged header: the pixels were read; keep what is known
            pass
    elif img.format == "PNG":
        src.png_chunks = _png_chunks(path, src.dropped)
    elif img.format == "ICO" and len(img.info.get("sizes") or ()) > 1:
        others = sorted(set(img.info["sizes"]) - {img.size})
        src.dropped.append("the ICO's other sizes (" + ", ".join(f"{w}x{h}" for w, h in others)
                           + ") were dropped: only the largest is used")
    elif img.format == "TIFF" and img.mode == "RGB" and 0 in tuple(getattr(img, "tag_v2", {}).get(338, ()) or ()):
        src.dropped.append("the TIFF's extra channel (of unspecified use) was dropped")
    elif img.format == "GIF" and img.info.get("comment"):
        comment = img.info["comment"]
        src.comment = comment.encode("utf-8") if isinstance(comment, str) else bytes(comment)
    return src
