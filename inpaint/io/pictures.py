"""The pictures the edge layer hands around: an image's 8-bit view and its full-depth pixels."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image


@dataclasses.dataclass
class DeepImage:
    """A 16-bit-per-channel grey+alpha, RGB or RGBA image, which Pillow has no mode for.

    Attributes
    ----------
    array : ndarray, (H, W, C) uint16, C in {2, 3, 4}
    info : dict
        Pillow-style ``info`` (``dpi``...).
    """

    array: np.ndarray
    info: dict = dataclasses.field(default_factory=dict)

    @property
    def mode(self) -> str:
        """``'LA;16'``, ``'RGB;16'`` or ``'RGBA;16'``."""
        return {2: "LA", 3: "RGB", 4: "RGBA"}[self.array.shape[2]] + ";16"

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)."""
        return int(self.array.shape[1]), int(self.array.shape[0])

    def to_8bit(self) -> Image.Image:
        """The image with 8 bits per channel (the high byte), as a Pillow image."""
        img = Image.fromarray((self.array >> 8).astype(np.uint8), self.mode.split(";")[0])
        img.info.update(self.info)
        return img


@dataclasses.dataclass
class Picture:
    """An upright image: its 8-bit RGB view plus everything needed to write it back.

    Attributes
    ----------
    rgb : ndarray, (H, W, 3) uint8
        The 8-bit view the fill and the carver work on.
    image : PIL.Image.Image
        Upright image in its original mode (for 16-bit colour: the 8-bit high bytes).
    exif : PIL.Image.Exif
    icc_profile : bytes or None
    path : pathlib.Path or None
    wide : ndarray or None
        (H, W, C) uint16: the full-depth pixels of a 16-bit colour (or grey+alpha) image.
    scale : float
        Full-depth units per step of the 8-bit view in the colour channels (1 for 8-bit
        images, 257 for 16-bit, 1/255 for a float image whose values are 0..1).
    frames : int
        Frames in the file (only the first is used).
    """

    rgb: np.ndarray
    image: Image.Image
    exif: Any
    icc_profile: bytes | None
    path: Path | None = None
    wide: np.ndarray | None = None
    scale: float = 1.0
    frames: int = 1

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)."""
        return self.image.size

    @property
    def mode(self) -> str:
        """The mode results are written in (``'RGB;16'``... for 16-bit colour)."""
        return DeepImage(self.wide).mode if self.wide is not None else self.image.mode

    @property
    def full(self) -> np.ndarray:
        """The pixels at full depth."""
        return self.wide if self.wide is not None else np.asarray(self.image)
