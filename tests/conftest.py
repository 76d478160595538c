import os

import numpy as np
import pytest
from hypothesis import settings

# Seeded, reproducible property tests (no flaky CI); a bounded budget for a 2-core machine.
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=40, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

os.environ.setdefault("PYOPENCL_NO_CACHE", "0")


@pytest.fixture(scope="session")
def runtime():
    """The OpenCL runtime on PoCL's CPU device (or the machine's best device when PYOPENCL_CTX says)."""
    from inpaint.cl import runtime as rtmod

    if not rtmod.opencl_available():
        pytest.fail("no OpenCL device: install the test extras with PoCL (pip install '.[pocl,test]')")
    device = None if os.environ.get("PYOPENCL_CTX") else "Portable Computing Language"
    try:
        return rtmod.get_runtime(device=device)
    except rtmod.OpenCLUnavailable:
        return rtmod.get_runtime()


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)
