"""How long a device takes to create buffers, use them first and upload a 12 MP photo: fresh
buffers against a pyopencl memory pool, and a buffer made from host memory against a queued copy.

Usage: ``python alloc_bench.py DEVICE`` (a substring of the device's or platform's name).
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.tools as tools

SIZES = [48_000_000, 12_000_000, 3_000_000, 24_000_000, 2_900_000, 1_440_000, 368_256 * 32, 368_256 * 16,
         100_000, 4_000]


def main() -> None:
    want = sys.argv[1].lower() if len(sys.argv) > 1 else "nvidia"
    dev = next(d for p in cl.get_platforms() for d in p.get_devices() if want in (p.name + d.name).lower())
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    knl = cl.Kernel(cl.Program(ctx, "__kernel void touch(__global uint *b, uint n)"
                                    "{ size_t i = get_global_id(0); if (i < n) b[i] = i; }").build(), "touch")

    def fill(make) -> tuple[float, float, float]:
        t = time.perf_counter()
        bufs = [make(s) for s in SIZES]
        t1 = time.perf_counter()
        for b, s in zip(bufs, SIZES):
            knl(q, (1024,), None, b, np.uint32(min(1024, s // 4)))
        t2 = time.perf_counter()
        q.finish()
        return (t1 - t) * 1e3, (t2 - t1) * 1e3, (time.perf_counter() - t2) * 1e3

    pool = tools.MemoryPool(tools.ImmediateAllocator(q))
    for name, make in [("fresh", lambda s: cl.Buffer(ctx, cl.mem_flags.READ_WRITE, s)), ("pool", pool.allocate)]:
        rows = [fill(make) for _ in range(8)]
        print(name, "create/enqueue-first-use/finish ms medians:",
              [round(statistics.median(r[i] for r in rows[2:]), 3) for i in range(3)])
    rgb = np.random.default_rng(0).integers(0, 255, (3000, 4000, 3), np.uint8)
    for _ in range(2):
        t = time.perf_counter()
        b = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=rgb)
        t1 = time.perf_counter()
        knl(q, (1024,), None, b, np.uint32(1024))
        t2 = time.perf_counter()
        q.finish()
        print(f"COPY_HOST_PTR 36 MB: create {(t1 - t) * 1e3:.2f} enqueue {(t2 - t1) * 1e3:.2f} "
              f"finish {(time.perf_counter() - t2) * 1e3:.2f} ms")
        pb = pool.allocate(rgb.nbytes)
        t = time.perf_counter()
        ev = cl.enqueue_copy(q, pb, rgb, is_blocking=False)
        t1 = time.perf_counter()
        q.finish()
        print(f"pool + non-blocking copy 36 MB: enqueue {(t1 - t) * 1e3:.2f} "
              f"finish {(time.perf_counter() - t1) * 1e3:.2f} ms")
        del pb, ev
        t = time.perf_counter()
        rgb.copy()
        print(f"numpy copy 36 MB {(time.perf_counter() - t) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
