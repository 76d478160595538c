"""The Criminisi pipeline's eight stages, stated once.

Each :class:`Stage` says what the stage is called (and how the paper's Table 2 names it),
which arrays it reads and writes, its kernel file, how to build its OpenCL wrapper
(:mod:`inpaint.methods.criminisi.opencl`), and how to run it on either side: ``host`` calls
the numpy reference (:mod:`inpaint.methods.criminisi.reference`), ``device`` the wrapper.
:class:`inpaint.methods.criminisi.job.Inpainter` loops over this table; the command line, the reports and
the benchmark read their names and labels from it.  Adding a stage is one entry here plus its kernel,
reference and tests.

A *partition* says which stages run on the OpenCL device; the rest run in numpy, and the
pipeline moves each array to the side that needs it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import InputError
from . import reference


@dataclasses.dataclass(frozen=True)
class Stage:
    """One pipeline stage.

    Attributes
    ----------
    name : str
        Short name, used by ``--partition`` and in statistics.
    label : str
        The paper's Table 2 wording.
    reads, writes : tuple of str
        Arrays the stage reads and writes (the pipeline keeps them fresh on its side).
    kernel_file : str
        Its file under ``kernels/`` (``criminisi/<name>``).
    wrapper : callable
        ``wrapper(rt, job, bundle)`` builds the stage's OpenCL wrapper for an Inpainter ``job``.
    host : callable
        ``host(job, *args)`` runs the numpy reference on the job's host arrays.
    device : callable
        ``device(job, kernel, *args)`` launches the wrapper on the job's device buffers and
        returns the launch event(s).
    """

    name: str
    label: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    kernel_file: str
    wrapper: Callable[[Any, Any, Any], Any]
    host: Callable[..., None]
    device: Callable[..., Any]


def _sc() -> Any:
    from . import opencl  # pyopencl: imported only when a device runs a stage

    return opencl


# -- numpy side: job._buf.host holds the arrays ------------------------------------------------
def _grey_host(job: Any, rect: Any) -> None:
    a = job._buf.host
    reference.grey(a["rgb"], a["grey"], rect)


def _front_host(job: Any, rect: Any) -> None:
    a = job._buf.host
    reference.front(a["unknown"], a["front"], rect)


def _valid_host(job: Any, rect: Any, use_integral: bool = False) -> None:
    a = job._buf.host
    reference.valid(a["unknown"], a["valid"], rect, job.half)


def _confidence_host(job: Any, rect: Any) -> None:
    a = job._buf.host
    reference.confidence(a["conf"], a["front"], a["cpatch"], rect, job.half)


def _priority_host(job: Any, rect: Any) -> None:
    a = job._buf.host
    reference.priority(a["grey"], a["unknown"], a["front"], a["cpatch"], a["prio"], rect)
    a["result"][0] = reference.argmax_priority(a["prio"], job._box)


def _ssd_host(job: Any, centres: Any) -> None:
    a = job._buf.host
    reference.ssd(a["rgb"][..., :3], a["unknown"], a["valid"], int(a["result"][0]), centres, job.half, a["ssd"])


def _reduce_host(job: Any, n: int) -> None:
    a = job._buf.host
    idx, val = reference.argmin_ssd(a["ssd"], n)
    a["result"][1] = idx
    a["result"][2] = np.int64(val).astype(np.uint32).view(np.int32)


def _copy_host(job: Any, target: Any, source: Any) -> None:
    a = job._buf.host
    reference.copy_patch(a["rgb"], a["grey"], a["unknown"], a["conf"], a["cpatch"], target, source, job.half)


# -- device side: job._buf.dev holds the buffers ------------------------------------------------
def _priority_device(job: Any, k: Any, rect: Any) -> list:
    b = job._buf.dev
    return [k(b, job.width, job.height, rect), k.best(b, job.width, job._box)]


STAGES: tuple[Stage, ...] = (
    Stage("grey", "convert RGB to grey", ("rgb",), ("grey",), "criminisi/grey",
          lambda rt, job, bundle: _sc().Grey(rt, bundle), _grey_host,
          lambda job, k, rect: k(job._buf.dev, job.width, rect)),
    Stage("front", "update border of the area to be filled", ("unknown",), ("front",), "criminisi/front",
          lambda rt, job, bundle: _sc().Front(rt, bundle), _front_host,
          lambda job, k, rect: k(job._buf.dev, job.width, job.height, rect)),
    Stage("valid", "mark source pixels to be used", ("unknown",), ("valid",), "criminisi/valid",
          lambda rt, job, bundle: _sc().Valid(rt, bundle), _valid_host,
          lambda job, k, rect, use_integral=False: k(job._buf.dev, job.width, job.height, job.half, rect, job._box,
                                                     use_integral)),
    Stage("confidence", "update pixel confidence in the filling area", ("conf", "front"), ("cpatch",),
          "criminisi/confidence",
          lambda rt, job, bundle: _sc().Confidence(rt, bundle), _confidence_host,
          lambda job, k, rect: k(job._buf.dev, job.width, job.height, job.half, rect)),
    Stage("priority", "update pixel priorities in the filling area", ("grey", "unknown", "front", "cpatch", "result"),
          ("prio", "result"), "criminisi/priority",
          lambda rt, job, bundle: _sc().Priority(rt, bundle), _priority_host, _priority_device),
    Stage("ssd", "find the best matching patch", ("rgb", "unknown", "valid", "result"), ("ssd",), "criminisi/ssd",
          lambda rt, job, bundle: _sc().FindBestPatch(rt, job.patch, job.variant, job.prune, bundle), _ssd_host,
          lambda job, k, centres: k(job._buf.dev, job.width, job.height, centres)),
    Stage("reduce", "best-patch reduction", ("ssd", "result"), ("result",), "criminisi/reduce",
          lambda rt, job, bundle: _sc().Reduce(rt, bundle), _reduce_host,
          lambda job, k, n: k(job._buf.dev, n)),
    Stage("copy", "update RGB and grey image of the filling patch", ("rgb", "grey", "unknown", "conf", "cpatch"),
          ("rgb", "grey", "unknown", "conf"), "criminisi/copy",
          lambda rt, job, bundle: _sc().Copy(rt, bundle), _copy_host,
          lambda job, k, target, source: k(job._buf.dev, job.width, job.height, job.half, target, source)),
)

#: The stage names, in pipeline order.
NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)
#: Each stage by name.
BY_NAME: dict[str, Stage] = {s.name: s for s in STAGES}
#: The paper's Table 2 wording of each stage, by name.
LABELS: dict[str, str] = {s.name: s.label for s in STAGES}

#: Named partitions (which stages run on the device): every stage (the default), none (numpy
#: only, as on a phone without OpenCL), and the paper's co-processing split, where only the hot
#: search and its reduction run on the device.
PARTITIONS: dict[str, tuple[str, ...]] = {
    "all": NAMES,
    "none": (),
    "coprocess": ("ssd", "reduce"),
}


def parse_partition(spec: Any) -> tuple[str, ...]:
    """Stages to run on the device, in pipeline order, from a partition name (``'all'``,
    ``'none'``, ``'coprocess'``), a comma-separated list of stage names, or a sequence of names.

    Raises
    ------
    InputError
        An unknown partition or stage name.
    """
    if isinstance(spec, str):
        text = spec.strip().lower()
        if text in PARTITIONS:
            return PARTITIONS[text]
        names = [s.strip() for s in text.split(",") if s.strip()]
    else:
        names = list(spec)
    bad = [s for s in names if s not in BY_NAME]
    if bad:
        raise InputError(f"unknown stage(s) in --partition: {', '.join(map(str, bad))}; stages are "
                         f"{', '.join(NAMES)}, or a named partition: {', '.join(PARTITIONS)}")
    return tuple(s for s in NAMES if s in names)


def bundle_for(rt: Any, stages: tuple[str, ...], patch: int, variant: str = "auto",
               prune: Any = "auto", resident: bool = False) -> tuple:
    """The one program for ``stages`` on the device: ``(kernel files, defines)``, the files of
    the stages and the union of the defines they need (findBestPatch's only when it runs on the
    device).  ``resident`` adds the device-resident loop's kernels (``kernels/criminisi/loop.cl``;
    every stage must be on the device)."""
    opencl = _sc()
    defines: dict[str, Any] = opencl.common_defines(rt)
    if "ssd" in stages:
        defines.update(opencl.FindBestPatch.plan(rt, patch, variant, prune)[3])
    files = tuple(BY_NAME[s].kernel_file for s in stages)
    if resident:
        files += (opencl.LOOP_FILE,)
    return files, defines
