"""Rectangles, the object's bounding box and the search area of Eq. 6.

Rectangles are ``(x0, y0, x1, y1)``, half-open, in image pixels (x = column, y = row).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

Rect = tuple[int, int, int, int]


def bbox(mask: np.ndarray) -> Rect | None:
    """Bounding box of the True pixels of ``mask``, or None when it has none."""
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(mask.any(axis=0))
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def grow(rect: Rect, margin: int, width: int, height: int) -> Rect:
    """``rect`` grown by ``margin`` on every side, clipped to the image."""
    x0, y0, x1, y1 = rect
    return max(x0 - margin, 0), max(y0 - margin, 0), min(x1 + margin, width), min(y1 + margin, height)


def area(rect: Rect) -> int:
    """Number of pixels in ``rect`` (0 when empty)."""
    return max(rect[2] - rect[0], 0) * max(rect[3] - rect[1], 0)


def search_area(box: Rect, alpha: float | None, width: int, height: int) -> Rect:
    """The search area of Eq. 6 around the object's bounding box.

    Each side grows by ``alpha`` times the box's extent, so the area is
    ``round((1 + 2 alpha) w) x round((1 + 2 alpha) h)`` before clipping to the image
    (WalkingMan, 78x126 object, alpha = 0.05: 86x139, as in the paper's Table 5).

    Parameters
    ----------
    box : Rect
        Object bounding box.
    alpha : float or None
        Search factor; None means the whole image (``--alpha full``).
    """
    if alpha is None:
        return 0, 0, width, height
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    ex = max(int(round((1 + 2 * alpha) * w)) - w, 0)
    ey = max(int(round((1 + 2 * alpha) * h)) - h, 0)
    return (max(x0 - ex // 2, 0), max(y0 - ey // 2, 0),
            min(x1 + ex - ex // 2, width), min(y1 + ey - ey // 2, height))


def centres(area_rect: Rect, half: int) -> Rect:
    """Candidate centres whose whole P x P window lies inside ``area_rect`` (may be empty)."""
    x0, y0, x1, y1 = area_rect
    return x0 + half, y0 + half, max(x1 - half, x0 + half), max(y1 - half, y0 + half)


def widen(alpha: float) -> float:
    """The next, wider search factor after an area held no valid candidate."""
    return 2 * alpha + 0.5 if math.isfinite(alpha) else alpha


#: A search area must hold at least this many source patches, or it is widened.
MIN_SOURCES = 64


def source_area(free: np.ndarray | Callable[[Rect], np.ndarray], box: Rect, alpha: float | None, half: int,
                shape: tuple[int, int] | None = None) -> tuple[Rect, np.ndarray, int]:
    """The search area of Eq. 6, widened until it holds ``MIN_SOURCES`` source patches.

    Parameters
    ----------
    free : ndarray of bool, (H, W), or callable
        Centres whose whole window is inside the image and free of the hole; or a function that
        gives them for one rectangle alone (``free(rect)``, bool of the rectangle's shape), so
        that only the centres of the areas tried are ever computed.
    box : Rect
        The hole's bounding box.
    alpha : float or None
        Search factor (None: the whole image).
    half : int
        ``P // 2``.
    shape : (int, int), optional
        ``(H, W)`` of the image, needed when ``free`` is a function.

    Returns
    -------
    area : Rect
        The area searched.
    sources : ndarray of bool, (H, W)
        ``free`` centres whose window lies inside ``area``.
    widened : int
        How many times the area of Eq. 6 was widened (:func:`widen`), 0 when it was kept; the
        whole image ends the widening, however few sources it holds.
    """
    if callable(free):
        h, w = shape
        within = free
    else:
        h, w = free.shape

        def within(r: Rect) -> np.ndarray:
            return free[r[1]:r[3], r[0]:r[2]]
    widened = 0
    while True:
        rect = search_area(box, alpha, w, h)
        cx0, cy0, cx1, cy1 = centres(rect, half)
        part = within((cx0, cy0, cx1, cy1))
        if alpha is None or rect == (0, 0, w, h) or np.count_nonzero(part) >= MIN_SOURCES:
            sources = np.zeros((h, w), bool)  # (allocated lazily: only the area's rows are touched)
            sources[cy0:cy1, cx0:cx1] = part
            return rect, sources, widened
        widened += 1
        alpha = None if rect == (0, 0, w, h) else widen(alpha)


def dilate(mask: np.ndarray, radius: int, outside: bool = False) -> np.ndarray:
    """Chebyshev dilation: True where some pixel within ``radius`` (a (2 radius + 1)^2 window) is
    True; pixels outside the array count as ``outside``.  Along each axis, on a copy padded with
    ``outside``: ORs with the copy shifted by 1, 2, 4... cover spans that double, and two spans
    overlapping cover the window (a few ORs, not one per pixel of the radius)."""
    out = np.asarray(mask, bool)
    width = 2 * radius + 1
    for axis in (0, 1):
        a = out if axis == 0 else out.T
        n = a.shape[0]
        p = np.empty((n + 2 * radius, *a.shape[1:]), bool)
        p[:radius] = outside
        p[radius + n:] = outside
        p[radius:radius + n] = a
        span = 1  # p[i] holds the OR of the span pixels from i on
        while 2 * span <= width:
            p[:-span] |= p[span:]
            span *= 2
        a = p[:n] | p[width - span:width - span + n] if span < width else p[:n]
        out = a if axis == 0 else a.T
    return np.ascontiguousarray(out)


def clear_centres(blocked: np.ndarray, half: int) -> np.ndarray:
    """Centres whose (2 half + 1)^2 window holds no ``blocked`` pixel (pixels outside the
    image do not block): where a source patch may lie when ``blocked`` marks protected pixels.
    Only the box of the blocked pixels, grown by ``half``, is dilated: a far object costs its size."""
    blocked = np.asarray(blocked, bool)
    out = np.ones(blocked.shape, bool)
    box = bbox(blocked)
    if box is not None:
        h, w = blocked.shape
        x0, y0, x1, y1 = grow(box, half, w, h)
        out[y0:y1, x0:x1] = ~dilate(blocked[y0:y1, x0:x1], half)
    return out
