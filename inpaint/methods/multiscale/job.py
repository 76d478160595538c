"""The multiscale fill: coarse-to-fine PatchMatch whose best-matching patches decide the fill.

The image and the hole are halved until the hole is about a patch thick.  Every pixel carries,
besides its colour, a **texture feature** (:func:`inpaint.methods.multiscale.reference.texture_features`: how
strongly the grey level varies around it, from known pixels only, after Newson et al.), which
every patch distance weighs: so the search keeps choosing sources as textured as the hole's
surroundings, however smooth the fill is for a while.  In the hole the feature follows the
sources the votes copy; at the photo's own size it is the texture expected from the hole's
surroundings (:func:`inpaint.methods.multiscale.reference.texture_prior`), so a fill that has
turned smooth does not go on matching smooth sources.

1. **First fill** (:func:`inpaint.methods.multiscale.reference.onion_search`): the coarsest hole is peeled
   from its edge inwards; each pixel copies the centre of the source patch that best matches
   what is known or filled around it.  The search starts from a sharp picture, not a smooth guess.
2. **Rounds** at every level:

   - **PatchMatch** (:func:`inpaint.methods.multiscale.reference.patchmatch`): every patch that meets the
     hole looks for its ``candidates`` most similar source patches, taken only from the
     original known pixels inside the search area of Eq. 6 (``alpha``), by propagation from its
     neighbours and random search; at the coarse levels the distance weighs the windows' mean
     colour once more (:data:`MEAN_WEIGHT`), so a smooth fill takes a source of its own colour;
   - **voting** (:func:`inpaint.methods.multiscale.reference.vote`): every hole pixel becomes the mean of
     what the patches covering it copy; at the photo's own size only the tones are averaged and
     the texture is the best-matching copy's, so the rounds there keep the texture the coarser
     levels found;
   - **gradient-domain correction** (:func:`inpaint.methods.multiscale.reference.gauss_seidel`): the
     mismatch between the vote and the known pixels around the hole is spread into the hole,
     which carries the surrounding tones in and hides seams.

3. **Next level**: the matches, scaled up, rebuild the finer level's fill from its own pixels
   (not from the coarse pixels, which would hand it a blurred picture).
4. **Final vote**: the last round's vote at the photo's own size is split like its other rounds:
   the tones below a 7x7 box are averaged over the covering copies and the finer detail is the
   best-matching copy's, so texture stays as sharp as its source while blurred backgrounds stay
   smooth, with no hard-edged pieces where neighbouring copies' tones differ.

After Wexler, Shechtman and Irani (completion by voting), Barnes et al. (PatchMatch), Newson,
Almansa, Gousseau and Pérez (texture features, best-patch reconstruction, onion-peel start)
and Pérez et al. (Poisson blending).  All arithmetic is integer, so the OpenCL kernels
(``patchmatch.cl``, ``vote.cl``, ``poisson.cl``, ``onion.cl``, and ``pyramid.cl``, which
builds the levels and their features on the device and carries each level's fill to the
next) and the numpy reference agree bit for bit; pixels outside the hole are never written.

:class:`MultiscaleInpainter` runs it step-wise (one step per round) for the app;
:func:`inpaint.api.inpaint` with ``method="multiscale"`` runs it to the end.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import geometry
from ...cl.engine import resolve
from ...errors import InputError
from ...pixels import to_rgb, to_rgba
from ..base import FillStats, InpaintResult, StepwiseJob
from ..checks import check_arrays, check_protect, parse_patch, search_factor
from ..options import checked
from . import reference as ref
from .levels import (
    Level,
    free_centres,
    hole_groups,
    image_pyramid,
    mask_pyramid,
    onion_layers,
    prepare_level,
    protect_pyramid,
    random_sources,
    random_valid,
    source_rect,
    upsampled_sources,
)
from .options import BY_NAME as OPTIONS, DEFAULT_CANDIDATES, OPTIONS as DECLARED
from .steps import STEPS

DEFAULT_PATCH = OPTIONS["patch"].default
#: Largest patch side (keeps every vote sum inside 32 bits).
MAX_PATCH = 31
#: Vote softness per compared value (squared grey levels), with more than one candidate a patch:
#: candidates whose SSD exceeds the patch's best by about this much per pixel and channel get
#: half the weight.
SOFTNESS = 340
#: Random source candidates each pixel of the first fill (the onion peel) starts from.
ONION_CANDIDATES = 64
#: Rounds (PatchMatch + vote + correction) at the coarsest level, the finest (the photo itself,
#: where a round costs the most) and every level between.
ROUNDS_COARSEST, ROUNDS_FINEST, ROUNDS = 8, 3, 5
#: PatchMatch iterations per round (twice as many in the very first round), and per round of the
#: photo's own level's short search around the coarser level's matches (:data:`RADIUS_FINEST`):
#: there one iteration a round found fills as good as three, in a third of the time.
PM_ITERATIONS, PM_ITERATIONS_LIFTED = 3, 1
#: Gauss-Seidel sweeps per round at the coarser levels, at the photo itself, and for the first
#: correction at the coarsest level (which starts from zero).  The coarser levels' corrections
#: must reach across the whole hole; at the photo itself the coarser fill has already brought the
#: tones in, and more sweeps there cost the most and bought nothing measurable.
SWEEPS, SWEEPS_FINEST, SWEEPS_FIRST = 80, 30, 200
#: PatchMatch's random-search radius and longest propagation jump at the photo itself.  The coarser
#: levels have already found where each patch's source lies, and their matches, scaled up, start
#: this level: a search this short gives the same fills as one over the whole search area, in
#: about 30 % less time on a 12 MP photo.
RADIUS_FINEST, JUMP_FINEST = 8, 2
#: Weight of the mean-colour term in PatchMatch's distances, in quarters
#: (:func:`inpaint.methods.multiscale.reference.ssd`), at level ``MEAN_FROM`` (0: the photo itself)
#: and every coarser one: the SSD already holds the squared mean difference once per pixel, and
#: this adds it once more.  The coarse fills are smooth, and with the SSD alone a smooth source of
#: another colour (a shadow) often matches them better than a textured one of their own colour:
#: the dark smears.  The two finest levels keep the colours they are handed; there the term
#: bought nothing measurable (at the photo itself it lowered the detail) and costs the most.
MEAN_WEIGHT, MEAN_FROM = 4, 2
#: Weight of the distance term in PatchMatch's distances at level ``NEAR_FROM`` and every coarser
#: one (:func:`inpaint.methods.multiscale.reference.ssd`): a source costs this much more per pixel
#: of that level between its centre and the target's (about a 2.6 grey-level difference on every
#: value of a 7x7 window).  The coarse levels choose what fills the hole; without it a far source
#: whose window matched a little better won, and a line meeting the hole (a plank's gap) stopped
#: there.  From half size down the fills copied the object's leftover fringe, and at every level
#: they repeated in blocks and streaks.
NEAR_WEIGHT, NEAR_FROM = 1000, 2
#: Levels, from the photo itself up, whose averaged votes are split by frequency
#: (:func:`inpaint.methods.multiscale.reference.vote`): the tones averaged, the texture of the best
#: match.  Averaged whole, the rounds there washed out the texture the coarser levels had found.
#: The final vote, at the photo itself, is always split.
SPLIT_LEVELS = 1
#: Whether the hole at the photo's own level expects the texture of its surroundings
#: (:func:`inpaint.methods.multiscale.reference.texture_prior`) instead of that of its sources.
EXPECTED_TEXTURE = True


class HostLevel:
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
        self.prior: np.ndarray | None = None  # the hole's expected texture feature, over the work area
        self.low: tuple[np.ndarray, tuple[int, int]] | None = None  # the split votes' low-pass map, its origin

    def _timed(self, step: str, fn: Callable, *args: Any) -> None:
        t = time.perf_counter()
        fn(*args)
        self.seconds[step] += time.perf_counter() - t

    def start(self, sources: np.ndarray) -> None:
        """Every candidate list holds its target's ``sources`` row alone."""
        self.nnf[:, 0] = sources
        self.cost[:, 0] = 0  # a placeholder until rescore(): marks the slot as used

    def lift(self, coarse: HostLevel) -> None:
        """Every hole pixel takes the coarser level's estimate (colour and feature) at half its
        coordinates (``lift`` in ``kernels/multiscale/pyramid.cl``)."""
        t = time.perf_counter()
        hy, hx = self.lev.hole[:, 0], self.lev.hole[:, 1]
        self.est[hy, hx] = coarse.est[hy >> 1, hx >> 1]
        self.seconds["levels"] += time.perf_counter() - t

    def patchmatch(self, key: int) -> None:
        """One PatchMatch iteration with random key ``key``."""
        self._timed("patchmatch", ref.patchmatch, self.est, self.lev.targets, self.lev.tidx, self.lev.origin,
                    self.lev.valid, self.nnf, self.cost, self.best.copy(), self.best, self.half, self.lev.radius, key,
                    self.lev.jump, self.lev.mean, self.lev.near)

    def rescore(self) -> None:
        """Recompute every listed candidate's SSD on the current estimate, and the best matches."""
        self._timed("patchmatch", ref.rescore, self.est, self.lev.targets, self.nnf, self.cost, self.half,
                    self.lev.mean, self.lev.near)
        self.best[:] = self.nnf[:, 0]

    def onion(self, layers: list[np.ndarray], cands: list[np.ndarray], key: int) -> None:
        """The first fill, layer by layer (see :func:`inpaint.methods.multiscale.reference.onion_search`)."""
        t = time.perf_counter()
        lev = self.lev
        filled = (lev.hole_map == 0).astype(np.uint8)
        osrc = np.full(lev.tidx.shape + (2,), -1, np.int32)
        for i, (pix, cand) in enumerate(zip(layers, cands)):
            found = ref.onion_search(self.est, filled, osrc, lev.valid, pix, cand, lev.origin, self.half,
                                     lev.radius, (key + i) & 0xFFFFFFFF)
            ref.onion_apply(self.est, filled, osrc, pix, found, lev.origin)
        self.seconds["onion"] += time.perf_counter() - t

    def sources(self) -> np.ndarray:
        """The final vote's source of every hole pixel (its best-matching copy's), (M, 2) int32."""
        return self.src.copy()

    def split_votes(self) -> None:
        """Make the low-pass map of the sources that split votes read (their known pixels, and so
        the map, stay the same for the whole level)."""
        t = time.perf_counter()
        rect = source_rect(self.lev, self.half)
        self.low = (ref.low_pass(self.est, self.lev.solve_map, self.lev.origin, rect), (rect[1], rect[0]))
        self.seconds["vote"] += time.perf_counter() - t

    def vote(self, pixels: np.ndarray, k_use: int, softness: int, split: bool = False,
             sources: bool = False) -> None:
        """Every listed pixel becomes the weighted mean of what the covering patches copy (``split``:
        the tones averaged, the texture of the best match; after :meth:`split_votes`; with
        ``sources``, the hole pixels' best matches are kept for :meth:`sources`)."""
        self._timed("vote", ref.vote, self.est, pixels, self.lev.tidx, self.lev.origin, self.nnf, self.cost,
                    self.half, k_use, softness, self.v, self.low if split else None, self.src if sources else None)

    def expect_prior(self, prior: np.ndarray) -> None:
        """From now on the hole's texture feature is ``prior``'s (uint8 over the work area: the one
        expected from its surroundings, see :func:`inpaint.methods.multiscale.reference.texture_prior`),
        not its sources'."""
        self.prior = prior

    def sweeps(self, n: int) -> None:
        """``n`` red-black Gauss-Seidel sweeps of the correction."""
        self._timed("poisson", ref.gauss_seidel, self.lev.solve_map, self.est, self.v, self.x, self.lev.colours,
                    self.lev.origin, n)

    def compose(self) -> None:
        """Add the correction to the vote in the hole."""
        self._timed("poisson", ref.compose, self.est, self.v, self.x, self.lev.hole, self.lev.origin, self.prior)

    def image(self) -> np.ndarray:
        """The whole estimate, (h, w, 3) uint8."""
        return to_rgb(self.est)

    def values(self, pixels: np.ndarray) -> np.ndarray:
        """The estimate's colours at ``pixels`` ((M, 2) of (y, x)), (M, 3) uint8."""
        return self.est[pixels[:, 0], pixels[:, 1], :3]

    def best_matches(self) -> np.ndarray:
        """Each target's best source centre, (N, 2) int32."""
        return self.best.copy()


@dataclasses.dataclass
class MultiscaleStats(FillStats):
    """What a multiscale run did (:class:`inpaint.methods.base.FillStats` holds the common fields).

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
    groups : int
        Groups of the hole's parts filled one after the other, far enough apart to be filled
        alone (:func:`inpaint.methods.multiscale.levels.hole_groups`); ``levels`` and
        ``search_area`` are then the largest group's.
    """

    method: str = "multiscale"
    stage_seconds: dict = dataclasses.field(default_factory=lambda: {s: 0.0 for s in STEPS})
    patch: int = DEFAULT_PATCH
    levels: list = dataclasses.field(default_factory=list)
    candidates: int = DEFAULT_CANDIDATES
    groups: int = 1


class MultiscaleInpainter(StepwiseJob):
    """Step-wise multiscale fill (see the module docstring).

    A hole of two groups of parts far apart (:func:`inpaint.methods.multiscale.levels.hole_groups`:
    neither within the search area of Eq. 6 of the other at ``alpha = 1``, the box around both
    covering half the photo or more) is filled one group after the other, each over a work area
    of its own size, with the other protected: two small objects in opposite corners of a phone
    photo do not cost a fill spanning the photo.

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
    protect : ndarray, (H, W) bool, optional
        Pixels the fill must not copy from (a sampling exclusion, like "sample from" in an
        editor): no source patch, at any level, covers one.  They stay as they are unless the
        mask also covers them.
    backend : {'auto', 'opencl', 'numpy'}
    device, profile
        OpenCL device and device profile, as for :class:`inpaint.methods.criminisi.job.Inpainter`.
    engine : inpaint.cl.engine.Engine, optional
        The backend, device and profile resolved by the caller; given, it stands for them.
    seed : int
        Varies the random search (the fill is deterministic for a given seed).
    timings : bool
        Measure each step's device time (see :class:`inpaint.methods.criminisi.job.Inpainter`).

    Raises
    ------
    InputError
        Bad parameters, or no source patch anywhere in the image.
    inpaint.cl.runtime.OpenCLUnavailable
        ``backend='opencl'`` and no device exists.
    """

    def __init__(self, image: np.ndarray, mask: np.ndarray, *, alpha: Any = OPTIONS["alpha"].default,
                 patch: int = DEFAULT_PATCH,
                 candidates: int = DEFAULT_CANDIDATES, protect: Any = None, backend: str = "auto", device: Any = None,
                 profile: Any = None, engine: Any = None, seed: int = 0, timings: bool = True):
        t0 = time.perf_counter()
        rgb, mask = check_arrays(image, mask)
        # the profile is checked whatever the backend, before any work
        engine = engine if engine is not None else resolve(backend, device, profile)
        self._rgb, self._whole = np.ascontiguousarray(rgb), mask
        self._groups = hole_groups(mask) if mask.any() else [mask]
        if len(self._groups) > 1:  # the later groups' fills read it: the caller's array may change
            self._whole = mask.copy()
        self._kw = dict(alpha=alpha, patch=patch, candidates=candidates, protect=protect, backend=backend,
                        seed=seed, timings=timings)
        self._index = 0
        grouping = time.perf_counter() - t0
        # the first group checks every parameter, and that the whole hole has sources
        self._part: _Fill | None = self._make(engine)
        # the other groups run on the runtime the first one opened
        self._engine = engine if self._part._rt is None else engine.with_runtime(self._part._rt)
        self.patch, self.half, self.alpha = self._part.patch, self._part.half, self._part.alpha
        self._weights = [int(g.sum()) for g in self._groups]
        self._filled: list[MultiscaleStats] = []  # the statistics of the groups filled
        self._out = self._rgb.copy() if len(self._groups) > 1 else None  # the finished groups' fills
        self._sources: list[tuple[np.ndarray, np.ndarray]] = []  # their final sources and hole pixels
        self._extra = grouping  # seconds of this job's own
        self.stats = self._merged()

    def _make(self, engine: Any) -> _Fill:
        """The fill of group ``self._index``."""
        if len(self._groups) == 1:
            return _Fill(self._rgb, self._whole, engine=engine, **self._kw)
        return _Fill(self._rgb, self._groups[self._index], whole=self._whole, engine=engine, **self._kw)

    def _merged(self) -> MultiscaleStats:
        """The statistics of the groups filled so far and of the current one, as one run's."""
        parts = self._filled + ([self._part.stats] if self._part is not None else [])
        if len(self._groups) == 1:
            return parts[0]
        st = dataclasses.replace(parts[0], groups=len(self._groups))  # the largest group's, run first
        st.iterations = sum(p.iterations for p in parts)
        st.widened = sum(p.widened for p in parts)
        st.stage_seconds = {s: sum(p.stage_seconds.get(s, 0.0) for p in parts) for s in STEPS}
        for field in ("transfer_seconds", "build_seconds", "context_seconds"):
            setattr(st, field, sum(getattr(p, field) for p in parts))
        st.total_seconds = self._extra + sum(p.total_seconds for p in parts)
        st.timed = all(p.timed for p in parts)
        return st

    @property
    def done(self) -> bool:
        """True once every group's finest level's last round has run."""
        if len(self._groups) == 1:
            return self._part.done
        return self._part is None  # the next group's fill is made as soon as one ends

    @property
    def progress(self) -> float:
        """Fraction of the work done, in [0, 1], each group weighed by its pixels."""
        if self.done:
            return 1.0
        total = sum(self._weights)
        done = sum(self._weights[:self._index])
        if self._part is not None:
            done += self._part.progress * self._weights[self._index]
        return done / total if total else 0.0

    @property
    def iterations(self) -> int:
        """Rounds run so far, over every group."""
        return self.stats.iterations

    @property
    def image(self) -> np.ndarray:
        """The current image, (H, W, 3) uint8: the groups filled so far, and the current group's
        fill as :attr:`_Fill.image` gives it."""
        if len(self._groups) == 1:
            return self._part.image
        out = self._out.copy()
        if self._part is not None:
            g = self._groups[self._index]
            out[g] = self._part.image[g]
        return out

    def step(self) -> bool:
        """Run one round.  Returns True while rounds remain."""
        if len(self._groups) == 1:
            more = self._part.step()
            self.stats = self._part.stats
            return more
        if self._part is None:
            return False
        if not self._part.step():  # the group's own time is its statistics'
            t = time.perf_counter()
            # keep the group's fill, sources and statistics, and let its buffers go
            part = self._part
            self._filled.append(part.result().stats)
            sources, hole = part._sources
            self._out[hole[:, 0], hole[:, 1]] = part._result_image[hole[:, 0], hole[:, 1]]
            self._sources.append((sources, hole))
            self._part = None
            self._index += 1
            self._extra += time.perf_counter() - t
            if self._index < len(self._groups):
                self._part = self._make(self._engine)
        self.stats = self._merged()
        return not self.done

    def result(self) -> Any:
        """The image, the source map and the statistics (an :class:`inpaint.methods.base.InpaintResult`).

        The source map gives, for every hole pixel, the original pixel its best patch copies
        there (what the fill would be without blending); -1 elsewhere.
        """
        if len(self._groups) == 1:
            return self._part.result()
        self.stats = self._merged()
        found = list(self._sources) if self.done else []

        def source_map() -> np.ndarray:
            src = np.full(self._whole.shape + (2,), -1, np.int32)
            for sources, hole in found:
                src[hole[:, 0], hole[:, 1]] = sources
            return src

        return InpaintResult(image=self._out if self.done else self.image, source_map=source_map, stats=self.stats)


class _Fill(StepwiseJob):
    """The fill of one group of the hole's parts (all of them, mostly): :class:`MultiscaleInpainter`'s
    work, which takes the same parameters and, with ``whole``, the whole hole, whose other parts are
    protected and, like the group, unknown to the texture features."""

    def __init__(self, image: np.ndarray, mask: np.ndarray, *, alpha: Any = OPTIONS["alpha"].default,
                 patch: int = DEFAULT_PATCH,
                 candidates: int = DEFAULT_CANDIDATES, protect: Any = None, backend: str = "auto", device: Any = None,
                 profile: Any = None, engine: Any = None, seed: int = 0, timings: bool = True,
                 whole: np.ndarray | None = None):
        t0 = time.perf_counter()
        rgb, mask = check_arrays(image, mask)
        h, w = mask.shape
        self.patch = parse_patch(patch, h, w, MAX_PATCH)
        self.half = self.patch // 2
        self.alpha = search_factor(alpha)
        values = checked(DECLARED, candidates=candidates, backend=backend, seed=seed, timings=timings)
        self.protect = check_protect(protect, (h, w))
        k = values["candidates"]
        self.k, self.seed = k, values["seed"]
        # the profile is checked whatever the backend, before any work
        engine = engine if engine is not None else resolve(backend, device, profile)
        self.rgb = np.ascontiguousarray(rgb)
        self.mask = mask.copy()
        self.whole = self.mask if whole is None else whole  # unknown to the texture features
        self.stats = MultiscaleStats(patch=self.patch, candidates=k, alpha=self.alpha)
        self._seconds = {s: 0.0 for s in STEPS}
        self._seconds["transfers"] = 0.0
        self._events: list = []
        self._rt = None
        self._kernels: dict[str, Any] = {}
        self._done = False
        self._plan: list[tuple[int, int, int]] = []  # (level, round, weight)
        self._pos = 0
        self._state: HostLevel | None = None
        self._short = False  # whether the current level runs the short search
        self._ready: tuple[int, Level] | None = None  # the next level, set up
        self._coarse: tuple[Any, np.ndarray] | None = None  # the coarser level's state and best map
        self._sources: tuple[np.ndarray, np.ndarray] | None = None  # the final sources and hole pixels
        self._result_image: np.ndarray | None = None
        if not mask.any():
            self.stats.empty_mask = True
            self._done = True
            self._result_image = self.rgb.copy()
            self._elapsed = time.perf_counter() - t0
            return
        if self.whole.all():
            raise InputError("the mask covers the whole image: there is nothing to copy from")
        asked = self.protect
        if whole is not None:  # the hole's other parts: no source covers them
            others = whole & ~mask
            self.protect = others if self.protect is None else self.protect | others
        # (free of this group's pixels and of the others' is free of the whole hole's)
        if not free_centres(mask, self.half, geometry.bbox(mask), self.protect).any():
            raise InputError(
                f"no valid source patch: no {self.patch}x{self.patch} window of the image is free of "
                + ("the mask and the protected pixels; protect less, or use a smaller patch or mask"
                   if asked is not None else "the mask; use a smaller patch or a smaller mask"))
        if not engine.numpy:
            from . import opencl as mcl

            def kernels(rt: Any) -> tuple[dict[str, Any], float]:  # the whole program, and its build time
                before = rt.build_seconds
                made = {"pm": mcl.PatchMatch(rt, self.half, k), "vote": mcl.Vote(rt, self.half, k),
                        "onion": mcl.Onion(rt, self.half, k), "poisson": mcl.Poisson(rt, self.half, k),
                        "pyramid": mcl.Pyramid(rt, self.half, k)}
                return made, rt.build_seconds - before

            t_rt = time.perf_counter()
            self._rt, made = engine.open(profiling=bool(timings), prepare=kernels, largest=self._largest_buffer())
            if self._rt is not None:
                import pyopencl as cl

                self._cl = cl
                self._kernels, self.stats.build_seconds = made
                self.stats.backend, self.stats.device = "opencl", self._rt.name
            self.stats.context_seconds = time.perf_counter() - t_rt - self.stats.build_seconds
        self.stats.timed = self._rt is None or self._rt.profiling
        masks = mask_pyramid(mask, self.patch, self.protect)
        self._masks = masks
        self._protects = protect_pyramid(self.protect, len(masks))
        self.stats.levels = [(m.shape[1], m.shape[0]) for m in masks]
        t = time.perf_counter()
        if self._rt is not None:
            self._images = self._device_pyramid()
        else:
            rgba = to_rgba(self.rgb, ref.texture_features(self.rgb, self.whole))
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

    def _largest_buffer(self) -> int:
        """The bytes of the largest device buffer the fill makes, at most: a 32-bit word per pixel
        of the picture, or, over the finest level's work area (the hole's box grown by the
        patch), an int4 per pixel or the candidates' matches (two ints each)."""
        h, w = self.mask.shape
        x0, y0, x1, y1 = geometry.grow(geometry.bbox(self.mask), self.half + 1, w, h)
        area = (x1 - x0) * (y1 - y0)
        return max(h * w * 4, area * 16, area * self.k * 8)

    def _device_pyramid(self) -> list:
        """Every level's picture as a device buffer of RGB and texture feature: the photo crosses
        the bus once, as packed RGB, gets its features and is halved on the device."""
        from ...cl.runtime import new_buffer

        mf = self._cl.mem_flags
        ctx = self._rt.context
        kn = self._kernels["pyramid"]
        t = time.perf_counter()
        rgb = new_buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=self.rgb)
        self._seconds["transfers"] += time.perf_counter() - t
        shapes = [m.shape for m in self._masks]
        bufs = [new_buffer(ctx, mf.READ_WRITE, h * w * 4) for h, w in shapes]
        self._events.append(("levels", kn.pack(rgb, bufs[0], shapes[0][0] * shapes[0][1])))
        x0, y0, x1, y1 = geometry.bbox(self.whole)
        t = time.perf_counter()
        hole = new_buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                         hostbuf=np.ascontiguousarray(self.whole[y0:y1, x0:x1], np.uint8))
        edges = new_buffer(ctx, mf.READ_WRITE, shapes[0][0] * shapes[0][1] * 2)
        self._seconds["transfers"] += time.perf_counter() - t
        for ev in kn.features(bufs[0], edges, hole, (x0, y0, x1 - x0, y1 - y0), shapes[0]):
            self._events.append(("levels", ev))
        for lv in range(1, len(shapes)):
            self._events.append(("levels", kn.halve(bufs[lv - 1], shapes[lv - 1], bufs[lv], shapes[lv])))
        return bufs

    # -- the algorithm --------------------------------------------------------------------
    def _setup(self, lv: int) -> Level:
        """Level ``lv``'s description: host work alone, which the device path does while the
        device finishes the level above."""
        return prepare_level(self._masks[lv], self.half, self.alpha, self._protects[lv])

    def _expect_texture(self, st: Any, lv: int) -> None:
        """At the photo's own level, hand ``st`` the texture its hole expects: host work, done once
        the level's first device work is queued (and its buffers, checked against the memory
        left, exist)."""
        if lv == 0 and EXPECTED_TEXTURE:
            lev = st.lev
            st.expect_prior(ref.expected_texture(self.rgb, self.mask, lev.solve_map, lev.work, self.half))

    def _enter(self, lv: int) -> None:
        """Set up level ``lv``: sources, start matches and a first fill."""
        ready = self._ready
        self._ready = None
        lev = ready[1] if ready is not None and ready[0] == lv else self._setup(lv)
        key = self.seed * 1000 + lv
        starts = None
        self._short = False  # the short search around the coarser level's matches
        if lv < len(self._masks) - 1:
            coarse, coarse_best = self._coarse
            starts, lifted = upsampled_sources(lev, coarse_best, coarse.lev.origin, key)
            # A short search only where the coarser level placed every start (a random one, where
            # the scaled-up match is no source here, needs the whole search area).
            if lv == 0 and lifted:
                lev = dataclasses.replace(lev, radius=min(lev.radius, RADIUS_FINEST), jump=JUMP_FINEST)
                self._short = True
        if lv >= MEAN_FROM:
            lev = dataclasses.replace(lev, mean=MEAN_WEIGHT)
        if lv >= NEAR_FROM:
            lev = dataclasses.replace(lev, near=NEAR_WEIGHT)
        self.stats.widened += lev.widened > 0
        if lv == 0:
            self.stats.search_area = lev.area
        if self._rt is not None:
            from .opencl import DeviceLevel

            st = DeviceLevel(lev, self._images[lv], self.k, self.half, self._seconds, self._rt, self._kernels,
                              self._events)
        else:
            st = HostLevel(lev, self._images[lv], self.k, self.half, self._seconds)
        if lv < SPLIT_LEVELS or lv == 0:
            st.split_votes()
        self._images[lv] = None  # the level's state holds its picture from here on
        if starts is None:
            # The first fill peels the hole from its edge inwards, each pixel copying its best
            # match on what is known or filled around it: a sharp start, not a smooth guess.
            st.start(random_sources(lev, key))
            layers = onion_layers(lev)
            cands = [random_valid(lev, np.arange(len(pix) * ONION_CANDIDATES, dtype=np.uint32),
                                  (key * 4096 + i) & 0xFFFFFFFF).reshape(len(pix), ONION_CANDIDATES, 2)
                     for i, pix in enumerate(layers)]
            st.onion(layers, cands, (key * 4096) & 0xFFFFFFFF)
            self._expect_texture(st, lv)
        else:
            # The coarse matches, scaled up, rebuild this level's fill from its own pixels (so it
            # starts sharp); the coarse correction, scaled up, is where the correction starts.
            st.start(starts)
            st.lift(self._coarse[0])
            st.rescore()
            st.vote(lev.pixels, self.k, self._softness(), lv < SPLIT_LEVELS)
            self._expect_texture(st, lv)  # while the device votes
            st.compose()
            self._coarse = None
        st.rescore()
        self._state = st

    def _softness(self) -> int:
        return SOFTNESS * 3 * self.patch * self.patch

    def _round(self, lv: int, rnd: int, last: bool) -> None:
        st = self._state
        top = len(self._masks) - 1
        first = lv == top and rnd == 0
        for it in range(2 * PM_ITERATIONS if first else PM_ITERATIONS_LIFTED if self._short else PM_ITERATIONS):
            st.patchmatch(((self.seed * 64 + lv) * 16 + rnd) * 64 + it)
        st.vote(st.lev.pixels, self.k, self._softness(), lv < SPLIT_LEVELS or last, sources=last)
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
            self._ready = (lv - 1, self._setup(lv - 1))  # before the read-back waits for the device
            best = st.best_matches()
            oy, ox = lev.origin
            best_map = np.full(lev.tidx.shape + (2,), -1, np.int32)  # over the work area
            best_map[lev.targets[:, 0] - oy, lev.targets[:, 1] - ox] = best
            self._coarse = (st, best_map)

    def _collect_events(self) -> None:
        from ...cl.runtime import event_time

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
        """The image, the source map and the statistics (an :class:`inpaint.methods.base.InpaintResult`).

        The source map gives, for every hole pixel, the original pixel its best patch copies
        there (what the fill would be without blending); -1 elsewhere.
        """
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
