"""Integral images (summed-area tables) on the device, with a numpy reference.

The output has the input's shape and is **inclusive**::

    out[y, x] = sum(term(image[y', x']) for y' <= y for x' <= x)

with ``term(v)`` = ``v`` (``kind='sum'``), ``v * v`` (``'sqsum'``) or ``v != 0``
(``'count'``).  The sum over any box ``rows r0..r1, cols c0..c1`` (inclusive) is then
``out[r1, c1] - out[r0 - 1, c1] - out[r1, c0 - 1] + out[r0 - 1, c0 - 1]`` (terms with a
``-1`` index are 0).

The device version is the five-kernel block algorithm of ``kernels/integral/block.cl``
(4x4 block integrals with vector loads, scan of the block edges down the columns,
vertical combine, scan of the block edges along the rows, horizontal combine);
``method='naive'`` runs ``kernels/integral/naive.cl`` (row prefix sums, transpose, row
prefix sums, transpose back), kept as the benchmark's baseline.

Exactness
---------
* ``dtype=np.int32`` results are exact.  The device accumulates in 32-bit unsigned
  arithmetic, so results are always the exact sums **modulo 2**32**; when a sum could
  exceed ``2**31 - 1`` the API refuses (``overflow='raise'``, the default) unless asked
  to wrap or to promote to float32 (see :func:`check_overflow`).
* ``dtype=np.float32`` results satisfy, for every cell,
  ``|out[y, x] - exact[y, x]| <= (H + W + 256) * 2**-24 * A[y, x]`` where ``A`` is the
  exact integral of ``|term|`` (see :func:`float_tolerance`).  When every term and every
  partial sum is an integer below ``2**24`` (e.g. a uint8 sum with ``255 * H * W <
  2**24``), float32 results are exact.

Parts, as in the other families: :mod:`~inpaint.integral.api` (:func:`integral`),
:mod:`~inpaint.integral.reference` (numpy), :mod:`~inpaint.integral.opencl`
(:class:`IntegralPlan`, ``kernels/integral/``), and :mod:`~inpaint.integral.checks` (kinds,
dtypes, overflow and float policies).
"""

from .api import integral
from .checks import KINDS, METHODS, OVERFLOW_POLICIES, check_overflow, float_tolerance, max_abs_integral
from .opencl import IntegralPlan
from .reference import integral_reference

__all__ = [
    "KINDS", "METHODS", "OVERFLOW_POLICIES", "IntegralPlan", "check_overflow",
    "float_tolerance", "integral", "integral_reference", "max_abs_integral",
]
