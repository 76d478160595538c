"""The fill methods, their options and defaults, stated once.

Imports nothing heavy, so the command line can build its parser from it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

#: ``'multiscale'``: coarse-to-fine PatchMatch with voting and a gradient-domain correction
#: (:mod:`inpaint.multiscale`); ``'criminisi'``: the paper's eight-stage greedy pipeline
#: (:class:`inpaint.pipeline.Inpainter`).
METHODS = ("multiscale", "criminisi")
DEFAULT_METHOD = "multiscale"

#: Where the Criminisi fill takes source patches from (see :class:`inpaint.pipeline.Inpainter`).
SOURCES = ("original", "filled")
#: Who drives the Criminisi iterations: the device-resident loop or the host (same result).
LOOPS = ("auto", "device", "host")

#: Options each method takes.
OPTIONS = {
    "multiscale": ("alpha", "patch", "candidates", "backend", "device", "profile", "seed", "timings"),
    "criminisi": ("alpha", "patch", "backend", "device", "profile", "partition", "variant", "prune", "source",
                  "loop", "timings"),
}

#: Defaults of the options that differ between methods (criminisi: the paper's settings).
DEFAULTS = {
    "multiscale": {"alpha": 1, "patch": 7, "candidates": 1},
    "criminisi": {"alpha": 0.05, "patch": 9},
}


class StepwiseJob:
    """What every fill method's job shares: ``run`` steps it to the end.  Subclasses provide
    ``step()`` (True while steps remain), ``stats`` (with ``iterations``) and ``result()``."""

    def run(self, callback: Callable[[Any], Any] | None = None) -> Any:
        """Step to the end, calling ``callback(self)`` after every step; return the result."""
        while self.step():
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
    backend: str = "numpy"
    device: str = "host (numpy)"
    patch: int = 0
    alpha: float | None = None
    search_area: tuple = (0, 0, 0, 0)
    widened: int = 0
    empty_mask: bool = False
    timed: bool = True
