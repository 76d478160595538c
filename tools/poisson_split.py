"""The Poisson correction's two local-memory sweeps on one device: a work-group a channel or one for all.

Usage: ``python tools/poisson_split.py [REPEATS] [DEVICE]`` (DEVICE as for ``--device``; default:
the best device).  For each case of ``datasets/`` it runs the default fill with
``Poisson.SPLIT_CHANNELS`` on and off, the two taking turns, REPEATS times each (default 9) after a
warm-up, and prints a Markdown table of the median device time of the correction (the fill's
``poisson`` stage) and whether the two fills are identical.  The setting that wins is the one to
keep in :class:`inpaint.methods.multiscale.opencl.Poisson`.
"""

from __future__ import annotations

import statistics
import sys

import numpy as np

from inpaint.api import inpaint
from inpaint.cl.runtime import get_runtime
from inpaint.io.cases import case_names, load_case
from inpaint.methods.multiscale.opencl import Poisson


def fill(case, device, split: bool):
    Poisson.SPLIT_CHANNELS = split  # read at each correction, so the cached kernels serve both
    return inpaint(case.image, case.mask, backend="opencl", device=device, timings=True)


def main() -> int:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    rt = get_runtime(device=sys.argv[2] if len(sys.argv) > 2 else None)
    print(f"device: {rt.name}\n")
    print("| case | split: poisson ms | one group: poisson ms | identical |\n|---|---|---|---|")
    differ = 0
    for name in case_names():
        case = load_case(name)
        last = {split: fill(case, rt.device, split) for split in (True, False)}  # warm-up: kernel builds
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(repeats):
            for split in (True, False):
                last[split] = fill(case, rt.device, split)
                times[split].append(last[split].stats.stage_seconds["poisson"])
        same = all(np.array_equal(getattr(last[True], a), getattr(last[False], a)) for a in ("image", "source_map"))
        differ += not same
        on, off = (statistics.median(times[s]) * 1e3 for s in (True, False))
        print(f"| {name} | {on:.2f} | {off:.2f} | {'yes' if same else 'NO'} |", flush=True)
    return int(differ > 0)


if __name__ == "__main__":
    sys.exit(main())
