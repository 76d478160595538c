"""Thin OpenCL wrappers around ``kernels/seam/*.cl``: same results as :mod:`.reference`.

All state stays on the device between seams: the packed image, the energy, the
cumulative cost, the optional mask and original-index map, with rows a fixed ``pitch``
(the width at upload) apart.  Per exact seam the host only enqueues kernels; it reads
back a counter only where it must decide something (object removal, batch mode with a
protect mask).

Cost-table strategies (``dp``):

``"update"``
    Full table once, then per seam only the entries that changed: the seam's window and
    the cone below changed entries (liblqr's idea, exact).  On photos the cone of changed
    entries widens by one column per row, so it saves less than it costs (the cost table
    must then move with every removal); kept as an option and measured in
    ``docs/seam_benchmark.md``.
``"rows"``
    Full table per seam on one work-item in plain loops the compiler vectorises
    (backward energy; forward falls back to ``walk``).  Best on CPUs.
``"walk"``
    Full table per seam in one work-group walking the rows, previous/current rows in
    local memory (needs ``8 * width`` bytes of local memory).
``"tiled"``
    Full table per seam by many work-groups, one launch per ``TILE_T`` rows (a row
    strip), halo columns, one work-item per column with its energies in registers.  It
    also records where each strip's paths enter it, so the backtrack jumps a strip per
    step (``ceil(height / TILE_T)`` dependent steps, then ``TILE_T`` per strip in parallel)
    instead of walking ``height`` dependent rows.  Best on big GPUs.

``"auto"`` picks ``rows`` on CPUs and ``tiled`` on GPUs: on an NVIDIA H200 ``tiled``
(64-row strips) beat ``walk`` at every size measured, 224x320 to 4320x7680
(``docs/seam_benchmark.md``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..cl.build import NamedKernel, named_kernel
from ..cl.runtime import check_room, cl, new_buffer  # (cl: None without pyopencl, for the numpy backend)
from . import reference as ref

DP_CHOICES = ("auto", "update", "rows", "walk", "tiled")
#: Seam passes the host may queue ahead of the device (a stop request waits for at most these).
QUEUE_AHEAD = 8
#: Rows per work-group for the one-work-item-per-row kernels.
ROWS_PER_GROUP = 16


class _OnFirstUse(dict):
    """A dict whose values are made by ``makers[key]()`` on first access."""

    def __init__(self, makers: dict[str, Callable[[], Any]]):
        super().__init__()
        self._makers = makers

    def __missing__(self, key: str) -> Any:
        value = self[key] = self._makers[key]()
        return value


class OpenCLCarver:
    """Seam removal and insertion on one :class:`inpaint.cl.runtime.Runtime`.

    Parameters
    ----------
    rt : Runtime
        From :func:`inpaint.cl.runtime.get_runtime`.
    mode : {'backward', 'forward'}
        Energy.
    dp : {'auto', 'update', 'walk', 'tiled'}
        Cost-table strategy (module docstring).
    """

    name = "opencl"

    def __init__(self, rt: Any, mode: str = "backward", dp: str = "auto"):
        if dp not in DP_CHOICES:
            raise ValueError(f"dp must be one of {', '.join(DP_CHOICES)}; got {dp!r}")
        self.rt = rt
        self.mode = mode
        self.dp = dp
        lim = rt.limits
        cpu = not rt.is_gpu
        self.cpu = cpu
        # Energy tiles: 16x16 where allowed, else 8x8, and the halo tile must fit.
        tile = 16 if lim.work_group((16, 16)) == (16, 16) else 8
        while tile > 8 and (tile + 2) ** 2 * 4 > lim.local_mem_size:
            tile //= 2
        self.tile = tile
        # Row strips for "tiled": TILE_T rows per launch, TILE_W centre columns per group of
        # TILE_W + 2 * TILE_T work-items (two int rows of values and origins in local memory).
        self.tile_t, self.tile_w = (8, 16) if cpu else (64, 128)
        while self.tile_t > 2 and (self.tile_w + 2 * self.tile_t > lim.max_work_group_size
                                   or 16 * (self.tile_w + 2 * self.tile_t) > lim.local_mem_size):
            self.tile_t //= 2
            self.tile_w //= 2
        self.walk_wg = 4 if cpu else lim.work_group((1024,))[0]
        self.update_wg = 1 if cpu else lim.work_group((64,))[0]
        self.reduce_wg = lim.work_group((64 if cpu else 256,))[0]
        self.remove_wg = 1 if cpu else lim.work_group((256,))[0]
        self.stage_seconds: dict[str, float] | None = None

    # -- kernels ---------------------------------------------------------------------
    def _cost_defines(self, batch: bool) -> dict[str, int]:
        return {"FORWARD": int(self.mode == "forward"), "BATCH": int(batch), "WALK_WG": self.walk_wg,
                "TILE_W": self.tile_w, "TILE_T": self.tile_t, "UPDATE_WG": self.update_wg,
                "REDUCE_WG": self.reduce_wg}

    def _kernels(self, has_mask: bool, track: bool, shift_cost: bool) -> dict[str, NamedKernel]:
        """The carving kernels, each fetched on first use, arguments bound by name.

        Energy, removal and the exact cost table are one program (one build, or one cache load,
        per run instead of three); the strip-batch variants of the cost kernels (``BATCH=1``)
        are a second one, built only if a pass carves several strips.  The three files' define
        names are distinct, but for ``FORWARD`` and ``HAS_MASK``, which have one value per run.
        """
        rt = self.rt
        common = {"TILE_X": self.tile, "TILE_Y": self.tile, "FORWARD": int(self.mode == "forward"),
                  "HAS_MASK": int(has_mask), "REMOVE_WG": self.remove_wg, "SHIFT_COST": int(shift_cost),
                  "TRACK": int(track)}
        bundle = ("seam/energy", "seam/remove", "seam/cost")
        main = {**common, **self._cost_defines(False)}
        batch = self._cost_defines(True)

        def fetch(name: str, batch_variant: bool = False) -> Callable[[], NamedKernel]:
            if batch_variant:
                return lambda: named_kernel(rt, "seam/cost", name, batch)
            return lambda: named_kernel(rt, bundle, name, main)

        makers = {
            "energy_full": fetch("energy_full"),
            "energy_update": fetch("energy_update"),
            "remove": fetch("remove_seams"),
            "update": fetch("cost_update"),
        }
        for variant in (False, True):
            suffix = "_batch" if variant else ""
            makers["walk" + suffix] = fetch("cost_walk", variant)
            makers["tiled" + suffix] = fetch("cost_tiled", variant)
            makers["argmin" + suffix] = fetch("argmin_backtrack", variant)
            makers["strips" + suffix] = fetch("argmin_backtrack_strips", variant)
            makers["rows" + suffix] = fetch("cost_rows", variant)
        return _OnFirstUse(makers)

    def _table_kind(self, pitch: int) -> str:
        fits = 8 * (pitch + 2) <= self.rt.limits.local_mem_size
        if self.dp in ("walk", "tiled", "rows"):
            kind = self.dp
        else:
            kind = "rows" if self.cpu else "tiled"
        if kind == "rows" and self.mode == "forward":
            kind = "walk"
        if kind == "walk" and not fits:
            kind = "tiled"
        return kind

    def _rows_grid(self, h: int, group: int) -> tuple[tuple[int], tuple[int]]:
        """Grid for kernels with one work-item (group == 1) or one work-group per row.

        One-item-per-row kernels get groups of ROWS_PER_GROUP rows: a prime height with
        no local size would make every row its own (costly) work-group on PoCL.
        """
        if group == 1:
            g = self.rt.limits.work_group((ROWS_PER_GROUP,))[0]
            return (-(-h // g) * g,), (g,)
        return (h * group,), (group,)

    def _incremental(self) -> bool:
        return self.dp == "update"

    # -- carving ---------------------------------------------------------------------
    def carve(self, pixels: np.ndarray, mask: np.ndarray | None, idx: np.ndarray | None,
              plan: Callable[[int, int], int], seam_map: np.ndarray | None = None,
              ordinal0: int = 0, until_clear: bool = False):
        """Remove vertical seams pass by pass (same protocol as :class:`.reference.NumpyCarver`).

        Returns ``(pixels, mask, idx, removed, failed)``.
        """
        try:
            return self._carve(pixels, mask, idx, plan, seam_map, ordinal0, until_clear)
        except BaseException:
            # A stop (a signal, a cancel) leaves passes queued: let them end before the caller goes
            # on, since a process that exits while the driver still runs them can crash.
            with contextlib.suppress(Exception):
                self.rt.queue.finish()
            raise

    def _carve(self, pixels, mask, idx, plan, seam_map, ordinal0, until_clear):
        rt, q = self.rt, self.rt.queue
        ctx = rt.context
        mf = cl.mem_flags
        h, pitch = pixels.shape
        has_mask = mask is not None
        track = idx is not None and seam_map is not None
        has_keep = has_mask and bool(np.any(mask == ref.KEEP))
        incremental = self._incremental()
        knl = self._kernels(has_mask, track, incremental)
        drop = ref.drop_bias(h)

        def buf(arr):
            return new_buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(arr))

        # The pass's buffers together, before the first: each alone fits where all do not, and a CPU
        # driver takes their memory only when it first runs them (PoCL then aborts the process).
        per_pixel = 4 * 3 + (1 if has_mask else 0) + (8 if track else 0) + 4 + (4 if self._table_kind(pitch) == "tiled"
                                                                               else 0)
        check_room(ctx, h * pitch * per_pixel)
        img = buf(pixels.astype(np.uint32))
        energy = new_buffer(ctx, mf.READ_WRITE, h * pitch * 4)
        cost = new_buffer(ctx, mf.READ_WRITE, h * pitch * 4)
        dummy = new_buffer(ctx, mf.READ_WRITE, 4)
        mbuf = buf(mask.astype(np.uint8)) if has_mask else dummy
        ibuf = buf(idx.astype(np.int32)) if track else dummy
        smap = buf(seam_map.astype(np.int32)) if track else dummy
        max_strips = max(1, pitch // 2)
        seams = new_buffer(ctx, mf.READ_WRITE, max_strips * h * 4)
        counters = buf(np.zeros(1, dtype=np.int32))  # dropped pixels removed so far
        failed_buf = buf(np.zeros(1, dtype=np.int32))  # strips without a finite seam
        starts = new_buffer(ctx, mf.READ_WRITE, pitch + 1)
        kind = self._table_kind(pitch)
        rstrips = -(-h // self.tile_t)
        # cost_tiled's entry map lets the backtrack jump a row strip per step.
        jump = kind == "tiled" and 4 * (rstrips + 2 * self.reduce_wg) <= self.rt.limits.local_mem_size
        entry = new_buffer(ctx, mf.READ_WRITE, rstrips * pitch * 4) if kind == "tiled" else dummy
        n_drop = int(np.count_nonzero(mask == ref.REMOVE)) if has_mask else 0
        forward = self.mode == "forward"
        timed = self.stage_seconds is not None
        t_loop = None
        events: list[tuple[str, Any]] = []

        def run(stage, k, g, local, **args):
            ev = k(q, g, local, **args)
            if timed:
                events.append((stage, ev))
            return ev

        if timed:  # the seam loop's wall time, without uploads and the first energy pass
            q.finish()
            t_loop = time.perf_counter()
        t = self.tile
        run("energy", knl["energy_full"], (-(-pitch // t) * t, -(-h // t) * t), (t, t),
            img=img, mask=mbuf, energy=energy, width=pitch, height=h, pitch=pitch, drop=drop)

        def table(width: int, batch: bool) -> None:
            suffix = "_batch" if batch else ""
            if kind == "rows":
                run("cost", knl["rows" + suffix], (1,), (1,), energy=energy, cost=cost, starts=starts,
                    width=width, height=h, pitch=pitch)
            elif kind == "walk":
                run("cost", knl["walk" + suffix], (self.walk_wg,), (self.walk_wg,), img=img, energy=energy,
                    cost=cost, starts=starts, width=width, height=h, pitch=pitch, rows=cl.LocalMemory(8 * pitch))
            else:
                n = self.tile_w + 2 * self.tile_t
                groups = -(-width // self.tile_w)
                for row0 in range(0, h, self.tile_t):
                    run("cost", knl["tiled" + suffix], (groups * n,), (n,), img=img, energy=energy, cost=cost,
                        entry=entry, starts=starts, width=width, height=h, pitch=pitch, row0=row0)

        width = pitch
        removed = 0
        ordinal = ordinal0
        failed_seen = 0
        fresh_table = True
        counts = np.zeros(1, dtype=np.int32)
        fails = np.zeros(1, dtype=np.int32)
        in_flight: list[Any] = []
        while True:
            if until_clear:
                cl.enqueue_copy(q, counts, counters)
                if counts[0] >= n_drop:
                    break
                if width <= ref.MIN_SIZE:
                    return self._finish(img, mbuf, ibuf, smap, seam_map, h, pitch, width, mask, idx,
                                        removed, True, events, t_loop)
                plan(width, removed)  # its answer is not needed (the mask says when to stop): it reports progress
                strips = 1
            else:
                strips = plan(width, removed)
                if strips <= 0:
                    break
            batch = strips > 1
            if batch:
                st = np.zeros(pitch + 1, dtype=np.uint8)
                st[ref.strip_starts(width, strips)[1:]] = 1
                cl.enqueue_copy(q, starts, st)
            if batch or not incremental or fresh_table:
                table(width, batch)
                fresh_table = not incremental or batch
            suffix = "_batch" if batch else ""
            if jump and (batch or not incremental):
                run("argmin", knl["strips" + suffix], (strips * self.reduce_wg,), (self.reduce_wg,), img=img,
                    cost=cost, entry=entry, seams=seams, failed=failed_buf, width=width, height=h, pitch=pitch,
                    nstrips=strips, bottom=cl.LocalMemory(4 * rstrips))
            else:
                run("argmin", knl["argmin" + suffix], (strips * self.reduce_wg,), (self.reduce_wg,), img=img,
                    cost=cost, seams=seams, failed=failed_buf, width=width, height=h, pitch=pitch, nstrips=strips)
            done = run("remove", knl["remove"], *self._rows_grid(h, self.remove_wg), img=img, energy=energy,
                       cost=cost, mask=mbuf, idx=ibuf, seam_map=smap, seams=seams, counters=counters,
                       nseams=strips, width=width, height=h, pitch=pitch, ordinal0=ordinal)
            # Keep at most QUEUE_AHEAD passes queued: the host checks for a stop request before every
            # pass, and a deep queue would run on for seconds after one.
            in_flight.append(done)
            if len(in_flight) > QUEUE_AHEAD:
                in_flight.pop(0).wait()
            valid = strips
            if has_keep and (batch or until_clear):
                cl.enqueue_copy(q, fails, failed_buf)
                valid = strips - (int(fails[0]) - failed_seen)
                failed_seen = int(fails[0])
                if valid == 0:
                    return self._finish(img, mbuf, ibuf, smap, seam_map, h, pitch, width, mask, idx,
                                        removed, True, events, t_loop)
            new_width = width - valid
            if not forward:
                run("energy", knl["energy_update"], *self._rows_grid(h, 1), img=img, mask=mbuf, energy=energy,
                    seams=seams, nseams=strips, width=new_width, height=h, pitch=pitch, drop=drop)
            if incremental and not batch:
                run("cost", knl["update"], (self.update_wg,), (self.update_wg,), img=img, energy=energy, cost=cost,
                    seams=seams, width=new_width, height=h, pitch=pitch)
            elif incremental:
                fresh_table = True
            width = new_width
            removed += valid
            ordinal += strips
        failed = False
        if has_keep:  # strips that failed in passes not yet read back (batch passes were)
            cl.enqueue_copy(q, fails, failed_buf)
            failed = int(fails[0]) > failed_seen
        return self._finish(img, mbuf, ibuf, smap, seam_map, h, pitch, width, mask, idx, removed, failed,
                            events, t_loop)

    def _finish(self, img, mbuf, ibuf, smap, seam_map, h, pitch, width, mask, idx, removed, failed, events,
                t_loop=None):
        q = self.rt.queue
        if t_loop is not None:
            q.finish()
            self.stage_seconds["loop wall"] = self.stage_seconds.get("loop wall", 0.0) + time.perf_counter() - t_loop
        out = np.empty((h, pitch), dtype=np.uint32)
        cl.enqueue_copy(q, out, img)
        pixels = out[:, :width].copy()
        if mask is not None:
            m = np.empty((h, pitch), dtype=np.uint8)
            cl.enqueue_copy(q, m, mbuf)
            mask = m[:, :width].copy()
        if idx is not None and seam_map is not None:
            ix = np.empty((h, pitch), dtype=np.int32)
            cl.enqueue_copy(q, ix, ibuf)
            idx = ix[:, :width].copy()
            sm = np.empty(seam_map.shape, dtype=np.int32)
            cl.enqueue_copy(q, sm, smap)
            seam_map[...] = sm
        q.finish()
        if self.stage_seconds is not None:
            from ..cl.runtime import event_time

            for stage, ev in events:
                self.stage_seconds[stage] = self.stage_seconds.get(stage, 0.0) + event_time(ev)
        return pixels, mask, idx, removed, failed

    def insert(self, pixels: np.ndarray, dup: np.ndarray) -> np.ndarray:
        """Enlarge: insert a blended copy after every ``dup`` pixel (see :func:`.reference.insert_seams`)."""
        rt, q = self.rt, self.rt.queue
        mf = cl.mem_flags
        h, w = pixels.shape
        k = int(dup[0].sum()) if h else 0
        src = new_buffer(rt.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(pixels, np.uint32))
        d = new_buffer(rt.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(dup, np.uint8))
        dst = new_buffer(rt.context, mf.READ_WRITE, max(4, h * (w + k) * 4))
        knl = named_kernel(rt, "seam/insert", "insert_seams")
        knl(q, *self._rows_grid(h, 1), src=src, dup=d, dst=dst, width=w, height=h, src_pitch=w, dst_pitch=w + k)
        out = np.empty((h, w + k), dtype=np.uint32)
        cl.enqueue_copy(q, out, dst)
        return out
