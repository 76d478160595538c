"""WalkingMan in-process on the default OpenCL device: ``--vote colours`` against ``gradients``,
interleaved, medians of N runs after a warm-up of each.  Usage: ``python speed_walkingman.py [N]``."""

import platform
import statistics
import sys
import time

from inpaint.api import inpaint
from inpaint.io.cases import load_case

case = load_case("walkingman")
n = int(sys.argv[1]) if len(sys.argv) > 1 else 21
for vote in ("colours", "gradients"):
    inpaint(case.image, case.mask, backend="opencl", vote=vote)  # warm-up: build and first launches
times = {"colours": [], "gradients": []}
for _ in range(n):
    for vote in times:
        t0 = time.perf_counter()
        inpaint(case.image, case.mask, backend="opencl", vote=vote)
        times[vote].append(time.perf_counter() - t0)
medians = {v: statistics.median(x) * 1000 for v, x in times.items()}
print(platform.processor() or platform.machine(), "runs", n)
for vote, x in times.items():
    print(f"{vote}: median {medians[vote]:.1f} ms, min {min(x) * 1000:.1f}, max {max(x) * 1000:.1f}")
print(f"ratio {medians['gradients'] / medians['colours']:.2f}")
