"""A batch command's timeline in its own process: when each fill starts and ends, each write
ends and the command ends (ms from this script's start), and the time in ``check_output``; then
the clock times of this script's start, the command's end and its process's ``os._exit``
(``ABS`` lines, for ``exit.sh``).

Usage: ``[SWITCH=SECONDS] python batch_timeline.py FOLDER -o OUT/ -q -y --device DEVICE`` from the
repository root: the command ``inpaint FOLDER ...``, run as the program (its drivers loaded
ahead), with the interpreter's switch interval set to SWITCH when given.
"""

import os
import runpy
import sys
import time

T0 = time.perf_counter()
T0_ABS = time.time()
marks: list = []
checks = [0.0, 0]


def mark(what):
    marks.append(((time.perf_counter() - T0) * 1e3, what))


def report():
    starts = [t for t, w in marks if w == "fill start"]
    ends = [t for t, w in marks if w == "fill end"]
    lines = [f"{t:8.1f} {w}" for t, w in marks[:8]] + ["..."] + [f"{t:8.1f} {w}" for t, w in marks[-6:]]
    sys.__stderr__.write("\n".join(lines) + "\n")
    fills = sorted(e - s for s, e in zip(starts, ends))
    gaps = sorted(s2 - e1 for e1, s2 in zip(ends, starts[1:]))
    sys.__stderr__.write(
        f"first fill {ends[0] - starts[0]:.1f} ms, second {ends[1] - starts[1]:.1f}, "
        f"median {fills[len(fills) // 2]:.1f}; "
        f"median gap between fills {gaps[len(gaps) // 2]:.2f} ms; first fill starts {starts[0]:.1f} ms; "
        f"last fill ends {ends[-1]:.1f} ms; check_output {checks[0] * 1e3 / len(fills):.2f} ms an image "
        f"({checks[1]} calls)\n")


if os.environ.get("SWITCH"):
    sys.setswitchinterval(float(os.environ["SWITCH"]))

import inpaint.api as api  # noqa: E402
from inpaint import io as imageio  # noqa: E402
from inpaint.cli import batch as bmod, guard  # noqa: E402

mark("inpaint.api imported")
_inpaint, _check_output = api.inpaint, imageio.check_output
_submit, _end = bmod.WriteBehind.submit, guard.end_process


def inpaint(*args, **kwargs):
    mark("fill start")
    try:
        return _inpaint(*args, **kwargs)
    finally:
        mark("fill end")


def check_output(*args, **kwargs):
    t = time.perf_counter()
    try:
        return _check_output(*args, **kwargs)
    finally:
        checks[0] += time.perf_counter() - t
        checks[1] += 1


def submit(self, last):
    def timed():
        try:
            return last()
        finally:
            mark("write end")
    return _submit(self, timed)


def end_process(status):
    mark("end_process")
    report()
    sys.__stderr__.write(f"ABS t0 {T0_ABS:.4f} end_process {time.time():.4f}\n")
    exit_now = os._exit

    def timed_exit(code):
        sys.__stderr__.write(f"ABS _exit {time.time():.4f}\n")
        sys.__stderr__.flush()
        exit_now(code)
    os._exit = timed_exit
    _end(status)


api.inpaint, imageio.check_output = inpaint, check_output
bmod.WriteBehind.submit, guard.end_process = submit, end_process
sys.argv = ["inpaint"] + sys.argv[1:]
runpy.run_module("inpaint", run_name="__main__", alter_sys=True)
