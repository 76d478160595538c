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
    mask : ndarray, (H, W)
        The object mask (bool, or by the rule of :func:`mask_from_array`).
    radius : int
        Pixels to grow by, >= 0 (0 returns a copy).

    Raises
    ------
    InputError
        A negative or non-integer radius, or a mask that is not an (H, W) array by the mask
        rule (:func:`mask_from_array`).

    Examples
    --------
    >>> m = np.zeros((7, 7), bool); m[3, 3] = True
    >>> int(grow(m, 2).sum())  # the 13 pixels of a radius-2 disc
    13
    """
    try:
        r = int(radius) if not isinstance(radius, (bool, np.bool_)) else -1
    except (TypeError, ValueError, OverflowError):  # (infinity: no integer)
        r = -1
    if r != radius or r < 0:
        raise InputError(f"the grow radius must be an integer >= 0, got {radius!r}")
    mask = np.asarray(mask)
    if mask.ndim != 2:
        raise InputError(f"the mask must be an (H, W) array, got shape {mask.shape}")
    mask = mask_from_array(mask)
    out = mask.copy()
    if r == 0 or not mask.any():
        return out
    h, w = mask.shape
    r = min(r, h + w)  # past the image's diagonal a larger disc covers nothing more (and keeps r * r in int64)
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    y0, y1 = max(int(rows[0]) - r, 0), min(int(rows[-1]) + r + 1, h)
    x0, x1 = max(int(cols[0]) - r, 0), min(int(cols[-1]) + r + 1, w)
    out[y0:y1, x0:x1] = _grow_box(mask[y0:y1, x0:x1], r)
    return out


def _grow_box(sub: np.ndarray, r: int) -> np.ndarray:
    """:func:`grow` on a box that holds the whole result, exactly, in O(box) work for any radius.

    First the vertical distance ``g`` from every pixel to the nearest masked pixel of its column;
    then a pixel (y, x) is covered when some column x' has ``(x - x')^2 + g(y, x')^2 <= r^2``,
    i.e. when it lies in the run ``|x - x'| <= isqrt(r^2 - g(y, x')^2)`` of some column; the runs
    are added up row by row as +1/-1 steps and a running sum.  All integer arithmetic.
    """
    sh, sw = sub.shape
    big = np.int64(sh + r + 1)  # "no masked pixel in this column within reach"
    ys = np.arange(sh, dtype=np.int64)[:, None]
    above = np.maximum.accumulate(np.where(sub, ys, -big), axis=0)                 # last masked row <= y
    below = np.minimum.accumulate(np.where(sub, ys, 2 * big)[::-1], axis=0)[::-1]   # first masked row >= y
    g = np.minimum(ys - above, below - ys)
    reach = np.int64(r) * r - g * g
    near = reach >= 0
    k = np.sqrt(np.where(near, reach, 0).astype(np.float64)).astype(np.int64)
    k -= (k * k > reach) & near                 # exact integer square root (float is off by at most one)
    k += ((k + 1) * (k + 1) <= reach) & near
    yy, xx = np.nonzero(near)
    kk = k[yy, xx]
    width = sw + 1
    starts = yy * width + np.clip(xx - kk, 0, sw)
    ends = yy * width + np.clip(xx + kk + 1, 0, sw)
    steps = (np.bincount(starts, minlength=sh * width) - np.bincount(ends, minlength=sh * width))
    return np.cumsum(steps.reshape(sh, width), axis=1)[:, :sw] > 0


def covers_everything(shape: tuple[int, int], radius: int) -> bool:
    """Whether growing any non-empty mask of ``shape`` by ``radius`` covers the whole image: the
    disc reaches every pixel from any one, ``radius^2 >= (H - 1)^2 + (W - 1)^2``.  Checked before
    growing, so a huge ``--grow`` is refused at once."""
    h, w = shape
    return int(radius) ** 2 >= (h - 1) ** 2 + (w - 1) ** 2


def mask_from_array(mask: np.ndarray, what: str = "mask") -> np.ndarray:
    """An (H, W) array as the object mask, by the documented rule for arrays.

    * bool: as is;
    * integers: nonzero marks the object;
    * floats: NaN is refused; they are read on a 0..1 scale (``> 0.5`` marks the object) unless
      most of the values above 0.5 are also above 1 (a 0..255 mask), then ``> 127``.  A few stray
      values above 1 in a 0..1 mask do not move the threshold.

    Raises
    ------
    InputError
        NaN values, or a dtype that is not bool, integer or float.
    """
    arr = np.asarray(mask)
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind in "iu":
        return arr != 0
    if arr.dtype.kind != "f":
        raise InputError(f"{what} must hold booleans, integers or floats, got dtype {arr.dtype}")
    if np.isnan(arr).any():
        raise InputError(f"{what} holds NaN values: mark the object with 1 (or True) and the rest with 0")
    above_half = arr > 0.5
    wide = np.count_nonzero(arr > 1.0) * 2 > np.count_nonzero(above_half)
    return arr > 127.0 if wide else above_half


def select_region(image: np.ndarray, seed_yx: tuple[int, int], tolerance: float,
                  connectivity: int = 4, smooth: int = 0) -> np.ndarray:
    """The region a tap selects: pixels of a colour like the tapped pixel's, connected to it.

    A pixel is *similar* when none of its channels differs from the seed pixel's by more than
    ``tolerance`` (``max_c |image[y, x, c] - image[seed][c]| <= tolerance``, the "magic wand"
    rule of photo editors); the region is the set of similar pixels reachable from the seed
    through similar pixels, stepping to the 4 (``connectivity=4``) or 8 neighbours.  With
    ``smooth=r`` the colours compared are the means over ``(2r+1) x (2r+1)`` boxes (edge pixels
    repeated at the border), so the noise and fine texture of a photo split the region less.

    Pure numpy, so it runs on a phone: the similar pixels are cut into horizontal runs, and the
    runs that touch are joined by a vectorised union-find.  The work starts in a window around
    the seed and widens it only while the region reaches the window's edge, so selecting a
    small object in a large photo costs about the object's size.

    Parameters
    ----------
    image : ndarray, (H, W, C) or (H, W)
        Any numeric type (uint8 photos in the app).
    seed_yx : (row, col)
        The tapped pixel; it is always selected.
    tolerance : float
        >= 0; 0 selects exactly the seed's colour.
    connectivity : {4, 8}
    smooth : int
        Box radius of the colour means, >= 0 (0: the pixels themselves).

    Returns
    -------
    ndarray of bool, (H, W)

    Raises
    ------
    InputError
        A seed outside the image, a negative tolerance or smoothing, or another connectivity.

    Examples
    --------
    >>> img = np.zeros((3, 4, 3), np.uint8); img[:, 2] = 200
    >>> select_region(img, (0, 0), 10).astype(int)
    array([[1, 1, 0, 0],
           [1, 1, 0, 0],
           [1, 1, 0, 0]])
    """
    img = np.asarray(image)
    if img.ndim == 2:
        img = img[..., None]
    if img.ndim != 3 or img.shape[0] == 0 or img.shape[1] == 0:
        raise InputError(f"image must be (H, W) or (H, W, C), got shape {np.shape(image)}")
    if img.dtype.kind == "b":
        img = img.view(np.uint8)
    elif img.dtype.kind not in "iuf":
        raise InputError(f"image must hold numbers, got {img.dtype}")
    if connectivity not in (4, 8) or isinstance(connectivity, bool):
        raise InputError(f"connectivity must be 4 or 8, got {connectivity!r}")
    try:
        tol = float(tolerance) if not isinstance(tolerance, (bool, np.bool_)) else -1.0
    except (TypeError, ValueError, OverflowError):
        tol = -1.0
    if not (tol >= 0 and np.isfinite(tol)):
        raise InputError(f"the tolerance must be a finite number >= 0, got {tolerance!r}")
    if isinstance(smooth, bool) or not isinstance(smooth, (int, np.integer)) or smooth < 0:
        raise InputError(f"smooth must be an integer >= 0, got {smooth!r}")
    h, w = img.shape[:2]
    try:
        y, x = (int(v) for v in seed_yx)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"the tapped pixel is two integers (row, column), got {seed_yx!r}") from None
    if not (0 <= y < h and 0 <= x < w):
        raise InputError(f"the tapped pixel (row {y}, column {x}) is outside the {w}x{h} image")
    r = min(int(smooth), max(h, w))  # a box past the image's size repeats its edge: no other answer
    limit = tol * (2 * r + 1) ** 2          # the tolerance on box sums
    half = 64
    while True:
        y0, y1 = max(y - half, 0), min(y + half + 1, h)
        x0, x1 = max(x - half, 0), min(x + half + 1, w)
        similar = np.ones((y1 - y0, x1 - x0), bool)
        for c in range(img.shape[2]):
            values = _box_sums(img[..., c], y0, y1, x0, x1, r)
            seed = values[y - y0, x - x0]
            if np.issubdtype(values.dtype, np.integer):
                # |v - s| <= limit  <=>  ceil(s - limit) <= v <= floor(s + limit), in the values'
                # own type (no wide copy of the photo).
                info = np.iinfo(values.dtype)
                reach = int(np.floor(limit))  # in Python's integers: exact for 64-bit values too
                lo = max(int(seed) - reach, info.min)
                hi = min(int(seed) + reach, info.max)
                similar &= values >= values.dtype.type(lo)
                similar &= values <= values.dtype.type(hi)
            else:
                similar &= np.abs(values - seed) <= limit
        similar[y - y0, x - x0] = True  # the tapped pixel, always (also where its value is NaN)
        region = component(similar, (y - y0, x - x0), connectivity)
        # A region that does not reach the window's inner edges is the whole region: a path
        # leaving the window would cross an edge pixel.
        reaches = ((y0 > 0 and region[0].any()) or (y1 < h and region[-1].any())
                   or (x0 > 0 and region[:, 0].any()) or (x1 < w and region[:, -1].any()))
        if not reaches:
            out = np.zeros((h, w), bool)
            out[y0:y1, x0:x1] = region
            return out
        half *= 3


def _box_sums(channel: np.ndarray, y0: int, y1: int, x0: int, x1: int, r: int) -> np.ndarray:
    """Sums of ``channel`` over ``(2r+1)``-square boxes centred on the pixels of a window.

    Pixels beyond the image repeat its edge.  Integer channels are summed exactly, in a type
    wide enough for the sums; ``r = 0`` gives the window itself.
    """
    if r == 0:
        return channel[y0:y1, x0:x1]
    h, w = channel.shape
    ya, yb, xa, xb = max(y0 - r, 0), min(y1 + r, h), max(x0 - r, 0), min(x1 + r, w)
    sub = channel[ya:yb, xa:xb]
    if np.issubdtype(sub.dtype, np.integer):
        k2 = (2 * r + 1) ** 2
        info = np.iinfo(sub.dtype)
        wide = next((t for t in (np.int16, np.int32, np.int64)
                     if info.max * k2 <= np.iinfo(t).max and info.min * k2 >= np.iinfo(t).min), np.float64)
        sub = sub.astype(wide)
    else:
        sub = sub.astype(np.float64)
    sub = np.pad(sub, ((r - (y0 - ya), r - (yb - y1)), (r - (x0 - xa), r - (xb - x1))), mode="edge")
    rows = sub[0:y1 - y0].copy()
    for d in range(1, 2 * r + 1):
        rows += sub[d:d + y1 - y0]
    out = rows[:, 0:x1 - x0].copy()
    for d in range(1, 2 * r + 1):
        out += rows[:, d:d + x1 - x0]
    return out


def _ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The integers of every range ``lo[i] <= k < hi[i]``, concatenated."""
    counts = np.maximum(hi - lo, 0)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    firsts = np.cumsum(counts) - counts
    return np.repeat(lo - firsts, counts) + np.arange(total)


def _run_forest(cand: np.ndarray, connectivity: int):
    """The horizontal runs of ``cand`` and the connected part each belongs to.

    The candidate pixels are cut into horizontal runs ``[a, b)`` per row; the runs of one row
    and the next touch when their columns overlap (4-connectivity) or meet diagonally
    (8-connectivity).  Runs are sorted by row, then column, so keys ``row * (W + 2) + column``
    find each run's touching runs in the next row as one contiguous index range.  Returns the
    runs' rows, starts, ends (exclusive), start keys, the key stride, and each run's root (the
    smallest run index of its part).
    """
    h, w = cand.shape
    pad = np.zeros((h, w + 2), np.int8)
    pad[:, 1:-1] = cand
    step = np.diff(pad, axis=1)                  # (h, w + 1): +1 where a run starts, -1 after it ends
    rows, starts = np.nonzero(step == 1)
    _, ends = np.nonzero(step == -1)
    k = w + 2
    rows = rows.astype(np.int64)
    s_key = rows * k + starts
    e_key = rows * k + ends
    d = 1 if connectivity == 8 else 0
    # Run j of the next row touches run i when start_j < end_i + d and end_j > start_i - d.
    lo = np.searchsorted(e_key, (rows + 1) * k + starts - d, side="right")
    hi = np.searchsorted(s_key, (rows + 1) * k + ends + d, side="left")
    n = len(rows)
    u = np.repeat(np.arange(n), np.maximum(hi - lo, 0))
    v = _ranges(lo, hi)
    # Union-find over the run graph, vectorised: hook the larger root of every edge that joins
    # two trees under the smaller one, then jump pointers until each run points at its root;
    # repeat until no edge joins two roots.  Where several edges hook the same root, any one
    # write may win: each points to a smaller index, so no cycle can form, and every round
    # joins at least one pair of trees.
    parent = np.arange(n)
    while True:
        pu, pv = parent[u], parent[v]
        split = pu != pv
        if not split.any():
            break
        pu, pv, u, v = pu[split], pv[split], u[split], v[split]
        parent[np.maximum(pu, pv)] = np.minimum(pu, pv)
        while True:
            jumped = parent[parent]
            if np.array_equal(jumped, parent):
                break
            parent = jumped
    return rows, starts, ends, s_key, k, parent


def _paint_runs(shape: tuple[int, int], rows, starts, ends, keep: np.ndarray) -> np.ndarray:
    h, w = shape
    edges = np.zeros((h, w + 1), np.int8)
    edges[rows[keep], starts[keep]] = 1
    edges[rows[keep], ends[keep]] = -1
    return np.cumsum(edges, axis=1, dtype=np.int8)[:, :w] > 0


def component(cand: np.ndarray, seed: tuple[int, int], connectivity: int) -> np.ndarray:
    """The connected component of ``cand`` holding ``seed`` (which must be in ``cand``)."""
    rows, starts, ends, s_key, k, parent = _run_forest(cand, connectivity)
    sy, sx = seed
    first = int(np.searchsorted(s_key, sy * k + sx, side="right")) - 1
    return _paint_runs(cand.shape, rows, starts, ends, parent == parent[first])


def reached(cand: np.ndarray, seeds: np.ndarray, connectivity: int) -> np.ndarray:
    """The pixels of ``cand`` that a path within ``cand`` joins to a pixel of ``seeds & cand``."""
    rows, starts, ends, s_key, k, parent = _run_forest(cand, connectivity)
    sy, sx = np.nonzero(seeds & cand)
    roots = np.zeros(len(rows), bool)
    roots[parent[np.searchsorted(s_key, sy * k + sx, side="right") - 1]] = True
    return _paint_runs(cand.shape, rows, starts, ends, roots[parent])


def grabcut_available() -> bool:
    """Whether :func:`refine_grabcut` can run (it needs OpenCV, an optional dependency)."""
    import importlib.util

    try:
        return importlib.util.find_spec("cv2") is not None
    except ImportError:             # an import hook that refuses it
        return False


def refine_grabcut(image: np.ndarray, region: np.ndarray, *, margin: float = 0.25,
                   iterations: int = 4) -> np.ndarray:
    """A selection completed to the object's edges by OpenCV's GrabCut (a colour-model graph cut).

    ``region`` (e.g. taps of :func:`select_region`) is taken as certainly the object, the rest
    of its bounding box grown by ``margin`` times its size on each side as probably background,
    and a band around that box as certainly background; GrabCut then adds the pixels of the box
    that its colour models and the image's edges give to the object.  The result always holds
    ``region``.  Measured on the bundled cases (bench/results/app/mask_tools.md), it raises the mean IoU of three
    taps' selection with the object from 0.59 to 0.80.

    Raises
    ------
    ImportError
        OpenCV (``cv2``) is not installed (see :func:`grabcut_available`).
    """
    import cv2

    region = np.asarray(region, bool)
    img = np.ascontiguousarray(np.asarray(image, np.uint8)[..., :3])
    if not region.any():
        return region.copy()
    h, w = region.shape
    rows = np.flatnonzero(region.any(axis=1))
    cols = np.flatnonzero(region.any(axis=0))
    bh, bw = int(rows[-1] - rows[0] + 1), int(cols[-1] - cols[0] + 1)
    gy, gx = max(int(margin * bh), 4), max(int(margin * bw), 4)
    # The crop: the grown box plus a band of certain background as wide again.
    y0, y1 = max(int(rows[0]) - 2 * gy, 0), min(int(rows[-1]) + 2 * gy + 1, h)
    x0, x1 = max(int(cols[0]) - 2 * gx, 0), min(int(cols[-1]) + 2 * gx + 1, w)
    labels = np.full((y1 - y0, x1 - x0), cv2.GC_BGD, np.uint8)
    by0, by1 = max(int(rows[0]) - gy, 0) - y0, min(int(rows[-1]) + gy + 1, h) - y0
    bx0, bx1 = max(int(cols[0]) - gx, 0) - x0, min(int(cols[-1]) + gx + 1, w) - x0
    labels[by0:by1, bx0:bx1] = cv2.GC_PR_BGD
    labels[region[y0:y1, x0:x1]] = cv2.GC_FGD
    if (labels == cv2.GC_BGD).sum() < 16 or (labels == cv2.GC_PR_BGD).sum() == 0:
        return region.copy()   # no background to learn from, or nothing left to decide
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.grabCut(img[y0:y1, x0:x1], labels, None, bgd, fgd, int(iterations), cv2.GC_INIT_WITH_MASK)
    out = region.copy()
    out[y0:y1, x0:x1] |= (labels == cv2.GC_FGD) | (labels == cv2.GC_PR_FGD)
    return out


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """``mask`` with its holes filled: every unmasked pixel not connected (4-neighbours) to the
    image's border joins it.

    A colour selection of a textured object leaves specks of other colours inside it; those
    are part of the object.

    >>> m = np.ones((3, 3), bool); m[1, 1] = False
    >>> bool(fill_holes(m).all())
    True
    """
    mask = np.asarray(mask, bool)
    out = mask.copy()
    if not mask.any():
        return out
    # Holes lie inside the mask's bounding box, and everything around the box reaches the border.
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    y0, y1, x0, x1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
    outside = np.ones((y1 - y0 + 2, x1 - x0 + 2), bool)
    outside[1:-1, 1:-1] = ~mask[y0:y1, x0:x1]
    reach = component(outside, (0, 0), 4)
    out[y0:y1, x0:x1] = ~reach[1:-1, 1:-1]
    return out
