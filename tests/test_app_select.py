"""Tap-to-select (inpaint.masks.select_region, fill_holes, refine_grabcut) against naive oracles."""

from collections import deque

import numpy as np
import pytest
from hypothesis import given, strategies as hs

from inpaint.errors import InputError
from inpaint.masks import fill_holes, refine_grabcut, select_region

N4 = ((1, 0), (-1, 0), (0, 1), (0, -1))
N8 = N4 + ((1, 1), (1, -1), (-1, 1), (-1, -1))


def flood(image, seed, tol, connectivity):
    """The oracle: a breadth-first flood fill, one pixel at a time."""
    img = np.asarray(image, np.float64)
    if img.ndim == 2:
        img = img[..., None]
    h, w = img.shape[:2]
    ref = img[seed]
    out = np.zeros((h, w), bool)
    out[seed] = True
    todo = deque([seed])
    while todo:
        y, x = todo.popleft()
        for dy, dx in (N4 if connectivity == 4 else N8):
            yy, xx = y + dy, x + dx
            if 0 <= yy < h and 0 <= xx < w and not out[yy, xx] and np.abs(img[yy, xx] - ref).max() <= tol:
                out[yy, xx] = True
                todo.append((yy, xx))
    return out


@given(h=hs.integers(1, 24), w=hs.integers(1, 24), levels=hs.integers(2, 5), seed=hs.integers(0, 10 ** 6),
       tol=hs.integers(0, 130), conn=hs.sampled_from([4, 8]), channels=hs.sampled_from([1, 3]))
def test_select_region_is_the_flood_fill(h, w, levels, seed, tol, conn, channels):
    rng = np.random.default_rng(seed)
    img = (rng.integers(0, levels, (h, w, channels)) * (255 // (levels - 1))).astype(np.uint8)
    if channels == 1 and seed % 2:
        img = img[..., 0]                               # (H, W) grey images too
    yx = (int(rng.integers(0, h)), int(rng.integers(0, w)))
    got = select_region(img, yx, tol, conn)
    np.testing.assert_array_equal(got, flood(img, yx, tol, conn))
    assert got[yx]


def box_sums(img, r):
    """The oracle's box sums: explicit shifts over the edge-padded image."""
    img = np.asarray(img, np.int64)
    if img.ndim == 2:
        img = img[..., None]
    h, w = img.shape[:2]
    pad = np.pad(img, ((r, r), (r, r), (0, 0)), mode="edge")
    return sum(pad[dy:dy + h, dx:dx + w] for dy in range(2 * r + 1) for dx in range(2 * r + 1))


@given(h=hs.integers(1, 20), w=hs.integers(1, 20), seed=hs.integers(0, 10 ** 6), tol=hs.integers(0, 90),
       conn=hs.sampled_from([4, 8]), r=hs.integers(1, 2))
def test_smoothed_selection_compares_box_means(h, w, seed, tol, conn, r):
    rng = np.random.default_rng(seed)
    img = (rng.integers(0, 4, (h, w, 3)) * 85).astype(np.uint8)
    yx = (int(rng.integers(0, h)), int(rng.integers(0, w)))
    want = flood(box_sums(img, r), yx, tol * (2 * r + 1) ** 2, conn)
    np.testing.assert_array_equal(select_region(img, yx, tol, conn, smooth=r), want)


def _maze(n=301, wall=60, corridor=200):
    """A spiral corridor: the region winds far beyond the first search window."""
    img = np.full((n, n, 3), wall, np.uint8)
    y0, y1, x0, x1 = 1, n - 2, 1, n - 2
    while y0 < y1 and x0 < x1:
        img[y0, x0:x1 + 1] = corridor
        img[y0:y1 + 1, x1] = corridor
        img[y1, x0:x1 + 1] = corridor
        img[y0 + 2:y1 + 1, x0] = corridor
        y0, y1, x0, x1 = y0 + 2, y1 - 2, x0 + 2, x1 - 2
        img[y0 - 1, x0 - 1] = corridor
    return img


@pytest.mark.parametrize("conn", [4, 8])
def test_winding_regions_beyond_the_first_window(conn):
    img = _maze()
    img[150, 150] = 255                                  # a speck inside, off the corridor
    rng = np.random.default_rng(3)
    img = (img.astype(int) + rng.integers(-6, 7, img.shape)).clip(0, 255).astype(np.uint8)
    for yx, tol in (((1, 1), 12), ((1, 1), 0), ((150, 150), 20), ((2, 3), 12)):
        np.testing.assert_array_equal(select_region(img, yx, tol, conn), flood(img, yx, tol, conn))
    np.testing.assert_array_equal(select_region(img, (1, 1), 10, conn, smooth=1),
                                  flood(box_sums(img, 1), (1, 1), 90, conn))


@pytest.mark.parametrize("seed", range(6))
def test_larger_random_images(seed):
    """Many runs and many trees for the union-find, and windows that must widen."""
    rng = np.random.default_rng(100 + seed)
    img = (rng.integers(0, 3, (150, 170, 3)) * 60).astype(np.uint8)
    img[rng.random((150, 170)) < 0.5] = 0                # a dense, winding region of one colour
    conn = 4 + 4 * (seed % 2)
    yx = tuple(int(v) for v in np.argwhere(img.max(axis=2) == 0)[len(img) // 2])
    np.testing.assert_array_equal(select_region(img, yx, 0, conn), flood(img, yx, 0, conn))
    np.testing.assert_array_equal(select_region(img, yx, 70, conn, smooth=1),
                                  flood(box_sums(img, 1), yx, 630, conn))


def test_other_pixel_types():
    rng = np.random.default_rng(5)
    base = rng.integers(0, 3, (20, 30, 3))
    for img, tol in ((base * 20000, 20000), (base * 0.25, 0.3), (base.astype(np.uint16) * 1000, 999)):
        np.testing.assert_array_equal(select_region(img, (4, 7), tol, 4), flood(img, (4, 7), tol, 4))


def test_a_selection_is_all_that_is_similar_and_connected():
    img = np.zeros((9, 9, 3), np.uint8)
    img[2:7, 2:7] = (200, 30, 30)                        # a red square...
    img[4, 4] = (215, 30, 30)                            # ...with a slightly lighter pixel
    img[0, 0] = (200, 30, 30)                            # the same red, not connected
    got = select_region(img, (3, 3), 20)
    want = np.zeros((9, 9), bool)
    want[2:7, 2:7] = True
    np.testing.assert_array_equal(got, want)
    assert select_region(img, (3, 3), 10).sum() == 24    # the lighter pixel is beyond 10


@pytest.mark.parametrize("args, message", [
    (((9, 0), 10), "outside"), (((0, -1), 10), "outside"), (((0, 0), -1), "tolerance"),
    (((0, 0), "x"), "tolerance"), (((0, 0), float("nan")), "tolerance"), (((0, 0), 10, 6), "connectivity"),
    (((0, 0), 10, 4, -1), "smooth"), (((0, 0), 10, 4, 1.5), "smooth"),
])
def test_bad_arguments_are_input_errors(args, message):
    with pytest.raises(InputError, match=message):
        select_region(np.zeros((9, 9, 3), np.uint8), *args)


def test_fill_holes_fills_what_the_border_cannot_reach():
    m = np.zeros((7, 8), bool)
    m[1:6, 1:7] = True
    m[3, 3] = m[2, 2] = False                            # holes
    m[3, 5:7] = False                                    # a notch, open to the outside
    got = fill_holes(m)
    want = m.copy()
    want[3, 3] = want[2, 2] = True
    np.testing.assert_array_equal(got, want)
    assert fill_holes(np.zeros((3, 3), bool)).sum() == 0 and fill_holes(np.ones((2, 2), bool)).all()


def test_grabcut_refinement_completes_the_object():
    pytest.importorskip("cv2", reason="GrabCut needs OpenCV (optional)")
    rng = np.random.default_rng(1)
    img = rng.integers(90, 120, (80, 90, 3)).astype(np.uint8)
    img[20:60, 30:70] = rng.integers(180, 220, (40, 40, 3))
    rough = np.zeros((80, 90), bool)
    rough[24:56, 34:66] = True                           # a selection short of the object's edges
    got = refine_grabcut(img, rough)
    assert (got >= rough).all()                          # the taps stay selected
    assert got.shape == rough.shape and got.dtype == bool
    truth = np.zeros_like(rough)
    truth[20:60, 30:70] = True
    iou = lambda a, b: (a & b).sum() / (a | b).sum()     # noqa: E731
    assert iou(got, truth) > iou(rough, truth) and iou(got, truth) > 0.95
    assert not refine_grabcut(img, np.zeros_like(rough)).any()


@given(h=hs.integers(1, 20), w=hs.integers(1, 20), seed=hs.integers(0, 10 ** 6), density=hs.floats(0, 0.9))
def test_fill_holes_against_a_flood_from_the_border(h, w, seed, density):
    m = np.random.default_rng(seed).random((h, w)) < density
    padded = np.pad(~m, 1, constant_values=True).astype(np.uint8)
    outside = flood(padded, (0, 0), 0, 4)[1:-1, 1:-1]
    np.testing.assert_array_equal(fill_holes(m), ~outside)
