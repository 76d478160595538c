"""Fill-quality metrics of ``inpaint bench --quality``: PSNR and detail over the hole, SSIM around it.

* :func:`hole_psnr`: PSNR over the hole's pixels (RGB, data range 255), capped at
  :data:`PSNR_CAP` dB so that a perfect fill stays a finite number in means and JSON.
* :func:`hole_ssim`: mean SSIM (Wang et al. 2004; Gaussian 11x11 window, sigma 1.5,
  population covariance, K1 = 0.01, K2 = 0.03, per colour channel then averaged) over the
  hole's bounding box grown by 8 px and clipped to the image.  It is scikit-image's
  ``structural_similarity`` when scikit-image is installed, else :func:`ssim_numpy`, the
  same computation in numpy.
* :func:`coarse_ssim`: SSIM of the fill and of the truth after the same Gaussian low-pass
  (sigma 3 px per channel, reflected borders), over the hole's bounding box grown by 8 px,
  with scikit-image's default SSIM (7x7 uniform window, sample covariance).  A right, sharp
  fill and a blurred one low-pass alike, so blur cannot win it; wrong content or a broken
  line loses.  Plain SSIM rewards blur.
* :func:`detail_ratio`: mean gradient magnitude of the fill over the hole eroded by 2 px,
  divided by the same on the truth.  1.0 means as much detail as the truth; a diffusion
  fill (smooth) scores about 0.3.  SSIM rewards blur, so this tells smooth fills apart.
"""

from __future__ import annotations

import math

import numpy as np

#: PSNR of a fill identical to the truth (an MSE below 255² * 1e-10).
PSNR_CAP = 100.0
#: The SSIM box is the hole's bounding box grown by this many pixels on each side.
SSIM_GROW = 8
#: Gaussian window of SSIM: sigma and truncation (skimage: radius int(3.5 * 1.5 + 0.5) = 5).
SSIM_SIGMA = 1.5
SSIM_TRUNCATE = 3.5
#: Coarse SSIM: the low-pass's sigma (px) and truncation (scipy's default), and the side of
#: scikit-image's default uniform SSIM window.
COARSE_SIGMA = 3.0
COARSE_TRUNCATE = 4.0
COARSE_WINDOW = 7
#: The detail ratio measures the hole eroded by this many pixels (5x5 square).
DETAIL_ERODE = 2
#: ... unless that leaves fewer pixels than this; then the whole hole.
DETAIL_MIN_PIXELS = 10


def hole_psnr(result: np.ndarray, truth: np.ndarray, mask: np.ndarray) -> float:
    """PSNR (dB, peak 255) over the RGB values of the hole's pixels, at most :data:`PSNR_CAP`."""
    a = result[mask].astype(np.float64)
    b = truth[mask].astype(np.float64)
    if a.size == 0:
        return float("nan")
    mse = float(np.mean((a - b) ** 2))
    if mse <= 255.0 ** 2 * 10 ** (-PSNR_CAP / 10):
        return PSNR_CAP
    return 10 * math.log10(255.0 ** 2 / mse)


def bbox(mask: np.ndarray) -> tuple[int, int, int, int]:
    """``(x0, y0, x1, y1)`` of the True pixels, end-exclusive."""
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        raise ValueError("the mask is empty")
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def ssim_box(mask: np.ndarray, grow: int = SSIM_GROW, min_side: int = 11) -> tuple[int, int, int, int]:
    """The hole's bounding box grown by ``grow`` px, clipped to the image.

    A box thinner than the 11-pixel window (a thin hole along an image border) is widened
    to ``min_side`` where the image allows it.
    """
    h, w = mask.shape
    x0, y0, x1, y1 = bbox(mask)
    x0, y0, x1, y1 = max(0, x0 - grow), max(0, y0 - grow), min(w, x1 + grow), min(h, y1 + grow)

    def widen(lo: int, hi: int, size: int) -> tuple[int, int]:
        need = min(min_side, size) - (hi - lo)
        if need > 0:
            lo = max(0, lo - (need + 1) // 2)
            hi = min(size, lo + min(min_side, size))
            lo = max(0, hi - min(min_side, size))
        return lo, hi

    x0, x1 = widen(x0, x1, w)
    y0, y1 = widen(y0, y1, h)
    return x0, y0, x1, y1


def _gaussian_1d(sigma: float, truncate: float) -> np.ndarray:
    r = int(truncate * sigma + 0.5)
    x = np.arange(-r, r + 1, dtype=np.float64)
    w = np.exp(-0.5 * (x / sigma) ** 2)
    return w / w.sum()


def _filter(img: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Separable correlation with ``w`` along both axes, borders mirrored like scipy's 'reflect'."""
    r = len(w) // 2
    out = img
    for axis in (0, 1):
        pad = [(0, 0)] * out.ndim
        pad[axis] = (r, r)
        p = np.pad(out, pad, mode="symmetric")  # (d c b a | a b c d): scipy.ndimage 'reflect'
        n = out.shape[axis]
        acc = np.zeros_like(out)
        for i, wi in enumerate(w):
            acc += wi * np.take(p, np.arange(i, i + n), axis=axis)
        out = acc
    return out


def ssim_numpy(a: np.ndarray, b: np.ndarray, data_range: float = 255.0, sigma: float = SSIM_SIGMA,
               truncate: float = SSIM_TRUNCATE, uniform: int | None = None) -> float:
    """Mean SSIM of two (H, W) or (H, W, C) images, as scikit-image computes it with
    ``gaussian_weights=True, sigma=1.5, use_sample_covariance=False, channel_axis=-1``; with
    ``uniform=N``, as it does by default (an N x N uniform window, the sample covariance)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    if a.ndim == 3:
        return float(np.mean([ssim_numpy(a[..., c], b[..., c], data_range, sigma, truncate, uniform)
                              for c in range(a.shape[2])]))
    w = _gaussian_1d(sigma, truncate) if uniform is None else np.full(uniform, 1.0 / uniform)
    pad = len(w) // 2
    if min(a.shape) < len(w):
        raise ValueError(f"SSIM needs images of at least {len(w)}x{len(w)} pixels, got {a.shape}")
    n = len(w) ** 2
    norm = 1.0 if uniform is None else n / (n - 1)  # the sample covariance
    ux, uy = _filter(a, w), _filter(b, w)
    vx = norm * (_filter(a * a, w) - ux * ux)
    vy = norm * (_filter(b * b, w) - uy * uy)
    vxy = norm * (_filter(a * b, w) - ux * uy)
    c1, c2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
    s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
    return float(s[pad:-pad, pad:-pad].mean(dtype=np.float64))


def ssim(a: np.ndarray, b: np.ndarray) -> float:
    """Mean colour SSIM of two uint8 RGB images (scikit-image when installed, else numpy)."""
    try:
        from skimage.metrics import structural_similarity
    except ImportError:
        return ssim_numpy(a, b)
    return float(structural_similarity(a, b, gaussian_weights=True, sigma=SSIM_SIGMA, use_sample_covariance=False,
                                       channel_axis=-1, data_range=255))


def box_psnr(result: np.ndarray, truth: np.ndarray, box: tuple[int, int, int, int]) -> float:
    """PSNR (dB, peak 255, uncapped) over the RGB pixels of ``box`` = (x0, y0, x1, y1): the
    paper-table benchmark's measure."""
    x0, y0, x1, y1 = box
    a = result[y0:y1, x0:x1].astype(np.float64)
    b = truth[y0:y1, x0:x1].astype(np.float64)
    mse = float(np.mean((a - b) ** 2))
    return float("inf") if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def luma(rgb: np.ndarray) -> np.ndarray:
    """BT.601 luma of an RGB image, float64."""
    rgb = rgb.astype(np.float64)
    return 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]


def box_ssim(result: np.ndarray, truth: np.ndarray, box: tuple[int, int, int, int]) -> float:
    """Mean SSIM (:func:`ssim_numpy`) of the luma over the pixels of ``box``: the paper-table
    benchmark's measure.

    The SSIM map is evaluated at every pixel of the box with windows reaching into the
    surrounding image (reflected at the image border), so a box thinner than the window (Hill's
    10-pixel strip) is still measured.
    """
    x0, y0, x1, y1 = box
    r = len(_gaussian_1d(SSIM_SIGMA, SSIM_TRUNCATE)) // 2
    a = np.pad(luma(result), r, mode="reflect")[y0:y1 + 2 * r, x0:x1 + 2 * r]
    b = np.pad(luma(truth), r, mode="reflect")[y0:y1 + 2 * r, x0:x1 + 2 * r]
    return ssim_numpy(a, b)


def hole_ssim(result: np.ndarray, truth: np.ndarray, mask: np.ndarray) -> float:
    """SSIM over :func:`ssim_box` of the hole."""
    x0, y0, x1, y1 = ssim_box(mask)
    return ssim(result[y0:y1, x0:x1], truth[y0:y1, x0:x1])


def low_pass(rgb: np.ndarray, box: tuple[int, int, int, int], sigma: float = COARSE_SIGMA,
             truncate: float = COARSE_TRUNCATE) -> np.ndarray:
    """The pixels of ``box`` = (x0, y0, x1, y1) of ``rgb`` blurred by a Gaussian of ``sigma`` px per
    channel, float64, as blurring the whole image with mirrored borders (scipy's 'reflect') gives
    them: only the box and the kernel's reach around it are filtered."""
    x0, y0, x1, y1 = box
    h, w = rgb.shape[:2]
    k = _gaussian_1d(sigma, truncate)
    r = len(k) // 2
    ya, yb, xa, xb = max(0, y0 - r), min(h, y1 + r), max(0, x0 - r), min(w, x1 + r)
    out = _filter(np.asarray(rgb[ya:yb, xa:xb], np.float64), k)
    return out[y0 - ya:y1 - ya, x0 - xa:x1 - xa]


def coarse_ssim(result: np.ndarray, truth: np.ndarray, mask: np.ndarray) -> float:
    """SSIM of ``result`` and ``truth`` after the same :func:`low_pass`, over the hole's bounding
    box grown by :data:`SSIM_GROW` px (:func:`ssim_box`): is the fill right, whatever its sharpness?

    scikit-image's ``structural_similarity`` with its defaults (a :data:`COARSE_WINDOW` px uniform
    window, the sample covariance), colour, data range 255; without scikit-image,
    :func:`ssim_numpy` computes the same.
    """
    box = ssim_box(mask, min_side=COARSE_WINDOW)
    a, b = low_pass(result, box), low_pass(truth, box)
    try:
        from skimage.metrics import structural_similarity
    except ImportError:
        return ssim_numpy(a, b, uniform=COARSE_WINDOW)
    return float(structural_similarity(a, b, win_size=COARSE_WINDOW, channel_axis=-1, data_range=255))


def erode(mask: np.ndarray, radius: int) -> np.ndarray:
    """Pixels whose whole (2r+1)x(2r+1) square lies in ``mask`` (outside the image counts as not)."""
    m = np.pad(np.asarray(mask, bool), radius, constant_values=False)
    h, w = mask.shape
    out = np.ones((h, w), bool)
    for dy in range(2 * radius + 1):
        for dx in range(2 * radius + 1):
            out &= m[dy:dy + h, dx:dx + w]
    return out


def gradient_magnitude(rgb: np.ndarray) -> np.ndarray:
    """|grad| of the mean of R, G and B, by central differences (one-sided at the image border)."""
    g = np.asarray(rgb, np.float64).mean(axis=2)
    gy, gx = np.gradient(g)
    return np.hypot(gx, gy)


def detail_region(mask: np.ndarray) -> np.ndarray:
    """The hole eroded by :data:`DETAIL_ERODE` px, or the whole hole if that leaves too few pixels."""
    inner = erode(mask, DETAIL_ERODE)
    return inner if int(inner.sum()) >= DETAIL_MIN_PIXELS else np.asarray(mask, bool)


def detail_ratio(result: np.ndarray, truth: np.ndarray, mask: np.ndarray) -> float:
    """Mean gradient magnitude of ``result`` over :func:`detail_region` / the same of ``truth``."""
    region = detail_region(mask)
    want = float(gradient_magnitude(truth)[region].mean())
    got = float(gradient_magnitude(result)[region].mean())
    if want == 0.0:
        return 1.0 if got == 0.0 else float("inf")
    return got / want


#: SWD: patch side, erosion of the hole (so a patch lies wholly in it), directions and their seed.
SWD_PATCH = 7
SWD_ERODE = SWD_PATCH // 2
SWD_DIRECTIONS = 64
SWD_SEED = 20261124


def swd_directions(dim: int, count: int = SWD_DIRECTIONS, seed: int = SWD_SEED) -> np.ndarray:
    """``count`` unit vectors of ``dim`` values, from a fixed seed (the same for every call)."""
    d = np.random.default_rng(seed).standard_normal((count, dim))
    return d / np.linalg.norm(d, axis=1, keepdims=True)


def swd_region(mask: np.ndarray) -> np.ndarray:
    """Centres of the SWD's patches: the hole eroded by :data:`SWD_ERODE` px (each patch lies in the
    hole), or the whole hole when that leaves fewer than :data:`DETAIL_MIN_PIXELS` (thin holes)."""
    inner = erode(mask, SWD_ERODE)
    return inner if int(inner.sum()) >= DETAIL_MIN_PIXELS else np.asarray(mask, bool)


def patches(rgb: np.ndarray, centres: np.ndarray, side: int = SWD_PATCH) -> np.ndarray:
    """The ``side`` x ``side`` RGB patches centred on ``centres`` (bool map), as rows of
    ``side * side * 3`` floats; the image is edge-padded so border patches are whole."""
    r = side // 2
    p = np.pad(np.asarray(rgb, np.float64), ((r, r), (r, r), (0, 0)), mode="edge")
    ys, xs = np.nonzero(centres)
    out = np.empty((len(ys), side, side, 3))
    for dy in range(side):
        for dx in range(side):
            out[:, dy, dx] = p[ys + dy, xs + dx]
    return out.reshape(len(ys), -1)


def swd(result: np.ndarray, truth: np.ndarray, mask: np.ndarray) -> float:
    """Sliced Wasserstein-1 distance (grey levels) between the 7x7 RGB patches of ``result`` and
    of ``truth`` centred in :func:`swd_region`: the mean over :data:`SWD_DIRECTIONS` seeded unit
    directions of the mean absolute difference of the sorted projections.

    It compares the two sets of patches as distributions, so a fill with the truth's texture in
    other places scores near 0, and a smooth fill of a textured hole scores high (SSIM and PSNR
    reward the smooth fill instead)."""
    region = swd_region(mask)
    a, b = patches(result, region), patches(truth, region)
    if len(a) == 0:
        return float("nan")
    dirs = swd_directions(a.shape[1])
    pa = np.sort(a @ dirs.T, axis=0)
    pb = np.sort(b @ dirs.T, axis=0)
    return float(np.abs(pa - pb).mean())


#: Control pseudo-methods: the truth shifted sideways (sharp, plausible, misplaced) and blurred.
CONTROLS = {"truth_shift4": ("shift", 4), "truth_shift8": ("shift", 8),
            "truth_blur2": ("blur", 2.0), "truth_blur4": ("blur", 4.0)}


def gaussian_blur(rgb: np.ndarray, sigma: float) -> np.ndarray:
    """``rgb`` blurred by a Gaussian of ``sigma`` px (truncated at 4 sigma, mirrored borders), uint8."""
    w = _gaussian_1d(sigma, 4.0)
    return np.clip(np.rint(_filter(np.asarray(rgb, np.float64), w)), 0, 255).astype(np.uint8)


def control_fill(kind: str, amount: float, image: np.ndarray, truth: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A control's result: ``image`` with the hole taken from the truth shifted right by ``amount``
    px (the left edge repeated) or blurred with sigma ``amount``."""
    if kind == "shift":
        s = int(amount)
        src = np.concatenate([np.repeat(truth[:, :1], s, axis=1), truth[:, :-s]], axis=1) if s else truth
    elif kind == "blur":
        src = gaussian_blur(truth, amount)
    else:
        raise ValueError(f"unknown control {kind!r}")
    out = np.array(image, np.uint8, copy=True)
    out[mask] = src[mask]
    return out
