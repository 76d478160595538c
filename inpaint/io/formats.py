"""What each output format can hold: the one table the checks before the work and the encoders read.

A picture is written in a format as it came in where the format can hold it (mode, depth,
transparency, colour space, metadata, lossless pixels); what it cannot hold is converted, and
:func:`inpaint.io.plan.plan_output` says so before any heavy work.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Holds:
    """What one output format can hold.

    Attributes
    ----------
    modes : frozenset of str
        Pillow modes written as they are (others are converted, with a note when that loses
        something).
    deep : bool
        16-bit-per-channel grey+alpha and colour (``LA;16``, ``RGB;16``, ``RGBA;16``).
    key : frozenset of str
        Modes whose colour-key transparency (PNG's tRNS, GIF's transparent index) is written.
    exif, icc, xmp : bool
        Metadata the writer stores.
    dpi : bool
        Whether the writer stores the resolution (dots per inch).
    exif_limit : int or None
        Largest EXIF block in bytes (JPEG: one APP1 segment, "Exif\\0\\0" included).
    lossy : str
        ``'never'`` (lossless), ``'always'`` (JPEG) or ``'option'`` (WebP: lossless or lossy).
    max_side : int or None
        Largest width or height.
    """

    modes: frozenset
    deep: bool = False
    key: frozenset = frozenset()
    exif: bool = False
    icc: bool = False
    xmp: bool = False
    dpi: bool = False
    exif_limit: int | None = None
    lossy: str = "never"
    max_side: int | None = None


def _m(*modes: str) -> frozenset:
    return frozenset(modes)


#: Per output format, what it can hold (Pillow's writers, measured by writing and reading back).
#: PSD, FITS, CUR... are read-only in Pillow; ICNS, PDF, EPS, WMF... are not pictures to edit.
FORMATS: dict[str, Holds] = {
    "PNG": Holds(_m("1", "L", "LA", "P", "RGB", "RGBA", "I;16"), deep=True, key=_m("1", "L", "P", "RGB", "I;16"),
                 exif=True, icc=True, xmp=True, dpi=True),
    "JPEG": Holds(_m("L", "RGB", "CMYK"), exif=True, icc=True, xmp=True, dpi=True, exif_limit=65533, lossy="always",
                  max_side=65500),
    "TIFF": Holds(_m("1", "L", "LA", "P", "PA", "RGB", "RGBA", "CMYK", "LAB", "YCbCr", "I;16", "I;16B", "I", "F"),
                  deep=True, exif=True, icc=True, xmp=True, dpi=True),
    "WEBP": Holds(_m("RGB", "RGBA"), exif=True, icc=True, xmp=True, lossy="option", max_side=16383),
    "BMP": Holds(_m("1", "L", "P", "RGB"), dpi=True, max_side=2 ** 31 - 1),
    "DIB": Holds(_m("1", "L", "P", "RGB"), dpi=True),
    "GIF": Holds(_m("L", "P"), key=_m("L", "P"), max_side=65535),
    "PPM": Holds(_m("1", "L", "RGB", "I;16")),
    "TGA": Holds(_m("L", "LA", "P", "RGB", "RGBA"), max_side=65535),
    "QOI": Holds(_m("RGB", "RGBA")),
    "JPEG2000": Holds(_m("L", "LA", "RGB", "RGBA", "I;16")),
    "AVIF": Holds(_m("RGB", "RGBA"), exif=True, icc=True, xmp=True, lossy="always", max_side=65536),
    "PCX": Holds(_m("1", "L", "P", "RGB"), max_side=65535),
    "SGI": Holds(_m("L", "RGB", "RGBA"), max_side=65535),
    "IM": Holds(_m("1", "L", "LA", "P", "RGB", "RGBA", "CMYK", "YCbCr", "I;16", "I", "F")),
    "ICO": Holds(_m("RGB", "RGBA"), max_side=256),
}

#: Formats the commands write.
OUTPUT_FORMATS = tuple(FORMATS)

#: Colour spaces other than RGB and grey, by mode.
COLOUR_SPACES = {"CMYK": "CMYK", "LAB": "CIELAB", "YCbCr": "YCbCr", "HSV": "HSV"}


def holds(fmt: str) -> Holds | None:
    """What ``fmt`` can hold; None for a format outside the table (its writer takes any mode)."""
    return FORMATS.get(fmt)
