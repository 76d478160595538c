"""Per-kernel device times, the device timeline's gaps and a host profile of one warm fill.

Usage: ``python kprof.py OUT_PREFIX DEVICE CASE`` (CASE: walkingman, or a megapixel count for
the photo of ``inpaint bench scaling``).  Writes OUT_PREFIX.json (median of warm fills, each
kernel's launches and device time, the idle gaps) and OUT_PREFIX.prof.txt (cProfile).  Launches
made through pyopencl.enqueue_nd_range_kernel (a large hole's bound sweeps) are not recorded."""
import collections
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
import pyopencl as cl
from PIL import Image

from inpaint.api import inpaint
from inpaint.cl import build
from inpaint.cl.runtime import get_runtime

out, device, case = sys.argv[1], sys.argv[2], sys.argv[3]
if case == "walkingman":
    from inpaint.io.cases import load_case
    c = load_case("walkingman")
    image, mask = c.image, c.mask
else:
    sys.path.insert(0, "bench")
    from inpaint_bench.scaling import make_case
    with tempfile.TemporaryDirectory() as tmp:
        photo, mask_path, _ = make_case(float(case), 0.03, Path(tmp))
        image = np.asarray(Image.open(photo).convert("RGB"))
        mask = np.asarray(Image.open(mask_path).convert("L")) > 127
rt = get_runtime(device=device)
d = rt.device
info = {"device": d.name, "local_mem": d.local_mem_size, "max_wg": d.max_work_group_size,
        "cu": d.max_compute_units, "hole": int(mask.sum()), "shape": list(mask.shape)}
kw = dict(backend="opencl", device=rt.device, timings=False)
r0 = inpaint(image, mask, **kw)
reps = 30 if case == "walkingman" else 7
ts = []
for _ in range(reps):
    t = time.perf_counter()
    inpaint(image, mask, **kw)
    ts.append(time.perf_counter() - t)
info["median_s"], info["runs"] = statistics.median(ts), sorted(ts)
rec = []
call = build.NamedKernel.__call__
def recorded(self, queue, g, lsize, /, **a):
    ev = call(self, queue, g, lsize, **a)
    rec.append((self.name, tuple(g), tuple(lsize) if lsize else None, ev))
    return ev
build.NamedKernel.__call__ = recorded
inpaint(image, mask, **dict(kw, timings=True))
rec.clear()
st = inpaint(image, mask, **dict(kw, timings=True)).stats
build.NamedKernel.__call__ = call
P = cl.profiling_info
rows = [(n, g, ls, ev.get_profiling_info(P.START), ev.get_profiling_info(P.END), ev.get_profiling_info(P.QUEUED))
        for n, g, ls, ev in rec]
rows.sort(key=lambda r: r[3])
per = collections.defaultdict(lambda: [0, 0.0])
for n, _g, _l, s, e, _q in rows:
    per[n][0] += 1
    per[n][1] += (e - s) * 1e-6
busy = sum(e - s for _, _, _, s, e, _ in rows) * 1e-6
span = (rows[-1][4] - rows[0][3]) * 1e-6
info.update(launches=len(rows), busy_ms=busy, span_ms=span, stage_s=st.stage_seconds, transfers_s=st.transfer_seconds,
            total_s=st.total_seconds, per_kernel_ms={k: v for k, v in sorted(per.items(), key=lambda kv: -kv[1][1])})
# where the device idles: the largest gaps between launches, with the kernels on either side
gaps = sorted(((rows[i + 1][3] - rows[i][4]) * 1e-6, rows[i][0], rows[i + 1][0], i) for i in range(len(rows) - 1))[::-1]
info["gaps_ms_top"] = gaps[:15]
info["gap_total_ms"] = sum(g[0] for g in gaps)
info["timeline"] = [(n, g, ls, round((s - rows[0][3]) * 1e-3, 1), round((e - s) * 1e-3, 1))
                    for n, g, ls, s, e, q in rows]
prof = cProfile.Profile()
prof.enable()
inpaint(image, mask, **kw)
prof.disable()
text = io.StringIO()
pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(40)
pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(50)
Path(out + ".prof.txt").write_text(text.getvalue())
Path(out + ".json").write_text(json.dumps(info, indent=1, default=str))
print(json.dumps({k: v for k, v in info.items() if k not in ("timeline", "runs")}, indent=1, default=str))
