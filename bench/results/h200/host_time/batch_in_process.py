"""A one-job batch of 60 photos of 512x384 run in-process (``inpaint.cli.main``), three times after a
warm-up: where the main thread spends each image (waiting for the read, the fill, waiting for the
writer) and the writer's own time per image.

Usage: ``python batch_in_process.py DEVICE`` from the repository root.
"""

import collections
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, "tools")
from gpu_speed import make_batch

import inpaint.api as api
from inpaint.cli import batch as bmod, main

spent: dict = collections.defaultdict(list)


def timed(owner, name, label):
    call = getattr(owner, name)

    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            spent[label].append(time.perf_counter() - t)
    setattr(owner, name, wrapper)


timed(bmod.ReadAhead, "take", "main: wait for the read")
timed(api, "inpaint", "main: fill (inpaint())")
timed(bmod.WriteBehind, "settle", "main: wait for the writer")
_submit = bmod.WriteBehind.submit


def submit(self, last):
    def timed_last():
        t = time.perf_counter()
        try:
            return last()
        finally:
            spent["writer: encode, write, report"].append(time.perf_counter() - t)
    return _submit(self, timed_last)


bmod.WriteBehind.submit = submit
dev = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    folder = make_batch(Path(tmp) / "b", Path("datasets/walkingman/image.png"), 60)
    main([str(folder), "-o", f"{tmp}/w/", "-q", "-y", "--device", dev])
    for r in range(3):
        spent.clear()
        t = time.perf_counter()
        main([str(folder), "-o", f"{tmp}/o{r}/", "-q", "-y", "--device", dev])
        wall = time.perf_counter() - t
        print(f"run {r}: {wall:.3f} s, {60 / wall:.1f} images/s")
        for key, values in spent.items():
            print(f"  {key:34s} n {len(values):3d}  total {sum(values):.3f} s  "
                  f"median {statistics.median(values) * 1e3:.2f} ms")
