"""The one mask rule: which pixels of a mask file mark the object.

:data:`MASK_RULE` states it for the help texts of the commands and the app; :func:`mask_from_image`
and :func:`read_mask` apply it, for every front end.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from PIL import Image

from ..errors import InputError
from ..masks import mask_from_array
from .read import file_limit, open_image, upright, upright_size_of

#: The mask rule, stated once (the commands' and the app's help quote it).
MASK_RULE = ("Mask rule: pixels brighter than mid-grey (> 127) mark the object; for a mask with "
             "transparency, its opaque pixels (alpha > 127) do, so anti-aliased and JPEG masks work.")
#: A drawn mask marking more than this share of the photo was probably made the other way round
#: (black on white): the commands add :data:`INVERTED_HINT` to their warning.
MOSTLY = 0.5
#: The hint for such a mask, in the words of the mask rule.
INVERTED_HINT = "white marks what to remove: is it inverted?"


def mask_from_image(img: Image.Image) -> np.ndarray:
    """The object mask of a mask image: the one mask rule (:data:`MASK_RULE`).

    Pixels brighter than mid-grey mark the object; for a mask with transparency (an alpha
    channel that is not fully opaque, or a palette with a transparent entry), its opaque
    pixels (alpha > 127) do.  16-bit masks compare with 32767 (above 255); float masks follow
    :func:`inpaint.masks.mask_from_array` (NaN refused; 0.5 on a 0..1 scale, 127 on a 0..255 one).
    """
    if img.mode == "P" and "transparency" in img.info:
        img = img.convert("RGBA")
    if img.mode in ("RGBA", "LA", "PA", "La", "RGBa"):
        alpha = np.asarray(img.getchannel("A"))
        if alpha.min(initial=255) < 255:
            return alpha > 127
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        arr = np.asarray(img).astype(np.int64)
        return arr > (127 if arr.max(initial=0) <= 255 else 32767)
    if img.mode == "F":
        return mask_from_array(np.asarray(img))
    return np.asarray(img.convert("L")) > 127


#: A mask file most of whose pixels are this far from both black and white (8-bit levels) is
#: probably a photo (the object painted over a copy of it), not a white-on-black mask.
MID_TONES = (48, 207)


def _warn_if_photo(img: Image.Image, what: str, path: Any) -> None:
    """Warn where most of a mask file's pixels are mid-tones: a photo with the object painted
    over, which the mask rule reads as its bright parts.  Anti-aliased, blurred and JPEG masks
    keep their mid-tones to their edges."""
    if img.mode not in ("RGB", "L", "RGBA", "LA") or (img.mode in ("RGBA", "LA") and
                                                      np.asarray(img.getchannel("A")).min(initial=255) < 255):
        return
    f = max(1, min(img.size) // 256)  # a sample of a few thousand pixels, as they are (not averaged)
    small = img.resize((max(1, img.size[0] // f), max(1, img.size[1] // f)), Image.Resampling.NEAREST).convert("RGB")
    rgb = np.asarray(small).astype(np.int16)
    grey = np.asarray(small.convert("L")).astype(np.int16)
    lo, hi = MID_TONES
    if not grey.size or ((grey > lo) & (grey < hi)).mean() <= 0.5:
        return
    # a feathered or graded mask is smooth and grey; a photo has colour or texture
    colourful = (rgb.max(axis=2) - rgb.min(axis=2) > 32).mean() > 0.2
    textured = grey.shape[1] > 1 and np.abs(np.diff(grey, axis=1)).mean() > 8
    if colourful or textured:
        from ..errors import InputWarning
        from .warnfilters import warn

        warn(InputWarning(f"{what} {path} looks like a photo, not a mask: most of its pixels are neither near black "
                          "nor near white (a mask is white on what to remove, black elsewhere)"))


def mask_file_limit(size: tuple[int, int]) -> int:
    """Largest mask file accepted for an image of ``size`` (:func:`~inpaint.io.read.file_limit`)."""
    return file_limit(int(size[0]) * int(size[1]))


def read_mask(path: str | os.PathLike[str], size: tuple[int, int], what: str = "mask",
              turned: bool | None = None) -> np.ndarray:
    """Read a mask file by the one mask rule (:func:`mask_from_image`), upright by its EXIF
    orientation; it must be ``size`` = (width, height).  Returns (H, W) bool.  ``what`` names
    the file in errors (e.g. ``'--protect mask'``); ``turned`` says whether the photo was turned
    a quarter upright by its own EXIF orientation (None: not known), which a mask of the size
    turned sideways is then blamed on.

    Every front end reads masks through this function.

    Raises
    ------
    InputError
        Unreadable, or not of ``size``.
    """
    try:
        size = tuple(int(v) for v in size) if not isinstance(size, (str, bytes)) else ()
    except (TypeError, ValueError, OverflowError):
        size = ()
    if len(size) != 2 or min(size) < 1:
        raise InputError(f"the image size for {what} must be (width, height), two integers >= 1")
    turned_photo = turned

    def check_size(stored: tuple[int, int], upright_size: tuple[int, int]) -> None:
        if upright_size == tuple(size):
            return
        why = ""
        if stored == tuple(size):
            why = (f" after its own EXIF orientation turns it (stored {stored[0]}x{stored[1]}); save the mask "
                   "without an EXIF orientation")
        elif upright_size == tuple(size)[::-1] and turned_photo is not False:
            why = (": it looks drawn on the photo as stored, before the photo's EXIF rotation (photos and masks "
                   "are read upright); rotate the mask the same way, or draw it on the upright photo")
            if turned_photo is None:
                why = ": it is the image's size turned sideways; rotate it" + (
                    " (if the photo has an EXIF rotation: photos and masks are read upright, so draw the mask "
                    "on the upright photo)")
        elif upright_size == tuple(size)[::-1]:
            why = ": it is the image's size turned sideways; rotate it to match"
        raise InputError(
            f"{what} {path} is {upright_size[0]}x{upright_size[1]} but the image is {size[0]}x{size[1]}; "
            f"they must be the same size{why}")

    def before_decoding(img: Any) -> None:  # its header says its size: a wrong one is not decoded
        check_size(img.size, upright_size_of(img))

    img, _ = open_image(path, what, max_bytes=mask_file_limit(size), check=before_decoding)
    img.info.pop("inpaint_frames", None)
    turned = upright(img)
    check_size(img.size, turned.size)
    _warn_if_photo(turned, what, path)
    try:
        return mask_from_image(turned)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - a mode Pillow cannot convert
        raise InputError(f"cannot read {what} {path}: pixel mode {turned.mode} ({exc})") from None
