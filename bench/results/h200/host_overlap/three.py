"""In-process WalkingMan and 12 MP medians of several trees, taking turns, in fresh processes.

Usage from the repository root: ``python bench/results/h200/host_overlap/three.py DEVICE ROUNDS TREE...``,
each TREE a copy of a version (``git archive REV inpaint kernels profiles bench pyproject.toml``).
WalkingMan: the median of 30 fills after a warm-up; the 12 MP photo and hole of ``inpaint bench
scaling``: the median of 5; the checksums show that every tree filled the same pixels.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path[:0] = ["tools", "bench"]

import gpu_speed  # noqa: E402  (tools/)

from inpaint_bench.scaling import make_case  # noqa: E402


def main() -> None:
    device, rounds, trees = sys.argv[1], int(sys.argv[2]), [Path(t).resolve() for t in sys.argv[3:]]
    photo, mask, _ = make_case(12, 0.03, Path(tempfile.mkdtemp()))
    wm = Path("datasets/walkingman").resolve()
    rows = []
    for rnd in range(rounds):
        for tree in trees:
            a = gpu_speed.inprocess(tree, wm / "image.png", wm / "mask.png", 30, device)
            b = gpu_speed.inprocess(tree, photo, mask, 5, device)
            rows.append((tree.name, a["median"], b["median"]))
            print(rnd, tree.name, f"WM {a['median'] * 1e3:.1f} ms  12MP {b['median'] * 1e3:.1f} ms  "
                  f"sums {a['checksum']} {b['checksum']}", flush=True)
    for tree in trees:
        small = statistics.median(r[1] for r in rows if r[0] == tree.name)
        big = statistics.median(r[2] for r in rows if r[0] == tree.name)
        print(f"{tree.name}: WalkingMan {small * 1e3:.1f} ms, 12 MP {big * 1e3:.1f} ms (medians of {rounds} rounds)")


if __name__ == "__main__":
    main()
