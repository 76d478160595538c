"""Content-aware resizing by seam carving (shrink, enlarge, protect, remove objects).

The numpy reference (:mod:`inpaint.seam.reference`) defines every rule; the OpenCL path
(:mod:`inpaint.seam.opencl`, ``kernels/seam/*.cl``) reproduces it bit for bit.
"""

from .api import BACKENDS, ENERGIES, ORDERS, Blends, resize

__all__ = ["resize", "Blends", "ENERGIES", "ORDERS", "BACKENDS"]
