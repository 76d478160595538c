"""Property tests for ``inpaint/geometry.py`` (rectangles, Eq. 6's search area, source areas)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from inpaint import geometry
from inpaint.geometry import MIN_SOURCES


def contains(outer, inner) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def inside_image(rect, w, h) -> bool:
    x0, y0, x1, y1 = rect
    return 0 <= x0 <= x1 <= w and 0 <= y0 <= y1 <= h


@st.composite
def image_and_box(draw, max_side=60):
    """An image size and a non-empty box inside it (often touching an edge)."""
    w, h = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    x0 = draw(st.one_of(st.just(0), st.integers(0, w - 1)))
    x1 = draw(st.one_of(st.just(w), st.integers(x0 + 1, w)))
    y0 = draw(st.one_of(st.just(0), st.integers(0, h - 1)))
    y1 = draw(st.one_of(st.just(h), st.integers(y0 + 1, h)))
    return w, h, (x0, y0, x1, y1)


alphas = st.one_of(st.sampled_from([0.0, 0.05, 0.1, 0.5, 1.0]), st.floats(0, 4, allow_nan=False))


# -- bbox ------------------------------------------------------------------------------------
def bbox_oracle(mask):
    h, w = mask.shape
    pts = [(x, y) for y in range(h) for x in range(w) if mask[y, x]]
    if not pts:
        return None
    return min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts) + 1, max(p[1] for p in pts) + 1


@st.composite
def bool_masks(draw):
    h, w = draw(st.integers(1, 16)), draw(st.integers(1, 16))
    kind = draw(st.sampled_from(["random", "empty", "points"]))
    if kind == "random":
        return draw(hnp.arrays(np.bool_, (h, w)))
    m = np.zeros((h, w), bool)
    if kind == "points":
        for _ in range(draw(st.integers(1, 3))):
            m[draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))] = True
    return m


@settings(max_examples=100)
@given(bool_masks())
def test_bbox_matches_naive_scan(mask):
    got = geometry.bbox(mask)
    assert got == bbox_oracle(mask)
    if got is not None:
        assert all(type(v) is int for v in got)
        x0, y0, x1, y1 = got
        assert mask[y0:y1, x0:x1].sum() == mask.sum()  # it holds every pixel


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (0, 4), (4, 0)])
def test_bbox_empty_is_none(shape):
    assert geometry.bbox(np.zeros(shape, bool)) is None


def test_bbox_accepts_uint8():
    m = np.zeros((4, 5), np.uint8)
    m[1, 2] = m[3, 4] = 1
    assert geometry.bbox(m != 0) == (2, 1, 5, 4)


# -- grow, area ------------------------------------------------------------------------------
@settings(max_examples=100)
@given(image_and_box(), st.integers(0, 70))
def test_grow_is_clipped_and_contains_the_input(ibox, margin):
    w, h, rect = ibox
    g = geometry.grow(rect, margin, w, h)
    assert inside_image(g, w, h)
    assert contains(g, rect)
    x0, y0, x1, y1 = rect
    assert g == (max(x0 - margin, 0), max(y0 - margin, 0), min(x1 + margin, w), min(y1 + margin, h))
    # every image pixel within `margin` (Chebyshev) of the rect is in it
    for y in (0, h - 1, y0, y1 - 1):
        for x in (0, w - 1, x0, x1 - 1):
            dx = max(x0 - x, 0, x - (x1 - 1))
            dy = max(y0 - y, 0, y - (y1 - 1))
            near = max(dx, dy) <= margin
            assert near == (g[0] <= x < g[2] and g[1] <= y < g[3])
    assert geometry.grow(rect, 0, w, h) == rect


@settings(max_examples=100)
@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-20, 20), st.integers(-20, 20))
def test_area_counts_pixels(x0, y0, x1, y1):
    want = sum(1 for y in range(y0, y1) for x in range(x0, x1))
    assert geometry.area((x0, y0, x1, y1)) == want
    assert geometry.area((x0, y0, x1, y1)) >= 0


# -- search_area (Eq. 6) ----------------------------------------------------------------------
@settings(max_examples=150)
@given(image_and_box(), alphas)
def test_search_area_contains_box_and_stays_in_image(ibox, alpha):
    w, h, box = ibox
    a = geometry.search_area(box, alpha, w, h)
    assert inside_image(a, w, h)
    assert contains(a, box)


@settings(max_examples=50)
@given(image_and_box())
def test_search_area_none_is_whole_image(ibox):
    w, h, box = ibox
    assert geometry.search_area(box, None, w, h) == (0, 0, w, h)


@settings(max_examples=150)
@given(image_and_box(), alphas, alphas)
def test_search_area_grows_monotonically_with_alpha(ibox, a1, a2):
    w, h, box = ibox
    lo, hi = sorted((a1, a2))
    assert contains(geometry.search_area(box, hi, w, h), geometry.search_area(box, lo, w, h))
    assert contains(geometry.search_area(box, None, w, h), geometry.search_area(box, hi, w, h))


@settings(max_examples=150)
@given(st.integers(1, 200), st.integers(1, 200), alphas)
def test_search_area_size_before_clipping(bw, bh, alpha):
    """Far from the edges: round((1 + 2 alpha) w) x round((1 + 2 alpha) h), centred within 1 px."""
    big = 10 ** 6
    x0, y0 = big // 2, big // 3
    box = (x0, y0, x0 + bw, y0 + bh)
    a = geometry.search_area(box, alpha, big, big)
    for size, extent, lo_grow, hi_grow in ((a[2] - a[0], bw, x0 - a[0], a[2] - box[2]),
                                           (a[3] - a[1], bh, y0 - a[1], a[3] - box[3])):
        exact = (1 + 2 * alpha) * extent
        assert abs(size - exact) <= 0.5 + 1e-9
        assert lo_grow >= 0 and hi_grow >= 0
        assert hi_grow - lo_grow in (0, 1)  # the odd pixel goes right / down


def test_search_area_paper_example():
    """WalkingMan (paper's Table 5): a 78x126 box at alpha = 0.05 gives an 86x139 area."""
    box = (200, 100, 278, 226)
    a = geometry.search_area(box, 0.05, 1000, 1000)
    assert (a[2] - a[0], a[3] - a[1]) == (86, 139)
    assert a == (196, 94, 282, 233)
    clipped = geometry.search_area((0, 0, 78, 126), 0.05, 80, 130)
    assert clipped == (0, 0, 80, 130)


def test_search_area_zero_alpha_is_the_box():
    assert geometry.search_area((3, 4, 10, 12), 0.0, 20, 20) == (3, 4, 10, 12)


# -- centres ---------------------------------------------------------------------------------
@settings(max_examples=150)
@given(image_and_box(max_side=30), st.integers(1, 6))
def test_centres_windows_lie_in_the_area(ibox, half):
    w, h, area_rect = ibox
    c = geometry.centres(area_rect, half)
    x0, y0, x1, y1 = area_rect
    inside = {(cx, cy) for cy in range(c[1], c[3]) for cx in range(c[0], c[2])}
    # every candidate's window lies inside the area ...
    for cx, cy in inside:
        assert x0 <= cx - half and cx + half < x1 and y0 <= cy - half and cy + half < y1
    # ... and every centre whose window does is a candidate
    want = {(cx, cy) for cy in range(y0, y1) for cx in range(x0, x1)
            if x0 <= cx - half and cx + half < x1 and y0 <= cy - half and cy + half < y1}
    assert inside == want
    assert geometry.area(c) == len(want)
    assert c[0] <= c[2] and c[1] <= c[3]  # never an inverted rectangle


@pytest.mark.parametrize("area_rect,half", [((0, 0, 0, 0), 1), ((2, 2, 4, 9), 1), ((0, 0, 9, 8), 4),
                                            ((5, 5, 5, 20), 2), ((3, 3, 10, 10), 4)])
def test_centres_small_areas_are_empty(area_rect, half):
    c = geometry.centres(area_rect, half)
    assert geometry.area(c) == 0


def test_centres_exact_fit():
    assert geometry.centres((2, 3, 11, 12), 4) == (6, 7, 7, 8)


# -- widen -----------------------------------------------------------------------------------
@settings(max_examples=100)
@given(st.floats(0, 1e12, allow_nan=False))
def test_widen_only_grows(alpha):
    wider = geometry.widen(alpha)
    assert wider > alpha
    assert wider >= 0.5


def test_widen_infinity_stays():
    assert geometry.widen(math.inf) == math.inf


@settings(max_examples=50)
@given(image_and_box(), alphas)
def test_widen_eventually_reaches_the_whole_image(ibox, alpha):
    w, h, box = ibox
    for _ in range(64):
        if geometry.search_area(box, alpha, w, h) == (0, 0, w, h):
            return
        alpha = geometry.widen(alpha)
    pytest.fail("64 widenings never reached the whole image")


# -- source_area -----------------------------------------------------------------------------
def free_centres_in(free, rect, half):
    """Naive: free centres whose whole window lies inside ``rect``."""
    h, w = free.shape
    x0, y0, x1, y1 = rect
    out = np.zeros((h, w), bool)
    for cy in range(h):
        for cx in range(w):
            if free[cy, cx] and x0 <= cx - half and cx + half < x1 and y0 <= cy - half and cy + half < y1:
                out[cy, cx] = True
    return out


@st.composite
def source_problems(draw):
    w, h, box = draw(image_and_box(max_side=40))
    half = draw(st.integers(1, 4))
    kind = draw(st.sampled_from(["random", "dense", "none", "all"]))
    if kind == "random":
        free = draw(hnp.arrays(np.bool_, (h, w)))
    elif kind == "dense":
        free = np.ones((h, w), bool)
        for _ in range(draw(st.integers(0, 5))):
            free[draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))] = False
    elif kind == "none":
        free = np.zeros((h, w), bool)
    else:
        free = np.ones((h, w), bool)
    alpha = draw(st.one_of(st.none(), alphas))
    return free, box, alpha, half


@settings(max_examples=120)
@given(source_problems())
def test_source_area_properties(problem):
    free, box, alpha, half = problem
    h, w = free.shape
    full = (0, 0, w, h)
    area_rect, sources, widened = geometry.source_area(free, box, alpha, half)

    assert inside_image(area_rect, w, h)
    assert sources.shape == free.shape and sources.dtype == bool
    # the sources are exactly the free centres whose window lies in the returned area
    assert np.array_equal(sources, free_centres_in(free, area_rect, half))
    # the area contains Eq. 6's area (the whole image for alpha None)
    eq6 = geometry.search_area(box, alpha, w, h)
    assert contains(area_rect, eq6)
    # enough sources, or nothing more to widen to
    assert int(sources.sum()) >= MIN_SOURCES or area_rect == full
    # never widened needlessly
    if widened == 0:
        assert area_rect == eq6
    else:
        assert alpha is not None
        assert int(free_centres_in(free, eq6, half).sum()) < MIN_SOURCES
    # `widened` steps of widen() (or the whole image, which ends the widening)
    if alpha is not None and widened:
        a = alpha
        for _ in range(widened):
            a = geometry.widen(a)
        assert area_rect in (geometry.search_area(box, a, w, h), full)


def test_source_area_enough_sources_keeps_eq6():
    free = np.ones((60, 60), bool)
    box = (20, 20, 40, 40)
    area_rect, sources, widened = geometry.source_area(free, box, 0.5, 2)
    assert (area_rect, widened) == ((10, 10, 50, 50), 0)
    assert int(sources.sum()) == 36 * 36


def test_source_area_min_sources_boundary():
    """Exactly MIN_SOURCES sources is enough; one fewer widens."""
    free = np.ones((60, 60), bool)
    box = (20, 20, 32, 32)  # alpha 0: the area is the box, 8 x 8 = 64 centres for half = 2
    assert MIN_SOURCES == 64
    area_rect, sources, widened = geometry.source_area(free, box, 0.0, 2)
    assert (area_rect, widened, int(sources.sum())) == (box, 0, 64)
    free[25, 25] = False
    area_rect, sources, widened = geometry.source_area(free, box, 0.0, 2)
    assert widened == 1 and area_rect == geometry.search_area(box, geometry.widen(0.0), 60, 60)
    assert int(sources.sum()) >= MIN_SOURCES


def test_source_area_widens_a_starved_area():
    free = np.ones((60, 60), bool)
    free[15:45, 15:45] = False
    box = (20, 20, 40, 40)
    area_rect, sources, widened = geometry.source_area(free, box, 0.1, 2)
    assert widened >= 1
    assert int(sources.sum()) >= MIN_SOURCES
    assert contains(area_rect, geometry.search_area(box, 0.1, 60, 60))


def test_source_area_no_sources_anywhere_returns_whole_image():
    free = np.zeros((10, 12), bool)
    area_rect, sources, _ = geometry.source_area(free, (3, 3, 6, 6), 0.05, 1)
    assert area_rect == (0, 0, 12, 10)
    assert not sources.any()
    area_rect, sources, widened = geometry.source_area(free, (3, 3, 6, 6), None, 1)
    assert (area_rect, widened) == ((0, 0, 12, 10), 0)
