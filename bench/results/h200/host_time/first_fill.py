"""A fresh process's first WalkingMan fills, its start apart: the imports, the runtime (the
platforms, a context and a queue), the program and the fill's kernel wrappers, then three fills.

Usage: ``python first_fill.py DEVICE`` from the repository root.
"""

import sys
import time

t0 = time.perf_counter()
from inpaint import api  # noqa: E402
from inpaint.cl.runtime import get_runtime  # noqa: E402
from inpaint.io.cases import load_case  # noqa: E402
from inpaint.methods.multiscale import opencl as mcl  # noqa: E402

case = load_case("walkingman")
t1 = time.perf_counter()
rt = get_runtime(device=sys.argv[1], profiling=False)
t2 = time.perf_counter()
mcl.kernels(rt, 3, 1)
t3 = time.perf_counter()
fills = []
for _ in range(3):
    t = time.perf_counter()
    api.inpaint(case.image, case.mask, device=sys.argv[1])
    fills.append(time.perf_counter() - t)
print(f"imports {t1 - t0:.3f}  runtime {t2 - t1:.3f}  program+wrappers {t3 - t2:.3f}  "
      f"fill1 {fills[0]:.4f}  fill2 {fills[1]:.4f}  fill3 {fills[2]:.4f}")
