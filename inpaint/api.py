"""The library's entry point: fill a masked object with one of the fill methods.

:func:`inpaint` runs a fill to the end; :func:`start` returns the step-wise job the app drives.
Both dispatch on ``method`` through the registry of method objects
(:data:`inpaint.methods.registry.METHODS`), which states each method's options and defaults.

Examples
--------
>>> import numpy as np
>>> from inpaint.api import inpaint
>>> img = np.random.default_rng(0).integers(0, 255, (24, 24, 3), dtype=np.uint8)
>>> mask = np.zeros((24, 24), bool); mask[8:14, 9:15] = True
>>> res = inpaint(img, mask, method="criminisi", patch=5, alpha="full", backend="numpy")
>>> bool((res.image[~mask] == img[~mask]).all()), res.stats.iterations > 0
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import cancel
from .errors import InputError
from .methods import registry
from .methods.base import FillStats, InpaintResult, StepwiseJob
from .methods.context import RunContext, run_context
from .methods.criminisi.job import Inpainter, InpaintStats
from .methods.defaults import DEFAULT_METHOD
from .methods.multiscale.job import MultiscaleInpainter, MultiscaleStats
from .methods.registry import DEFAULTS, METHOD_NAMES as METHODS, OPTIONS

__all__ = ["DEFAULT_METHOD", "DEFAULTS", "JOBS", "METHODS", "OPTIONS", "FillStats", "InpaintResult", "InpaintStats",
           "Inpainter", "MultiscaleInpainter", "MultiscaleStats", "RunContext", "StepwiseJob", "inpaint",
           "start"]

#: The job class of each method of :data:`inpaint.methods.registry.METHODS`.
JOBS: dict[str, type] = {name: m.job for name, m in registry.METHODS.items()}


#: Memory a fill needs per image pixel beyond the image itself, and per pixel of the hole more (by
#: backend).  Measured on a 12 MP photo (a command's peak): with PoCL 583, 639 and 913 MB for holes
#: of 0.1, 3 and 15 %, about 36 B a pixel and 160-180 B a hole pixel beside the interpreter's own
#: 150 MB; on numpy 1013 MB for the 3 % hole, about 1.2 KB a hole pixel.
FILL_BYTES_PER_PIXEL = 48
FILL_BYTES_PER_HOLE_PIXEL = {"opencl": 400, "numpy": 1500}


def fill_memory(pixels: int, hole: int, backend: str) -> int:
    """Bytes a fill of ``hole`` pixels in an image of ``pixels`` needs on ``backend`` (its rough
    upper bound: :data:`FILL_BYTES_PER_PIXEL`, :data:`FILL_BYTES_PER_HOLE_PIXEL`)."""
    per_hole = FILL_BYTES_PER_HOLE_PIXEL.get(backend, FILL_BYTES_PER_HOLE_PIXEL["opencl"])
    return int(pixels) * FILL_BYTES_PER_PIXEL + int(hole) * per_hole


def _check_memory(mask: Any, backend: str) -> None:
    """Refuse, before any work, a fill the memory available cannot hold (the job checks the arrays
    themselves)."""
    if not isinstance(mask, np.ndarray) or mask.ndim != 2 or mask.size < 1 << 20:  # (small: no need)
        return
    from .io.memory import check_memory

    hole = int(np.count_nonzero(mask))
    check_memory(fill_memory(mask.size, hole, backend),
                 f"filling {hole} pixels of a {mask.shape[1]}x{mask.shape[0]} image")


def start(image: np.ndarray, mask: np.ndarray, *, method: str = DEFAULT_METHOD, token: cancel.Token | None = None,
          backend: str = "auto", device: Any = None, profile: Any = None, engine: Any = None, timings: bool = False,
          protect: np.ndarray | None = None, context: RunContext | None = None, **options: Any) -> StepwiseJob:
    """A step-wise fill job: ``job.step()`` until ``job.done``, then ``job.result()``.

    Parameters
    ----------
    image : ndarray, (H, W, 3) uint8
    mask : ndarray, (H, W) bool
        True on the object to remove.
    method : {'multiscale', 'criminisi'}
        ``'multiscale'`` (default): coarse-to-fine PatchMatch in which the best-matching patches
        give each pixel its texture, with a gradient-domain correction
        (:class:`~inpaint.methods.multiscale.job.MultiscaleInpainter`).  ``'criminisi'``: the
        paper's eight-stage greedy pipeline (:class:`~inpaint.methods.criminisi.job.Inpainter`).
    token : inpaint.cancel.Token, optional
        The job's stop (:meth:`inpaint.cancel.Token.cancel`); default: the enclosing
        :func:`inpaint.cancel.scope`'s (a command's run, the app's job), else a new one, which
        any :func:`inpaint.cancel.request` from now on cancels.
    backend : {'auto', 'opencl', 'numpy'}
        ``'auto'`` (default) uses OpenCL when a device exists, else numpy with one warning.
    device : str or pyopencl.Device, optional
        OpenCL device: ``'PLATFORM:DEVICE'``, ``'gpu'``, ``'cpu'`` or part of its name.
    profile : str or path, optional
        Device profile (its limits; see ``profiles/README.md``).
    engine : inpaint.cl.engine.Engine, optional
        The backend, device and profile already resolved (:func:`inpaint.cl.engine.resolve`); given,
        it stands for them.
    timings : bool
        Measure each device stage's time (``stats.stage_seconds``; default False: a queue without
        profiling, which some drivers enqueue faster).
    protect : ndarray, (H, W) bool, optional
        Pixels no source patch may cover.
    context : inpaint.methods.context.RunContext, optional
        All of the above in one object (the command makes one); given, leave them out.
    **options
        The chosen method's parameters (its method object's options,
        :data:`~inpaint.methods.registry.OPTIONS`); those left out take their declared defaults.

    Returns
    -------
    StepwiseJob
        The method's job.

    Raises
    ------
    InputError
        An unknown method, an option the method does not take, a backend it does not run on, or
        a bad value (a ``device`` of the wrong type, a ``token`` that is not a
        :class:`~inpaint.cancel.Token`); a fill the memory available cannot hold.
    OpenCLUnavailable
        A named ``device`` (or ``PYOPENCL_CTX``) that matches no OpenCL device or cannot be used,
        or ``backend='opencl'`` without a usable device.
    """
    chosen = registry.get(method)
    chosen.check_names(options)
    if context is None:
        context = RunContext(backend, device, profile, engine, timings, protect)  # each checked by its declaration
    elif backend != "auto" or timings is not False or any(v is not None for v in (device, profile, engine, protect)):
        raise InputError("give either context or backend, device, profile, engine, timings and protect, not both")
    context = run_context(context)
    chosen.check_backend(context.chosen_backend)
    if token is not None and not isinstance(token, cancel.Token):
        raise InputError(f"token must be an inpaint.cancel.Token or None, got {token!r}")
    token = token if token is not None else cancel.current()  # made before the job: a stop from now on ends it
    _check_memory(mask, context.chosen_backend)
    job = chosen.job(image, mask, context=context, **options)  # the job checks each option by its declaration
    job.token = token
    return job


def inpaint(image: np.ndarray, mask: np.ndarray, *, method: str = DEFAULT_METHOD,
            progress: Callable[[float], Any] | None = None, token: cancel.Token | None = None,
            **options: Any) -> InpaintResult:
    """Remove the masked object from ``image``.

    Parameters
    ----------
    image, mask, method, token, **options
        As for :func:`start` (its run keywords too: ``backend``, ``device``, ``profile``, ``engine``,
        ``timings``, ``protect``, ``context``).
    progress : callable, optional
        ``progress(fraction)`` is called after every step.

    Returns
    -------
    InpaintResult
        Pixels outside the mask are unchanged.  ``source_map`` gives, for every filled pixel,
        the original known pixel it copies (for ``'multiscale'``, the pixel that the
        best-matching patch covering it copies there, before blending and correction).

    Raises
    ------
    InputError
        As for :func:`start`.
    """
    job = start(image, mask, method=method, token=token, **options)
    if progress is not None and not callable(progress):
        raise InputError(f"progress must be a function of the fraction done, or None, got {progress!r}")
    cb = (lambda j: progress(j.progress)) if progress is not None else None
    return job.run(cb)
