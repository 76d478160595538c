"""The multiscale fill: coarse-to-fine PatchMatch whose best-matching patches decide the fill.

The image and the hole are halved until the hole is about a patch thick.  Every pixel carries,
besides its colour, a **texture feature** (:func:`inpaint.multiscale_ref.texture_features`: how
strongly the grey level varies around it, from known pixels only, after Newson et al.), which
every patch distance weighs: so the search keeps choosing sources as textured as the hole's
surroundings, however smooth the fill is for a while.

1. **First fill** (:func:`inpaint.multiscale_ref.onion_search`): the coarsest hole is peeled
   from its edge inwards; each pixel copies the centre of the source patch that best matches
   what is known or filled around it.  The search starts from a sharp picture, not a smooth guess.
2. **Rounds** at every level:

   - **PatchMatch** (:func:`inpaint.multiscale_ref.patchmatch`): every patch that meets the
     hole looks for its ``candidates`` most similar source patches, taken only from the
     original known pixels inside the search area of Eq. 6 (``alpha``), by propagation from its
     neighbours and random search;
   - **voting** (:func:`inpaint.multiscale_ref.vote`): every hole pixel becomes the mean of
     what the patches covering it copy;
   - **gradient-domain correction** (:func:`inpaint.multiscale_ref.gauss_seidel`): the
     mismatch between the vote and the known pixels around the hole is spread into the hole,
     which carries the surrounding tones in and hides seams.

3. **Next level**: the matches, scaled up, rebuild the finer level's fill from its own pixels
   (not from the coarse pixels, which would hand it a blurred picture).
4. **Final vote** (:func:`inpaint.multiscale_ref.vote_sharp`): at the photo's own size the
   best-matching patch covering a pixel decides it; only patches that match about as well
   share the vote, so texture stays as sharp as its source, and smooth areas stay smooth.

After Wexler, Shechtman and Irani (completion by voting), Barnes et al. (PatchMatch), Newson,
Almansa, Gousseau and Pérez (texture features, best-patch reconstruction, onion-peel start)
and Pérez et al. (Poisson blending).  All arithmetic is integer, so the OpenCL kernels
(``patchmatch.cl``, ``vote.cl``, ``poisson.cl``, ``onion.cl``, and ``pyramid.cl``, which
builds the levels and their features on the device and carries each level's fill to the
next) and the numpy reference agree bit for bit; pixels outside the hole are never written.

:class:`MultiscaleInpainter` runs it step-wise (one step per round) for the app;
:func:`inpaint.pipeline.inpaint` with ``method="multiscale"`` runs it to the end.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable

import numpy as np

from . import geometry
from . import multiscale_ref as ref
from .errors import InputError
from .methods import DEFAULTS, FillStats, StepwiseJob
from .pixels import to_rgb, to_rgba

DEFAULT_PATCH = DEFAULTS["multiscale"]["patch"]
DEFAULT_CANDIDATES = DEFAULTS["multiscale"]["candidates"]
#: Largest patch side (keeps every vote sum inside 32 bits).
MAX_PATCH = 31
#: Most candidates per patch (the kernels keep them in registers).
MAX_CANDIDATES = 8
#: Vote softness per compared value (squared grey levels), with more than one candidate a patch:
#: candidates whose SSD exceeds the patch's best by about this much per pixel and channel get
#: half the weight.
SOFTNESS = 340
#: The final vote's sharpness: a covering patch whose SSD exceeds the best one's by this much per
#: compared value (squared grey levels) weighs exp(-1) of it.
SHARPNESS = 32
#: Random source candidates each pixel of the first fill (the onion peel) starts from.
ONION_CANDIDATES = 64
#: Rounds (PatchMatch + vote + correction) at the coarsest level, the finest (the photo itself,
#: where a round costs the most) and every level between.
ROUNDS_COARSEST, ROUNDS_FINEST, ROUNDS = 8, 3, 5
#: PatchMatch iterations per round (twice as many in the very first round).
PM_ITERATIONS = 3
#: Gauss-Seidel sweeps per round at the coarser levels, at the photo itself, and for the first
#: correction at the coarsest level (which starts from zero).  The coarser levels' corrections
#: must reach across the whole hole; at the photo itself the coarser fill has already brought the
#: tones in, and more sweeps there cost the most and bought nothing measurable.
SWEEPS, SWEEPS_FINEST, SWEEPS_FIRST = 80, 30, 200

STEPS = ("onion", "patchmatch", "vote", "poisson", "levels")


def dilate(mask: np.ndarray, radius: int, outside: bool = False) -> np.ndarray:
    """Chebyshev dilation: True where some pixel within ``radius`` (a (2 radius + 1)^2 window) is
    True; pixels outside the array count as ``outside``.  Shifted ORs, one row or column at a time."""
    out = mask.copy()
    for axis in (0, 1):
        src = out
        n = src.shape[axis]
        acc = src.copy()
        for d in range(1, radius + 1):
            lo = [slice(None)] * 2
            hi = [slice(None)] * 2
            if d < n:
                lo[axis], hi[axis] = slice(d, None), slice(None, n - d)
                acc[tuple(lo)] |= src[tuple(hi)]   # the pixel d before
                acc[tuple(hi)] |= src[tuple(lo)]   # the pixel d after
            if outside:  # the window reaches past the edge
                edge = [slice(None)] * 2
                edge[axis] = slice(0, min(d, n))
                acc[tuple(edge)] = True
                edge[axis] = slice(max(n - d, 0), n)
                acc[tuple(edge)] = True
        out = acc
    return out


def near(mask: np.ndarray, radius: int, box: geometry.Rect) -> tuple[geometry.Rect, np.ndarray]:
    """Pixels within ``radius`` (Chebyshev) of a True pixel of ``mask``, whose True pixels all lie
    in ``box``: the rectangle ``box`` grown by ``radius`` (clipped) and the map over it."""
    h, w = mask.shape
    rect = geometry.grow(box, radius, w, h)
    x0, y0, x1, y1 = rect
    return rect, dilate(mask[y0:y1, x0:x1], radius)


def interior(shape: tuple[int, int], radius: int) -> np.ndarray:
    """Centres whose (2 radius + 1)^2 window lies inside the image."""
    out = np.zeros(shape, bool)
    out[radius:shape[0] - radius, radius:shape[1] - radius] = True
    return out


def free_centres(mask: np.ndarray, half: int, box: geometry.Rect) -> np.ndarray:
    """Centres whose window is inside the image and free of the hole (all in ``box``)."""
    free = interior(mask.shape, half)
    (x0, y0, x1, y1), hit = near(mask, half, box)
    free[y0:y1, x0:x1] &= ~hit
    return free


def has_core(mask: np.ndarray, radius: int, box: geometry.Rect) -> bool:
    """Whether some pixel's (2 radius + 1)^2 window lies wholly in the hole; pixels outside the
    image count as hole (a hole at the border is as thick as its distance from known pixels)."""
    h, w = mask.shape
    x0, y0, x1, y1 = box
    crop = np.ones((y1 - y0 + 2 * radius, x1 - x0 + 2 * radius), bool)
    cy0, cx0 = max(y0 - radius, 0), max(x0 - radius, 0)
    cy1, cx1 = min(y1 + radius, h), min(x1 + radius, w)
    crop[cy0 - (y0 - radius):cy1 - (y0 - radius), cx0 - (x0 - radius):cx1 - (x0 - radius)] = mask[cy0:cy1, cx0:cx1]
    eroded = ~dilate(~crop, radius, outside=False)[radius:-radius, radius:-radius]
    return bool(eroded.any())


def down2(a: np.ndarray) -> np.ndarray:
    """Halve an image (rounded 2x2 mean) or a mask (a coarse pixel is True if any of its four
    is); odd sizes repeat the last row or column."""
    h, w = a.shape[:2]
    if h % 2 or w % 2:
        a = np.pad(a, ((0, h % 2), (0, w % 2)) + ((0, 0),) * (a.ndim - 2), mode="edge")
    if a.dtype == bool:
        return a[0::2, 0::2] | a[1::2, 0::2] | a[0::2, 1::2] | a[1::2, 1::2]
    total = a[0::2, 0::2].astype(np.uint16)  # four 8-bit values and the rounding fit in 16 bits
    total += a[1::2, 0::2]
    total += a[0::2, 1::2]
    total += a[1::2, 1::2]
    total += 2
    total >>= 2
    return total.astype(np.uint8)


def mask_pyramid(mask: np.ndarray, patch: int) -> list[np.ndarray]:
    """The hole at every level, finest first.

    A level is added while the image stays at least ``8 * patch`` pixels on its short side,
    the hole still holds a pixel farther than ``patch // 2 + 1`` from every known pixel
    (pixels outside the image count as unknown), and the halved level keeps at least
    ``geometry.MIN_SOURCES`` source patches.
    """
    half = patch // 2
    masks = [mask]
    while True:
        m = masks[-1]
        if min(m.shape) // 2 < 4 * patch or not has_core(m, half + 1, geometry.bbox(m)):
            break
        m2 = down2(m)
        if int(free_centres(m2, half, geometry.bbox(m2)).sum()) < geometry.MIN_SOURCES:
            break
        masks.append(m2)
    return masks


def image_pyramid(rgb: np.ndarray, levels: int) -> list[np.ndarray]:
    """``rgb`` and its ``levels - 1`` successive halvings (:func:`down2`), finest first."""
    images = [rgb]
    while len(images) < levels:
        images.append(down2(images[-1]))
    return images


@dataclasses.dataclass
class Level:
    """Host-side description of one pyramid level (see :func:`prepare_level`)."""

    mask: np.ndarray        # (h, w) bool, the hole
    valid: np.ndarray       # (h, w) uint8, usable source centres
    targets: np.ndarray     # (N, 2) int32, centres whose window meets the hole
    work: tuple             # (x0, y0, x1, y1): the work area, the hole's box grown to hold every target
    tidx: np.ndarray        # work area, int32: target index or -1
    hole_map: np.ndarray    # work area, uint8: 1 on the hole
    hole: np.ndarray        # (M, 2) int32, hole pixels
    pixels: np.ndarray      # (M + R, 2) int32, hole pixels then the known ring around them
    colours: tuple          # hole pixels with (y + x) even, then odd
    radius: int             # random-search radius
    area: tuple             # search area (x0, y0, x1, y1)
    widened: int            # times the area of Eq. 6 was widened (it held too few sources)

    @property
    def shape(self) -> tuple[int, int]:
        return self.mask.shape

    @property
    def origin(self) -> tuple[int, int]:
        """(y, x) of the work area's corner."""
        return self.work[1], self.work[0]

    @property
    def work_args(self) -> tuple[int, int, int, int]:
        """(x0, y0, width, height) of the work area, as the kernels take it."""
        x0, y0, x1, y1 = self.work
        return x0, y0, x1 - x0, y1 - y0


def prepare_level(mask: np.ndarray, half: int, alpha: float | None) -> Level:
    """Everything a level needs besides the matches: sources, targets, pixel lists.

    Sources are windows wholly inside the image and free of the hole, centred so that the
    window lies in the search area of Eq. 6; an area with fewer than ``MIN_SOURCES`` of them
    is widened (:func:`inpaint.geometry.source_area`) up to the whole image.
    """
    h, w = mask.shape
    box = geometry.bbox(mask)
    bx0, by0, bx1, by1 = box
    # Everything but the sources lives near the hole: work on its box, grown as needed.
    (x0, y0, x1, y1), hit = near(mask, half, box)
    free = interior((h, w), half)
    free[y0:y1, x0:x1] &= ~hit
    area, valid, widened = geometry.source_area(free, box, alpha, half)
    local = np.argwhere(hit)
    targets = (local + (y0, x0)).astype(np.int32)
    tidx = np.full(hit.shape, -1, np.int32)
    tidx[local[:, 0], local[:, 1]] = np.arange(len(targets), dtype=np.int32)
    hole = (np.argwhere(mask[by0:by1, bx0:bx1]) + (by0, bx0)).astype(np.int32)
    (rx0, ry0, rx1, ry1), around = near(mask, 1, box)
    ring = (np.argwhere(around & ~mask[ry0:ry1, rx0:rx1]) + (ry0, rx0)).astype(np.int32)
    parity = (hole[:, 0] + hole[:, 1]) & 1
    rows, cols = np.flatnonzero(valid.any(axis=1)), np.flatnonzero(valid.any(axis=0))
    radius = max(int(rows[-1] - rows[0]), int(cols[-1] - cols[0]), 1) if rows.size else 1
    return Level(mask=mask, valid=valid.astype(np.uint8), targets=targets, work=(x0, y0, x1, y1),
                 tidx=tidx, hole_map=mask[y0:y1, x0:x1].astype(np.uint8), hole=hole, pixels=np.concatenate([hole, ring]),
                 colours=(hole[parity == 0], hole[parity == 1]), radius=radius, area=area,
                 widened=widened)


def random_sources(level: Level, key: int, which: np.ndarray | None = None) -> np.ndarray:
    """A source centre for each target (or for the targets ``which`` indexes): the k-th valid
    centre in row-major order, k a hash of the target's index (see :func:`random_valid`)."""
    idx = np.arange(len(level.targets), dtype=np.uint32) if which is None else which.astype(np.uint32)
    return random_valid(level, idx, key)


def random_valid(level: Level, idx: np.ndarray, key: int) -> np.ndarray:
    """For each index of ``idx`` (uint32), the k-th valid source centre in row-major order, k a
    hash of the index and ``key``: (len(idx), 2) int32 (found through per-row counts, without
    listing every valid centre)."""
    counts = level.valid.sum(axis=1, dtype=np.int64)
    ends = np.cumsum(counts)
    k = (ref.hash32(idx * np.uint32(2654435761) + np.uint32(key)) % np.uint32(ends[-1])).astype(np.int64)
    rows = np.searchsorted(ends, k, side="right")
    rank = k - (ends[rows] - counts[rows])
    out = np.empty((len(k), 2), np.int32)
    out[:, 0] = rows
    order = np.argsort(rows, kind="stable")
    bounds = np.flatnonzero(np.diff(rows[order])) + 1
    for group in np.split(order, bounds):
        if len(group):
            cols = np.flatnonzero(level.valid[rows[group[0]]])
            out[group, 1] = cols[rank[group]]
    return out


def upsampled_sources(level: Level, coarse_best: np.ndarray, coarse_origin: tuple[int, int],
                      key: int) -> np.ndarray:
    """Each target's start: its coarse parent's match, scaled up; where that is not a valid
    source here, the random one of :func:`random_sources` (``key``).  ``coarse_best`` is the
    coarse level's match map over its work area, whose corner is ``coarse_origin``."""
    h, w = level.shape
    t = level.targets
    par = t >> 1
    ly, lx = par[:, 0] - coarse_origin[0], par[:, 1] - coarse_origin[1]
    ch, cw = coarse_best.shape[:2]
    inside = (ly >= 0) & (ly < ch) & (lx >= 0) & (lx < cw)
    pb = np.where(inside[:, None], coarse_best[np.clip(ly, 0, ch - 1), np.clip(lx, 0, cw - 1)], -1)
    c = t + 2 * (pb - par)
    ok = (pb[:, 0] >= 0) & (c[:, 0] >= 0) & (c[:, 0] < h) & (c[:, 1] >= 0) & (c[:, 1] < w)
    cc = np.where(ok[:, None], c, 0)
    ok &= level.valid[cc[:, 0], cc[:, 1]] != 0
    out = cc.astype(np.int32)
    missing = np.flatnonzero(~ok)
    if len(missing):
        out[missing] = random_sources(level, key, missing)
    return out


def onion_layers(level: Level) -> list[np.ndarray]:
    """The hole's pixels peeled from its edge inwards: layer i holds, row-major, the hole pixels at
    Chebyshev distance i + 1 from the nearest known pixel (pixels outside the image are not known)."""
    x0, y0 = level.work[:2]
    left = level.hole_map != 0
    reached = ~left  # the work area holds every 8-neighbour of a hole pixel that lies in the image
    layers = []
    while left.any():
        grown = dilate(reached, 1)
        ring = left & grown
        if not ring.any():  # cannot happen: the mask never covers the whole image
            ring = left
        layers.append((np.argwhere(ring) + (y0, x0)).astype(np.int32))
        left &= ~ring
        reached |= ring
    return layers


class _HostLevel:
    """One level's state in numpy (the reference backend).

    ``image`` is the level's picture, RGB and texture feature ((h, w, 4) uint8); the estimate
    starts as it and is filled in place.
    """

    def __init__(self, level: Level, image: np.ndarray, k: int, half: int, seconds: dict[str, float]):
        self.lev, self.k, self.half, self.seconds = level, k, half, seconds
        h, w = level.shape
        self.est = image.copy()
        wh, ww = level.tidx.shape
        self.v = np.zeros((wh, ww, 4), np.int32)
        self.x = np.zeros((wh, ww, 4), np.int32)
        n = len(level.targets)
        self.nnf = np.full((n, k, 2), -1, np.int32)
        self.cost = np.full((n, k), ref.EMPTY, np.uint32)
        self.best = np.zeros((n, 2), np.int32)
        self.src = np.full((len(level.hole), 2), -1, np.int32)

    def _timed(self, step: str, fn: Callable, *args: Any) -> None:
        t = time.perf_counter()
        fn(*args)
        self.seconds[step] += time.perf_counter() - t

    def start(self, sources: np.ndarray) -> None:
        """Every candidate list holds its target's ``sources`` row alone."""
        self.nnf[:, 0] = sources
        self.cost[:, 0] = 0  # a placeholder until rescore(): marks the slot as used

    def lift(self, coarse: "_HostLevel") -> None:
        """Every hole pixel takes the coarser level's estimate (colour and feature) at half its
        coordinates (``lift`` in ``kernels/pyramid.cl``)."""
        t = time.perf_counter()
        hy, hx = self.lev.hole[:, 0], self.lev.hole[:, 1]
        self.est[hy, hx] = coarse.est[hy >> 1, hx >> 1]
        self.seconds["levels"] += time.perf_counter() - t

    def patchmatch(self, key: int) -> None:
        self._timed("patchmatch", ref.patchmatch, self.est, self.lev.targets, self.lev.tidx, self.lev.origin,
                    self.lev.valid, self.nnf, self.cost, self.best.copy(), self.best, self.half, self.lev.radius, key)

    def rescore(self) -> None:
        self._timed("patchmatch", ref.rescore, self.est, self.lev.targets, self.nnf, self.cost, self.half)
        self.best[:] = self.nnf[:, 0]

    def onion(self, layers: list[np.ndarray], cands: list[np.ndarray], key: int) -> None:
        """The first fill, layer by layer (see :func:`inpaint.multiscale_ref.onion_search`)."""
        t = time.perf_counter()
        lev = self.lev
        filled = (lev.hole_map == 0).astype(np.uint8)
        osrc = np.full(lev.tidx.shape + (2,), -1, np.int32)
        for i, (pix, cand) in enumerate(zip(layers, cands)):
            found = ref.onion_search(self.est, filled, osrc, lev.valid, pix, cand, lev.origin, self.half,
                                     lev.radius, (key + i) & 0xFFFFFFFF)
            ref.onion_apply(self.est, filled, osrc, pix, found, lev.origin)
        self.seconds["onion"] += time.perf_counter() - t

    def vote_sharp(self, k_use: int, unit: int, lut: np.ndarray) -> None:
        self._timed("vote", ref.vote_sharp, self.est, self.lev.pixels, self.lev.tidx, self.lev.origin, self.nnf,
                    self.cost, self.half, k_use, unit, lut, self.v, self.src)

    def sources(self) -> np.ndarray:
        """The sharp vote's source of every hole pixel, (M, 2) int32."""
        return self.src.copy()

    def vote(self, pixels: np.ndarray, k_use: int, softness: int) -> None:
        self._timed("vote", ref.vote, self.est, pixels, self.lev.tidx, self.lev.origin, self.nnf, self.cost,
                    self.half, k_use, softness, self.v)

    def sweeps(self, n: int) -> None:
        self._timed("poisson", ref.gauss_seidel, self.lev.hole_map, self.est, self.v, self.x, self.lev.colours,
                    self.lev.origin, n)

    def compose(self) -> None:
        self._timed("poisson", ref.compose, self.est, self.v, self.x, self.lev.hole, self.lev.origin)

    def image(self) -> np.ndarray:
        """The whole estimate, (h, w, 3) uint8."""
        return to_rgb(self.est)

    def values(self, pixels: np.ndarray) -> np.ndarray:
        """The estimate's colours at ``pixels`` ((M, 2) of (y, x)), (M, 3) uint8."""
        return self.est[pixels[:, 0], pixels[:, 1], :3]

    def best_matches(self) -> np.ndarray:
        """Each target's best source centre, (N, 2) int32."""
        return self.best.copy()


class _DeviceLevel:
    """One level's state in OpenCL buffers; the same operations as :class:`_HostLevel`.

    ``est`` is the level's picture already on the device (:meth:`MultiscaleInpainter._device_pyramid`),
    filled in place; the other buffers are created and cleared on the device, so only the
    level's lists and maps cross the bus.
    """

    def __init__(self, level: Level, est: Any, k: int, half: int, seconds: dict[str, float], rt: Any,
                 kernels: dict[str, Any], events: list):
        import pyopencl as cl

        self.lev, self.k, self.half, self.seconds = level, k, half, seconds
        self.cl, self.rt, self.kn, self.events = cl, rt, kernels, events
        mf = cl.mem_flags
        ctx, queue = rt.context, rt.queue

        def buf(arr: np.ndarray) -> Any:
            return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(arr))

        def cleared(nbytes: int) -> Any:
            out = cl.Buffer(ctx, mf.READ_WRITE, nbytes)
            cl.enqueue_fill_buffer(queue, out, np.uint32(0), 0, nbytes)
            return out

        t = time.perf_counter()
        lev = level
        n = len(lev.targets)
        work = lev.tidx.size * 16  # int4 per pixel of the work area
        self.b = {
            "est": est, "targets": buf(lev.targets), "tidx": buf(lev.tidx), "valid": buf(lev.valid),
            "nnf": cl.Buffer(ctx, mf.READ_WRITE, n * k * 8), "cost": cl.Buffer(ctx, mf.READ_WRITE, n * k * 4),
            "v": cleared(work), "x": cleared(work),
            "hole": buf(lev.hole_map), "holepix": buf(lev.hole), "pixels": buf(lev.pixels),
            "red": buf(lev.colours[0]) if len(lev.colours[0]) else None,
            "black": buf(lev.colours[1]) if len(lev.colours[1]) else None,
        }
        self.best_bufs = [cleared(n * 8), cleared(n * 8)]
        self.src = None  # the sharp vote's sources, made when it first runs
        self.seconds["transfers"] += time.perf_counter() - t

    def _read(self, arr: np.ndarray, src: Any, offset: int = 0) -> np.ndarray:
        self.rt.queue.finish()
        t = time.perf_counter()
        self.cl.enqueue_copy(self.rt.queue, arr, src, src_offset=offset, is_blocking=True)
        self.seconds["transfers"] += time.perf_counter() - t
        return arr

    def start(self, sources: np.ndarray) -> None:
        t = time.perf_counter()
        src = self.cl.Buffer(self.rt.context, self.cl.mem_flags.READ_ONLY | self.cl.mem_flags.COPY_HOST_PTR,
                             hostbuf=np.ascontiguousarray(sources, np.int32))
        self.seconds["transfers"] += time.perf_counter() - t
        self.events.append(("patchmatch", self.kn["pm"].start(self.b, src, len(sources))))

    def lift(self, coarse: "_DeviceLevel") -> None:
        lev = self.lev
        self.events.append(("levels", self.kn["pyramid"].lift(self.b, len(lev.hole), lev.shape[1], coarse.b,
                                                               coarse.lev.shape[1])))

    def patchmatch(self, key: int) -> None:
        lev = self.lev
        h, w = lev.shape
        b_in, b_out = self.best_bufs
        self.events.append(("patchmatch", self.kn["pm"](self.b, len(lev.targets), w, h, lev.radius, key, b_in, b_out,
                                                        lev.work_args)))
        self.best_bufs = [b_out, b_in]

    def rescore(self) -> None:
        lev = self.lev
        h, w = lev.shape
        self.events.append(("patchmatch", self.kn["pm"].rescore(self.b, len(lev.targets), w, h, self.best_bufs[0])))

    def onion(self, layers: list[np.ndarray], cands: list[np.ndarray], key: int) -> None:
        cl, lev = self.cl, self.lev
        ctx, mf = self.rt.context, cl.mem_flags
        h, w = lev.shape
        t = time.perf_counter()
        self.b["filled"] = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR,
                                     hostbuf=np.ascontiguousarray((lev.hole_map == 0).astype(np.uint8)))
        self.b["osrc"] = cl.Buffer(ctx, mf.READ_WRITE, lev.tidx.size * 8)
        cl.enqueue_fill_buffer(self.rt.queue, self.b["osrc"], np.int32(-1), 0, lev.tidx.size * 8)
        bufs = [(cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(pix)),
                 cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(cand)))
                for pix, cand in zip(layers, cands)]
        found = cl.Buffer(ctx, mf.READ_WRITE, max(len(p) for p in layers) * 8)
        self.seconds["transfers"] += time.perf_counter() - t
        kn = self.kn["onion"]
        for i, ((pix, cand), (bp, bc)) in enumerate(zip(zip(layers, cands), bufs)):
            n = len(pix)
            self.events.append(("onion", kn.search(self.b, bp, bc, found, n, cand.shape[1], w, h, lev.radius,
                                                   (key + i) & 0xFFFFFFFF, lev.work_args)))
            self.events.append(("onion", kn.apply(self.b, bp, found, n, w, lev.work_args)))
        del self.b["filled"], self.b["osrc"]

    def vote_sharp(self, k_use: int, unit: int, lut: np.ndarray) -> None:
        cl, lev = self.cl, self.lev
        if self.src is None:
            t = time.perf_counter()
            mf = cl.mem_flags
            self.src = cl.Buffer(self.rt.context, mf.READ_WRITE, max(len(lev.hole), 1) * 8)
            self.lut = cl.Buffer(self.rt.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=lut)
            self.seconds["transfers"] += time.perf_counter() - t
        self.events.append(("vote", self.kn["vote"].sharp(self.b, self.b["pixels"], len(lev.pixels), self.src,
                                                          len(lev.hole), self.lut, len(lut), lev.shape[1], k_use,
                                                          unit, lev.work_args)))

    def sources(self) -> np.ndarray:
        return self._read(np.empty((len(self.lev.hole), 2), np.int32), self.src)

    def vote(self, pixels: np.ndarray, k_use: int, softness: int) -> None:
        lev = self.lev
        h, w = lev.shape
        buf = self.b["holepix"] if pixels is lev.hole else self.b["pixels"]
        self.events.append(("vote", self.kn["vote"](self.b, buf, len(pixels), w, h, k_use, softness, lev.work_args)))

    def sweeps(self, n: int) -> None:
        lev = self.lev
        h, w = lev.shape
        # an empty colour list (a one-pixel hole) still needs a valid buffer argument
        red, black = self.b["red"] or self.b["holepix"], self.b["black"] or self.b["holepix"]
        for ev in self.kn["poisson"].sweeps(self.b, red, len(lev.colours[0]), black, len(lev.colours[1]), w, h, n,
                                            lev.work_args):
            self.events.append(("poisson", ev))

    def compose(self) -> None:
        lev = self.lev
        self.events.append(("poisson", self.kn["poisson"].compose(self.b, len(lev.hole), lev.shape[1], lev.work_args)))

    def image(self) -> np.ndarray:
        h, w = self.lev.shape
        return to_rgb(self._read(np.empty((h, w, 4), np.uint8), self.b["est"]))

    def values(self, pixels: np.ndarray) -> np.ndarray:
        # only the rows holding the pixels: a phone photo's estimate is 48 MB, a hole a band of it
        y0, y1 = int(pixels[:, 0].min()), int(pixels[:, 0].max()) + 1
        w = self.lev.shape[1]
        band = self._read(np.empty((y1 - y0, w, 4), np.uint8), self.b["est"], y0 * w * 4)
        return band[pixels[:, 0] - y0, pixels[:, 1], :3]

    def best_matches(self) -> np.ndarray:
        return self._read(np.empty((len(self.lev.targets), 2), np.int32), self.best_bufs[0])


@dataclasses.dataclass
class MultiscaleStats(FillStats):
    """What a multiscale run did (:class:`inpaint.methods.FillStats` holds the common fields).

    Attributes
    ----------
    iterations : int
        Rounds run (PatchMatch, vote and correction), over all levels.
    levels : list of (int, int)
        ``(width, height)`` of every pyramid level, finest first.
    stage_seconds : dict
        Time per step of :data:`STEPS`.
    candidates : int
        Source patches each patch kept and voted with.
    search_area : tuple
        The finest level's search area.
    widened : int
        Levels whose search area of Eq. 6 held too few sources and was widened.
    """

    method: str = "multiscale"
    stage_seconds: dict = dataclasses.field(default_factory=lambda: {s: 0.0 for s in STEPS})
    patch: int = DEFAULT_PATCH
    levels: list = dataclasses.field(default_factory=list)
    candidates: int = DEFAULT_CANDIDATES


class MultiscaleInpainter(StepwiseJob):
    """Step-wise multiscale fill (see the module docstring).

    Parameters
    ----------
    image : ndarray, (H, W, 3) uint8
    mask : ndarray, (H, W) bool
        True on the object to remove.
    alpha : float or 'full' or None
        Search factor of Eq. 6 at every level (default 1: the object's box grown by its size
        on each side); None or ``'full'``: the whole image.
    patch : int
        Odd patch side, 3 <= P <= 31.
    candidates : int
        Source patches each patch keeps and votes with, 1..8 (default 1): more blend more
        (smoother, fewer visible repeats), 1 keeps texture as sharp as its source.
    backend : {'auto', 'opencl', 'numpy'}
    device, profile
        OpenCL device and device profile, as for :class:`inpaint.pipeline.Inpainter`.
    seed : int
        Varies the random search (the fill is deterministic for a given seed).
    timings : bool
        Measure each step's device time (see :class:`inpaint.pipeline.Inpainter`).

    Raises
    ------
    InputError
        Bad parameters, or no source patch anywhere in the image.
    inpaint.runtime.OpenCLUnavailable
        ``backend='opencl'`` and no device exists.
    """

    def __init__(self, image: np.ndarray, mask: np.ndarray, *, alpha: Any = DEFAULTS["multiscale"]["alpha"],
                 patch: int = DEFAULT_PATCH,
                 candidates: int = DEFAULT_CANDIDATES, backend: str = "auto", device: Any = None,
                 profile: Any = None, seed: int = 0, timings: bool = True):
        from .pipeline import _check_arrays, check_patch, parse_alpha
        from .profiles import load_profile

        t0 = time.perf_counter()
        rgb, mask = _check_arrays(image, mask)
        h, w = mask.shape
        self.patch = check_patch(patch, h, w, MAX_PATCH)
        self.half = self.patch // 2
        self.alpha = parse_alpha(alpha)
        try:
            k = int(candidates)
        except (TypeError, ValueError):
            k = 0
        if k != candidates or not 1 <= k <= MAX_CANDIDATES:
            raise InputError(f"candidates must be an integer from 1 to {MAX_CANDIDATES}, got {candidates!r}")
        if backend not in ("auto", "opencl", "numpy"):
            raise InputError(f"backend must be 'auto', 'opencl' or 'numpy', got {backend!r}")
        if not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2 ** 16:
            raise InputError(f"seed must be an integer from 0 to 65535, got {seed!r}")
        if not isinstance(timings, (bool, np.bool_)):
            raise InputError(f"timings must be True or False, got {timings!r}")
        self.k, self.seed = k, int(seed)
        prof = load_profile(profile)  # checked whatever the backend, before any work
        self.rgb = np.ascontiguousarray(rgb)
        self.mask = mask.copy()
        self.stats = MultiscaleStats(patch=self.patch, candidates=k, alpha=self.alpha)
        self._seconds = {s: 0.0 for s in STEPS}
        self._seconds["transfers"] = 0.0
        self._events: list = []
        self._rt = None
        self._kernels: dict[str, Any] = {}
        self._done = False
        self._plan: list[tuple[int, int, int]] = []  # (level, round, weight)
        self._pos = 0
        self._state: _HostLevel | None = None
        self._coarse: tuple[Any, np.ndarray] | None = None  # the coarser level's state and best map
        self._sources: tuple[np.ndarray, np.ndarray] | None = None  # the final sources and hole pixels
        self._lut = ref.weight_lut()
        self._result_image: np.ndarray | None = None
        if not mask.any():
            self.stats.empty_mask = True
            self._done = True
            self._result_image = self.rgb.copy()
            self._elapsed = time.perf_counter() - t0
            return
        if mask.all():
            raise InputError("the mask covers the whole image: there is nothing to copy from")
        if not free_centres(mask, self.half, geometry.bbox(mask)).any():
            raise InputError(
                f"no valid source patch: no {self.patch}x{self.patch} window of the image is free of "
                "the mask; use a smaller patch or a smaller mask")
        if backend != "numpy":
            from .runtime import runtime_for

            self._rt = runtime_for(backend, device, prof, profiling=bool(timings))
        self.stats.timed = self._rt is None or self._rt.profiling
        if self._rt is not None:
            from . import multiscale_cl as mcl

            built = self._rt.build_seconds
            import pyopencl as cl

            self._cl = cl
            self._kernels = {"pm": mcl.PatchMatch(self._rt, self.half, k), "vote": mcl.Vote(self._rt, self.half, k),
                             "onion": mcl.Onion(self._rt, self.half, k),
                             "poisson": mcl.Poisson(self._rt, self.half, k),
                             "pyramid": mcl.Pyramid(self._rt, self.half, k)}
            self.stats.backend, self.stats.device = "opencl", self._rt.name
            self.stats.build_seconds = self._rt.build_seconds - built
        masks = mask_pyramid(mask, self.patch)
        self._masks = masks
        self.stats.levels = [(m.shape[1], m.shape[0]) for m in masks]
        t = time.perf_counter()
        if self._rt is not None:
            self._images = self._device_pyramid()
        else:
            rgba = to_rgba(self.rgb, ref.texture_features(self.rgb, mask))
            self._images = image_pyramid(rgba, len(masks))
            self._seconds["levels"] += time.perf_counter() - t
        top = len(masks) - 1
        for lv in range(top, -1, -1):
            rounds = ROUNDS_COARSEST if lv == top else ROUNDS_FINEST if lv == 0 else ROUNDS
            weight = int(masks[lv].sum())
            self._plan += [(lv, r, weight) for r in range(rounds)]
        self._total_weight = sum(wt for _, _, wt in self._plan)
        self._done_weight = 0
        self._elapsed = time.perf_counter() - t0

    def _device_pyramid(self) -> list:
        """Every level's picture as a device buffer of RGB and texture feature: the photo crosses
        the bus once, as packed RGB, gets its features and is halved on the device."""
        cl = self._cl
        mf = cl.mem_flags
        ctx = self._rt.context
        kn = self._kernels["pyramid"]
        t = time.perf_counter()
        rgb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=self.rgb)
        self._seconds["transfers"] += time.perf_counter() - t
        shapes = [m.shape for m in self._masks]
        bufs = [cl.Buffer(ctx, mf.READ_WRITE, h * w * 4) for h, w in shapes]
        self._events.append(("levels", kn.pack(rgb, bufs[0], shapes[0][0] * shapes[0][1])))
        x0, y0, x1, y1 = geometry.bbox(self.mask)
        t = time.perf_counter()
        hole = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                         hostbuf=np.ascontiguousarray(self.mask[y0:y1, x0:x1], np.uint8))
        edges = cl.Buffer(ctx, mf.READ_WRITE, shapes[0][0] * shapes[0][1] * 2)
        self._seconds["transfers"] += time.perf_counter() - t
        for ev in kn.features(bufs[0], edges, hole, (x0, y0, x1 - x0, y1 - y0), shapes[0]):
            self._events.append(("levels", ev))
        for lv in range(1, len(shapes)):
            self._events.append(("levels", kn.halve(bufs[lv - 1], shapes[lv - 1], bufs[lv], shapes[lv])))
        return bufs

    # -- the algorithm --------------------------------------------------------------------
    def _enter(self, lv: int) -> None:
        """Set up level ``lv``: sources, start matches and a first fill."""
        lev = prepare_level(self._masks[lv], self.half, self.alpha)
        self.stats.widened += lev.widened > 0
        if lv == 0:
            self.stats.search_area = lev.area
        if self._rt is not None:
            st = _DeviceLevel(lev, self._images[lv], self.k, self.half, self._seconds, self._rt, self._kernels,
                              self._events)
        else:
            st = _HostLevel(lev, self._images[lv], self.k, self.half, self._seconds)
        self._images[lv] = None  # the level's state holds its picture from here on
        key = self.seed * 1000 + lv
        if lv == len(self._masks) - 1:
            # The first fill peels the hole from its edge inwards, each pixel copying its best
            # match on what is known or filled around it: a sharp start, not a smooth guess.
            st.start(random_sources(lev, key))
            layers = onion_layers(lev)
            cands = [random_valid(lev, np.arange(len(pix) * ONION_CANDIDATES, dtype=np.uint32),
                                  (key * 4096 + i) & 0xFFFFFFFF).reshape(len(pix), ONION_CANDIDATES, 2)
                     for i, pix in enumerate(layers)]
            st.onion(layers, cands, (key * 4096) & 0xFFFFFFFF)
        else:
            # The coarse matches, scaled up, rebuild this level's fill from its own pixels (so it
            # starts sharp); the coarse correction, scaled up, is where the correction starts.
            coarse, coarse_best = self._coarse
            st.start(upsampled_sources(lev, coarse_best, coarse.lev.origin, key))
            st.lift(coarse)
            st.rescore()
            st.vote(lev.pixels, self.k, self._softness())
            st.compose()
            self._coarse = None
        st.rescore()
        self._state = st

    def _softness(self) -> int:
        return SOFTNESS * 3 * self.patch * self.patch

    def _unit(self) -> int:
        """The sharp vote's cost step per table entry (:data:`SHARPNESS` per compared value)."""
        return max(SHARPNESS * 3 * self.patch * self.patch // ref.LUT_STEPS, 1)

    def _round(self, lv: int, rnd: int, last: bool) -> None:
        st = self._state
        top = len(self._masks) - 1
        first = lv == top and rnd == 0
        for it in range(2 * PM_ITERATIONS if first else PM_ITERATIONS):
            st.patchmatch(((self.seed * 64 + lv) * 16 + rnd) * 64 + it)
        if last:
            st.vote_sharp(self.k, self._unit(), self._lut)
        else:
            st.vote(st.lev.pixels, self.k, self._softness())
        st.sweeps(SWEEPS_FIRST if first else SWEEPS_FINEST if lv == 0 else SWEEPS)
        st.compose()
        if not last:
            st.rescore()

    def _leave(self, lv: int) -> None:
        st = self._state
        lev = st.lev
        if lv == 0:
            # Outside the hole the estimate is the picture: read back and set the hole alone.
            image = self.rgb.copy()
            image[lev.hole[:, 0], lev.hole[:, 1]] = st.values(lev.hole)
            self._result_image = image
            self._sources = (st.sources(), lev.hole)
        else:
            best = st.best_matches()
            oy, ox = lev.origin
            best_map = np.full(lev.tidx.shape + (2,), -1, np.int32)  # over the work area
            best_map[lev.targets[:, 0] - oy, lev.targets[:, 1] - ox] = best
            self._coarse = (st, best_map)

    def _collect_events(self) -> None:
        from .runtime import event_time

        if not self.stats.timed:  # launches on a queue without profiling: nothing to read
            self._events.clear()
        if not self._events:
            return
        self._rt.queue.finish()
        for step, ev in self._events:
            self._seconds[step] += event_time(ev)
        self._events.clear()

    # -- public ---------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """True once the finest level's last round has run."""
        return self._done

    @property
    def progress(self) -> float:
        """Fraction of the work done, in [0, 1]."""
        if self._done:
            return 1.0
        return self._done_weight / self._total_weight if self._total_weight else 0.0

    @property
    def iterations(self) -> int:
        """Rounds run so far."""
        return self.stats.iterations

    @property
    def image(self) -> np.ndarray:
        """The current image, (H, W, 3) uint8: during the run, the current level's fill scaled up
        into the hole."""
        if self._result_image is not None:
            return self._result_image.copy()
        out = self.rgb.copy()
        if self._state is not None:
            scale = 2 ** self._level
            est = self._state.image()
            up = np.repeat(np.repeat(est, scale, axis=0), scale, axis=1)[:out.shape[0], :out.shape[1]]
            out[self.mask] = up[self.mask]
        return out

    def step(self) -> bool:
        """Run one round.  Returns True while rounds remain."""
        if self._done:
            return False
        t0 = time.perf_counter()
        lv, rnd, weight = self._plan[self._pos]
        if rnd == 0:
            self._enter(lv)
            self._level = lv
        self._round(lv, rnd, self._pos == len(self._plan) - 1)
        self._pos += 1
        self._done_weight += weight
        self.stats.iterations += 1
        if self._pos == len(self._plan) or self._plan[self._pos][0] != lv:
            self._leave(lv)
            self._collect_events()
        self._done = self._pos == len(self._plan)
        self._elapsed += time.perf_counter() - t0
        return not self._done

    def result(self) -> Any:
        """The image, the source map and the statistics (an :class:`inpaint.pipeline.InpaintResult`).

        The source map gives, for every hole pixel, the original pixel its best patch copies
        there (what the fill would be without blending); -1 elsewhere.
        """
        from .pipeline import InpaintResult

        self._collect_events()
        st = self.stats
        st.stage_seconds = {s: self._seconds[s] for s in STEPS}
        st.transfer_seconds = self._seconds["transfers"]
        st.total_seconds = self._elapsed
        shape = self.mask.shape + (2,)
        found = self._sources if self._done and not st.empty_mask else None

        def source_map() -> np.ndarray:
            src = np.full(shape, -1, np.int32)
            if found is not None:
                sources, hole = found
                src[hole[:, 0], hole[:, 1]] = sources
            return src

        # The finished image is handed over without a copy (a copy of a phone photo costs tens of
        # milliseconds); ``job.image`` still returns copies.
        image = self._result_image if self._result_image is not None else self.image
        return InpaintResult(image=image, source_map=source_map, stats=st)
