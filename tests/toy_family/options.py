"""The toy method's options, each declared once (see :mod:`inpaint.methods.options`)."""

from ..base import options_type

#: The method's own options: none (it takes the run context's, as every method does).
OPTIONS = ()
#: The typed options its job reads.
Options = options_type("ToyOptions", OPTIONS)
