"""What the settings screen lists: backends, OpenCL devices, profiles and their limits.

Window-free and tolerant: on a phone without pyopencl (python-for-android has no recipe
for it) every function still answers, and the app runs on the numpy backend.
"""

from __future__ import annotations

import dataclasses
import importlib.util

from inpaint.cl import BACKENDS  # noqa: F401 - the settings screen lists them

AUTO = "auto"
ALPHAS = ("0.05", "0.1", "0.2", "0.5", "1", "2", "full")
PATCHES = ("3", "5", "7", "9", "11", "13", "15", "17")
#: The values the Settings screen offers for each fill option (others: their default and current value).
CHOICES = {"alpha": ALPHAS, "patch": PATCHES}


@dataclasses.dataclass(frozen=True)
class DeviceChoice:
    spec: str      # what the pipeline's ``device=`` gets: "P:D"
    label: str     # what the spinner shows
    device: object


def _kib(n: int) -> str:
    if n >= 2**30:
        return f"{n / 2**30:.1f} GiB"
    if n >= 2**20:
        return f"{n / 2**20:.0f} MiB"
    return f"{n / 1024:.0f} KiB" if n % 1024 else f"{n // 1024} KiB"


def list_devices() -> tuple[list[DeviceChoice], str | None]:
    """The OpenCL devices, and why there are none (``None`` when there are some)."""
    from inpaint.cl.runtime import OpenCLUnavailable, all_devices  # without pyopencl: OpenCLUnavailable

    try:
        found = all_devices()
    except OpenCLUnavailable as exc:
        return [], str(exc)
    except Exception as exc:  # noqa: BLE001 - a broken driver must not take the settings screen down
        return [], f"OpenCL devices could not be listed: {exc}"
    out = []
    for pi, di, dev in found:
        out.append(DeviceChoice(f"{pi}:{di}", f"{pi}:{di} {dev.name.strip()}", dev))
    return out, None


def list_profiles() -> list[str]:
    try:
        from inpaint.cl.profiles import available_profiles
        return available_profiles() or ["native"]
    except Exception:  # noqa: BLE001 - no readable profiles: the native one only
        return ["native"]


def describe(device: object | None, profile: str | None) -> str:
    """Multi-line description of ``device`` and its limits under ``profile``."""
    if device is None:
        return "numpy backend (no OpenCL device)"
    lines = [f"{device.name.strip()}", f"platform: {device.platform.name.strip()}"]
    real = (f"device: {int(device.max_compute_units)} compute units, "
            f"local memory {_kib(int(device.local_mem_size))}, "
            f"work-group <= {int(device.max_work_group_size)}, "
            f"global memory {_kib(int(device.global_mem_size))}")
    lines.append(real)
    try:
        from inpaint.cl.profiles import load_profile
        prof = load_profile(profile or "native")
        lim = prof.effective_limits(device)
        lines.append(f"with profile '{prof.name}': {lim.compute_units} CUs, local memory "
                     f"{_kib(lim.local_mem_size)}, work-group <= {lim.max_work_group_size}")
    except Exception as exc:  # noqa: BLE001 - a profile that fails is described, not fatal
        lines.append(f"profile '{profile}': {exc}")
    return "\n".join(lines)


def seam_available() -> bool:
    """Whether the seam-carving module (``inpaint.seam``) exists."""
    try:
        return importlib.util.find_spec("inpaint.seam") is not None
    except (ImportError, ValueError):
        return False


#: What to do in the app when the device fails: the Settings screen's own labels (Advanced part).
DEVICE_HINT = ("To go on: open Settings and, under Advanced, set Run on to the processor (numpy; slower, always "
               "works) or choose another OpenCL device.")
PROFILE_HINT = ("To go on: open Settings and, under Advanced, set Tuned for to another choice (native: the device's "
                "own limits).")


def is_device_error(exc: BaseException) -> bool:
    """Whether ``exc`` comes from OpenCL: no usable device or driver, a driver that cannot compile
    the kernels (:class:`inpaint.errors.BuildFailure`), or an error of pyopencl itself.

    Parameters
    ----------
    exc : BaseException
        The error a job raised.

    Returns
    -------
    bool
    """
    from inpaint.errors import DeviceError, OpenCLUnavailable

    if isinstance(exc, (OpenCLUnavailable, DeviceError)):
        return True
    # pyopencl is optional: its errors are known by their module, without importing it.
    return any(cls.__module__.partition(".")[0] == "pyopencl" for cls in type(exc).__mro__)


def error_hint(exc: BaseException) -> str:
    """What the user can change in the app after ``exc`` (``''`` when nothing there helps).

    Parameters
    ----------
    exc : BaseException
        The error a job raised.

    Returns
    -------
    str
        One sentence naming the Settings screen's labels.
    """
    from inpaint.errors import ProfileError

    if is_device_error(exc):
        return DEVICE_HINT
    if isinstance(exc, ProfileError):
        return PROFILE_HINT
    return ""
