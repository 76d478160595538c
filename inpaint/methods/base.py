"""What every fill method's job shares: the step-wise run, the statistics, the result."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import cancel
from ..errors import SourceMapError


class StepwiseJob:
    """What every fill method's job shares: ``run`` steps it to the end.  Subclasses provide
    ``step()`` (True while steps remain), ``stats`` (with ``iterations``) and ``result()``."""

    def run(self, callback: Callable[[Any], Any] | None = None) -> Any:
        """Step to the end, calling ``callback(self)`` after every step; return the result.

        Raises
        ------
        inpaint.cancel.Cancelled
            The job's token (``token``, :class:`inpaint.cancel.Token`) was cancelled, or a stop
            was requested (:func:`inpaint.cancel.request`) after the job was made; checked
            before every step, and inside the long ones.
        """
        with cancel.scope(getattr(self, "token", None)):
            cancel.check()
            while self.step():
                cancel.check()
                if callback is not None:
                    callback(self)
            if callback is not None and self.stats.iterations:
                callback(self)
            return self.result()


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

