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
        Pillow-style ``info`` (``dpi``; ``transparency``: PNG's 16-bit colour key, a grey value
        or an (r, g, b) triple).
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
        key = self.info.get("transparency")
        if key is not None:  # a colour key of the 8-bit image: its high bytes
            img.info["transparency"] = tuple(int(v) >> 8 for v in key) if isinstance(key, tuple) else int(key) >> 8
        return img


@dataclasses.dataclass
class Source:
    """What an output needs to know of the file a picture came from, to be written as it came in.

    Attributes
    ----------
    format : str or None
        Pillow's format name (``'JPEG'``, ``'PNG'``...).
    lossless : bool or None
        For WebP: whether the file is lossless (VP8L); None for other formats.
    xmp : bytes or None
        The XMP packet.
    orientation : int
        The EXIF orientation of the stored pixels (1 when upright or absent).
    qtables : dict or None
        JPEG: the quantisation tables (Pillow's ``quantization``).
    subsampling : int or None
        JPEG: Pillow's chroma subsampling code (0 = 4:4:4, 1 = 4:2:2, 2 = 4:2:0, -1 other).
    progressive : bool
        JPEG: progressive.
    trailer : int
        JPEG: bytes after its end marker (a phone's motion photo keeps its video there).
    segments : list of bytes
        JPEG: the marker segments a new encode would not write of its own (comments, IPTC and
        the other APPn blocks, extended XMP), as stored.
    png_chunks : list of (bytes, bytes)
        PNG: its text, gamma and colour chunks (``tEXt``, ``zTXt``, ``iTXt``, ``gAMA``,
        ``cHRM``, ``sRGB``, ``sBIT``) as ``(type, data)``.
    comment : bytes or None
        GIF: its comment.
    dropped : list of str
        What the reader could not carry into the picture, in a note's words (a PNG's background
        colour, an ICO's other sizes...).
    stamp : tuple or None
        A JPEG's file as it was read (device, inode, size, modification time): its blocks are
        copied from the file later, only if it is still that file.
    dtype : str or None
        The grey samples' type in the file where Pillow reads them into its 32-bit mode ``I``:
        ``'uint16'`` (a 16-bit PGM), ``'int16'`` (a signed 16-bit TIFF) or ``'uint32'`` (an
        unsigned 32-bit TIFF, whose values Pillow holds as the same bits, signed).  None otherwise.
    associated : bool
        TIFF: its alpha is associated: the colours are stored multiplied by it, and the picture
        holds them so (an output written as a TIFF stores them so again, another format divides
        the alpha out).
    """

    format: str | None = None
    lossless: bool | None = None
    xmp: bytes | None = None
    orientation: int = 1
    qtables: dict | None = None
    subsampling: int | None = None
    progressive: bool = False
    trailer: int = 0
    segments: list = dataclasses.field(default_factory=list)
    png_chunks: list = dataclasses.field(default_factory=list)
    comment: bytes | None = None
    dtype: str | None = None
    associated: bool = False
    dropped: list = dataclasses.field(default_factory=list)
    stamp: tuple | None = None


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
        Full-depth units per step of the 8-bit view in the colour channels: 1 for 8-bit
        images, 257 for 16-bit ones that use the 16th bit, ``2 ** (bits - 8)`` for deeper ones
        whose values use fewer bits (12-bit data in a 16-bit file: 16; see
        :func:`inpaint.io.read.int_scale`), 1/255 for a float image whose values are 0..1.
    frames : int
        Frames in the file (only the first is used).
    source : Source
        What the file it came from held beyond its pixels (format, lossless, XMP, JPEG tables).
    """

    rgb: np.ndarray
    image: Image.Image
    exif: Any
    icc_profile: bytes | None
    path: Path | None = None
    wide: np.ndarray | None = None
    scale: float = 1.0
    frames: int = 1
    source: Source = dataclasses.field(default_factory=Source)

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
