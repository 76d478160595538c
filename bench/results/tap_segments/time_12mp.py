"""Seconds of one tap on each tune photo enlarged to 4000x3000 (the first seeded user's first tap,
median of 3).  Usage: ``python bench/results/tap_segments/time_12mp.py`` from the repository root."""

import statistics
import sys
import time

import numpy as np
from PIL import Image

sys.path.insert(0, "tools")
import tap_select_eval as T

from inpaint import select

medians = []
for name, image, obj in T.load_sets()["tune"]:
    big = np.asarray(Image.fromarray(image).resize((4000, 3000), Image.BICUBIC))
    ty, tx = T.tap_point(obj, np.random.default_rng(0))
    tap = [(int(tx * 4000 / obj.shape[1]), int(ty * 3000 / obj.shape[0]))]
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        select.select_point(big, tap)
        runs.append(time.perf_counter() - t0)
    medians.append(statistics.median(runs))
    print(f"{name:18s} {medians[-1]:.3f}", flush=True)
print(f"median over photos {statistics.median(medians):.3f}, max {max(medians):.3f}")
