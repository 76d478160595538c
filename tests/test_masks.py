"""Mask tools against a naive oracle."""

import numpy as np
import pytest
from hypothesis import given, strategies as hs

from inpaint.errors import InputError
from inpaint.masks import component, grow, reached


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


@pytest.mark.parametrize("mask, message", [
    (np.ones((4, 4, 3), bool), r"\(H, W\) array, got shape \(4, 4, 3\)"), (np.ones(16, bool), "got shape"),
    (np.full((4, 4), np.nan), "NaN"),
])
def test_grow_rejects_masks_of_another_shape_or_nan(mask, message):
    with pytest.raises(InputError, match=message):
        grow(mask, 1)


def test_grow_reads_a_mask_by_the_mask_rule():
    m = np.zeros((7, 7), np.uint8)
    m[3, 3] = 255
    np.testing.assert_array_equal(grow(m, 1), grow(m > 0, 1))
    np.testing.assert_array_equal(grow(m / 255.0 * 0.4, 1), np.zeros((7, 7), bool))  # 0..1 floats: > 0.5


def _flood(cand, seeds, connectivity):
    """A naive flood, pixel by pixel."""
    h, w = cand.shape
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    if connectivity == 8:
        steps += [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    seen = seeds & cand
    todo = [tuple(p) for p in np.argwhere(seen)]
    while todo:
        y, x = todo.pop()
        for dy, dx in steps:
            ny, nx = y + dy, x + dx
            if 0 <= ny < h and 0 <= nx < w and cand[ny, nx] and not seen[ny, nx]:
                seen[ny, nx] = True
                todo.append((ny, nx))
    return seen


@given(h=hs.integers(1, 24), w=hs.integers(1, 24), seed=hs.integers(0, 10 ** 6), density=hs.floats(0.2, 0.8),
       seeds=hs.floats(0, 0.1), connectivity=hs.sampled_from([4, 8]))
def test_reached_and_component_are_floods(h, w, seed, density, seeds, connectivity):
    rng = np.random.default_rng(seed)
    cand = rng.random((h, w)) < density
    starts = rng.random((h, w)) < seeds
    assert (reached(cand, starts, connectivity) == _flood(cand, starts, connectivity)).all()
    if cand.any():
        y, x = np.argwhere(cand)[rng.integers(cand.sum())]
        one = np.zeros_like(cand)
        one[y, x] = True
        assert (component(cand, (int(y), int(x)), connectivity) == _flood(cand, one, connectivity)).all()
