"""Why an OpenCL device cannot compile the kernels, and what to do, in one short line.

The common case is PoCL, the portable CPU driver: the build pip installs
(``pocl-binary-distribution``, PoCL 3.0 on LLVM 14) does not know processors newer than its
LLVM (AMD family 26, Zen 5, for one), names the CPU ``generic`` and then fails every build.
A distribution's PoCL is built on a newer LLVM with CPU-selection fixes and compiles there.
Everything here reads strings the driver reports, so it is tested without such a CPU.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
from typing import Any

#: The longest driver log line quoted in a reason.
_QUOTE = 90

_LISTS = "see 'inpaint devices'"

#: The longest reason, so that a command's error line (``inpaint resize: error: ...``) stays under
#: 200 characters.
MAX_REASON = 170


def reason(cause: str, fix: str, more: str = "", limit: int = MAX_REASON) -> str:
    """``'CAUSE; FIX MORE'`` in at most ``limit`` characters: the cause (its quote of the driver's
    log) is shortened, never the fix."""
    tail = f"; {fix}{more}"
    room = limit - len(tail)
    if len(cause) > room:
        cause = cause[:max(room - 3, 0)].rstrip() + "..."
    return cause + tail


def cpu_family(cpuinfo: str | None = None) -> str:
    """The processor as ``'AMD family 26'`` (from ``/proc/cpuinfo``), or ``''`` where unknown."""
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
                cpuinfo = fh.read(8192)
        except OSError:
            return ""
    vendor = re.search(r"^vendor_id\s*:\s*(\S+)", cpuinfo, re.M)
    family = re.search(r"^cpu family\s*:\s*(\d+)", cpuinfo, re.M)
    if not vendor or not family:
        return ""
    name = {"AuthenticAMD": "AMD", "GenuineIntel": "Intel"}.get(vendor.group(1), vendor.group(1))
    return f"{name} family {family.group(1)}"


def _pip_pocl_version() -> str:
    try:
        return importlib.metadata.version("pocl-binary-distribution")
    except importlib.metadata.PackageNotFoundError:
        return ""


def pocl_fix() -> str:
    """How to get a PoCL that compiles for this CPU."""
    if shutil.which("apt-get") or os.path.exists("/etc/debian_version"):
        return "install your distribution's PoCL: apt install pocl-opencl-icd"
    return "install your distribution's PoCL (package pocl) or another OpenCL driver"


def build_log(exc: BaseException) -> str:
    """The driver's build log in a pyopencl build error (what follows its ``Build on ...:`` line)."""
    text = str(exc)
    at = text.find("Build on ")
    if at < 0:
        return text.strip()
    log = text[at:].split("\n", 1)[1] if "\n" in text[at:] else ""
    return re.sub(r"\(options: [^)]*\)\s*$", "", log.strip()).strip()


def _first_error(log: str) -> str:
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    line = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
    line = " ".join(line.split())
    return line if len(line) <= _QUOTE else line[:_QUOTE - 3] + "..."


def explain(platform_name: str, platform_version: str, device_name: str, device_version: str,
            log: str, cpu: str | None = None, pip_pocl: str | None = None) -> tuple[str, str]:
    """The cause of a failed build and its fix, each a short phrase.

    Parameters
    ----------
    platform_name, platform_version, device_name, device_version : str
        As the driver reports them (``platform.name``, ``platform.version``...).
    log : str
        The driver's build log.
    cpu : str, optional
        :func:`cpu_family` (read from this machine when not given).
    pip_pocl : str, optional
        The installed ``pocl-binary-distribution`` version ('' for none; read when not given).

    Returns
    -------
    cause, fix : str
    """
    pocl = "Portable Computing Language" in platform_name or "PoCL" in platform_version
    if pocl:
        cpu = cpu_family() if cpu is None else cpu
        pip_pocl = _pip_pocl_version() if pip_pocl is None else pip_pocl
        version = re.search(r"PoCL (\d+\.\d+)", platform_version)
        llvm = re.search(r"LLVM (\d+)", platform_version)
        name = f"PoCL {version.group(1)}" if version else "PoCL"
        from_pip = bool(pip_pocl and version and pip_pocl.startswith(version.group(1)))
        if from_pip:
            name += " from pip"
        # PoCL names the CPU in the device's version ('HSTR: pthread-x86_64-...-znver3'); one its
        # LLVM does not know is 'generic', which its compiler then rejects.
        generic = device_version.rstrip().endswith("-generic") or re.search(
            r"(target|unknown)[- ]cpu|'generic'|\bgeneric\b.*(cpu|processor)|not a recognized processor",
            log, re.I)
        fix = pocl_fix() if from_pip else f"install a newer PoCL, or {_LISTS}"
        if generic:
            newer = f", newer than its LLVM {llvm.group(1)}" if llvm else ", newer than its compiler"
            what = f" ({cpu}{newer})" if cpu else f" ({newer[2:]})"
            return f"{name} cannot compile for this CPU{what}", fix
        quoted = _first_error(log)
        return f"{name} cannot compile the kernels{': ' + quoted if quoted else ''}", fix
    quoted = _first_error(log)
    return (f"{device_name.strip()} ({platform_name.strip()}) cannot compile the kernels"
            f"{': ' + quoted if quoted else ''}",
            f"update its driver, or {_LISTS}")


def describe_failure(device: Any, exc: BaseException) -> tuple[str, str, str]:
    """:func:`explain` for a pyopencl device and its build error: ``(cause, fix, log)``."""
    log = build_log(exc)
    try:
        cause, fix = explain(device.platform.name, device.platform.version, device.name, device.version, log)
    except Exception:  # noqa: BLE001 - a device that cannot even describe itself
        cause, fix = f"the OpenCL device cannot compile the kernels: {_first_error(log)}", "try another --device"
    return cause, fix, log
