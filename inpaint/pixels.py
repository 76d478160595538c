"""8-bit RGB to and from the kernels' RGBA layout (one ``uchar4`` per pixel).

Both go a channel at a time: numpy copies a strided 3-of-4-byte slice (``rgba[..., :3]``)
byte by byte, three to four times slower than three plane copies, which a phone photo or a
fill's result notices.
"""

from __future__ import annotations

import numpy as np

__all__ = ["to_rgba", "to_rgb"]


def to_rgba(rgb: np.ndarray, alpha: int | np.ndarray = 0) -> np.ndarray:
    """An ``(H, W, 4)`` uint8 array: the channels of ``rgb`` ((H, W, 3) or more) and ``alpha``
    (a value or an (H, W) array) as the fourth."""
    h, w = rgb.shape[:2]
    out = np.empty((h, w, 4), np.uint8)
    for c in range(3):
        out[..., c] = rgb[..., c]
    out[..., 3] = alpha
    return out


def to_rgb(rgba: np.ndarray) -> np.ndarray:
    """A new C-contiguous ``(H, W, 3)`` uint8 array of the first three channels of ``rgba``."""
    out = np.empty(rgba.shape[:2] + (3,), np.uint8)
    for c in range(3):
        out[..., c] = rgba[..., c]
    return out
