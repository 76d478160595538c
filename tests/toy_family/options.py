"""The toy method's options, each declared once (see :mod:`inpaint.methods.options`)."""

from ..base import options_type
from ..options import BACKEND, DEVICE, ENGINE, PROFILE, PROTECT, TIMINGS

#: Every option of the method, in the order messages list them.
OPTIONS = (PROTECT, BACKEND, DEVICE, PROFILE, ENGINE, TIMINGS)
#: The typed options its job reads.
Options = options_type("ToyOptions", OPTIONS)
