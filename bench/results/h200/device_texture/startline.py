"""The start of a one-job batch command, in-process, function by function.

Usage: ``python startline.py DEVICE`` from the repository root.  Prints how long the imports
took, then each timed call of the first 750 ms of the batch (ms from ``main``).
"""

import sys
import tempfile
import threading
import time
from pathlib import Path

T0 = time.perf_counter()
import inpaint.api as api  # noqa: E402 - timed from T0
import inpaint.cl.build as bld  # noqa: E402
import inpaint.cl.engine as eng  # noqa: E402
import inpaint.cl.kcache as kc  # noqa: E402
import inpaint.cl.runtime as rtm  # noqa: E402
import inpaint.cli.batch as cb  # noqa: E402
import inpaint.cli.remove as rm  # noqa: E402
import inpaint.methods.base as base  # noqa: E402
import inpaint.methods.multiscale.opencl as mcl  # noqa: E402
from inpaint.cli import main  # noqa: E402

sys.path.insert(0, "tools")
from gpu_speed import make_batch  # noqa: E402 - from the tools folder put on the path above

spans = []  # (thread, name, start, end)


def timed(owner, name):
    call = getattr(owner, name)
    label = f"{getattr(owner, '__name__', owner)}.{name}"

    def wrapper(*a, **k):
        s = time.perf_counter()
        try:
            return call(*a, **k)
        finally:
            spans.append((threading.current_thread().name[:12], label, s, time.perf_counter()))
    setattr(owner, name, wrapper)


for owner, name in [(rtm, "_platforms"), (rtm, "get_runtime"), (rtm.Runtime, "__init__"), (eng.Engine, "ready"),
                    (eng.Engine, "open"), (eng, "resolve"), (cb, "plan_batch"), (kc, "prepare"), (mcl, "kernels"),
                    (rm, "_remove"), (api, "start"), (base.StepwiseJob, "run"), (cb.ReadAhead, "take"),
                    (rtm, "select_device"), (cb, "best_devices"), (bld, "named_kernel"), (mcl, "device_pyramid")]:
    timed(owner, name)
with tempfile.TemporaryDirectory() as tmp:
    batch = make_batch(Path(tmp) / "b", Path("datasets/walkingman/image.png"), 60)
    t0 = time.perf_counter()
    main([str(batch), "-o", f"{tmp}/o/", "-q", "--device", sys.argv[1]])
    t1 = time.perf_counter()
print(f"imports {t0 - T0:.3f} s (the batch made inside), batch {t1 - t0:.3f} s")
for th, n, s, e in sorted(spans, key=lambda x: x[2]):
    if s - t0 > 0.75:
        break
    if n.endswith("named_kernel") and (e - s) < 0.002:
        continue
    print(f"  {th:12s} {n:40s} {(s - t0) * 1e3:8.1f} .. {(e - t0) * 1e3:8.1f}  ({(e - s) * 1e3:.1f} ms)")
