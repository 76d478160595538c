"""Alternating in-process WalkingMan fills of several trees, one fresh process per tree and round."""

import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, "tools")
from gpu_speed import INPROCESS, env_for

trees = {
    "base": Path(".gpu_tree/base").resolve(),
    "pack": Path(".gpu_tree/pack").resolve(),
    "new": Path.cwd().resolve(),
    "new_taskset": Path.cwd().resolve(),
}
wm = Path("datasets/walkingman").resolve()
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 8
out = {t: [] for t in trees}
for _r in range(rounds):
    for name, tree in trees.items():
        pre = ["taskset", "-c", "2-5"] if name.endswith("taskset") else []
        p = subprocess.run(
            pre + [sys.executable, "-c", INPROCESS, str(wm / "image.png"), str(wm / "mask.png"), "30", "NVIDIA"],
            env=env_for(tree),
            cwd=tree,
            capture_output=True,
            text=True,
            check=True,
        )
        out[name].append(json.loads(p.stdout.strip().splitlines()[-1]))
lines = []
for name, rows in out.items():
    med = [1e3 * x["median"] for x in rows]
    mn = [1e3 * x["min"] for x in rows]
    lines.append(
        f"{name}: median of {rounds} processes' medians {statistics.median(med):.2f} ms, of their minima "
        f"{statistics.median(mn):.2f} ms; medians {[round(m, 1) for m in med]}; checksum {rows[0]['checksum']}"
    )
Path(sys.argv[1]).write_text(json.dumps(out) + "\n")
print("\n".join(lines))
