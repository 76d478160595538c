"""The OpenCL side every kernel family shares.

:mod:`~inpaint.cl.runtime` chooses the device and holds one context, queue and program cache per
device (:class:`~inpaint.cl.runtime.Runtime`); :mod:`~inpaint.cl.build` builds programs from the
kernel files; :mod:`~inpaint.cl.profiles` reads device profiles and sizes work-groups from the
effective limits (:meth:`~inpaint.cl.profiles.Limits.work_group`).
"""

#: Where a fill or a resize runs: ``'auto'`` takes OpenCL when a device exists, else numpy with
#: one warning (:func:`inpaint.cl.runtime.runtime_for`).  Here, with no import, so that the
#: command lines and the app can offer the choice without loading OpenCL.
BACKENDS = ("auto", "opencl", "numpy")
