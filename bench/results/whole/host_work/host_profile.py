"""Where a 12 MP default fill's host time goes, with the device's time kept out of it.

Usage: ``RUNS=3 python bench/results/whole/host_work/host_profile.py [DEVICE]`` from the root of
the tree to measure (``PYTHONPATH`` on it).  The photo and hole are those of ``inpaint bench
scaling``.  Each host function of the fill's OpenCL path is wrapped in a timer that first waits
until the device's queue is empty, so that its time is its own host work and none of it waits on
kernels.  Prints the median fill and each function's median time per fill over ``RUNS`` fills
after a warm-up.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image

from inpaint.api import inpaint
from inpaint.methods.multiscale import job, opencl, reference
from inpaint_bench.scaling import make_case

QUEUE: list = []  # the fill's runtime, once its pyramid is built
TIMES: dict[str, float] = defaultdict(float)


def finished() -> None:
    if QUEUE:
        QUEUE[0].queue.finish()


def wrap(owner, name: str, label: str) -> None:
    fn = getattr(owner, name)

    def timed(*args, **kw):
        finished()
        t = time.perf_counter()
        out = fn(*args, **kw)
        TIMES[label] += time.perf_counter() - t
        return out

    setattr(owner, name, timed)


def main() -> None:
    device = sys.argv[1] if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory() as tmp:
        photo, mask_path, _ = make_case(12, 0.03, Path(tmp))
        image = np.asarray(Image.open(photo).convert("RGB"))
        mask = np.asarray(Image.open(mask_path).convert("L")) > 127
    pyramid = opencl.device_pyramid

    def device_pyramid(rt, *args, **kw):
        QUEUE[:] = [rt]
        return pyramid(rt, *args, **kw)

    opencl.device_pyramid = device_pyramid
    for owner, name in ((job, "hole_groups"), (job, "free_count"), (job, "mask_pyramid"), (job, "prepare_level"),
                        (job, "onion_layers"), (opencl, "valid_ends"), (reference, "expected_texture"),
                        (opencl, "device_pyramid"), (opencl.DeviceLevel, "__init__"), (opencl.DeviceLevel, "values")):
        wrap(owner, name, f"{owner.__name__.rsplit('.', 1)[-1]}.{name}")
    kw = dict(backend="opencl", device=device, timings=False)
    inpaint(image, mask, **kw)
    runs, steps = [], defaultdict(list)
    for _ in range(int(os.environ.get("RUNS", "3"))):
        TIMES.clear()
        t = time.perf_counter()
        inpaint(image, mask, **kw)
        runs.append(time.perf_counter() - t)
        for label, sec in TIMES.items():
            steps[label].append(sec)
    print(f"fill (queue finished before each host step): median {statistics.median(runs):.3f} s")
    medians = {label: statistics.median(v) for label, v in steps.items()}
    for label, sec in sorted(medians.items(), key=lambda kv: -kv[1]):
        print(f"  {label:28s} {sec * 1e3:8.1f} ms")
    print(f"  {'sum':28s} {sum(medians.values()) * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
