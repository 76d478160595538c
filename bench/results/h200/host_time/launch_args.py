"""A launch's host cost against its number of arguments: a kernel of N arguments (at most 12
buffers, the rest ints), launched through pyopencl's call (which sets every argument) and with
``pyopencl.enqueue_nd_range_kernel`` alone (arguments set once), 3000 launches, median of 5.

Usage: ``python launch_args.py DEVICE`` (a part of the device's or platform's name).
"""

import sys, time, numpy as np, pyopencl as cl
plat = [p for p in cl.get_platforms() if any(sys.argv[1].lower() in (d.name + p.name).lower() for d in p.get_devices())][0]
ctx = cl.Context(plat.get_devices()[:1]); q = cl.CommandQueue(ctx)
enq = cl.enqueue_nd_range_kernel
def t(fn, n=3000):
    for _ in range(200): fn()
    q.finish(); res = []
    for r in range(5):
        t0 = time.perf_counter()
        for _ in range(n): fn()
        res.append((time.perf_counter() - t0) / n * 1e6); q.finish()
    return sorted(res)[2]
for N in (2, 8, 20, 35):
    nb = min(12, N - 1)
    params = [f"__global int *b{i}" for i in range(nb)] + [f"int s{i}" for i in range(nb, N)]
    src = "__kernel void k(" + ",".join(params) + f"){{ if (get_global_id(0)==0 && s{N-1}==-1) b0[0]=s{N-1}; }}"
    k = cl.Program(ctx, src).build().k
    k.set_scalar_arg_dtypes([None] * nb + [np.int32] * (N - nb))
    vals = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64) for _ in range(nb)] + list(range(N - nb))
    a = t(lambda: k(q, (256,), (64,), *vals))
    k.set_args(*vals)
    b = t(lambda: enq(q, k, (256,), (64,)))
    c = t(lambda: enq(q, k, (8192,), (64,)))
    print(f"args {N:2d}: invoker {a:6.2f} us  enqueue only {b:6.2f} us  (8192 items {c:6.2f} us)", flush=True)
