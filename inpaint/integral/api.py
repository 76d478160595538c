"""The integral image, on the device when there is one: :func:`integral`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cl.runtime import get_runtime
from ..errors import OpenCLUnavailable
from .checks import check_dtype, check_kind, check_method, check_overflow, check_shape, check_source_dtype, native
from .opencl import IntegralPlan, array_module
from .reference import host_max_abs, integral_reference


def integral(image: Any, kind: str = "sum", dtype: Any = np.int32, runtime: Any = None, *,
             out: Any = None, overflow: str = "raise", max_value: float | None = None,
             method: str = "block") -> Any:
    """Integral image (summed-area table) on the OpenCL device.

    ``out[y, x] = sum(term(image[y', x']) for y' <= y for x' <= x)``, same shape as
    ``image`` (inclusive), ``term`` = the pixel (``'sum'``), its square (``'sqsum'``) or
    ``pixel != 0`` (``'count'``).

    Parameters
    ----------
    image : numpy.ndarray or pyopencl.array.Array, 2-D
        uint8 (or bool), int32 or float32.  A device array stays on the device: the result
        is a device array and nothing is copied to or from the host (except, for int32
        sources under ``overflow='raise'``/``'promote'`` without ``max_value``, the
        per-work-item maxima of one device max-abs reduction).  Its rows must be contiguous; offsets are fine.
    kind : {'sum', 'sqsum', 'count'}
        Integral kind.
    dtype : {np.int32, np.float32}
        Output dtype.  float32 images need float32 except for ``'count'``.
    runtime : Runtime, optional
        Default :func:`inpaint.cl.runtime.get_runtime`; for device arrays it must own the
        array's context.  Without any OpenCL device, numpy images fall back to
        :func:`integral_reference`.
    out : pyopencl.array.Array, optional
        Device output (C-contiguous, ``image.shape``, the output dtype), reused instead of
        allocating: only for device images.
    overflow : {'raise', 'wrap', 'promote'}
        int32 overflow policy, see :func:`check_overflow`.
    max_value : float, optional
        Bound on ``|pixel|`` for the overflow check (default: 255 for uint8, the data's
        for int32).
    method : {'block', 'naive'}
        Device algorithm (the naive one exists for benchmarks).

    Returns
    -------
    numpy.ndarray or pyopencl.array.Array
        Same kind of array as ``image``.

    Raises
    ------
    ValueError
        Bad kind/dtype/shape, or an int32 integral that could overflow under
        ``overflow='raise'``.

    Notes
    -----
    Exactness: int32 results are exact (modulo ``2**32`` with ``overflow='wrap'``).
    float32 results are within ``float_tolerance(shape) * A`` of the exact integral,
    ``A`` being the integral of ``|term|``, i.e. a relative ``(H + W + 256) * 2**-24``.

    References
    ----------
    .. [1] F. C. Crow, "Summed-area tables for texture mapping", SIGGRAPH 1984.

    Examples
    --------
    >>> integral(np.ones((2, 3), np.uint8), kind="count")  # doctest: +SKIP
    array([[1, 2, 3],
           [2, 4, 6]], dtype=int32)
    """
    cl_array = array_module()
    on_device = cl_array is not None and isinstance(image, cl_array.Array)
    check_method(method)
    if not on_device:
        image = native(np.asarray(image))
        if out is not None:
            raise ValueError("out= is for device images; a numpy image returns a new numpy array")
        if runtime is None:
            try:
                runtime = get_runtime()
            except OpenCLUnavailable:
                return integral_reference(image, kind, dtype, overflow=overflow, max_value=max_value)
    elif runtime is None:
        runtime = get_runtime()
        if runtime.context != image.context:
            raise ValueError("the device image belongs to another OpenCL context than the default "
                             "runtime; pass runtime= (the Runtime that allocated it)")
    shape = check_shape(image.shape)
    check_kind(kind)
    out_dtype = check_dtype(dtype)
    check_source_dtype(image.dtype, kind, out_dtype)
    if (max_value is None and image.dtype == np.int32 and out_dtype == np.int32
            and overflow != "wrap"):
        if on_device:
            max_value = IntegralPlan(shape, image.dtype, kind, out_dtype, runtime=runtime).max_abs(image)
        else:
            max_value = host_max_abs(image)
    out_dtype = check_overflow(shape, image.dtype, kind, out_dtype, overflow, max_value)
    plan = IntegralPlan(shape, image.dtype, kind, out_dtype, method=method, runtime=runtime)
    if on_device:
        return plan(image, out=out)
    src = cl_array.to_device(runtime.queue, np.ascontiguousarray(image))
    return plan(src).get()
