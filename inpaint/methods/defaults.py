"""The fill methods, their options and defaults, stated once.

Imports nothing heavy, so the command line can build its parser from it.
"""

from __future__ import annotations

from ..cl import BACKENDS  # noqa: F401 - the methods' backend choice

#: ``'multiscale'``: coarse-to-fine PatchMatch with voting and a gradient-domain correction
#: (:mod:`inpaint.methods.multiscale`); ``'criminisi'``: the paper's eight-stage greedy pipeline
#: (:mod:`inpaint.methods.criminisi`).
METHODS = ("multiscale", "criminisi")
DEFAULT_METHOD = "multiscale"

#: Where the Criminisi fill takes source patches from (see :class:`inpaint.methods.criminisi.job.Inpainter`).
SOURCES = ("original", "filled")
#: Who drives the Criminisi iterations: the device-resident loop or the host (same result).
LOOPS = ("auto", "device", "host")
#: The Criminisi findBestPatch kernel variants (see :class:`inpaint.methods.criminisi.opencl.FindBestPatch`).
VARIANTS = ("auto", "local", "global")
#: Whether findBestPatch prunes its map: ``'auto'`` prunes on CPU devices only.
PRUNE = ("auto", True, False)

#: Options each method takes.
OPTIONS = {
    "multiscale": ("alpha", "patch", "candidates", "protect", "backend", "device", "profile", "seed", "timings"),
    "criminisi": ("alpha", "patch", "protect", "backend", "device", "profile", "partition", "variant", "prune",
                  "source", "loop", "timings"),
}

#: Most candidates a multiscale patch keeps (its kernels keep them in registers).
MAX_CANDIDATES = 8

#: Defaults of the options that differ between methods (criminisi: the paper's settings).
DEFAULTS = {
    "multiscale": {"alpha": 1, "patch": 7, "candidates": 1},
    "criminisi": {"alpha": 0.05, "patch": 9},
}
