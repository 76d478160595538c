"""Thin wrappers for the multiscale fill's kernels, one per kernel file.

``kernels/patchmatch.cl`` (:class:`PatchMatch`), ``kernels/vote.cl`` (:class:`Vote`),
``kernels/poisson.cl`` (:class:`Poisson`), ``kernels/pyramid.cl`` (:class:`Pyramid`) and
``kernels/onion.cl`` (:class:`Onion`), with ``kernels/hash.cl`` (their random numbers).  Each
fetches its kernels once per runtime and patch size (typed scalars, ``-D`` specialisation),
launches one work-item per target or pixel, and returns the launch event.
:mod:`inpaint.multiscale_ref` and :mod:`inpaint.multiscale` hold the numpy reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import multiscale_ref as ref
from .runtime import Runtime, round_up
from .stages_cl import reduce_group

I32 = np.int32
U32 = np.uint32

#: The kernel files of the multiscale fill, built as one program.
BUNDLE = ("hash", "patchmatch", "vote", "poisson", "pyramid", "onion")

#: Work-group size of the 1-D launches (a multiple of every GPU's SIMD width), lowered to
#: a power of two the device or profile allows.
GROUP = 64


def group_size(rt: Runtime) -> int:
    """The 1-D work-group size for ``rt``: ``GROUP`` or the largest allowed power of two below."""
    g = GROUP
    while g > 1 and (g > rt.limits.max_work_group_size or g > rt.limits.max_work_item_sizes[0]):
        g //= 2
    return g


def _launch(g: int, n: int) -> tuple[tuple[int], tuple[int]]:
    return (round_up(max(int(n), 1), g),), (g,)


def _defines(half: int, k: int) -> dict[str, int]:
    """The bundle's ``-D`` specialisation, the same for every wrapper so they share one program:
    patch half-side, list length, and the texture feature's weight and box radius."""
    return {"HALF": half, "K": k, "FW": ref.FEATURE_WEIGHT, "FR": ref.FEATURE_RADIUS}


class PatchMatch:
    """``kernels/patchmatch.cl``: one PatchMatch iteration, and rescoring of the lists."""

    def __init__(self, rt: Runtime, half: int, k: int):
        self.rt = rt
        self.group = group_size(rt)
        defines = _defines(half, k)
        self.knl = rt.kernel(BUNDLE, "patchmatch", [None] * 8 + [I32, I32, I32, I32, U32] + [I32] * 4, defines)
        self.knl_rescore = rt.kernel(BUNDLE, "rescore", [None] * 5 + [I32, I32, I32], defines)
        self.knl_start = rt.kernel(BUNDLE, "start_lists", [None] * 3 + [I32], defines)

    def __call__(self, b: dict[str, Any], n: int, width: int, height: int, radius: int, key: int,
                 best_in: Any, best_out: Any, work: tuple[int, int, int, int]) -> Any:
        """``work`` = (x0, y0, width, height) of the work area (see ``kernels/patchmatch.cl``)."""
        return self.knl(self.rt.queue, *_launch(self.group, n), b["est"], b["targets"], b["tidx"], b["valid"],
                        b["nnf"], b["cost"], best_in, best_out, I32(n), I32(width), I32(height),
                        I32(radius), U32(key), *map(I32, work))

    def start(self, b: dict[str, Any], sources: Any, n: int) -> Any:
        """Every list holds ``sources[i]`` alone (see ``start_lists``)."""
        return self.knl_start(self.rt.queue, *_launch(self.group, n), sources, b["nnf"], b["cost"], I32(n))

    def rescore(self, b: dict[str, Any], n: int, width: int, height: int, best: Any) -> Any:
        return self.knl_rescore(self.rt.queue, *_launch(self.group, n), b["est"], b["targets"], b["nnf"], b["cost"],
                                best, I32(n), I32(width), I32(height))


class Vote:
    """``kernels/vote.cl``: the weighted vote of the covering patches, per listed pixel, and the
    sharp vote that the best-matching covering patch decides."""

    def __init__(self, rt: Runtime, half: int, k: int):
        self.rt = rt
        self.group = group_size(rt)
        defines = _defines(half, k)
        self.knl = rt.kernel(BUNDLE, "vote", [None] * 6 + [I32, I32, I32, I32, U32] + [I32] * 4, defines)
        self.knl_sharp = rt.kernel(BUNDLE, "vote_sharp", [None] * 8 + [I32, I32, I32, I32, I32, U32] + [I32] * 4,
                                   defines)

    def __call__(self, b: dict[str, Any], pixels: Any, n: int, width: int, height: int, k_use: int,
                 softness: int, work: tuple[int, int, int, int]) -> Any:
        return self.knl(self.rt.queue, *_launch(self.group, n), b["est"], pixels, b["tidx"], b["nnf"], b["cost"],
                        b["v"], I32(n), I32(width), I32(height), I32(k_use), U32(softness), *map(I32, work))

    def sharp(self, b: dict[str, Any], pixels: Any, n: int, src: Any, nsrc: int, lut: Any, nlut: int, width: int,
              k_use: int, unit: int, work: tuple[int, int, int, int]) -> Any:
        """``vote_sharp`` over ``n`` listed pixels; ``src`` receives the first ``nsrc`` pixels' sources."""
        return self.knl_sharp(self.rt.queue, *_launch(self.group, n), b["est"], pixels, b["tidx"], b["nnf"],
                              b["cost"], b["v"], src, lut, I32(nlut), I32(n), I32(nsrc), I32(width), I32(k_use),
                              U32(unit), *map(I32, work))


class Poisson:
    """``kernels/poisson.cl``: red-black Gauss-Seidel sweeps and the final composition.

    Holes of up to ``FUSED_PIXELS`` pixels run all their sweeps in one launch of one
    work-group (``gauss_seidel_sweeps``); larger ones take two launches per sweep.
    """

    #: Largest hole swept in one launch.
    FUSED_PIXELS = 16384

    def __init__(self, rt: Runtime, half: int, k: int):
        self.rt = rt
        self.group = group_size(rt)
        self.fused_group = reduce_group(rt)
        defines = _defines(half, k)
        self.knl_gs = rt.kernel(BUNDLE, "gauss_seidel", [None] * 5 + [I32] * 6, defines)
        self.knl_sweeps = rt.kernel(BUNDLE, "gauss_seidel_sweeps",
                                    [None, None, None, None, None, I32, None, I32, I32, I32, I32, I32, I32, I32],
                                    defines)
        self.knl_compose = rt.kernel(BUNDLE, "compose", [None] * 4 + [I32] * 5, defines)

    def sweep(self, b: dict[str, Any], colour: Any, n: int, width: int, height: int,
              work: tuple[int, int, int, int]) -> Any:
        return self.knl_gs(self.rt.queue, *_launch(self.group, n), b["hole"], b["est"], b["v"], b["x"], colour,
                           I32(n), I32(width), I32(height), *map(I32, work[:3]))

    def sweeps(self, b: dict[str, Any], red: Any, nred: int, black: Any, nblack: int, width: int, height: int,
               sweeps: int, work: tuple[int, int, int, int]) -> list:
        """``sweeps`` red-black sweeps; returns the launch events."""
        if nred + nblack <= self.FUSED_PIXELS:
            g = self.fused_group
            return [self.knl_sweeps(self.rt.queue, (g,), (g,), b["hole"], b["est"], b["v"], b["x"], red, I32(nred),
                                    black, I32(nblack), I32(width), I32(height), I32(sweeps), *map(I32, work[:3]))]
        events = []
        for _ in range(sweeps):
            for pix, n in ((red, nred), (black, nblack)):
                if n:
                    events.append(self.sweep(b, pix, n, width, height, work))
        return events

    def compose(self, b: dict[str, Any], n: int, width: int, work: tuple[int, int, int, int]) -> Any:
        return self.knl_compose(self.rt.queue, *_launch(self.group, n), b["est"], b["v"], b["x"], b["holepix"],
                                I32(n), I32(width), *map(I32, work[:3]))


class Pyramid:
    """``kernels/pyramid.cl``: the image pyramid on the device, its texture features, and a
    level's start from the coarser one's result."""

    #: 2-D work-group of ``halve``.
    TILE = (16, 8)

    def __init__(self, rt: Runtime, half: int, k: int):
        self.rt = rt
        self.group = group_size(rt)
        defines = _defines(half, k)
        self.knl_pack = rt.kernel(BUNDLE, "pack_rgba", [None, None, I32], defines)
        self.knl_halve = rt.kernel(BUNDLE, "halve", [None, I32, I32, None, I32, I32], defines)
        self.knl_lift = rt.kernel(BUNDLE, "lift", [None, None, I32, I32, None, I32], defines)
        self.knl_edges = rt.kernel(BUNDLE, "edges", [None, None, None] + [I32] * 6, defines)
        self.knl_features = rt.kernel(BUNDLE, "features", [None, None, None] + [I32] * 6, defines)
        tx, ty = self.TILE
        sizes = rt.limits.max_work_item_sizes
        while tx * ty > rt.limits.max_work_group_size or tx > sizes[0] or ty > sizes[1]:
            tx, ty = max(tx // 2, 1), max(ty // 2, 1)
        self.tile = (tx, ty)

    def pack(self, rgb: Any, est: Any, n: int) -> Any:
        """``est`` (``n`` uchar4) from packed RGB bytes ``rgb``."""
        return self.knl_pack(self.rt.queue, *_launch(self.group, n), rgb, est, I32(n))

    def halve(self, fine: Any, fine_shape: tuple[int, int], coarse: Any, coarse_shape: tuple[int, int]) -> Any:
        """``coarse`` = ``down2(fine)``; shapes are (height, width)."""
        (fh, fw), (ch, cw) = fine_shape, coarse_shape
        tx, ty = self.tile
        return self.knl_halve(self.rt.queue, (round_up(cw, tx), round_up(ch, ty)), self.tile,
                              fine, I32(fw), I32(fh), coarse, I32(cw), I32(ch))

    def features(self, est: Any, edges: Any, hole: Any, box: tuple[int, int, int, int], shape: tuple[int, int]) -> list:
        """The texture feature of every pixel into ``est``'s spare byte (``edges`` then ``features``;
        ``edges`` is scratch of 2 bytes a pixel); ``hole`` (uchar) covers ``box`` = (x0, y0, w, h).
        Returns the two launch events."""
        h, w = shape
        tx, ty = self.tile
        grid = (round_up(w, tx), round_up(h, ty))
        args = (hole, *map(I32, box), I32(w), I32(h))
        return [self.knl_edges(self.rt.queue, grid, self.tile, est, edges, *args),
                self.knl_features(self.rt.queue, grid, self.tile, est, edges, *args)]

    def lift(self, b: dict[str, Any], n: int, width: int, coarse: dict[str, Any], coarse_width: int) -> Any:
        """Every hole pixel takes the coarse estimate at half its coordinates."""
        return self.knl_lift(self.rt.queue, *_launch(self.group, n), b["est"], b["holepix"], I32(n), I32(width),
                             coarse["est"], I32(coarse_width))


class Onion:
    """``kernels/onion.cl``: one layer of the coarsest level's first fill (search, then apply)."""

    def __init__(self, rt: Runtime, half: int, k: int):
        self.rt = rt
        self.group = group_size(rt)
        defines = _defines(half, k)
        self.knl_search = rt.kernel(BUNDLE, "onion_search", [None] * 7 + [I32, I32, I32, I32, I32, U32] + [I32] * 4,
                                    defines)
        self.knl_apply = rt.kernel(BUNDLE, "onion_apply", [None] * 5 + [I32, I32] + [I32] * 3, defines)

    def search(self, b: dict[str, Any], pixels: Any, cands: Any, found: Any, n: int, r: int, width: int,
               height: int, radius: int, key: int, work: tuple[int, int, int, int]) -> Any:
        """``found`` = each of the ``n`` layer pixels' best source (``r`` candidates each in ``cands``)."""
        return self.knl_search(self.rt.queue, *_launch(self.group, n), b["est"], b["filled"], b["osrc"],
                               b["valid"], pixels, cands, found, I32(n), I32(r), I32(width), I32(height),
                               I32(radius), U32(key), *map(I32, work))

    def apply(self, b: dict[str, Any], pixels: Any, found: Any, n: int, width: int,
              work: tuple[int, int, int, int]) -> Any:
        return self.knl_apply(self.rt.queue, *_launch(self.group, n), b["est"], b["filled"], b["osrc"], pixels,
                              found, I32(n), I32(width), *map(I32, work[:3]))
