"""The integral image on the device: :class:`IntegralPlan` builds the kernels of
``kernels/integral/`` once for a shape and dtype, then runs them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..cl.build import named_kernel
from ..cl.runtime import cl, get_runtime, new_buffer, round_up
from .checks import (
    DST_TYPES,
    KIND_CODE,
    MAX_SCAN_PARTS,
    SRC_TYPES,
    check_dtype,
    check_kind,
    check_method,
    check_shape,
    check_source_dtype,
)


def array_module() -> Any:
    """:mod:`pyopencl.array`, imported once the runtime has loaded pyopencl; ``None`` without
    pyopencl (the numpy reference runs without it)."""
    if not cl:
        return None
    import pyopencl.array

    return pyopencl.array


class IntegralPlan:
    """An integral image compiled once for one shape, source dtype, kind and dtype.

    Describe once, call many times: the kernels are built and fetched at construction;
    each call only enqueues.  For the pipeline's valid-patch stage::

        plan = IntegralPlan(mask.shape, np.uint8, "count", np.int32, runtime=rt)
        counts = array_module().empty(rt.queue, mask.shape, np.int32)
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
        self.shape = check_shape(shape)
        self.kind = check_kind(kind)
        self.dtype = check_dtype(dtype)
        self.src_dtype = check_source_dtype(src_dtype, kind, self.dtype)
        self.method = check_method(method)
        self.runtime = runtime if runtime is not None else get_runtime()
        self._defines = {"SRC_T": SRC_TYPES[self.src_dtype], "DST_T": DST_TYPES[self.dtype],
                         "KIND": KIND_CODE[kind]}
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
        parts = max(1, min(int(parts), MAX_SCAN_PARTS, mis[0], mis[1], lim.max_work_group_size))
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
        self.kernels = {name: named_kernel(rt, "integral/block", name, defines)
                        for name in ("block_local", "vertical_scan", "vertical_combine", "horizontal_scan",
                                     "horizontal_combine")}
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
        self.kernels = {name: named_kernel(rt, "integral/naive", name, defines)
                        for name in ("row_scan_source", "row_scan", "transpose")}
        self.tile = tile
        cap = min(rt.work_group_info(self.kernels[n])["work_group_size"] for n in ("row_scan_source", "row_scan"))
        self.row_group = lim.work_group((64,), cap)[0]

    # -- calling

    def _check_source(self, image: Any) -> tuple[Any, int, int]:
        if not cl or not isinstance(image, array_module().Array):
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
            return array_module().empty(self.runtime.queue, self.shape, self.dtype)
        if not isinstance(out, array_module().Array):
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
        defines = dict(self._defines_block, SCAN_PARTS=1, SCAN_LINES=1)
        knl = named_kernel(rt, "integral/block", "max_abs", defines)
        lg = rt.limits.work_group((64,), rt.work_group_info(knl)["work_group_size"])[0]
        n = round_up(min(h, 1024), lg)
        partial = array_module().empty(rt.queue, (n,), np.uint32)
        knl(rt.queue, (n,), (lg,), src=src, src_offset=src_off, src_pitch=pitch, width=w, height=h,
            partial=partial.data)
        return int(partial.get().max())

    def _block_steps(self, src: Any, src_off: int, pitch: int, dst: Any) -> list[tuple[str, tuple, tuple, dict]]:
        """The block method's launches for this shape: ``(kernel, global size, local size, arguments)``;
        a scan or a combine that has no edge or no second block to work on is left out."""
        h, w = self.shape
        bw, bh = (w + 3) // 4, (h + 3) // 4
        gx, gy = self.group
        parts, lines, cols, per = self.scan_parts, self.scan_lines, self.scan_cols, self.blocks_per_item
        items = (bw + per - 1) // per
        steps = [("block_local", (round_up(items, gx), round_up(bh, gy)), (gx, gy),
                  dict(src=src, src_offset=src_off, src_pitch=pitch, dst=dst, width=w, height=h, per_item=per))]
        if h // 4 > 1:
            scan_items = (w + cols - 1) // cols
            steps.append(("vertical_scan", (round_up(scan_items, lines), parts), (lines, parts),
                          dict(dst=dst, width=w, nedges=h // 4, cols=cols)))
        if bh > 1:
            steps.append(("vertical_combine", (round_up(items, gx), round_up(bh - 1, gy)), (gx, gy),
                          dict(dst=dst, width=w, height=h, per_item=per)))
        if w // 4 > 1:
            steps.append(("horizontal_scan", (parts, round_up(h, lines)), (parts, lines),
                          dict(dst=dst, width=w, height=h, nedges=w // 4)))
        if bw > 1:
            hitems = (bw - 1 + per - 1) // per
            steps.append(("horizontal_combine", (round_up(hitems, gx), round_up(bh, gy)), (gx, gy),
                          dict(dst=dst, width=w, height=h, per_item=per)))
        return steps

    @property
    def launched(self) -> list[str]:
        """The kernels :meth:`enqueue` launches, in order: one event each."""
        if self.method == "block":
            return [name for name, *_ in self._block_steps(None, 0, 0, None)]
        return ["row_scan_source", "transpose", "row_scan", "transpose"]

    def _enqueue_block(self, src: Any, src_off: int, pitch: int, dst: Any, wait_for: Any) -> list[Any]:
        q = self.runtime.queue
        events = []
        for name, size, group, kwargs in self._block_steps(src, src_off, pitch, dst):
            events.append(self.kernels[name](q, size, group, wait_for=wait_for if not events else None, **kwargs))
        return events

    def _enqueue_naive(self, src: Any, src_off: int, pitch: int, dst: Any, wait_for: Any) -> list[Any]:
        q = self.runtime.queue
        h, w = self.shape
        if self._tmp is None:
            self._tmp = new_buffer(self.runtime.context, cl.mem_flags.READ_WRITE, h * w * self.dtype.itemsize)
        tmp = self._tmp
        g, t = self.row_group, self.tile
        kn = self.kernels
        return [
            kn["row_scan_source"](q, (round_up(h, g),), (g,), wait_for=wait_for, src=src, src_offset=src_off,
                                  src_pitch=pitch, dst=dst, width=w, height=h),
            kn["transpose"](q, (round_up(w, t), round_up(h, t)), (t, t), src=dst, dst=tmp, width=w, height=h),
            kn["row_scan"](q, (round_up(w, g),), (g,), data=tmp, width=h, height=w),
            kn["transpose"](q, (round_up(h, t), round_up(w, t)), (t, t), src=tmp, dst=dst, width=h, height=w),
        ]
