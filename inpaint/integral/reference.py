"""numpy reference of the integral image: the specification the kernels are checked against."""

from __future__ import annotations

from typing import Any

import numpy as np

from .checks import check_overflow, check_shape, native


def _terms_int32(image: np.ndarray, kind: str) -> np.ndarray:
    if kind == "count":
        return (image != 0).astype(np.int32)
    t = image.astype(np.int32)
    if kind == "sqsum":
        t = t * t  # wraps modulo 2**32 like the device
    return t


def _terms_float64(image: np.ndarray, kind: str) -> np.ndarray:
    if kind == "count":
        return (image != 0).astype(np.float64)
    t = image.astype(np.float64)
    if kind == "sqsum":
        t = t * t
    return t


def host_max_abs(image: np.ndarray) -> int:
    """The largest ``|pixel|`` of a numpy image (for the overflow check)."""
    if image.size == 0:
        return 0
    return max(int(image.max()), -int(image.min()))


def integral_reference(image: np.ndarray, kind: str = "sum", dtype: Any = np.int32, *,
                       overflow: str = "raise", max_value: float | None = None) -> np.ndarray:
    """Integral image with numpy ``cumsum`` (the reference, and the fallback without OpenCL).

    Same conventions and overflow policy as :func:`integral`.  int32 results are exact
    (modulo ``2**32`` with ``overflow='wrap'``); float32 results are computed in float64
    and rounded once, so they are within :func:`float_tolerance` of the device's.

    Parameters
    ----------
    image : array_like, 2-D, uint8, bool, int32 or float32
        Source image.
    kind : {'sum', 'sqsum', 'count'}
        Integral kind.
    dtype : {np.int32, np.float32}
        Output dtype.
    overflow : {'raise', 'wrap', 'promote'}
        See :func:`check_overflow`.
    max_value : float, optional
        Bound on ``|pixel|``; default the type's maximum (uint8) or the data's (int32).

    Returns
    -------
    numpy.ndarray
        Same shape as ``image``, inclusive sums.

    Examples
    --------
    >>> integral_reference(np.array([[1, 2], [3, 4]], np.uint8))
    array([[ 1,  3],
           [ 4, 10]], dtype=int32)
    """
    image = native(np.asarray(image))
    check_shape(image.shape)
    if max_value is None and image.dtype == np.int32 and np.dtype(dtype) == np.int32:
        max_value = host_max_abs(image)
    out_dtype = check_overflow(image.shape, image.dtype, kind, dtype, overflow, max_value)
    if out_dtype == np.int32:
        t = _terms_int32(image, kind)
        return np.cumsum(np.cumsum(t, axis=0, dtype=np.int32), axis=1, dtype=np.int32)
    t = _terms_float64(image, kind)
    return np.cumsum(np.cumsum(t, axis=0), axis=1).astype(np.float32)
