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
     which carries the surrounding tones in and hides seams;
   - with ``vote='gradients'``, at the coarser levels, a **gradient-domain vote**
     (:mod:`inpaint.methods.multiscale.gradients`): the covering patches vote gradients too, and
     the corrected fill is solved again from both (after Darabi et al., *Image Melding*).

3. **Next level**: the matches, scaled up, rebuild the finer level's fill from its own pixels
   (not from the coarse pixels, which would hand it a blurred picture).
4. **Final vote**: the last round's vote at the photo's own size is split like its other rounds:
   the tones below a 7x7 box are averaged over the covering copies and the finer detail is the
   best-matching copy's, so texture stays as sharp as its source while blurred backgrounds stay
   smooth, with no hard-edged pieces where neighbouring copies' tones differ.

After Wexler, Shechtman and Irani (completion by voting), Barnes et al. (PatchMatch), Newson,
Almansa, Gousseau and Pérez (texture features, best-patch reconstruction, onion-peel start)
and Pérez et al. (Poisson blending).  All arithmetic is integer, so the OpenCL kernels
(``kernels/multiscale/``) and the numpy reference agree bit for bit; pixels outside the hole
are never written.

:class:`MultiscaleInpainter` runs it step-wise (one step per round) for the app;
:func:`inpaint.api.inpaint` with ``method="multiscale"`` runs it to the end.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from ... import geometry
from ...pixels import to_rgba
from ..base import FillStats, InpaintResult, Job, Sequence
from ..checks import check_arrays, parse_patch, search_factor
from ..context import RunContext, run_context, split
from . import gradients, reference as ref
from .host import HostLevel
from .levels import (
    Ahead,
    free_count,
    hole_groups,
    image_pyramid,
    mask_pyramid,
    onion_layers,
    protect_pyramid,
    pyramid_boxes,
)
from .lines import Continued, before_fill, naming_band_sources
from .options import BY_NAME as OPTIONS, DEFAULT_CANDIDATES, TRANSFORM_CHOICES, Options, fitting_gradients
from .steps import STEPS, round_weights

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
#: The finest level at which the gradient term (the ``gradients`` option's weight) weighs the
#: patches' gradients, and every coarser one (0: every level).
GRADIENTS_FROM = 0
#: Whether the hole at the photo's own level expects the texture of its surroundings
#: (:func:`inpaint.methods.multiscale.reference.texture_prior`) instead of that of its sources.
EXPECTED_TEXTURE = True


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
    lines : int
        Straight lines continued across the hole first (:mod:`inpaint.methods.multiscale.lines`).
    """

    method: str = "multiscale"
    stage_seconds: dict = dataclasses.field(default_factory=lambda: {s: 0.0 for s in STEPS})
    patch: int = DEFAULT_PATCH
    levels: list = dataclasses.field(default_factory=list)
    candidates: int = DEFAULT_CANDIDATES
    groups: int = 1
    lines: int = 0


class MultiscaleInpainter(Sequence):
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
    alpha, patch, candidates, vote, match_gradients, adapt, straight_lines, transforms, seed
        The fill's options, each declared once with its meaning, range and default in
        :mod:`inpaint.methods.multiscale.options` (``inpaint --help`` shows them).
    context : inpaint.methods.context.RunContext, optional
        Where and how it runs, or its fields as keywords (``**run``), as for
        :class:`inpaint.methods.criminisi.job.Inpainter`.  ``protect``: pixels the fill must not
        copy from (a sampling exclusion, like "sample from" in an editor): no source patch, at any
        level, covers one.  They stay as they are unless the mask also covers them.

    Raises
    ------
    InputError
        Bad parameters, or no source patch anywhere in the image.
    inpaint.cl.runtime.OpenCLUnavailable
        ``backend='opencl'`` and no device exists.
    """

    def __init__(self, image: np.ndarray, mask: np.ndarray, *, alpha: Any = OPTIONS["alpha"].default,
                 patch: int = DEFAULT_PATCH, candidates: int = DEFAULT_CANDIDATES, vote: str = OPTIONS["vote"].default,
                 match_gradients: int = OPTIONS["match_gradients"].default, adapt: str = OPTIONS["adapt"].default,
                 straight_lines: str = OPTIONS["straight_lines"].default,
                 transforms: str = OPTIONS["transforms"].default, seed: int = 0,
                 context: RunContext | None = None, **run: Any):
        t0 = time.perf_counter()
        run, other = split(run)  # (another keyword: the first group's job refuses it)
        context = run_context(context, **run)
        rgb, mask = check_arrays(image, mask)
        engine = context.resolve()  # the profile is checked whatever the backend, before any work
        values = dict(alpha=alpha, patch=patch, candidates=candidates, vote=vote, match_gradients=match_gradients,
                      adapt=adapt, straight_lines=straight_lines, transforms=transforms, seed=seed, **other)
        self._lines: Continued | None = None
        self._hole = mask
        if OPTIONS["straight_lines"].check(straight_lines) == "on" and mask.any() and not mask.all():
            side = parse_patch(patch, *mask.shape, MAX_PATCH)  # the fill's own check, before the work
            (rgb, mask, context), self._lines = before_fill(rgb, mask, side, context)
        self._groups = hole_groups(mask) if mask.any() else [mask]
        whole = mask.copy() if len(self._groups) > 1 else None  # the later groups read it: the caller's may change

        def make(index: int, on: Any) -> _Fill:  # the first group checks every value, and the whole hole's sources
            return _Fill(rgb, self._groups[index] if whole is not None else mask, whole=whole,
                         context=context.on(engine if on is None else on), **values)

        super().__init__(rgb, self._groups, make, started=t0)
        self.patch, self.half, self.alpha = self.first.patch, self.first.half, self.first.alpha
        if self._lines is not None:
            self.first.stats.lines = self._lines.lines
            self.stats = self.merge()

    def merge(self) -> MultiscaleStats:
        """The statistics of one run, with the number of groups."""
        st = super().merge()
        return dataclasses.replace(st, groups=len(self._groups)) if len(self._groups) > 1 else st

    def result(self) -> InpaintResult:
        """The image, the source map and the statistics of the whole run; the map names the
        continued lines' sources too."""
        res = super().result()
        return res if self._lines is None else naming_band_sources(res, self._lines, self._hole, self.done)


class _Fill(Job):
    """The fill of one group of the hole's parts (all of them, mostly): :class:`MultiscaleInpainter`'s
    work, which takes the same parameters and, with ``whole``, the whole hole, whose other parts are
    protected and, like the group, unknown to the texture features."""

    Options = Options
    Stats = MultiscaleStats
    QUEUES_AHEAD = True  # (the host paces itself a round ahead of the device: DeviceLevel.pace)

    def __init__(self, image: np.ndarray, mask: np.ndarray, *, whole: np.ndarray | None = None, **values: Any):
        self._given_whole = whole
        super().__init__(image, mask, **values)

    def check(self) -> None:
        """The patch against the image, the values the steps read, and the state every path reads."""
        h, w = self.mask.shape
        self.patch = parse_patch(self.options.patch, h, w, MAX_PATCH)
        self.half = self.patch // 2
        self.softness = SOFTNESS * 3 * self.patch * self.patch  # the votes' softness over a patch
        self.alpha = search_factor(self.options.alpha)
        self.k, self.seed = self.options.candidates, self.options.seed
        self.gradient_vote, self.adapt = self.options.vote == "gradients", self.options.adapt == "on"
        self.gradients = fitting_gradients(self.options.match_gradients, self.patch, MEAN_WEIGHT, NEAR_WEIGHT * (h + w))
        self.transforms = TRANSFORM_CHOICES.index(self.options.transforms)  # a key of ref.XFORM_CODES
        self.whole = self.mask if self._given_whole is None else self._given_whole  # unknown to the features
        self.stats.patch, self.stats.candidates, self.stats.alpha = self.patch, self.k, self.alpha
        self._seconds = dict.fromkeys((*STEPS, "transfers"), 0.0)
        self._rt, self._state = None, None
        self._ahead: Ahead | None = None  # the host's work that the masks decide, beside the launches
        self._coarse: Any = None  # the coarser level's state
        self._sources: tuple[np.ndarray, np.ndarray] | None = None  # the final sources and hole pixels
        self._result_image: np.ndarray | None = None

    def prepare(self) -> list[int]:
        """Check the sources, open the device, build the pyramids; the plan is one step a round,
        weighed by its cost (:func:`~inpaint.methods.multiscale.steps.round_weights`)."""
        avoid = self.protect
        if self._given_whole is not None:  # the hole's other parts: no source covers them
            others = self.whole & ~self.mask
            avoid = others if avoid is None else avoid | others
        # (free of this group's pixels and of the others' is free of the whole hole's)
        box = geometry.bbox(self.mask)
        if not free_count(self.mask, self.half, box, avoid):
            raise self.no_sources(self.patch)
        if not self.engine.numpy:
            from . import opencl as mcl

            self._rt, self._kernels = self.open_device(lambda rt: mcl.kernels(rt, self.half, self.k, self.adapt,
                                                                                   self.transforms),
                                                        largest=self._largest_buffer(box))
        self._masks = masks = mask_pyramid(self.mask, self.patch, avoid, box)
        self._protects = protect_pyramid(avoid, len(masks))
        self._boxes = pyramid_boxes(self.mask, len(masks), box)
        self.stats.levels = [(m.shape[1], m.shape[0]) for m in masks]
        # while this thread builds the pyramid and queues the launches (a device makes the texture itself)
        self._ahead = Ahead(self.rgb, self.whole, masks, self._protects, self._boxes, self.half, self.alpha,
                            EXPECTED_TEXTURE and self._rt is None)
        t = time.perf_counter()
        if self._rt is not None:
            self._images = mcl.device_pyramid(self._rt, self._kernels, self.rgb, self.whole,
                                              [m.shape for m in masks], self._seconds, self.events)
        else:
            rgba = to_rgba(self.rgb, ref.texture_features(self.rgb, self.whole))
            self._images = image_pyramid(rgba, len(masks))
            self._seconds["levels"] += time.perf_counter() - t
        top = len(masks) - 1
        self._rounds = [(lv, r) for lv in range(top, -1, -1)
                        for r in range(ROUNDS_COARSEST if lv == top else ROUNDS_FINEST if lv == 0 else ROUNDS)]
        # once a level, over the hole's box: a 12 MP mask's sum costs milliseconds
        counts = [int(m[y0:y1, x0:x1].sum()) for m, (x0, y0, x1, y1) in zip(masks, self._boxes)]
        return round_weights(self._rounds, counts, self._rt is not None)

    def _largest_buffer(self, box: geometry.Rect) -> int:
        """The most bytes of one device buffer: a word per pixel of the picture, or, over the finest
        work area (around ``box``), an int4 per pixel or the candidates' matches (two ints each)."""
        h, w = self.mask.shape
        x0, y0, x1, y1 = geometry.grow(box, self.half + 1, w, h)
        area = (x1 - x0) * (y1 - y0)
        return max(h * w * 4, area * 16, area * self.k * 8)

    # -- the algorithm --------------------------------------------------------------------
    def _expect_texture(self, st: Any, lv: int) -> None:
        """At the photo's own level, hand ``st`` the texture its hole expects, once the level's first
        device work is queued."""
        if lv == 0 and EXPECTED_TEXTURE:
            if self._rt is not None:
                st.expect_texture(self.rgb.shape[1], self.half)
            else:
                st.expect_prior(self._ahead.prior())

    def _enter(self, lv: int) -> None:
        """Set up level ``lv``: sources, start matches and a first fill."""
        lev = self._ahead.level(lv)
        key = self.seed * 1000 + lv
        # At the photo itself, a short search around the coarser level's matches, taken where it placed
        # every start (a random one, where the scaled-up match is no source here, needs the whole area).
        short = (min(lev.radius, RADIUS_FINEST), JUMP_FINEST) if lv == 0 and self._coarse is not None else (0, 0)
        lev = dataclasses.replace(lev, short=short, mean=MEAN_WEIGHT if lv >= MEAN_FROM else 0,
                                  near=NEAR_WEIGHT if lv >= NEAR_FROM else 0,
                                  grad=self.gradients if lv >= GRADIENTS_FROM else 0)
        self.stats.widened += lev.widened > 0
        if lv == 0:
            self.stats.search_area = lev.area
        if self._rt is not None:
            from .opencl import DeviceLevel

            st = DeviceLevel(lev, self._images[lv], self.k, self.half, self._seconds, self._rt, self._kernels,
                              self.events)
        else:
            st = HostLevel(lev, self._images[lv], self.k, self.half, self._seconds, self.adapt, self.transforms)
        if lv < SPLIT_LEVELS or lv == 0:
            st.split_votes()
        self._images[lv] = None  # the level's state holds its picture from here on
        if self._coarse is None:
            # The first fill peels the hole from its edge inwards, each pixel copying its best
            # match on what is known or filled around it: a sharp start, not a smooth guess.
            st.start(key)  # random sources
            st.onion(onion_layers(lev), ONION_CANDIDATES, key * 4096)
            self._expect_texture(st, lv)
        else:
            # The coarse matches, scaled up, rebuild this level's fill from its own pixels (so it
            # starts sharp); the coarse correction, scaled up, is where the correction starts.
            st.lift(self._coarse, key)
            st.rescore()
            st.vote(lev.pixels, self.k, self.softness, lv < SPLIT_LEVELS)
            self._expect_texture(st, lv)  # while the device votes
            st.compose()
            self._coarse = None
        st.rescore()
        self._state = st

    def _round(self, lv: int, rnd: int, last: bool) -> None:
        st = self._state
        top = len(self._masks) - 1
        first = lv == top and rnd == 0
        st.pace()
        for it in range(2 * PM_ITERATIONS if first else PM_ITERATIONS):  # the short search skips some
            st.patchmatch(((self.seed * 64 + lv) * 16 + rnd) * 64 + it, skip=it >= PM_ITERATIONS_LIFTED)
        split = lv < SPLIT_LEVELS or last
        st.vote(st.lev.pixels, self.k, self.softness, split, sources=last)
        sweeps = SWEEPS_FIRST if first else SWEEPS_FINEST if lv == 0 else SWEEPS
        if self.gradient_vote and lv >= gradients.GRADIENT_FROM:  # the fill solved from the voted colours and gradients
            replaces = gradients.GRADIENT_REPLACES
            st.correct_gradients(0 if replaces else sweeps, sweeps if replaces else gradients.GRADIENT_SWEEPS, self.k,
                                 self.softness, split, anchor=not replaces)
        else:
            st.correct(sweeps)
        if not last:
            st.rescore()

    def _leave(self, lv: int) -> None:
        st = self._state
        lev = st.lev
        if lv == 0:
            # Outside the hole the estimate is the picture: read back and set the hole alone.
            image = self._ahead.base()
            image[lev.hole[:, 0], lev.hole[:, 1]] = st.values(lev.hole)
            self._result_image = image
            self._sources = (st.sources(), lev.hole)
            self._state = None  # its device buffers go back to the pool now, not when the job is collected
        else:
            self._coarse = st  # its matches start the next level

    def run_step(self, index: int) -> None:
        """Run one round (entering its level first, leaving it after its last)."""
        lv, rnd = self._rounds[index]
        if rnd == 0:
            self._enter(lv)
            self._level = lv
        self._round(lv, rnd, index == len(self._rounds) - 1)
        self._ahead.advance(lv)  # (a small photo's set-up, on this thread, while the device runs the round)
        if index + 1 == len(self._rounds) or self._rounds[index + 1][0] != lv:
            self._leave(lv)  # the device times are booked with the result: waiting here would idle the device

    def current(self) -> np.ndarray:
        """The current image: during the run, the current level's fill scaled up into the hole."""
        if self._result_image is not None:
            return self._result_image.copy()
        out = self.rgb.copy()
        if self._state is not None:  # each hole pixel from the level's pixel that covers it
            ys, xs = np.nonzero(self.mask)
            out[ys, xs] = self._state.image()[ys >> self._level, xs >> self._level]
        return out

    def result_image(self) -> np.ndarray:
        # handed over without a copy (a phone photo's costs tens of ms); ``job.image`` still copies
        return self._result_image if self._result_image is not None else self.current()

    def source_map(self) -> Any:
        """For every hole pixel, the original pixel its best patch copies there (what the fill would
        be without blending); -1 elsewhere."""
        shape, found = self.mask.shape + (2,), self._sources if self.done else None

        def build() -> np.ndarray:
            src = np.full(shape, -1, np.int32)
            if found is not None:
                sources, hole = found
                src[hole[:, 0], hole[:, 1]] = sources
            return src

        return build

    def result(self) -> Any:
        """The image, the source map and the statistics (an :class:`inpaint.methods.base.InpaintResult`)."""
        self.book_events(self._seconds, self._rt.queue if self._rt is not None else None)
        self.stats.stage_seconds = {s: self._seconds[s] for s in STEPS}
        self.stats.transfer_seconds = self._seconds["transfers"]
        return super().result()
