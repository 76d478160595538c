"""Where a default WalkingMan fill's host time goes, part by part, on the fill's thread (the waits
for the device apart), over 200 fills; then a profile of 50 more.

Usage: ``python split.py DEVICE`` from the repository root.  The parts: the job's set-up
(``api.start``), entering each level, the rounds, the next level's set-up made between rounds
(``Ahead.advance``), leaving each level; ``wait`` is the time in the fill's two waits.
"""

import collections
import cProfile
import pstats
import statistics
import sys
import time

from inpaint import api
from inpaint.io.cases import load_case
from inpaint.methods.multiscale import job as jmod, levels as lmod, opencl as mcl

DEV = sys.argv[1]
CASE = load_case("walkingman")
parts: dict = collections.defaultdict(float)
wait = [0.0]


def timed(owner, name, label):
    call = getattr(owner, name)

    def wrapper(*args, **kwargs):
        t, w0 = time.perf_counter(), wait[0]
        try:
            return call(*args, **kwargs)
        finally:
            parts[label] += time.perf_counter() - t - (wait[0] - w0)
    setattr(owner, name, wrapper)


_read = mcl.DeviceLevel._read
_lift = mcl.DeviceLevel.lift


def read(self, *args, **kwargs):
    t = time.perf_counter()
    self.rt.queue.finish()
    wait[0] += time.perf_counter() - t
    return _read(self, *args, **kwargs)


def lift(self, coarse, key):
    if coarse.first is not None:
        t = time.perf_counter()
        coarse.first.wait()
        wait[0] += time.perf_counter() - t
    return _lift(self, coarse, key)


mcl.DeviceLevel._read, mcl.DeviceLevel.lift = read, lift
for name in ("_round", "_enter", "_leave"):
    timed(jmod._Fill, name, name.strip("_"))
timed(lmod.Ahead, "advance", "advance")

for _ in range(10):
    api.inpaint(CASE.image, CASE.mask, device=DEV)
rows = collections.defaultdict(list)
for _ in range(200):
    parts.clear()
    wait[0] = 0.0
    t0 = time.perf_counter()
    job = api.start(CASE.image, CASE.mask, device=DEV)
    parts["start"] += time.perf_counter() - t0
    while not job.done:
        job.step()
    rows["wall"].append((time.perf_counter() - t0) * 1e3)
    rows["wait"].append(wait[0] * 1e3)
    for key, value in parts.items():
        rows[key].append(value * 1e3)
for key, values in rows.items():
    values.sort()
    print(f"{key:8s} median {statistics.median(values):.3f} ms  (p10 {values[20]:.3f}, p90 {values[180]:.3f})")
profile = cProfile.Profile()
profile.enable()
for _ in range(50):
    api.inpaint(CASE.image, CASE.mask, device=DEV)
profile.disable()
pstats.Stats(profile).sort_stats("tottime").print_stats(45)
