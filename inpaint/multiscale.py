"""Deprecated: the multiscale job moved to :mod:`inpaint.methods.multiscale.job`.  This alias
re-exports its public names for one release."""

import warnings

from .methods.multiscale.job import MultiscaleInpainter, MultiscaleStats  # noqa: F401

__all__ = ["MultiscaleInpainter", "MultiscaleStats"]

warnings.warn("inpaint.multiscale is deprecated; import from inpaint.methods.multiscale.job",
              DeprecationWarning, stacklevel=2)
