"""WalkingMan in-process, the default fill with and without stage timings (profiling queue), alternating processes."""

import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, "tools")
from gpu_speed import env_for

SCRIPT = r"""
import json, statistics, sys, time
import numpy as np
from PIL import Image
from inpaint.api import inpaint
img = np.asarray(Image.open(sys.argv[1]).convert("RGB"))
mask = np.asarray(Image.open(sys.argv[2]).convert("L")) > 127
kw = dict(backend="opencl", device="NVIDIA", timings=sys.argv[3] == "1")
res = inpaint(img, mask, **kw)
ts = []
for _ in range(30):
    t = time.perf_counter(); res = inpaint(img, mask, **kw); ts.append(time.perf_counter() - t)
print(json.dumps({"median": statistics.median(ts), "min": min(ts), "checksum": int(res.image.astype(np.int64).sum())}))
"""


def fill_median(prefix: list, env: dict) -> float:
    """The median of 30 default WalkingMan fills, not profiled, in a new process started with the
    command ``prefix`` (e.g. ``taskset -c 3``) and ``env``, in ms."""
    wm = Path("datasets/walkingman").resolve()
    p = subprocess.run(
        [*prefix, sys.executable, "-c", SCRIPT, str(wm / "image.png"), str(wm / "mask.png"), "0"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return round(1e3 * json.loads(p.stdout.strip().splitlines()[-1])["median"], 2)


if __name__ == "__main__":
    trees = {
        "base": Path(".gpu_tree/base").resolve(),
        "pack": Path(".gpu_tree/pack").resolve(),
        "new": Path.cwd().resolve(),
    }
    wm = Path("datasets/walkingman").resolve()
    runs = {f"{t}_timings{k}": (t, k) for t in trees for k in "10"}
    out = {r: [] for r in runs}
    for _ in range(int(sys.argv[2])):
        for name, (t, k) in runs.items():
            p = subprocess.run(
                [sys.executable, "-c", SCRIPT, str(wm / "image.png"), str(wm / "mask.png"), k],
                env=env_for(trees[t]),
                cwd=trees[t],
                capture_output=True,
                text=True,
                check=True,
            )
            out[name].append(json.loads(p.stdout.strip().splitlines()[-1]))
    Path(sys.argv[1]).write_text(json.dumps(out) + "\n")
    for name, rows in out.items():
        med = [1e3 * x["median"] for x in rows]
        mn = [1e3 * x["min"] for x in rows]
        print(
            f"{name}: median of medians {statistics.median(med):.2f} ms, "
            f"median of minima {statistics.median(mn):.2f} ms; "
            f"medians {[round(m, 1) for m in med]}; checksum {rows[0]['checksum']}"
        )
