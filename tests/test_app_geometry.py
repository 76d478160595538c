"""Window-free tests of the app's coordinate mapping and stroke rasterising (no Kivy)."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mobile_ui.geometry import MIN_RADIUS, View, gesture_box, gesture_kind, lasso_mask, overlay, rgba, stamp_segment


# -- View: widget (y up) <-> image (row 0 at the top) ------------------------------------
def test_fit_centres_and_scales():
    v = View.fit((200, 100), (400, 400))
    assert v.scale == 2.0
    assert (v.ox, v.oy) == (0.0, 100.0)
    assert v.display_size == (400.0, 200.0)


def test_top_left_pixel_is_at_the_top_of_the_widget():
    # 13 x 11 image at scale 3, bottom-left corner at (5, 7): row 0 is the *top* row.
    v = View(13, 11, 100, 100, 3.0, 5.0, 7.0)
    top = 7.0 + 11 * 3.0
    assert v.pixel_at(5.5, top - 0.5) == (0, 0)
    assert v.pixel_at(5.5, 7.5) == (10, 0)          # bottom-left of the widget image = last row
    assert v.pixel_at(5 + 13 * 3 - 0.5, 7.5) == (10, 12)
    assert v.pixel_at(4.9, 20) is None               # left of the image
    assert v.pixel_at(20, top + 0.1) is None         # above it
    assert v.pixel_centre(0, 0) == (5 + 1.5, top - 1.5)


@given(st.integers(1, 300), st.integers(1, 300), st.floats(0.05, 40), st.floats(-500, 500), st.floats(-500, 500),
       st.floats(0, 1, exclude_max=True), st.floats(0, 1, exclude_max=True))
def test_pixel_centre_round_trips(w, h, scale, ox, oy, fu, fv):
    v = View(w, h, 640, 480, scale, ox, oy)
    row, col = int(fv * h), int(fu * w)
    assert v.pixel_at(*v.pixel_centre(row, col)) == (row, col)
    u, v_ = v.widget_to_image(*v.image_to_widget(fu * w, fv * h))
    assert math.isclose(u, fu * w, abs_tol=1e-7) and math.isclose(v_, fv * h, abs_tol=1e-7)


@given(st.floats(0.2, 5), st.floats(0, 640), st.floats(0, 480))
def test_zoom_keeps_the_point_under_the_finger(factor, x, y):
    v = View.fit((77, 49), (640, 480))
    before = v.widget_to_image(x, y)
    z = v.zoomed(factor, x, y)
    after = z.widget_to_image(x, y)
    assert math.isclose(z.scale, v.scale * factor)
    assert math.isclose(before[0], after[0], abs_tol=1e-7) and math.isclose(before[1], after[1], abs_tol=1e-7)


@given(st.floats(0, 77), st.floats(0, 49), st.floats(0, 640), st.floats(0, 480), st.floats(0.1, 30))
def test_anchored_puts_the_image_point_under_the_fingers(u, v, x, y, scale):
    a = View.fit((77, 49), (640, 480)).anchored(u, v, x, y, scale)
    assert a.scale == scale
    assert a.image_to_widget(u, v) == pytest.approx((x, y), abs=1e-6)


def test_zoom_is_clamped():
    v = View.fit((100, 100), (100, 100))
    assert v.zoomed(100, 50, 50, 0.5, 8).scale == 8
    assert v.zoomed(0.01, 50, 50, 0.5, 8).scale == 0.5
    with pytest.raises(ValueError, match="positive"):
        v.zoomed(0, 0, 0)


def test_clamp_keeps_part_of_the_image_under_the_centre():
    big = View(100, 100, 200, 200, 4.0, 150.0, -500.0).clamped()    # 400 x 400 in a 200 x 200 widget
    assert (big.ox, big.oy) == (100.0, -300.0)                       # an edge may reach the centre, no further
    kept = View(100, 100, 200, 200, 4.0, -50.0, -250.0).clamped()
    assert (kept.ox, kept.oy) == (-50.0, -250.0)                     # within the rule: unchanged
    small = View(100, 100, 200, 200, 1.0, -30.0, 150.0).clamped()   # 100 x 100 inside 200 x 200
    assert (small.ox, small.oy) == (0.0, 100.0)
    fit = View.fit((100, 10), (200, 200))
    assert fit.clamped() == fit                                       # a fitted view is never moved


@pytest.mark.parametrize("x, y", [(0.0, 0.0), (199.0, 95.0), (3.0, 104.0), (100.0, 100.0)])
def test_zooming_in_about_a_point_of_the_image_is_never_clamped(x, y):
    v = View.fit((100, 10), (200, 200))                               # letterboxed: 200 x 20 in 200 x 200
    x, y = v.nearest_on_image(x, y)
    u = v.widget_to_image(x, y)
    for _ in range(8):
        v = v.zoomed(1.3, x, y).clamped()
        assert v.widget_to_image(x, y) == pytest.approx(u, abs=1e-9)


def test_resize_keeps_the_centre_point():
    v = View.fit((300, 200), (600, 400)).zoomed(3, 100, 100)
    centre = v.widget_to_image(300, 200)
    r = v.resized(400, 600)
    assert r.widget_to_image(200, 300) == pytest.approx(centre)


def test_bad_views_are_rejected():
    with pytest.raises(ValueError, match="image size"):
        View(0, 5, 10, 10)
    with pytest.raises(ValueError, match="scale"):
        View(5, 5, 10, 10, scale=0)


# -- stamp_segment ----------------------------------------------------------------------
def _reference(shape, p0, p1, radius):
    """Brute force: every pixel centre within radius of the segment."""
    r = max(radius, MIN_RADIUS)
    out = np.zeros(shape, bool)
    a, b = np.array(p0, float), np.array(p1, float)
    for row in range(shape[0]):
        for col in range(shape[1]):
            p = np.array([col + 0.5, row + 0.5])
            d = b - a
            dd = float(np.dot(d, d))
            t = 0.0 if dd == 0.0 else min(max(np.dot(p - a, d) / dd, 0.0), 1.0)
            out[row, col] = np.sum((p - a - t * d) ** 2) <= r * r
    return out


def test_single_dot_hits_the_touched_pixel_only_when_tiny():
    mask = np.zeros((7, 9), bool)
    stamp_segment(mask, (4.9, 2.1), (4.9, 2.1), 0.1)
    assert mask[2, 4] and mask.sum() == 1


def test_disc_is_symmetric_and_matches_reference():
    mask = np.zeros((13, 11), bool)
    box = stamp_segment(mask, (5.5, 6.5), (5.5, 6.5), 3.0)
    np.testing.assert_array_equal(mask, _reference((13, 11), (5.5, 6.5), (5.5, 6.5), 3.0))
    np.testing.assert_array_equal(mask, mask[::-1, :])
    np.testing.assert_array_equal(mask, mask[:, ::-1])
    assert box == (3, 10, 2, 9)


@given(st.tuples(st.floats(-5, 25), st.floats(-5, 20)), st.tuples(st.floats(-5, 25), st.floats(-5, 20)),
       st.floats(0, 6))
def test_segment_matches_brute_force(p0, p1, radius):
    mask = np.zeros((15, 21), bool)
    stamp_segment(mask, p0, p1, radius)
    np.testing.assert_array_equal(mask, _reference((15, 21), p0, p1, radius))


def test_long_fast_stroke_has_no_gaps():
    # Two touch events 80 pixels apart (a fast finger at high zoom) still give one band.
    mask = np.zeros((20, 100), bool)
    stamp_segment(mask, (5.0, 10.0), (85.0, 10.0), 1.0)
    assert mask[9:11, 5:85].all()
    assert not mask[:8].any() and not mask[12:].any()


def test_erase_clears_and_leaves_the_rest():
    mask = np.ones((9, 9), bool)
    stamp_segment(mask, (4.5, 4.5), (4.5, 4.5), 2.0, value=False)
    assert not mask[4, 4] and mask[0, 0] and mask.sum() == 81 - 13


def test_stroke_outside_the_image_is_a_no_op():
    mask = np.zeros((5, 5), bool)
    assert stamp_segment(mask, (-20, -20), (-10, -30), 2.0) is None
    assert not mask.any()
    with pytest.raises(ValueError, match="2-D"):
        stamp_segment(np.zeros((2, 2, 2), bool), (0, 0), (1, 1), 1)


def test_texture_helpers():
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    out = rgba(img)
    assert out.shape == (2, 3, 4) and (out[..., 3] == 255).all() and (out[..., :3] == img).all()
    m1 = np.array([[True, False, False], [False, False, True]])
    m2 = np.array([[True, True, False], [False, False, False]])
    ov = overlay([(m2, (0, 255, 0, 100)), (m1, (255, 0, 0, 140))], (2, 3))
    assert tuple(ov[0, 0]) == (255, 0, 0, 140)      # later layers win
    assert tuple(ov[0, 1]) == (0, 255, 0, 100)
    assert tuple(ov[1, 0]) == (0, 0, 0, 0)


# -- Select gestures: a lasso or a box ---------------------------------------------------
def _loop(turn, n=40, wobble=0.0):
    rng = np.random.default_rng(3)
    a = np.linspace(0, 2 * np.pi * turn, n)
    r = 30 * (1 + wobble * rng.standard_normal(n))
    return list(zip(50 + r * np.cos(a), 40 + 0.8 * r * np.sin(a)))


@pytest.mark.parametrize("turn", [0.8, 0.95, 1.0, 1.1])
def test_a_stroke_that_comes_back_or_encloses_an_area_is_a_lasso(turn):
    assert gesture_kind(_loop(turn, wobble=0.05)) == "lasso"
    assert gesture_kind(_loop(0.6)) == "lasso"                   # a "C": open, but it encloses an area


@pytest.mark.parametrize("points", [
    [(10, 10), (60, 50)], [(10, 10), (30, 26), (52, 41), (60, 50)],           # straight and straight-ish
    [(60, 50), (35, 33), (10, 10)], [(0, 0), (40, 2), (80, 0)], [(5, 5), (5, 5)],
])
def test_a_straight_ish_drag_is_a_box(points):
    assert gesture_kind(points) == "box"


def test_a_lasso_fills_what_it_encloses_closed_from_end_to_start():
    got = lasso_mask([(2, 2), (8, 2), (8, 6)], (8, 10))          # a triangle, closed back to (2, 2)
    assert got.shape == (8, 10) and got[2, 7] and got[4, 7] and not got[5, 3] and not got[7, 9]
    box = lasso_mask([(2, 1), (7, 1), (7, 5), (2, 5)], (8, 10))
    want = np.zeros((8, 10), bool)
    want[1:5, 2:7] = True                                         # pixel centres inside the square...
    assert (box >= want).all() and box.sum() <= 7 * 6            # ...and at most the outline's pixels
    assert not lasso_mask([(-30, -20), (-5, -20), (-5, -3)], (8, 10)).any()   # beside the image


def test_a_box_is_its_drag_s_corners_clipped_to_the_image():
    assert gesture_box((10.2, 30.7), (3.5, 4.1), (40, 50)) == (3, 4, 11, 31)
    assert gesture_box((-5, -5), (100, 12), (40, 50)) == (0, 0, 50, 12)
    assert gesture_box((-20, -9), (-2, 30), (40, 50)) is None    # wholly beside the image
