"""The Gauss-Seidel local-memory sweeps with other numbers of pixels a work-item: their device time
and the fill's hash, each variant in a fresh process.

Usage: ``python gs_variants.py DEVICE`` from the repository root.  Each line: ``GS_K GS_KC`` and a
JSON object of WalkingMan, River and DivingMan at seed 0 (median wall of 15 fills, the hash of the
image and source map, the sweeps' device time in ms and their launch sizes).
"""

import collections
import hashlib
import json
import statistics
import subprocess
import sys
import time


def measure(device: str, gs_k: int, gs_kc: int) -> dict:
    from inpaint import api
    from inpaint.cl import build as bmod
    from inpaint.io.cases import load_case
    from inpaint.methods.multiscale import opencl as mcl

    mcl.GS_K, mcl.GS_KC = gs_k, gs_kc  # read when the kernels are built and launched
    out = {}
    launches = []
    call = bmod.NamedKernel.__call__

    def recorded(self, queue, g, lsize, /, **kw):
        event = call(self, queue, g, lsize, **kw)
        launches.append((self.name, tuple(g), tuple(lsize) if lsize else None, event))
        return event

    for case in ("walkingman", "river", "divingman"):
        c = load_case(case)
        bmod.NamedKernel.__call__ = recorded
        for _ in range(3):
            api.inpaint(c.image, c.mask, device=device, seed=0)
        launches.clear()
        r = api.inpaint(c.image, c.mask, device=device, seed=0)
        bmod.NamedKernel.__call__ = call
        total, sizes = collections.defaultdict(float), collections.defaultdict(set)
        for name, g, lsize, event in launches:
            event.wait()
            total[name] += (event.profile.end - event.profile.start) * 1e-6
            sizes[name].add(str((g, lsize)))
        walls = []
        for _ in range(15):
            t = time.perf_counter()
            api.inpaint(c.image, c.mask, device=device, seed=0, timings=False)
            walls.append((time.perf_counter() - t) * 1000)
        out[case] = {"wall": round(statistics.median(walls), 2),
                     "hash": hashlib.sha256(r.image.tobytes() + r.source_map.tobytes()).hexdigest()[:16],
                     "gs": {k: round(v, 3) for k, v in total.items() if "gauss" in k or k == "compose"},
                     "sizes": {k: sorted(v) for k, v in sizes.items() if "gauss" in k}}
    return out


if __name__ == "__main__":
    if len(sys.argv) > 2:
        print(json.dumps(measure(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
    else:
        for gs_k, gs_kc in ((4, 16), (1, 4), (2, 8), (1, 8), (2, 4), (1, 2), (4, 16)):
            p = subprocess.run([sys.executable, __file__, sys.argv[1], str(gs_k), str(gs_kc)],
                               capture_output=True, text=True)
            print(gs_k, gs_kc, p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr[-600:], flush=True)
