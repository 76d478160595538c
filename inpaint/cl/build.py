"""Building OpenCL programs from the kernel files, and telling listeners about it.

Every program is built with ``-cl-fp32-correctly-rounded-divide-sqrt`` and the sources switch
``FP_CONTRACT`` off, so float32 results match numpy bit for bit.  :class:`inpaint.cl.runtime.Runtime`
caches what is built here, once per context.  Build listeners (:func:`add_build_listener`) hear
when a build starts and ends, so a command can tell the user about a first, uncached compilation.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import warnings
from typing import Any, Callable, Mapping, Sequence

from ..cancel import signals_held
from ..resources import kernel_source
from .kcache import distrust

#: Build options every program gets (exact float32 divide/sqrt, OpenCL C 1.2 subset).
BASE_OPTIONS = ("-cl-fp32-correctly-rounded-divide-sqrt",)

_BUILD_LISTENERS: list[Callable[[str, tuple[str, ...], float], Any]] = []


def add_build_listener(listener: Callable[[str, tuple[str, ...], float], Any]) -> None:
    """Call ``listener(event, sources, seconds)`` around every program build in this process:
    ``event`` is ``'start'`` (``seconds`` 0) or ``'end'`` (the build's wall time)."""
    _BUILD_LISTENERS.append(listener)


def remove_build_listener(listener: Callable[[str, tuple[str, ...], float], Any]) -> None:
    """Stop calling ``listener`` (see :func:`add_build_listener`)."""
    if listener in _BUILD_LISTENERS:
        _BUILD_LISTENERS.remove(listener)


def _define(value: Any) -> str:
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


def build_options(defines: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """Build options for ``defines`` (sorted, so equal defines share one program)."""
    opts = list(BASE_OPTIONS)
    for key in sorted(defines or {}):
        opts.append(f"-D{key}={_define(defines[key])}")
    return tuple(opts)


def _build_afresh(cl: Any, context: Any, text: str, options: list[str], exc: Exception) -> Any:
    """Build once more where no cache can answer: into a fresh, empty pyopencl cache folder, from
    a source text the driver's own cache has never seen.  A truncated or corrupt cache entry fails
    a build, or yields a program without its kernels, that is otherwise fine.  A build that fails
    again is a real failure, and the first error is raised."""
    fresh = tempfile.mkdtemp(prefix="inpaint-kernels-")
    # A declaration, not a comment: PoCL keys its cache on the preprocessed source.
    unseen = f"{text}\n__constant uint inpaint_built_afresh_{os.getpid()}_{time.time_ns()} = 0u;\n"
    try:
        prg = cl.Program(context, unseen).build(options=options, cache_dir=fresh)
    except cl.Error:
        raise exc from None
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    distrust()
    warnings.warn(RuntimeWarning("the OpenCL kernel cache gave an unusable program; the kernels were rebuilt "
                                 f"without it ({' '.join(str(exc).split())[:120]})"))
    return prg


def build(context: Any, sources: Sequence[str], defines: Mapping[str, Any] | None = None,
          failed: Exception | None = None) -> tuple[Any, float]:
    """Build ``kernels/<stem>.cl`` of every stem of ``sources`` as one program.

    Parameters
    ----------
    context : pyopencl.Context
    sources : sequence of str
        Kernel file stems, e.g. ``('common/hash', 'multiscale/patchmatch')``, concatenated in order.
    defines : mapping, optional
        ``-D`` build-time specialisation.
    failed : Exception, optional
        The error a program built before from these sources gave (a missing kernel): build
        afresh, past every cache, and raise ``failed`` if that fails too.

    Returns
    -------
    program : pyopencl.Program
    seconds : float
        The build's wall time (or the driver's cache load).
    """
    import pyopencl as cl

    sources = tuple(sources)
    with signals_held():  # the listeners' threads (a timer) are started held too
        for listener in list(_BUILD_LISTENERS):
            listener("start", sources, 0.0)
        t = time.perf_counter()
        text = "\n".join(kernel_source(s) for s in sources)
        options = list(build_options(defines))
        if failed is not None:
            prg = _build_afresh(cl, context, text, options, failed)
        else:
            try:
                prg = cl.Program(context, text).build(options=options)
            except cl.Error as exc:
                prg = _build_afresh(cl, context, text, options, exc)
        seconds = time.perf_counter() - t
    for listener in list(_BUILD_LISTENERS):
        listener("end", sources, seconds)
    return prg, seconds
