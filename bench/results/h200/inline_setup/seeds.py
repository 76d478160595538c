"""The default WalkingMan fill (no stage timings) in processes with fixed hash seeds, each twice."""

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ab2 import fill_median

res = {}
for _rep in range(2):
    for seed in range(6):
        res.setdefault(seed, []).append(fill_median([], dict(os.environ, PYTHONHASHSEED=str(seed))))
    for _aslr in range(3):  # the same seed, address-space layout fixed (setarch -R)
        try:
            took = fill_median(["setarch", "x86_64", "-R"], dict(os.environ, PYTHONHASHSEED="0"))
        except subprocess.CalledProcessError as exc:
            took = exc.stderr[-200:]
        res.setdefault("seed0_noaslr", []).append(took)
for k, v in res.items():
    print(k, v)
