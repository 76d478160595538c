"""The multiscale method: coarse-to-fine PatchMatch whose best-matching patches decide the fill.

``job.py`` runs it step-wise (:class:`~inpaint.methods.multiscale.job.MultiscaleInpainter`);
``levels.py`` builds the pyramid and each level's targets and sources; ``reference.py`` is the
numpy specification; ``opencl.py`` the thin kernel wrappers and the device-side level state
(``kernels/multiscale/``).
"""
