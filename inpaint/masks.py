"""Mask tools shared by the command and the app.

A mask is an (H, W) bool array, True on the object to remove.
"""

from __future__ import annotations

import numpy as np

from .errors import InputError


def grow(mask: np.ndarray, radius: int) -> np.ndarray:
    """The mask dilated by a disc of ``radius`` pixels.

    A pixel joins the mask when some masked pixel lies within Euclidean distance ``radius``
    (offsets with dy^2 + dx^2 <= radius^2), so a tight mask also covers the object's rim, halo
    or shadow.  The work is confined to the mask's bounding box grown by ``radius``.

    Parameters
    ----------
    mask : ndarray of bool, (H, W)
    radius : int
        Pixels to grow by, >= 0 (0 returns a copy).

    Raises
    ------
    InputError
        A negative or non-integer radius.

    Examples
    --------
    >>> m = np.zeros((7, 7), bool); m[3, 3] = True
    >>> int(grow(m, 2).sum())  # the 13 pixels of a radius-2 disc
    13
    """
    try:
        r = int(radius)
    except (TypeError, ValueError):
        r = -1
    if r != radius or r < 0:
        raise InputError(f"the grow radius must be an integer >= 0, got {radius!r}")
    mask = np.asarray(mask, bool)
    out = mask.copy()
    if r == 0 or not mask.any():
        return out
    h, w = mask.shape
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    y0, y1 = max(int(rows[0]) - r, 0), min(int(rows[-1]) + r + 1, h)
    x0, x1 = max(int(cols[0]) - r, 0), min(int(cols[-1]) + r + 1, w)
    sub = mask[y0:y1, x0:x1]
    sh, sw = sub.shape
    # Row runs: cum[y, x] = masked pixels in row y left of column x, so a horizontal dilation by
    # k is one subtraction per pixel; each row offset dy of the disc needs k = floor(sqrt(r^2 - dy^2)).
    cum = np.zeros((sh, sw + 1), np.int32)
    np.cumsum(sub, axis=1, out=cum[:, 1:])
    xs = np.arange(sw)
    grown = np.zeros_like(sub)
    for dy in range(-min(r, sh - 1), min(r, sh - 1) + 1):
        k = int(np.sqrt(r * r - dy * dy))
        lo, hi = np.clip(xs - k, 0, sw), np.clip(xs + k + 1, 0, sw)
        row_hit = (cum[:, hi] - cum[:, lo]) > 0
        if dy >= 0:
            grown[dy:] |= row_hit[:sh - dy]
        else:
            grown[:dy] |= row_hit[-dy:]
    out[y0:y1, x0:x1] = grown
    return out
