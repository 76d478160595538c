"""Checks and parsers of the options every fill method takes, each stated once.

The command line uses the same parsers on its text (:mod:`inpaint.cli.remove`), so a value means
the same whether it comes from a flag, the app or a library call.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InputError

#: Largest search factor accepted: beyond it every search area is the whole image anyway.
MAX_ALPHA = 10_000.0
#: Largest patch side accepted before the image is known (the method then checks its own limit).
MAX_PATCH_TEXT = 9999


def parse_alpha(text: Any, name: str = "alpha") -> float | str | None:
    """The search factor of Eq. 6: ``'full'`` or a number from 0 to :data:`MAX_ALPHA`; None stays None.
    ``name`` is what the message calls it (the command's ``--search-area``).

    Raises
    ------
    InputError
        Anything else.
    """
    if text is None:
        return None
    if isinstance(text, str) and text.strip().lower() == "full":
        return "full"
    if isinstance(text, (bool, np.bool_)):
        raise InputError(f"{name} must be a number >= 0 or 'full', got {text!r}")
    try:
        value = float(text)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be a number >= 0 or 'full', got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise InputError(f"{name} must be a number >= 0 or 'full', got {text!r}")
    if value > MAX_ALPHA:
        raise InputError(f"{name} must be a number >= 0 or 'full', got {text!r}: at most {MAX_ALPHA:g} "
                         "(use 'full' to search the whole image)")
    return value


#: An integer as the command line writes one: ASCII digits with an optional sign (no ``1_0``, no
#: digits of other scripts, which Python's ``int()`` would take).
_INTEGER = re.compile(r"[+-]?[0-9]+")


def integer_text(text: Any) -> int | None:
    """``text`` (a command line's word, or an integral number) as an int, or None."""
    if isinstance(text, (bool, np.bool_)):
        return None
    if isinstance(text, (int, np.integer)):
        return int(text)
    word = str(text).strip()
    return int(word) if _INTEGER.fullmatch(word) else None


def parse_int(text: Any, option: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer option within ``lo..hi``."""
    value = integer_text(text)
    if value is None or (lo is not None and value < lo) or (hi is not None and value > hi):
        if lo is not None and hi is not None:
            want = f"an integer from {lo} to {hi}"
        elif lo is not None:
            want = f"an integer >= {lo}"
        else:
            want = "an integer"
        raise InputError(f"{option} must be {want}, got {text!r}")
    return value


def search_factor(alpha: Any) -> float | None:
    """The search factor a method works with: None (the whole image) for ``'full'`` or None,
    else the float :func:`parse_alpha` accepts."""
    value = parse_alpha(alpha)
    return None if value is None or value == "full" else value


def parse_patch(patch: Any, height: int | None = None, width: int | None = None,
                max_patch: int = MAX_PATCH_TEXT, name: str = "patch size") -> int:
    """The patch side: an odd integer >= 3 (an integral number or its text).

    Given the image size, the patch must also fit in it and be at most ``max_patch`` (the
    method's limit); without it, at most :data:`MAX_PATCH_TEXT`.  ``name`` is what the message
    calls it (the command's ``--patch``).

    Raises
    ------
    InputError
        Not an odd integer >= 3, or too large.
    """
    p = integer_text(patch)
    if p is None and isinstance(patch, (float, np.floating)) and math.isfinite(patch) and patch == int(patch):
        p = int(patch)  # 7.0: an integral number
    if p is None or p < 3 or p % 2 == 0:
        raise InputError(f"{name} must be an odd integer >= 3, got {repr(patch) if p is None else p}")
    if height is None or width is None:
        if p > max_patch:
            raise InputError(f"{name} {p} is too large: the patch must fit in the image")
        return p
    side = min(height, width) - (min(height, width) % 2 == 0)  # the largest odd patch that fits
    if side < 3:
        raise InputError(f"a {width}x{height} image is too small to fill: the smallest patch is 3x3")
    if p > side and side <= max_patch:
        raise InputError(f"patch size {p} does not fit in a {width}x{height} image: at most {side}")
    if p > max_patch:
        raise InputError(f"patch size {p} is too large: at most {max_patch} for this method")
    return p


def check_arrays(image: Any, mask: Any) -> tuple[np.ndarray, np.ndarray]:
    """An (H, W, 3) uint8 RGB ``image`` and its ``mask`` as bool (:func:`inpaint.masks.mask_from_array`).

    Raises
    ------
    InputError
        A wrong shape or dtype (an RGBA image is refused rather than losing its alpha: fill
        ``image[..., :3]`` and keep the alpha yourself, as the command and the app do), a mask
        of another size, or a mask with NaN values.
    """
    from ..masks import mask_from_array

    image = np.asarray(image)
    mask = np.asarray(mask)
    if image.ndim == 3 and image.shape[2] == 4 and image.dtype == np.uint8:
        raise InputError("image has 4 channels (RGBA): the fill works on RGB and would drop the alpha; pass "
                         "image[..., :3] and keep the alpha yourself")
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise InputError(f"image must be an (H, W, 3) uint8 RGB array, got shape {image.shape} dtype {image.dtype}")
    if mask.shape != image.shape[:2]:
        raise InputError(f"mask shape {mask.shape} does not match the image's {image.shape[:2]}")
    return image, mask_from_array(mask)


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> Any:
    """``value`` when it is one of ``choices``, else an :class:`InputError` naming them."""
    if value not in choices:
        raise InputError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def check_flag(name: str, value: Any) -> bool:
    """``value`` when it is True or False, else an :class:`InputError`."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_protect(protect: Any, shape: tuple[int, int]) -> np.ndarray | None:
    """The ``protect`` option: an (H, W) bool or integer map (non-zero: protected) of pixels no
    source patch may cover, as bool; None when it is None or protects nothing.

    Raises
    ------
    InputError
        Another dtype, or a map of another size than the image.
    """
    if protect is None:
        return None
    p = np.asarray(protect)
    if p.dtype != bool and not np.issubdtype(p.dtype, np.integer):
        raise InputError(f"protect must be a bool or integer (H, W) array, got dtype {p.dtype}")
    if p.shape != tuple(shape):
        raise InputError(f"protect shape {p.shape} does not match the image's {tuple(shape)}")
    p = p.astype(bool)
    return p if p.any() else None
