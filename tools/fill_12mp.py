"""The default fill on a phone photo, in-process: median time, where it goes, and a profile.

Usage: ``python tools/fill_12mp.py OUT.json [DEVICE] [MEGAPIXELS] [REPEATS]`` (DEVICE as for
``--device``; default: the best device; 12 MP; 7 repeats).  The photo and its 3 % elliptic
hole are those of ``inpaint bench scaling``.  After a warm-up run (kernel builds), each repeat
times ``inpaint(image, mask, timings=False)`` on the device, as the command runs it without
``--stats``; the report gives the median and every run, the steps' device times and the
host-device transfers of one more run with profiling on, and the functions that took the most
time in a last run under cProfile (written beside OUT.json as OUT.prof.txt).
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from inpaint.api import inpaint
from inpaint.cl.runtime import get_runtime
from inpaint_bench.scaling import make_case


def main() -> int:
    out = Path(sys.argv[1])
    device = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
    mp = float(sys.argv[3]) if len(sys.argv) > 3 else 12.0
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 7
    with tempfile.TemporaryDirectory() as tmp:
        photo, mask_path, pixels = make_case(mp, 0.03, Path(tmp))
        image = np.asarray(Image.open(photo).convert("RGB"))
        mask = np.asarray(Image.open(mask_path).convert("L")) > 127
    rt = get_runtime(device=device)
    kw = dict(backend="opencl", device=rt.device, timings=False)
    inpaint(image, mask, **kw)  # warm-up: kernel builds, first launches
    runs = []
    for _ in range(reps):
        t = time.perf_counter()
        inpaint(image, mask, **kw)
        runs.append(time.perf_counter() - t)
    wall = statistics.median(runs)
    inpaint(image, mask, **dict(kw, timings=True))  # warm-up of the profiling queue
    st = inpaint(image, mask, **dict(kw, timings=True)).stats
    prof = cProfile.Profile()
    prof.enable()
    inpaint(image, mask, **kw)
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(30)
    out.with_suffix(".prof.txt").write_text(text.getvalue())
    report = {"device": rt.name, "megapixels": pixels / 1e6, "hole_pixels": int(mask.sum()),
              "median_s": wall, "runs_s": runs, "levels": st.levels,
              "device_step_s": st.stage_seconds, "transfers_s": st.transfer_seconds}
    out.write_text(json.dumps(report, indent=1))
    steps = ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in st.stage_seconds.items())
    print(f"{rt.name}: {pixels / 1e6:.1f} MP, hole {int(mask.sum())} px; median of {reps} {wall:.3f} s "
          f"(runs {', '.join(f'{r:.3f}' for r in sorted(runs))}); profiled run {st.total_seconds:.3f} s: "
          f"{steps}, transfers {st.transfer_seconds * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
