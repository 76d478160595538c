"""The twelve cases of these measurements: the four of the paper's set and eight truth cases."""

import statistics

import numpy as np
from PIL import Image

from inpaint.io.cases import load_case

CASES = ["walkingman", "river", "hill", "divingman", "quality/sky_blob", "quality/wire_tower",
         "quality/tower_ridges", "quality/bowl_rim", "quality/grass_blob", "quality/bark_blob",
         "quality/wall_gradient", "quality/brick_stroke"]


def load(name):
    """``(image, mask)`` of a case: a paper case by name, a truth case's truth and mask."""
    if "/" not in name:
        case = load_case(name)
        return case.image, case.mask
    image = np.asarray(Image.open(f"datasets/{name}/truth.png").convert("RGB"))
    return image, np.asarray(Image.open(f"datasets/{name}/mask.png").convert("L")) > 127


#: A fresh process's warm fills: ``python -c CHILD FILLS REPO`` prints, as JSON, each case's
#: median of ``FILLS`` fills after one and the first fill's hash (run from the repository root).
CHILD = """
import hashlib, json, statistics, sys, time
sys.path.insert(0, sys.argv[2] + "/bench/results/pocl_groups")
from cases import CASES, load
from inpaint import api
out = {}
for name in CASES:
    image, mask = load(name)
    first = api.inpaint(image, mask, device="portable")
    runs = []
    for _ in range(int(sys.argv[1])):
        t0 = time.perf_counter()
        api.inpaint(image, mask, device="portable")
        runs.append(time.perf_counter() - t0)
    out[name] = [statistics.median(runs), hashlib.sha1(first.image.tobytes()).hexdigest()]
print(json.dumps(out))
"""


def compare(run, labels):
    """Two variants taking turns: ``run(key, fills)`` (one of the two keys of ``labels``) gives
    :data:`CHILD`'s output; after a run each (the compiles), three rounds of 5 fills.  Prints each
    case's median of the rounds under its label, the ratio, and whether the outputs are the same."""
    a_key, b_key = labels
    for key in labels:
        run(key, 1)
    rounds = {k: [] for k in labels}
    for _ in range(3):
        for k in labels:
            rounds[k].append(run(k, 5))
    sums = dict.fromkeys(labels, 0.0)
    for name in rounds[a_key][0]:
        a, b = (statistics.median(r[name][0] for r in rounds[k]) for k in labels)
        same = rounds[a_key][0][name][1] == rounds[b_key][0][name][1]
        sums[a_key] += a
        sums[b_key] += b
        print(f"{name:22s} {labels[a_key]} {a * 1e3:7.1f} ms  {labels[b_key]} {b * 1e3:7.1f} ms  ({b / a:.3f})  "
              f"same={same}")
    print(f"sum: {labels[a_key]} {sums[a_key] * 1e3:.0f} ms, {labels[b_key]} {sums[b_key] * 1e3:.0f} ms "
          f"({sums[b_key] / sums[a_key]:.3f})")
