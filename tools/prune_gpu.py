"""findBestPatch with and without pruning on one device, side by side (the GPU check of pruning).

Needs only numpy, Pillow and pyopencl.  Usage: python tools/prune_gpu.py [DEVICE] [REPEATS]
For every dataset case, the full-search P = 9 and alpha = 0.05 P = 17 cells run with
``prune=False`` and ``prune=True`` (interleaved repeats, medians after a warm-up), for both
kernel variants; the two results must be bit-identical (exit status 1 otherwise).
Decides whether pruning should be on by default on that device.
"""

import statistics
import sys
import time

import numpy as np

from inpaint.api import inpaint
from inpaint.io.cases import case_names, load_case


def main() -> int:
    device = sys.argv[1] if len(sys.argv) > 1 else None
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    bad = 0
    print("| case | alpha | P | variant | unpruned | pruned | unpruned/pruned | identical |")
    print("|---|---|---:|---|---:|---:|---:|---|")
    for name in case_names():
        case = load_case(name)
        for alpha, patch in (("full", 9), (0.05, 17)):
            for variant in ("local", "global"):
                kw = dict(method="criminisi", alpha=alpha, patch=patch, backend="opencl", device=device,
                          variant=variant)
                res = {p: inpaint(case.image, case.mask, prune=p, **kw) for p in (False, True)}  # warm-up
                times = {False: [], True: []}
                for _ in range(reps):
                    for p in (False, True):
                        t = time.perf_counter()
                        res[p] = inpaint(case.image, case.mask, prune=p, **kw)
                        times[p].append(time.perf_counter() - t)
                same = np.array_equal(res[False].image, res[True].image)
                bad += not same
                a, b = statistics.median(times[False]), statistics.median(times[True])
                print(f"| {name} | {alpha} | {patch} | {variant} | {a * 1e3:.1f} ms | {b * 1e3:.1f} ms | "
                      f"{a / b:.2f}x | {'yes' if same else 'NO'} |", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
