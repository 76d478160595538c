"""Work-group size, private memory and capacity of the local-memory sweep kernels on a device.

Usage: ``python probe.py DEVICE`` from a tree's root (its ``inpaint`` on the path)."""
import sys

import pyopencl as cl

from inpaint.cl.runtime import get_runtime
from inpaint.methods.multiscale import opencl as mcl

rt = get_runtime(device=sys.argv[1])
p = mcl.Poisson(rt, 2, 1)
for attr in ("knl_local", "knl_channels"):
    knl = getattr(p, attr)
    print(attr, rt.work_group_info(knl), knl.get_work_group_info(cl.kernel_work_group_info.PRIVATE_MEM_SIZE, rt.device))
print("local", p.local_group, p.local_pixels, "channels", p.channel_group, p.channel_pixels)
