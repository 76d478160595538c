"""The 60-photo batch as whole commands, the trees taking turns.

Usage: ``python batchcmd.py DEVICE ROUNDS TREE...`` from the repository root (``.`` is this tree;
the others are copies of earlier versions made with ``git archive``, ``datasets`` linked in).
Prints each tree's images a second, run by run, and their median.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, "tools")
from gpu_speed import make_batch

dev, rounds, trees = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rates: dict[str, list[float]] = {t: [] for t in trees}
with tempfile.TemporaryDirectory() as tmp:
    batch = make_batch(Path(tmp) / "b", Path("datasets/walkingman/image.png"), 60)
    for r in range(rounds):
        for t in trees:
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(["/tmp/site", str(Path(t).resolve())]))
            start = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "inpaint", str(batch), "-o", f"{tmp}/o_{r}_{Path(t).name}/",
                                "-q", "--device", dev], env=env, cwd=t, capture_output=True, text=True)
            took = time.perf_counter() - start
            rates[t].append(60 / took)
            if p.returncode:
                print(t, p.stderr[-500:])
for t in trees:
    runs = " ".join(f"{x:.1f}" for x in rates[t])
    print(f"{t:24s} images/s: {runs}  median {statistics.median(rates[t]):.1f}")
