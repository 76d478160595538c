"""Where and how a fill runs, apart from what it does: one :class:`RunContext`, made once.

A method's options (``patch``, ``alpha``, ``seed``...) say what its fill does; the run context says
where it runs (``backend``, ``device``, ``profile``, or the ``engine`` they resolve to), whether its
device stages are timed (``timings``) and which pixels no source may cover (``protect``).  Every
method takes the same context: :func:`inpaint.api.start` (and the command) make it once and hand it
to the job, whose family reads it and never re-parses the strings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from .options import RUN_OPTIONS

#: The run context's keywords (those of :func:`inpaint.api.start` besides the method's options).
NAMES = tuple(o.name for o in RUN_OPTIONS)


@dataclasses.dataclass(frozen=True, eq=False)
class RunContext:
    """The run's context: every field is checked by its declaration
    (:data:`inpaint.methods.options.RUN_OPTIONS`) when the context is made.

    Attributes
    ----------
    backend : {'auto', 'opencl', 'numpy'}
        ``'auto'`` uses OpenCL when a device exists, else numpy with one warning.
    device : str or pyopencl.Device, optional
        OpenCL device (``'P:D'``, ``'gpu'``, ``'cpu'`` or part of its name); checked when the
        engine is made (:meth:`resolve`).
    profile : str, path or inpaint.cl.profiles.Profile, optional
        Device profile: the device's limits (see ``profiles/README.md``).
    engine : inpaint.cl.engine.Engine, optional
        The backend, device and profile resolved by the caller (:func:`inpaint.cl.engine.resolve`;
        the command resolves them once); given, it stands for ``backend``, ``device`` and ``profile``.
    timings : bool
        Measure each device stage's execution time (OpenCL profiling events).  False (the
        default) runs on a queue without profiling, which an NVIDIA driver enqueues faster (a
        small fill there took about a tenth longer profiled), and leaves the device stages'
        times at zero (``stats.timed`` is False).  Results are identical either way.
    protect : ndarray, (H, W) bool, optional
        Pixels no source patch may cover (checked against the image by the job).
    """

    backend: str = "auto"
    device: Any = None
    profile: Any = None
    engine: Any = None
    timings: bool = False
    protect: Any = None

    def __post_init__(self) -> None:
        for option in RUN_OPTIONS:
            value = getattr(self, option.name)
            object.__setattr__(self, option.name, option.check(value))

    @property
    def chosen_backend(self) -> str:
        """The backend asked for: the engine's when one is given."""
        return self.engine.backend if self.engine is not None else self.backend

    def resolve(self) -> Any:
        """The run's :class:`~inpaint.cl.engine.Engine`: the one given, else the one
        :func:`inpaint.cl.engine.resolve` makes of the backend, device and profile.

        Raises
        ------
        InputError
            A ``device`` that can name no device.
        inpaint.cl.profiles.ProfileError
            An unknown or malformed profile.
        """
        from ..cl.engine import resolve

        return self.engine if self.engine is not None else resolve(self.backend, self.device, self.profile)

    def on(self, engine: Any) -> RunContext:
        """The same context on ``engine`` (resolved: a later part of a fill runs where the first ran)."""
        return dataclasses.replace(self, engine=engine)


def run_context(context: RunContext | None = None, **given: Any) -> RunContext:
    """``context``, or the context made of the run's keywords ``given`` (those of :data:`NAMES`).

    Raises
    ------
    InputError
        Both a context and keywords, a ``context`` that is not a :class:`RunContext`, or a bad value.
    """
    if context is None:
        return RunContext(**given)
    if not isinstance(context, RunContext):
        raise InputError(f"context must be an inpaint.methods.context.RunContext or None, got {context!r}")
    if given:
        raise InputError(f"give either context or {', '.join(given)}, not both")
    return context


def split(values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``values`` as ``(the run context's keywords, the rest)``."""
    run = {k: v for k, v in values.items() if k in NAMES}
    return run, {k: v for k, v in values.items() if k not in NAMES}
