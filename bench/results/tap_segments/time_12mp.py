import sys, time, statistics
sys.path.insert(0, "tools")
import numpy as np
from PIL import Image
import tap_select_eval as T
from inpaint import select
sets = T.load_sets()
meds = []
for name, image, obj in sets["tune"]:
    big = np.asarray(Image.fromarray(image).resize((4000, 3000), Image.BICUBIC))
    rng = np.random.default_rng(0)
    ty, tx = T.tap_point(obj, rng)
    tap = [(int(tx * 4000 / obj.shape[1]), int(ty * 3000 / obj.shape[0]))]
    ts = []
    for _ in range(3):
        t = time.perf_counter(); select.select_point(big, tap); ts.append(time.perf_counter() - t)
    meds.append(statistics.median(ts))
    print(f"{name:18s} {meds[-1]:.3f}", flush=True)
print(select.__file__, "median over photos %.3f, max %.3f" % (statistics.median(meds), max(meds)))
