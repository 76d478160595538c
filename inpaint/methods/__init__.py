"""The fill methods, each a family of its own with the same parts.

``criminisi/`` and ``multiscale/`` each hold ``job.py`` (the step-wise job), ``reference.py``
(numpy: the specification) and ``opencl.py`` (thin kernel wrappers).  The two never import
each other; what they share lives here: the method names, options and defaults
(:mod:`~inpaint.methods.defaults`), the option checks (:mod:`~inpaint.methods.checks`) and the
step-wise job, statistics and result (:mod:`~inpaint.methods.base`).  :mod:`inpaint.api`
dispatches to them.
"""

# The light names only (no numpy), so the command line can build its parser from them.
from .defaults import BACKENDS, DEFAULT_METHOD, DEFAULTS, LOOPS, METHODS, OPTIONS, PRUNE, SOURCES, VARIANTS

__all__ = ["BACKENDS", "DEFAULT_METHOD", "DEFAULTS", "LOOPS", "METHODS", "OPTIONS", "PRUNE", "SOURCES", "VARIANTS"]
