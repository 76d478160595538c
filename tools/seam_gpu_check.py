"""Seam carving on one OpenCL device against the numpy reference, bit for bit.

Needs only numpy, Pillow and pyopencl.  Usage: python tools/seam_gpu_check.py [DEVICE]
Runs every cost-table strategy (and the tiled one at several row-strip sizes) in exact and
batch mode, backward and forward energy, with and without masks, on a real photo, and
exits with status 1 on the first mismatch.  The pytest suite does the same on PoCL; this
is the check for a GPU driver's compiler (e.g. the NVIDIA H200 runs in bench/results/h200/README.md).
"""

import sys
from pathlib import Path

import numpy as np

from inpaint.cl.runtime import get_runtime
from inpaint.seam import api, reference as ref, resize
from inpaint.seam.opencl import OpenCLCarver

try:
    from inpaint_bench.seam import _photo
except ImportError:  # the benchmarks are not installed: use the checkout's bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from inpaint_bench.seam import _photo


def main() -> int:
    rt = get_runtime(device=sys.argv[1] if len(sys.argv) > 1 else None)
    img, _ = _photo(None, 181, 263)
    keep = np.zeros(img.shape[:2], bool)
    keep[40:120, 200:215] = True
    drop = np.zeros(img.shape[:2], bool)
    drop[60:90, 50:70] = True
    configs = [(dp, None) for dp in ("auto", "walk", "tiled", "update")]
    configs += [("tiled", t) for t in ((4, 8), (16, 32), (32, 64), (64, 128))]
    bad = 0
    for dp, tiles in configs:
        def make(backend, mode, device, profile, dp=dp, tiles=tiles):
            if backend == "numpy":
                return ref.NumpyCarver(mode)
            carver = OpenCLCarver(rt, mode, dp=dp)
            if tiles:
                carver.tile_t, carver.tile_w = tiles
            return carver

        api._make_carver = make
        for energy in ("backward", "forward"):
            for batch in (None, 8):
                for masks in ({}, {"keep_mask": keep, "drop_mask": drop}):
                    kw = dict(energy=energy, batch=batch, return_seams=True, **masks)
                    a, sa = resize(img, 230, 170, backend="numpy", **kw)
                    b, sb = resize(img, 230, 170, backend="opencl", **kw)
                    ok = np.array_equal(a, b) and np.array_equal(sa, sb)
                    bad += not ok
                    print(f"{rt.name} dp={dp} tiles={tiles} {energy} batch={batch} masks={bool(masks)}: "
                          f"{'equal' if ok else 'DIFFERENT'}", flush=True)
    print(f"{bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
