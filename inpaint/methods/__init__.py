"""The fill methods, each a family of its own with the same parts.

``criminisi/`` and ``multiscale/`` each hold ``job.py`` (the step-wise job), ``reference.py``
(numpy: the specification), ``opencl.py`` (thin kernel wrappers), ``options.py`` (its options,
each declared once) and ``method.py`` (the method object the front ends use).  The two never
import each other; what they share lives here: the option and method contract
(:mod:`~inpaint.methods.options`), the registry of methods (:mod:`~inpaint.methods.registry`),
the choices (:mod:`~inpaint.methods.defaults`), the option checks (:mod:`~inpaint.methods.checks`)
and the step-wise job, statistics and result (:mod:`~inpaint.methods.base`).
"""

from .defaults import BACKENDS, DEFAULT_METHOD, LOOPS, PRUNE, SOURCES, VARIANTS
from .registry import DEFAULTS, METHOD_NAMES as METHODS, OPTIONS

__all__ = ["BACKENDS", "DEFAULT_METHOD", "DEFAULTS", "LOOPS", "METHODS", "OPTIONS", "PRUNE", "SOURCES", "VARIANTS"]
