"""A new user's first commands on PoCL, from an empty kernel cache: the quick start's
``inpaint --case walkingman``, then ``inpaint --case divingman`` (whose correction takes the
one-channel sweeps), each tree in turn with a cache of its own, ``ROUNDS`` times; whole commands,
timed from here.  Usage, from the repository root:
``python bench/results/pocl_unroll/first_runs.py BASE_TREE [ROUNDS]``."""

import os
import subprocess
import sys
import tempfile
import time

TREES = {"before": os.path.abspath(sys.argv[1]), "now": os.getcwd()}
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
with tempfile.TemporaryDirectory() as tmp:
    for r in range(ROUNDS):
        for tree, path in TREES.items():
            cache = os.path.join(tmp, f"cache_{tree}_{r}")
            env = dict(os.environ, PYTHONPATH=path, XDG_CACHE_HOME=cache)
            took = []
            for case in ("walkingman", "divingman", "divingman"):
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "inpaint", "--case", case, "-o", f"{tmp}/{tree}_{case}.png",
                                "-y", "-q"], env=env, check=True, cwd=tmp)
                took.append(time.perf_counter() - t0)
            print(f"round {r + 1} {tree:6s}: walkingman first {took[0]:5.2f} s, then divingman {took[1]:5.2f} s, "
                  f"divingman again {took[2]:5.2f} s", flush=True)
