"""The start of a batch command in-process, function by function: python startline.py DEVICE"""
import sys, tempfile, threading, time
from pathlib import Path
sys.path.insert(0, "tools")
T0 = time.perf_counter()
from gpu_speed import make_batch
import inpaint.cl.runtime as rtm, inpaint.cl.engine as eng, inpaint.cli.batch as cb, inpaint.cl.kcache as kc
import inpaint.methods.multiscale.opencl as mcl, inpaint.cli.remove as rm, inpaint.api as api, inpaint.cl.build as bld
import inpaint.methods.base as base
spans = []
def timed(owner, name):
    call = getattr(owner, name)
    def wrapper(*a, **k):
        s = time.perf_counter()
        try:
            return call(*a, **k)
        finally:
            spans.append((threading.current_thread().name[:12], f"{getattr(owner, '__name__', owner)}.{name}", s, time.perf_counter()))
    setattr(owner, name, wrapper)
for o, n in [(rtm, "_platforms"), (rtm, "get_runtime"), (rtm.Runtime, "__init__"), (eng.Engine, "ready"), (eng.Engine, "open"),
             (eng, "resolve"), (cb, "plan_batch"), (kc, "prepare"), (mcl, "kernels"), (rm, "_remove"), (api, "start"),
             (base.StepwiseJob, "run"), (cb.ReadAhead, "take"), (rtm, "select_device"), (cb, "best_devices"),
             (bld, "named_kernel"), (mcl, "device_pyramid")]:
    try:
        timed(o, n)
    except AttributeError as e:
        print("no", o, n)
from inpaint.cli import main
with tempfile.TemporaryDirectory() as tmp:
    batch = make_batch(Path(tmp) / "b", Path("datasets/walkingman/image.png"), 60)
    t0 = time.perf_counter()
    main([str(batch), "-o", f"{tmp}/o/", "-q", "--device", sys.argv[1]])
    t1 = time.perf_counter()
print(f"imports {t0 - T0:.3f} s (batch made inside), batch {t1 - t0:.3f} s")
seen = 0
for th, n, s, e in sorted(spans, key=lambda x: x[2]):
    if s - t0 > 0.75: break
    if n.endswith("named_kernel") and (e - s) < 0.002: continue
    print(f"  {th:12s} {n:40s} {(s - t0) * 1e3:8.1f} .. {(e - t0) * 1e3:8.1f}  ({(e - s) * 1e3:.1f} ms)")
