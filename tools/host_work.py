"""The host work of a 12 MP default fill, function by function, this tree against an earlier one.

Usage: ``python tools/host_work.py OUT.json BASE_TREE [DEVICE]`` from the repository root.
BASE_TREE is a copy of an earlier version (``git archive REV | tar -x -C BASE_TREE``).  The
photo and its 3 % elliptic hole are those of ``inpaint bench scaling``.  The trees take turns,
``ROUNDS`` times (default 4), in fresh processes with ``PYTHONPATH`` on one tree or the other:

* the numpy work that the OpenCL path of the fill does on the host, each function timed alone on
  the same inputs, no device involved (the hole's groups, its box, the mask pyramid, every level's
  set-up and random-source counts, the first fill's layers, the expected texture, the result's
  copy), ``REPS`` times (default 7; the median fill of each round);
* with ``FILLS`` > 0 (default 3), the fill in-process on DEVICE (as ``--device``; default: the
  first device): ``inpaint(image, mask, timings=False)`` after a warm-up, the median of ``FILLS``.

Writes OUT.json (every round) and prints the medians over the rounds.
"""

from __future__ import annotations

import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image


def host_work(image: np.ndarray, mask: np.ndarray, reps: int) -> dict[str, float]:
    """Median milliseconds per fill of each host function of the OpenCL path (this process's tree)."""
    from inpaint import geometry
    from inpaint.methods.multiscale import levels as lv, reference as ref

    half = 3  # the default patch's
    boxed = "box" in inspect.signature(lv.mask_pyramid).parameters  # the tree finds the hole's box once
    times: dict[str, list[float]] = defaultdict(lambda: [0.0] * reps)

    def timed(i: int, name: str, fn, *args):
        t = time.perf_counter()
        out = fn(*args)
        times[name][i] += time.perf_counter() - t
        return out

    for i in range(reps):
        t0 = time.perf_counter()
        timed(i, "hole_groups", lv.hole_groups, mask)
        box = timed(i, "bbox", geometry.bbox, mask)
        timed(i, "free_count", lv.free_count, mask, half, box, None)
        if boxed:
            masks = timed(i, "mask_pyramid", lv.mask_pyramid, mask, 2 * half + 1, None, box)
            boxes = timed(i, "pyramid_boxes", lv.pyramid_boxes, mask, len(masks), box)
        else:  # each found the box again, and so did the buffers' size check
            timed(i, "bbox", geometry.bbox, mask)
            masks = timed(i, "mask_pyramid", lv.mask_pyramid, mask, 2 * half + 1, None)
            boxes = timed(i, "pyramid_boxes", lv.pyramid_boxes, mask, len(masks))
        for level in range(len(masks) - 1, -1, -1):
            lev = timed(i, "prepare_level", lv.prepare_level, masks[level], half, 1.0, None, boxes[level])
            timed(i, "valid_ends", lv.valid_ends, lev)
            if level == len(masks) - 1:
                timed(i, "onion_layers", lv.onion_layers, lev)
        timed(i, "expected_texture", ref.expected_texture, image, mask, lev.solve_map, lev.work, half)

        timed(i, "result_copy", _result, image, lev.hole)
        times["total"][i] = time.perf_counter() - t0
    return {name: statistics.median(v) * 1e3 for name, v in times.items()}


def _result(image: np.ndarray, hole: np.ndarray) -> np.ndarray:
    """The finished image as the fill makes it: the photo copied, the hole's pixels set."""
    out = image.copy()
    out[hole[:, 0], hole[:, 1]] = 0
    return out


def child(photo: str, mask_path: str, reps: int, fills: int, device: str) -> None:
    image = np.asarray(Image.open(photo).convert("RGB"))
    mask = np.asarray(Image.open(mask_path).convert("L")) > 127
    report: dict = {"host_ms": host_work(image, mask, reps)}
    if fills:
        from inpaint.api import inpaint

        kw = dict(backend="opencl", device=device or None, timings=False)
        inpaint(image, mask, **kw)  # warm-up: kernel builds
        runs = []
        for _ in range(fills):
            t = time.perf_counter()
            inpaint(image, mask, **kw)
            runs.append(time.perf_counter() - t)
        report["fill_s"] = statistics.median(runs)
    print(json.dumps(report))


def main() -> None:
    if sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
        return
    out, base = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
    device = sys.argv[3] if len(sys.argv) > 3 else ""
    rounds, reps, fills = (int(os.environ.get(k, d)) for k, d in (("ROUNDS", "4"), ("REPS", "7"), ("FILLS", "3")))
    here = Path.cwd().resolve()
    trees = {"base": base, "new": here}
    sys.path[:0] = [str(here), str(here / "bench")]
    from inpaint_bench.scaling import make_case

    runs: dict = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        photo, mask, _ = make_case(12, 0.03, Path(tmp))
        for _ in range(rounds):
            for name, tree in trees.items():
                env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(tree / "bench")]))
                argv = [sys.executable, __file__, "--child", str(photo), str(mask), str(reps), str(fills), device]
                proc = subprocess.run(argv, env=env, cwd=tree, capture_output=True, text=True, check=True)
                runs[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    out.write_text(json.dumps({"rounds": rounds, "reps": reps, "fills": fills, "device": device, "runs": runs},
                              indent=1))
    print("| function | base (ms) | new (ms) |\n|---|---:|---:|")
    for name in runs["base"][0]["host_ms"]:
        b, n = (statistics.median(r["host_ms"].get(name, 0.0) for r in runs[t]) for t in trees)
        print(f"| {name} | {b:.1f} | {n:.1f} |")
    if fills:
        b, n = (statistics.median(r["fill_s"] for r in runs[t]) for t in trees)
        print(f"\nIn-process fill, median of the rounds' medians: base {b:.3f} s, new {n:.3f} s ({n / b:.2f})")


if __name__ == "__main__":
    main()
