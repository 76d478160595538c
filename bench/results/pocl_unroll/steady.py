"""A warm fill's time on PoCL with two trees (the local-memory sweeps unrolled on a CPU, before;
as loops, now), taking turns in fresh processes: three rounds, in each the median of 5 fills a case
(the twelve cases of ``bench/results/pocl_groups``); prints each case's median of the rounds and
whether the outputs are the same.  Usage, from the repository root:
``python bench/results/pocl_unroll/steady.py BASE_TREE`` (``BASE_TREE``: ``git archive`` of the
version before, with ``inpaint kernels profiles``)."""

import json
import os
import statistics
import subprocess
import sys

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
HERE = os.getcwd()
TREES = {"before": os.path.abspath(sys.argv[1]), "now": HERE}


def run(tree, fills):
    env = dict(os.environ, PYTHONPATH=TREES[tree])
    proc = subprocess.run([sys.executable, "-c", CHILD, str(fills), HERE], env=env, capture_output=True, text=True,
                          check=True, cwd=HERE)
    return json.loads(proc.stdout.strip().splitlines()[-1])


for tree in TREES:
    run(tree, 1)  # the compiles
rounds = {t: [] for t in TREES}
for _ in range(3):
    for t in TREES:
        rounds[t].append(run(t, 5))
sums = dict.fromkeys(TREES, 0.0)
for name in rounds["before"][0]:
    a, b = (statistics.median(r[name][0] for r in rounds[t]) for t in TREES)
    same = rounds["before"][0][name][1] == rounds["now"][0][name][1]
    sums["before"] += a
    sums["now"] += b
    print(f"{name:22s} before {a * 1e3:7.1f} ms  now {b * 1e3:7.1f} ms  ({b / a:.3f})  same={same}")
print(f"sum: before {sums['before'] * 1e3:.0f} ms, now {sums['now'] * 1e3:.0f} ms ({sums['now'] / sums['before']:.3f})")
