"""Command-line option values the fill methods do not parse themselves, parsed once for every
front end.

Each parser takes the text the user gave and returns the value the library takes, or raises
:class:`~inpaint.errors.InputError` with a one-line message naming the option.  The device is
checked here too (:func:`check_device`), before any heavy work.  The methods' own options
(``--search-area``, ``--patch``, ``--blend``, ...) are parsed by their declarations
(:mod:`inpaint.methods.options`, through :mod:`inpaint.methods.registry`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import DeviceError, InputError, ProfileError
from ..methods.checks import check_choice, parse_int
from ..methods.defaults import BACKENDS

#: Largest grow radius accepted (pixels).
MAX_GROW = 10_000


def parse_length(text: Any, option: str) -> tuple[float, bool]:
    """``--width``/``--height``: ``'640'`` -> ``(640, False)``, ``'50%'`` -> ``(50.0, True)``."""
    raw = str(text).strip()
    percent = raw.endswith("%")
    try:
        value = float(raw[:-1]) if percent else int(raw)
    except ValueError:
        value = None
    if value is None or not value > 0 or value != value or value == float("inf"):
        raise InputError(f"{option} must be a positive integer (pixels) or a percentage such as 50%, got {raw}")
    return value, percent


def length_in_pixels(value: float, percent: bool, size: int) -> int:
    """A length from :func:`parse_length` in pixels, for a side of ``size`` pixels."""
    return max(1, round(size * value / 100.0)) if percent else int(value)


def parse_geometry(text: Any) -> Callable[[int, int], tuple[int | None, int | None]]:
    """``--size``, ImageMagick's geometry: a function from the input's size to ``(width, height)``.

    ``75%`` scales both sides; ``50%x100%`` each side; ``WxH!`` is exactly that size; ``WxH`` the
    largest size within it with the input's aspect ratio; ``W`` or ``Wx`` a width and ``xH`` a
    height, the other side keeping the aspect ratio.

    Raises
    ------
    InputError
        Text that is none of these.
    """
    raw = str(text).strip()
    bad = InputError(f"--size must look like 75%, 50%x100%, 640x480!, 640x480, 640 or x480, got {text!r}")
    exact = raw.endswith("!")
    body = raw[:-1] if exact else raw
    if body.count("x") > 1 or not body:
        raise bad
    w_text, sep, h_text = body.partition("x")
    try:
        w = parse_length(w_text, "--size") if w_text else None
        h = parse_length(h_text, "--size") if h_text else None
    except InputError:
        raise bad from None
    if w is None and h is None:
        raise bad
    if not sep:            # '75%': both sides; '640': the width
        h = w if w[1] else None

    def size(w0: int, h0: int) -> tuple[int | None, int | None]:
        tw = length_in_pixels(*w, w0) if w is not None else None
        th = length_in_pixels(*h, h0) if h is not None else None
        if exact or (w is not None and w[1] and h is not None and h[1]):
            return tw, th
        if tw is not None and th is not None:      # within WxH, keeping the aspect ratio
            s = min(tw / w0, th / h0)
        else:
            s = tw / w0 if tw is not None else th / h0
        return max(1, round(w0 * s)), max(1, round(h0 * s))

    return size


def parse_grow(text: Any) -> int:
    """``--grow N``: pixels to grow the mask by, 0 to :data:`MAX_GROW`."""
    return parse_int(text, "--grow", 0, MAX_GROW)


def parse_quality(text: Any) -> int | None:
    """``--quality Q``: a lossy output's quality, 1 to 100 (None when not given)."""
    return None if text is None else parse_int(text, "--quality", 1, 100)


def check_device(backend: str, device: str | None, profile: Any = None) -> Any:
    """Check, before any work, that the requested device exists; returns the run's engine
    (:class:`inpaint.cl.engine.Engine`: the backend, the device found, the loaded profile), which
    the command passes down to the job.

    * ``--device`` with ``--backend numpy`` is a contradiction (bad input).
    * ``--device`` that matches no device, or ``--backend opencl`` without any OpenCL device,
      raise :class:`~inpaint.errors.DeviceError` (exit 3) with the devices that exist.
    * A ``PYOPENCL_CTX`` that matches no device is as wrong as such a ``--device``.
    * ``--backend auto`` without either never fails here: it falls back to numpy later, with a
      warning.

    Raises
    ------
    InputError, DeviceError, inpaint.cl.profiles.ProfileError
    """
    from ..cl.engine import Engine, resolve
    from ..cl.profiles import load_profile

    check_choice("backend", backend, BACKENDS)
    if device is not None and device.strip() == "":
        raise InputError("--device is empty; give 'PLATFORM:DEVICE', 'gpu', 'cpu' or part of a device name")
    prof = load_profile(profile)
    if backend == "numpy":
        if device is not None:
            raise InputError("--device chooses an OpenCL device, but --backend numpy runs without one")
        return Engine(backend, None, prof)
    from ..cl import runtime as rtmod

    if backend == "auto" and not rtmod.explicit_choice(device):
        return Engine(backend, None, prof)

    try:
        return resolve(backend, device, prof, check=True)
    except rtmod.BuildFailure as exc:
        raise DeviceError(str(exc)) from None
    except rtmod.OpenCLUnavailable as exc:
        if not rtmod.explicit_choice(device):
            raise DeviceError(f"OpenCL is not available: {exc}; or run with --backend numpy") from None
        raise DeviceError(f"no such device: {exc}") from None


def engine_for(args: Any) -> Any:
    """The run's engine from its ``--backend``, ``--device`` and ``--profile`` (:func:`check_device`),
    after :func:`inpaint.cli.shared.apply_environment`: an error caused by a setting taken from the
    environment names its variable.

    Raises
    ------
    InputError, DeviceError, inpaint.cl.profiles.ProfileError
    """
    from ..methods.options import env_setting

    taken = getattr(args, "environment", {})
    try:
        return check_device(args.backend, args.device, args.profile)
    except (InputError, DeviceError, ProfileError) as exc:
        cause = "profile" if isinstance(exc, ProfileError) else "device" if "device" in taken else "backend"
        if cause not in taken:
            raise
        raise type(exc)(f"{env_setting(*taken[cause])}: {exc}") from None
