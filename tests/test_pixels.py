"""RGB to and from the kernels' RGBA layout, against plain slicing."""

import numpy as np
from hypothesis import given, strategies as hs

from inpaint.pixels import to_rgb, to_rgba


@given(h=hs.integers(1, 9), w=hs.integers(1, 9), channels=hs.sampled_from([3, 4]), step=hs.sampled_from([1, 2]),
       alpha=hs.sampled_from([0, 255, "plane"]), seed=hs.integers(0, 999))
def test_packing_matches_slicing(h, w, channels, step, alpha, seed):
    rng = np.random.default_rng(seed)
    big = rng.integers(0, 256, (h * step, w * step, channels), dtype=np.uint8)
    rgb = big[::step, ::step]  # also views that are not contiguous
    a = rng.integers(0, 256, (h, w), dtype=np.uint8) if alpha == "plane" else alpha
    packed = to_rgba(rgb, a)
    assert packed.shape == (h, w, 4) and packed.dtype == np.uint8
    np.testing.assert_array_equal(packed[..., :3], rgb[..., :3])
    np.testing.assert_array_equal(packed[..., 3], np.broadcast_to(a, (h, w)))
    back = to_rgb(packed)
    assert back.flags.c_contiguous and back.shape == (h, w, 3)
    np.testing.assert_array_equal(back, rgb[..., :3])
    back[...] = 0  # a copy: the packed array is untouched
    np.testing.assert_array_equal(packed[..., :3], rgb[..., :3])
