"""Benchmarks of the ``inpaint`` toolkit (the ``inpaint-bench`` distribution).

* :mod:`inpaint_bench.pipeline`: ``inpaint bench``, the Criminisi pipeline's timing beside the
  paper's Tables 2, 4 and 5-9, judged against the speed targets of ``targets.toml``;
* :mod:`inpaint_bench.quality`: ``inpaint bench --quality``, fill quality of our
  configurations (``quality_configs.toml``) beside classical inpainting libraries
  (:mod:`inpaint_bench.peers`, from the ``compare`` extra) on a truth set;
* :mod:`inpaint_bench.seam`: ``inpaint bench seam``, seam carving against liblqr and
  ``seam-carving``;
* :mod:`inpaint_bench.integral`: ``inpaint bench integral``, integral images on a device.

Install from a checkout with ``pip install ./bench`` (after ``pip install .``).  The
``inpaint`` package never imports this one; ``inpaint bench`` delegates to
:func:`inpaint_bench.cli.main`.
"""

__version__ = "0.1.0"
