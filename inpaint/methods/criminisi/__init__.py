"""The Criminisi method: the paper's eight-stage greedy fill.

``job.py`` runs the stages step-wise (:class:`~inpaint.methods.criminisi.job.Inpainter`);
``stages.py`` states each stage once (arrays, kernel file, wrapper, host and device calls);
``reference.py`` is the numpy specification; ``opencl.py`` the thin kernel wrappers
(``kernels/criminisi/``); ``buffers.py`` keeps each array fresh on the side that needs it.
"""
