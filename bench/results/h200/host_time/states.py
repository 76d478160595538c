"""WalkingMan fills in blocks of 30, in one process: each block's median wall time, the fill's
thread's CPU time, the time it spent in the fill's two waits for the device (a level's start, the
result's read), and, every third block (profiled), the kernels' busy time.

Usage: ``python states.py BLOCKS [DEVICE]`` from the repository root (DEVICE as for ``--device``,
default ``NVIDIA``).  Prints one JSON line a block.
"""

import json
import statistics
import sys
import time

import pyopencl as cl

from inpaint import api
from inpaint.cl import build as bmod
from inpaint.io.cases import load_case
from inpaint.methods.multiscale import opencl as mcl

CASE = load_case("walkingman")
DEV = sys.argv[2] if len(sys.argv) > 2 else "NVIDIA"
waits = [0.0]
events: list = []

_read = mcl.DeviceLevel._read
_lift = mcl.DeviceLevel.lift
_call = bmod.NamedKernel.__call__


def read(self, *args, **kwargs):
    t = time.perf_counter()
    self.rt.queue.finish()
    waits[0] += time.perf_counter() - t
    return _read(self, *args, **kwargs)


def lift(self, coarse, key):
    if coarse.first is not None:
        t = time.perf_counter()
        coarse.first.wait()
        waits[0] += time.perf_counter() - t
    return _lift(self, coarse, key)


def call(self, *args, **kwargs):
    event = _call(self, *args, **kwargs)
    events.append(event)
    return event


mcl.DeviceLevel._read, mcl.DeviceLevel.lift, bmod.NamedKernel.__call__ = read, lift, call

for _ in range(5):
    api.inpaint(CASE.image, CASE.mask, device=DEV)
info = cl.profiling_info
for block in range(int(sys.argv[1])):
    profiled = block % 3 == 2
    walls, cpus, waited, busy = [], [], [], []
    for _ in range(30):
        events.clear()
        waits[0] = 0.0
        c0, t0 = time.thread_time(), time.perf_counter()
        api.inpaint(CASE.image, CASE.mask, device=DEV, timings=profiled)
        walls.append((time.perf_counter() - t0) * 1e3)
        cpus.append((time.thread_time() - c0) * 1e3)
        waited.append(waits[0] * 1e3)
        if profiled:
            busy.append(sum((e.get_profiling_info(info.END) - e.get_profiling_info(info.START)) * 1e-6
                            for e in events))
    row = {"profiled": profiled, "wall": statistics.median(walls), "cpu": statistics.median(cpus),
           "wait": statistics.median(waited), "busy": statistics.median(busy) if busy else None}
    print(json.dumps({k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()}), flush=True)
