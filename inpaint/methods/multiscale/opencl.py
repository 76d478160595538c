"""Thin wrappers for the multiscale fill's kernels, one per file of ``kernels/multiscale/``.

``patchmatch.cl`` (:class:`PatchMatch`), ``vote.cl`` (:class:`Vote`), ``poisson.cl``
(:class:`Poisson`), ``pyramid.cl`` (:class:`Pyramid`) and ``onion.cl`` (:class:`Onion`), with
``kernels/common/hash.cl`` (their random numbers).  Each fetches its kernels once per runtime
and patch size (:func:`inpaint.cl.build.named_kernel`: arguments bound by their names in the
prototype, scalars typed from it; ``-D`` specialisation), launches one work-item per target or
pixel, and returns the launch event.  :class:`DeviceLevel` holds a level's state in device
buffers.  :mod:`inpaint.methods.multiscale.reference` is the numpy specification.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import geometry
from ...cl.build import NamedKernel, named_kernel
from ...cl.runtime import PACK_MAX, Runtime, cl, round_up
from ...pixels import to_rgb
from . import gradients as grad, reference as ref
from .levels import VALID_BLOCK, protected_near, source_rect, valid_ends, wide_sources

#: The kernel files of the multiscale fill, built as one program.
BUNDLE = ("common/hash", "multiscale/patchmatch", "multiscale/vote", "multiscale/poisson", "multiscale/pyramid",
          "multiscale/onion", "multiscale/gradient_vote")

#: Work-group size of the 1-D launches (a multiple of every GPU's SIMD width), lowered to
#: a power of two the device or profile allows.
GROUP = 64
#: PatchMatch's work-group size on a CPU, whose cores take a work-group at a time: the coarse levels'
#: few hundred targets then spread evenly over them.
CPU_GROUP = 16
#: Work-group size of the one-group launches (the fused Gauss-Seidel sweeps).
FUSED_GROUP = 256
#: Work-group of the Gauss-Seidel sweeps in local memory (lowered to what the built kernel and the
#: device allow), and the most hole pixels of each colour a work-item of it keeps.
LOCAL_GROUP, GS_K = 1024, 4
#: The most hole pixels of each colour a work-item of the sweeps in local memory one channel at a
#: time keeps (one int of state each where the others keep three: more fit a group).
GS_KC = 16
#: The 16-bit index the local-memory sweeps give a neighbour that is no hole pixel.
GS_NONE = 0xFFFF
#: Largest work-group of the onion peel's search (one a pixel: its candidates side by side).
ONION_GROUP = 64
#: Rows of the low-pass map each work-item of ``low_pass`` makes, down one column.
LOW_CHUNK = 32


def group_size(rt: Runtime) -> int:
    """The 1-D work-group size for ``rt``: ``GROUP`` or the largest allowed power of two below."""
    return rt.limits.work_group((GROUP,))[0]


def _launch(g: int, n: int) -> tuple[tuple[int], tuple[int]]:
    return (round_up(max(int(n), 1), g),), (g,)


def _work(work: tuple[int, ...]) -> dict[str, int]:
    """The kernels' work-area arguments ``rx0, ry0, rw[, rh]`` from ``(x0, y0, width, height)``
    (the kernels that take no ``rh`` get the first three)."""
    return dict(zip(("rx0", "ry0", "rw", "rh"), work))


def _defines(half: int, k: int, adapt: bool = False, transforms: int = 0, cpu: bool = False) -> dict[str, Any]:
    """The bundle's ``-D`` specialisation, the same for every wrapper so they share one program:
    patch half-side and list length, and the constants the kernels share with the reference
    (stated there once): the texture feature's weight and box radius, the empty slot's cost,
    the correction's fixed-point scale, the missing edge value, the longest propagation jump,
    the split vote's low-pass radius, the block of the random sources' counts
    (:func:`inpaint.methods.multiscale.levels.valid_ends`), the expected texture's cell, the hole
    pixels a work-item of the sweeps in local memory keeps; whether the matches adapt their
    colours, the gradient term's scale and the adaptation's bounds; the gradient vote's scale and
    screening; the transformed sources' setting (a key of
    :data:`~inpaint.methods.multiscale.reference.XFORM_CODES`) and how many transforms it draws
    from; whether the device is a CPU (``CPU``: the kernels then take code that a CPU's compiler
    vectorises, see ``patchmatch.cl``; a GPU keeps its own; the same results)."""
    return {"HALF": half, "K": k, "FW": ref.FEATURE_WEIGHT, "FR": ref.FEATURE_RADIUS,
            "EMPTY": f"{int(ref.EMPTY):#x}u", "FIX": ref.FIX, "EDGE_NONE": f"{ref.EDGE_NONE:#x}u",
            "JUMP_MAX": ref.JUMPS[-1], "LOW_RADIUS": ref.LOW_RADIUS,
            "LOW_CHUNK": LOW_CHUNK, "VALID_BLOCK": VALID_BLOCK, "GS_K": GS_K, "GS_KC": GS_KC,
            "GS_NONE": f"{GS_NONE:#x}u", "ONION_GROUP": ONION_GROUP, "ADAPT": int(adapt), "GRAD_SHIFT": ref.GRAD_SHIFT,
            "GAIN_MIN": ref.GAIN_MIN, "GAIN_MAX": ref.GAIN_MAX, "BIAS_MAX": ref.BIAS_MAX, "ADAPT_NONE": ref.ADAPT_NONE,
            "GRAD_SCALE": grad.GRAD_SCALE, "SCREEN": grad.SCREEN, "SCREEN_DEN": grad.SCREEN_DEN,
            "XFORM": transforms, "XFORM_COUNT": ref.XFORM_CODES[transforms], "XFORM_EXACT": ref.XFORM_EXACT,
            "GROUP_CELL": ref.GROUP_CELL, "CPU": int(cpu)}


class _Wrapper:
    """What every wrapper shares: the runtime, the 1-D work-group and the bundle's defines (``cpu``:
    whether the kernels take their CPU code, by default where the device is no GPU)."""

    def __init__(self, rt: Runtime, half: int, k: int, adapt: bool = False, transforms: int = 0,
                 cpu: bool | None = None):
        self.rt = rt
        self.group = group_size(rt)
        self.defines = _defines(half, k, adapt, transforms, not rt.is_gpu if cpu is None else cpu)

    def _kernel(self, name: str) -> NamedKernel:
        """Kernel ``name`` of the bundle, fetched once per runtime and defines."""
        return named_kernel(self.rt, BUNDLE, name, self.defines)


class PatchMatch(_Wrapper):
    """``kernels/multiscale/patchmatch.cl``: one PatchMatch iteration, and rescoring of the lists."""

    def __init__(self, rt: Runtime, half: int, k: int, adapt: bool = False, transforms: int = 0,
                 cpu: bool | None = None):
        super().__init__(rt, half, k, adapt, transforms, cpu)
        if self.defines["CPU"]:
            self.group = min(self.group, CPU_GROUP)
        self.knl = self._kernel("patchmatch")
        self.knl_rescore = self._kernel("rescore")
        self.knl_start = self._kernel("start_lists")

    def __call__(self, b: dict[str, Any], n: int, width: int, height: int, radius: int, jump: int, key: int,
                 best_in: Any, best_out: Any, work: tuple[int, int, int, int], mean: int = 0, near: int = 0,
                 short: tuple[int, int] = (0, 0), skip: bool = False, rescore: bool = False, grad: int = 0,
                 bxf: tuple[Any, Any] | None = None) -> Any:
        """``work`` = (x0, y0, width, height) of the work area, ``mean``, ``near`` and ``grad`` the weights
        of the mean-colour, distance and gradient terms, ``short`` the (radius, jump) of the short search taken when
        ``b["random_start"]`` is clear, ``skip`` whether it skips this iteration, ``rescore``
        whether it rescores the lists first (one candidate each only; see
        ``kernels/multiscale/patchmatch.cl``); with transformed sources ``b["xf"]`` holds the lists'
        transforms and ``bxf`` the best matches' (in, out)."""
        return self.level(b, n, width, height, radius, jump, work, mean, near, short, grad)(key, best_in, best_out,
                                                                                            skip, rescore, bxf)

    def level(self, b: dict[str, Any], n: int, width: int, height: int, radius: int, jump: int,
              work: tuple[int, int, int, int], mean: int = 0, near: int = 0, short: tuple[int, int] = (0, 0),
              grad: int = 0) -> Callable[..., Any]:
        """:meth:`__call__` with the arguments that stay over a level's iterations named once: the
        launch it returns takes ``key``, ``best_in``, ``best_out``, ``skip``, ``rescore`` and ``bxf``
        (and sets every argument anew, as any launch)."""
        bound = self.knl.partial(
            *_launch(self.group, n), est=b["est"], targets=b["targets"], tidx=b["tidx"], valid=b["valid"],
            nnf=b["nnf"], cost=b["cost"], n=n, width=width, height=height, radius=radius, jump_max=jump, mean_w=mean,
            near_w=near, grad_w=grad, adapt=b.get("adapt", b["cost"]), **_work(work), random_start=b["random_start"],
            short_radius=short[0], short_jump=short[1], xf=b.get("xf", b["cost"]), wide=b.get("wide", b["valid"]),
            xtab=b.get("xtab", b["cost"]))
        queue = self.rt.queue

        def launch(key: int, best_in: Any, best_out: Any, skip: bool = False, rescore: bool = False,
                   bxf: tuple[Any, Any] | None = None) -> Any:
            bxf_in, bxf_out = bxf if bxf is not None else (best_in, best_out)
            return bound(queue, key=key, best_in=best_in, best_out=best_out, short_skip=int(skip),
                         rescore=int(rescore), bxf_in=bxf_in, bxf_out=bxf_out)

        return launch

    def start(self, b: dict[str, Any], n: int, width: int, height: int, key: int, best: Any,
              bxf: Any = None) -> Any:
        """Every list holds a random source alone, and so does ``best`` (``bxf``: its transform,
        none) (see ``start_lists``)."""
        return self.knl_start(self.rt.queue, *_launch(self.group, n), valid=b["valid"], ends=b["ends"], nnf=b["nnf"],
                              cost=b["cost"], best=best, n=n, width=width, height=height, key=key & 0xFFFFFFFF,
                              xf=b.get("xf", b["cost"]), bxf=best if bxf is None else bxf)

    def rescore(self, b: dict[str, Any], n: int, width: int, height: int, best: Any, mean: int = 0,
                near: int = 0, grad: int = 0, bxf: Any = None) -> Any:
        """Recompute every listed candidate's distance; ``best`` receives each target's best (``bxf``
        its transform)."""
        return self.knl_rescore(self.rt.queue, *_launch(self.group, n), est=b["est"], targets=b["targets"],
                                nnf=b["nnf"], cost=b["cost"], best=best, n=n, width=width, height=height,
                                mean_w=mean, near_w=near, grad_w=grad, adapt=b.get("adapt", b["cost"]),
                                xf=b.get("xf", b["cost"]), bxf=best if bxf is None else bxf,
                                xtab=b.get("xtab", b["cost"]))


class Vote(_Wrapper):
    """``kernels/multiscale/vote.cl``: the weighted vote of the covering patches, per listed pixel (split
    by frequency or not), and the low-pass map a split vote reads."""

    def __init__(self, rt: Runtime, half: int, k: int, adapt: bool = False, transforms: int = 0,
                 cpu: bool | None = None):
        super().__init__(rt, half, k, adapt, transforms, cpu)
        self.knl = self._kernel("vote")
        self.knl_low = self._kernel("low_pass")

    def __call__(self, b: dict[str, Any], pixels: Any, n: int, width: int, k_use: int, softness: int,
                 work: tuple[int, int, int, int], low: tuple[int, int, int, int] | None = None,
                 src: Any = None, nsrc: int = 0) -> Any:
        """``vote`` over ``n`` listed pixels; with ``low`` (the rectangle (x0, y0, x1, y1) of the
        map in ``b["low"]``), split by frequency, and ``src`` receives the first ``nsrc`` pixels'
        sources."""
        x0, y0, x1, _ = low if low is not None else (0, 0, 1, 0)
        return self.knl(self.rt.queue, *_launch(self.group, n), est=b["est"], pixels=pixels, tidx=b["tidx"],
                        nnf=b["nnf"], cost=b["cost"], out=b["v"], low=b["low"] if low is not None else b["est"],
                        src=src if src is not None else b["nnf"], nsrc=nsrc, adapt=b.get("adapt", b["cost"]),
                        xf=b.get("xf", b["cost"]), xtab=b.get("xtab", b["cost"]), n=n,
                        width=width, k_use=k_use,
                        softness=softness, split=int(low is not None), lx0=x0, ly0=y0, lw=x1 - x0, **_work(work))

    def low_pass(self, b: dict[str, Any], rect: tuple[int, int, int, int], width: int, height: int,
                 work: tuple[int, int, int, int], protected: tuple[tuple, Any] | None = None) -> Any:
        """``low_pass`` over ``rect`` (x0, y0, x1, y1) into ``b["low"]``; ``protected``: the box
        (x0, y0, x1, y1) and device map of the protected pixels near it, beyond the work area."""
        x0, y0, x1, y1 = rect
        n = (x1 - x0) * -(-(y1 - y0) // LOW_CHUNK)  # a work-item per column and chunk of rows
        (px0, py0, px1, py1), prot = protected if protected is not None else ((0, 0, 0, 0), b["hole"])
        return self.knl_low(self.rt.queue, *_launch(self.group, n), est=b["est"], hole=b["hole"], low=b["low"], n=n,
                            width=width, height=height, lx0=x0, ly0=y0, lw=x1 - x0, lh=y1 - y0, **_work(work),
                            prot=prot, px0=px0, py0=py0, pw=px1 - px0, ph=py1 - py0)


def _own_copies(nk: NamedKernel, n: int) -> list[NamedKernel]:
    """``n`` kernel objects of ``nk``'s kernel, each with arguments of its own (a kernel object
    keeps the arguments last set on it, so launches that alternate between argument sets only
    enqueue when each set has its own object)."""
    made = []
    for _ in range(n):
        knl = cl.Kernel(nk.kernel.program, nk.name)
        knl.set_scalar_arg_dtypes(nk.dtypes)
        made.append(NamedKernel(knl, nk.name, nk.params, nk.dtypes, nk.compiles))
    return made


class Tiles:
    """Red-black sweeps of a large hole, several half-sweeps a launch of a tiled kernel
    (``poisson.cl: gauss_seidel_tiles``, ``gradient_vote.cl: screened_gauss_seidel_tiles``): each
    work-group sweeps a tile of the work area with a halo around it in local memory (three ints and
    a flag a pixel), ``halo`` half-sweeps at most, and writes the tile's hole pixels to the other of
    ``b["x"]`` and ``b["x2"]`` (made when first needed), which take turns.

    Parameters
    ----------
    rt : Runtime
    knl : NamedKernel
        The tiled kernel; besides its own arguments it takes ``x_in``, ``x_out``, ``halfs``,
        ``first``, the work area, ``tile``, ``halo``, ``vals`` and ``flags``.
    """

    #: The halo: the half-sweeps a launch (each spoils one more pixel of the loaded square's rim).
    #: A wider one takes fewer launches but a larger square, more of it loaded and swept only to
    #: serve as a neighbour's halo.  Eight: four sweeps a launch; with the 56-pixel square a 48 KB
    #: local memory takes (13 bytes a pixel), owning its inner 40 x 40, at twice the updates of the
    #: hole itself, cheaper on a GPU than the launches it saves (each enqueued from Python).
    HALO = 8
    #: The largest loaded square side; a device whose local memory holds less takes the largest
    #: multiple of 8 that fits (with a halo of at most a quarter of it).
    SIDE = 64

    def __init__(self, rt: Runtime, knl: NamedKernel):
        self.rt, self.knl = rt, knl
        info = rt.work_group_info(knl)
        self.group = rt.limits.work_group((FUSED_GROUP,), cap=info["work_group_size"])[0]
        free = (rt.limits.local_mem_size - info["local_mem_size"]) // 13  # pixels: three ints and a flag each
        side = max(8, min(self.SIDE, int(free ** 0.5) // 8 * 8))
        #: The halo and the owned tile's side; tests lower them to cut small holes into many tiles.
        self.halo = min(self.HALO, side // 4)  # a smaller local memory: a narrower halo, more launches
        self.tile = side - 2 * self.halo
        self._directions: list[NamedKernel] | None = None  # the kernel's two copies, made when first needed

    def directions(self) -> list[NamedKernel]:
        """Two kernels of their own, one a direction (``b["x"]`` to ``b["x2"]`` and back): each keeps
        its arguments, set once a solve, so that the launches of whole halos only enqueue."""
        if self._directions is None:
            self._directions = _own_copies(self.knl, 2)
        return self._directions

    def halfs(self, sweeps: int) -> list[int]:
        """The half-sweeps of each launch: :attr:`halo` each, and what remains in one launch more;
        where that would leave an odd count of launches, the rest (or else the last halo) in two
        (the last launch must write ``b["x"]``: the launches alternate between it and ``b["x2"]``)."""
        h = self.halo
        full, rest = divmod(2 * sweeps, h)
        if (full + (rest > 0)) % 2:
            if not rest:
                full, rest = full - 1, h
            return [h] * full + [(rest + 1) // 2, rest // 2]
        return [h] * full + ([rest] if rest else [])

    def __call__(self, b: dict[str, Any], sweeps: int, work: tuple[int, int, int, int], **args: Any) -> list:
        """``sweeps`` red-black sweeps of the hole in ``b["x"]`` over the work area ``work``, the
        kernel's own arguments in ``args``; returns the launch events."""
        counts = self.halfs(sweeps)
        if not counts:
            return []
        if "x2" not in b:  # every launch writes all hole pixels, and reads no other: no clearing
            b["x2"] = self.rt.buffer(b["x"].size)
        t, g, h = self.tile, self.group, self.halo
        side = t + 2 * h
        args.update(_work(work), tile=t, halo=h, vals=cl.LocalMemory(12 * side * side),
                    flags=cl.LocalMemory(side * side))
        launch = ((-(-work[2] // t) * g, -(-work[3] // t)), (g, 1))
        ways = ((b["x"], b["x2"]), (b["x2"], b["x"]))
        # the whole halos' launches, from an even start (h is even but in tests): first = i h % 2
        bound = [knl.bind(*launch, x_in=src, x_out=dst, halfs=h, first=i * h % 2, **args)
                 for i, (knl, (src, dst)) in enumerate(zip(self.directions(), ways))]
        queue, enqueue = self.rt.queue, cl.enqueue_nd_range_kernel
        events, done = [], 0
        for i, n in enumerate(counts):
            if n == h:
                events.append(enqueue(queue, *bound[i % 2]))
            else:
                src, dst = ways[i % 2]
                events.append(self.knl(queue, *launch, x_in=src, x_out=dst, halfs=n, first=done % 2, **args))
            done += n
        return events


class Poisson(_Wrapper):
    """``kernels/multiscale/poisson.cl``: red-black Gauss-Seidel sweeps and the final composition.

    Holes of up to :attr:`channel_pixels` pixels (``GS_KC`` of each colour a work-item) run all
    their sweeps in one launch of three work-groups, one a channel, with the values in local memory
    (``gauss_seidel_channels``), then a launch of ``compose``; where :attr:`SPLIT_CHANNELS` is off
    (or those sweeps cannot take the hole), holes of up to :attr:`local_pixels` pixels (``GS_K`` of
    each colour a work-item) run their sweeps and the composition in one launch of one work-group,
    all three channels in local memory (``gauss_seidel_local``).  Other holes of up to
    ``FUSED_PIXELS`` pixels run in one launch of one work-group through global memory
    (``gauss_seidel_sweeps``); larger ones run several half-sweeps a launch in overlapped tiles
    (``gauss_seidel_tiles``, :class:`Tiles`) where :attr:`in_tiles` is set, else two launches a
    sweep (``gauss_seidel``, one a colour), then a launch of ``compose``.
    """

    #: Largest hole swept in one launch.
    FUSED_PIXELS = 16384
    #: Whether holes that fit both local-memory sweeps take the one-channel-a-group sweeps: three
    #: compute units, each with a third of the arithmetic and local memory, as many barriers, and one
    #: launch more (``compose``).  Off: on an H200 the one group of all channels was as fast or faster
    #: on such holes (the river case 2.10 against 2.52 ms, `tools/poisson_split.py`).
    SPLIT_CHANNELS = False

    def __init__(self, rt: Runtime, half: int, k: int, adapt: bool = False, transforms: int = 0,
                 cpu: bool | None = None):
        super().__init__(rt, half, k, adapt, transforms, cpu)
        self.fused_group = rt.limits.work_group((FUSED_GROUP,))[0]
        self.tiles = Tiles(rt, self._kernel("gauss_seidel_tiles"))
        self.knl_gs = self._kernel("gauss_seidel")
        #: Whether a large hole's sweeps run in tiles: on a GPU, where each launch costs the host more
        #: than the tiles' extra updates cost the device (a 12 MP fill on an H200: 0.12 s against
        #: 0.145 s); a CPU launches cheaply and pays for every update (the same fill's correction on
        #: two cores with PoCL: 0.86 s in tiles, 0.61 s two launches a sweep).
        self.in_tiles = rt.is_gpu
        self._colour_kernels: list[NamedKernel] | None = None  # the sweeps' own kernels, made when first needed
        self.knl_sweeps = self._kernel("gauss_seidel_sweeps")
        self.knl_compose = self._kernel("compose")
        self.knl_local = self._kernel("gauss_seidel_local")
        info = rt.work_group_info(self.knl_local)
        self.local_group = rt.limits.work_group((LOCAL_GROUP,), cap=info["work_group_size"])[0]
        #: The most hole pixels the local-memory sweeps take: local memory holds three ints a pixel,
        #: and their indices are 16-bit (a work-item also takes at most ``GS_K`` of each colour).
        self.local_pixels = min((rt.limits.local_mem_size - info["local_mem_size"]) // 12, GS_NONE - 1)
        self.knl_channels = self._kernel("gauss_seidel_channels")
        info = rt.work_group_info(self.knl_channels)
        self.channel_group = rt.limits.work_group((LOCAL_GROUP,), cap=info["work_group_size"])[0]
        #: The most hole pixels the local-memory sweeps take one channel a work-group (one int a pixel).
        self.channel_pixels = min((rt.limits.local_mem_size - info["local_mem_size"]) // 4, GS_NONE - 1)
        #: Whether the local-memory sweeps' work-group is fitted to the hole, the fewest work-items
        #: that hold it (on a CPU, which runs a work-group's work-items one after another, each paying
        #: for its unused pixel slots); a GPU runs them side by side, so there it is the largest.
        self.fit = not rt.is_gpu

    def _group(self, cap: int, most: int, slots: int) -> int:
        """The work-group of local-memory sweeps of up to ``cap`` work-items, ``slots`` pixels of each
        colour a work-item, over ``most`` pixels of the larger colour: ``cap``, or fitted (see
        :attr:`fit`) in steps of 32 work-items."""
        return min(cap, round_up(-(-most // slots), 32)) if self.fit else cap

    def _colours(self) -> list[NamedKernel]:
        """Two kernels of ``gauss_seidel`` of their own, one a colour: each keeps its arguments, set
        once a correction, so that its hundreds of launches only enqueue."""
        if self._colour_kernels is None:
            self._colour_kernels = _own_copies(self.knl_gs, 2)
        return self._colour_kernels

    def listed(self, b: dict[str, Any], red: Any, nred: int, black: Any, nblack: int, width: int, height: int,
               sweeps: int, work: tuple[int, int, int, int]) -> list:
        """``sweeps`` red-black sweeps of the hole in ``b["x"]``, a launch a colour; the launch events."""
        bound = [knl.bind(*_launch(self.group, n), hole=b["hole"], est=b["est"], v=b["v"], x=b["x"], pixels=pix,
                          n=n, width=width, height=height, **_work(work[:3]))
                 for knl, pix, n in zip(self._colours(), (red, black), (nred, nblack)) if n]
        queue, enqueue = self.rt.queue, cl.enqueue_nd_range_kernel
        return [enqueue(queue, *launch) for _ in range(sweeps) for launch in bound]

    def tiled(self, b: dict[str, Any], width: int, sweeps: int, work: tuple[int, int, int, int]) -> list:
        """``sweeps`` red-black sweeps of the hole in ``b["x"]`` in tiles (:class:`Tiles`); the launch events."""
        return self.tiles(b, sweeps, work, hole=b["hole"], est=b["est"], v=b["v"], width=width)

    def correct(self, b: dict[str, Any], red: Any, nred: int, black: Any, nblack: int, nhole: int, width: int,
                height: int, sweeps: int, work: tuple[int, int, int, int],
                result: tuple[Any, Any] | None = None) -> list:
        """``sweeps`` red-black sweeps, then :meth:`compose` over the ``nhole`` hole pixels (in the
        same launch where the sweeps take one work-group); returns the launch events."""
        most = max(nred, nblack)
        channels = 0 < most <= GS_KC * self.channel_group and nred + nblack <= self.channel_pixels
        if (0 < most <= GS_K * self.local_group and nred + nblack <= self.local_pixels
                and not (channels and self.SPLIT_CHANNELS)):
            g = self._group(self.local_group, most, GS_K)
            return [self.knl_local(self.rt.queue, (g,), (g,), hole=b["hole"], est=b["est"], v=b["v"], x=b["x"],
                                   red=red, nred=nred, black=black, nblack=nblack, width=width, height=height,
                                   sweeps=sweeps, **_work(work[:3]), hole_pixels=b["holepix"], nhole=nhole,
                                   vals=cl.LocalMemory(12 * (nred + nblack)), **self._compose_args(b, result))]
        if channels:
            g = self._group(self.channel_group, most, GS_KC)
            return [self.knl_channels(self.rt.queue, (3 * g,), (g,), hole=b["hole"], est=b["est"], v=b["v"],
                                      x=b["x"], red=red, nred=nred, black=black, nblack=nblack, width=width,
                                      height=height, sweeps=sweeps, **_work(work[:3]),
                                      vals=cl.LocalMemory(4 * (nred + nblack))),
                    self.compose(b, nhole, width, work, result)]
        if nred + nblack <= self.FUSED_PIXELS:
            g = self.fused_group
            return [self.knl_sweeps(self.rt.queue, (g,), (g,), hole=b["hole"], est=b["est"], v=b["v"], x=b["x"],
                                    red=red, nred=nred, black=black, nblack=nblack, width=width, height=height,
                                    sweeps=sweeps, **_work(work[:3]), hole_pixels=b["holepix"], nhole=nhole,
                                    **self._compose_args(b, result))]
        sweeps_done = (self.tiled(b, width, sweeps, work) if self.in_tiles
                       else self.listed(b, red, nred, black, nblack, width, height, sweeps, work))
        return sweeps_done + [self.compose(b, nhole, width, work, result)]

    @staticmethod
    def _compose_args(b: dict[str, Any], result: tuple[Any, Any] | None) -> dict[str, Any]:
        src, out = result if result is not None else (b["holepix"], b["holepix"])
        return dict(prior=b.get("prior", b["hole"]), use_prior=int("prior" in b), src=src, result=out,
                    gather=int(result is not None))

    def compose(self, b: dict[str, Any], n: int, width: int, work: tuple[int, int, int, int],
                result: tuple[Any, Any] | None = None) -> Any:
        """Add the correction to the vote over the ``n`` hole pixels; their features come from
        ``b["prior"]`` where it is set.  With ``result`` = (sources, out), ``out`` (3 ints a hole
        pixel) also receives each pixel's source from ``sources`` and its new value."""
        return self.knl_compose(self.rt.queue, *_launch(self.group, n), est=b["est"], v=b["v"], x=b["x"],
                                pixels=b["holepix"], n=n, width=width, **_work(work[:3]),
                                **self._compose_args(b, result))


class GradientVote(_Wrapper):
    """``kernels/multiscale/gradient_vote.cl``: the covering patches' vote of every pixel's gradients,
    and red-black Gauss-Seidel sweeps of the screened solve from them (one launch of one work-group
    for holes of up to :attr:`Poisson.FUSED_PIXELS` pixels, as :class:`Poisson`, larger ones in
    tiles: :class:`Tiles`)."""

    def __init__(self, rt: Runtime, half: int, k: int, adapt: bool = False, transforms: int = 0):
        super().__init__(rt, half, k, adapt, transforms)
        self.fused_group = rt.limits.work_group((FUSED_GROUP,))[0]
        self.knl_vote = self._kernel("gradient_vote")
        self.tiles = Tiles(rt, self._kernel("screened_gauss_seidel_tiles"))
        self.knl_sweeps = self._kernel("screened_gauss_seidel_sweeps")

    def vote(self, b: dict[str, Any], pixels: Any, n: int, width: int, k_use: int, softness: int,
             work: tuple[int, int, int, int], low: tuple[int, int, int, int] | None = None, anchor: bool = True) -> Any:
        """``gradient_vote`` over ``n`` listed pixels into ``b["gx"]``, ``b["gy"]`` (and ``b["x0"]``: the
        correction with ``anchor``, else 0); with ``low`` (the rectangle of ``b["low"]``), split by
        frequency."""
        x0, y0, x1, _ = low if low is not None else (0, 0, 1, 0)
        return self.knl_vote(self.rt.queue, *_launch(self.group, n), est=b["est"], pixels=pixels, n=n,
                             tidx=b["tidx"], nnf=b["nnf"], cost=b["cost"], xf=b.get("xf", b["cost"]),
                             xtab=b.get("xtab", b["cost"]),
                             low=b["low"] if low is not None else b["est"], gx=b["gx"], gy=b["gy"], x=b["x"],
                             x0=b["x0"], anchor=int(anchor), width=width, k_use=k_use, softness=softness,
                             split=int(low is not None), lx0=x0, ly0=y0, lw=x1 - x0, **_work(work))

    def solve(self, b: dict[str, Any], red: Any, nred: int, black: Any, nblack: int, width: int, height: int,
              sweeps: int, work: tuple[int, int, int, int]) -> list:
        """``sweeps`` red-black sweeps of the screened solve, in place on ``b["x"]``; the launch events."""
        args = dict(hole=b["hole"], est=b["est"], v=b["v"], x=b["x"], x0=b["x0"], gx=b["gx"], gy=b["gy"],
                    width=width, height=height, **_work(work[:3]))
        if nred + nblack <= Poisson.FUSED_PIXELS:
            g = self.fused_group
            return [self.knl_sweeps(self.rt.queue, (g,), (g,), red=red, nred=nred, black=black, nblack=nblack,
                                    sweeps=sweeps, **args)]
        return self.tiles(b, sweeps, work, hole=b["hole"], est=b["est"], v=b["v"], x0=b["x0"], gx=b["gx"], gy=b["gy"],
                          width=width)


class Pyramid(_Wrapper):
    """``kernels/multiscale/pyramid.cl``: the image pyramid on the device, its texture features, and a
    level's start from the coarser one's result."""

    #: 2-D work-group of ``halve``.
    TILE = (16, 8)

    def __init__(self, rt: Runtime, half: int, k: int, adapt: bool = False, transforms: int = 0,
                 cpu: bool | None = None):
        super().__init__(rt, half, k, adapt, transforms, cpu)
        self.knl_pack = self._kernel("pack_rgba")
        self.knl_halve = self._kernel("halve")
        self.knl_lift = self._kernel("lift_level")
        self.knl_edges = self._kernel("edges")
        self.knl_features = self._kernel("features")
        self.knl_texture = self._kernel("expected_texture")
        self._texture_group: int | None = None  # its one work-group's size, found when first needed
        self.tile = rt.limits.work_group(self.TILE)

    def pack(self, rgb: Any, est: Any, n: int) -> Any:
        """``est`` (``n`` uchar4) from packed RGB bytes ``rgb``."""
        return self.knl_pack(self.rt.queue, *_launch(self.group, n), rgb=rgb, est=est, n=n)

    def halve(self, fine: Any, fine_shape: tuple[int, int], coarse: Any, coarse_shape: tuple[int, int]) -> Any:
        """``coarse`` = ``down2(fine)``; shapes are (height, width)."""
        (fh, fw), (ch, cw) = fine_shape, coarse_shape
        tx, ty = self.tile
        return self.knl_halve(self.rt.queue, (round_up(cw, tx), round_up(ch, ty)), self.tile,
                              fine=fine, fw=fw, fh=fh, coarse=coarse, cw=cw, ch=ch)

    def features(self, est: Any, edges: Any, hole: Any, box: tuple[int, int, int, int], shape: tuple[int, int]) -> list:
        """The texture feature of every pixel into ``est``'s spare byte (``edges`` then ``features``;
        ``edges`` is scratch of 2 bytes a pixel); ``hole`` (uchar) covers ``box`` = (x0, y0, w, h).
        Returns the two launch events."""
        h, w = shape
        tx, ty = self.tile
        grid = (round_up(w, tx), round_up(h, ty))
        hx0, hy0, hw, hh = box
        args = {"est": est, "e": edges, "hole": hole, "hx0": hx0, "hy0": hy0, "hw": hw, "hh": hh, "width": w,
                "height": h}
        return [self.knl_edges(self.rt.queue, grid, self.tile, **args),
                self.knl_features(self.rt.queue, grid, self.tile, **args)]

    def expected_texture(self, est: Any, width: int, solve: Any, work: tuple[int, int, int, int],
                         rect: tuple[int, int, int, int], table: Any, table_width: int, group: int,
                         prior: Any) -> Any:
        """The texture one group of the hole expects into ``prior`` (``expected_texture``, one
        work-group): over ``rect`` (x0, y0, x1, y1) of the photo whose level-0 picture is ``est``
        (``width`` wide); ``solve`` and ``prior`` cover the work area ``work`` (x0, y0, width,
        height); ``group`` -1: every hole pixel is the group's, else those whose cell ``table``
        (``table_width`` cells a row) numbers ``group``."""
        x0, y0, x1, y1 = rect
        sizes, h, w = [], y1 - y0, x1 - x0
        while True:
            sizes.append(h * w)
            if h == 1 and w == 1:
                break
            h, w = (h + 1) // 2, (w + 1) // 2
        total = sum(sizes)
        val, known = self.rt.buffer(total * 4), self.rt.buffer(total)
        if self._texture_group is None:
            self._texture_group = self.rt.limits.work_group(
                (1024,), cap=self.rt.work_group_info(self.knl_texture)["work_group_size"])[0]
        g = self._texture_group
        return self.knl_texture(self.rt.queue, (g,), (g,), est=est, width=width, solve=solve, wx0=work[0],
                                wy0=work[1], ww=work[2], rx0=x0, ry0=y0, rw=x1 - x0, rh=y1 - y0, table=table,
                                tw=table_width, group=group, val=val, known=known, prior=prior)

    def lift(self, b: dict[str, Any], nhole: int, n: int, shape: tuple[int, int], coarse: dict[str, Any],
             coarse_width: int, coarse_work: tuple[int, int, int, int], key: int) -> Any:
        """Every hole pixel takes the coarse estimate at half its coordinates, and every target's list
        starts with its coarse parent's best match scaled up (``lift_level``): ``b`` needs
        ``random_start`` cleared, ``ends`` and the start's ``best``; ``coarse`` the coarse level's
        ``est``, ``tidx`` and ``best`` over its work area ``coarse_work`` = (x0, y0, width, height)."""
        h, w = shape
        cx0, cy0, cw, ch = coarse_work
        return self.knl_lift(self.rt.queue, *_launch(self.group, max(nhole, n)), est=b["est"], hole=b["holepix"],
                             nhole=nhole, width=w, height=h, coarse_est=coarse["est"], cwidth=coarse_width,
                             targets=b["targets"], n=n, valid=b["valid"], ends=b["ends"], ctidx=coarse["tidx"],
                             cbest=coarse["best"], cx0=cx0, cy0=cy0, cw=cw, ch=ch, key=key & 0xFFFFFFFF,
                             nnf=b["nnf"], cost=b["cost"], best=b["best"], random_start=b["random_start"],
                             cbxf=coarse.get("bxf", coarse["best"]), xf=b.get("xf", b["cost"]),
                             bxf=b.get("bxf", b["best"]), wide=b.get("wide", b["valid"]), xtab=b.get("xtab", b["cost"]))


class Onion(_Wrapper):
    """``kernels/multiscale/onion.cl``: one layer of the coarsest level's first fill (search, then apply)."""

    def __init__(self, rt: Runtime, half: int, k: int, adapt: bool = False, transforms: int = 0,
                 cpu: bool | None = None):
        super().__init__(rt, half, k, adapt, transforms, cpu)
        self.knl_search = self._kernel("onion_search")
        self.knl_apply = self._kernel("onion_apply")
        # A CPU runs a group's work-items one after another: there the group's barriers and sums
        # cost more than sharing a pixel's candidates saves, and each pixel takes one work-item.
        self.search_group = 1 if self.defines["CPU"] else rt.limits.work_group(
            (ONION_GROUP,), cap=rt.work_group_info(self.knl_search)["work_group_size"])[0]

    def search(self, b: dict[str, Any], pixels: Any, found: Any, n: int, r: int, width: int,
               height: int, radius: int, key: int, work: tuple[int, int, int, int]) -> Any:
        """``found`` = each of the ``n`` layer pixels' best source (``r`` random candidates each),
        a work-group a pixel."""
        g = self.search_group
        return self.knl_search(self.rt.queue, (g * max(n, 1),), (g,), est=b["est"], filled=b["filled"],
                               osrc=b["osrc"], valid=b["valid"], ends=b["ends"], pixels=pixels, found=found, n=n,
                               R=r, width=width, height=height, radius=radius, key=key & 0xFFFFFFFF,
                               **_work(work))

    def apply(self, b: dict[str, Any], pixels: Any, found: Any, n: int, width: int,
              work: tuple[int, int, int, int]) -> Any:
        """Fill the ``n`` layer pixels from their sources ``found``."""
        return self.knl_apply(self.rt.queue, *_launch(self.group, n), est=b["est"], filled=b["filled"],
                              osrc=b["osrc"], pixels=pixels, found=found, n=n, width=width, **_work(work[:3]))


def kernels(rt: Runtime, half: int, k: int, adapt: bool = False, transforms: int = 0) -> dict[str, Any]:
    """Every wrapper of the fill for patch half-side ``half`` and ``k`` candidates (with ``adapt``, matches
    that adapt their colours; ``transforms``, a key of
    :data:`~inpaint.methods.multiscale.reference.XFORM_CODES`, the transformed sources): the whole program.
    Made once per runtime and these values (:meth:`inpaint.cl.runtime.Runtime.made`): the next fill
    on the runtime takes the same wrappers (whose launches set every argument anew)."""
    args = (rt, half, k, bool(adapt), transforms)

    def make() -> dict[str, Any]:
        return {"pm": PatchMatch(*args), "vote": Vote(*args), "onion": Onion(*args), "poisson": Poisson(*args),
                "pyramid": Pyramid(*args), "gradients": GradientVote(*args)}

    return rt.made((__name__, *args[1:]), make)


def device_pyramid(rt: Runtime, kn: dict[str, Any], rgb: np.ndarray, whole: np.ndarray,
                   shapes: list[tuple[int, int]], seconds: dict[str, float], events: list) -> list:
    """Every level's picture as a device buffer of RGB and texture feature: the photo ``rgb``
    crosses the bus once, as packed RGB, gets its features (``whole``: the pixels unknown to
    them) and is halved on the device into the levels of ``shapes``.  Transfers are booked in
    ``seconds['transfers']``, the launches' events in ``events`` under ``'levels'``."""
    pyr = kn["pyramid"]
    t = time.perf_counter()
    rgb_buf = rt.upload(rgb)
    seconds["transfers"] += time.perf_counter() - t
    bufs = [rt.buffer(h * w * 4) for h, w in shapes]
    events.append(("levels", pyr.pack(rgb_buf, bufs[0], shapes[0][0] * shapes[0][1])))
    x0, y0, x1, y1 = geometry.bbox(whole)
    t = time.perf_counter()
    hole = rt.upload(np.ascontiguousarray(whole[y0:y1, x0:x1], np.uint8))
    edges = rt.buffer(shapes[0][0] * shapes[0][1] * 2)
    seconds["transfers"] += time.perf_counter() - t
    for ev in pyr.features(bufs[0], edges, hole, (x0, y0, x1 - x0, y1 - y0), shapes[0]):
        events.append(("levels", ev))
    for lv in range(1, len(shapes)):
        events.append(("levels", pyr.halve(bufs[lv - 1], shapes[lv - 1], bufs[lv], shapes[lv])))
    return bufs


class DeviceLevel:
    """One level's state in OpenCL buffers; the same operations as the job's numpy level state
    (:class:`inpaint.methods.multiscale.host.HostLevel`).

    ``est`` is the level's picture already on the device (:func:`device_pyramid`), filled in place;
    the other buffers are created and cleared on the device, so only the level's lists and maps
    cross the bus.
    """

    def __init__(self, level: Any, est: Any, k: int, half: int, seconds: dict[str, float], rt: Any,
                 kernels: dict[str, Any], events: list):
        self.lev, self.k, self.half, self.seconds = level, k, half, seconds
        self.cl, self.rt, self.kn, self.events = cl, rt, kernels, events
        t = time.perf_counter()
        lev = level
        n = len(lev.targets)
        work = lev.tidx.size * 16  # int4 per pixel of the work area
        mode = kernels["pm"].defines["XFORM"]
        # The level's lists and maps cross the bus in one copy and its zeroed buffers take one fill
        # (Runtime.uploads): parts of two buffers, which the level keeps.
        sent = {"targets": lev.targets, "tidx": lev.tidx, "hole": lev.solve_map, "ends": valid_ends(lev),
                "pixels": lev.pixels, "red": lev.colours[0], "black": lev.colours[1]}
        if mode:
            sent["xtab"] = ref.XFORM_TABLE
        if mode == 3:  # resampled transforms: the sources whose wider window is known
            sent["wide"] = wide_sources(lev, half)
        if lev.sources_box is not None:  # the box of the valid centres, placed in the map on the device
            x0, y0, x1, y1 = lev.sources_box
            if (x1 - x0) * (y1 - y0) < PACK_MAX:  # (a larger one is copied from the map: no copy on the host)
                sent["valid_box"] = lev.valid[y0:y1, x0:x1]
        sent = {name: np.ascontiguousarray(arr) for name, arr in sent.items() if arr.size}
        # random_start: set where a start is random (lift); with transformed sources, every listed
        # match's transform and the best matches' (as best_bufs)
        zeroed = {"v": work, "x": work, "random_start": 4, "best0": n * 8, "best1": n * 8}
        if mode:
            zeroed.update(xf=n * k * 4, bxf0=n * 4, bxf1=n * 4)
        packs = self._packs = (rt.uploads(list(sent.values())), rt.cleared(list(zeroed.values())))
        parts = dict(zip(sent, packs[0].parts)) | dict(zip(zeroed, packs[1].parts))
        box = None
        if "valid_box" in parts:
            box = packs[0].homes[list(sent).index("valid_box")]
            del parts["valid_box"]
        valid = self._valid(lev, box)
        self.b = {"est": est, "valid": valid, "nnf": rt.buffer(n * k * 8), "cost": rt.buffer(n * k * 4),
                  "red": None, "black": None, **parts}
        self.b["holepix"] = self.b["pixels"]  # the hole's pixels are the list's first: no copy of their own
        if kernels["pm"].defines["ADAPT"]:  # every listed match's colour adaptation (written by rescore)
            self.b["adapt"] = rt.buffer(n * k * 16)
        self.best_bufs = [self.b.pop("best0"), self.b.pop("best1")]
        self.bxf_bufs: list[Any] | None = [self.b.pop("bxf0"), self.b.pop("bxf1")] if mode else None
        self.reach = ref.xform_reach(half) if mode == 3 else half  # how far a source window's copies reach
        self.src = None  # the final vote's sources, made when it first runs
        self._rescore_due = False  # a rescoring the next PatchMatch iteration does (see rescore)
        self._patchmatch: Callable[..., Any] | None = None  # its launch, made when first needed
        self.first: Any = None  # the event of the level's first launch (its start)
        self._round_first: Any = None  # the event of the current round's first launch
        self.result = None  # the hole's values and sources, gathered after the final vote
        self._final: tuple[np.ndarray, np.ndarray] | None = None  # the result, once read
        self.low_rect: tuple[int, int, int, int] | None = None  # the split votes' low-pass map, once made
        self.seconds["transfers"] += time.perf_counter() - t

    def _valid(self, lev: Any, box: Any) -> Any:
        """The level's valid map on the device: cleared there, and only the box of the valid
        centres (a third of a 12 MP photo's map, at most) is copied into it.  A small box was
        uploaded with the level's lists (``box``: their buffer and where it lies there) and is
        placed on the device: a rectangle copied from host memory held an NVIDIA device up to
        0.4 ms.  A large one is copied from the host's map, queued like the level's launches."""
        h, w = lev.shape
        out = self.rt.buffer(h * w)
        cl.enqueue_fill_buffer(self.rt.queue, out, np.uint8(0), 0, h * w)  # (a byte pattern: any size)
        if lev.sources_box is None:
            return out
        x0, y0, x1, y1 = lev.sources_box
        if box is not None:
            whole, at = box
            cl.enqueue_copy(self.rt.queue, out, whole, src_origin=(at, 0), dst_origin=(x0, y0),
                            region=(x1 - x0, y1 - y0), src_pitches=(x1 - x0,), dst_pitches=(w,))
        else:
            self.rt.hold(cl.enqueue_copy(self.rt.queue, out, lev.valid, buffer_origin=(x0, y0), host_origin=(x0, y0),
                                         region=(x1 - x0, y1 - y0), buffer_pitches=(w,), host_pitches=(w,),
                                         is_blocking=False))  # (lev.valid is not written again)
        return out

    def _read(self, arr: np.ndarray, src: Any, offset: int = 0) -> np.ndarray:
        self.rt.queue.finish()
        t = time.perf_counter()
        self.cl.enqueue_copy(self.rt.queue, arr, src, src_offset=offset, is_blocking=True)
        self.seconds["transfers"] += time.perf_counter() - t
        return arr

    def start(self, key: int) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.start`, on the device."""
        lev = self.lev
        h, w = lev.shape
        self.first = self.kn["pm"].start(self.b, len(lev.targets), w, h, key, self.best_bufs[0],
                                         self.bxf_bufs[0] if self.bxf_bufs else None)
        self.events.append(("patchmatch", self.first))

    def lift(self, coarse: DeviceLevel, key: int) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.lift`, on the device.

        First waits until the device has started the coarse level (and so finished the one before
        it): the host queues at most one level ahead of the device, so that the job's progress and
        cancelling keep up with it, and no buffer is read for that."""
        if coarse.first is not None:
            coarse.first.wait()
        lev, clev = self.lev, coarse.lev
        b = dict(self.b, best=self.best_bufs[0])
        up = dict(est=coarse.b["est"], tidx=coarse.b["tidx"], best=coarse.best_bufs[0])
        if self.bxf_bufs:
            b["bxf"], up["bxf"] = self.bxf_bufs[0], coarse.bxf_bufs[0]
        self.first = self.kn["pyramid"].lift(b, len(lev.hole), len(lev.targets), lev.shape, up, clev.shape[1],
                                             clev.work_args, key)
        self.events.append(("levels", self.first))

    def pace(self) -> None:
        """Before a round: wait until the device has started the level's round before (and so
        finished the one before that).  The host then queues at most one round ahead of the
        device, as :meth:`lift` keeps it one level ahead: a large hole's finest round runs for
        seconds, and the job's progress and cancelling keep up with the device.  A small photo's
        host is slower than its device, and finds the round started already."""
        if self._round_first is not None:
            self._round_first.wait()
            self._round_first = None

    def patchmatch(self, key: int, skip: bool = False) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.patchmatch`, on the device."""
        if self._patchmatch is None:
            lev = self.lev
            h, w = lev.shape
            self._patchmatch = self.kn["pm"].level(self.b, len(lev.targets), w, h, lev.radius, lev.jump,
                                                   lev.work_args, lev.mean, lev.near, lev.short, lev.grad)
        b_in, b_out = self.best_bufs
        event = self._patchmatch(key, b_in, b_out, skip, self._rescore_due,
                                 tuple(self.bxf_bufs) if self.bxf_bufs else None)
        self.events.append(("patchmatch", event))
        if self._round_first is None:
            self._round_first = event
        self.best_bufs = [b_out, b_in]
        if self.bxf_bufs:
            self.bxf_bufs.reverse()
        self._rescore_due = False

    def rescore(self) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.rescore`, on the device.  With one
        candidate a list the best match stays, so the rescoring waits for the next PatchMatch
        iteration, which does it in its own launch, or for the next step that changes the estimate
        or reads the costs; a level left with one due needs none (its costs are read no more)."""
        if self.k == 1:
            self._rescore_due = True
        else:
            self._rescore()

    def _settle(self) -> None:
        """Run a rescoring that is due (see :meth:`rescore`)."""
        if self._rescore_due:
            self._rescore_due = False
            self._rescore()

    def _rescore(self) -> None:
        lev = self.lev
        h, w = lev.shape
        self.events.append(("patchmatch", self.kn["pm"].rescore(self.b, len(lev.targets), w, h, self.best_bufs[0],
                                                                lev.mean, lev.near, lev.grad,
                                                                self.bxf_bufs[0] if self.bxf_bufs else None)))

    def onion(self, layers: list[np.ndarray], r: int, key: int) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.onion`, on the device."""
        self._settle()
        cl, lev = self.cl, self.lev
        rt = self.rt
        h, w = lev.shape
        t = time.perf_counter()
        packed = rt.uploads([(lev.hole_map == 0).view(np.uint8)] + [np.ascontiguousarray(pix) for pix in layers])
        self.b["filled"], *bufs = packed.parts
        self.b["osrc"] = rt.buffer(lev.tidx.size * 8)
        cl.enqueue_fill_buffer(rt.queue, self.b["osrc"], np.int32(-1), 0, lev.tidx.size * 8)
        found = rt.buffer(max(len(p) for p in layers) * 8)
        self.seconds["transfers"] += time.perf_counter() - t
        kn = self.kn["onion"]
        for i, (pix, bp) in enumerate(zip(layers, bufs)):
            n = len(pix)
            self.events.append(("onion", kn.search(self.b, bp, found, n, r, w, h, lev.radius, key + i,
                                                   lev.work_args)))
            self.events.append(("onion", kn.apply(self.b, bp, found, n, w, lev.work_args)))
        del self.b["filled"], self.b["osrc"]

    def sources(self) -> np.ndarray:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.sources`, on the device."""
        if self.result is not None:
            return self._gathered()[1].copy()
        return self._read(np.empty((len(self.lev.hole), 2), np.int32), self.src)

    def split_votes(self) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.split_votes`, on the device."""
        self._settle()
        lev = self.lev
        h, w = lev.shape
        self.low_rect = source_rect(lev, self.reach)
        x0, y0, x1, y1 = self.low_rect
        t = time.perf_counter()
        self.b["low"] = self.rt.buffer((x1 - x0) * (y1 - y0) * 4)
        near = protected_near(lev, self.low_rect, ref.LOW_RADIUS)
        if near is not None:  # (kept: the launch reads it after this call returns)
            self.b["low_prot"] = self.rt.upload(near[1])
            near = (near[0], self.b["low_prot"])
        self.seconds["transfers"] += time.perf_counter() - t
        self.events.append(("vote", self.kn["vote"].low_pass(self.b, self.low_rect, w, h, lev.work_args, near)))

    def vote(self, pixels: np.ndarray, k_use: int, softness: int, split: bool = False,
             sources: bool = False) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.vote`, on the device."""
        self._settle()
        lev = self.lev
        buf = self.b["pixels"]  # the hole's pixels first, then the ring around them
        if sources and self.src is None:
            t = time.perf_counter()
            self.src = self.rt.buffer(len(lev.hole) * 8)
            self.seconds["transfers"] += time.perf_counter() - t
        self.events.append(("vote", self.kn["vote"](self.b, buf, len(pixels), lev.shape[1], k_use, softness,
                                                    lev.work_args, self.low_rect if split else None,
                                                    self.src if sources else None,
                                                    len(lev.hole) if sources else 0)))

    def expect_texture(self, width: int, margin: int) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.expect_prior` with
        :func:`inpaint.methods.multiscale.reference.expected_texture` of the photo (``width`` wide;
        this level's picture is the photo's, whose spare bytes hold the known pixels' texture
        features), made on the device, a launch for each group of the hole's pixels."""
        lev = self.lev
        x0, y0, ww, wh = lev.work_args
        table, groups = ref.texture_groups(lev.solve_map, lev.work, lev.shape, margin)
        t = time.perf_counter()
        cells = self.rt.upload(np.ascontiguousarray(table)) if table is not None else self.b["hole"]
        self.b["prior"] = prior = self.rt.buffer(ww * wh)
        self.seconds["transfers"] += time.perf_counter() - t
        pyr = self.kn["pyramid"]
        for g, (rect, _) in enumerate(groups):
            self.events.append(("levels", pyr.expected_texture(
                self.b["est"], width, self.b["hole"], (x0, y0, ww, wh), rect, cells,
                table.shape[1] if table is not None else 0, g if table is not None else -1, prior)))

    def _result_args(self) -> tuple[Any, Any] | None:
        """Once the final vote has run, where compose gathers the fill's result (read by
        :meth:`values` and :meth:`sources` at once)."""
        if self.src is None:
            return None
        self._final = None  # what this compose gathers is read anew
        if self.result is None:
            t = time.perf_counter()
            self.result = self.rt.buffer(len(self.lev.hole) * 12)
            self.seconds["transfers"] += time.perf_counter() - t
        return self.src, self.result

    def correct(self, n: int) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.correct`, on the device."""
        self._settle()
        lev = self.lev
        h, w = lev.shape
        # an empty colour list (a one-pixel hole) still needs a valid buffer argument
        red, black = self.b["red"] or self.b["holepix"], self.b["black"] or self.b["holepix"]
        for ev in self.kn["poisson"].correct(self.b, red, len(lev.colours[0]), black, len(lev.colours[1]),
                                             len(lev.hole), w, h, n, lev.work_args, self._result_args()):
            self.events.append(("poisson", ev))

    def correct_gradients(self, n: int, sweeps: int, k_use: int, softness: int, split: bool = False,
                          anchor: bool = True) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.correct_gradients`, on the device."""
        self._settle()
        lev = self.lev
        h, w = lev.shape
        red, black = self.b["red"] or self.b["holepix"], self.b["black"] or self.b["holepix"]
        nred, nblack = len(lev.colours[0]), len(lev.colours[1])
        for ev in self.kn["poisson"].correct(self.b, red, nred, black, nblack, 0, w, h, n, lev.work_args):
            self.events.append(("poisson", ev))
        if "gx" not in self.b:
            t = time.perf_counter()
            for name in ("gx", "gy", "x0"):
                self.b[name] = self.rt.buffer(lev.tidx.size * 16)
                self.cl.enqueue_fill_buffer(self.rt.queue, self.b[name], np.uint32(0), 0, lev.tidx.size * 16)
            self.seconds["transfers"] += time.perf_counter() - t
        kn = self.kn["gradients"]
        self.events.append(("vote", kn.vote(self.b, self.b["pixels"], len(lev.pixels), w, k_use, softness,
                                            lev.work_args, self.low_rect if split else None, anchor)))
        for ev in kn.solve(self.b, red, nred, black, nblack, w, h, sweeps, lev.work_args):
            self.events.append(("poisson", ev))
        self.compose()

    def compose(self) -> None:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.compose`, on the device."""
        self._settle()
        lev = self.lev
        self.events.append(("poisson", self.kn["poisson"].compose(self.b, len(lev.hole), lev.shape[1], lev.work_args,
                                                                  self._result_args())))

    def _gathered(self) -> tuple[np.ndarray, np.ndarray]:
        """The hole pixels' values and sources, gathered by the last compose: the fill's one read."""
        if self._final is None:
            m = len(self.lev.hole)
            out = self._read(np.empty((m, 3), np.int32), self.result)
            self.rt.finished()
            self._final = (np.ascontiguousarray(out[:, 2]).view(np.uint8).reshape(m, 4)[:, :3],
                           np.ascontiguousarray(out[:, :2]))
        return self._final

    def image(self) -> np.ndarray:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.image`, on the device."""
        h, w = self.lev.shape
        return to_rgb(self._read(np.empty((h, w, 4), np.uint8), self.b["est"]))

    def values(self, pixels: np.ndarray) -> np.ndarray:
        """As :meth:`inpaint.methods.multiscale.host.HostLevel.values`, on the device."""
        if self.result is not None and pixels is self.lev.hole:
            return self._gathered()[0]
        # only the rows holding the pixels: a phone photo's estimate is 48 MB, a hole a band of it
        y0, y1 = int(pixels[:, 0].min()), int(pixels[:, 0].max()) + 1
        w = self.lev.shape[1]
        band = self._read(np.empty((y1 - y0, w, 4), np.uint8), self.b["est"], y0 * w * 4)
        return band[pixels[:, 0] - y0, pixels[:, 1], :3]

