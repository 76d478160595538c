"""The default WalkingMan fill (no stage timings) in processes with fixed hash seeds, each twice."""

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ab2 import SCRIPT

wm = Path("datasets/walkingman").resolve()
res = {}
for _rep in range(2):
    for seed in range(6):
        env = dict(os.environ, PYTHONHASHSEED=str(seed))
        p = subprocess.run(
            [sys.executable, "-c", SCRIPT, str(wm / "image.png"), str(wm / "mask.png"), "0"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        res.setdefault(seed, []).append(round(1e3 * json.loads(p.stdout.strip().splitlines()[-1])["median"], 2))
    for _aslr in range(3):  # the same seed, address-space layout fixed (setarch -R)
        env = dict(os.environ, PYTHONHASHSEED="0")
        p = subprocess.run(
            ["setarch", "x86_64", "-R", sys.executable, "-c", SCRIPT, str(wm / "image.png"), str(wm / "mask.png"), "0"],
            env=env,
            capture_output=True,
            text=True,
        )
        res.setdefault("seed0_noaslr", []).append(
            round(1e3 * json.loads(p.stdout.strip().splitlines()[-1])["median"], 2)
            if p.returncode == 0
            else p.stderr[-200:]
        )
for k, v in res.items():
    print(k, v)
