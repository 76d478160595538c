"""What an integral image may be: kinds, dtypes and shapes, and the int32 overflow and float32
tolerance policies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

KINDS = ("sum", "sqsum", "count")
#: Device algorithms: the five-kernel block algorithm, or the naive scan-transpose-scan.
METHODS = ("block", "naive")
#: What to do when an int32 integral could overflow.
OVERFLOW_POLICIES = ("raise", "wrap", "promote")

INT32_MAX = 2**31 - 1
#: Largest image (pixels) the kernels index with 32-bit ints.
MAX_PIXELS = 2**31 - 1

KIND_CODE = {"sum": 0, "sqsum": 1, "count": 2}
# numpy source dtype -> OpenCL C type (bool masks are bytes of 0/1).
SRC_TYPES = {np.dtype(np.uint8): "uchar", np.dtype(np.bool_): "uchar",
              np.dtype(np.int32): "int", np.dtype(np.float32): "float"}
# numpy destination dtype -> OpenCL C accumulation type (int32 is accumulated as uint:
# same bits, wraps modulo 2**32 instead of undefined signed overflow).
DST_TYPES = {np.dtype(np.int32): "uint", np.dtype(np.float32): "float"}
_TYPE_MAX = {np.dtype(np.uint8): 255, np.dtype(np.bool_): 1}

# Float tolerance: per-term rounding steps, see float_tolerance().
_FLOAT_SLACK = 256
MAX_SCAN_PARTS = 64


def check_kind(kind: str) -> str:
    """``kind`` when it is one of :data:`KINDS`."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(map(repr, KINDS))}")
    return kind


def check_method(method: Any) -> str:
    """``method`` when it is one of :data:`METHODS`."""
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(map(repr, METHODS))}")
    return method


def check_max_value(max_value: Any) -> float:
    """``max_value`` when it is a finite number >= 0 (a bound on ``|pixel|``)."""
    if isinstance(max_value, bool) or not isinstance(max_value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(max_value) or max_value < 0:
        raise ValueError(f"max_value must be a finite number >= 0 (a bound on |pixel|), got {max_value!r}")
    return max_value


def native(image: np.ndarray) -> np.ndarray:
    """``image`` in the machine's byte order (a big-endian array from a file, converted)."""
    return image if image.dtype.isnative else image.astype(image.dtype.newbyteorder("="))


def check_dtype(dtype: Any) -> np.dtype:
    """The output dtype, int32 or float32."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in DST_TYPES:
        raise ValueError(f"unsupported output dtype {dtype!r}; expected np.int32 or np.float32")
    return dt


def check_source_dtype(dtype: Any, kind: str, out_dtype: np.dtype) -> np.dtype:
    """The source dtype, when the device reads it and ``out_dtype`` can hold its ``kind``."""
    dt = np.dtype(dtype)
    if dt not in SRC_TYPES:
        raise ValueError(
            f"unsupported image dtype {dt}; expected uint8 (or bool), int32 or float32 "
            "(convert the image first)")
    if dt == np.float32 and out_dtype == np.int32 and kind != "count":
        raise ValueError(
            f"a float32 image needs dtype=np.float32 for kind {kind!r} "
            "(int32 output is only defined for kind='count' of a float32 image)")
    return dt


def check_shape(shape: Sequence[int]) -> tuple[int, int]:
    """``(rows, cols)`` of a 2-D image the kernels can index."""
    if len(shape) != 2:
        raise ValueError(f"expected a 2-D image (rows, cols), got shape {tuple(shape)}")
    h, w = (int(s) for s in shape)
    if h * w > MAX_PIXELS:
        raise ValueError(f"image of {h}x{w} = {h * w} pixels is too large (at most {MAX_PIXELS})")
    return h, w


def check_overflow_policy(overflow: str) -> str:
    """``overflow`` when it is one of :data:`OVERFLOW_POLICIES`."""
    if overflow not in OVERFLOW_POLICIES:
        raise ValueError(f"unknown overflow policy {overflow!r}; expected one of "
                         f"{', '.join(map(repr, OVERFLOW_POLICIES))}")
    return overflow


def max_abs_integral(shape: Sequence[int], kind: str = "sum", max_value: float = 255) -> int:
    """Largest magnitude any cell of an integral can reach.

    Parameters
    ----------
    shape : (int, int)
        Image shape ``(rows, cols)``.
    kind : {'sum', 'sqsum', 'count'}
        Integral kind.
    max_value : int or float
        Bound on ``|pixel|`` (ignored for ``'count'``).

    Returns
    -------
    int
        ``rows * cols * m`` with ``m`` = ``max_value``, ``max_value**2`` or 1.

    Examples
    --------
    >>> max_abs_integral((4096, 4096), "sqsum", 255) > 2**31 - 1
    True
    """
    h, w = check_shape(shape)
    check_kind(kind)
    m = int(np.ceil(check_max_value(max_value)))
    per_pixel = {"sum": m, "sqsum": m * m, "count": 1}[kind]
    return h * w * per_pixel


def check_overflow(shape: Sequence[int], src_dtype: Any, kind: str = "sum", dtype: Any = np.int32,
                   overflow: str = "raise", max_value: float | None = None) -> np.dtype:
    """Apply the overflow policy and return the output dtype to use.

    The worst case is :func:`max_abs_integral` with ``max_value`` = the given bound on
    ``|pixel|``, else the source type's maximum (255 for uint8, 1 for bool).  int32
    sources have no useful type bound: callers pass the data's ``max(|pixel|)``
    (:func:`integral` measures it).

    Parameters
    ----------
    shape : (int, int)
        Image shape.
    src_dtype : numpy dtype
        Image dtype.
    kind : {'sum', 'sqsum', 'count'}
        Integral kind.
    dtype : {np.int32, np.float32}
        Requested output dtype.
    overflow : {'raise', 'wrap', 'promote'}
        ``'raise'``: refuse a possibly overflowing int32 integral;
        ``'wrap'``: keep int32, exact modulo ``2**32`` (box sums from four corners stay
        exact as long as the box sum itself fits in int32);
        ``'promote'``: switch to float32 (with its tolerance, see :func:`float_tolerance`).
    max_value : float, optional
        Bound on ``|pixel|``.

    Returns
    -------
    numpy.dtype
        ``dtype``, or float32 when promoted.

    Raises
    ------
    ValueError
        If the int32 integral could overflow and ``overflow='raise'``, or an argument is
        invalid.
    """
    check_kind(kind)
    out_dtype = check_dtype(dtype)
    src = check_source_dtype(src_dtype, kind, out_dtype)
    check_overflow_policy(overflow)
    if out_dtype != np.int32 or overflow == "wrap":
        return out_dtype
    if max_value is None:
        max_value = _TYPE_MAX.get(src, 2**31)
    worst = max_abs_integral(shape, kind, max_value)
    if worst <= INT32_MAX:
        return out_dtype
    if overflow == "promote":
        return np.dtype(np.float32)
    h, w = check_shape(shape)
    raise ValueError(
        f"an int32 {kind!r} integral of a {h}x{w} {src} image could overflow: worst case "
        f"{h}*{w}*{'max|pixel|**2' if kind == 'sqsum' else 'max|pixel|'} = {worst} > 2**31 - 1 "
        f"(max|pixel| = {max_value}). Pass overflow='wrap' (int32 exact modulo 2**32; "
        "box sums stay exact while they fit in int32), overflow='promote' or "
        "dtype=np.float32 (float32 within its tolerance), a tighter max_value, or a smaller image")


def float_tolerance(shape: Sequence[int]) -> float:
    """Relative factor of the float32 error bound.

    For ``dtype=np.float32`` every cell satisfies
    ``|out[y, x] - exact[y, x]| <= float_tolerance(shape) * A[y, x]``, with ``A`` the exact
    integral of ``|term|``.  The factor is ``(H + W + 256) * 2**-24``: each term passes
    through at most one conversion, one squaring, six additions inside its 4x4 block,
    ``H/4 + W/4`` edge-scan additions (plus up to 2 x 64 for chunked scans) and two
    combines (the naive method: ``H + W`` additions), each rounding by at most ``2**-24``.

    Parameters
    ----------
    shape : (int, int)
        Image shape.

    Returns
    -------
    float
    """
    h, w = check_shape(shape)
    return (h + w + _FLOAT_SLACK) * 2.0**-24
