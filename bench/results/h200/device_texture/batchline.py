"""Where a one-job batch of 60 photos of 512x384 spends its time, in-process: each thread's phases.

Usage: ``python batchline.py DEVICE [RUNS]`` from the root of the tree to measure (default 3 runs
in one process).  For each run: its wall time, when the first fill starts, each image's whole
job and fill for the first 12 images, and each phase's total and mean a photo, by thread.
"""

import collections
import sys
import tempfile
import threading
import time
from pathlib import Path

import inpaint.api as api
import inpaint.cli.batch as cb
import inpaint.cli.perimage as pi
import inpaint.cli.remove as rm
import inpaint.methods.base as base
from inpaint.cli import main

sys.path.insert(0, "tools")
from gpu_speed import make_batch

spans = []  # (thread, name, start, end)


def timed(owner, name, label):
    call = getattr(owner, name)

    def wrapper(*a, **k):
        s = time.perf_counter()
        try:
            return call(*a, **k)
        finally:
            spans.append((threading.current_thread().name, label, s, time.perf_counter()))
    setattr(owner, name, wrapper)


timed(cb.ReadAhead, "take", "wait read")
timed(cb.ReadAhead, "_reading", "read")
timed(cb.WriteBehind, "settle", "wait write")
timed(pi.ImageRun, "save", "save")
timed(rm, "_remove", "remove")
timed(api, "start", "fill start")
timed(base.StepwiseJob, "run", "fill run")
dev = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
with tempfile.TemporaryDirectory() as tmp:
    batch = make_batch(Path(tmp) / "b", Path("datasets/walkingman/image.png"), 60)
    for r in range(runs):
        spans.clear()
        t0 = time.perf_counter()
        rc = main([str(batch), "-o", f"{tmp}/o{r}/", "-q", "--device", dev])
        wall = time.perf_counter() - t0
        tot: dict = collections.defaultdict(float)
        cnt: collections.Counter = collections.Counter()
        first = min(s for _, n, s, _ in spans if n == "fill start") - t0
        for th, n, s, e in spans:
            key = (th.split("_")[0][:16], n)
            tot[key] += e - s
            cnt[key] += 1
        print(f"run {r}: rc {rc} wall {wall:.3f} s, {60 / wall:.1f} img/s; first fill starts at {first * 1e3:.0f} ms; "
              f"steady {(wall - first) / 60 * 1e3:.1f} ms a photo")
        for label in ("remove", "fill run"):
            each = [(e - s) * 1e3 for _, n, s, e in spans if n == label]
            print(f"   {label} ms, first 12:", " ".join(f"{x:.0f}" for x in each[:12]),
                  f"| median of the last 40: {sorted(each[20:])[20]:.1f}")
        for key in sorted(tot, key=lambda k: -tot[k]):
            print(f"   {key[0]:16s} {key[1]:12s} n={cnt[key]:3d} total {tot[key] * 1e3:7.1f} ms  "
                  f"mean {tot[key] / cnt[key] * 1e3:6.2f} ms")
