"""The fill methods, each a family of its own with the same parts.

A family is a folder of this package and one line in :mod:`~inpaint.methods.registry`.  Its
``options.py`` declares its own options (:class:`~inpaint.methods.options.Option`: what its fill
does, not where it runs, which is the run context's, :mod:`~inpaint.methods.context`) and the typed
``Options`` made from them (:func:`~inpaint.methods.base.options_type`); its ``job.py`` is a
:class:`~inpaint.methods.base.Job`, which owns the checks, the mask rules, the engine, the
statistics, progress by the plan's step weights and the result, so the family states only its
plan and its steps; ``method.py`` exports its :class:`~inpaint.methods.options.Method` (the
front ends' view, with the backends it runs on).  ``criminisi/`` and ``multiscale/`` also hold
``reference.py`` (numpy: the specification) and ``opencl.py`` (the kernel wrappers and the
device set-up).  The families never import each other; what they share lives here: the
contract (:mod:`~inpaint.methods.options`), the run context (:mod:`~inpaint.methods.context`), the registry, the choices
(:mod:`~inpaint.methods.defaults`), the option checks (:mod:`~inpaint.methods.checks`) and the
job, :class:`~inpaint.methods.base.Sequence`, statistics and result (:mod:`~inpaint.methods.base`).
"""

from .defaults import BACKENDS, DEFAULT_METHOD, LOOPS, PRUNE, SOURCES, VARIANTS
from .registry import DEFAULTS, METHOD_NAMES as METHODS, OPTIONS

__all__ = ["BACKENDS", "DEFAULT_METHOD", "DEFAULTS", "LOOPS", "METHODS", "OPTIONS", "PRUNE", "SOURCES", "VARIANTS"]
