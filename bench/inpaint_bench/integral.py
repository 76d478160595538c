"""Benchmark: integral images, block algorithm vs naive device version vs numpy.

Runs on any machine whose Python has numpy and pyopencl (nothing else)::

    inpaint bench integral --device gpu --json integral_bench.json
    python -m inpaint_bench.integral --device gpu --json integral_bench.json

For every size and kind, a seeded uint8 image (30 % zeros) is uploaded once; the three
methods are then timed side by side, interleaved within each repeat, and the medians
reported:

* ``block``: :class:`inpaint.integral.IntegralPlan` (five kernels), device input and a
  reused device output;
* ``naive``: the same with ``method='naive'`` (row scan, transpose, row scan, transpose);
* ``numpy``: :func:`inpaint.integral.integral_reference` on the host array.

Device time is the sum of the kernels' profiled event times; wall time is enqueue to
``queue.finish()`` (host-side, includes launch overhead).  Both device results are
checked against numpy before timing.  Sums of 4096x4096 uint8 images can exceed
``2**31 - 1``; all int32 results here are computed modulo ``2**32`` (``overflow='wrap'``),
which does not change the kernels.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .common import cpu_name, described, result_file

DEFAULT_SIZES = ("512x384", "1024x550", "4096x4096")
DEFAULT_KINDS = ("sum", "count")
METHODS = ("block", "naive", "numpy")


def _parse_size(text: str) -> tuple[int, int]:
    """``'WxH'`` -> numpy shape ``(H, W)``."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size {text!r} is not WIDTHxHEIGHT (e.g. 1024x550)") from None
    if w <= 0 or h <= 0:
        raise argparse.ArgumentTypeError(f"size {text!r} must be positive")
    return h, w


def _parser(prog: str = "python -m inpaint_bench.integral") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=described(__doc__, first_line=True))
    p.add_argument("--device", default=None,
                   help="OpenCL device: 'P:D', 'gpu', 'cpu' or part of a name (default: PYOPENCL_CTX, else best)")
    p.add_argument("--sizes", default=",".join(DEFAULT_SIZES),
                   help="comma-separated WIDTHxHEIGHT list (default %(default)s)")
    p.add_argument("--kinds", default=",".join(DEFAULT_KINDS),
                   help="comma-separated kinds among sum, sqsum, count (default %(default)s)")
    p.add_argument("--repeats", type=int, default=15, help="timed repeats per method (default %(default)s)")
    p.add_argument("--warmup", type=int, default=2, help="untimed runs per method first (default %(default)s)")
    p.add_argument("--seed", type=int, default=5, help="image seed (default %(default)s)")
    p.add_argument("--json", metavar="FILE", default=None, type=result_file(), help="also write all results as JSON")
    return p


def _median_ms(values: Sequence[float]) -> float:
    return statistics.median(values) * 1e3


def bench_case(rt: Any, shape: tuple[int, int], kind: str, repeats: int, warmup: int,
               seed: int) -> dict[str, Any]:
    """Time block, naive and numpy on one image; return medians (ms) and raw samples (s)."""
    import pyopencl.array as cl_array

    from inpaint.cl.runtime import event_seconds
    from inpaint.integral import IntegralPlan, integral_reference

    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, shape, dtype=np.uint8)
    img[rng.random(shape) < 0.3] = 0
    q = rt.queue
    src = cl_array.to_device(q, img)
    want = integral_reference(img, kind, np.int32, overflow="wrap")
    plans = {m: IntegralPlan(shape, np.uint8, kind, np.int32, method=m, runtime=rt) for m in ("block", "naive")}
    outs = {m: cl_array.empty(q, shape, np.int32) for m in plans}
    for m, plan in plans.items():
        outs[m].fill(np.int32(-1))
        plan.enqueue(src, outs[m])
        if not np.array_equal(outs[m].get(), want):
            raise RuntimeError(f"{m} integral differs from numpy on {shape} {kind}: not timing a wrong result")

    wall: dict[str, list[float]] = {m: [] for m in METHODS}
    device: dict[str, list[float]] = {m: [] for m in plans}
    per_kernel: dict[str, list[list[float]]] = {m: [] for m in plans}
    for r in range(warmup + repeats):
        for m in METHODS:  # interleaved: every method sees the same machine state
            t0 = time.perf_counter()
            if m == "numpy":
                integral_reference(img, kind, np.int32, overflow="wrap")
                events = None
            else:
                events = plans[m].enqueue(src, outs[m])
                q.finish()
            t1 = time.perf_counter()
            if r < warmup:
                continue
            wall[m].append(t1 - t0)
            if events is not None:
                device[m].append(event_seconds(events))
                per_kernel[m].append([event_seconds([e]) for e in events])

    def kernel_medians(m: str) -> list[float]:
        return [statistics.median(col) * 1e3 for col in zip(*per_kernel[m])]

    return {
        "width": shape[1], "height": shape[0], "kind": kind, "src": "uint8", "dtype": "int32",
        "repeats": repeats,
        "device_ms": {m: _median_ms(v) for m, v in device.items()},
        "wall_ms": {m: _median_ms(v) for m, v in wall.items()},
        "kernel_ms": {m: kernel_medians(m) for m in plans},
        "kernel_names": {m: plan.launched for m, plan in plans.items()},
        "config": {"block": {"group": list(plans["block"].group), "scan_parts": plans["block"].scan_parts,
                             "scan_lines": plans["block"].scan_lines,
                             "blocks_per_item": plans["block"].blocks_per_item,
                             "scan_cols": plans["block"].scan_cols},
                   "naive": {"tile": plans["naive"].tile, "row_group": plans["naive"].row_group}},
        "samples_s": {"wall": wall, "device": device},
    }


def markdown(results: Sequence[dict[str, Any]], device_name: str) -> str:
    """The results as a Markdown table (medians in milliseconds)."""
    lines = [
        f"Device: {device_name}",
        "",
        "| size (W×H) | kind | block device | naive device | block wall | naive wall | numpy wall "
        "| naive/block (device) | numpy/block (wall) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        d, w = r["device_ms"], r["wall_ms"]
        lines.append(
            f"| {r['width']}×{r['height']} | {r['kind']} | {d['block']:.3f} | {d['naive']:.3f} | "
            f"{w['block']:.3f} | {w['naive']:.3f} | {w['numpy']:.3f} | "
            f"{d['naive'] / d['block']:.2f}× | {w['numpy'] / w['block']:.2f}× |")
    lines.append("")
    lines.append("Times are medians in ms; device = sum of kernel event times, "
                 "wall = enqueue to queue.finish() (numpy: the call).")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, prog: str = "python -m inpaint_bench.integral") -> int:
    """Run the benchmark; print a Markdown table; optionally write JSON. Returns 0."""
    parser = _parser(prog)
    args = parser.parse_args(argv)
    try:
        sizes = [_parse_size(s) for s in args.sizes.split(",") if s.strip()]
    except argparse.ArgumentTypeError as exc:
        parser.error(str(exc))
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    from inpaint.integral import KINDS
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        parser.error(f"unknown kind(s) {', '.join(bad)}; expected {', '.join(KINDS)}")
    if args.repeats < 1 or args.warmup < 0:
        parser.error("--repeats must be >= 1 and --warmup >= 0")
    if not sizes or not kinds:
        parser.error("--sizes and --kinds must each name at least one")
    if args.seed < 0:
        parser.error("--seed must be >= 0")

    import pyopencl as cl

    from inpaint.cl.runtime import get_runtime

    rt = get_runtime(device=args.device)
    results = [bench_case(rt, shape, kind, args.repeats, args.warmup, args.seed)
               for shape in sizes for kind in kinds]
    print(markdown(results, rt.name))
    if args.json:
        meta = {
            "command": " ".join([prog] + list(argv if argv is not None else sys.argv[1:])),
            "device": rt.name,
            "device_version": rt.device.version.strip(),
            "driver_version": rt.device.driver_version.strip(),
            "compute_units": int(rt.device.max_compute_units),
            "host": platform.platform(),
            "host_cpu": cpu_name() or platform.processor() or platform.machine(),
            "host_cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pyopencl": ".".join(map(str, cl.VERSION)),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"meta": meta, "results": results}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
