"""WalkingMan in-process on OpenCL: the default fill against settings of its options, in one run.

Usage::

    python tools/match_options_speed.py RUNS [NAME:OPTION=VALUE,OPTION=VALUE ...]

One warm-up fill per setting (the program's build), then ``RUNS`` rounds, each filling once with
every setting in turn; prints each setting's median and minimum and its median's ratio to the
default's, then the times as JSON.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    from inpaint.api import inpaint

    case = ROOT / "datasets" / "walkingman"
    img = np.asarray(Image.open(case / "image.png").convert("RGB"))
    mask = np.asarray(Image.open(case / "mask.png").convert("L")) > 127
    configs = {"default": {}}
    for arg in sys.argv[2:]:
        name, _, items = arg.partition(":")
        configs[name] = {k: int(v) if v.isdigit() else v for k, v in (i.split("=", 1) for i in items.split(","))}
    runs = int(sys.argv[1])
    times = {k: [] for k in configs}
    for options in configs.values():
        inpaint(img, mask, backend="opencl", **options)
    for _ in range(runs):
        for name, options in configs.items():
            t = time.perf_counter()
            inpaint(img, mask, backend="opencl", **options)
            times[name].append(time.perf_counter() - t)
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    for name in configs:
        print(f"{name:12s} {configs[name]} median {med[name]:.1f} ms  min {min(times[name]) * 1000:.1f} ms  "
              f"ratio {med[name] / med['default']:.2f}")
    print(json.dumps({"runs": runs, "median_ms": med, "times_s": times}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
