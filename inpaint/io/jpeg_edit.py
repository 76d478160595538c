"""JPEG written back without loss outside the fill: only the blocks the fill touches are encoded again.

A JPEG stores its picture as quantised DCT coefficients, in MCUs (8x8 to 32x8 pixels, by the
chroma subsampling).  Decoding and encoding again changes every pixel a little.  Here the input's
coefficients are copied as they are, and only the MCUs that hold a filled pixel get new ones,
encoded from the result with the input's own quantisation tables and subsampling (of their
luma blocks, only those holding a filled pixel); markers (EXIF, ICC, XMP...) are kept byte for
byte but for the copies of the picture as it was (:mod:`inpaint.io.previews`: a thumbnail, a
preview; the data after the end, a motion photo's video, goes too), and the file keeps its
stored orientation.  (The
edges of the untouched MCUs next to new ones can decode one pixel differently where chroma is
subsampled: decoders interpolate chroma across MCU borders.)  A result without a changed pixel
is the input file itself.

The input is read once, before the work (:func:`read_header`, which also says whether it can be
edited this way); only the box of whole MCUs around the changed pixels is taken from the result.

DCT access is through ``jpeglib`` (optional: ``pip install inpaint-cl[jpeg]``); without it, or for a
JPEG it cannot edit this way, the output is encoded again (see :mod:`inpaint.io.plan`).
"""

from __future__ import annotations

import contextlib
import copy
import os
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from .. import install_hint
from ..errors import InpaintError, InputWarning
from .naming import shown
from .previews import clean_segments

#: The transform from an upright array back to the stored one, per EXIF orientation (the inverse
#: of :data:`inpaint.io.read._ORIENT`).
STORED = {
    1: lambda a: a,
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1],
    5: lambda a: a.swapaxes(0, 1),
    6: lambda a: np.rot90(a, 1),
    7: lambda a: a[::-1, ::-1].swapaxes(0, 1),
    8: lambda a: np.rot90(a, -1),
}

#: The libjpeg build of jpeglib that reads and writes the coefficients (libjpeg-turbo 2.1: the
#: same files as libjpeg 6b, read and written about a fifth faster).  It writes sequential files
#: with optimised Huffman tables: a progressive input comes out sequential, with the same
#: coefficients, 2-4 % larger (mozjpeg's progressive writer matches the size but takes about
#: three times as long).
_LIBJPEG = "turbo210"
#: jpeglib's choice of libjpeg build is process-wide: one read or edit at a time.
_LOCK = threading.Lock()

class CannotEdit(InpaintError, ValueError):
    """A JPEG that cannot be edited block by block; the message says why, in a user's words."""


#: (file, message) of the libjpeg warnings already told in this process: reading a file's
#: coefficients again (for the edit) repeats them.
_TOLD: set[tuple[str, str]] = set()


@contextlib.contextmanager
def _libjpeg_warnings(path: Any) -> Iterator[dict]:
    """libjpeg prints its warnings about a damaged file (``Corrupt JPEG data: ...``) on the
    process's standard error itself.  They are caught there and told once, as one warning of
    ours; anything else written there meanwhile (another thread's message) is put back.  The
    dict yielded takes ``quiet=True`` when the work failed in a way the caller reports itself."""
    outcome = {"quiet": False}
    try:
        sys.stderr.flush()
        caught = tempfile.TemporaryFile()  # (unlinked at once: nothing to leave behind)
    except (OSError, ValueError, AttributeError):  # no standard error, or no room to catch it
        yield outcome
        return
    try:
        saved = os.dup(2)
    except OSError:  # not a real file
        caught.close()
        yield outcome
        return
    with caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield outcome
        except BaseException:
            outcome["quiet"] = True  # the error says it all: libjpeg's lines about it are not told again
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            _tell(caught.read().decode("utf-8", "replace"), path, outcome["quiet"])


def _tell(text: str, path: Any, quiet: bool) -> None:
    """libjpeg's lines as warnings (once per file and text); our own lines put back."""
    others = []
    for line in text.splitlines():
        if line.startswith("inpaint"):  # our own messages from another thread
            others.append(line)
        elif quiet or line.startswith("Too many markers"):
            continue  # jpeglib keeps 50 markers of a kind; every one is copied from the file's bytes here
        elif line.strip() and (str(path), line.strip()) not in _TOLD:
            _TOLD.add((str(path), line.strip()))
            warnings.warn(InputWarning(f"image {shown(Path(path))}: libjpeg: {line.strip()}"))
    if others:
        os.write(2, ("\n".join(others) + "\n").encode("utf-8", "replace"))


def available() -> bool:
    """Whether ``jpeglib`` can be imported."""
    try:
        import jpeglib  # noqa: F401
    except Exception:  # noqa: BLE001 - missing, or a broken build
        return False
    return True


def read_header(path: str | os.PathLike[str]) -> tuple[Any, str | None]:
    """Read the JPEG at ``path`` for :func:`edit`, before the work, or say why it cannot be edited.

    Parameters
    ----------
    path : path-like
        The input JPEG.

    Returns
    -------
    header, str or None
        jpeglib's view of the file (its bytes, sizes and markers; the coefficients are read by
        :func:`edit`), and None; or None and why the file cannot be edited block by block.
    """
    if not available():
        return None, f"lossless editing of JPEG needs the jpeglib package: {install_hint('jpeg')}"
    import jpeglib

    with _LOCK, jpeglib.version(_LIBJPEG), _libjpeg_warnings(path) as outcome:
        header, why = _read_header(jpeglib, path)
        outcome["quiet"] = why is not None  # the plan's note says why
        return header, why


def _read_header(jpeglib, path) -> tuple[Any, str | None]:
    try:
        header = jpeglib.read_dct(str(path))
        comps = int(header.num_components)
        space = str(header.jpeg_color_space)
        factors = [tuple(int(x) for x in f) for f in np.asarray(header.samp_factor)]
    except Exception:  # noqa: BLE001 - a JPEG libjpeg cannot read this way (e.g. arithmetic-coded)
        return None, "libjpeg cannot read its blocks (an unusual coding, or a damaged file)"
    if comps not in (1, 3) or ("YCbCr" not in space and "GRAYSCALE" not in space):
        return None, f"its colour space ({space.split('.')[-1].replace('JCS_', '')}) cannot be edited block by block"
    if comps == 3 and (factors[1] != (1, 1) or factors[2] != (1, 1)):
        return None, "its chroma subsampling is unusual"
    return header, None


def touched_mcus(mask: np.ndarray, mcu: tuple[int, int]) -> np.ndarray:
    """(rows, cols) bool grid: the MCUs of ``mcu`` = (height, width) pixels holding a pixel of ``mask``.

    Only the MCUs of the mask's bounding box are looked at."""
    h, w = mask.shape
    mh, mw = mcu
    grid = np.zeros((-(-h // mh), -(-w // mw)), bool)
    rows = np.flatnonzero(mask.any(axis=1))
    if not rows.size:
        return grid
    gy0, gy1 = rows[0] // mh, rows[-1] // mh + 1
    band = mask[gy0 * mh:gy1 * mh]
    cols = np.flatnonzero(band.any(axis=0))
    gx0, gx1 = cols[0] // mw, cols[-1] // mw + 1
    part = band[:, gx0 * mw:gx1 * mw]
    tiles = np.zeros(((gy1 - gy0) * mh, (gx1 - gx0) * mw), bool)
    tiles[:part.shape[0], :part.shape[1]] = part
    grid[gy0:gy1, gx0:gx1] = tiles.reshape(gy1 - gy0, mh, gx1 - gx0, mw).any(axis=(1, 3))
    return grid


def mcu_box(mask: np.ndarray, orientation: int, mcu: tuple[int, int]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The smallest box of whole MCUs of the stored frame that holds every pixel of ``mask``.

    Parameters
    ----------
    mask : ndarray, (H, W) bool
        Upright.
    orientation : int
        EXIF orientation: the stored frame is ``STORED[orientation]`` of the upright one.
    mcu : (int, int)
        MCU height and width in pixels.

    Returns
    -------
    stored, upright : (y0, y1, x0, x1) each, or None for a mask without a pixel
        The box in the stored frame (on the MCU grid, clipped to the picture) and the same pixels
        upright.
    """
    h, w = mask.shape
    rows = np.flatnonzero(mask.any(axis=1))
    if not rows.size:
        return None
    y0, y1 = int(rows[0]), int(rows[-1]) + 1
    cols = np.flatnonzero(mask[y0:y1].any(axis=0))
    x0, x1 = int(cols[0]), int(cols[-1]) + 1
    turn = STORED[orientation]
    swap = orientation >= 5  # the stored rows are upright columns
    # the upright row and column of every stored pixel, without building either
    ys = turn(np.broadcast_to(np.arange(h)[:, None], (h, w)))
    xs = turn(np.broadcast_to(np.arange(w)[None, :], (h, w)))
    srow = np.asarray((xs if swap else ys)[:, 0])  # upright index each stored row follows
    scol = np.asarray((ys if swap else xs)[0, :])
    rlo, rhi, clo, chi = (x0, x1, y0, y1) if swap else (y0, y1, x0, x1)
    r = np.flatnonzero((srow >= rlo) & (srow < rhi))
    c = np.flatnonzero((scol >= clo) & (scol < chi))
    mh, mw = mcu
    sy0, sy1 = int(r[0]) // mh * mh, min(-(-(int(r[-1]) + 1) // mh) * mh, srow.size)
    sx0, sx1 = int(c[0]) // mw * mw, min(-(-(int(c[-1]) + 1) // mw) * mw, scol.size)
    ur, uc = srow[sy0:sy1], scol[sx0:sx1]
    if swap:
        ur, uc = uc, ur
    return (sy0, sy1, sx0, sx1), (int(ur.min()), int(ur.max()) + 1, int(uc.min()), int(uc.max()) + 1)


def edit(src: str | os.PathLike[str], image: np.ndarray | Image.Image, mask: np.ndarray, *, orientation: int,
         header: Any = None,
         work: str | os.PathLike[str] | None = None) -> tuple[bytes, int]:
    """The JPEG ``src`` with the MCUs that hold a pixel of ``mask`` encoded again from ``image``.

    Parameters
    ----------
    src : path-like
        The input JPEG.
    image : ndarray, (H, W, 3) or (H, W) uint8, or PIL.Image.Image (RGB or L)
        The result, upright (as the pipeline saw the picture).  Only the box of MCUs around
        ``mask`` is read from it.
    mask : ndarray, (H, W) bool
        The pixels that changed, upright.
    orientation : int
        The input's EXIF orientation: the result is written in the input's stored frame, so the
        orientation tag it keeps still applies.
    header : optional
        :func:`read_header`'s header of ``src``, read before the work (read here when None).
    work : path-like, optional
        An empty folder for the work files (copies of the input's blocks; jpeglib writes them to
        files), which the caller removes (the writes make one beside the output:
        :func:`inpaint.io.atomic.new_temp_folder`).  Default: a temporary folder of the system's,
        removed after the edit.

    Returns
    -------
    bytes, int
        The new file and the number of MCUs encoded again.

    Raises
    ------
    CannotEdit
        When ``src`` cannot be edited block by block, or the new blocks would not share the
        input's quantisation tables.
    """
    import jpeglib

    with _LOCK, jpeglib.version(_LIBJPEG), _libjpeg_warnings(src), \
            contextlib.nullcontext(os.fspath(work)) if work is not None else \
            tempfile.TemporaryDirectory(prefix="inpaint-jpeg-") as folder, _work_files_in(jpeglib, folder):
        if header is None:
            header, why = _read_header(jpeglib, src)
            if why:
                raise CannotEdit(why)
        return _edit(jpeglib, header, image, np.asarray(mask, bool), orientation, folder)


@contextlib.contextmanager
def _work_files_in(jpeglib: Any, folder: str) -> Any:
    """jpeglib's temporary files (a copy of the input it decodes, the file it writes) in ``folder``
    while the edit runs (under ``_LOCK``: no other thread calls jpeglib meanwhile).  jpeglib makes
    them with :class:`tempfile.NamedTemporaryFile` in the system's temporary folder, which a stop
    signal would leave behind and whose lack of room would fail the edit."""
    import functools
    import importlib
    import types

    made = types.SimpleNamespace(NamedTemporaryFile=functools.partial(tempfile.NamedTemporaryFile, dir=folder))
    modules = []
    for name in ("dct_jpeg", "spatial_jpeg", "progressive_jpeg", "functional"):
        try:
            module = importlib.import_module(f"{jpeglib.__name__}.{name}")
        except ImportError:
            continue
        if getattr(module, "tempfile", None) is tempfile:
            modules.append(module)
    for module in modules:
        module.tempfile = made
    try:
        yield
    finally:
        for module in modules:
            module.tempfile = tempfile


def _edit(jpeglib, header, image, mask, orientation, folder) -> tuple[bytes, int]:
    colour = bool(header.has_chrominance)
    factors = np.asarray(header.samp_factor)
    vv, hv = (int(factors[0][0]), int(factors[0][1])) if colour else (1, 1)
    mcu = (8 * vv, 8 * hv)
    boxes = mcu_box(mask, orientation, mcu)
    if boxes is None:  # nothing changed: the input as it is
        return bytes(header.content), 0
    (sy0, sy1, sx0, sx1), (uy0, uy1, ux0, ux1) = boxes
    turn = STORED[orientation]
    crop = np.asarray(image.crop((ux0, uy0, ux1, uy1))) if isinstance(image, Image.Image) \
        else np.asarray(image)[uy0:uy1, ux0:ux1]
    crop = np.ascontiguousarray(turn(crop))
    changed = turn(mask[uy0:uy1, ux0:ux1])
    grid = touched_mcus(changed, mcu)
    dct = copy.copy(header)  # the header stays unread: a plan can be written again
    dct.load()
    part = os.path.join(folder, "part.jpg")
    grey = crop[..., :1] if crop.ndim == 3 else crop[..., None]
    # the crop starts on the MCU grid, so its blocks are the output's blocks, encoded with the
    # input's own sampling factors (4:4:0 and 4:1:1 too) and tables, each component quantised
    # with the table the input gives it, whichever slot holds it
    comps = 3 if colour else 1
    part_jpeg = jpeglib.from_spatial(np.ascontiguousarray(crop if colour else grey))
    part_jpeg.samp_factor = np.asarray(dct.samp_factor)[:comps]
    # one table a component (jpeglib places shared slots wrongly: luma and Cb on one, Cr on another)
    part_jpeg.write_spatial(part, qt=np.stack([dct.get_component_qt(c) for c in range(comps)]),
                            quant_tbl_no=np.arange(comps))
    new = jpeglib.read_dct(part)
    new.load()
    if any(not np.array_equal(new.get_component_qt(c), dct.get_component_qt(c)) for c in range(comps)):
        raise CannotEdit("the new blocks' quantisation tables differ from the input's")
    by, bx = sy0 // 8, sx0 // 8
    # luma is not subsampled: its 8x8 blocks without a changed pixel keep their coefficients
    _copy(dct.Y, new.Y, touched_mcus(changed, (8, 8)), by, bx)
    if colour:
        for old_c, new_c in ((dct.Cb, new.Cb), (dct.Cr, new.Cr)):
            _copy(old_c, new_c, grid, sy0 // mcu[0], sx0 // mcu[1])
    # written from the coefficients alone (jpeglib would decode the input again to copy its
    # parameters); the input's markers are put back as they are stored
    dct.content, dct.markers = None, []
    out = os.path.join(folder, "out.jpg")
    dct.write_dct(out, flags=["OPTIMIZE_CODING"])
    data = Path(out).read_bytes()
    content = bytes(header.content)
    # pixels changed: a copy of the picture as it was in the markers (a thumbnail, a preview) or
    # after the end (a motion photo's video) would still show them
    motion = jpeg_end(content) < len(content)
    markers, _ = clean_segments(app_segments(content), motion=motion)
    return data[:2] + b"".join(markers) + data[_after_app(data):], int(grid.sum())


def jpeg_end(data: bytes) -> int:
    """Where the JPEG stream in ``data`` ends: just after its end-of-image marker (``len(data)``
    when none is found).  Bytes after it (a motion photo's video, another program's trailer) are
    not part of the picture.  The segments are walked and each scan's entropy-coded data skipped
    (a 0xFF there is followed by 0x00 or a restart marker), since the trailer may hold 0xFFD9 too."""
    i, n = 2, len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return n
        kind = data[i + 1]
        if kind == 0xFF:
            i += 1
            continue
        if kind == 0xD9:
            return i + 2
        if 0xD0 <= kind <= 0xD7 or kind == 0x01:
            i += 2
            continue
        i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
        if kind == 0xDA:  # the scan's data runs to the next marker that is not stuffing or a restart
            while True:
                i = data.find(b"\xff", i)
                if i < 0 or i + 1 >= n:
                    return n
                if data[i + 1] == 0x00 or 0xD0 <= data[i + 1] <= 0xD7:
                    i += 2
                    continue
                break
    return n


#: Starts of the APP1 blocks an encoder writes of its own (EXIF; XMP, from the plan's option).
_OWN_APP1 = (b"Exif\x00", b"http://ns.adobe.com/xap/1.0/\x00")


def extra_segments(data: bytes) -> list[bytes]:
    """The marker segments of a JPEG that a new encode would not write of its own, as stored:
    comments (COM), APP1 other than EXIF and XMP (extended XMP), APP2's FlashPix data, APP3 to
    APP13 (IPTC is APP13) and APP15.  APP0 (JFIF), APP2's ICC profile and APP14 (Adobe's colour
    transform) describe the coding or come from the plan, so the encoder writes them."""
    keep = []
    for seg in app_segments(data):
        kind = seg[1]
        fpxr = kind == 0xE2 and seg[4:8] == b"FPXR"  # FlashPix data (APP2 besides the ICC profile)
        if kind == 0xFE or 0xE3 <= kind <= 0xED or kind == 0xEF or fpxr or (
                kind == 0xE1 and not seg[4:].startswith(_OWN_APP1)):
            keep.append(seg)
    return keep


def app_segments(data: bytes) -> list[bytes]:
    """The APPn and COM segments of a JPEG before its first scan, as stored (marker and length too)."""
    segments, i = [], 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise CannotEdit("its header is damaged")
        kind = data[i + 1]
        if kind == 0xFF:  # fill byte
            i += 1
            continue
        if kind in (0xDA, 0xD9):  # start of scan, end of image
            break
        if 0xD0 <= kind <= 0xD7 or kind == 0x01:  # no length
            i += 2
            continue
        end = i + 2 + int.from_bytes(data[i + 2:i + 4], "big")
        if 0xE0 <= kind <= 0xEF or kind == 0xFE:
            segments.append(data[i:end])
        i = end
    return segments


def _after_app(data: bytes) -> int:
    """Where a JPEG continues after its start marker and the APPn segments right after it (the
    JFIF header libjpeg writes of its own)."""
    i = 2
    while data[i] == 0xFF and 0xE0 <= data[i + 1] <= 0xEF:
        i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
    return i


def _copy(old: np.ndarray, new: np.ndarray, where: np.ndarray, by: int, bx: int) -> None:
    """Copy the blocks of ``new`` (a crop starting at block (by, bx) of ``old``) where ``where`` holds."""
    h = min(where.shape[0], new.shape[0], old.shape[0] - by)
    w = min(where.shape[1], new.shape[1], old.shape[1] - bx)
    sel = where[:h, :w]
    target = old[by:by + h, bx:bx + w]
    target[sel] = new[:h, :w][sel]
