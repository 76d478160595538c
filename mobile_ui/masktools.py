"""The app's mask tools, window-free: Select (a box, a lasso or taps), grow, invert, and mask files.

The maths lives in :mod:`inpaint.masks` (shared with the command); this module fixes the
app's choices, so the app, its tests and ``tools/mask_tools_eval.py`` (the numbers in
bench/results/app/mask_tools.md) use the same selection.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from inpaint.errors import InputError
from inpaint.masks import fill_holes, grabcut_available, grow, refine_grabcut, select_region
from inpaint.select import select_around, select_box, select_point
from inpaint.tapselect import select_object

from .geometry import gesture_box, lasso_mask

__all__ = ["COLOUR_TOLERANCE", "DEFAULT_TOLERANCE", "MAX_GROW", "MAX_REGION", "MAX_TOLERANCE", "MIN_TOLERANCE",
           "OBJECT_TOLERANCE", "grabcut_available", "grow", "load_mask", "refine", "save_mask", "select_gesture",
           "select_tap", "tap_select", "tap_select_colour", "tap_select_plausible"]

#: Tolerance slider: the default of each selection (the best mean IoU on the tuning cases,
#: docs/TAP_SELECT.md), the app's default (the object selection's where OpenCV is installed)
#: and the maximum.
OBJECT_TOLERANCE = 64
COLOUR_TOLERANCE = 48
DEFAULT_TOLERANCE = OBJECT_TOLERANCE if grabcut_available() else COLOUR_TOLERANCE
MAX_TOLERANCE = 128
#: Grow slider maximum, in image pixels.
MAX_GROW = 40
#: The largest share of the photo one tap selects without asking.  The objects of the real photos
#: of datasets/objects and the bundled cases cover at most 15.4 % of their photo; a region past
#: this share is mostly background (docs/TAP_SELECT.md, "Regions too large for an object").
MAX_REGION = 0.25
#: The tolerance is halved while the region is too large, down to this.
MIN_TOLERANCE = 4
#: Colours are compared as 3x3 means (photo noise splits a region less), 4-neighbours.
SMOOTH = 1
CONNECTIVITY = 4


def select_gesture(image: np.ndarray, kind: str, points: list[tuple[float, float]]) -> np.ndarray:
    """The object a Select gesture outlines: a ``"box"`` (its first and last points opposite
    corners, clipped to the photo: :func:`inpaint.select.select_box`) or a ``"lasso"`` (the
    area the stroke encloses once closed: :func:`inpaint.select.select_around`).

    Parameters
    ----------
    image : ndarray, (H, W, 3) uint8
    kind : {"box", "lasso"}
    points : sequence of (u, v)
        The stroke in image coordinates (:mod:`mobile_ui.geometry`); they may lie beyond the photo.

    Returns
    -------
    ndarray of bool, (H, W)
        The object; nothing outside the gesture.

    Raises
    ------
    InputError
        A gesture that misses the photo or holds too little of it, or one around (nearly)
        all of it; the message says which.
    """
    shape = image.shape[:2]
    if kind == "box":
        box = gesture_box(points[0], points[-1], shape)
        if box is None:
            raise InputError("the box misses the photo: drag it over the object")
        return select_box(image, box)
    inside = lasso_mask(points, shape)
    if not inside.any():
        raise InputError("the loop misses the photo: draw it around the object")
    return select_around(image, inside, name="the loop")


def select_tap(image: np.ndarray, seed_yx: tuple[int, int], tolerance: float, selection: np.ndarray,
               limit: float = MAX_REGION) -> tuple[np.ndarray, int]:
    """The selection after a tap at ``seed_yx`` (:func:`inpaint.select.select_point`): a tap
    outside ``selection`` adds the object under it, a tap inside takes the part of its colour
    away.  What a tap adds is kept to the size of an object: while it covers more than
    ``limit`` of the photo, the tap is selected again at half the tolerance (a user lowering
    the slider), down to :data:`MIN_TOLERANCE`.

    Returns
    -------
    selection : ndarray of bool, (H, W)
        The new selection; what it adds may still be over ``limit`` (the caller asks).
    tolerance : int
        The tolerance that selected it.
    """
    y, x = (int(v) for v in seed_yx)
    tol = int(tolerance)
    got = select_point(image, [(x, y)], selection=selection, tolerance=tol)
    while not selection[y, x] and (got & ~selection).mean() > limit and tol > MIN_TOLERANCE:
        tol = max(tol // 2, MIN_TOLERANCE)
        got = select_point(image, [(x, y)], selection=selection, tolerance=tol)
    return got, tol


def tap_select(image: np.ndarray, seed_yx: tuple[int, int], tolerance: float,
               windows: dict | None = None) -> np.ndarray:
    """The object a tap at ``seed_yx`` selects: :func:`inpaint.tapselect.select_object` where
    OpenCV is installed (``windows``: its reduced windows, kept between calls), else the colour
    range (:func:`tap_select_colour`).

    Without GrabCut the edge-bounded region alone measured below the colour range on real
    photos (docs/TAP_SELECT.md), so it is not used on its own.
    """
    if grabcut_available():
        return select_object(image, seed_yx, tolerance, grabcut=True, windows=windows)
    return tap_select_colour(image, seed_yx, tolerance)


def tap_select_plausible(image: np.ndarray, seed_yx: tuple[int, int], tolerance: float,
                         limit: float = MAX_REGION) -> tuple[np.ndarray, int]:
    """:func:`tap_select` kept to the size of an object: while the region covers more than
    ``limit`` of the photo, the tap is selected again at half the tolerance (a user lowering
    the slider), down to :data:`MIN_TOLERANCE`.

    Parameters
    ----------
    image : ndarray, (H, W, 3) uint8
    seed_yx : (row, col)
    tolerance : float
        The tolerance tried first.
    limit : float
        The largest share of the photo (0 to 1) a region may cover.

    Returns
    -------
    region : ndarray of bool, (H, W)
        The last region selected; it may still be over ``limit`` (the caller asks).
    tolerance : int
        The tolerance that selected it.
    """
    tol, windows = int(tolerance), {}
    region = tap_select(image, seed_yx, tol, windows)
    while region.mean() > limit and tol > MIN_TOLERANCE:
        tol = max(tol // 2, MIN_TOLERANCE)
        region = tap_select(image, seed_yx, tol, windows)
    return region, tol


def tap_select_colour(image: np.ndarray, seed_yx: tuple[int, int], tolerance: float) -> np.ndarray:
    """The colour range a tap at ``seed_yx`` selects: similar colour, connected, holes filled."""
    return fill_holes(select_region(image, seed_yx, tolerance, CONNECTIVITY, smooth=SMOOTH))


def refine(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``mask`` completed to the object's edges by GrabCut (needs OpenCV; see :func:`grabcut_available`)."""
    return refine_grabcut(image, mask)


def load_mask(path: str | os.PathLike[str], shape: tuple[int, int]) -> np.ndarray:
    """A mask file as ``(H, W)`` bool by the command's rule (:func:`inpaint.io.mask_rule.read_mask`):
    pixels brighter than mid-grey (> 127) mark the object; for a mask with transparency, its
    opaque pixels do.

    Raises
    ------
    ValueError
        Unreadable, or not the image's size (the message says which).
    """
    from inpaint.io import read_mask

    h, w = shape
    return np.asarray(read_mask(path, (w, h)), bool)


def save_mask(mask: np.ndarray, path: str | os.PathLike[str], overwrite: bool = False) -> Path:
    """Write ``mask`` as an 8-bit greyscale PNG, 255 on the object (what ``--mask`` reads back).

    Atomic (the shared writer of :mod:`inpaint.io`); refuses to replace an existing file
    unless ``overwrite``.

    Raises
    ------
    ValueError
        Not a ``.png`` path.
    FileExistsError, FileNotFoundError
        The file exists (and ``overwrite`` is false), or its folder does not.
    """
    from PIL import Image

    from inpaint.io import save_image

    from .storage import user_path

    dest = user_path(path)
    if dest.name.lower() == ".png":
        raise ValueError(f"{dest.name} is an extension without a name: name the mask, such as photo_mask.png")
    if dest.suffix.lower() != ".png":
        raise ValueError(f"a mask is saved as PNG (lossless); {dest.name} does not end in .png")
    if dest.exists() and not overwrite:
        raise FileExistsError(f"{dest} already exists; choose another name or tick 'replace existing file'")
    if not dest.parent.is_dir():
        raise FileNotFoundError(f"folder {dest.parent} does not exist")
    pixels = np.where(np.asarray(mask, bool), np.uint8(255), np.uint8(0))
    save_image(Image.fromarray(pixels, "L"), dest)
    return dest
