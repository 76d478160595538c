"""The Criminisi fill's two loops on one device, side by side: exactness and speed.

Usage: ``python tools/gpu_loop.py OUT.json [DEVICE] [REPEATS]`` (DEVICE as for ``--device``).
For the four paper cases at full search / P = 9, the paper's alpha = 0.05 / P = 17 and
alpha = 0.05 / P = 9, it checks that the device-resident loop and the host-driven loop give
the same image, patches and SSDs (and, at alpha = 0.05, the numpy reference's), then times
each loop in-process as the command runs it (``timings=False``: no profiling queue) and the
device loop once more with profiling on (``timings=True``, as ``--stats`` runs it): median of
REPEATS (default 7) after a warm-up, interleaved.  Prints a Markdown table with the per-stage
device seconds of one profiled run, and writes everything as JSON.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from inpaint.api import inpaint
from inpaint.cl.runtime import get_runtime
from inpaint.io.cases import case_names, load_case

CONFIGS = (("full", 9), (0.05, 17), (0.05, 9))


def same(a, b) -> bool:
    return a.image.tobytes() == b.image.tobytes() and a.stats.patches == b.stats.patches and a.stats.ssd == b.stats.ssd


def main() -> int:
    out = Path(sys.argv[1])
    device = sys.argv[2] if len(sys.argv) > 2 else None
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    rt = get_runtime(device=device)
    report = {"device": rt.name, "rows": []}
    bad = 0
    print(f"device: {rt.name}; median of {reps} runs per loop, interleaved, after a warm-up\n")
    print("| case | alpha / P | iterations | host loop | device loop | ratio | device loop, profiled | identical "
          "| device stages, one run (ms) |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    for name in case_names():
        case = load_case(name)
        for alpha, patch in CONFIGS:
            kw = dict(method="criminisi", alpha=alpha, patch=patch, backend="opencl", device=rt.device)
            res = {loop: inpaint(case.image, case.mask, loop=loop, **kw) for loop in ("host", "device")}
            ok = same(res["host"], res["device"])
            if alpha != "full":
                ok = ok and same(res["device"], inpaint(case.image, case.mask, method="criminisi", alpha=alpha,
                                                        patch=patch, backend="numpy"))
            bad += not ok
            times = {"host": [], "device": [], "device profiled": []}
            for _ in range(reps):
                for run in times:
                    loop, timings = run.split()[0], run.endswith("profiled")
                    t = time.perf_counter()
                    again = inpaint(case.image, case.mask, loop=loop, timings=timings, **kw)
                    times[run].append(time.perf_counter() - t)
                    bad += again.image.tobytes() != res[loop].image.tobytes()
            med = {loop: statistics.median(v) for loop, v in times.items()}
            stages = {k: round(v * 1e3, 2) for k, v in res["device"].stats.stage_seconds.items()}
            row = {"case": name, "alpha": alpha, "patch": patch, "iterations": res["device"].stats.iterations,
                   "identical": ok, "median_s": med, "times_s": times, "device_stage_ms": stages,
                   "host_loop_stage_ms": {k: round(v * 1e3, 2) for k, v in res["host"].stats.stage_seconds.items()}}
            report["rows"].append(row)
            print(f"| {name} | {alpha} / {patch} | {row['iterations']} | {med['host'] * 1e3:.1f} ms | "
                  f"{med['device'] * 1e3:.1f} ms | {med['host'] / med['device']:.2f}x | "
                  f"{med['device profiled'] * 1e3:.1f} ms | {'yes' if ok else 'NO'} | "
                  + ", ".join(f"{k} {v}" for k, v in stages.items()) + " |", flush=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"\n{bad} configuration(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
