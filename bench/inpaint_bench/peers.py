"""Classical inpainting libraries that ``inpaint bench --quality`` compares ours with.

Each peer is a function ``fill(image, mask) -> image``: ``image`` is (H, W, 3) uint8 RGB,
``mask`` (H, W) bool with True on the hole; the result is (H, W, 3) uint8 and keeps every
pixel outside the hole exactly.  Peers that also change known pixels (OpenCV's FSR and
SHIFTMAP, resynthesizer, PatchMatch with its seam blending) get only their hole pixels
pasted into the input.  A peer whose library is not importable is left out; :func:`available_peers`
says which.  They come from the ``compare`` extra: ``pip install 'inpaint-bench[compare]'``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

INSTALL_HINT = "pip install 'inpaint-bench[compare]' (pip install './bench[compare]' from a checkout)"


@dataclass(frozen=True)
class Peer:
    """One peer method: a short name (table column), a description and the fill function."""

    name: str
    label: str
    library: str
    fill: Callable[[np.ndarray, np.ndarray], np.ndarray]


def keep_known(image: np.ndarray, mask: np.ndarray, result: np.ndarray) -> np.ndarray:
    """``image`` with the hole's pixels taken from ``result``."""
    out = np.array(image, np.uint8, copy=True)
    out[mask] = np.asarray(result)[..., :3][mask]
    return out


def _cv2():
    import cv2  # type: ignore[import-not-found]

    return cv2


def _opencv(flag_name: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    cv2 = _cv2()
    flag = getattr(cv2, flag_name)

    def fill(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return cv2.inpaint(np.ascontiguousarray(image), mask.astype(np.uint8) * 255, 3, flag)

    return fill


def _opencv_fsr() -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    cv2 = _cv2()
    xphoto = cv2.xphoto  # AttributeError without opencv-contrib

    def fill(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
        known = (~mask).astype(np.uint8) * 255  # xphoto's convention: non-zero = valid pixel
        dst = np.zeros_like(image)
        xphoto.inpaint(np.ascontiguousarray(image), known, dst, xphoto.INPAINT_FSR_FAST)
        return keep_known(image, mask, dst)  # FSR also changes known pixels

    return fill


def _opencv_shiftmap() -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    cv2 = _cv2()
    xphoto = cv2.xphoto  # AttributeError without opencv-contrib

    def fill(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
        # He & Sun's statistics of patch offsets.  For 3 channels OpenCV expects CIELab-like
        # input (first channel = intensity), so the fill runs in Lab.
        lab = cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2Lab)
        known = (~mask).astype(np.uint8) * 255  # xphoto's convention: non-zero = valid pixel
        dst = np.zeros_like(lab)
        xphoto.inpaint(lab, known, dst, xphoto.INPAINT_SHIFTMAP)
        return keep_known(image, mask, cv2.cvtColor(dst, cv2.COLOR_Lab2RGB))  # Lab round trip: known pixels move

    return fill


def _biharmonic() -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    from skimage.restoration import inpaint_biharmonic  # type: ignore[import-not-found]

    def fill(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = inpaint_biharmonic(image, mask, channel_axis=-1)  # floats in [0, 1]
        return np.clip(np.rint(out * 255.0), 0, 255).astype(np.uint8)

    return fill


def _resynthesizer() -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    import resynthesizer  # type: ignore[import-not-found]
    from PIL import Image

    def fill(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
        # GIMP's Heal Selection: no tiling, context all around, its neighbourhood and probes.
        params = resynthesizer.getDefaultParams()
        params.isMakeSeamlesslyTileableHorizontally = 0
        params.isMakeSeamlesslyTileableVertically = 0
        params.matchContextType = 1
        params.sensitivityToOutliers = 0.117
        params.patchSize = 16
        params.maxProbeCount = 500
        res = resynthesizer.resynthesize(Image.fromarray(image), Image.fromarray(mask.astype(np.uint8) * 255),
                                         params)
        return keep_known(image, mask, np.asarray(res.convert("RGB")))

    return fill


def _patchmatch() -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    from patchmatch_cython import inpaint_pyramid  # type: ignore[import-not-found]

    def fill(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
        res = inpaint_pyramid(np.ascontiguousarray(image), mask, patch_size=5, seed=0)
        return keep_known(image, mask, res)  # its seam blending touches known pixels

    return fill


#: PyPatchMatch's patch radius: 3 compares 7x7 patches, as IOPaint and InvokeAI call it.
PYPATCHMATCH_RADIUS = 3


def _pypatchmatch() -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    import patchmatch  # type: ignore[import-not-found]

    if not patchmatch.patchmatch_available:  # the package imports without its native library
        raise ImportError("pypatchmatch's native library did not load")

    def fill(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
        patchmatch.set_random_seed(0)  # each call from the same seed: the same input gives the same fill
        res = patchmatch.inpaint(np.ascontiguousarray(image), mask, patch_size=PYPATCHMATCH_RADIUS)
        return keep_known(image, mask, res)

    return fill


#: name -> (label, library, factory building the fill function; raises ImportError/AttributeError if missing)
PEERS: dict[str, tuple[str, str, Callable[[], Callable[[np.ndarray, np.ndarray], np.ndarray]]]] = {
    "opencv_telea": ("OpenCV Telea (cv2.inpaint, radius 3)", "opencv-contrib-python-headless",
                     lambda: _opencv("INPAINT_TELEA")),
    "opencv_ns": ("OpenCV Navier-Stokes (cv2.inpaint, radius 3)", "opencv-contrib-python-headless",
                  lambda: _opencv("INPAINT_NS")),
    "opencv_fsr": ("OpenCV FSR fast (cv2.xphoto.inpaint)", "opencv-contrib-python-headless", _opencv_fsr),
    "opencv_shiftmap": ("OpenCV SHIFTMAP (cv2.xphoto.inpaint; He & Sun's statistics of patch offsets, in Lab)",
                        "opencv-contrib-python-headless", _opencv_shiftmap),
    "biharmonic": ("scikit-image inpaint_biharmonic", "scikit-image", _biharmonic),
    "resynthesizer": ("resynthesizer (GIMP's Heal Selection)", "resynthesizer", _resynthesizer),
    "patchmatch": ("PatchMatch (patchmatch_cython.inpaint_pyramid, patch 5, seed 0)", "patchmatch-cython",
                   _patchmatch),
    "pypatchmatch": (f"PyPatchMatch (patchmatch.inpaint, patch radius {PYPATCHMATCH_RADIUS}, seed 0; the classical "
                     "engine of IOPaint and InvokeAI)", "pypatchmatch", _pypatchmatch),
}


def available_peers(names: list[str] | None = None) -> tuple[list[Peer], list[str]]:
    """The peers among ``names`` (default: all) whose library imports, and the names of the others.

    Raises
    ------
    ValueError
        For a name that is not a peer.
    """
    names = list(PEERS) if names is None else names
    bad = [n for n in names if n not in PEERS]
    if bad:
        raise ValueError(f"unknown peer(s) {', '.join(bad)}; peers are {', '.join(PEERS)}")
    found, missing = [], []
    for n in names:
        label, library, factory = PEERS[n]
        try:
            found.append(Peer(n, label, library, factory()))
        except (ImportError, AttributeError, OSError):
            missing.append(n)
    return found, missing
