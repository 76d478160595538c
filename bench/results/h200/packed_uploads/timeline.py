"""The timeline of one default WalkingMan fill: the host's phases (the fill's thread and the set-up
thread) beside the device's commands, on one clock.

Usage: ``python timeline.py DEVICE [CASE]`` from the repository root.  Prints the walls of six
fills, then for the last one the device's idle gaps over 20 us with what the host was doing, the
host's phases and every command's start and end (ms from the call).  Device times come from the
queue's profiling (the fills ask for it: ``timings=True``); the device clock is put on the
host's through the enqueue times.
"""

import sys
import threading
import time

import pyopencl as cl

from inpaint import api
from inpaint.cl import build as bmod
from inpaint.io.cases import load_case
from inpaint.methods.multiscale import job as jmod, levels as lmod, opencl as mcl, reference as rmod

DEV = sys.argv[1] if len(sys.argv) > 1 else "NVIDIA"
CASE = load_case(sys.argv[2] if len(sys.argv) > 2 else "walkingman")
commands: list = []  # (name, host time after the enqueue, event)
phases: list = []  # (thread, name, start, end)
recording = [False]


def recorded(name_of, call):
    def wrapper(*args, **kwargs):
        event = call(*args, **kwargs)
        if recording[0]:
            commands.append((name_of(args, kwargs), time.perf_counter(), event))
        return event
    return wrapper


bmod.NamedKernel.__call__ = recorded(lambda a, k: a[0].name, bmod.NamedKernel.__call__)
_partial = bmod.NamedKernel.partial
bmod.NamedKernel.partial = lambda self, *a, **k: recorded(lambda a2, k2: self.name, _partial(self, *a, **k))
cl.enqueue_nd_range_kernel = recorded(lambda a, k: a[1].function_name + "*", cl.enqueue_nd_range_kernel)
cl.enqueue_copy = recorded(lambda a, k: "copy" + ("B" if k.get("is_blocking", True) else ""), cl.enqueue_copy)
cl.enqueue_fill_buffer = recorded(lambda a, k: "fill", cl.enqueue_fill_buffer)


def timed(owner, name, label=None):
    call = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            if recording[0]:
                phases.append((threading.current_thread().name[:12], label or name, start, time.perf_counter()))
    setattr(owner, name, wrapper)


for name in ("_enter", "_round", "_leave", "prepare"):
    timed(jmod._Fill, name)
for name in ("level", "prior", "base"):
    timed(lmod.Ahead, name, "wait " + name)
timed(lmod, "prepare_level")
timed(rmod, "expected_texture")
timed(mcl, "device_pyramid")
timed(mcl.DeviceLevel, "__init__", "DeviceLevel()")

for _ in range(4):
    api.inpaint(CASE.image, CASE.mask, device=DEV, timings=True)
walls = []
for _ in range(6):
    commands.clear()
    phases.clear()
    recording[0] = True
    t0 = time.perf_counter()
    api.inpaint(CASE.image, CASE.mask, device=DEV, timings=True)
    t1 = time.perf_counter()
    recording[0] = False
    walls.append((t1 - t0) * 1000)
print("walls", [round(w, 2) for w in walls])
info = cl.profiling_info
# QUEUED is taken before the enqueue returns: the largest host-minus-queued is the tightest offset
offset = max(h - ev.get_profiling_info(info.QUEUED) * 1e-9 for _, h, ev in commands)
spans = sorted((n, ev.get_profiling_info(info.START) * 1e-9 + offset - t0,
                ev.get_profiling_info(info.END) * 1e-9 + offset - t0, h - t0) for n, h, ev in commands)
spans.sort(key=lambda s: s[1])
busy = sum(e - s for _, s, e, _ in spans)
print(f"last fill: wall {(t1 - t0) * 1000:.2f} ms, first command starts {spans[0][1] * 1000:.2f}, "
      f"last ends {max(s[2] for s in spans) * 1000:.2f}, busy {busy * 1000:.2f}")
gaps, end = [], spans[0][2]
for n, s, e, h in spans[1:]:
    if s - end > 20e-6:
        gaps.append((s - end, end, n, h))
    end = max(end, e)
print(f"gaps > 20 us: {len(gaps)} totalling {sum(g[0] for g in gaps) * 1000:.2f} ms")
for gap, at, n, h in sorted(gaps, reverse=True)[:25]:
    doing = [f"{th}:{p}" for th, p, a, b in phases if a - t0 <= at + gap and b - t0 >= at]
    print(f"  gap {gap * 1e6:7.1f} us at {at * 1000:6.2f} ms before {n:24s} (enqueued at {h * 1000:6.2f}) "
          f"host doing: {doing[:6]}")
print("host phases:")
for th, p, a, b in sorted(phases, key=lambda x: x[2]):
    print(f"  {th:12s} {p:18s} {(a - t0) * 1000:7.2f} .. {(b - t0) * 1000:7.2f}  ({(b - a) * 1000:.2f} ms)")
print("commands (start .. end, enqueued at):")
for n, s, e, h in spans:
    print(f"  {n:26s} {s * 1000:7.3f} .. {e * 1000:7.3f}  enq {h * 1000:7.3f}")
