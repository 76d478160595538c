"""The Criminisi job: eight stages on numpy, OpenCL, or any split, one patch per step.

:class:`Inpainter` is the step-wise object the app drives; :func:`inpaint.api.inpaint` runs it
to the end.  Which side runs a stage is a per-stage choice (``partition``); the buffer manager
(:class:`~inpaint.methods.criminisi.buffers.Buffers`) keeps each array fresh where it is
needed and moves it only when the split requires, so with every stage on the device the
image, grey, masks and confidence stay there and each iteration reads back just three
integers (target, source, SSD).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ... import geometry
from ...errors import InputError
from ...pixels import to_rgb, to_rgba
from ..base import FillStats, InpaintResult, Job
from ..checks import parse_patch, search_factor
from ..context import RunContext
from .buffers import Buffers
from .options import BY_NAME as OPTIONS, Options
from .reference import MAX_PATCH
from .stages import BY_NAME, NAMES, StageContext, bundle_for, parse_partition

#: Direct window pixels that cost as much as loading the integral-image program (see
#: :meth:`Inpainter._integral_pays`).
INTEGRAL_PROGRAM_PIXELS = 120_000_000
#: Most iterations the device-resident loop queues before the host reads their log.
LOOP_CHUNK = 64
#: Fewest it queues: near the end a few queued past the last target cost less than a wait
#: for the device after every one.
LOOP_MIN_CHUNK = 16

@dataclasses.dataclass
class InpaintStats(FillStats):
    """What a Criminisi run did (:class:`inpaint.methods.base.FillStats` holds the common fields).

    Attributes
    ----------
    iterations : int
        Patches copied.
    stage_seconds : dict
        Time per stage of :data:`inpaint.methods.criminisi.stages.NAMES`.
    transfer_seconds : float
        Includes the per-iteration read of three integers.
    device_stages : tuple of str
        Stages that ran on the OpenCL device.
    patches : list of (int, int, int, int)
        ``(target_row, target_col, source_row, source_col)`` per iteration (patch centres).
    ssd : list of int
        The best SSD per iteration.
    widened : int
        With ``source='original'``: times the area of Eq. 6 was widened at the start because it
        held fewer than :data:`inpaint.geometry.MIN_SOURCES` source patches (``search_area`` is
        then the widened area).  With ``'filled'``: iterations whose area held no valid candidate.
    source : str
        Where source patches came from (``'original'`` or ``'filled'``).
    variant : str
        findBestPatch kernel and work-group, e.g. ``'local 8x8'``, ``'global 8x8'``, or ``'numpy'``.
    local_mem_bytes : int
        Local memory per work-group of the findBestPatch kernel as built (0 for numpy).
    pruned : bool
        findBestPatch pruned its map with a sampled bound (``prune``); False for numpy.
    loop : str
        ``'device'`` (the device-resident loop) or ``'host'`` (see :class:`Inpainter`).
    """

    method: str = "criminisi"
    stage_seconds: dict = dataclasses.field(default_factory=lambda: {s: 0.0 for s in NAMES})
    patch: int = OPTIONS["patch"].default
    device_stages: tuple = ()
    patches: list = dataclasses.field(default_factory=list)
    ssd: list = dataclasses.field(default_factory=list)
    source: str = "original"
    variant: str = "numpy"
    local_mem_bytes: int = 0
    pruned: bool = False
    loop: str = "host"


def source_map(mask: np.ndarray, patches: Iterable[Sequence[int]], half: int) -> np.ndarray:
    """Replay the copies to find, for every filled pixel, the original pixel it copies.

    A hole pixel is filled by the first patch whose window covers it (a copy fills every pixel
    of its window still to fill), from the same place in that patch's source window.  With
    sources ``'filled'`` that source pixel may itself have been filled by an earlier patch; it
    then passes on its own origin.

    Parameters
    ----------
    mask : ndarray of bool
        The initial target mask.
    patches : iterable of (ty, tx, sy, sx)
    half : int
        ``P // 2``.

    Returns
    -------
    ndarray, (H, W, 2) int32
        ``(row, col)`` of the origin of every filled pixel; -1 elsewhere.
    """
    h, w = mask.shape
    src = np.full((h, w, 2), -1, np.int32)
    pat = np.asarray(list(patches), np.int64).reshape(-1, 4)
    box = geometry.bbox(mask)
    if box is None or len(pat) == 0:
        return src
    bx0, by0, bx1, by1 = box
    first = np.full((by1 - by0, bx1 - bx0), -1, np.int64)      # the first patch covering each pixel
    for i in range(len(pat) - 1, -1, -1):
        ty, tx = int(pat[i, 0]) - by0, int(pat[i, 1]) - bx0
        first[max(ty - half, 0):max(ty + half + 1, 0), max(tx - half, 0):max(tx + half + 1, 0)] = i
    hy, hx = np.nonzero(mask[by0:by1, bx0:bx1])
    which = first[hy, hx]
    hy, hx, which = hy[which >= 0], hx[which >= 0], which[which >= 0]     # filled so far
    y, x = hy + by0, hx + bx0
    sy = y + pat[which, 2] - pat[which, 0]
    sx = x + pat[which, 3] - pat[which, 1]
    local = np.full((by1 - by0, bx1 - bx0, 2), -1, np.int64)
    local[hy, hx, 0], local[hy, hx, 1] = sy, sx
    chained = mask[sy, sx]
    while chained.any():                                       # each step goes to an earlier patch
        sy[chained], sx[chained] = local[sy[chained] - by0, sx[chained] - bx0].T
        chained = mask[sy, sx]
    src[y, x, 0], src[y, x, 1] = sy, sx
    return src


class Inpainter(Job):
    """Step-wise Criminisi object removal.

    Parameters
    ----------
    image : ndarray, (H, W, 3) uint8
        RGB image.
    mask : ndarray, (H, W) bool
        True on the object to remove.
    alpha : float or 'full'
        Search factor of Eq. 6 (``'full'``: search the whole image).
    patch : int
        Odd patch side P >= 3.
    partition : str or sequence of str, optional
        Stages to run on the device, the others in numpy: a named partition of
        :data:`inpaint.methods.criminisi.stages.PARTITIONS` (``'all'``, the default; ``'none'``; ``'coprocess'``) or
        stage names (``grey, front, valid, confidence, priority, ssd, reduce, copy``).
    variant : {'auto', 'local', 'global'}
        findBestPatch kernel variant.
    prune : {'auto', True, False}
        findBestPatch cuts candidates whose partial SSD exceeds a sampled bound (exact: the
        same patch is chosen); ``'auto'`` prunes on CPU devices only.  See
        :class:`inpaint.methods.criminisi.opencl.FindBestPatch`.
    source : {'original', 'filled'}
        Where source patches come from.  ``'original'`` (the paper's §5.3 and Criminisi's
        Φ = I − Ω): only windows free of the original object, decided once; if the search area
        of Eq. 6 holds fewer than :data:`inpaint.geometry.MIN_SOURCES` of them it is widened
        (:func:`inpaint.geometry.source_area`).  ``'filled'``: windows free of the pixels still
        to fill, re-marked after every copy, so filled pixels become sources too.
    loop : {'auto', 'device', 'host'}
        Who drives the iterations.  ``'host'``: the host reads each iteration's target and
        source (three integers) and launches the next, stage by stage.  ``'device'``: the
        device-resident loop; every stage runs on the device, the device works out the next
        rectangle and patches itself (``kernels/criminisi/loop.cl``), and the host queues several
        iterations at once and reads their log afterwards, so it never waits between them.
        It needs the whole pipeline on the device and ``source='original'``.  ``'auto'``
        (default) takes it whenever it can.  The result is the same either way, bit for bit.
    context : inpaint.methods.context.RunContext, optional
        Where and how it runs; or its fields as keywords (``**run``: ``backend``, ``device``,
        ``profile``, ``engine``, ``timings``, ``protect``, as :class:`~inpaint.methods.context.RunContext`
        states them).  ``protect``: pixels the fill must not copy from (a sampling exclusion): no
        source patch covers one, and they stay as they are unless the mask also covers them.

    Raises
    ------
    InputError
        Bad parameters, or a mask that leaves no valid source patch.
    inpaint.cl.runtime.OpenCLUnavailable
        ``backend='opencl'`` and no device exists.

    Examples
    --------
    >>> import numpy as np
    >>> img = np.zeros((32, 32, 3), np.uint8); img[:, 16:] = 200
    >>> mask = np.zeros((32, 32), bool); mask[12:20, 12:20] = True
    >>> job = Inpainter(img, mask, patch=5, backend="numpy")
    >>> while job.step():
    ...     pass
    >>> job.done, job.progress
    (True, 1.0)
    """

    Options = Options
    Stats = InpaintStats

    def __init__(self, image: np.ndarray, mask: np.ndarray, *, alpha: Any = OPTIONS["alpha"].default,
                 patch: int = OPTIONS["patch"].default, partition: Sequence[str] | None = None,
                 variant: str = "auto", prune: Any = "auto", source: str = "original", loop: str = "auto",
                 context: RunContext | None = None, **run: Any):
        super().__init__(image, mask, alpha=alpha, patch=patch, partition=partition, variant=variant, prune=prune,
                         source=source, loop=loop, context=context, **run)

    def check(self) -> None:
        """The patch against the image, the values the steps read, and the state every path reads."""
        self.height, self.width = self.mask.shape
        self.patch = parse_patch(self.options.patch, self.height, self.width, MAX_PATCH)
        self.half = self.patch // 2
        self.alpha = search_factor(self.options.alpha)
        self.source, self.variant, self.prune = self.options.source, self.options.variant, self.options.prune
        # Stage 3 marks windows free of the hole; windows over a protected pixel are then
        # cleared on the host, the one place that knows them.
        self._clear = None if self.protect is None else geometry.clear_centres(self.protect, self.half)
        self.stats.alpha, self.stats.patch, self.stats.source = self.alpha, self.patch, self.source
        self._unfilled = self.mask.copy()  # the pixels still to fill
        self._remaining = self._initial = int(self.mask.sum())
        # what every stage works on (the runtime, kernels and buffers come as the job sets up)
        self._ctx = StageContext(self.width, self.height, self.patch, geometry.bbox(self.mask), self.variant,
                                 self.prune)
        self._on_device: tuple[str, ...] = ()
        self._resident = False

    def prepare(self) -> list[float]:
        """Open the device for the stages that run there, make the buffers, and mark the first
        sources; the progress counts pixels filled (:attr:`progress`), not steps."""
        self._open()
        self._make_buffers()
        self._first_pass()
        return [float(self._initial)]

    def _open(self) -> None:
        """Build the stages' kernels on the device (when any runs there), and choose the loop."""
        o = self.options
        if not self.engine.numpy:
            stages = parse_partition(o.partition if o.partition is not None else "all")
            resident = len(stages) == len(NAMES) and o.source == "original" and o.loop != "host"

            def kernels(rt: Any) -> dict[str, Any]:  # one program for every stage on the device
                from . import opencl

                try:
                    bundle = bundle_for(rt, stages, self.patch, o.variant, o.prune, resident)
                    made = {s: BY_NAME[s].wrapper(rt, self._ctx, bundle) for s in stages}
                    if resident:
                        made["loop"] = opencl.Loop(rt, bundle)
                except ValueError as exc:
                    raise InputError(str(exc)) from None
                return made

            if stages:
                # (the largest buffers hold a 32-bit word per pixel: the picture, the scores)
                rt, made = self.open_device(kernels, largest=self.height * self.width * 4)
                if rt is not None:
                    self._on_device, self._ctx.runtime, self._ctx.kernels = stages, rt, made
        if self._ctx.runtime is not None and len(self._on_device) != len(NAMES):
            self.stats.backend = "mixed"
        self.stats.device_stages = self._on_device
        resident_possible = len(self._on_device) == len(NAMES) and o.source == "original"
        if o.loop == "device" and not resident_possible:
            raise InputError("loop 'device' (--fill-loop device) needs every stage on an OpenCL device "
                             "(--device-stages all, an OpenCL backend) and source 'original' (--source original)")
        self._resident = resident_possible and o.loop != "host"
        self.stats.loop = "device" if self._resident else "host"
        if "ssd" in self._ctx.kernels:
            ssd = self._ctx.kernels["ssd"]
            self.stats.variant, self.stats.pruned = ssd.label, ssd.prune
            self.stats.local_mem_bytes = self._ctx.runtime.work_group_info(ssd.knl)["local_mem_size"]

    def _make_buffers(self) -> None:
        """Every array of the stages, host side, and the buffer manager that keeps each fresh."""
        h, w, mask = self.height, self.width, self.mask
        host = {
            "rgb": to_rgba(self.rgb, 255),
            "grey": np.zeros((h, w), np.uint8),
            "unknown": mask.astype(np.uint8),
            "conf": (~mask).astype(np.float32),
            "valid": np.zeros((h, w), np.uint8),
            "front": np.zeros((h, w), np.uint8),
            "cpatch": np.zeros((h, w), np.float32),
            "prio": np.full((h, w), -1.0, np.float32),
            "ssd": np.full(h * w, 0xFFFFFFFF, np.uint32) if not self._resident else np.empty(h * w, np.uint32),
            "result": np.full(4, -1, np.int32),
        }
        names = set()
        for s in self._on_device:
            names.update(BY_NAME[s].reads + BY_NAME[s].writes)
        if self._resident:
            bx0, by0, bx1, by1 = self._ctx.box
            # The first rectangle: the whole box; then the iterations done (loop.cl counts them).
            host["rect"] = np.array([bx0, by0, bx1 - bx0, by1 - by0, 0], np.int32)
            host["log"] = np.full(3 * LOOP_CHUNK, -1, np.int32)
            names.update(("rect", "log"))
        # On the device-resident loop no host stage reads these, and the device writes each
        # before reading it (grey and valid over the whole image here; front, confidence,
        # priority and the SSD map wherever a later stage reads them).
        self._ctx.buffers = Buffers(host, self._ctx.runtime, names, self.stats,
                                    ("grey", "valid", "front", "cpatch", "prio", "ssd") if self._resident else ())

    def _first_pass(self) -> None:
        """Stages 1 and 3 over the whole image: the sources, checked; the search area, widened
        when it holds too few."""
        w, h = self.width, self.height
        self._dirty_valid: geometry.Rect | None = None
        self.stats.search_area = geometry.search_area(self._ctx.box, self.alpha, w, h)
        full = (0, 0, w, h)
        self._run("grey", full)
        self._run("valid", full, self._integral_pays())
        self._ctx.buffers.need(["valid"], "host")
        self._unprotect(full)
        if not self._ctx.buffers.host["valid"].any():
            raise self.no_sources(self.patch)
        if self._resident:  # the device-resident loop reads the device's copy directly
            self._ctx.buffers.need(["valid"], "device")
        if self.source == "original":
            valid = self._ctx.buffers.host["valid"] != 0
            area, _, widened = geometry.source_area(valid, self._ctx.box, self.alpha, self.half)
            if widened:
                self.stats.search_area = area
                self.stats.widened = widened
                self.alpha = None if area == (0, 0, w, h) else self._widened_alpha(widened)
        self._dirty_prio: geometry.Rect | None = self._ctx.box

    def _unprotect(self, rect: geometry.Rect) -> None:
        """Clear the valid centres over a protected pixel within ``rect`` (stage 3 just marked them)."""
        if self._clear is None:
            return
        x0, y0, x1, y1 = rect
        self._ctx.buffers.need(["valid"], "host")
        self._ctx.buffers.host["valid"][y0:y1, x0:x1] &= self._clear[y0:y1, x0:x1]
        self._ctx.buffers.wrote(["valid"], "host")
        if "valid" in self._on_device:
            # the device's next valid stage rewrites a rectangle alone: the rest of its copy must
            # hold these clears, or its result, copied back, would undo them
            self._ctx.buffers.need(["valid"], "device")

    def _widened_alpha(self, times: int) -> float:
        alpha = 0.0 if self.alpha is None else self.alpha
        for _ in range(times):
            alpha = geometry.widen(alpha)
        return alpha

    # -- stage dispatch -------------------------------------------------------------------
    def _run(self, stage: str, *args: Any) -> None:
        st = BY_NAME[stage]
        side = "device" if stage in self._on_device else "host"
        self._ctx.buffers.need(st.reads, side)
        if side == "device":
            ev = st.run(self._ctx, True, *args)
            if self.stats.timed:
                self.events.extend((stage, e) for e in (ev if isinstance(ev, list) else [ev]))
        else:
            t = time.perf_counter()
            st.run(self._ctx, False, *args)
            self.stats.stage_seconds[stage] += time.perf_counter() - t
        self._ctx.buffers.wrote(st.writes, side)

    def _integral_pays(self) -> bool:
        """Whether the first, whole-image stage 3 should count from an integral image.

        Measured on PoCL (docs/integral_benchmark.md): rebuilding the count-integral costs about
        4 ns per image pixel, the direct count about 0.25 ns per window pixel it visits (only
        windows that meet the object's box are visited).  The integral also needs its own
        program, whose build or cache load costs about 30 ms at start-up, as much as 120 M
        window pixels of direct counting.  Per-iteration updates touch a few windows around
        the copied patch, where the direct count is 10-30x faster, so they always count directly.
        """
        x0, y0, x1, y1 = self._ctx.box
        side = self.patch
        direct = (x1 - x0 + side) * (y1 - y0 + side) * side * side
        return direct > 16 * self.width * self.height + INTEGRAL_PROGRAM_PIXELS

    def _collect_events(self, finish: bool = False) -> None:
        rt = self._ctx.runtime
        self.book_events(self.stats.stage_seconds, rt.queue if finish and rt is not None else None)

    # -- public ---------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """True once every target pixel is filled."""
        return bool(self._remaining == 0)

    @property
    def progress(self) -> float:
        """Fraction of the target pixels filled so far, in [0, 1]."""
        return 1.0 if self._initial == 0 else float(1.0 - self._remaining / self._initial)

    def current(self) -> np.ndarray:
        """The current image, (H, W, 3) uint8 (a copy; partially filled while running)."""
        self._ctx.buffers.need(["rgb"], "host")
        return to_rgb(self._ctx.buffers.host["rgb"])

    def _next(self) -> bool:
        """Fill one patch (on the device-resident loop, possibly several).  Returns True while
        target pixels remain."""
        if self._resident:
            return self._step_resident()
        t0 = time.perf_counter()
        w, h = self.width, self.height
        if self._dirty_valid is not None and self.source == "filled":
            self._run("valid", self._dirty_valid)
            self._unprotect(self._dirty_valid)
        rect = self._dirty_prio
        self._run("front", rect)
        self._run("confidence", rect)
        self._run("priority", rect)

        alpha = self.alpha
        area = geometry.search_area(self._ctx.box, alpha, w, h)
        widened = False
        while True:
            cen = geometry.centres(area, self.half)
            n = geometry.area(cen)
            if n > 0:
                self._run("ssd", cen)
                self._run("reduce", n)
                self._ctx.buffers.need(["result"], "host")
                res = self._ctx.buffers.host["result"]
                self._collect_events()  # everything before the blocking read has finished
                if res[0] < 0:
                    raise RuntimeError("internal error: target pixels remain but the fill front is empty")
                if res[1] >= 0:
                    break
            if area == (0, 0, w, h):
                raise RuntimeError("internal error: no valid source patch in the whole image")
            widened = True
            alpha = geometry.widen(0.0 if alpha is None else alpha)
            area = geometry.search_area(self._ctx.box, alpha, w, h)
        self.stats.widened += widened

        ty, tx = divmod(int(res[0]), w)
        ry, rx = divmod(int(res[1]), cen[2] - cen[0])
        sy, sx = cen[1] + ry, cen[0] + rx
        self._run("copy", (ty, tx), (sy, sx))

        half = self.half
        patch_rect = (max(tx - half, 0), max(ty - half, 0), min(tx + half + 1, w), min(ty + half + 1, h))
        self._record(ty, tx, sy, sx, res[2])
        # What the copy disturbs: front/confidence/priority within 2*half, validity within half.
        x0, y0, x1, y1 = geometry.grow(patch_rect, 2 * half, w, h)
        bx0, by0, bx1, by1 = self._ctx.box
        self._dirty_prio = (max(x0, bx0), max(y0, by0), min(x1, bx1), min(y1, by1))
        self._dirty_valid = geometry.grow(patch_rect, half, w, h)
        self._elapsed += time.perf_counter() - t0
        return not self.done

    def _record(self, ty: int, tx: int, sy: int, sx: int, ssd: Any) -> None:
        """Book a copied patch: the host's mask and count, the statistics."""
        half, w, h = self.half, self.width, self.height
        filled = self._unfilled[max(ty - half, 0):min(ty + half + 1, h), max(tx - half, 0):min(tx + half + 1, w)]
        self._remaining -= np.count_nonzero(filled)
        filled[...] = False
        self.stats.patches.append((ty, tx, sy, sx))
        self.stats.ssd.append(int(ssd) & 0xFFFFFFFF)  # the log holds the uint32 SSD as int32
        self.stats.iterations += 1

    def _step_resident(self) -> bool:
        """Queue a chunk of iterations on the device, then read their log and book them.

        Each iteration fills at most P^2 pixels, so at least ceil(remaining / P^2) remain; the
        chunk is that long, or :data:`LOOP_MIN_CHUNK` near the end: iterations queued after the
        last target find none and change nothing (their log says -1).  An iteration is four
        launches (``kernels/criminisi/loop.cl``) whose arguments are set once per chunk."""
        import pyopencl as cl

        t0 = time.perf_counter()
        w, h, half, box = self.width, self.height, self.half, self._ctx.box
        k = min(LOOP_CHUNK, max(LOOP_MIN_CHUNK, -(-self._remaining // (self.patch * self.patch))))
        kn, b = self._ctx.kernels, self._ctx.buffers.dev
        cen = geometry.centres(geometry.search_area(box, self.alpha, w, h), half)
        # Stages 2, 4 and 5 run as one kernel here: their time is booked under priority.
        slices, groups, pairs = kn["reduce"].bind_slices(b, geometry.area(cen))
        launches = ([("priority", kn["loop"].bind_update(b, w, h, half, box))]
                    + [("ssd", x) for x in kn["ssd"].bind(b, w, h, cen)]
                    + [("reduce", slices),
                       ("copy", kn["loop"].bind_copy(b, pairs, groups, LOOP_CHUNK, w, h, half, cen, box))])
        queue, ev, enqueue = self._ctx.runtime.queue, self.events, cl.enqueue_nd_range_kernel
        if self.stats.timed:
            for _ in range(k):
                for stage, (knl, size, local) in launches:
                    ev.append((stage, enqueue(queue, knl, size, local)))
        else:
            plain = [launch for _, launch in launches]
            for _ in range(k):
                for knl, size, local in plain:
                    enqueue(queue, knl, size, local)
        self._ctx.buffers.wrote(("front", "cpatch", "prio", "result", "ssd", "rgb", "grey", "unknown", "conf", "rect",
                         "log"), "device")
        self._ctx.buffers.need(["log"], "host")
        self._collect_events()
        log = self._ctx.buffers.host["log"].reshape(LOOP_CHUNK, 3)
        ncx = cen[2] - cen[0]
        done = self.stats.iterations
        for i in range(done, done + k):
            target, index, ssd = log[i % LOOP_CHUNK]
            if target < 0 and self.done:
                break                                          # queued past the end
            if target < 0 or index < 0:
                raise RuntimeError("internal error: the device-resident loop found no target or no source")
            ty, tx = divmod(int(target), w)
            ry, rx = divmod(int(index), ncx)
            self._record(ty, tx, cen[1] + ry, cen[0] + rx, ssd)
        self._elapsed += time.perf_counter() - t0
        return not self.done

    def source_map(self) -> Any:
        """Replays the copies made so far (:func:`source_map`)."""
        mask, patches, half = self.mask, list(self.stats.patches), self.half  # as of now, should the job go on
        return lambda: source_map(mask, patches, half)

    def result(self) -> InpaintResult:
        """The current image, the source map and the statistics."""
        self._collect_events(finish=True)
        return super().result()
