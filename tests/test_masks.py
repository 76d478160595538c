"""Mask tools against a naive oracle."""

import numpy as np
import pytest
from hypothesis import given, strategies as hs

from inpaint.errors import InputError
from inpaint.masks import grow


@given(h=hs.integers(1, 30), w=hs.integers(1, 30), r=hs.integers(0, 9), seed=hs.integers(0, 10 ** 6),
       density=hs.floats(0, 0.15))
def test_grow_is_a_disc_dilation(h, w, r, seed, density):
    m = np.random.default_rng(seed).random((h, w)) < density
    yy, xx = np.mgrid[0:h, 0:w]
    want = np.zeros((h, w), bool)
    for y, x in zip(*np.nonzero(m)):
        want |= (yy - y) ** 2 + (xx - x) ** 2 <= r * r
    got = grow(m, r)
    np.testing.assert_array_equal(got, want)
    assert (got | m == got).all()  # growing never removes a pixel


@pytest.mark.parametrize("bad", [-1, 1.5, "3", None])
def test_grow_rejects_bad_radii(bad):
    with pytest.raises(InputError, match="grow radius"):
        grow(np.zeros((4, 4), bool), bad)
