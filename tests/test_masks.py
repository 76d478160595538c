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


@pytest.mark.parametrize("radius", [3_000_000_000, 4_000_000_000, 10**30, 1e30])
def test_a_radius_past_the_image_covers_it_and_never_wraps_around(radius):
    m = np.zeros((9, 9), bool)
    m[4, 4] = True
    assert grow(m, radius).all()


@pytest.mark.parametrize("radius", [float("inf"), True, -1, 2.5, "3"])
def test_a_radius_that_is_no_integer_is_refused(radius):
    with pytest.raises(InputError, match="grow radius must be an integer >= 0"):
        grow(np.ones((3, 3), bool), radius)


def test_a_tap_region_holds_its_tapped_pixel_whatever_the_images_numbers():
    from inpaint.masks import select_region

    wide = np.full((3, 3), 2**53 + 1, np.uint64)
    wide[1, 1] = 2**53                                   # another value, one apart, beyond float64's steps
    got = select_region(wide, (0, 0), 0)
    assert got[0, 0] and not got[1, 1] and got.sum() == 8
    nan = np.zeros((3, 3), np.float32)
    nan[1, 1] = np.nan
    assert select_region(nan, (1, 1), 5).tolist() == [[False] * 3, [False, True, False], [False] * 3]
    for image in (np.zeros((3, 4), np.int64), np.zeros((3, 4), bool), np.full((3, 4), 2**62, np.int64)):
        assert select_region(image, (0, 0), 1, smooth=1).all()
    assert select_region(np.zeros((3, 4), np.uint8), (0, 0), 1, smooth=10**6).all()


@pytest.mark.parametrize("seed, tolerance, message", [
    ((0, 0), float("inf"), "tolerance must be a finite number"), ((0, 0), 10**400, "tolerance must be a finite"),
    ((float("nan"), 0), 1, "tapped pixel is two integers"), ((0,), 1, "tapped pixel is two integers"),
    (None, 1, "tapped pixel is two integers"), ((0, float("inf")), 1, "tapped pixel is two integers"),
])
def test_a_tap_region_refuses_what_is_not_a_pixel_or_a_tolerance(seed, tolerance, message):
    from inpaint.masks import select_region

    with pytest.raises(InputError, match=message):
        select_region(np.zeros((3, 4), np.uint8), seed, tolerance)
