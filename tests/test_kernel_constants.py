"""The constants a kernel shares with its numpy reference are stated once, in the reference,
and reach the kernel as build defines: no kernel holds a copy of one."""

import re
from pathlib import Path

import pytest

from inpaint.methods.criminisi import reference as cref
from inpaint.methods.multiscale import reference as mref

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


def code(path: Path) -> str:
    """The OpenCL source without its comments."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", path.read_text(encoding="utf-8"), flags=re.S)


def multiscale_defines() -> dict:
    pytest.importorskip("pyopencl")
    from inpaint.methods.multiscale.opencl import _defines

    return _defines(3, 2)


@pytest.mark.parametrize("literal", [r"0x[fF]{8}u?", r"\b4096\b", r"0x[fF]{4}u?\b", r"\b15\b"])
def test_multiscale_kernels_hold_no_copy_of_the_references_constants(literal):
    for path in sorted((KERNELS / "multiscale").glob("*.cl")):
        assert not re.search(literal, code(path)), (path.name, literal)


@pytest.mark.parametrize("literal", [r"\b77\b", r"\b150\b", r"\b29\b", r"\b510", r"0\.001"])
def test_criminisi_kernels_hold_no_copy_of_the_references_constants(literal):
    for path in sorted((KERNELS / "criminisi").glob("*.cl")):
        assert not re.search(literal, code(path)), (path.name, literal)


def test_the_kernels_get_the_references_values():
    d = multiscale_defines()
    assert (d["FW"], d["FR"], d["FIX"], d["JUMP_MAX"]) == (mref.FEATURE_WEIGHT, mref.FEATURE_RADIUS, mref.FIX,
                                                           mref.JUMPS[-1])
    assert int(d["EMPTY"].rstrip("u"), 16) == int(mref.EMPTY)
    assert int(d["EDGE_NONE"].rstrip("u"), 16) == mref.EDGE_NONE
    # the kernel doubles its jump from 1 to JUMP_MAX: the reference's jumps must be those
    assert mref.JUMPS == tuple(2 ** i for i in range(len(mref.JUMPS)))
    c = cref.defines()
    assert (c["GREY_R"], c["GREY_G"], c["GREY_B"]) == cref.GREY_WEIGHTS
    import numpy as np

    for name in ("DATA_NORM", "DATA_EPS"):  # the float literal is exactly the reference's float32
        assert np.float32(float(c[name].rstrip("f"))) == getattr(cref, name)


def test_every_define_a_multiscale_kernel_uses_is_given():
    d = multiscale_defines()
    for name in ("EMPTY", "FIX", "EDGE_NONE", "JUMP_MAX", "FW", "FR", "HALF", "K"):
        used = [p.name for p in (KERNELS / "multiscale").glob("*.cl") if re.search(rf"\b{name}\b", code(p))]
        assert used, name
        assert name in d
