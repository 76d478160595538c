"""The fill methods, their options and defaults, stated once.

Imports nothing heavy, so the command line can build its parser from it.
"""

from __future__ import annotations

#: ``'multiscale'``: coarse-to-fine PatchMatch with voting and a gradient-domain correction
#: (:mod:`inpaint.multiscale`); ``'criminisi'``: the paper's eight-stage greedy pipeline
#: (:class:`inpaint.pipeline.Inpainter`).
METHODS = ("multiscale", "criminisi")
DEFAULT_METHOD = "multiscale"

#: Where the Criminisi fill takes source patches from (see :class:`inpaint.pipeline.Inpainter`).
SOURCES = ("original", "filled")

#: Options each method takes.
OPTIONS = {
    "multiscale": ("alpha", "patch", "candidates", "backend", "device", "profile", "seed"),
    "criminisi": ("alpha", "patch", "backend", "device", "profile", "partition", "variant", "prune", "source"),
}

#: Defaults of the options that differ between methods (criminisi: the paper's settings).
DEFAULTS = {
    "multiscale": {"alpha": "full", "patch": 7, "candidates": 4},
    "criminisi": {"alpha": 0.05, "patch": 9},
}
