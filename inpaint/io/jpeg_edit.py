"""JPEG written back without loss outside the fill: only the blocks the fill touches are encoded again.

A JPEG stores its picture as quantised DCT coefficients, in MCUs (8x8 to 16x16 pixels, by the
chroma subsampling).  Decoding and encoding again changes every pixel a little.  Here the input's
coefficients are copied as they are, and only the MCUs that hold a filled pixel get new ones,
encoded from the result with the input's own quantisation tables and subsampling (of their
luma blocks, only those holding a filled pixel); markers
(EXIF, ICC, XMP...) are kept byte for byte, and the file keeps its stored orientation.  (The
edges of the untouched MCUs next to new ones can decode one pixel differently where chroma is
subsampled: decoders interpolate chroma across MCU borders.)

DCT access is through ``jpeglib`` (optional: ``pip install inpaint-cl[jpeg]``); without it, or for a
JPEG it cannot edit this way, the output is encoded again (see :mod:`inpaint.io.plan`).
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

import numpy as np
from PIL import Image

from .. import install_hint

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

#: The libjpeg build of jpeglib that reads and writes the coefficients.  It writes sequential files
#: with optimised Huffman tables: a progressive input comes out sequential, with the same
#: coefficients, 2-4 % larger (mozjpeg's progressive writer matches the size but takes about
#: three times as long).
_LIBJPEG = "6b"
#: jpeglib's choice of libjpeg build is process-wide: one edit at a time.
_LOCK = threading.Lock()

#: Pillow's subsampling codes by the luma sampling factors as jpeglib gives them, (vertical,
#: horizontal), chroma at (1, 1).
_SUBSAMPLING = {(1, 1): 0, (1, 2): 1, (2, 2): 2}


def available() -> bool:
    """Whether ``jpeglib`` can be imported."""
    try:
        import jpeglib  # noqa: F401
    except Exception:  # noqa: BLE001 - missing, or a broken build
        return False
    return True


def why_not(path: "str | os.PathLike[str]", qtables: dict | None, subsampling: int | None) -> str | None:
    """Why the JPEG at ``path`` cannot be edited block by block (None when it can).

    Reads only the header: checked before the work."""
    if not available():
        return f"lossless editing of JPEG needs the jpeglib package: {install_hint('jpeg')}"
    import jpeglib

    try:
        info = jpeglib.read_dct(str(path))
        comps = int(info.num_components)
        space = str(info.jpeg_color_space)
        factors = [tuple(int(x) for x in f) for f in np.asarray(info.samp_factor)]
    except Exception as exc:  # noqa: BLE001 - a JPEG libjpeg cannot read this way (e.g. arithmetic-coded)
        return f"its coding cannot be edited block by block ({type(exc).__name__})"
    if comps not in (1, 3) or ("YCbCr" not in space and "GRAYSCALE" not in space):
        return f"its colour space ({space.split('.')[-1].replace('JCS_', '')}) cannot be edited block by block"
    if comps == 3 and (factors[1] != (1, 1) or factors[2] != (1, 1) or factors[0] not in _SUBSAMPLING
                       or _SUBSAMPLING[factors[0]] != subsampling):
        return "its chroma subsampling is unusual"
    if not qtables:
        return "its quantisation tables cannot be read"
    return None


def touched_mcus(mask: np.ndarray, mcu: tuple[int, int]) -> np.ndarray:
    """(rows, cols) bool grid: the MCUs of ``mcu`` = (height, width) pixels holding a pixel of ``mask``."""
    h, w = mask.shape
    mh, mw = mcu
    rows, cols = -(-h // mh), -(-w // mw)
    padded = np.zeros((rows * mh, cols * mw), bool)
    padded[:h, :w] = mask
    return padded.reshape(rows, mh, cols, mw).any(axis=(1, 3))


def edit(src: "str | os.PathLike[str]", rgb: np.ndarray, mask: np.ndarray, *, orientation: int,
         qtables: dict, subsampling: int) -> tuple[bytes, int]:
    """The JPEG ``src`` with the MCUs that hold a pixel of ``mask`` encoded again from ``rgb``.

    Parameters
    ----------
    src : path-like
        The input JPEG.
    rgb : ndarray, (H, W, 3) or (H, W) uint8
        The result, upright (as the pipeline saw the picture).
    mask : ndarray, (H, W) bool
        The pixels that changed, upright.
    orientation : int
        The input's EXIF orientation: the result is written in the input's stored frame, so the
        orientation tag it keeps still applies.
    qtables, subsampling
        The input's quantisation tables and subsampling (Pillow's forms).

    Returns
    -------
    bytes, int
        The new file and the number of MCUs encoded again.

    Raises
    ------
    ValueError
        When the new blocks would not share the input's quantisation tables.
    """
    import jpeglib

    with _LOCK, jpeglib.version(_LIBJPEG):
        return _edit(jpeglib, src, rgb, mask, orientation, qtables, subsampling)


def _edit(jpeglib, src, rgb, mask, orientation, qtables, subsampling) -> tuple[bytes, int]:  # noqa: ANN001
    turn = STORED[orientation]
    stored = np.ascontiguousarray(turn(rgb))
    changed = np.ascontiguousarray(turn(mask))
    dct = jpeglib.read_dct(str(src))
    dct.load()
    factors = np.asarray(dct.samp_factor)
    vv, hv = (int(factors[0][0]), int(factors[0][1])) if dct.has_chrominance else (1, 1)
    mcu = (8 * vv, 8 * hv)
    grid = touched_mcus(changed, mcu)
    count = int(grid.sum())
    with tempfile.TemporaryDirectory(prefix="inpaint-jpeg-") as tmp:
        if count:
            rows, cols = np.nonzero(grid)
            y0, y1 = int(rows.min()) * mcu[0], min((int(rows.max()) + 1) * mcu[0], stored.shape[0])
            x0, x1 = int(cols.min()) * mcu[1], min((int(cols.max()) + 1) * mcu[1], stored.shape[1])
            crop = stored[y0:y1, x0:x1]
            part = os.path.join(tmp, "part.jpg")
            img = Image.fromarray(crop if dct.has_chrominance else (crop[..., 0] if crop.ndim == 3 else crop))
            # the crop starts on the MCU grid, so its blocks are the output's blocks
            img.save(part, "JPEG", qtables=qtables, subsampling=subsampling if dct.has_chrominance else 0)
            new = jpeglib.read_dct(part)
            new.load()
            if not np.array_equal(np.asarray(new.qt), np.asarray(dct.qt)):
                raise ValueError("the new blocks' quantisation tables differ from the input's")
            sub = grid[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
            by, bx = y0 // 8, x0 // 8
            # luma is not subsampled: its 8x8 blocks without a changed pixel keep their coefficients
            yblocks = touched_mcus(changed, (8, 8))[by:by + new.Y.shape[0], bx:bx + new.Y.shape[1]]
            _copy(dct.Y, new.Y, yblocks, by, bx)
            if dct.has_chrominance:
                for old_c, new_c in ((dct.Cb, new.Cb), (dct.Cr, new.Cr)):
                    _copy(old_c, new_c, sub, by // vv, bx // hv)
        out = os.path.join(tmp, "out.jpg")
        dct.write_dct(out, flags=["OPTIMIZE_CODING"])
        return Path(out).read_bytes(), count


def _copy(old: np.ndarray, new: np.ndarray, where: np.ndarray, by: int, bx: int) -> None:
    """Copy the blocks of ``new`` (a crop starting at block (by, bx) of ``old``) where ``where`` holds."""
    h = min(where.shape[0], new.shape[0], old.shape[0] - by)
    w = min(where.shape[1], new.shape[1], old.shape[1] - bx)
    sel = where[:h, :w]
    target = old[by:by + h, bx:bx + w]
    target[sel] = new[:h, :w][sel]
