import sys, time; sys.path.insert(0, 'tools')
import numpy as np
import tap_select_eval as T
from inpaint import select as S
sets = T.load_sets(); res = []
t0 = time.time()
for name, image, obj in sets[sys.argv[1]]:
    ious = []
    for seed in T.SEEDS:
        after, _ = T.simulate(T.tap_gesture, image, obj, T.gesture.TOLERANCE, 1, seed, stateful=True)
        ious.append(T.iou(after[0], obj))
    res.append(np.mean(ious)); print(f"{name:18s} {np.mean(ious):.3f}", flush=True)
print(f"mean {np.mean(res):.3f}  ({time.time()-t0:.0f} s)")
