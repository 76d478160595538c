"""Command-line option values, parsed once for every front end.

Each parser takes the text the user gave and returns the value the library takes, or raises
:class:`~inpaint.errors.InputError` with a one-line message naming the option.  The device is
checked here too (:func:`check_device`), before any heavy work.
"""

from __future__ import annotations

import math
from typing import Any

from .errors import DeviceError, InputError

BACKENDS = ("auto", "opencl", "numpy")
#: Largest search factor accepted: beyond it every search area is the whole image anyway.
MAX_ALPHA = 10_000.0
#: Largest grow radius accepted (pixels).
MAX_GROW = 10_000


def parse_alpha(text: Any) -> float | str:
    """``--alpha``: ``'full'`` or a number from 0 to :data:`MAX_ALPHA`."""
    if text is None:
        return None  # type: ignore[return-value]
    if isinstance(text, str) and text.strip().lower() == "full":
        return "full"
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError(f"alpha must be a number >= 0 or 'full', got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise InputError(f"alpha must be a number >= 0 or 'full', got {text!r}")
    if value > MAX_ALPHA:
        raise InputError(f"alpha must be a number >= 0 or 'full', got {text!r}: at most {MAX_ALPHA:g} "
                         "(use 'full' to search the whole image)")
    return value


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


def parse_patch(text: Any) -> int:
    """``--patch``: an odd integer >= 3 (the image size limit is checked by the method)."""
    try:
        p = int(str(text).strip())
    except (TypeError, ValueError):
        raise InputError(f"patch size must be an odd integer >= 3, got {text!r}") from None
    if p < 3 or p % 2 == 0:
        raise InputError(f"patch size must be an odd integer >= 3, got {p}")
    if p > 9999:
        raise InputError(f"patch size {p} is too large: the patch must fit in the image")
    return p


def parse_grow(text: Any) -> int:
    """``--grow N``: pixels to grow the mask by, 0 to :data:`MAX_GROW`."""
    return parse_int(text, "--grow", 0, MAX_GROW)


def parse_partition(text: str | None) -> list[str] | None:
    """``--partition``: a named partition or comma-separated stages (:func:`inpaint.stages.parse_partition`)."""
    from .stages import parse_partition as stages_partition

    if text is None:
        return None
    if text.strip() == "":
        return []
    return list(stages_partition(text))


def check_device(backend: str, device: str | None, profile: Any = None) -> Any:
    """Check, before any work, that the requested device exists; returns the loaded profile.

    * ``--device`` with ``--backend numpy`` is a contradiction (bad input).
    * ``--device`` that matches no device, or ``--backend opencl`` without any OpenCL device,
      raise :class:`~inpaint.errors.DeviceError` (exit 3) with the devices that exist.
    * ``--backend auto`` without ``--device`` never fails here: it falls back to numpy later,
      with a warning.

    Raises
    ------
    InputError, DeviceError, inpaint.profiles.ProfileError
    """
    from .profiles import load_profile

    if backend not in BACKENDS:
        raise InputError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if device is not None and device.strip() == "":
        raise InputError("--device is empty; give 'PLATFORM:DEVICE', 'gpu', 'cpu' or part of a device name")
    prof = load_profile(profile) if profile is not None else None
    if backend == "numpy":
        if device is not None:
            raise InputError("--device chooses an OpenCL device, but --backend numpy runs without one")
        return prof
    if device is None and backend == "auto":
        return prof
    from . import runtime as rtmod

    try:
        rtmod.select_device(device, prof if prof is not None else load_profile(None))
    except rtmod.OpenCLUnavailable as exc:
        if device is None:
            raise DeviceError(f"OpenCL is not available: {exc}; or run with --backend numpy") from None
        raise DeviceError(f"no such device: {exc}") from None
    return prof
