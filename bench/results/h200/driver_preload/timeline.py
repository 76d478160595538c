"""When the command starts loading the OpenCL drivers and when it first needs them.

Usage: ``python timeline.py INPAINT_ARGS...`` from the repository root: runs the command as
``python -m inpaint`` does, with :func:`inpaint.cl.preload.start` and ``wait`` timed (ms from this
script's start, and how many modules were loaded then), on standard error.
"""

import runpy
import sys
import time

from inpaint.cl import preload

T0 = time.perf_counter()
_start, _wait = preload.start, preload.wait


def start() -> bool:
    started = _start()
    print(f"start {1e3 * (time.perf_counter() - T0):.0f} ms mods={len(sys.modules)} -> {started}", file=sys.stderr)
    return started


def wait() -> None:
    t = time.perf_counter()
    _wait()
    print(f"wait at {1e3 * (t - T0):.0f} ms waited {1e3 * (time.perf_counter() - t):.0f} ms mods={len(sys.modules)}",
          file=sys.stderr)


preload.start, preload.wait = start, wait
sys.argv = ["inpaint", *sys.argv[1:]]
runpy.run_module("inpaint", run_name="__main__")
