"""What every fill method's job shares: the step-wise run, the statistics, the result."""

from __future__ import annotations

import dataclasses
import time
from collections import abc
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import cancel
from ..errors import InputError, SourceMapError
from .context import RunContext, run_context, split


class StepwiseJob:
    """What every fill method's job shares: ``step`` checks for a stop and runs the next step,
    ``run`` steps it to the end.  Subclasses provide ``_next()`` (the step itself: True while
    steps remain), ``done``, ``stats`` (with ``iterations``) and ``result()``."""

    #: Set where a stop came in the middle of a step: the step's work is half done and is not
    #: undone, so the job cannot go on.
    _cut_short = False

    def step(self) -> bool:
        """Run the next step.  Returns True while steps remain.

        A job stopped before a step may step on (with a token not cancelled); one stopped inside
        a step cannot: start the fill again.

        Raises
        ------
        inpaint.cancel.Cancelled
            The job's token (``token``, :class:`inpaint.cancel.Token`) was cancelled, or a stop
            was requested (:func:`inpaint.cancel.request`) after the job was made; checked
            before the step, and inside a long one.
        inpaint.errors.InputError
            The job was stopped inside a step before.
        """
        if self.done:
            return False
        with cancel.scope(getattr(self, "token", None)):
            cancel.check()
            return self._whole_next()

    def _whole_next(self) -> bool:
        """``_next()``, refused after a stop inside a step, and marking the job when one comes."""
        if self._cut_short:
            raise InputError("this fill was stopped in the middle of a step and cannot go on: start it again")
        try:
            return self._next()
        except cancel.Cancelled:
            self._cut_short = True
            raise

    def _next(self) -> bool:
        raise NotImplementedError

    def run(self, callback: Callable[[Any], Any] | None = None) -> Any:
        """Step to the end, calling ``callback(self)`` after every step; return the result.

        Raises
        ------
        inpaint.cancel.Cancelled
            As :meth:`step`: checked before every step, and inside the long ones.
        """
        with cancel.scope(getattr(self, "token", None)):
            cancel.check()
            while not self.done and self._whole_next():  # step() without entering the scope again
                cancel.check()
                if callback is not None:
                    callback(self)
            if callback is not None and self.stats.iterations:
                callback(self)
            return self.result()


def options_type(name: str, declared: abc.Sequence[Any]) -> type:
    """A family's typed options: a frozen dataclass with one field per declaration
    (:class:`inpaint.methods.options.Option`), defaulting to the declared default.

    Parameters
    ----------
    name : str
        The class name, e.g. ``'ToyOptions'``.
    declared : sequence of Option
        Kept as the class's ``declarations``, whose checks :class:`Job` runs on the values given.
    """
    made = dataclasses.make_dataclass(
        name, [(o.name, Any, dataclasses.field(default=o.default)) for o in declared], frozen=True)
    made.declarations = tuple(declared)
    return made


@dataclasses.dataclass
class FillStats:
    """What a fill did and where its time went; each method's statistics add their own fields.

    Attributes
    ----------
    method : str
        The fill method.
    iterations : int
        Steps run (patches copied, or rounds).
    stage_seconds : dict
        Time per stage or step: device execution time for OpenCL, wall time for numpy.
        Device times are measured only when the job was asked for them (``timings=True``);
        ``timed`` says whether they were.
    transfer_seconds : float
        Host<->device copies and waits.
    total_seconds : float
        Wall time of the whole run.
    build_seconds : float
        Time spent building (or loading from the driver's cache) the OpenCL program.
    context_seconds : float
        Time spent getting the OpenCL runtime: choosing the device and creating its context
        and queue (close to 0 when an earlier fill in this thread already made it).
    backend : str
        ``'opencl'``, ``'numpy'`` or (Criminisi with a partition) ``'mixed'``.
    device : str
        Device name (``'host (numpy)'`` for numpy).
    patch : int
        Patch side.
    alpha : float or None
        Search factor of Eq. 6 (None: the whole image).
    search_area : tuple
        The area searched, ``(x0, y0, x1, y1)``.
    widened : int
        Times a search area that held too few sources was widened.
    empty_mask : bool
        The mask selected nothing; the image was returned unchanged.
    timed : bool
        Whether the device stages' times were measured (always True for numpy).
    """

    method: str = ""
    iterations: int = 0
    stage_seconds: dict = dataclasses.field(default_factory=dict)
    transfer_seconds: float = 0.0
    total_seconds: float = 0.0
    build_seconds: float = 0.0
    context_seconds: float = 0.0
    backend: str = "numpy"
    device: str = "host (numpy)"
    patch: int = 0
    alpha: float | None = None
    search_area: tuple = (0, 0, 0, 0)
    widened: int = 0
    empty_mask: bool = False
    timed: bool = True


class InpaintResult:
    """The filled image and the run's statistics.

    Attributes
    ----------
    image : ndarray, (H, W, 3) uint8
        The result.
    source_map : ndarray, (H, W, 2) int32
        For every filled pixel, the (row, col) of the original source pixel it copies;
        -1 for pixels that were never unknown.  Built on first use: a phone photo's map takes
        96 MB, and writing an 8-bit RGB result does not need it.
    stats : FillStats
        The method's statistics (e.g. :class:`inpaint.methods.criminisi.job.InpaintStats`).

    Parameters
    ----------
    image, source_map, stats
        The attributes; ``source_map`` may be a function that builds the map.
    mask : ndarray, (H, W) bool, optional
        The pixels the finished fill filled: the map must give each of them a source, checked
        when the map is built (None: a fill stopped early, whose map covers what it filled).

    Raises
    ------
    inpaint.errors.SourceMapError
        From :attr:`source_map`: a pixel of ``mask`` has no source.
    """

    def __init__(self, image: np.ndarray, source_map: np.ndarray | Callable[[], np.ndarray], stats: Any,
                 mask: np.ndarray | None = None):
        self.image = image
        self.stats = stats
        self._source_map = source_map
        self._mask = mask

    @property
    def source_map(self) -> np.ndarray:
        """The source map, built on first use (see the class docstring)."""
        if callable(self._source_map):
            self._source_map = self._source_map()
        if self._mask is not None:
            missing = int(np.count_nonzero(self._source_map[self._mask][:, 0] < 0))
            if missing:
                method = getattr(self.stats, "method", "") or "the"
                raise SourceMapError(f"the {method} fill left {missing} of its {int(self._mask.sum())} filled pixels "
                                     "without a source in its source map")
            self._mask = None  # checked
        return self._source_map


class Job(StepwiseJob):
    """A family's job on the shared rules: what a family's job owns is its plan and its steps.

    Made with the image, the mask, the family's option values and the run's context (a
    :class:`~inpaint.methods.context.RunContext`, or its fields as keywords: ``backend``, ``device``,
    ``profile``, ``engine``, ``timings``, ``protect``), it checks the arrays (and ``protect``),
    checks each value by its declaration into :attr:`options` (an instance of the family's
    :attr:`Options`), resolves the engine, and applies the rules every fill shares: an
    empty mask leaves the image as it is (``stats.empty_mask``, no step), a mask over the whole
    image is an :class:`~inpaint.errors.InputError`.  Otherwise :meth:`prepare` (the family's)
    checks for sources, opens its device backend (:meth:`open_device`) and returns the plan: one
    weight per step, in the units progress is measured in.  :meth:`step` runs :meth:`run_step`
    with the step's index and books the time, the weight and the iteration; :meth:`result`
    assembles the image and the source map, whose coverage of the mask is checked when a
    finished fill's map is built.

    Subclasses set :attr:`Options` and :attr:`Stats`, and provide :meth:`prepare`,
    :meth:`run_step`, :meth:`current` (the image so far) and :meth:`source_map`; optionally
    :meth:`check` (checks that need the image, run before the engine is resolved),
    :meth:`step_name` (the timing row a host step is booked under) and :meth:`result_image`.
    A family whose steps are not known in advance (Criminisi's patches) keeps its own
    :meth:`step`, :attr:`done` and :attr:`progress`.

    Attributes
    ----------
    options : Options
        The checked option values.
    context : RunContext
        Where and how the fill runs.
    rgb : ndarray, (H, W, 3) uint8
        The image as given (never written).
    mask : ndarray, (H, W) bool
        The hole (a copy).
    protect : ndarray, (H, W) bool or None
        The pixels no source may cover (None: none).
    engine : inpaint.cl.engine.Engine
    stats : FillStats
        The family's statistics (:attr:`Stats`).
    """

    #: The family's typed options (made by :func:`options_type`) and statistics (a :class:`FillStats`).
    Options: type
    Stats: type = FillStats
    #: Whether the family's steps queue their device work without waiting for it, the device a
    #: step behind: :attr:`progress` then counts the step just queued once the next one is.
    QUEUES_AHEAD = False

    def __init__(self, image: np.ndarray, mask: np.ndarray, *, context: RunContext | None = None, **values: Any):
        from .checks import check_arrays, check_protect

        t0 = time.perf_counter()
        run, values = split(values)
        self.context = run_context(context, **run)
        rgb, mask = check_arrays(image, mask)
        checks = {o.name: o.check for o in self.Options.declarations}
        unknown = sorted(set(values) - set(checks))
        if unknown:
            raise InputError(f"the {self.Stats.method} method does not take {', '.join(unknown)}")
        self.options = self.Options(**{k: checks[k](v) for k, v in values.items()})
        self.rgb, self.mask = np.ascontiguousarray(rgb), mask.copy()
        self.protect = check_protect(self.context.protect, mask.shape)
        self.stats = self.Stats()
        self.check()
        self.engine = self.context.resolve()
        self.runtime: Any = None  # the OpenCL runtime :meth:`open_device` opened
        self.events: list[tuple[str, Any]] = []  # (step, OpenCL event) to book once they finish
        self._plan: list[float] = []
        self._pos, self._done_weight = 0, 0.0
        if not mask.any():
            self.stats.empty_mask = True
        elif mask.all():
            raise InputError("the mask covers the whole image: there is nothing to copy from")
        else:
            self._plan = [float(w) for w in self.prepare()]
        self._elapsed = time.perf_counter() - t0

    # -- what a family provides -----------------------------------------------------------
    def check(self) -> None:
        """Check what depends on the image (a patch that must fit in it...), before any work."""

    def prepare(self) -> abc.Sequence[float]:
        """Check for sources, set up the backends, and return the plan: each step's weight."""
        raise NotImplementedError

    def run_step(self, index: int) -> None:
        """Run step ``index`` of the plan."""
        raise NotImplementedError

    def step_name(self, index: int) -> str | None:
        """The row of the timing table that step ``index``'s wall time is booked under (a host
        step's), or None: the family books its own times."""
        return None

    def current(self) -> np.ndarray:
        """The image so far, (H, W, 3) uint8 (a new array)."""
        raise NotImplementedError

    def source_map(self) -> Callable[[], np.ndarray]:
        """A function that builds the source map of what is filled so far (see :class:`InpaintResult`),
        holding what it needs and not the job (a result outlives its job's buffers)."""
        raise NotImplementedError

    def result_image(self) -> np.ndarray:
        """The image :meth:`result` hands over: :meth:`current`, unless the family can hand over
        its finished image without a copy."""
        return self.current()

    # -- what every job shares ------------------------------------------------------------
    def no_sources(self, patch: int) -> InputError:
        """The error of a hole that leaves no ``patch`` x ``patch`` source window."""
        return InputError(
            f"no valid source patch: no {patch}x{patch} window of the image is free of "
            + ("the mask and the protected pixels; protect less, or use a smaller patch or mask"
               if self.protect is not None else "the mask; use a smaller patch or a smaller mask"))

    def open_device(self, prepare: Callable[[Any], Any], largest: int = 0) -> tuple[Any, Any]:
        """``(runtime, prepare(runtime))`` on the engine's OpenCL device, or ``(None, None)`` on numpy;
        books the build and context times, the backend and device in :attr:`stats`.  ``largest``:
        the bytes of the job's largest device buffer, checked against the device's before any
        work (:meth:`inpaint.cl.engine.Engine.open`)."""
        def timed(rt: Any) -> tuple[Any, float]:
            before = rt.build_seconds
            made = prepare(rt)
            return made, rt.build_seconds - before

        t = time.perf_counter()
        rt, got = self.engine.open(profiling=self.context.timings, prepare=timed,
                                   largest=largest)
        made = None
        self.runtime = rt
        if rt is not None:
            made, self.stats.build_seconds = got
            self.stats.backend, self.stats.device = "opencl", rt.name
        self.stats.context_seconds = time.perf_counter() - t - self.stats.build_seconds
        self.stats.timed = rt is None or rt.profiling
        return rt, made

    def book_events(self, seconds: dict[str, float], queue: Any = None) -> None:
        """Add the finished time of every event in :attr:`events` to ``seconds`` by step (after
        ``queue.finish()``, when given), and forget them."""
        from ..cl.runtime import event_time

        if self.events and self.stats.timed:
            if queue is not None:
                queue.finish()
            for step, ev in self.events:
                seconds[step] += event_time(ev)
        self.events.clear()

    @property
    def done(self) -> bool:
        """True once every step of the plan has run."""
        return self._pos >= len(self._plan)

    @property
    def progress(self) -> float:
        """Fraction of the plan's weight done, in [0, 1]."""
        total = sum(self._plan)
        if self.done or not total:
            return 1.0
        queued = self._plan[self._pos - 1] if self.QUEUES_AHEAD and self.runtime is not None and self._pos else 0.0
        return (self._done_weight - queued) / total

    @property
    def iterations(self) -> int:
        """Steps run so far."""
        return self.stats.iterations

    @property
    def image(self) -> np.ndarray:
        """The current image, (H, W, 3) uint8 (a copy)."""
        return self.rgb.copy() if self.stats.empty_mask else self.current()

    def _next(self) -> bool:
        """Run the plan's next step.  Returns True while steps remain."""
        t0 = time.perf_counter()
        self.run_step(self._pos)
        spent = time.perf_counter() - t0
        name = self.step_name(self._pos)
        if name is not None:
            self.stats.stage_seconds[name] = self.stats.stage_seconds.get(name, 0.0) + spent
        self._done_weight += self._plan[self._pos]
        self._pos += 1
        self.stats.iterations += 1
        self._elapsed += spent
        return not self.done

    def result(self) -> InpaintResult:
        """The image, the source map and the statistics; a finished fill's map must give every
        pixel of the mask its source (:class:`InpaintResult`)."""
        self.stats.total_seconds = self._elapsed
        if self.stats.empty_mask:
            shape = self.mask.shape + (2,)
            return InpaintResult(self.rgb.copy(), lambda: np.full(shape, -1, np.int32), self.stats)
        return InpaintResult(self.result_image(), self.source_map(), self.stats,
                             mask=self.mask.copy() if self.done else None)


class Sequence(StepwiseJob):
    """Jobs run one after another as one job: each fills its own part of the hole, on the runtime
    the first one opened; ``stats``, ``progress``, ``image`` and ``result`` are those of one run.

    Parameters
    ----------
    image : ndarray, (H, W, 3) uint8
    masks : list of ndarray, (H, W) bool
        The parts, filled in this order (one part: the sequence is that part's job).
    make : callable
        ``make(index, engine)``: the job of part ``index`` on ``engine`` (None for the first:
        its options' own).  The first is made at once, so its checks come first.
    started : float, optional
        The :func:`time.perf_counter` at which the caller began (its own work is booked too).
    """

    def __init__(self, image: np.ndarray, masks: list[np.ndarray], make: Callable[[int, Any], Job],
                 started: float | None = None):
        t0 = time.perf_counter() if started is None else started
        self._masks, self._make = masks, make
        self._index = 0
        self._part: Job | None = make(0, None)
        self.first = self._part
        rt = self._part.runtime
        self._engine = self._part.engine if rt is None else self._part.engine.with_runtime(rt)
        self._weights = [int(m.sum()) for m in masks]
        self._filled: list[Any] = []  # the statistics of the parts filled
        self._maps: list[tuple[np.ndarray, Callable[[], np.ndarray]]] = []  # their masks and source maps
        self._out = np.array(image) if len(masks) > 1 else None  # the finished parts' fills
        self._extra = time.perf_counter() - t0 - self._part._elapsed  # seconds of the sequence's own
        self.stats = self.merge()

    def merge(self) -> Any:
        """The statistics of the parts filled so far and of the current one, as one run's."""
        parts = self._filled + ([self._part.stats] if self._part is not None else [])
        if len(self._masks) == 1:
            return parts[0]
        st = dataclasses.replace(parts[0])  # the first part's: families fill the largest first
        st.iterations = sum(p.iterations for p in parts)
        st.widened = sum(p.widened for p in parts)
        st.stage_seconds = {s: sum(p.stage_seconds.get(s, 0.0) for p in parts) for s in parts[0].stage_seconds}
        for field in ("transfer_seconds", "build_seconds", "context_seconds"):
            setattr(st, field, sum(getattr(p, field) for p in parts))
        st.total_seconds = self._extra + sum(p.total_seconds for p in parts)
        st.timed = all(p.timed for p in parts)
        return st

    @property
    def done(self) -> bool:
        """True once every part is filled."""
        if len(self._masks) == 1:
            return self._part.done
        return self._part is None  # the next part's job is made as soon as one ends

    @property
    def progress(self) -> float:
        """Fraction of the work done, in [0, 1], each part weighed by its pixels."""
        if self.done:
            return 1.0
        total = sum(self._weights)
        done = sum(self._weights[:self._index])
        if self._part is not None:
            done += self._part.progress * self._weights[self._index]
        return done / total if total else 0.0

    @property
    def iterations(self) -> int:
        """Steps run so far, over every part."""
        return self.stats.iterations

    @property
    def image(self) -> np.ndarray:
        """The current image, (H, W, 3) uint8: the parts filled so far, and the current part's fill."""
        if len(self._masks) == 1:
            return self._part.image
        out = self._out.copy()
        if self._part is not None:
            g = self._masks[self._index]
            out[g] = self._part.image[g]
        return out

    def _next(self) -> bool:
        """Run one step of the current part.  Returns True while steps remain."""
        if len(self._masks) == 1:
            more = self._part.step()
            self.stats = self._part.stats
            return more
        if self._part is None:
            return False
        if not self._part.step():  # the part's own time is its statistics'
            t = time.perf_counter()
            # keep the part's fill, source map and statistics, and let its buffers go
            res = self._part.result()
            self._filled.append(res.stats)
            g = self._masks[self._index]
            self._out[g] = res.image[g]
            self._maps.append((g, res._source_map))
            self._part = None
            self._index += 1
            self._extra += time.perf_counter() - t
            if self._index < len(self._masks):
                self._part = self._make(self._index, self._engine)
        self.stats = self.merge()
        return not self.done

    def result(self) -> InpaintResult:
        """The image, the source map and the statistics of the whole run."""
        if len(self._masks) == 1:
            return self._part.result()
        self.stats = self.merge()
        found = list(self._maps) if self.done else []
        shape = self._out.shape[:2] + (2,)

        def source_map() -> np.ndarray:
            src = np.full(shape, -1, np.int32)
            for g, build in found:
                src[g] = build()[g]
            return src

        whole = np.logical_or.reduce(self._masks) if self.done else None
        return InpaintResult(image=self._out if self.done else self.image, source_map=source_map, stats=self.stats,
                             mask=whole)
