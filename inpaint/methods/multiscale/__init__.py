"""The multiscale method: coarse-to-fine PatchMatch whose best-matching patches decide the fill.

``job.py`` runs it step-wise (:class:`~inpaint.methods.multiscale.job.MultiscaleInpainter`);
``levels.py`` builds the pyramid and each level's targets and sources; ``reference.py`` is the
numpy specification; ``host.py`` the host backend (a level's state in numpy arrays);
``opencl.py`` the device backend: the thin kernel wrappers, the device set-up (the program and
the image pyramid, built on the device) and the device-side level state (``kernels/multiscale/``).
"""
