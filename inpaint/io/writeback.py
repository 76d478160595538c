"""Writing a result back into the original picture at full depth, through the source map.

The fill and the seam carver work on an 8-bit RGB view; each output pixel starts as a copy of its
source pixel in the original array (grey, 16-bit, float, palette, alpha...) and takes the
blend's change where the method blends and the mode can hold it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image

from .pictures import DeepImage, Picture

#: Modes whose colour channels take the blended fill; other modes (palette, bilevel, CMYK...)
#: take whole source pixels.
BLENDED_MODES = ("RGB", "RGBA", "RGBX", "L", "LA", "I;16", "I;16B", "I;16L", "I", "F")


def _as_image(picture: Picture, out: np.ndarray) -> Image.Image | DeepImage:
    img = picture.image
    if picture.wide is not None:
        return DeepImage(np.ascontiguousarray(out), {k: v for k, v in img.info.items() if k in ("dpi", "transparency")})
    mode = img.mode
    if mode == "1":
        res = Image.fromarray(np.ascontiguousarray(out))
    else:
        h, w = out.shape[:2]
        res = Image.frombytes(mode, (w, h), np.ascontiguousarray(out).tobytes())
    if mode in ("P", "PA"):
        res.putpalette(img.getpalette())
    for key in ("transparency", "dpi", "gamma"):
        if key in img.info:
            res.info[key] = img.info[key]
    return res


def _blend(picture: Picture, out: np.ndarray, sel: Any, fill: np.ndarray, rows: np.ndarray,
           cols: np.ndarray, verb: str) -> str | None:
    """Give the pixels ``out[sel]`` (copies of the sources ``rows, cols``) the 8-bit result ``fill``
    ((N, 3) uint8) at full depth; a note when the mode cannot take blended values."""
    mode = picture.mode
    src8 = picture.rgb[rows, cols]
    fill = np.asarray(fill).reshape(-1, 3)
    if fill.shape[0] == 0:
        return None
    if picture.wide is None and mode not in BLENDED_MODES:
        if np.array_equal(fill, src8):
            return None
        kind = {"P": "palette", "PA": "palette", "1": "black-and-white"}.get(mode, mode)
        return f"{kind} images are {verb} by copying source pixels (blending needs RGB or grey)"
    if mode in ("RGB", "RGBA", "RGBX"):
        out[sel, :3] = fill
    elif mode == "L":
        out[sel] = fill[:, 0]
    elif mode == "LA":
        out[sel, 0] = fill[:, 0]
    else:  # 16-bit or float: move the full-precision copy by the blend's change
        change = fill.astype(np.int64) - src8.astype(np.int64)
        if picture.wide is not None:
            chans = 3 if out.shape[2] >= 3 else 1
            moved = out[sel, :chans].astype(np.int64) + change[:, :chans] * int(picture.scale)
            out[sel, :chans] = np.clip(moved, 0, 65535).astype(out.dtype)
        elif mode == "F":
            full = picture.full
            finite = full[np.isfinite(full)]
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            copied = out[sel]
            moved = np.clip(copied.astype(np.float64) + change[:, 0] * picture.scale, lo, hi).astype(out.dtype)
            # a pixel the blend left as it was stays the copy: an infinity is not clipped to the finite range
            out[sel] = np.where(change[:, 0] == 0, copied, moved)
        else:
            lo, hi = (0, 65535) if mode.startswith("I;16") else (np.iinfo(np.int32).min, np.iinfo(np.int32).max)
            moved = out[sel].astype(np.int64) + change[:, 0] * int(picture.scale)
            out[sel] = np.clip(moved, lo, hi).astype(out.dtype)
    return None


def unchanged(picture: Picture) -> Image.Image | DeepImage:
    """The picture as it is written back unchanged (upright, at full depth)."""
    return _as_image(picture, picture.full)


def apply_fill(picture: Picture, filled: np.ndarray, source_map: np.ndarray | Callable[[], np.ndarray],
               mask: np.ndarray) -> tuple[Image.Image | DeepImage, str | None]:
    """The original-mode image with the hole filled; and a note if the fill had to be simplified.

    ``filled`` is the fill on the 8-bit RGB view; ``source_map`` gives each hole pixel's source
    pixel (or is a function returning it, called only for modes other than 8-bit RGB).  Pixels
    outside ``mask`` keep their exact values.  Each hole pixel starts as a copy of
    its source pixel at full depth (alpha and extra channels included); 8-bit RGB and grey images
    then take the blended fill, and 16-bit and float images move the copy by the blend's change
    (so a fill that only copies is exact at full depth).  Palette, bilevel and other modes keep
    the copied source pixel, with a note when the fill had blended.
    """
    from ..errors import InputError, SourceMapError
    from ..masks import mask_from_array

    mask = np.asarray(mask)
    if mask.shape != picture.rgb.shape[:2]:
        got = f"{mask.shape[1]}x{mask.shape[0]}" if mask.ndim == 2 else f"of shape {mask.shape}"
        raise InputError(f"the mask is {got} but the picture is {picture.size[0]}x{picture.size[1]}")
    mask = mask_from_array(mask)  # (integers: nonzero marks the object, as everywhere)
    idx = np.flatnonzero(mask)  # one pass over a phone photo's mask, not one per channel
    fill = np.asarray(filled).reshape(-1, 3)[idx]
    if picture.wide is None and picture.mode == "RGB":  # the blended fill is the whole pixel
        out = picture.rgb.copy()
        out.reshape(-1, 3)[idx] = fill
        return _as_image(picture, out), None
    if callable(source_map):
        source_map = source_map()
    rows, cols = source_map.reshape(-1, 2)[idx].T
    if rows.size and (rows < 0).any():
        raise SourceMapError("the source map does not cover every masked pixel")
    arr = picture.full
    out = arr.copy()
    out[mask] = arr[rows, cols]
    note = _blend(picture, out, mask, fill, rows, cols, "filled")
    if picture.source.associated and out.ndim == 3 and out.shape[2] in (2, 4):
        # colours stored multiplied by their alpha never exceed it: a blend's change may have
        # lifted a copied colour past its own pixel's alpha
        filled_px = out[mask]
        filled_px[:, :-1] = np.minimum(filled_px[:, :-1], filled_px[:, -1:])
        out[mask] = filled_px
    return _as_image(picture, out), note


def apply_moves(picture: Picture, result: np.ndarray, source: np.ndarray,
                blends: Any = None) -> tuple[Image.Image | DeepImage, str | None]:
    """The seam carver's result at full depth, and a note if its blends cannot be kept.

    Seam carving moves pixels and, where it enlarges, inserts the mean of two neighbours.  With
    ``blends`` (:class:`inpaint.seam.Blends`) every channel at full depth (16-bit, float, alpha) is
    made as the 8-bit ``result`` was, means included.  Modes that cannot hold a mean (palette,
    bilevel, CMYK) copy the input pixel ``source[y, x]`` = (row, col) that each output pixel was
    inserted beside, with a note where that differs from the 8-bit result.  Without ``blends``,
    the copies are moved by the 8-bit result's change (an approximation at full depth)."""
    if picture.wide is None and picture.mode == "RGB":  # the 8-bit result is the whole pixel
        return _as_image(picture, np.ascontiguousarray(result[..., :3])), None
    arr = picture.full
    if blends is not None and (picture.wide is not None or picture.mode in BLENDED_MODES):
        return _as_image(picture, blends.apply(arr)), None
    rows, cols = source[..., 0], source[..., 1]
    out = arr[rows, cols]
    sel = np.ones(rows.shape, bool)
    note = _blend(picture, out, sel, np.asarray(result)[..., :3].reshape(-1, 3), rows.ravel(), cols.ravel(),
                  "enlarged")
    return _as_image(picture, out), note
