"""Where a one-job batch of 60 photos spends its time: each thread's phases, in-process.

Usage: python batchline.py DEVICE [RUNS]   (from the root of the tree to measure)"""
import collections, sys, tempfile, threading, time
from pathlib import Path
sys.path.insert(0, "tools")
from gpu_speed import make_batch
import inpaint.api as api
import inpaint.cli.batch as cb
import inpaint.io.atomic as atomic
import inpaint.methods.base as base
from inpaint.cli import main

spans = []  # (thread, name, start, end)

def timed(owner, name, label):
    call = getattr(owner, name)
    def wrapper(*a, **k):
        s = time.perf_counter()
        try:
            return call(*a, **k)
        finally:
            spans.append((threading.current_thread().name, label, s, time.perf_counter()))
    setattr(owner, name, wrapper)

timed(cb.ReadAhead, "take", "wait read")
timed(cb.ReadAhead, "_reading", "read")
timed(cb.WriteBehind, "settle", "wait write")
import inpaint.cli.perimage as pi
timed(pi.ImageRun, "save", "save")
import inpaint.cli.remove as rm
timed(rm, "_remove", "remove")
timed(api, "start", "fill start")
timed(base.StepwiseJob, "run", "fill run")
dev = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
with tempfile.TemporaryDirectory() as tmp:
    batch = make_batch(Path(tmp) / "b", Path("datasets/walkingman/image.png"), 60)
    for r in range(runs):
        spans.clear()
        t0 = time.perf_counter()
        rc = main([str(batch), "-o", f"{tmp}/o{r}/", "-q", "--device", dev])
        wall = time.perf_counter() - t0
        tot = collections.defaultdict(float); cnt = collections.Counter()
        first = min(s for th, n, s, e in spans if n == "fill start") - t0
        for th, n, s, e in spans:
            key = (th.split("_")[0][:16], n); tot[key] += e - s; cnt[key] += 1
        print(f"run {r}: rc {rc} wall {wall:.3f} s, {60 / wall:.1f} img/s; first fill starts at {first * 1e3:.0f} ms; "
              f"steady {(wall - first) / 60 * 1e3:.1f} ms a photo")
        rem = [(e - s) * 1e3 for th, n, s, e in spans if n == "remove"]
        fills = [(e - s) * 1e3 for th, n, s, e in spans if n == "fill run"]
        starts = sorted(s - t0 for th, n, s, e in spans if n == "remove")
        print("   remove ms, first 12:", " ".join(f"{x:.0f}" for x in rem[:12]), "| median of the last 40:", f"{sorted(rem[20:])[20]:.1f}")
        print("   fill run ms, first 12:", " ".join(f"{x:.0f}" for x in fills[:12]), "| median of the last 40:", f"{sorted(fills[20:])[20]:.1f}")
        print("   photo starts (ms):", " ".join(f"{x * 1e3:.0f}" for x in starts[:12]), "...", f"{starts[-1] * 1e3:.0f}")
        for key in sorted(tot, key=lambda k: -tot[k]):
            print(f"   {key[0]:16s} {key[1]:12s} n={cnt[key]:3d} total {tot[key] * 1e3:7.1f} ms  mean {tot[key] / cnt[key] * 1e3:6.2f} ms")
