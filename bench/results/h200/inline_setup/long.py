"""Per-process drift: 300 default WalkingMan fills in one process, medians of blocks of 30; three processes."""

import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import statistics, sys, time
import numpy as np
from PIL import Image
from inpaint.api import inpaint
img = np.asarray(Image.open(sys.argv[1]).convert("RGB")); mask = np.asarray(Image.open(sys.argv[2]).convert("L")) > 127
kw = dict(backend="opencl", device="NVIDIA", timings=False)
ts = []
for _ in range(300):
    t = time.perf_counter(); inpaint(img, mask, **kw); ts.append(time.perf_counter() - t)
print([round(1e3 * statistics.median(ts[i:i + 30]), 2) for i in range(0, 300, 30)])
"""
wm = Path("datasets/walkingman").resolve()
for _k in range(4):
    p = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(wm / "image.png"), str(wm / "mask.png")], capture_output=True, text=True
    )
    print(p.stdout.strip() or p.stderr[-300:], flush=True)
