"""The multiscale fill's options, numpy against a device, on every truth case.

Usage: ``python tools/gpu_options.py OUT.json [DEVICE]``.  For each option set below (all
together, then each alone) and every case of ``datasets/`` and ``datasets/quality/``, the
fill runs in numpy (in a process pool, before any OpenCL) and on the device; the images and
source maps must be identical.  Prints a table and the number of fills that differ (the exit
status is 1 if any does).  ``SETS`` in the environment (comma-separated labels) runs only those.
"""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gpu_multiscale import truth_cases

from inpaint.api import inpaint
from inpaint.cl.runtime import get_runtime

OPTION_SETS = {
    "all": {"adapt": "on", "match_gradients": 2, "vote": "gradients", "candidates": 2, "straight_lines": "on"},
    "adapt": {"adapt": "on"},
    "straight_lines": {"straight_lines": "on"},
    "vote": {"vote": "gradients"},
    "match_gradients": {"match_gradients": 8},
    "transforms": {"transforms": "all", "vote": "gradients", "candidates": 2},
}


def numpy_fill(item):
    label, name, image, mask = item
    res = inpaint(image, mask, backend="numpy", **OPTION_SETS[label])
    return (label, name), res.image, res.source_map


def main() -> int:
    out = Path(sys.argv[1])
    device = sys.argv[2] if len(sys.argv) > 2 else None
    cases = list(truth_cases())
    rt = None
    report = {"options": OPTION_SETS, "exact": {}}
    bad = 0
    chosen = [s for s in os.environ.get("SETS", "").split(",") if s] or list(OPTION_SETS)
    for label in chosen:  # one set at a time, so a partial run still reports
        opts = OPTION_SETS[label]
        with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:  # the numpy fills, before any OpenCL here
            refs = {key: (img, src) for key, img, src in
                    pool.map(numpy_fill, [(label, name, image, mask) for name, image, mask in cases])}
        if rt is None:
            rt = get_runtime(device=device)
            report["device"] = rt.name
            print(f"device: {rt.name}\n\n| options | cases | identical to numpy |\n|---|---:|---:|")
        same_count = 0
        for name, image, mask in cases:
            b = inpaint(image, mask, backend="opencl", device=rt.device, **opts)
            ref = refs[(label, name)]
            same = bool(np.array_equal(ref[0], b.image) and np.array_equal(ref[1], b.source_map))
            report["exact"][f"{label} {name}"] = same
            same_count += same
        bad += len(cases) - same_count
        print(f"| {label} {opts} | {len(cases)} | {same_count} |", flush=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"\n{bad} fill(s) differ from numpy")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
