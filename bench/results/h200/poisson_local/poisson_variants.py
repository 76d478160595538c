"""Poisson kernel variants on WalkingMan's levels: device time per launch and exactness.

Usage: ``python poisson_variants.py OUT.json poisson_variants.cl`` (the first NVIDIA device, else
the first device).  For every level of WalkingMan's hole and 80 or 30 sweeps, each variant and
work-group size: the median device time of five launches and whether x and the estimate equal
the numpy reference's."""
import json
import statistics
import sys

import numpy as np
import pyopencl as cl

from inpaint.io.cases import load_case
from inpaint.methods.multiscale import levels, reference as ref

out = sys.argv[1]
plats = [d for p in cl.get_platforms() for d in p.get_devices() if "NVIDIA" in d.name or "NVIDIA" in p.name]
dev = plats[0] if plats else cl.get_platforms()[0].get_devices()[0]
ctx = cl.Context([dev])
q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
src = open(sys.argv[2]).read()
OPTIONS = ["-DFIX=4096", "-DGS_K=4", "-DGS_NONE=0xFFFFu"]
progs = {sw: cl.Program(ctx, src).build(options=OPTIONS + (["-DDIVSW"] if sw else [])) for sw in (False, True)}
case = load_case("walkingman")
masks = levels.mask_pyramid(case.mask, 7, None)
rng = np.random.default_rng(1)
mf = cl.mem_flags
rep = {"device": dev.name, "rows": []}
for name in ("gs_reg", "gs_glob", "gs_both", "gauss_seidel_sweeps"):
    k = getattr(progs[False], name)
    rep[name + "_wg"] = k.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, dev)
print(rep)
lm = dev.local_mem_size
for lv, mask in enumerate(masks):
    lev = levels.prepare_level(mask, 3, 1.0)
    h, w = mask.shape
    est = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    v = rng.integers(-30, 290, lev.tidx.shape + (4,)).astype(np.int32)
    x0 = np.zeros(lev.tidx.shape + (4,), np.int32)
    x0[lev.hole_map != 0, :3] = rng.integers(-300000, 300000, (int(lev.hole_map.sum()), 3))
    nred, nblack = len(lev.colours[0]), len(lev.colours[1])
    m, t = max(nred, nblack), nred + nblack
    for sweeps in (80, 30):
        want_est, want_x = est.copy(), x0.copy()
        ref.gauss_seidel(lev.solve_map, want_est, v, want_x, lev.colours, lev.origin, sweeps)
        ref.compose(want_est, v, want_x, lev.hole, lev.origin)
        configs = [("gauss_seidel_sweeps", False, 256, None)]
        for G in (1024, 512, 256, 128, 64, 32):
            if -(-m // 4) <= G:
                configs.append(("gs_reg", False, G, 12 * m))
                configs.append(("gs_glob", False, G, 12 * m))
                if 12 * t <= lm:
                    configs.append(("gs_both", False, G, 12 * t))
                    configs.append(("gs_both", True, G, 12 * t))
        for name, sw, G, lbytes in configs:
            knl = getattr(progs[sw], name)
            if G > knl.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, dev) or (lbytes or 0) > lm:
                continue
            times, ok = [], True
            for r in range(6):
                b = {k2: cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(a))
                     for k2, a in (("hole", lev.solve_map), ("est", est), ("v", v), ("x", x0), ("red", lev.colours[0]),
                                   ("black", lev.colours[1]), ("holepix", lev.hole))}
                gs = cl.Buffer(ctx, mf.READ_WRITE, 24 * t)
                args = [b["hole"], b["est"], b["v"], b["x"], b["red"], np.int32(nred), b["black"], np.int32(nblack),
                        np.int32(w), np.int32(h), np.int32(sweeps), np.int32(lev.work[0]), np.int32(lev.work[1]),
                        np.int32(lev.tidx.shape[1]), b["holepix"], np.int32(len(lev.hole)), b["hole"], np.int32(0),
                        b["holepix"], b["holepix"], np.int32(0)]
                if name == "gs_glob":
                    args.append(gs)
                if lbytes:
                    args.append(cl.LocalMemory(lbytes))
                ev = knl(q, (G,), (G,), *args)
                ev.wait()
                times.append((ev.profile.end - ev.profile.start) * 1e-6)
                if r == 0:
                    ge, gx = np.empty_like(est), np.empty_like(x0)
                    cl.enqueue_copy(q, ge, b["est"])
                    cl.enqueue_copy(q, gx, b["x"])
                    ok = bool(np.array_equal(ge, want_est) and np.array_equal(gx, want_x))
            row = dict(level=lv, hole=t, m=m, sweeps=sweeps, kernel=name, divsw=sw, G=G,
                       ms=statistics.median(times[1:]), exact=ok)
            rep["rows"].append(row)
            print(row, flush=True)
json.dump(rep, open(out, "w"), indent=1)
