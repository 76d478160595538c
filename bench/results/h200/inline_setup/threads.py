"""Per-thread CPU time of a process filling WalkingMan 300 times, by blocks of 30 fills: which thread works
when the fill is slow, and which when it is fast."""

import os
import statistics
import sys
import time

import numpy as np
from PIL import Image

from inpaint.api import inpaint

img = np.asarray(Image.open("datasets/walkingman/image.png").convert("RGB"))
mask = np.asarray(Image.open("datasets/walkingman/mask.png").convert("L")) > 127
kw = dict(backend="opencl", device="NVIDIA")
tick = os.sysconf("SC_CLK_TCK")


def cpu():
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            f = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)
            name = open(f"/proc/self/task/{tid}/comm").read().strip()
            parts = f[1].split()
            out[(tid, name)] = (int(parts[11]) + int(parts[12])) / tick, int(parts[36])  # utime+stime, last cpu
        except OSError:
            pass
    return out


inpaint(img, mask, **kw)
for _block in range(int(sys.argv[1]) if len(sys.argv) > 1 else 12):
    before, t0, ts = cpu(), time.perf_counter(), []
    for _ in range(30):
        t = time.perf_counter()
        inpaint(img, mask, **kw)
        ts.append(time.perf_counter() - t)
    wall, after = time.perf_counter() - t0, cpu()
    busy = {f"{k[1]}:{k[0]}@{after[k][1]}": round((after[k][0] - before.get(k, (0, 0))[0]) / wall, 2) for k in after}
    busy = {k: v for k, v in busy.items() if v > 0.02}
    print(f"median {1e3 * statistics.median(ts):.2f} ms; cpu share {busy}", flush=True)
