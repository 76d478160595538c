"""The Criminisi pipeline's eight stages, stated once.

Each :class:`Stage` says what the stage is called (and how the paper's Table 2 names it),
which arrays it reads and writes, its kernel file, how to build its OpenCL wrapper
(:mod:`inpaint.methods.criminisi.opencl`), and how to run it on either side: ``host`` calls
the numpy reference (:mod:`inpaint.methods.criminisi.reference`), ``device`` the wrapper.
Every stage works on one :class:`StageContext` (the picture's size, the patch, the object's
box, the arrays on both sides, the runtime and the kernels), never on the job.
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
        ``wrapper(rt, ctx, bundle)`` builds the stage's OpenCL wrapper on runtime ``rt`` for the
        :class:`StageContext` ``ctx``.
    host : callable
        ``host(ctx, *args)`` runs the numpy reference on ``ctx``'s host arrays.
    device : callable
        ``device(ctx, kernel, *args)`` launches the wrapper ``kernel`` on ``ctx``'s device buffers
        and returns the launch event(s).
    """

    name: str
    label: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    kernel_file: str
    wrapper: Callable[[Any, Any, Any], Any]
    host: Callable[..., None]
    device: Callable[..., Any]

    def run(self, ctx: StageContext, on_device: bool, *args: Any) -> Any:
        """Run the stage on ``ctx``: on the device with its kernel (``ctx.kernels``; returns the
        launch event or events), else on the host (returns None)."""
        if on_device:
            return self.device(ctx, ctx.kernels[self.name], *args)
        self.host(ctx, *args)
        return None


@dataclasses.dataclass
class StageContext:
    """What the stages work on: one object the job makes and hands to every stage.

    The job fills it in as it sets up: the sizes first, then the runtime and the kernels once
    the device is open (numpy: none), then the buffers.

    Attributes
    ----------
    width, height : int
        The picture's size.
    patch : int
        The patch side P (:attr:`half` = P // 2).
    box : tuple
        The object's box ``(x0, y0, x1, y1)``: the fill front and the highest priority lie in it.
    variant, prune
        findBestPatch's kernel variant and pruning, as the job was given them (its wrapper's).
    buffers : Buffers
        The arrays (the picture, grey, the masks, confidence, priorities, the SSD map, the
        result): ``buffers.host`` on the host, ``buffers.dev`` on the device, each kept fresh where a
        stage reads it (:class:`inpaint.methods.criminisi.buffers.Buffers`).
    runtime : inpaint.cl.runtime.Runtime or None
        The device's runtime (its queue, its limits: the device profile's), None on numpy.
    kernels : dict
        Each device stage's wrapper, by stage name (and the device-resident loop's, ``'loop'``).
    """

    width: int
    height: int
    patch: int
    box: tuple
    variant: str = "auto"
    prune: Any = "auto"
    buffers: Any = None
    runtime: Any = None
    kernels: dict = dataclasses.field(default_factory=dict)

    @property
    def half(self) -> int:
        """The patch's half side."""
        return self.patch // 2


def _sc() -> Any:
    from . import opencl  # pyopencl: imported only when a device runs a stage

    return opencl


# -- numpy side: ctx.buffers.host holds the arrays ------------------------------------------------
def _grey_host(ctx: StageContext, rect: Any) -> None:
    a = ctx.buffers.host
    reference.grey(a["rgb"], a["grey"], rect)


def _front_host(ctx: StageContext, rect: Any) -> None:
    a = ctx.buffers.host
    reference.front(a["unknown"], a["front"], rect)


def _valid_host(ctx: StageContext, rect: Any, use_integral: bool = False) -> None:
    a = ctx.buffers.host
    reference.valid(a["unknown"], a["valid"], rect, ctx.half)


def _confidence_host(ctx: StageContext, rect: Any) -> None:
    a = ctx.buffers.host
    reference.confidence(a["conf"], a["front"], a["cpatch"], rect, ctx.half)


def _priority_host(ctx: StageContext, rect: Any) -> None:
    a = ctx.buffers.host
    reference.priority(a["grey"], a["unknown"], a["front"], a["cpatch"], a["prio"], rect)
    a["result"][0] = reference.argmax_priority(a["prio"], ctx.box)


def _ssd_host(ctx: StageContext, centres: Any) -> None:
    a = ctx.buffers.host
    reference.ssd(a["rgb"][..., :3], a["unknown"], a["valid"], int(a["result"][0]), centres, ctx.half, a["ssd"])


def _reduce_host(ctx: StageContext, n: int) -> None:
    a = ctx.buffers.host
    idx, val = reference.argmin_ssd(a["ssd"], n)
    a["result"][1] = idx
    a["result"][2] = np.int64(val).astype(np.uint32).view(np.int32)


def _copy_host(ctx: StageContext, target: Any, source: Any) -> None:
    a = ctx.buffers.host
    reference.copy_patch(a["rgb"], a["grey"], a["unknown"], a["conf"], a["cpatch"], target, source, ctx.half)


# -- device side: ctx.buffers.dev holds the buffers ------------------------------------------------
def _priority_device(ctx: StageContext, k: Any, rect: Any) -> list:
    b = ctx.buffers.dev
    return [k(b, ctx.width, ctx.height, rect), k.best(b, ctx.width, ctx.box)]


STAGES: tuple[Stage, ...] = (
    Stage("grey", "convert RGB to grey", ("rgb",), ("grey",), "criminisi/grey",
          lambda rt, ctx, bundle: _sc().Grey(rt, bundle), _grey_host,
          lambda ctx, k, rect: k(ctx.buffers.dev, ctx.width, rect)),
    Stage("front", "update border of the area to be filled", ("unknown",), ("front",), "criminisi/front",
          lambda rt, ctx, bundle: _sc().Front(rt, bundle), _front_host,
          lambda ctx, k, rect: k(ctx.buffers.dev, ctx.width, ctx.height, rect)),
    Stage("valid", "mark source pixels to be used", ("unknown",), ("valid",), "criminisi/valid",
          lambda rt, ctx, bundle: _sc().Valid(rt, bundle), _valid_host,
          lambda ctx, k, rect, use_integral=False: k(ctx.buffers.dev, ctx.width, ctx.height, ctx.half, rect, ctx.box,
                                                     use_integral)),
    Stage("confidence", "update pixel confidence in the filling area", ("conf", "front"), ("cpatch",),
          "criminisi/confidence",
          lambda rt, ctx, bundle: _sc().Confidence(rt, bundle), _confidence_host,
          lambda ctx, k, rect: k(ctx.buffers.dev, ctx.width, ctx.height, ctx.half, rect)),
    Stage("priority", "update pixel priorities in the filling area", ("grey", "unknown", "front", "cpatch", "result"),
          ("prio", "result"), "criminisi/priority",
          lambda rt, ctx, bundle: _sc().Priority(rt, bundle), _priority_host, _priority_device),
    Stage("ssd", "find the best matching patch", ("rgb", "unknown", "valid", "result"), ("ssd",), "criminisi/ssd",
          lambda rt, ctx, bundle: _sc().FindBestPatch(rt, ctx.patch, ctx.variant, ctx.prune, bundle), _ssd_host,
          lambda ctx, k, centres: k(ctx.buffers.dev, ctx.width, ctx.height, centres)),
    Stage("reduce", "best-patch reduction", ("ssd", "result"), ("result",), "criminisi/reduce",
          lambda rt, ctx, bundle: _sc().Reduce(rt, bundle), _reduce_host,
          lambda ctx, k, n: k(ctx.buffers.dev, n)),
    Stage("copy", "update RGB and grey image of the filling patch", ("rgb", "grey", "unknown", "conf", "cpatch"),
          ("rgb", "grey", "unknown", "conf"), "criminisi/copy",
          lambda rt, ctx, bundle: _sc().Copy(rt, bundle), _copy_host,
          lambda ctx, k, target, source: k(ctx.buffers.dev, ctx.width, ctx.height, ctx.half, target, source)),
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
        if not names:  # (an empty text would silently run every stage in numpy)
            raise InputError(f"the device stages (--device-stages) name no stage; give {', '.join(PARTITIONS)} "
                             "or stages of " + ",".join(NAMES))
    elif isinstance(spec, (list, tuple)):
        names = list(spec)
    else:
        raise InputError(f"partition must be a name ({', '.join(PARTITIONS)}), a comma-separated list of stages "
                         f"or a sequence of stage names, got {spec!r}")
    bad = [s for s in names if s not in BY_NAME]
    if bad:
        raise InputError(f"unknown stage(s) in the device stages (--device-stages): {', '.join(map(str, bad))}; "
                         "stages are "
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
