"""One tap's mean IoU on a set (``tune`` or ``held-out``), the 3 seeded users of
``tools/tap_select_eval.py``.  Usage: ``python bench/results/tap_segments/one_tap.py SET`` from the
repository root."""

import sys
import time

import numpy as np

sys.path.insert(0, "tools")
import tap_select_eval as T

sets = T.load_sets()
means = []
t0 = time.time()
for name, image, obj in sets[sys.argv[1]]:
    ious = []
    for seed in T.SEEDS:
        after, _ = T.simulate(T.tap_gesture, image, obj, T.gesture.TOLERANCE, 1, seed, stateful=True)
        ious.append(T.iou(after[0], obj))
    means.append(np.mean(ious))
    print(f"{name:18s} {means[-1]:.3f}", flush=True)
print(f"mean {np.mean(means):.3f}  ({time.time() - t0:.0f} s)")
