"""Small helpers the command-line tests share."""

from pathlib import Path

import numpy as np
import pytest
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


def first_by_default(values) -> list:
    """Parameter values of which the first runs in the default selection and the rest in the slow
    one (``pytest -m slow``): the default keeps one case of each kind, CI runs them all."""
    values = list(values)
    return values[:1] + [pytest.param(v, marks=pytest.mark.slow) for v in values[1:]]
