"""Thin wrappers, one per kernel file of ``kernels/criminisi/``, for the eight stages on OpenCL.

Each wrapper fetches its kernel once (:func:`inpaint.cl.build.named_kernel`: arguments bound by
their names in the kernel's prototype, scalars typed from it, ``-D`` specialisation from the
runtime's effective limits), converts numpy-style rectangles ``(x0, y0, x1, y1)`` into
OpenCL ``(x, y)`` launch sizes, and returns the launch event for profiling.  Given a
``bundle`` ``(kernel files, defines)``, a wrapper takes its kernel from that one program,
which the job builds for all the stages it runs on the device
(:func:`inpaint.methods.criminisi.stages.bundle_for`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cl.build import NamedKernel, named_kernel
from ...cl.runtime import Runtime, check_room, cl, round_up
from ..defaults import PRUNE, VARIANTS
from . import reference

#: The paper's work-group side for findBestPatch (8 x 8 = 64 candidates per group).
SSD_GROUP = 8


#: Fixed work-group shape for the per-pixel kernels.  A fixed shape matters: PoCL compiles
#: a work-group function per local size, so letting the driver pick one per rectangle would
#: recompile on nearly every launch.
TILE = (8, 8)


def _rect_args(rect) -> tuple[tuple[int, int], dict[str, int]]:
    """The launch size over ``rect`` ``(x0, y0, x1, y1)`` and the kernels' ``x0, y0, w, h``."""
    x0, y0, x1, y1 = rect
    w, h = x1 - x0, y1 - y0
    return (round_up(w, TILE[0]), round_up(h, TILE[1])), {"x0": x0, "y0": y0, "w": w, "h": h}


Bundle = tuple  # (kernel file stems, defines)


def _kernel(rt: Runtime, bundle: Bundle | None, source: str, name: str,
            defines: dict | None = None) -> NamedKernel:
    """Kernel ``name`` from the bundle's program when there is one, else from ``source`` alone
    (with the common defines)."""
    if bundle is None:
        return named_kernel(rt, source, name, {**common_defines(rt), **(defines or {})})
    return named_kernel(rt, bundle[0], name, bundle[1])


#: A launch with its arguments already set: ``(kernel, global size, local size)``
#: (:meth:`inpaint.cl.build.NamedKernel.bind`); the device-resident loop enqueues it with
#: :func:`pyopencl.enqueue_nd_range_kernel` each iteration, without converting and setting the
#: arguments again.
Launch = tuple


#: The reductions' preferred work-group size (a power of two).
REDUCE_GROUP = 256
#: The device-resident loop's kernel file (the stages' files come from their table).
LOOP_FILE = "criminisi/loop"


def reduce_group(rt: Runtime) -> int:
    """The reductions' work-group size: :data:`REDUCE_GROUP`, or less where the limits say so."""
    return rt.limits.work_group((REDUCE_GROUP,))[0]


def common_defines(rt: Runtime) -> dict[str, Any]:
    """The defines every Criminisi program gets: the reductions' work-group size and the
    constants the kernels share with the reference (:func:`inpaint.methods.criminisi.reference.defines`)."""
    return {"REDUCE_GROUP": reduce_group(rt), **reference.defines()}


class Grey:
    """Stage 1 (``kernels/criminisi/grey.cl``)."""

    def __init__(self, rt: Runtime, bundle: Bundle | None = None):
        self.rt = rt
        self.knl = _kernel(rt, bundle, "criminisi/grey", "rgb_to_grey")

    def __call__(self, b: dict[str, Any], width: int, rect) -> Any:
        size, args = _rect_args(rect)
        return self.knl(self.rt.queue, size, TILE, rgba=b["rgb"], grey=b["grey"], width=width, **args)


class Front:
    """Stage 2 (``kernels/criminisi/front.cl``)."""

    def __init__(self, rt: Runtime, bundle: Bundle | None = None):
        self.rt = rt
        self.knl = _kernel(rt, bundle, "criminisi/front", "fill_front")

    def __call__(self, b, width, height, rect):
        size, args = _rect_args(rect)
        return self.knl(self.rt.queue, size, TILE, unknown=b["unknown"], front=b["front"], width=width,
                        height=height, **args)


class Valid:
    """Stage 3 (``kernels/criminisi/valid.cl``): valid source-patch centres.

    Two ways to count the target pixels under each window: directly (``mark_valid``, which
    skips windows that miss the object's box), or in O(1) from a count-integral of the
    target mask built by :class:`inpaint.integral.IntegralPlan` (``mark_valid_sat``).
    ``use_integral`` picks the second.
    """

    def __init__(self, rt: Runtime, bundle: Bundle | None = None):
        self.rt = rt
        self.knl = _kernel(rt, bundle, "criminisi/valid", "mark_valid")
        self.knl_sat = _kernel(rt, bundle, "criminisi/valid", "mark_valid_sat")
        self._plan = None
        self._sat = None

    def __call__(self, b, width, height, half, rect, bbox, use_integral: bool = False):
        size, args = _rect_args(rect)
        if use_integral:
            return self._with_integral(b, width, height, half, size, args)
        bx0, by0, bx1, by1 = bbox
        return self.knl(self.rt.queue, size, TILE, unknown=b["unknown"], valid=b["valid"], width=width,
                        height=height, radius=half, **args, bx0=bx0, by0=by0, bx1=bx1, by1=by1)

    def _with_integral(self, b, width, height, half, size, args):
        import pyopencl.array as cl_array

        from ...integral import IntegralPlan

        if self._plan is None or self._plan.shape != (height, width):
            self._plan = IntegralPlan((height, width), np.uint8, "count", np.int32, runtime=self.rt)
            check_room(self.rt.context, height * width * 4)
            self._sat = cl_array.empty(self.rt.queue, (height, width), np.int32)
        mask = cl_array.Array(self.rt.queue, (height, width), np.uint8, data=b["unknown"])
        self._plan(mask, out=self._sat)
        return self.knl_sat(self.rt.queue, size, TILE, sat=self._sat.data, valid=b["valid"], width=width,
                            height=height, radius=half, **args)


class Confidence:
    """Stage 4 (``kernels/criminisi/confidence.cl``)."""

    def __init__(self, rt: Runtime, bundle: Bundle | None = None):
        self.rt = rt
        self.knl = _kernel(rt, bundle, "criminisi/confidence", "patch_confidence")

    def __call__(self, b, width, height, half, rect):
        size, args = _rect_args(rect)
        return self.knl(self.rt.queue, size, TILE, conf=b["conf"], front=b["front"], cpatch=b["cpatch"],
                        width=width, height=height, radius=half, **args)


class Priority:
    """Stage 5 (``kernels/criminisi/priority.cl``): priorities on a rectangle and their argmax."""

    def __init__(self, rt: Runtime, bundle: Bundle | None = None):
        self.rt = rt
        self.group = reduce_group(rt)
        self.knl = _kernel(rt, bundle, "criminisi/priority", "priority")
        self.argmax = _kernel(rt, bundle, "criminisi/priority", "argmax_priority")

    def __call__(self, b, width, height, rect):
        size, args = _rect_args(rect)
        return self.knl(self.rt.queue, size, TILE, grey=b["grey"], unknown=b["unknown"], front=b["front"],
                        cpatch=b["cpatch"], prio=b["prio"], width=width, height=height, **args)

    def best(self, b, width, rect):
        """The argmax of the priorities over ``rect`` into ``b["result"][0]``."""
        _, args = _rect_args(rect)
        return self.argmax(self.rt.queue, (self.group,), (self.group,), prio=b["prio"], result=b["result"],
                           width=width, **args)



class FindBestPatch:
    """Stage 6 (``kernels/criminisi/ssd.cl``): the SSD map, local- or global-memory variant.

    Parameters
    ----------
    rt : Runtime
    patch : int
        Odd patch side P.
    variant : {'auto', 'local', 'global'}
        ``'auto'`` and ``'local'`` take the local-memory kernel with the paper's 8x8 groups when
        its tile fits the effective local-memory limit, else with 4x4 groups (a smaller tile);
        ``'auto'`` then falls back to the global-memory kernel, ``'local'`` raises.
    prune : {'auto', True, False}
        Partial-distance elimination: a first small launch (``ssd_bound``) scores every
        ``BOUND_STEP``-th candidate in both directions and keeps their smallest SSD as a bound
        in a one-element device buffer; the SSD kernel then stops a candidate after the first
        patch row whose partial sum exceeds it and stores that partial sum.  The map's minimum,
        its first index and every entry equal to it are exact, so stage 7 picks the same patch;
        other entries may be smaller than the full SSD but stay above the minimum.  ``'auto'``
        prunes on CPU devices, where it measured 2.2-3.3x faster at full search (PoCL, 2 cores),
        and not on GPUs: on an NVIDIA H200 it was 2.1-2.5x slower there (cut candidates idle
        their SIMD lanes while the rest of the warp carries on; docs/BENCHMARKS.md).

    Attributes
    ----------
    variant : str
        ``'local'`` or ``'global'``.
    group : int
        Work-group side.
    prune : bool
        Whether the map is pruned.
    bound : pyopencl.Buffer
        One uint32: the sampled bound of the last pruned launch (unused without pruning).
    """

    #: Sample spacing of the bound in candidates (1/64 of them): 4 and 12 measured no faster.
    BOUND_STEP = 8
    #: Work-group size of ``ssd_bound`` (one group; at most the reduction group size).
    BOUND_GROUP = 64

    def __init__(self, rt: Runtime, patch: int, variant: str = "auto", prune: Any = "auto",
                 bundle: Bundle | None = None):
        self.rt = rt
        self.patch = patch
        self.variant, self.group, self.prune, defines = self.plan(rt, patch, variant, prune)
        if self.prune:
            self.bound_group = defines["BOUND_GROUP"]
        self.knl = _kernel(rt, bundle, "criminisi/ssd", f"ssd_{self.variant}", defines)
        self.knl_bound = _kernel(rt, bundle, "criminisi/ssd", "ssd_bound", defines) if self.prune else None
        self.bound = cl.Buffer(rt.context, cl.mem_flags.READ_WRITE, 4)

    @classmethod
    def plan(cls, rt: Runtime, patch: int, variant: str = "auto", prune: Any = "auto") -> tuple:
        """``(variant, group, prune, defines)`` for ``patch`` on ``rt``: the kernel variant and
        work-group side chosen as the class docstring says, and the ``-D`` defines they need.

        Raises
        ------
        ValueError
            A bad ``variant``/``prune``, or ``'local'`` when its tile cannot fit.
        """
        if variant not in VARIANTS:
            raise ValueError(f"variant must be 'local', 'global' or 'auto', got {variant!r}")
        if prune not in PRUNE:
            raise ValueError(f"prune must be 'auto', True or False, got {prune!r}")
        pruned = (not rt.is_gpu) if prune == "auto" else bool(prune)
        lim = rt.limits
        choice = None
        if variant in ("auto", "local"):
            for g in (SSD_GROUP, SSD_GROUP // 2):
                if cls.local_bytes(patch, g) <= lim.local_mem_size and lim.fits_group((g, g)):
                    choice = ("local", g)
                    break
            if choice is None and variant == "local":
                raise ValueError(
                    f"the local-memory findBestPatch tile for P={patch} needs "
                    f"{cls.local_bytes(patch, SSD_GROUP // 2)} bytes even with 4x4 work-groups; "
                    f"the device/profile allows {lim.local_mem_size}")
        if choice is None:
            choice = ("global", SSD_GROUP)
        defines: dict[str, Any] = {"PATCH": patch, "GROUP": choice[1], "PRUNE": int(pruned)}
        if pruned:
            defines.update(BOUND_GROUP=min(cls.BOUND_GROUP, reduce_group(rt)), BOUND_STEP=cls.BOUND_STEP)
        return choice[0], choice[1], pruned, defines

    @property
    def label(self) -> str:
        """E.g. ``'local 8x8'``: the variant and its work-group shape."""
        return f"{self.variant} {self.group}x{self.group}"

    @staticmethod
    def local_bytes(patch: int, group: int = SSD_GROUP) -> int:
        """Local memory of the local variant: (P+G-1)^2 uchar4 + P^2 uchar4 + P^2 int."""
        return 4 * (patch + group - 1) ** 2 + 4 * patch * patch + 4 * patch * patch

    def __call__(self, b, width, height, centres):
        """Enqueue the map for ``centres`` ``(x0, y0, x1, y1)``; returns the launch events."""
        return [cl.enqueue_nd_range_kernel(self.rt.queue, knl, size, local)
                for knl, size, local in self.bind(b, width, height, centres)]

    def bind(self, b, width, height, centres) -> list[Launch]:
        """The launches for ``centres``, their arguments set (the bound first, when pruning); the
        device-resident loop enqueues them again every iteration."""
        cx0, cy0, cx1, cy1 = centres
        ncx, ncy = cx1 - cx0, cy1 - cy0
        g = self.group
        args = {"rgba": b["rgb"], "unknown": b["unknown"], "valid": b["valid"], "result": b["result"],
                "width": width, "height": height, "cx0": cx0, "cy0": cy0, "ncx": ncx, "ncy": ncy}
        out = []
        if self.prune:
            bg = (self.bound_group,)
            out.append(self.knl_bound.bind(bg, bg, bound=self.bound, **args))
        out.append(self.knl.bind((round_up(ncx, g), round_up(ncy, g)), (g, g), ssd=b["ssd"], bound=self.bound,
                                 **args))
        return out


class Reduce:
    """Stage 7 (``kernels/criminisi/reduce.cl``): argmin of the SSD map on the device.

    One work-group scans a small map, or any map on a CPU.  On a GPU a map of more than
    :attr:`SPLIT` entries takes two launches: up to :attr:`MAX_GROUPS` work-groups reduce one
    slice each, and one work-group reduces their (value, index) pairs.  On an NVIDIA H200 the
    single work-group took 57 us a launch over Hill's full-search map (0.56 M entries).
    """

    #: Maps larger than this are split over work-groups on a GPU.
    SPLIT = 16384
    #: Most work-groups of the first launch (the second reduces that many pairs).
    MAX_GROUPS = 256

    def __init__(self, rt: Runtime, bundle: Bundle | None = None):
        self.rt = rt
        self.group = reduce_group(rt)
        self.knl = _kernel(rt, bundle, "criminisi/reduce", "argmin_ssd")
        self.knl_groups = _kernel(rt, bundle, "criminisi/reduce", "argmin_ssd_groups")
        self.knl_pairs = _kernel(rt, bundle, "criminisi/reduce", "argmin_ssd_pairs")
        self._pairs = None

    def split(self, n: int) -> tuple[int, int] | None:
        """``(groups, chunk)`` of the two-launch reduction of an ``n``-entry map, or None."""
        if not self.rt.is_gpu or n <= self.SPLIT:
            return None
        chunk = max(-(-n // self.MAX_GROUPS), 8 * self.group)
        return -(-n // chunk), chunk

    def __call__(self, b, n):
        q, g = self.rt.queue, self.group
        plan = self.split(n)
        if plan is None:
            return self.knl(q, (g,), (g,), ssd=b["ssd"], n=n, result=b["result"])
        groups, chunk = plan
        pv, pi = self._pair_buffers()
        return [self.knl_groups(q, (groups * g,), (g,), ssd=b["ssd"], n=n, chunk=chunk, result=b["result"],
                                pv=pv, pi=pi),
                self.knl_pairs(q, (g,), (g,), pv=pv, pi=pi, groups=groups, result=b["result"])]

    def bind_slices(self, b, n) -> tuple[Launch, int, tuple]:
        """The device-resident loop's first half of stage 7 for an ``n``-entry map: the
        per-slice argmins (one slice where :meth:`split` keeps one work-group).  Returns the
        launch, the number of pairs and their buffers (``kernels/criminisi/loop.cl`` reduces them)."""
        groups, chunk = self.split(n) or (1, max(n, 1))
        pv, pi = self._pair_buffers()
        g = (self.group,)
        return (self.knl_groups.bind((groups * g[0],), g, ssd=b["ssd"], n=n, chunk=chunk, result=b["result"],
                                     pv=pv, pi=pi),
                groups, (pv, pi))

    def _pair_buffers(self):
        if self._pairs is None:
            mf = cl.mem_flags
            self._pairs = (cl.Buffer(self.rt.context, mf.READ_WRITE, 4 * self.MAX_GROUPS),
                           cl.Buffer(self.rt.context, mf.READ_WRITE, 4 * self.MAX_GROUPS))
        return self._pairs


class Copy:
    """Stage 8 (``kernels/criminisi/copy.cl``)."""

    def __init__(self, rt: Runtime, bundle: Bundle | None = None):
        self.rt = rt
        self.knl = _kernel(rt, bundle, "criminisi/copy", "copy_patch")

    def __call__(self, b, width, height, half, target, source):
        ty, tx = target
        sy, sx = source
        side = 2 * half + 1
        return self.knl(self.rt.queue, (round_up(side, TILE[0]), round_up(side, TILE[1])), TILE, rgba=b["rgb"],
                        grey=b["grey"], unknown=b["unknown"], conf=b["conf"], cpatch=b["cpatch"], width=width,
                        height=height, radius=half, tx=tx, ty=ty, sx=sx, sy=sy)


class Loop:
    """The device-resident loop's two kernels (``kernels/criminisi/loop.cl``), each one work-group:
    stages 2, 4 and 5 with stage 5's argmax (``update_and_pick``), and the end of stage 7's
    argmin, stage 8 and the loop's bookkeeping (``pick_copy_and_next``: log the iteration for
    the host, set the next rectangle).  Their launches take everything from device buffers, so
    the arguments are set once."""

    def __init__(self, rt: Runtime, bundle: Bundle):
        self.rt = rt
        self.group = reduce_group(rt)
        self.update = _kernel(rt, bundle, LOOP_FILE, "update_and_pick")
        self.copy = _kernel(rt, bundle, LOOP_FILE, "pick_copy_and_next")

    def bind_update(self, b, width, height, half, box) -> Launch:
        """Stages 2, 4 and 5 on the rectangle ``b["rect"]``, then the argmax over ``box``."""
        bx0, by0, bx1, by1 = box
        g = (self.group,)
        return self.update.bind(g, g, grey=b["grey"], unknown=b["unknown"], front=b["front"], conf=b["conf"],
                                cpatch=b["cpatch"], prio=b["prio"], result=b["result"], rect=b["rect"],
                                width=width, height=height, radius=half, bx0=bx0, by0=by0, bw=bx1 - bx0,
                                bh=by1 - by0)

    def bind_copy(self, b, pairs, groups, slots, width, height, half, centres, box) -> Launch:
        """The argmin of stage 7's ``groups`` slice ``pairs``, stage 8 with that source (an
        index into the map of ``centres``), then the bookkeeping; iteration ``i`` (counted in
        ``b["rect"][4]``) logs at slot ``i % slots``."""
        cx0, cy0, cx1, _ = centres
        bx0, by0, bx1, by1 = box
        g = (self.group,)
        return self.copy.bind(g, g, rgba=b["rgb"], grey=b["grey"], unknown=b["unknown"], conf=b["conf"],
                              cpatch=b["cpatch"], pv=pairs[0], pi=pairs[1], groups=groups, result=b["result"],
                              rect=b["rect"], log=b["log"], slots=slots, width=width, height=height, radius=half,
                              cx0=cx0, cy0=cy0, ncx=cx1 - cx0, bx0=bx0, by0=by0, bx1=bx1, by1=by1)
