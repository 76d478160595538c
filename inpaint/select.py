"""Select an object in one gesture: a box dragged over it, a loose lasso around it, or taps.

A box or a lasso says where the object surely is not: everything outside it is background,
and inside it OpenCV's GrabCut (a colour-model graph cut) finds the object
(``GC_PR_FGD`` inside, ``GC_BGD`` outside, a thin rim just inside the gesture ``GC_PR_BGD``).
What a smooth path joins to the outside starts as probable background too: an out-of-focus
backdrop runs on past the gesture's edge, where an object's outline bounds it.
Where the cut loses the object (its colours are the background's too), it is made again with
the gesture's deepest part as certain object.  A tap seeds the same cut with a box grown from
the colour region under it (:mod:`inpaint.tapselect`), its colour region as certainly object;
the box is at least of an object's size, since the region may be a small part of it.

Each cut runs on the gesture's neighbourhood reduced to at most :data:`WORK_PIXELS` pixels
(block means), so a selection costs about the same on any photo; the reduced answer is
brought back to full size and its edge refined there: the pixels along the edge go to the
object or the background, whichever of the two local mean colours next to them they are
closer to.  Before that, a box's or a lasso's cut gets back the parts its smoothness dropped for
being a pixel or two thin, where its own colour models clearly call them object
(:data:`THIN_LIKELIER`).

Without OpenCV a colour model stands in for GrabCut (the colours inside the gesture that are
much commoner there than outside it); :func:`fallback_note` says so.

The selection is the object itself; a front end grows it by the removal's rim (the command's
``--grow``, the app's Grow) as it does any mask.
"""

from __future__ import annotations

import numpy as np

from . import install_hint
from .errors import InputError
from .masks import fill_holes, grabcut_available, mask_from_array, reached
from .tapselect import _colour_region, _grabcut_choice, _numbers, _tolerance

__all__ = ["TOLERANCE", "WORK_PIXELS", "fallback_note", "select_around", "select_box", "select_point"]

#: The most pixels a cut is computed on (larger neighbourhoods are reduced).
WORK_PIXELS = 110_000
#: GrabCut's iterations per selection.
ITERATIONS = 2
#: A tap's colour tolerance, in 8-bit levels (the app's default with GrabCut).
TOLERANCE = 64
#: A tap's box: its colour region's bounding box grown by this share of its size on each side.
TAP_GROWTH = 0.25
#: Beyond a tap's box, a ring this share of its colour region's size wide may still be object
#: (probable background).
TAP_REACH = 2.0
#: A tap's colour region over this share of the photo holds the backdrop too: its tolerance is
#: halved (down to 4 levels) until the region is the size of an object (the app's tap does the same).
TAP_MAX_SHARE = 0.25
#: A tap's box is at least this share of the photo's shorter side across: a tap's colour
#: region may be a small part of its object (a highlight, a low tolerance).
TAP_MIN_SIDE = 0.15
#: A tap's box outside its inscribed ellipse grown by this factor (its corners) starts as
#: probable background: an object seldom fills the corners of a box grown about it.
TAP_ELLIPSE = 1.3
#: The background a cut learns from: a band around the gesture this share of its size wide.
BAND = 0.25
#: The rim inside a box or lasso that starts as probable background, as a share of the depth of
#: the gesture's deepest point.
INNER_RIM = 0.1
#: Where a box's or lasso's cut keeps less than this share of it, the cut is made again with
#: its deepest part (:data:`CORE` of the deepest point's depth and deeper) as certain object.
#: On the tuning cases the cuts it mends keep none or a few pixels, and the least that any other
#: keeps is 7 %; a small object in a loose box can be 1-5 % of it, and is the right answer.
LOST = 0.01
CORE = 0.7
#: Fewest pixels outside a box or lasso: GrabCut learns the background from them.
MIN_OUTSIDE = 64
#: After the cut, an undecided pixel joins the object where its colour is this much likelier
#: (natural log of the ratio) under the cut's object model than under its background model, it
#: lies in a part too thin to survive an opening by a 3x3 square, and that part touches the
#: object: the cut's smoothness drops parts a pixel or two thin (a leg, a wire).  For a box or a
#: lasso, whose inside is all probable object; a tap's cut, half background, keeps its own.
THIN_LIKELIER = 3.0
#: A box's or lasso's probable object that a path of :func:`_contrast` under this joins to the
#: outside starts as probable background (:func:`_backdrop_reach`).  The contrast divides the
#: gradient by the brightness plus :data:`REACH_DARK` levels, so that a dark region's texture
#: counts as a bright one's does; the gradient is taken after a Gaussian blur of
#: :data:`REACH_BLUR` work pixels.
REACH_CONTRAST = 0.35
REACH_DARK = 16.0
REACH_BLUR = 1.0


def fallback_note() -> str | None:
    """The note a front end shows where OpenCV is missing (the colour model stands in for
    GrabCut), or None where it is installed."""
    if grabcut_available():
        return None
    return f"OpenCV is not installed, so the selection uses colours alone and is rougher: {install_hint('select')}"


# -- validation ---------------------------------------------------------------------------------

def _rgb(image: np.ndarray) -> np.ndarray:
    img = np.asarray(image)
    if img.ndim != 3 or img.shape[2] not in (3, 4):
        raise InputError(f"the image must be (H, W, 3) or (H, W, 4), got shape {np.shape(image)}")
    if img.shape[0] < 2 or img.shape[1] < 2:
        raise InputError(f"the image is {img.shape[1]}x{img.shape[0]} pixels: an object to select needs at "
                         "least 2 pixels a side")
    if img.dtype != np.uint8:
        raise InputError(f"the image must be 8-bit (uint8), got {img.dtype}")
    return img[..., :3]


def _box(box, w: int, h: int) -> tuple[int, int, int, int]:
    """``(x0, y0, x1, y1)`` as integers, corners in either order, inside a ``w`` x ``h`` image."""
    x0, y0, x1, y1 = _numbers(box, 4, "a box is four numbers X0,Y0,X1,Y1 (finite)")
    x0, x1 = sorted((x0, x1))
    y0, y1 = sorted((y0, y1))
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        raise InputError(f"the box {x0:g},{y0:g},{x1:g},{y1:g} reaches outside the {w}x{h} image")
    bx0, by0, bx1, by1 = int(np.floor(x0)), int(np.floor(y0)), int(np.ceil(x1)), int(np.ceil(y1))
    if bx1 - bx0 < 2 or by1 - by0 < 2:
        raise InputError(f"the box {x0:g},{y0:g},{x1:g},{y1:g} is too small to hold an object")
    return bx0, by0, bx1, by1


def _check_mask(mask: np.ndarray, shape: tuple[int, int], what: str) -> np.ndarray:
    m = np.asarray(mask)
    if m.ndim != 2:
        raise InputError(f"{what} must be an (H, W) array, got shape {m.shape}")
    if m.shape != shape:
        raise InputError(f"{what} is {m.shape[1]}x{m.shape[0]} but the image is {shape[1]}x{shape[0]}")
    return mask_from_array(m, what)


def _check_room(h: int, w: int, outside: int, what: str) -> None:
    """Refuse a gesture that leaves fewer than :data:`MIN_OUTSIDE` pixels of background outside
    it, saying whether the gesture or the image is at fault."""
    if outside >= MIN_OUTSIDE:
        return
    if h * w < 2 * MIN_OUTSIDE:
        raise InputError(f"the {w}x{h} image is too small to select in: a selection learns the background "
                         f"from at least {MIN_OUTSIDE} pixels outside {what}")
    raise InputError(f"{what} covers (nearly) the whole {w}x{h} image: leave some background outside it")


# -- the work ------------------------------------------------------------------------------------

def _bounds(mask: np.ndarray) -> tuple[int, int, int, int]:
    """``(y0, y1, x0, x1)`` of a non-empty mask (ends exclusive)."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def _grown(y0: int, y1: int, x0: int, x1: int, share: float, h: int, w: int,
           least: int = 8) -> tuple[int, int, int, int]:
    gy, gx = max(int(share * (y1 - y0)), least), max(int(share * (x1 - x0)), least)
    return max(y0 - gy, 0), min(y1 + gy, h), max(x0 - gx, 0), min(x1 + gx, w)


def _reduce(sub: np.ndarray, pixels: int) -> tuple[np.ndarray, int]:
    """``sub`` (uint8) reduced by the smallest integer factor that brings it to at most
    ``pixels`` pixels: block means (the last blocks repeat the edge), and the factor."""
    f = max(1, int(np.ceil(np.sqrt(sub.shape[0] * sub.shape[1] / pixels))))
    while -(-sub.shape[0] // f) * -(-sub.shape[1] // f) > pixels:
        f += 1
    if f == 1:
        return np.ascontiguousarray(sub), 1
    h, w = sub.shape[:2]
    sh, sw = -(-h // f), -(-w // f)
    if grabcut_available():
        import cv2

        pad = cv2.copyMakeBorder(np.ascontiguousarray(sub), 0, sh * f - h, 0, sw * f - w, cv2.BORDER_REPLICATE)
        return cv2.resize(pad, (sw, sh), interpolation=cv2.INTER_AREA), f
    pad = np.pad(sub, ((0, sh * f - h), (0, sw * f - w), (0, 0)), mode="edge")
    small = pad.reshape(sh, f, sw, f, 3).mean(axis=(1, 3), dtype=np.float32)
    return np.clip(small + 0.5, 0, 255).astype(np.uint8), f


def _sample(mask: np.ndarray, f: int, shape: tuple[int, int]) -> np.ndarray:
    """A full-size mask of a crop read at the centres of the reduced pixels (factor ``f``)."""
    ys = np.minimum(np.arange(shape[0]) * f + f // 2, mask.shape[0] - 1)
    xs = np.minimum(np.arange(shape[1]) * f + f // 2, mask.shape[1] - 1)
    return mask[ys[:, None], xs[None, :]]


def _box_sum(a: np.ndarray, r: int) -> np.ndarray:
    """Sums over ``(2r+1)``-square windows (zeros beyond the edge), float64, any trailing axes."""
    p = np.pad(a.astype(np.float64), ((r + 1, r), (r + 1, r)) + ((0, 0),) * (a.ndim - 2))
    c = p.cumsum(axis=0).cumsum(axis=1)
    k = 2 * r + 1
    return c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]


def _edge_refined(sub: np.ndarray, small: np.ndarray, fg: np.ndarray, f: int) -> np.ndarray:
    """The reduced selection ``fg`` brought to the crop's full size: nearest pixels, then the
    pixels along its edge to whichever local mean colour (object or background, over 5x5
    reduced pixels) they are closer to."""
    h, w = sub.shape[:2]
    yi = np.minimum(np.arange(h) // f, fg.shape[0] - 1)
    xi = np.minimum(np.arange(w) // f, fg.shape[1] - 1)
    full = fg[yi[:, None], xi[None, :]]
    if f == 1:
        return full
    edge = np.zeros_like(fg)
    edge[1:] |= fg[1:] != fg[:-1]
    edge[:-1] |= fg[1:] != fg[:-1]
    edge[:, 1:] |= fg[:, 1:] != fg[:, :-1]
    edge[:, :-1] |= fg[:, 1:] != fg[:, :-1]
    if not edge.any():
        return full
    col = small.astype(np.float64)
    n_fg, n_bg = _box_sum(fg, 2), _box_sum(~fg, 2)
    mu_fg = _box_sum(col * fg[..., None], 2) / np.maximum(n_fg, 1)[..., None]
    mu_bg = _box_sum(col * ~fg[..., None], 2) / np.maximum(n_bg, 1)[..., None]
    ey, ex = np.nonzero(edge & (n_fg > 0) & (n_bg > 0))
    # the full-size pixels of those reduced pixels
    oy, ox = np.divmod(np.arange(f * f), f)
    py = (ey[:, None] * f + oy[None, :]).ravel()
    px = (ex[:, None] * f + ox[None, :]).ravel()
    ly, lx = np.repeat(ey, f * f), np.repeat(ex, f * f)
    keep = (py < h) & (px < w)
    py, px, ly, lx = py[keep], px[keep], ly[keep], lx[keep]
    c = sub[py, px].astype(np.float64)
    d_fg = ((c - mu_fg[ly, lx]) ** 2).sum(axis=1)
    d_bg = ((c - mu_bg[ly, lx]) ** 2).sum(axis=1)
    full[py, px] = d_fg < d_bg
    return full


def _grabcut(small: np.ndarray, labels: np.ndarray, thin: bool = False) -> np.ndarray:
    """GrabCut's object on ``small`` from ``labels``; with ``thin``, and the parts a pixel or two
    thin that its models call object (:data:`THIN_LIKELIER`)."""
    import cv2

    labels = labels.copy()
    if not ((labels == cv2.GC_BGD) | (labels == cv2.GC_PR_BGD)).any() or \
            not ((labels == cv2.GC_FGD) | (labels == cv2.GC_PR_FGD)).any():
        return (labels == cv2.GC_FGD) | (labels == cv2.GC_PR_FGD)
    undecided = labels != cv2.GC_BGD
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(0)   # GrabCut's k-means starts from OpenCV's random numbers: the same gesture, the same answer
    cv2.grabCut(small, labels, None, bgd, fgd, ITERATIONS, cv2.GC_INIT_WITH_MASK)
    fg = (labels == cv2.GC_FGD) | (labels == cv2.GC_PR_FGD)
    if not thin or not fg.any():
        return fg
    dropped = undecided & ~fg
    pixels = small[dropped].astype(np.float64)
    likely = np.zeros(fg.shape, np.uint8)
    likely[dropped] = _log_likelihood(fgd, pixels) - _log_likelihood(bgd, pixels) > THIN_LIKELIER
    # only what is too thin to survive an opening by a 3x3 square: a wide region the models call
    # object is one the cut weighed and gave to the background
    slender = (likely != 0) & (cv2.morphologyEx(likely, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) == 0)
    _, parts = cv2.connectedComponents((fg | slender).view(np.uint8), connectivity=8)
    joined = np.zeros(parts.max() + 1, bool)
    joined[parts[fg]] = True
    return joined[parts]


def _log_likelihood(model: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """The log density of each of ``pixels`` ((N, 3) float64) under one of GrabCut's colour models:
    OpenCV's (1, 65) array of 5 Gaussians, their weights, then their means (3 each), then their
    covariances (9 each)."""
    m = model.ravel()
    weights, means, covs = m[:5], m[5:20].reshape(5, 3), m[20:].reshape(5, 3, 3)
    out = np.full(len(pixels), -np.inf)
    for weight, mean, cov in zip(weights, means, covs):
        if weight <= 0:
            continue
        cov = cov + np.eye(3) * 1e-6  # (OpenCV already keeps a model off singular; this keeps the inverse finite)
        d = pixels - mean
        q = np.einsum("ni,ij,nj->n", d, np.linalg.inv(cov), d)
        np.logaddexp(out, np.log(weight) - 0.5 * np.log(np.linalg.det(2 * np.pi * cov)) - 0.5 * q, out=out)
    return out


def _colour_model(small: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Without OpenCV: the undecided pixels whose colour (16 levels a channel) is at least
    twice as common among them as among the background's, and the certain object."""
    q = (small // 16).astype(np.int32)
    q = (q[..., 0] * 16 + q[..., 1]) * 16 + q[..., 2]
    sure_fg = labels == 1
    inside = (labels == 1) | (labels == 3)
    outside = ~inside
    h_in = np.bincount(q[inside], minlength=4096) + 0.5
    h_out = np.bincount(q[outside], minlength=4096) + 0.5
    ratio = (h_in / h_in.sum()) / (h_out / h_out.sum())
    fg = inside & (ratio[q] >= 2.0)
    return fg | sure_fg


def _clean(fg: np.ndarray, keep: np.ndarray | None) -> np.ndarray:
    """``fg`` without specks: the components at least 5 % of the largest's size (and those
    touching ``keep``), holes filled."""
    if not fg.any():
        return fg
    if grabcut_available():
        import cv2

        n, lab, stats, _ = cv2.connectedComponentsWithStats(fg.view(np.uint8), connectivity=8)
        sizes = stats[1:, cv2.CC_STAT_AREA]
        good = np.zeros(n, bool)
        good[1:] = sizes >= 0.05 * sizes.max()
        if keep is not None:
            good[np.unique(lab[keep & fg])] = True
            good[0] = False
        return fill_holes(good[lab])
    from .masks import component

    left, out, parts = fg.copy(), np.zeros_like(fg), []
    while left.any() and len(parts) < 64:   # a texture of specks: the first 64 parts
        y, x = np.argwhere(left)[0]
        part = component(left, (int(y), int(x)), 8)
        left &= ~part
        parts.append(part)
    big = max(int(p.sum()) for p in parts)
    for p in parts:
        if p.sum() >= 0.05 * big or (keep is not None and (p & keep).any()):
            out |= p
    return fill_holes(out)


def _separable(a: np.ndarray, down: np.ndarray, across: np.ndarray) -> np.ndarray:
    """``a`` (H, W, C) correlated with ``down`` along its rows' axis and ``across`` along its
    columns', its edges mirrored (OpenCV's default border)."""
    r, c = len(down) // 2, len(across) // 2
    p = np.pad(a, ((r, r), (0, 0), (0, 0)), mode="reflect")
    a = sum(wt * p[i:i + a.shape[0]] for i, wt in enumerate(down) if wt)
    p = np.pad(a, ((0, 0), (c, c), (0, 0)), mode="reflect")
    return sum(wt * p[:, i:i + a.shape[1]] for i, wt in enumerate(across) if wt)


def _contrast(small: np.ndarray) -> np.ndarray:
    """Each pixel's contrast: the colour gradient's magnitude (Sobel over the three channels,
    after a Gaussian blur of :data:`REACH_BLUR` pixels) over the brightness plus
    :data:`REACH_DARK` levels."""
    x = np.arange(-3 * REACH_BLUR, 3 * REACH_BLUR + 1)
    gauss = np.exp(-x * x / (2 * REACH_BLUR * REACH_BLUR))
    gauss = (gauss / gauss.sum()).astype(np.float32)
    img = _separable(small.astype(np.float32), gauss, gauss)
    smooth, diff = np.array([1, 2, 1], np.float32), np.array([-1, 0, 1], np.float32)
    gx, gy = _separable(img, smooth, diff), _separable(img, diff, smooth)
    return np.sqrt((gx * gx + gy * gy).sum(axis=2)) / (img.mean(axis=2) + REACH_DARK)


def _backdrop_reach(small: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``labels`` with the probable object that a smooth path joins to the outside made probable
    background.

    A smooth path is one of 4-neighbours whose :func:`_contrast` is under :data:`REACH_CONTRAST`.
    An out-of-focus backdrop runs on smoothly past the gesture's edge, where an object's outline
    bounds it; a cut that learns the background from the outside alone takes such a backdrop for
    object where its colours are rare outside.  The labels stay probable: the cut still decides.
    """
    smooth = _contrast(small) < REACH_CONTRAST
    out = labels.copy()
    out[reached(smooth, labels == 0, 4) & (labels == 3)] = 2   # GC_BGD seeds; GC_PR_FGD -> GC_PR_BGD
    return out


def _cut(rgb: np.ndarray, crop: tuple[int, int, int, int], labels_at, grabcut: bool,
         keep=None, gesture: bool = False) -> np.ndarray:
    """One cut on ``rgb[y0:y1, x0:x1]``: ``labels_at(f, shape)`` gives GrabCut's labels of the
    crop reduced by ``f``; returns the full-size selection in the crop's place.  A box's or a
    lasso's cut (``gesture``) starts the backdrop it reaches as probable background and gets
    back the thin parts (:func:`_backdrop_reach`, :func:`_grabcut`)."""
    y0, y1, x0, x1 = crop
    sub = rgb[y0:y1, x0:x1]
    small, f = _reduce(sub, WORK_PIXELS)
    labels = labels_at(f, small.shape[:2])
    if gesture:
        labels = _backdrop_reach(small, labels)
    fg = _grabcut(small, labels, gesture) if grabcut else _colour_model(small, labels)
    fg = _clean(fg, labels == 1 if keep else None)
    out = np.zeros(rgb.shape[:2], bool)
    out[y0:y1, x0:x1] = _edge_refined(sub, small, fg, f)
    return out


def _use_grabcut(grabcut: bool | None) -> bool:
    return _grabcut_choice(grabcut)


# -- the public API ------------------------------------------------------------------------------

def select_box(image: np.ndarray, box, *, grabcut: bool | None = None) -> np.ndarray:
    """The object inside a box dragged over it.

    Everything outside the box is background; inside it, GrabCut finds the object.

    Parameters
    ----------
    image : ndarray, (H, W, 3) or (H, W, 4) uint8
    box : (x0, y0, x1, y1)
        Pixel corners (column, row), in either order, the far ends exclusive; the box must lie
        inside the image.
    grabcut : bool or None
        Use GrabCut (None: where OpenCV is installed); otherwise the colour model.

    Returns
    -------
    ndarray of bool, (H, W)
        The object; nothing outside the box.

    Raises
    ------
    InputError
        A box that reaches outside the image, covers all of it, or is under 2 pixels a side.

    Examples
    --------
    >>> img = np.full((60, 80, 3), 40, np.uint8); img[20:40, 30:50] = 220
    >>> sel = select_box(img, (20, 10, 60, 50))
    >>> bool(sel[30, 40]) and not sel[12, 22]
    True
    """
    rgb = _rgb(image)
    h, w = rgb.shape[:2]
    bx0, by0, bx1, by1 = _box(box, w, h)
    _check_room(h, w, h * w - (bx1 - bx0) * (by1 - by0), "the box")
    inside = np.zeros((h, w), bool)
    inside[by0:by1, bx0:bx1] = True
    return _select_inside(rgb, inside, (by0, by1, bx0, bx1), grabcut)


def select_around(image: np.ndarray, rough_mask: np.ndarray, *, grabcut: bool | None = None,
                  name: str = "the rough mask") -> np.ndarray:
    """The object inside a loose lasso drawn around it.

    Parameters
    ----------
    image : ndarray, (H, W, 3) or (H, W, 4) uint8
    rough_mask : ndarray, (H, W)
        The lasso's filled region (the mask rule of :func:`inpaint.masks.mask_from_array`):
        the object lies within it, everything outside it is background.
    grabcut : bool or None
        Use GrabCut (None: where OpenCV is installed); otherwise the colour model.
    name : str
        What the messages call ``rough_mask`` (an app says "the loop").

    Returns
    -------
    ndarray of bool, (H, W)
        The object; nothing outside ``rough_mask``.

    Raises
    ------
    InputError
        A mask of another size than the image, one holding NaN, an empty one, or one covering
        (nearly) the whole image.
    """
    rgb = _rgb(image)
    h, w = rgb.shape[:2]
    inside = _check_mask(rough_mask, (h, w), name)
    if not inside.any():
        raise InputError(f"{name} is empty: draw around the object")
    _check_room(h, w, h * w - int(inside.sum()), name)
    return _select_inside(rgb, inside, _bounds(inside), grabcut)


def _select_inside(rgb: np.ndarray, inside: np.ndarray, bounds: tuple[int, int, int, int],
                   grabcut: bool | None) -> np.ndarray:
    h, w = rgb.shape[:2]
    crop = _grown(*bounds, BAND, h, w)
    y0, y1, x0, x1 = crop
    sub_inside = inside[y0:y1, x0:x1]
    use = _use_grabcut(grabcut)

    def labels_at(f: int, shape: tuple[int, int], core: float = 0.0) -> np.ndarray:
        small = _sample(sub_inside, f, shape)
        labels = np.where(small, 3, 0).astype(np.uint8)   # GC_PR_FGD inside, GC_BGD outside
        if use and small.any():
            import cv2

            # The gesture's own edge is likelier background than object: a rim inside it,
            # a share of its deepest point's depth, starts as probable background.
            depth = cv2.distanceTransform(np.pad(small, 1).view(np.uint8), cv2.DIST_L2, 3)[1:-1, 1:-1]
            labels[small & (depth <= INNER_RIM * depth.max())] = 2     # GC_PR_BGD
            if core:
                labels[depth >= core * depth.max()] = 1                # GC_FGD
        return labels

    got = _cut(rgb, crop, labels_at, use, gesture=True) & inside
    if use and CORE and got.sum() < LOST * inside.sum():
        # The cut gave (nearly) everything to the background, as it does where the object's
        # colours are the background's too: the gesture's deepest part is the object.
        got = _cut(rgb, crop, lambda f, shape: labels_at(f, shape, CORE), use, gesture=True) & inside
    return got


def select_point(image: np.ndarray, points, *, selection: np.ndarray | None = None,
                 tolerance: float = TOLERANCE, grabcut: bool | None = None) -> np.ndarray:
    """The selection after taps: a tap outside the selection adds the object under it, a tap
    inside it takes away the part of its colour.

    A tap's colour region (:mod:`inpaint.tapselect`: the tapped colour, connected, holes
    filled; its tolerance halved while it covers over :data:`TAP_MAX_SHARE` of the photo) is
    certainly object; GrabCut decides the rest of a box grown from it by :data:`TAP_GROWTH` of
    its size, at least :data:`TAP_MIN_SIDE` of the photo's shorter side across (probable
    object), and of a ring :data:`TAP_REACH` of its size beyond that (probable background),
    with the existing selection there as object too.  A tap
    inside the selection marks its colour region there as background and cuts the selection
    again.

    Parameters
    ----------
    image : ndarray, (H, W, 3) or (H, W, 4) uint8
    points : sequence of (x, y)
        The taps, in order (pixel column, row).
    selection : ndarray of bool, (H, W), optional
        The selection so far (the app's mask); not modified.
    tolerance : float
        The colour region's tolerance, >= 0, in 8-bit levels.
    grabcut : bool or None
        Use GrabCut (None: where OpenCV is installed); otherwise the colour regions alone.

    Returns
    -------
    ndarray of bool, (H, W)

    Raises
    ------
    InputError
        A tap outside the image, a negative tolerance, or a selection of another size.
    """
    rgb = _rgb(image)
    h, w = rgb.shape[:2]
    sel = np.zeros((h, w), bool) if selection is None else _check_mask(selection, (h, w), "the selection").copy()
    tol = _tolerance(tolerance)
    try:
        if isinstance(points, (str, bytes)) or isinstance(points, np.ndarray) and points.ndim != 2:
            raise TypeError
        points = list(points)
    except TypeError:
        raise InputError(f"points are taps (x, y) in a list, got {points!r}") from None
    taps = []
    for p in points:
        u, v = _numbers(p, 2, "a tap is two numbers X,Y (finite)")
        if not (0 <= u < w and 0 <= v < h):  # the pixel whose square holds the point
            raise InputError(f"the tap at {u:g},{v:g} is outside the {w}x{h} image")
        taps.append((int(v), int(u)))
    use = _use_grabcut(grabcut)
    reduced: dict = {}
    for y, x in taps:
        region = _tap_region(rgb, (y, x), tol, reduced)
        if sel[y, x]:
            sel = _subtract(rgb, sel, region, use)
        else:
            sel |= _add(rgb, sel, region, use)
    return sel


def _tap_region(rgb: np.ndarray, yx: tuple[int, int], tol: float, reduced: dict) -> np.ndarray:
    """The colour region under a tap, found on the photo reduced to at most 4 x WORK_PIXELS
    (kept in ``reduced`` for the next tap), at full size."""
    if "small" not in reduced:
        reduced["small"], reduced["f"] = _reduce(rgb, 4 * WORK_PIXELS)
    small, f = reduced["small"], reduced["f"]
    y, x = yx
    colour = rgb[max(y - 1, 0):y + 2, max(x - 1, 0):x + 2].reshape(-1, 3).mean(axis=0, dtype=np.float32)
    seed = (min(y // f, small.shape[0] - 1), min(x // f, small.shape[1] - 1))
    work = small.astype(np.float32)
    region = _colour_region(work, seed, colour, tol, smooth=f == 1)
    while tol > 4 and region.sum() > TAP_MAX_SHARE * region.size:
        tol /= 2
        region = _colour_region(work, seed, colour, tol, smooth=f == 1)
    h, w = rgb.shape[:2]
    yi = np.minimum(np.arange(h) // f, small.shape[0] - 1)
    xi = np.minimum(np.arange(w) // f, small.shape[1] - 1)
    y0, y1, x0, x1 = _bounds(region)
    out = np.zeros((h, w), bool)
    fy0, fy1, fx0, fx1 = y0 * f, min(y1 * f, h), x0 * f, min(x1 * f, w)
    out[fy0:fy1, fx0:fx1] = region[yi[fy0:fy1, None], xi[None, fx0:fx1]]
    out[y, x] = True
    return out


def _add(rgb: np.ndarray, sel: np.ndarray, region: np.ndarray, grabcut: bool) -> np.ndarray:
    h, w = rgb.shape[:2]
    if not grabcut:
        return region
    bounds = _at_least(_bounds(region), TAP_MIN_SIDE * min(h, w), h, w)
    return _tap_cut(rgb, sel, region, bounds, _grown(*bounds, TAP_GROWTH, h, w)) | region


def _at_least(bounds: tuple[int, int, int, int], side: float, h: int, w: int) -> tuple[int, int, int, int]:
    """``(y0, y1, x0, x1)`` widened about its centre to at least ``side`` a side, inside the image."""
    y0, y1, x0, x1 = bounds
    gy, gx = max(int(side) - (y1 - y0), 0) // 2, max(int(side) - (x1 - x0), 0) // 2
    return max(y0 - gy, 0), min(y1 + gy, h), max(x0 - gx, 0), min(x1 + gx, w)


def _tap_cut(rgb: np.ndarray, sel: np.ndarray, region: np.ndarray, bounds, box) -> np.ndarray:
    """One tap's cut: ``box`` probable object but for its corners (:data:`TAP_ELLIPSE`), a ring
    :data:`TAP_REACH` of ``bounds``' size beyond it probable background, the tap's colour region
    and the selection certain object."""
    h, w = rgb.shape[:2]
    reach = _grown(*bounds, TAP_GROWTH + TAP_REACH, h, w)
    crop = _grown(*reach, BAND, h, w)
    y0, y1, x0, x1 = crop
    inbox = np.zeros((y1 - y0, x1 - x0), np.uint8)
    inbox[reach[0] - y0:reach[1] - y0, reach[2] - x0:reach[3] - x0] = 2     # GC_PR_BGD
    inbox[box[0] - y0:box[1] - y0, box[2] - x0:box[3] - x0] = 3             # GC_PR_FGD
    yy = (np.arange(y0, y1) + 0.5 - (box[0] + box[1]) / 2) / max((box[1] - box[0]) / 2, 1)
    xx = (np.arange(x0, x1) + 0.5 - (box[2] + box[3]) / 2) / max((box[3] - box[2]) / 2, 1)
    inbox[(inbox == 3) & (yy[:, None] ** 2 + xx[None, :] ** 2 > TAP_ELLIPSE ** 2)] = 2   # the corners
    sure = (region | sel)[y0:y1, x0:x1]

    def labels_at(f: int, shape: tuple[int, int]) -> np.ndarray:
        labels = _sample(inbox, f, shape).copy()
        labels[_sample(sure, f, shape)] = 1          # GC_FGD
        return labels

    return _cut(rgb, crop, labels_at, True, keep=True)


def _subtract(rgb: np.ndarray, sel: np.ndarray, region: np.ndarray, grabcut: bool) -> np.ndarray:
    gone = region & sel
    if not grabcut:
        return sel & ~gone
    h, w = rgb.shape[:2]
    crop = _grown(*_bounds(sel), BAND, h, w)
    y0, y1, x0, x1 = crop
    inside, out = sel[y0:y1, x0:x1], gone[y0:y1, x0:x1]

    def labels_at(f: int, shape: tuple[int, int]) -> np.ndarray:
        labels = np.where(_sample(inside, f, shape), 3, 0).astype(np.uint8)
        labels[_sample(out, f, shape)] = 0
        return labels

    return _cut(rgb, crop, labels_at, grabcut) & sel & ~gone
