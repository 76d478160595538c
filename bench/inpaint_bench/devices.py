"""The OpenCL devices a benchmark runs on, and the machine it describes in its results."""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from typing import Any

import numpy as np

from .common import cpu_name


class Dev:
    """An OpenCL device as a spec string for ``inpaint(device=...)`` plus its description."""

    def __init__(self, spec: str, device: Any):
        self.spec = spec
        self.device = device
        self.name = device.name.strip()
        self.platform = device.platform.name.strip()
        import pyopencl as cl

        self.is_gpu = bool(device.type & cl.device_type.GPU)
        self.version = device.version.strip()
        self.driver = device.driver_version.strip()
        self.compute_units = int(device.max_compute_units)
        self.local_mem = int(device.local_mem_size)
        self.is_pocl = "portable computing language" in self.platform.lower()
        self.is_h200 = "h200" in self.name.lower()
        self.shared_kind = False   # another device of the run has the same kind (set by find_devices)

    @property
    def label(self) -> str:
        kind = "GPU" if self.is_gpu else "CPU"
        return f"{kind} {self.name} ({self.platform})"

    @property
    def kind(self) -> str:
        """The device in a few words: the platform's kind, or the device's name."""
        if self.is_pocl:
            return "PoCL CPU" if not self.is_gpu else "PoCL GPU"
        return ("GPU " if self.is_gpu else "CPU ") + self.name

    @property
    def short(self) -> str:
        """A column's label: :attr:`kind`, with the device's number where another device of the run
        has the same kind (two PoCL devices)."""
        return f"{self.kind} ({self.spec})" if self.shared_kind else self.kind


def find_devices(spec: str | None, notes: list[str]) -> list[Dev]:
    """Every OpenCL device that compiles and runs the fill, or the one ``spec`` selects; [] (with a
    note) without OpenCL.  A device that cannot compile is left out with a note saying why."""
    from inpaint.cl.runtime import OpenCLUnavailable, all_devices, select_device
    from inpaint.cli.devices import check_device

    try:
        found = all_devices()
    except OpenCLUnavailable as exc:
        notes.append(f"no OpenCL device ({exc}): only the numpy backend is measured")
        return []
    devs = [Dev(f"{pi}:{di}", d) for pi, di, d in found]
    if spec:
        chosen = select_device(spec)
        devs = [d for d, (_, _, cd) in zip(devs, found) if cd == chosen]
    usable = []
    for d in devs:
        problem = check_device(d.device)
        if problem is None:
            usable.append(d)
        else:
            notes.append(f"{d.spec} {d.name} ({d.platform}) is left out: {problem}")
    devs = usable
    for d in devs:
        d.shared_kind = sum(other.kind == d.kind for other in devs) > 1
    if not any(d.is_gpu for d in devs):
        notes.append("no OpenCL GPU device: GPU columns are skipped")
    return devs


def machine_info(devs: Sequence[Dev]) -> dict[str, Any]:
    cpu = cpu_name() or platform.processor() or platform.machine()
    try:
        load = os.getloadavg()
    except (OSError, AttributeError):
        load = None
    info: dict[str, Any] = {
        "load_average_at_start": load,
        "cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}", "numpy": np.__version__,
        "devices": [{"spec": d.spec, "name": d.name, "platform": d.platform, "gpu": d.is_gpu,
                     "opencl": d.version, "driver": d.driver, "compute_units": d.compute_units,
                     "local_mem_size": d.local_mem} for d in devs],
    }
    try:
        import pyopencl

        info["pyopencl"] = pyopencl.VERSION_TEXT
    except Exception:  # noqa: BLE001
        pass
    return info
