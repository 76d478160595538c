"""Whole commands, this tree against an earlier one, taking turns on one machine.

Usage: ``python commands.py OUT_DIR BASE_TREE DEVICE ROUNDS`` from the repository root (BASE_TREE
a copy made with ``git archive``, ``datasets`` linked in; DEVICE ``-`` runs the commands without
``--device``, on the device they take by default, and the floor on NVIDIA's).  Each round runs, for each tree:
WalkingMan (``inpaint --case walkingman``), a 12 MP photo with a 3 % hole, and a batch of 60
photos of 512x384 (``tools/gpu_speed.py``'s), plus the bare Python + OpenCL start as a floor.
Writes OUT_DIR/commands.json and prints medians; the trees' outputs are compared.
"""

import json
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

sys.path[:0] = ["tools", "bench"]
from gpu_speed import FLOOR, env_for, make_batch, wall  # noqa: E402

from inpaint_bench.scaling import make_case  # noqa: E402

out, base, device, rounds = Path(sys.argv[1]), Path(sys.argv[2]).resolve(), sys.argv[3], int(sys.argv[4])
here = Path.cwd().resolve()
trees = {"base": base, "new": here}
times: dict = {f"{m}_{t}": [] for m in ("walkingman", "12mp", "batch") for t in trees}
times["floor"] = []
with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    photo, pmask, _ = make_case(12, 0.03, tmp)
    batch = make_batch(tmp / "batch", here / "datasets" / "walkingman" / "image.png", 60)
    for r in range(rounds):
        for name, tree in trees.items():
            env = env_for(tree)
            q = ["-q", "-y"] + ([] if device == "-" else ["--device", device])  # "-": the default device
            times[f"walkingman_{name}"].append(wall([sys.executable, "-m", "inpaint", "--case", "walkingman", "-o",
                                                     str(tmp / f"wm_{name}.png"), *q], env, tree))
            times[f"12mp_{name}"].append(wall([sys.executable, "-m", "inpaint", str(photo), "--mask", str(pmask),
                                               "-o", str(tmp / f"big_{name}.png"), *q], env, tree))
            times[f"batch_{name}"].append(wall([sys.executable, "-m", "inpaint", str(batch), "-o",
                                                str(tmp / f"b_{name}_{r}") + "/", *q], env, tree))
        times["floor"].append(wall([sys.executable, "-c", FLOOR, "NVIDIA" if device == "-" else device],
                                   env_for(here), here))
    def pixels(path: Path) -> np.ndarray:
        return np.asarray(Image.open(path))

    same = all(np.array_equal(pixels(tmp / f"{k}_base.png"), pixels(tmp / f"{k}_new.png")) for k in ("wm", "big"))
    same = same and all(np.array_equal(pixels(p), pixels(tmp / "b_new_0" / p.name))
                        for p in sorted((tmp / "b_base_0").iterdir()))
out.mkdir(parents=True, exist_ok=True)
(out / "commands.json").write_text(json.dumps({"device": device, "times_s": times, "identical": same}, indent=1))
for key, ts in times.items():
    extra = f" = {60 / statistics.median(ts):.1f} images/s" if key.startswith("batch") else ""
    print(f"{key}: median {statistics.median(ts):.3f} s{extra}; runs {', '.join(f'{t:.3f}' for t in ts)}")
print("outputs identical:", same)
