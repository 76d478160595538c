"""The time left a fill's progress would show, against the time it really had left.

Usage: ``python bench/results/whole/progress_eta/eta.py IMAGE MASK BACKEND TREE`` (TREE: a
checkout whose ``inpaint`` to use).  Steps the default fill as the command does and, after each
step, computes the estimate the progress display shows (the pace so far: elapsed / fraction x
(1 - fraction)); prints ``fraction:ratio`` pairs, the ratio being estimate / real time left, for
fractions between 2 % and 98 %.
"""
import sys
import time

import numpy as np
from PIL import Image

sys.path.insert(0, sys.argv[4])
import inpaint.api as api

img = np.asarray(Image.open(sys.argv[1]).convert("RGB"))
m = np.asarray(Image.open(sys.argv[2])) > 0
job = api.start(img, m, backend=sys.argv[3])
t0 = time.perf_counter()
pts = []
while not job.done:
    job.step()
    pts.append((time.perf_counter() - t0, job.progress))
job.result()
T = time.perf_counter() - t0
rat = [(f, (t / f * (1 - f)) / (T - t)) for t, f in pts if 0.02 < f < 0.98 and T - t > 0.05]
shown = rat[::max(1, len(rat) // 10)]
print(sys.argv[4], sys.argv[3], f"total {T:.2f}", " ".join(f"{f:.2f}:{r:.2f}" for f, r in shown))
