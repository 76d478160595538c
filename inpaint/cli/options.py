"""Command-line option values the fill methods do not parse themselves, parsed once for every
front end.

Each parser takes the text the user gave and returns the value the library takes, or raises
:class:`~inpaint.errors.InputError` with a one-line message naming the option.  The device is
checked here too (:func:`check_device`), before any heavy work.  ``--alpha`` and ``--patch``
are parsed by the methods' own parsers (:mod:`inpaint.methods.checks`), ``--partition`` by the
Criminisi stage table (:func:`inpaint.methods.criminisi.stages.parse_partition`).
"""

from __future__ import annotations

from typing import Any

from ..errors import DeviceError, InputError
from ..methods.checks import check_choice
from ..methods.defaults import BACKENDS

#: Largest grow radius accepted (pixels).
MAX_GROW = 10_000


def parse_int(text: Any, option: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer option within ``lo..hi``."""
    try:
        value = int(str(text).strip())
    except (TypeError, ValueError):
        value = None
    if value is None or (lo is not None and value < lo) or (hi is not None and value > hi):
        if lo is not None and hi is not None:
            want = f"an integer from {lo} to {hi}"
        elif lo is not None:
            want = f"an integer >= {lo}"
        else:
            want = "an integer"
        raise InputError(f"{option} must be {want}, got {text!r}")
    return value


def parse_grow(text: Any) -> int:
    """``--grow N``: pixels to grow the mask by, 0 to :data:`MAX_GROW`."""
    return parse_int(text, "--grow", 0, MAX_GROW)


def parse_quality(text: Any) -> int | None:
    """``--quality Q``: a lossy output's quality, 1 to 100 (None when not given)."""
    return None if text is None else parse_int(text, "--quality", 1, 100)


def check_device(backend: str, device: str | None, profile: Any = None) -> Any:
    """Check, before any work, that the requested device exists; returns the loaded profile.

    * ``--device`` with ``--backend numpy`` is a contradiction (bad input).
    * ``--device`` that matches no device, or ``--backend opencl`` without any OpenCL device,
      raise :class:`~inpaint.errors.DeviceError` (exit 3) with the devices that exist.
    * ``--backend auto`` without ``--device`` never fails here: it falls back to numpy later,
      with a warning.

    Raises
    ------
    InputError, DeviceError, inpaint.cl.profiles.ProfileError
    """
    from ..cl.profiles import load_profile

    check_choice("backend", backend, BACKENDS)
    if device is not None and device.strip() == "":
        raise InputError("--device is empty; give 'PLATFORM:DEVICE', 'gpu', 'cpu' or part of a device name")
    prof = load_profile(profile) if profile is not None else None
    if backend == "numpy":
        if device is not None:
            raise InputError("--device chooses an OpenCL device, but --backend numpy runs without one")
        return prof
    if device is None and backend == "auto":
        return prof
    from ..cl import runtime as rtmod

    try:
        rtmod.select_device(device, prof if prof is not None else load_profile(None))
    except rtmod.OpenCLUnavailable as exc:
        if device is None:
            raise DeviceError(f"OpenCL is not available: {exc}; or run with --backend numpy") from None
        raise DeviceError(f"no such device: {exc}") from None
    return prof
