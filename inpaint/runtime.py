"""Deprecated: the OpenCL runtime moved to :mod:`inpaint.cl.runtime`.  This alias re-exports its
public names for one release."""

import warnings

from .cl.runtime import (OpenCLUnavailable, Runtime, all_devices, event_seconds, event_time, get_runtime,  # noqa: F401
                         opencl_available, round_up, runtime_for, select_device)

__all__ = ["OpenCLUnavailable", "Runtime", "all_devices", "event_seconds", "event_time", "get_runtime",
           "opencl_available", "round_up", "runtime_for", "select_device"]

warnings.warn("inpaint.runtime is deprecated; import from inpaint.cl.runtime", DeprecationWarning, stacklevel=2)
