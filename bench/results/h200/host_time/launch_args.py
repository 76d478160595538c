"""A launch's host cost against its number of arguments: a kernel of N arguments (at most 12
buffers, the rest ints), launched through pyopencl's call (which sets every argument) and with
``pyopencl.enqueue_nd_range_kernel`` alone (arguments set once), 3000 launches, median of 5.

Usage: ``python launch_args.py DEVICE`` (a part of the device's or platform's name).
"""

import sys
import time

import numpy as np
import pyopencl as cl

name = sys.argv[1].lower()
plat = next(p for p in cl.get_platforms() if any(name in (d.name + p.name).lower() for d in p.get_devices()))
ctx = cl.Context(plat.get_devices()[:1])
queue = cl.CommandQueue(ctx)
enqueue = cl.enqueue_nd_range_kernel


def timed(launch, n=3000):
    """Microseconds a launch, the median of 5 blocks of ``n`` after a warm-up."""
    for _ in range(200):
        launch()
    queue.finish()
    blocks = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            launch()
        blocks.append((time.perf_counter() - t0) / n * 1e6)
        queue.finish()
    return sorted(blocks)[2]


def measure(count):
    """Print the launch costs of a kernel of ``count`` arguments."""
    nbuf = min(12, count - 1)
    params = [f"__global int *b{i}" for i in range(nbuf)] + [f"int s{i}" for i in range(nbuf, count)]
    last = f"s{count - 1}"
    src = f"__kernel void k({', '.join(params)}) {{ if (get_global_id(0) == 0 && {last} == -1) b0[0] = {last}; }}"
    knl = cl.Program(ctx, src).build().k
    knl.set_scalar_arg_dtypes([None] * nbuf + [np.int32] * (count - nbuf))
    values = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64) for _ in range(nbuf)] + list(range(count - nbuf))
    call = timed(lambda: knl(queue, (256,), (64,), *values))
    knl.set_args(*values)
    alone = timed(lambda: enqueue(queue, knl, (256,), (64,)))
    wide = timed(lambda: enqueue(queue, knl, (8192,), (64,)))
    print(f"args {count:2d}: invoker {call:6.2f} us  enqueue only {alone:6.2f} us  "
          f"(8192 items {wide:6.2f} us)", flush=True)


for count in (2, 8, 20, 35):
    measure(count)
