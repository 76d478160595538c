"""Integral images (summed-area tables) on the device, with a numpy reference.

The output has the input's shape and is **inclusive**::

    out[y, x] = sum(term(image[y', x']) for y' <= y for x' <= x)

with ``term(v)`` = ``v`` (``kind='sum'``), ``v * v`` (``'sqsum'``) or ``v != 0``
(``'count'``).  The sum over any box ``rows r0..r1, cols c0..c1`` (inclusive) is then
``out[r1, c1] - out[r0 - 1, c1] - out[r1, c0 - 1] + out[r0 - 1, c0 - 1]`` (terms with a
``-1`` index are 0).

The device version is the five-kernel block algorithm of ``kernels/integral/block.cl``
(4x4 block integrals with vector loads, scan of the block edges down the columns,
vertical combine, scan of the block edges along the rows, horizontal combine);
``method='naive'`` runs ``kernels/integral/naive.cl`` (row prefix sums, transpose, row
prefix sums, transpose back), kept as the benchmark's baseline.

Exactness
---------
* ``dtype=np.int32`` results are exact.  The device accumulates in 32-bit unsigned
  arithmetic, so results are always the exact sums **modulo 2**32**; when a sum could
  exceed ``2**31 - 1`` the API refuses (``overflow='raise'``, the default) unless asked
  to wrap or to promote to float32 (see :func:`check_overflow`).
* ``dtype=np.float32`` results satisfy, for every cell,
  ``|out[y, x] - exact[y, x]| <= (H + W + 256) * 2**-24 * A[y, x]`` where ``A`` is the
  exact integral of ``|term|`` (see :func:`float_tolerance`).  When every term and every
  partial sum is an integer below ``2**24`` (e.g. a uint8 sum with ``255 * H * W <
  2**24``), float32 results are exact.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .cl.runtime import OpenCLUnavailable, get_runtime, round_up

try:  # pyopencl is optional: the numpy reference runs without it.
    import pyopencl as cl
    import pyopencl.array as cl_array
except ImportError:  # pragma: no cover - exercised on machines without pyopencl
    cl = None
    cl_array = None

__all__ = [
    "KINDS", "METHODS", "OVERFLOW_POLICIES", "IntegralPlan", "check_overflow",
    "float_tolerance", "integral", "integral_reference", "max_abs_integral",
]

#: Integral kinds: plain sum, sum of squares, count of non-zero pixels.
KINDS = ("sum", "sqsum", "count")
#: Device algorithms: the five-kernel block algorithm, or the naive scan-transpose-scan.
METHODS = ("block", "naive")
#: What to do when an int32 integral could overflow.
OVERFLOW_POLICIES = ("raise", "wrap", "promote")

INT32_MAX = 2**31 - 1
#: Largest image (pixels) the kernels index with 32-bit ints.
MAX_PIXELS = 2**31 - 1

_KIND_CODE = {"sum": 0, "sqsum": 1, "count": 2}
# numpy source dtype -> OpenCL C type (bool masks are bytes of 0/1).
_SRC_TYPES = {np.dtype(np.uint8): "uchar", np.dtype(np.bool_): "uchar",
              np.dtype(np.int32): "int", np.dtype(np.float32): "float"}
# numpy destination dtype -> OpenCL C accumulation type (int32 is accumulated as uint:
# same bits, wraps modulo 2**32 instead of undefined signed overflow).
_DST_TYPES = {np.dtype(np.int32): "uint", np.dtype(np.float32): "float"}
_TYPE_MAX = {np.dtype(np.uint8): 255, np.dtype(np.bool_): 1}

# Float tolerance: per-term rounding steps, see float_tolerance().
_FLOAT_SLACK = 256
_MAX_SCAN_PARTS = 64


# --------------------------------------------------------------------------- validation

def _check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(map(repr, KINDS))}")
    return kind


def _check_dtype(dtype: Any) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in _DST_TYPES:
        raise ValueError(f"unsupported output dtype {dtype!r}; expected np.int32 or np.float32")
    return dt


def _check_source_dtype(dtype: Any, kind: str, out_dtype: np.dtype) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in _SRC_TYPES:
        raise ValueError(
            f"unsupported image dtype {dt}; expected uint8 (or bool), int32 or float32 "
            "(convert the image first)")
    if dt == np.float32 and out_dtype == np.int32 and kind != "count":
        raise ValueError(
            f"a float32 image needs dtype=np.float32 for kind {kind!r} "
            "(int32 output is only defined for kind='count' of a float32 image)")
    return dt


def _check_shape(shape: Sequence[int]) -> tuple[int, int]:
    if len(shape) != 2:
        raise ValueError(f"expected a 2-D image (rows, cols), got shape {tuple(shape)}")
    h, w = (int(s) for s in shape)
    if h * w > MAX_PIXELS:
        raise ValueError(f"image of {h}x{w} = {h * w} pixels is too large (at most {MAX_PIXELS})")
    return h, w


def _check_overflow_policy(overflow: str) -> str:
    if overflow not in OVERFLOW_POLICIES:
        raise ValueError(f"unknown overflow policy {overflow!r}; expected one of "
                         f"{', '.join(map(repr, OVERFLOW_POLICIES))}")
    return overflow


# --------------------------------------------------------------------------- policies

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
    h, w = _check_shape(shape)
    _check_kind(kind)
    m = abs(int(np.ceil(max_value)))
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
    _check_kind(kind)
    out_dtype = _check_dtype(dtype)
    src = _check_source_dtype(src_dtype, kind, out_dtype)
    _check_overflow_policy(overflow)
    if out_dtype != np.int32 or overflow == "wrap":
        return out_dtype
    if max_value is None:
        max_value = _TYPE_MAX.get(src, 2**31)
    worst = max_abs_integral(shape, kind, max_value)
    if worst <= INT32_MAX:
        return out_dtype
    if overflow == "promote":
        return np.dtype(np.float32)
    h, w = _check_shape(shape)
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
    h, w = _check_shape(shape)
    return (h + w + _FLOAT_SLACK) * 2.0**-24


# --------------------------------------------------------------------------- numpy reference

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


def _host_max_abs(image: np.ndarray) -> int:
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
    image = np.asarray(image)
    _check_shape(image.shape)
    if max_value is None and image.dtype == np.int32 and np.dtype(dtype) == np.int32:
        max_value = _host_max_abs(image)
    out_dtype = check_overflow(image.shape, image.dtype, kind, dtype, overflow, max_value)
    if out_dtype == np.int32:
        t = _terms_int32(image, kind)
        return np.cumsum(np.cumsum(t, axis=0, dtype=np.int32), axis=1, dtype=np.int32)
    t = _terms_float64(image, kind)
    return np.cumsum(np.cumsum(t, axis=0), axis=1).astype(np.float32)


# --------------------------------------------------------------------------- device plan

class IntegralPlan:
    """An integral image compiled once for one shape, source dtype, kind and dtype.

    Describe once, call many times: the kernels are built and fetched at construction;
    each call only enqueues.  For the pipeline's valid-patch stage::

        plan = IntegralPlan(mask.shape, np.uint8, "count", np.int32, runtime=rt)
        counts = cl_array.empty(rt.queue, mask.shape, np.int32)
        plan(mask_dev, out=counts)          # every iteration, no allocation

    No overflow check is made here: int32 results are exact modulo ``2**32`` (use
    :func:`check_overflow` or :func:`integral`).

    Parameters
    ----------
    shape : (int, int)
        Image shape ``(rows, cols)``.
    src_dtype : {np.uint8, np.bool_, np.int32, np.float32}
        Image dtype.
    kind : {'sum', 'sqsum', 'count'}
        Integral kind.
    dtype : {np.int32, np.float32}
        Output dtype.
    method : {'block', 'naive'}
        Five-kernel block algorithm, or the scan-transpose-scan baseline.
    runtime : Runtime, optional
        Default :func:`inpaint.cl.runtime.get_runtime`.
    scan_parts : int, optional
        Work-items sharing one line of the block-edge scans (default 32 on GPUs, 1 on
        CPUs); capped by the device limits.  Tests force values > 1 on CPU devices.
    group : (int, int), optional
        Work-group shape of the per-block kernels (default 32 x 8, capped by the limits).
    blocks_per_item : int, optional
        4x4 blocks along a row handled by one work-item of the per-block kernels
        (default 1 on GPUs, 16 on CPUs, where longer sequential runs pay).
    scan_cols : int, optional
        Columns per work-item of the vertical edge scan when ``scan_parts == 1``
        (default 256 on CPUs: row-after-row sequential access).
    """

    def __init__(self, shape: Sequence[int], src_dtype: Any = np.uint8, kind: str = "sum",
                 dtype: Any = np.int32, *, method: str = "block", runtime: Any = None,
                 scan_parts: int | None = None, group: tuple[int, int] | None = None,
                 blocks_per_item: int | None = None, scan_cols: int | None = None):
        self.shape = _check_shape(shape)
        self.kind = _check_kind(kind)
        self.dtype = _check_dtype(dtype)
        self.src_dtype = _check_source_dtype(src_dtype, kind, self.dtype)
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}; expected one of {', '.join(map(repr, METHODS))}")
        self.method = method
        self.runtime = runtime if runtime is not None else get_runtime()
        self._defines = {"SRC_T": _SRC_TYPES[self.src_dtype], "DST_T": _DST_TYPES[self.dtype],
                         "KIND": _KIND_CODE[kind]}
        self._defines_block = dict(self._defines, SRC_FLOAT=int(self.src_dtype == np.float32))
        self._tmp = None
        if method == "block":
            self._build_block(scan_parts, group, blocks_per_item, scan_cols)
        else:
            self._build_naive()

    # -- construction

    def _build_block(self, scan_parts: int | None, group: tuple[int, int] | None,
                     blocks_per_item: int | None, scan_cols: int | None) -> None:
        rt = self.runtime
        lim = rt.limits
        mis = lim.max_work_item_sizes
        parts = scan_parts if scan_parts is not None else (32 if rt.is_gpu else 1)
        parts = max(1, min(int(parts), _MAX_SCAN_PARTS, mis[0], mis[1], lim.max_work_group_size))
        # GPU: 8 lines x 32 parts = 256 work-items; CPU (parts == 1): 64 serial lines per group
        want_lines = (8 if parts > 1 else 32) if rt.is_gpu else 64
        lines = max(1, min(want_lines, mis[0], mis[1], lim.max_work_group_size // parts))
        itemsize = 4
        while parts > 1 and lines > 1 and parts * lines * itemsize > lim.local_mem_size // 2:
            lines //= 2
        if parts > 1 and parts * lines * itemsize > lim.local_mem_size:
            parts = 1
        self.scan_parts, self.scan_lines = parts, lines
        if blocks_per_item is None:
            blocks_per_item = 1 if rt.is_gpu else 16
        self.blocks_per_item = max(1, int(blocks_per_item))
        if scan_cols is None:
            scan_cols = 1 if rt.is_gpu else 256
        self.scan_cols = max(1, int(scan_cols)) if parts == 1 else 1
        defines = dict(self._defines_block, SCAN_PARTS=parts, SCAN_LINES=lines)
        i32 = np.int32
        k = rt.kernel
        self.kernels = {
            "block_local": k("integral/block", "block_local", [None, i32, i32, None, i32, i32, i32], defines),
            "vertical_scan": k("integral/block", "vertical_scan", [None, i32, i32, i32], defines),
            "vertical_combine": k("integral/block", "vertical_combine", [None, i32, i32, i32], defines),
            "horizontal_scan": k("integral/block", "horizontal_scan", [None, i32, i32, i32], defines),
            "horizontal_combine": k("integral/block", "horizontal_combine", [None, i32, i32, i32], defines),
        }
        # element-wise kernels: the wanted shape, capped by the device and the built kernels
        cap = min(rt.work_group_info(self.kernels[n])["work_group_size"]
                  for n in ("block_local", "vertical_combine", "horizontal_combine"))
        self.group = lim.work_group(tuple(group) if group else (32, 8), cap)
        for n in ("vertical_scan", "horizontal_scan"):
            if rt.work_group_info(self.kernels[n])["work_group_size"] < parts * lines:
                raise ValueError(f"kernel {n} cannot run work-groups of {parts}x{lines} on {rt.name}")

    def _build_naive(self) -> None:
        rt = self.runtime
        lim = rt.limits
        tile = 16 if lim.work_group((16, 16)) == (16, 16) else 8
        while tile > 1 and tile * (tile + 1) * 4 > lim.local_mem_size // 2:
            tile //= 2
        defines = dict(self._defines, TILE=tile)
        i32 = np.int32
        k = rt.kernel
        self.kernels = {
            "row_scan_source": k("integral/naive", "row_scan_source", [None, i32, i32, None, i32, i32], defines),
            "row_scan": k("integral/naive", "row_scan", [None, i32, i32], defines),
            "transpose": k("integral/naive", "transpose", [None, None, i32, i32], defines),
        }
        self.tile = tile
        cap = min(rt.work_group_info(self.kernels[n])["work_group_size"] for n in ("row_scan_source", "row_scan"))
        self.row_group = lim.work_group((64,), cap)[0]

    # -- calling

    def _check_source(self, image: Any) -> tuple[Any, int, int]:
        if cl_array is None or not isinstance(image, cl_array.Array):
            raise TypeError("IntegralPlan takes a pyopencl.array.Array; use integral() for numpy arrays")
        if tuple(image.shape) != self.shape or image.dtype != self.src_dtype:
            raise ValueError(f"plan for {self.shape} {self.src_dtype} images got {tuple(image.shape)} {image.dtype}")
        if image.context != self.runtime.context:
            raise ValueError("the image lives in another OpenCL context than the plan's runtime")
        isz = image.dtype.itemsize
        if image.size == 0:
            return None, 0, 0
        s0, s1 = image.strides
        if (self.shape[1] > 1 and s1 != isz) or s0 % isz or image.offset % isz or s0 < 0:
            raise ValueError("the image's rows must be contiguous (unit column stride, positive row stride)")
        pitch = s0 // isz if self.shape[0] > 1 else self.shape[1]
        return image.base_data, image.offset // isz, pitch

    def _check_out(self, out: Any) -> Any:
        if out is None:
            return cl_array.empty(self.runtime.queue, self.shape, self.dtype)
        if not isinstance(out, cl_array.Array):
            raise TypeError("out must be a pyopencl.array.Array")
        if tuple(out.shape) != self.shape or out.dtype != self.dtype:
            raise ValueError(f"out must be {self.shape} {self.dtype}, got {tuple(out.shape)} {out.dtype}")
        if not out.flags.c_contiguous or out.offset != 0:
            raise ValueError("out must be C-contiguous with no offset")
        if out.context != self.runtime.context:
            raise ValueError("out lives in another OpenCL context than the plan's runtime")
        return out

    def enqueue(self, image: Any, out: Any, wait_for: Sequence[Any] | None = None) -> list[Any]:
        """Enqueue the integral of device ``image`` into device ``out``.

        Parameters
        ----------
        image : pyopencl.array.Array
            Source, shape and dtype of the plan, rows contiguous (offsets allowed).
        out : pyopencl.array.Array
            Destination, C-contiguous, shape and dtype of the plan.
        wait_for : list of pyopencl.Event, optional
            Events the first kernel waits for.

        Returns
        -------
        list of pyopencl.Event
            One per kernel enqueued, in order (the queue is in-order).
        """
        src, src_off, pitch = self._check_source(image)
        out = self._check_out(out)
        h, w = self.shape
        if h == 0 or w == 0:
            return []
        if self.method == "block":
            events = self._enqueue_block(src, src_off, pitch, out.data, wait_for)
        else:
            events = self._enqueue_naive(src, src_off, pitch, out.data, wait_for)
        for ev in events:
            out.add_event(ev)
        return events

    def __call__(self, image: Any, out: Any = None, wait_for: Sequence[Any] | None = None) -> Any:
        """Integral of device ``image``; returns ``out`` (allocated when not given)."""
        out = self._check_out(out)
        self.enqueue(image, out, wait_for)
        return out

    def max_abs(self, image: Any) -> int:
        """``max(|pixel|)`` of an integer device ``image``, by a device reduction.

        Only the per-work-item maxima (at most 1024 numbers) come back to the host.
        Used for the int32 overflow check of int32 device images.
        """
        if self.src_dtype == np.float32:
            raise TypeError("max_abs is for integer images")
        src, src_off, pitch = self._check_source(image)
        h, w = self.shape
        if h == 0 or w == 0:
            return 0
        rt = self.runtime
        i32 = np.int32
        defines = dict(self._defines_block, SCAN_PARTS=1, SCAN_LINES=1)
        knl = rt.kernel("integral/block", "max_abs", [None, i32, i32, i32, i32, None], defines)
        lg = rt.limits.work_group((64,), rt.work_group_info(knl)["work_group_size"])[0]
        n = round_up(min(h, 1024), lg)
        partial = cl_array.empty(rt.queue, (n,), np.uint32)
        knl(rt.queue, (n,), (lg,), src, src_off, pitch, w, h, partial.data)
        return int(partial.get().max())

    def _enqueue_block(self, src: Any, src_off: int, pitch: int, dst: Any, wait_for: Any) -> list[Any]:
        q = self.runtime.queue
        h, w = self.shape
        bw, bh = (w + 3) // 4, (h + 3) // 4
        gx, gy = self.group
        parts, lines, cols, per = self.scan_parts, self.scan_lines, self.scan_cols, self.blocks_per_item
        kn = self.kernels
        items = (bw + per - 1) // per
        events = [kn["block_local"](q, (round_up(items, gx), round_up(bh, gy)), (gx, gy),
                                    src, src_off, pitch, dst, w, h, per, wait_for=wait_for)]
        if h // 4 > 1:
            scan_items = (w + cols - 1) // cols
            events.append(kn["vertical_scan"](q, (round_up(scan_items, lines), parts), (lines, parts),
                                              dst, w, h // 4, cols))
        if bh > 1:
            events.append(kn["vertical_combine"](q, (round_up(items, gx), round_up(bh - 1, gy)), (gx, gy),
                                                 dst, w, h, per))
        if w // 4 > 1:
            events.append(kn["horizontal_scan"](q, (parts, round_up(h, lines)), (parts, lines), dst, w, h, w // 4))
        if bw > 1:
            hitems = (bw - 1 + per - 1) // per
            events.append(kn["horizontal_combine"](q, (round_up(hitems, gx), round_up(bh, gy)), (gx, gy),
                                                   dst, w, h, per))
        return events

    def _enqueue_naive(self, src: Any, src_off: int, pitch: int, dst: Any, wait_for: Any) -> list[Any]:
        q = self.runtime.queue
        h, w = self.shape
        if self._tmp is None:
            self._tmp = cl.Buffer(self.runtime.context, cl.mem_flags.READ_WRITE, h * w * self.dtype.itemsize)
        tmp = self._tmp
        g, t = self.row_group, self.tile
        kn = self.kernels
        return [
            kn["row_scan_source"](q, (round_up(h, g),), (g,), src, src_off, pitch, dst, w, h, wait_for=wait_for),
            kn["transpose"](q, (round_up(w, t), round_up(h, t)), (t, t), dst, tmp, w, h),
            kn["row_scan"](q, (round_up(w, g),), (g,), tmp, h, w),
            kn["transpose"](q, (round_up(h, t), round_up(w, t)), (t, t), tmp, dst, h, w),
        ]


# --------------------------------------------------------------------------- public API

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
    on_device = cl_array is not None and isinstance(image, cl_array.Array)
    if not on_device:
        image = np.asarray(image)
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
    shape = _check_shape(image.shape)
    _check_kind(kind)
    out_dtype = _check_dtype(dtype)
    _check_source_dtype(image.dtype, kind, out_dtype)
    if (max_value is None and image.dtype == np.int32 and out_dtype == np.int32
            and overflow != "wrap"):
        if on_device:
            max_value = IntegralPlan(shape, image.dtype, kind, out_dtype, runtime=runtime).max_abs(image)
        else:
            max_value = _host_max_abs(image)
    out_dtype = check_overflow(shape, image.dtype, kind, out_dtype, overflow, max_value)
    plan = IntegralPlan(shape, image.dtype, kind, out_dtype, method=method, runtime=runtime)
    if on_device:
        return plan(image, out=out)
    src = cl_array.to_device(runtime.queue, np.ascontiguousarray(image))
    return plan(src).get()
