"""A warm fill's time with PoCL's kernels specialized to each work-group size and with one kernel
for every size, the two taking turns in fresh processes (the setting is read when PoCL starts):
three rounds, in each the median of 5 fills a case; prints each case's median of the rounds and
whether the outputs are the same.  Usage: ``python bench/results/pocl_groups/steady.py`` from the
repository root."""

import json
import os
import statistics
import subprocess
import sys

CHILD = """
import hashlib, json, statistics, sys, time
sys.path.insert(0, "bench/results/pocl_groups")
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


def run(setting, fills):
    env = dict(os.environ, POCL_WORK_GROUP_SPECIALIZATION=setting)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(fills)], env=env, capture_output=True, text=True,
                          check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


SETTINGS = {"1": "specialized", "0": "one for every size"}
for setting in SETTINGS:
    run(setting, 1)  # the compiles
rounds = {s: [] for s in SETTINGS}
for _ in range(3):
    for s in SETTINGS:
        rounds[s].append(run(s, 5))
sums = dict.fromkeys(SETTINGS, 0.0)
for name in rounds["1"][0]:
    a, b = (statistics.median(r[name][0] for r in rounds[s]) for s in SETTINGS)
    same = rounds["1"][0][name][1] == rounds["0"][0][name][1]
    sums["1"] += a
    sums["0"] += b
    print(f"{name:22s} specialized {a * 1e3:7.1f} ms  one for every size {b * 1e3:7.1f} ms  ({b / a:.3f})  same={same}")
print(f"sum: specialized {sums['1'] * 1e3:.0f} ms, one for every size {sums['0'] * 1e3:.0f} ms "
      f"({sums['0'] / sums['1']:.3f})")
