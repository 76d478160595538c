"""Does the slow mode follow the garbage collector or the buffer pool? 300 fills a process, blocks of 30."""

import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import gc, statistics, sys, time
import numpy as np
from PIL import Image
from inpaint.api import inpaint
from inpaint.cl import runtime
img = np.asarray(Image.open(sys.argv[1]).convert("RGB")); mask = np.asarray(Image.open(sys.argv[2]).convert("L")) > 127
mode = sys.argv[3]
if mode == "disable": gc.disable()
kw = dict(backend="opencl", device="NVIDIA", timings=False)
made = [0]
orig = runtime.Runtime.buffer
ts, info = [], []
for i in range(300):
    t = time.perf_counter(); inpaint(img, mask, **kw); ts.append(time.perf_counter() - t)
    if mode == "collect": gc.collect()
    if i % 30 == 29:
        rt = next(iter(runtime._RUNTIMES.values()))
        p = rt._pool
        info.append((p.held_blocks, p.active_blocks, p.managed_bytes >> 20, gc.get_count()))
print(mode, [round(1e3 * statistics.median(ts[i:i + 30]), 2) for i in range(0, 300, 30)])
print("   pool held/active/MB, gc counts:", info)
"""
wm = Path("datasets/walkingman").resolve()
for mode in ["plain", "collect", "disable", "plain", "collect", "disable"]:
    p = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(wm / "image.png"), str(wm / "mask.png"), mode],
        capture_output=True,
        text=True,
    )
    print(p.stdout.strip() or p.stderr[-500:], flush=True)
