"""The multiscale fill on a GPU: bit-identical to numpy on every truth case, and its speed.

Usage: ``python tools/gpu_multiscale.py OUT.json [DEVICE]`` (DEVICE as for ``--device``;
default: the best device).  For every case of ``datasets/`` and ``datasets/quality/`` it runs
the default fill in numpy and on the device and compares the images and source maps; it times
the default fill (median of 7 after a warm-up) and the paper's Criminisi settings on the four
paper cases.  Prints a Markdown summary and writes everything as JSON.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from PIL import Image

from inpaint.api import inpaint
from inpaint.cl.runtime import get_runtime
from inpaint.io.cases import case_names, load_case

ROOT = Path(__file__).resolve().parents[1]


def truth_cases():
    for name in case_names():
        case = load_case(name)
        yield name, case.image, case.mask
    index = json.loads((ROOT / "datasets" / "quality" / "index.json").read_text())
    for entry in index["cases"]:
        d = ROOT / "datasets" / "quality" / entry["name"]
        truth = np.asarray(Image.open(d / "truth.png").convert("RGB"))
        mask = np.asarray(Image.open(d / "mask.png").convert("L")) > 127
        image = truth.copy()
        image[mask] = 0
        yield entry["name"], image, mask


def numpy_fill(item):
    name, image, mask = item
    res = inpaint(image, mask, backend="numpy")
    return name, res.image, res.source_map


def timed(image, mask, reps=7, **kw):
    inpaint(image, mask, **kw)  # warm-up: kernel builds
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        res = inpaint(image, mask, **kw)
        times.append(time.perf_counter() - t)
    return statistics.median(times), res


def main() -> int:
    out = Path(sys.argv[1])
    device = sys.argv[2] if len(sys.argv) > 2 else None
    cases = list(truth_cases())
    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:  # numpy references, before any OpenCL
        refs = {name: (img, src) for name, img, src in pool.map(numpy_fill, cases)}
    rt = get_runtime(device=device)
    report = {"device": rt.name, "exact": {}, "times": {}}
    bad = 0
    print(f"device: {rt.name}\n")
    print("| case | identical to numpy (image, source map) |\n|---|---|")
    for name, image, mask in cases:
        b = inpaint(image, mask, backend="opencl", device=rt.device)
        same = bool(np.array_equal(refs[name][0], b.image) and np.array_equal(refs[name][1], b.source_map))
        report["exact"][name] = same
        bad += not same
        print(f"| {name} | {'yes' if same else 'NO'} |", flush=True)
    for name in case_names():
        case = load_case(name)
        a = inpaint(case.image, case.mask, method="criminisi", alpha=0.05, patch=9, backend="numpy")
        b = inpaint(case.image, case.mask, method="criminisi", alpha=0.05, patch=9, backend="opencl",
                    device=rt.device)
        same = a.image.tobytes() == b.image.tobytes() and a.stats.patches == b.stats.patches
        report["exact"][f"{name} criminisi 0.05/9"] = same
        bad += not same
        print(f"| {name} criminisi 0.05/9 | {'yes' if same else 'NO'} |", flush=True)
    print("\n| case | default fill | criminisi 0.05/17 | criminisi full/9 |\n|---|---:|---:|---:|")
    for name in case_names():
        case = load_case(name)
        row = {}
        row["default"], res = timed(case.image, case.mask, backend="opencl", device=rt.device)
        row["default_stages"] = inpaint(case.image, case.mask, backend="opencl", device=rt.device,
                                        timings=True).stats.stage_seconds  # (a profiled run of its own)
        row["levels"] = res.stats.levels
        row["criminisi_005_17"], _ = timed(case.image, case.mask, method="criminisi", alpha=0.05, patch=17,
                                           backend="opencl", device=rt.device)
        row["criminisi_full_9"], _ = timed(case.image, case.mask, reps=3, method="criminisi", alpha="full", patch=9,
                                           backend="opencl", device=rt.device)
        report["times"][name] = row
        print(f"| {name} | {row['default'] * 1e3:.1f} ms | {row['criminisi_005_17'] * 1e3:.1f} ms | "
              f"{row['criminisi_full_9'] * 1e3:.1f} ms |", flush=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"\n{bad} case(s) differ from numpy")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
