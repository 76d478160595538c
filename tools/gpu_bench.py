"""One-shot device benchmark used for the NVIDIA H200 numbers in bench/results/h200/README.md.

Needs only numpy, Pillow and pyopencl.  Usage: python tools/gpu_bench.py OUT_DIR [DEVICE...]
For each device: Table 4 from the built kernels, the alpha = 0.05 / P = 17 and full / P = 9
cells of every dataset case (local and global kernels, medians of 5 after a warm-up), time per
profile and per partition, Table 2 for WalkingMan, and bit-exactness against numpy.
"""

import json
import statistics
import sys
import time
from pathlib import Path

from inpaint.api import inpaint
from inpaint.cl.runtime import all_devices, get_runtime
from inpaint.io.cases import case_names, load_case
from inpaint.methods.criminisi.opencl import FindBestPatch
from inpaint.report import format_stats


def timed(case, reps=5, **kw):
    kw.setdefault("method", "criminisi")  # this tool times the paper's pipeline
    if kw.get("backend") == "opencl":
        kw.setdefault("timings", True)  # (it reports the ssd stage's device time)
    inpaint(case.image, case.mask, **kw)  # warm-up: kernel builds
    times, res = [], None
    for _ in range(reps):
        t = time.perf_counter()
        res = inpaint(case.image, case.mask, **kw)
        times.append(time.perf_counter() - t)
    return statistics.median(times), res


def main():
    out = Path(sys.argv[1])
    devices = sys.argv[2:] or [f"{p}:{d}" for p, d, _ in all_devices()]
    report = {"devices": {}}
    lines = []
    cases = {n: load_case(n) for n in case_names()}
    ref = {}
    for name, case in cases.items():
        t = time.perf_counter()
        ref[name] = inpaint(case.image, case.mask, method="criminisi", alpha=0.05, patch=17, backend="numpy")
        report.setdefault("numpy_a005_p17_s", {})[name] = time.perf_counter() - t
    for dev in devices:
        rt = get_runtime(device=dev)
        d = report["devices"][dev] = {"name": rt.name, "cells": [], "table4": {}, "profiles": [], "partitions": []}
        lines.append(f"## {dev} {rt.name}")
        for p in (9, 13, 17):
            d["table4"][p] = rt.work_group_info(FindBestPatch(rt, p, "local").knl)["local_mem_size"]
        lines.append(f"Table 4 (built kernels): {d['table4']}")
        for name, case in cases.items():
            for alpha, patch in ((0.05, 17), ("full", 9)):
                for variant in ("local", "global"):
                    med, res = timed(case, alpha=alpha, patch=patch, backend="opencl", device=dev, variant=variant)
                    exact = None
                    if alpha == 0.05:
                        exact = res.image.tobytes() == ref[name].image.tobytes()
                    cell = {"case": name, "alpha": alpha, "patch": patch, "variant": res.stats.variant,
                            "median_s": med, "iterations": res.stats.iterations,
                            "ssd_s": res.stats.stage_seconds["ssd"],
                            "transfer_s": res.stats.transfer_seconds, "equals_numpy": exact}
                    d["cells"].append(cell)
                    lines.append(f"{name} alpha={alpha} P={patch} {res.stats.variant}: median {med*1e3:.1f} ms, "
                                 f"{res.stats.iterations} it, ssd {res.stats.stage_seconds['ssd']*1e3:.1f} ms, "
                                 f"sync/transfer {res.stats.transfer_seconds*1e3:.1f} ms, equals numpy: {exact}")
            for prof in ("native", "adreno330", "desktop_gpu", "coprocess"):
                med, res = timed(case, reps=3, alpha=0.05, patch=17, backend="opencl", device=dev, profile=prof)
                d["profiles"].append({"case": name, "profile": prof, "median_s": med, "variant": res.stats.variant,
                                      "equals_numpy": res.image.tobytes() == ref[name].image.tobytes()})
                lines.append(f"{name} profile {prof}: {med*1e3:.1f} ms ({res.stats.variant}), "
                             f"equals numpy: {d['profiles'][-1]['equals_numpy']}")
        wm = cases["walkingman"]
        for label, part in (("all device", None), ("ssd+reduce", ["ssd", "reduce"]),
                            ("ssd only", ["ssd"]),
                            ("all but ssd", ["grey", "front", "valid", "confidence", "priority", "reduce", "copy"])):
            med, res = timed(wm, reps=3, alpha=0.05, patch=17, backend="opencl", device=dev, partition=part)
            d["partitions"].append({"partition": label, "median_s": med, "transfer_s": res.stats.transfer_seconds})
            lines.append(f"walkingman partition {label}: {med*1e3:.1f} ms "
                         f"(transfers {res.stats.transfer_seconds*1e3:.1f} ms)")
        for alpha, patch in ((0.05, 17), ("full", 9)):
            _, res = timed(wm, reps=1, alpha=alpha, patch=patch, backend="opencl", device=dev)
            lines.append(f"\nTable 2, walkingman alpha={alpha} P={patch}:\n" + format_stats(res.stats) + "\n")
        (out / "gpu_bench.json").write_text(json.dumps(report, indent=1, default=str))
        (out / "gpu_bench.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
