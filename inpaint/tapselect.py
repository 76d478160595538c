"""Object-aware tap-to-select: the colour region under a tap, completed by GrabCut.

A colour range (:func:`inpaint.masks.select_region`) only takes the part of an object that
has the tapped colour.  Here that region (3x3 mean colours, holes filled) is the certain
object, and OpenCV's GrabCut (:func:`inpaint.masks.refine_grabcut`) adds the pixels around
it that its colour models and the photo's edges give to the object, so one tap reaches
parts of other colours.  Each tap is one GrabCut on a window of at most :data:`WORK_SIDE`
pixels a side, so a tap costs about the same on any photo.

The window starts around the tap at full resolution and is widened (and reduced by area
means past :data:`WORK_SIDE`) while the selection reaches its edge.
"""

from __future__ import annotations

import numpy as np

from .errors import InputError
from .masks import fill_holes, grabcut_available, refine_grabcut, select_region

__all__ = ["select_object"]

#: The longest side, in pixels, the selection is computed at (larger windows are reduced).
WORK_SIDE = 480



def _reduce(img: np.ndarray, f: int) -> np.ndarray:
    """``img`` (H, W, C float32) reduced by the integer factor ``f`` (block means; the last
    row and column of blocks repeat the edge pixels)."""
    if f == 1:
        return img
    h, w = -(-img.shape[0] // f) * f, -(-img.shape[1] // f) * f
    img = np.pad(img, ((0, h - img.shape[0]), (0, w - img.shape[1]), (0, 0)), mode="edge")
    return img.reshape(h // f, f, w // f, f, -1).mean(axis=(1, 3), dtype=np.float32)


def _box3(img: np.ndarray) -> np.ndarray:
    """3x3 box means, edges repeated."""
    p = np.pad(img, ((1, 1), (1, 1), (0, 0)), mode="edge")
    rows = p[:-2] + p[1:-1] + p[2:]
    return (rows[:, :-2] + rows[:, 1:-1] + rows[:, 2:]) / 9.0


def _colour_region(work: np.ndarray, seed: tuple[int, int], colour: np.ndarray,
                   tolerance: float, smooth: bool) -> np.ndarray:
    """Pixels whose colour (3x3 means with ``smooth``) is within ``tolerance`` of ``colour``,
    connected to the seed, holes filled."""
    similar = np.abs((_box3(work) if smooth else work) - colour).max(axis=2) <= tolerance
    similar[seed] = True          # a reduced seed pixel may mix the tapped colour with another
    return fill_holes(select_region(similar.view(np.uint8), seed, 0, 4))


def _numbers(values, n: int, what: str) -> tuple[float, ...]:
    """``values`` as ``n`` finite numbers; a string, a bool or anything else is refused (a
    string would be read a character at a time)."""
    try:
        if isinstance(values, (str, bytes)):
            raise TypeError
        seq = list(values)
    except TypeError:
        seq = None
    if (seq is None or len(seq) != n
            or any(isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating))
                   for v in seq)
            or not all(np.isfinite(float(v)) for v in seq)):
        raise InputError(f"{what}, got {values!r}")
    return tuple(float(v) for v in seq)


def _tolerance(tolerance) -> float:
    """A colour tolerance: a finite number >= 0, in 8-bit levels."""
    ok = not isinstance(tolerance, (bool, np.bool_)) and isinstance(tolerance, (int, float, np.integer, np.floating))
    if not ok or not (np.isfinite(tolerance) and tolerance >= 0):
        raise InputError(f"the tolerance must be a finite number >= 0, got {tolerance!r}")
    return float(tolerance)


def _grabcut_choice(grabcut) -> bool:
    """``grabcut`` (True, False, or None for where OpenCV is installed) as a bool."""
    if grabcut is None:
        return grabcut_available()
    if not isinstance(grabcut, (bool, np.bool_)):
        raise InputError(f"grabcut must be True, False or None, got {grabcut!r}")
    return bool(grabcut)


def select_object(image: np.ndarray, seed_yx: tuple[int, int], tolerance: float, *,
                  grabcut: bool | None = None, work_side: int = WORK_SIDE,
                  windows: dict | None = None) -> np.ndarray:
    """The object a tap at ``seed_yx`` selects.

    The region grows from the tapped pixel through pixels whose colour (3x3 means, or block
    means where the window is reduced) is within ``tolerance`` of the tapped one's (its 3x3
    mean) in every channel; its holes are filled.  With
    ``grabcut`` (default: when OpenCV is installed) GrabCut then completes it to the
    object's edges (:func:`inpaint.masks.refine_grabcut`).

    Parameters
    ----------
    image : ndarray, (H, W, 3) or (H, W, 4) uint8
    seed_yx : (row, col)
        The tapped pixel; it is always selected.
    tolerance : float
        >= 0, in 8-bit levels.
    grabcut : bool or None
        Complete the region with GrabCut; None: when OpenCV is installed.
    work_side : int
        The longest side the selection is computed at; larger windows are reduced.
    windows : dict, optional
        Reduced windows kept between calls on the same image (pass the same empty dict to
        each): a tap selected again at another tolerance reuses them.  On a 12 MP photo,
        reducing the windows is about half a tap's time.

    Returns
    -------
    ndarray of bool, (H, W)

    Raises
    ------
    InputError
        A seed outside the image or a negative tolerance.

    Examples
    --------
    >>> img = np.full((40, 40, 3), 120, np.uint8); img[10:30, 10:30] = 200
    >>> int(select_object(img, (20, 20), 48, grabcut=False).sum())
    400
    """
    img = np.asarray(image)
    if img.ndim != 3 or img.shape[2] < 3 or img.shape[0] == 0 or img.shape[1] == 0:
        raise InputError(f"image must be (H, W, 3) or (H, W, 4), got shape {np.shape(image)}")
    tol = _tolerance(tolerance)
    h, w = img.shape[:2]
    y, x = (int(np.floor(v)) for v in _numbers(seed_yx, 2, "the tapped pixel is two numbers (row, column)"))
    if not (0 <= y < h and 0 <= x < w):
        raise InputError(f"the tapped pixel (row {y}, column {x}) is outside the {w}x{h} image")
    if isinstance(work_side, (bool, np.bool_)) or not isinstance(work_side, (int, np.integer)) or work_side < 1:
        raise InputError(f"work_side must be a whole number >= 1, got {work_side!r}")
    grabcut = _grabcut_choice(grabcut)
    if windows is not None and not isinstance(windows, dict):
        raise InputError(f"windows must be a dict (empty at first) or None, got {windows!r}")
    rgb = img[..., :3]
    # The tapped colour: the 3x3 mean at full resolution, whatever the window is reduced to.
    colour = rgb[max(y - 1, 0):y + 2, max(x - 1, 0):x + 2].reshape(-1, 3).mean(axis=0, dtype=np.float32)
    half = max(work_side // 4, 16)
    while True:
        y0, y1 = max(y - half, 0), min(y + half + 1, h)
        x0, x1 = max(x - half, 0), min(x + half + 1, w)
        f = max(1, -(-max(y1 - y0, x1 - x0) // work_side))
        key = (y0, y1, x0, x1, f)
        work = windows.get(key) if windows is not None else None
        if work is None:
            work = _reduce(rgb[y0:y1, x0:x1].astype(np.float32), f)
            if windows is not None:
                windows[key] = work
        seed = ((y - y0) // f, (x - x0) // f)
        # A reduced window's block means already average the noise out; 3x3 means on top would
        # blur a tap near an edge into the other side.
        region = _colour_region(work, seed, colour, tol, smooth=f == 1)
        # GrabCut looks at most half the region's size beyond it (refine_grabcut's margins),
        # so the window is widened until that much room is left, then GrabCut runs once.
        room = region
        if grabcut and region.any():
            rows, cols = np.flatnonzero(region.any(axis=1)), np.flatnonzero(region.any(axis=0))
            gy, gx = (rows[-1] - rows[0] + 1) // 2 + 1, (cols[-1] - cols[0] + 1) // 2 + 1
            room = np.zeros_like(region)
            room[max(rows[0] - gy, 0):rows[-1] + gy + 1, max(cols[0] - gx, 0):cols[-1] + gx + 1] = True
        whole = y0 == 0 and y1 == h and x0 == 0 and x1 == w
        reaches = ((y0 > 0 and room[0].any()) or (y1 < h and room[-1].any())
                   or (x0 > 0 and room[:, 0].any()) or (x1 < w and room[:, -1].any()))
        if whole or not reaches:
            break
        half *= 3
    if grabcut:
        region = refine_grabcut(np.clip(work + 0.5, 0, 255).astype(np.uint8), region)
    out = np.zeros((h, w), bool)
    up = np.repeat(np.repeat(region, f, axis=0), f, axis=1)
    out[y0:y1, x0:x1] = up[:y1 - y0, :x1 - x0]
    out[y, x] = True
    return out
