"""Deprecated: the fill's entry points moved to :mod:`inpaint.api`, the Criminisi job to
:mod:`inpaint.methods.criminisi.job`.  This alias re-exports the public names for one release."""

import warnings

from .api import DEFAULT_METHOD, InpaintResult, InpaintStats, Inpainter, inpaint, start  # noqa: F401
from .methods.criminisi.job import source_map  # noqa: F401

__all__ = ["DEFAULT_METHOD", "InpaintResult", "InpaintStats", "Inpainter", "inpaint", "source_map", "start"]

warnings.warn("inpaint.pipeline is deprecated; import from inpaint.api (or inpaint.methods.criminisi.job)",
              DeprecationWarning, stacklevel=2)
