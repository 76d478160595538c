"""Where a job runs, resolved once at the edge and passed down: numpy, or OpenCL on a device.

A front end turns its ``backend``, ``device`` and ``profile`` text into one :class:`Engine`
(:func:`resolve`; the command line checks the device exists with ``check=True``) and hands it to
the job (``engine=``), which opens the runtime through it (:meth:`Engine.open`).  The strings stay
a convenience of the public API: a job given them makes its engine with :func:`resolve`.

The device choice itself, "can it compile" included, is :func:`inpaint.cl.runtime.open_runtime`'s
(the order of :func:`inpaint.cl.runtime.preference`, the devices that :func:`~inpaint.cl.runtime.cannot_build`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import InputError
from .profiles import Profile, load_profile

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Engine:
    """The backend, device and profile of a run, resolved.

    Attributes
    ----------
    backend : {'auto', 'opencl', 'numpy'}
    device : str, pyopencl.Device or None
        The device the user named (a ``pyopencl.Device`` once checked), or None: the first
        device in :func:`inpaint.cl.runtime.preference` that compiles the job's program.
    profile : Profile
        The device profile, loaded.
    runtime : Runtime or None
        A runtime already opened on this engine (:meth:`with_runtime`): the job runs on it.
    """

    backend: str = "auto"
    device: Any = None
    profile: Profile = dataclasses.field(default_factory=lambda: load_profile(None))
    runtime: Any = None

    @property
    def numpy(self) -> bool:
        """Whether the run is numpy's without asking any device."""
        return self.backend == "numpy"

    def on(self, device: Any) -> Engine:
        """The same engine on ``device`` (a batch's worker takes its turn on one)."""
        return dataclasses.replace(self, device=device, runtime=None)

    def with_runtime(self, runtime: Any) -> Engine:
        """The same engine, holding the runtime opened for it (jobs run on that one)."""
        return dataclasses.replace(self, runtime=runtime)

    def open(self, profiling: bool = True, prepare: Callable[[Any], T] | None = None,
             largest: int = 0) -> tuple[Any, T | None]:
        """``(runtime or None, prepare(runtime))``: :func:`inpaint.cl.runtime.open_runtime` on this
        engine; the runtime it holds, when it holds one that compiles the job.  ``largest``: the
        bytes of the job's largest buffer, checked against the device's before any build."""
        from . import runtime as rtmod

        if self.numpy:
            return None, None
        if self.runtime is not None and bool(self.runtime.profiling) == bool(profiling):
            if not rtmod.check_fits(self.runtime, largest, self.backend, self.device):
                return None, None
            try:
                return self.runtime, (prepare(self.runtime) if prepare is not None else None)
            except rtmod.BuildFailure:
                if rtmod.explicit_choice(self.device):
                    raise
                # the device cannot build the job: open_runtime passes over it to the next one
        return rtmod.open_runtime(self.backend, self.device, self.profile, profiling=profiling, prepare=prepare,
                                  largest=largest)

    def ready(self, profiling: bool = True) -> Any:
        """The runtime that a job on this engine opens first, in the calling thread (its context and
        queue, :func:`inpaint.cl.runtime.get_runtime`), opened now if it is not yet, building
        nothing and saying nothing, so that a front end can overlap the device's start with reading
        the input; None for numpy.  A device that cannot be used gives None too: the job reports
        it when it opens the runtime."""
        if self.numpy:
            return None
        if self.runtime is not None:
            return self.runtime
        from . import runtime as rtmod

        try:
            return rtmod.get_runtime(self.device, self.profile, profiling)
        except rtmod.OpenCLUnavailable:
            return None

    def turn(self, profiling: bool = True) -> contextlib.AbstractContextManager[Any]:
        """Hold the device of :meth:`ready`'s runtime for one job, where its driver runs kernels from
        one queue at a time (:meth:`inpaint.cl.runtime.Runtime.turn`); nothing is held elsewhere."""
        rt = self.ready(profiling)
        return rt.turn() if rt is not None else contextlib.nullcontext()


def check_device_value(device: Any) -> None:
    """Refuse a ``device`` argument that can name no device: not None, text or a ``pyopencl.Device``.

    Raises
    ------
    InputError
        It is of another type, or blank text.
    """
    if device is None:
        return
    if isinstance(device, str):
        if device.strip():
            return
    else:
        loaded = sys.modules.get("pyopencl")  # a pyopencl.Device exists only once pyopencl is loaded
        if loaded is not None and isinstance(device, loaded.Device):
            return
    raise InputError("device must be 'PLATFORM:DEVICE', 'gpu', 'cpu', part of a device name or a pyopencl.Device, "
                     f"got {device!r}")


def check_engine(value: Any) -> Engine | None:
    """``value`` when it is an :class:`Engine` or None.

    Raises
    ------
    InputError
        Anything else (a backend's name is ``backend=``, not ``engine=``).
    """
    if value is not None and not isinstance(value, Engine):
        from ..errors import InputError

        raise InputError(f"engine must be an inpaint.cl.engine.Engine (inpaint.cl.engine.resolve) or None, "
                         f"got {value!r}")
    return value


def resolve(backend: str = "auto", device: Any = None, profile: Any = None, check: bool = False) -> Engine:
    """The engine of ``backend``, ``device`` and ``profile``, the profile loaded once.

    With ``check`` (the command line, before any work), a named device (``device`` or
    ``PYOPENCL_CTX``), or any device for ``backend='opencl'``, must exist: it is looked up now,
    and the one found is kept.

    ``backend`` is taken as checked (the method's declaration checks it).

    Raises
    ------
    InputError
        ``device`` is neither text nor a ``pyopencl.Device``.
    inpaint.cl.profiles.ProfileError
        An unknown or malformed profile.
    OpenCLUnavailable, BuildFailure
        With ``check``: no such device, or no OpenCL device (see
        :func:`inpaint.cl.runtime.select_device`).
    """
    check_device_value(device)
    if isinstance(profile, Profile):
        prof = profile
    else:
        prof = load_profile(profile)
    if check and backend != "numpy":
        from . import runtime as rtmod

        if backend == "opencl" or rtmod.explicit_choice(device):  # (PYOPENCL_CTX names one too)
            found = rtmod.select_device(device, prof)
            if device is not None:
                device = found
    return Engine(backend, device, prof)
