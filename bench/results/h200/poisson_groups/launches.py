"""Per-kernel launches and device time of five default fills, then in-process times and a host profile.

Usage: ``python bench/results/h200/poisson_groups/launches.py DEVICE [walkingman|12mp]`` from the
repository root (``12mp``: the photo and hole of ``inpaint bench scaling``).  Every launch, named
or bound (``pyopencl.enqueue_nd_range_kernel``, a large hole's sweeps; marked ``*``), is recorded
with its event; the fills run with a profiling queue.
"""

from __future__ import annotations

import collections
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyopencl
from PIL import Image

from inpaint import api
from inpaint.cl import build
from inpaint.io.cases import load_case


def main() -> None:
    device = sys.argv[1]
    case = sys.argv[2] if len(sys.argv) > 2 else "walkingman"
    if case == "12mp":
        sys.path[:0] = [os.path.join(os.getcwd(), "bench")]
        from inpaint_bench.scaling import make_case

        photo, hole, _ = make_case(12, 0.03, Path(tempfile.mkdtemp()))
        image = np.asarray(Image.open(photo).convert("RGB"))
        mask = np.asarray(Image.open(hole).convert("L")) > 127
    else:
        c = load_case(case)
        image, mask = c.image, c.mask
    fills = 5 if case != "12mp" else 2
    record = []
    named, bound = build.NamedKernel.__call__, pyopencl.enqueue_nd_range_kernel

    def call(self, queue, g, lo, /, **kw):
        ev = named(self, queue, g, lo, **kw)
        record.append((self.name, tuple(g), tuple(lo) if lo else None, ev))
        return ev

    def enqueue(queue, knl, g, lo, *a, **kw):
        ev = bound(queue, knl, g, lo, *a, **kw)
        record.append((knl.function_name + "*", tuple(g), tuple(lo) if lo else None, ev))
        return ev

    build.NamedKernel.__call__, pyopencl.enqueue_nd_range_kernel = call, enqueue
    api.inpaint(image, mask, device=device)
    info = pyopencl.profiling_info
    for r in range(fills):
        record.clear()
        t = time.perf_counter()
        res = api.inpaint(image, mask, device=device)
        wall = time.perf_counter() - t
        total = collections.defaultdict(lambda: [0, 0.0, set()])
        for name, g, lo, ev in record:
            ev.wait()
            total[name][0] += 1
            total[name][1] += (ev.get_profiling_info(info.END) - ev.get_profiling_info(info.START)) * 1e-6
            total[name][2].add((g, lo))
        stages = {k: round(v * 1000, 2) for k, v in res.stats.stage_seconds.items()}
        print(f"fill {r}: wall {wall * 1000:.1f} ms, launches {len(record)}, kernel sum "
              f"{sum(v[1] for v in total.values()):.2f} ms, stages {stages}")
    for name, (n, ms, sizes) in sorted(total.items(), key=lambda kv: -kv[1][1]):
        print(f"  {name:32s} {n:4d} launches {ms:7.3f} ms  sizes {sorted(sizes)[:6]}")
    events = [ev for *_, ev in record]
    span = max(e.get_profiling_info(info.END) for e in events) - min(e.get_profiling_info(info.START) for e in events)
    print(f"device span first start to last end: {span * 1e-6:.2f} ms")
    build.NamedKernel.__call__, pyopencl.enqueue_nd_range_kernel = named, bound
    reps = 10 if case != "12mp" else 3
    medians = []
    for _ in range(3):
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            api.inpaint(image, mask, device=device, timings=False)
            times.append(time.perf_counter() - t)
        medians.append(statistics.median(times))
    print(f"in-process, no profiling, medians of {reps}:", [round(x * 1000, 1) for x in medians])
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(reps):
        api.inpaint(image, mask, device=device, timings=False)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(60)
    print(out.getvalue())


if __name__ == "__main__":
    main()
