"""The multiscale fill's host backend: one level's state in numpy arrays, stepped by the
numpy reference (:mod:`inpaint.methods.multiscale.reference`).  :class:`~inpaint.methods.multiscale.opencl.DeviceLevel`
is the same state in device buffers, stepped by the kernels; the job drives either.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ...pixels import to_rgb
from . import gradients, reference as ref
from .levels import Level, protected_near, random_sources, random_valid, source_rect, upsampled_sources, wide_sources


class HostLevel:
    """One level's state in numpy (the reference backend).

    ``image`` is the level's picture, RGB and texture feature ((h, w, 4) uint8); the estimate
    starts as it and is filled in place.
    """

    def __init__(self, level: Level, image: np.ndarray, k: int, half: int, seconds: dict[str, float],
                 adapt: bool = False, transforms: int = 0):
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
        # with colour adaptation, every listed match's code (see reference.adaptation)
        self.adapt = np.full((n, k, 4), ref.ADAPT_NONE, np.int32) if adapt else None
        # with transformed sources (a key of ref.XFORM_CODES), every listed match's transform and the best's
        self.transforms = transforms
        self.xf = np.zeros((n, k), np.int32) if transforms else None
        self.best_xf = np.zeros(n, np.int32)
        # with resampled transforms, the sources whose wider window is known, and how far the copies reach
        self.wide = wide_sources(level, half) if transforms == 3 else None
        self.reach = ref.xform_reach(half) if transforms == 3 else half
        self.src = np.full((len(level.hole), 2), -1, np.int32)
        self.random_start = False  # whether a start of :meth:`lift` was random
        self.prior: np.ndarray | None = None  # the hole's expected texture feature, over the work area
        self.low: tuple[np.ndarray, tuple[int, int]] | None = None  # the split votes' low-pass map, its origin

    def _timed(self, step: str, fn: Callable, *args: Any) -> None:
        t = time.perf_counter()
        fn(*args)
        self.seconds[step] += time.perf_counter() - t

    def start(self, key: int) -> None:
        """Every candidate list holds one random source alone (``key``: see
        :func:`inpaint.methods.multiscale.levels.random_sources`)."""
        self._start_with(random_sources(self.lev, key), np.zeros(len(self.best), np.int32))

    def _start_with(self, sources: np.ndarray, xf: np.ndarray) -> None:
        self.nnf[:, 0] = sources
        self.cost[:, 0] = 0  # a placeholder until rescore(): marks the slot as used
        self.best[:] = sources
        self.best_xf[:] = xf
        if self.xf is not None:
            self.xf[:, 0] = xf

    def lift(self, coarse: HostLevel, key: int) -> None:
        """Start from the coarser level: every hole pixel takes its estimate (colour and feature) at
        half its coordinates, and every candidate list starts (as :meth:`start`) with the coarse
        parent's best match scaled up, or a random source (``key``) where that is none here
        (:func:`inpaint.methods.multiscale.levels.upsampled_sources`; ``lift_level`` in
        ``kernels/multiscale/pyramid.cl``).  A random start anywhere turns the short search off."""
        t = time.perf_counter()
        hy, hx = self.lev.hole[:, 0], self.lev.hole[:, 1]
        self.est[hy, hx] = coarse.est[hy >> 1, hx >> 1]
        if self.xf is not None:
            starts, lifted, xf = upsampled_sources(self.lev, coarse.lev, coarse.best, key, coarse.best_xf, self.wide)
        else:
            (starts, lifted), xf = upsampled_sources(self.lev, coarse.lev, coarse.best, key), self.best_xf
        self._start_with(starts, xf)
        self.random_start = not lifted
        self.seconds["levels"] += time.perf_counter() - t

    @property
    def short(self) -> bool:
        """Whether the level's PatchMatch is the short search of ``Level.short``: it has one and
        every start was a lifted match."""
        return self.lev.short[0] > 0 and not self.random_start

    def pace(self) -> None:
        """Before a round: nothing to wait for on the host (see the device's ``pace``)."""

    def patchmatch(self, key: int, skip: bool = False) -> None:
        """One PatchMatch iteration with random key ``key``, the short one where :attr:`short`
        (none at all with ``skip``)."""
        if skip and self.short:
            return
        radius, jump = self.lev.short if self.short else (self.lev.radius, self.lev.jump)
        self._timed("patchmatch", ref.patchmatch, self.est, self.lev.targets, self.lev.tidx, self.lev.origin,
                    self.lev.valid, self.nnf, self.cost, self.best.copy(), self.best, self.half, radius, key,
                    jump, self.lev.mean, self.lev.near, self.lev.grad, self.adapt,
                    None if self.xf is None
                    else (self.xf, self.best_xf.copy(), self.best_xf, self.transforms, self.wide))

    def rescore(self) -> None:
        """Recompute every listed candidate's SSD on the current estimate, and the best matches."""
        self._timed("patchmatch", ref.rescore, self.est, self.lev.targets, self.nnf, self.cost, self.half,
                    self.lev.mean, self.lev.near, self.lev.grad, self.adapt, self.xf)
        self.best[:] = self.nnf[:, 0]
        if self.xf is not None:
            self.best_xf[:] = self.xf[:, 0]

    def onion(self, layers: list[np.ndarray], r: int, key: int) -> None:
        """The first fill, layer by layer (see :func:`inpaint.methods.multiscale.reference.onion_search`):
        layer i's pixels start from ``r`` random sources each (:func:`inpaint.methods.multiscale.levels.random_valid`),
        and its search's random numbers, with key ``key + i``."""
        t = time.perf_counter()
        lev = self.lev
        filled = (lev.hole_map == 0).astype(np.uint8)
        osrc = np.full(lev.tidx.shape + (2,), -1, np.int32)
        for i, pix in enumerate(layers):
            k = (key + i) & 0xFFFFFFFF
            cand = random_valid(lev, np.arange(len(pix) * r, dtype=np.uint32), k).reshape(len(pix), r, 2)
            found = ref.onion_search(self.est, filled, osrc, lev.valid, pix, cand, lev.origin, self.half,
                                     lev.radius, k)
            ref.onion_apply(self.est, filled, osrc, pix, found, lev.origin)
        self.seconds["onion"] += time.perf_counter() - t

    def sources(self) -> np.ndarray:
        """The final vote's source of every hole pixel (its best-matching copy's), (M, 2) int32."""
        return self.src.copy()

    def split_votes(self) -> None:
        """Make the low-pass map of the sources that split votes read (their known pixels, and so
        the map, stay the same for the whole level)."""
        t = time.perf_counter()
        rect = source_rect(self.lev, self.reach)
        self.low = (ref.low_pass(self.est, self.lev.solve_map, self.lev.origin, rect,
                                 protected_near(self.lev, rect, ref.LOW_RADIUS)), (rect[1], rect[0]))
        self.seconds["vote"] += time.perf_counter() - t

    def vote(self, pixels: np.ndarray, k_use: int, softness: int, split: bool = False,
             sources: bool = False) -> None:
        """Every listed pixel becomes the weighted mean of what the covering patches copy (``split``:
        the tones averaged, the texture of the best match; after :meth:`split_votes`; with
        ``sources``, the hole pixels' best matches are kept for :meth:`sources`)."""
        self._timed("vote", ref.vote, self.est, pixels, self.lev.tidx, self.lev.origin, self.nnf, self.cost,
                    self.half, k_use, softness, self.v, self.low if split else None, self.src if sources else None,
                    self.adapt, self.xf)

    def expect_prior(self, prior: np.ndarray) -> None:
        """From now on the hole's texture feature is ``prior``'s (uint8 over the work area: the one
        expected from its surroundings, see :func:`inpaint.methods.multiscale.reference.texture_prior`),
        not its sources'."""
        self.prior = prior

    def sweeps(self, n: int) -> None:
        """``n`` red-black Gauss-Seidel sweeps of the correction."""
        self._timed("poisson", ref.gauss_seidel, self.lev.solve_map, self.est, self.v, self.x, self.lev.colours,
                    self.lev.origin, n)

    def correct(self, n: int) -> None:
        """:meth:`sweeps`, then :meth:`compose`."""
        self.sweeps(n)
        self.compose()

    def correct_gradients(self, n: int, sweeps: int, k_use: int, softness: int, split: bool = False,
                          anchor: bool = True) -> None:
        """:meth:`sweeps`, then the gradient-domain vote (the covering patches' gradients, weighted
        and split as :meth:`vote` with ``k_use``, ``softness`` and ``split``) and ``sweeps`` sweeps
        of the screened solve from it (:mod:`inpaint.methods.multiscale.gradients`), which keeps the
        fill near the corrected vote (``anchor``) or the vote itself, then :meth:`compose`."""
        self.sweeps(n)
        gx, gy = np.zeros_like(self.x), np.zeros_like(self.x)
        self._timed("vote", gradients.gradient_vote, self.est, self.lev.pixels, self.lev.tidx, self.lev.origin,
                    self.nnf, self.cost, self.half, k_use, softness, gx, gy, self.low if split else None, self.xf)
        x0 = self.x.copy() if anchor else np.zeros_like(self.x)
        self._timed("poisson", gradients.screened_sweeps, self.lev.solve_map, self.est, self.v, self.x, x0, gx, gy,
                    self.lev.colours, self.lev.origin, sweeps)
        self.compose()

    def compose(self) -> None:
        """Add the correction to the vote in the hole."""
        self._timed("poisson", ref.compose, self.est, self.v, self.x, self.lev.hole, self.lev.origin, self.prior)

    def image(self) -> np.ndarray:
        """The whole estimate, (h, w, 3) uint8."""
        return to_rgb(self.est)

    def values(self, pixels: np.ndarray) -> np.ndarray:
        """The estimate's colours at ``pixels`` ((M, 2) of (y, x)), (M, 3) uint8."""
        return self.est[pixels[:, 0], pixels[:, 1], :3]
