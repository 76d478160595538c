"""The choices the fill methods' options take, each named once.

A leaf: the option declarations (``<family>/options.py``) and the kernel wrappers read these
tuples; the methods themselves, their options and defaults are in :mod:`inpaint.methods.registry`.
"""

from __future__ import annotations

from ..cl import BACKENDS  # noqa: F401 - the methods' backend choice

#: The method a run takes when none is named (:data:`inpaint.methods.registry.METHODS`).
DEFAULT_METHOD = "multiscale"

#: Where the Criminisi fill takes source patches from (see :class:`inpaint.methods.criminisi.job.Inpainter`).
SOURCES = ("original", "filled")
#: Who drives the Criminisi iterations: the device-resident loop or the host (same result).
LOOPS = ("auto", "device", "host")
#: The Criminisi findBestPatch kernel variants (see :class:`inpaint.methods.criminisi.opencl.FindBestPatch`).
VARIANTS = ("auto", "local", "global")
#: Whether findBestPatch prunes its map: ``'auto'`` prunes on CPU devices only.
PRUNE = ("auto", True, False)

#: Most candidates a multiscale patch keeps (its kernels keep them in registers).
MAX_CANDIDATES = 8
#: The largest seed of a method's random search (its 32-bit hash keys hold 16 bits of the seed).
MAX_SEED = 2 ** 16 - 1
