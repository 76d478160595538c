import os
import signal

import numpy as np
import pytest
from hypothesis import settings

# Seeded, reproducible property tests (no flaky CI); a bounded budget for a 2-core machine.
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=40, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

os.environ.setdefault("PYOPENCL_NO_CACHE", "0")

# The commands' own defaults, not the device settings of the shell running the tests.
from inpaint.methods.options import BACKEND, DEVICE, PROFILE  # noqa: E402 - after the environment above

for _option in (BACKEND, DEVICE, PROFILE):
    os.environ.pop(_option.env, None)

# A shell starts a background job with Ctrl-C ignored, and the commands the tests start would
# inherit that (a command keeps an ignored signal ignored, as under nohup): the tests that stop a
# command with SIGINT need it to arrive.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _opencl_problem() -> str | None:
    """Why no OpenCL device here can run the fill (None when one can): each device in the order a
    run tries them compiles and runs a tiny fill, as `inpaint devices` checks them."""
    from inpaint.cl import runtime as rtmod
    from inpaint.cli.devices import check_device

    try:
        devices = rtmod.preference()
    except rtmod.OpenCLUnavailable as exc:
        return str(exc)
    reasons = []
    for _, _, device in devices:
        problem = check_device(device)
        if problem is None:
            return None
        reasons.append(problem)
    return reasons[0]


def pytest_collection_modifyitems(config, items):
    """Tests that need a working OpenCL device (marked ``opencl``, or using the ``runtime`` fixture)
    skip with one reason where no device compiles the kernels; under CI the run stops instead, since
    skipping there would hide that the OpenCL side was never tested."""
    needs = [item for item in items
             if "runtime" in getattr(item, "fixturenames", ()) or item.get_closest_marker("opencl")]
    if not needs:
        return
    problem = _opencl_problem()
    if problem is None:
        return
    if os.environ.get("CI"):
        pytest.exit(f"CI needs an OpenCL device that compiles the kernels, and none does here: {problem}", returncode=1)
    skip = pytest.mark.skip(reason=f"no OpenCL device here compiles the kernels: {problem}")
    for item in needs:
        item.add_marker(skip)
    # The others run on numpy, as --backend auto does here; its one warning is expected, not an error.
    quiet = pytest.mark.filterwarnings("ignore::inpaint.errors.FallbackWarning")
    for item in items:
        item.add_marker(quiet)


@pytest.fixture(scope="session")
def runtime():
    """The OpenCL runtime on PoCL's CPU device (or the machine's best device when PYOPENCL_CTX says)."""
    from inpaint.cl import runtime as rtmod

    if not rtmod.opencl_available():
        pytest.fail("no OpenCL device: install the test extras with PoCL (pip install '.[pocl,test]')")
    if not os.environ.get("PYOPENCL_CTX"):  # PoCL's CPU device first, the first that compiles
        for _, _, device in rtmod.preference():
            if "Portable Computing Language" in device.platform.name and rtmod.cannot_build(device) is None:
                return rtmod.get_runtime(device=device)
    return rtmod.get_runtime()


@pytest.fixture
def run(capsys):
    """``run(*argv) -> (exit code, stdout, stderr)`` through ``inpaint.cli.main``, in this process."""
    from inpaint import cli

    def call(*argv):
        code = cli.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err
    return call


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)
