"""Many WalkingMan fills in one process: whether the slow ones are the host's or the device's.

Usage: ``python states.py DEVICE FILLS`` from the repository root.  Each fill (profiled, after
four warm-ups) prints its wall time, its kernels' busy time from the queue's profiling and when
the host queued its last launch (ms from the call); then the medians of the fast fills (under
1.2 times the fastest) and of the slow ones.
"""

import statistics
import sys
import time

import pyopencl as cl

from inpaint import api
from inpaint.cl import build as bmod
from inpaint.io.cases import load_case

DEV, N = sys.argv[1], int(sys.argv[2])
CASE = load_case("walkingman")
events: list = []  # (host time after the enqueue, event)
recording = [False]


def noted(event):
    if recording[0]:
        events.append((time.perf_counter(), event))
    return event


_call, _partial = bmod.NamedKernel.__call__, bmod.NamedKernel.partial
bmod.NamedKernel.__call__ = lambda self, *a, **k: noted(_call(self, *a, **k))


def partial(self, *a, **k):
    launch = _partial(self, *a, **k)
    return lambda *a2, **k2: noted(launch(*a2, **k2))


bmod.NamedKernel.partial = partial
for _ in range(4):
    api.inpaint(CASE.image, CASE.mask, device=DEV, timings=True)
rows = []
info = cl.profiling_info
for _ in range(N):
    events.clear()
    recording[0] = True
    t0 = time.perf_counter()
    api.inpaint(CASE.image, CASE.mask, device=DEV, timings=True)
    t1 = time.perf_counter()
    recording[0] = False
    busy = sum(ev.get_profiling_info(info.END) - ev.get_profiling_info(info.START) for _, ev in events) * 1e-6
    rows.append(((t1 - t0) * 1e3, busy, (max(h for h, _ in events) - t0) * 1e3, len(events)))
for wall, busy, queued, n in rows:
    print(f"wall {wall:6.2f}  kernels busy {busy:5.2f}  last launch queued at {queued:6.2f}  launches {n}")
cut = min(r[0] for r in rows) * 1.2
for name, part in ((f"fast (< {cut:.1f} ms)", [r for r in rows if r[0] < cut]),
                   ("slow", [r for r in rows if r[0] >= cut])):
    if part:
        walls, busies, queues = ([r[i] for r in part] for i in range(3))
        print(name, len(part), "median wall", round(statistics.median(walls), 2), "busy",
              round(statistics.median(busies), 2), "last queued", round(statistics.median(queues), 2))
