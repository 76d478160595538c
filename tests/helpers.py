"""Small helpers the command-line tests share."""

from pathlib import Path

import numpy as np
from PIL import Image


def save_mask(path: Path, mask: np.ndarray) -> Path:
    """Write ``mask`` as an 8-bit mask file (255 on the object) and return its path."""
    Image.fromarray(np.where(mask, 255, 0).astype(np.uint8)).save(path)
    return path


def box_mask(h: int, w: int, rows: slice, cols: slice) -> np.ndarray:
    """An (h, w) mask that is True on ``rows`` x ``cols``."""
    m = np.zeros((h, w), bool)
    m[rows, cols] = True
    return m
