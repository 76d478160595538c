"""Object-aware tap-to-select (inpaint.tapselect.select_object; the app's tap: mobile_ui.masktools)."""

import numpy as np
import pytest

from inpaint.errors import InputError
from inpaint.tapselect import select_object
from mobile_ui import masktools

needs_cv2 = pytest.mark.skipif(not masktools.grabcut_available(), reason="GrabCut needs OpenCV (optional)")


def iou(a, b):
    return (a & b).sum() / (a | b).sum()


def two_tone_object(seed=0, size=(120, 140)):
    """A noisy grey-green backdrop; an object lit from the top (its red darkens by 120 levels
    from top to bottom) with a yellow cap, and a thin dark outline around it all."""
    rng = np.random.default_rng(seed)
    h, w = size
    img = (np.full((h, w, 3), (120, 150, 110)) + rng.normal(0, 4, (h, w, 3))).clip(0, 255)
    yy, xx = np.mgrid[:h, :w]
    obj = ((yy - 65) / 35.0) ** 2 + ((xx - 70) / 30.0) ** 2 <= 1
    cap = obj & (yy < 40)
    shade = ((yy - 30) / 70.0).clip(0, 1)[..., None]
    red = np.array([250.0, 70, 60]) - shade * np.array([120.0, 40, 30])
    img[obj] = (red + rng.normal(0, 4, (h, w, 3)))[obj]
    img[cap] = (230, 200, 60) + rng.normal(0, 4, (cap.sum(), 3))
    ring = masktools.grow(obj, 2) & ~obj
    img[ring] = (30, 30, 30)
    return img.clip(0, 255).astype(np.uint8), obj, cap


@needs_cv2
@pytest.mark.parametrize("seed", range(3))
def test_one_tap_takes_the_shaded_body_and_stops_at_its_edge(seed):
    """The colour range stops where the shading passes the tolerance; GrabCut carries the
    selection to the outline and no further.  (A part of another colour, the cap, needs its
    own tap: GrabCut's object model knows only the colours the taps covered.)"""
    img, obj, cap = two_tone_object(seed)
    body = obj & ~cap
    colour = masktools.tap_select_colour(img, (60, 70), 32)
    got = select_object(img, (60, 70), 32, grabcut=True)
    assert iou(colour, body) < 0.75
    assert got[60, 70] and iou(got, body) > 0.85
    assert not (got & ~masktools.grow(obj, 2)).any()     # nothing past the outline
    assert (got & colour).sum() == colour.sum()


@pytest.mark.parametrize("yx, tol", [((70, 70), 32), ((70, 70), 64), ((36, 70), 20), ((5, 5), 16)])
def test_without_grabcut_the_selection_is_the_colour_range(yx, tol):
    img, _, _ = two_tone_object(1)
    got = select_object(img, yx, tol, grabcut=False)
    assert got[yx] and iou(got, masktools.tap_select_colour(img, yx, tol)) > 0.99


@pytest.mark.parametrize("grabcut", [False, pytest.param(True, marks=needs_cv2)])
@pytest.mark.parametrize("yx", [(0, 0), (119, 139), (60, 0), (45, 70)])
def test_the_tapped_pixel_is_always_selected(grabcut, yx):
    img, _, _ = two_tone_object(2)
    for tol in (0, 10, 64):
        got = select_object(img, yx, tol, grabcut=grabcut)
        assert got.shape == img.shape[:2] and got.dtype == bool and got[yx]


def test_a_large_photo_is_worked_on_reduced_and_the_result_is_full_size():
    """A 1600x1200 photo: the window is reduced to WORK_SIDE, the answer is still per pixel of
    the photo, holds the tap, and covers the big object."""
    img = np.full((1200, 1600, 3), 90, np.uint8)
    img[200:1000, 300:1400] = 200
    truth = np.zeros(img.shape[:2], bool)
    truth[200:1000, 300:1400] = True
    for yx in ((995, 1395), (600, 800), (203, 303)):
        got = select_object(img, yx, 20, grabcut=False)
        assert got.shape == truth.shape and got[yx] and iou(got, truth) > 0.97


def test_a_second_tap_adds():
    """The app ors each tap into the mask: a second tap on the other colour adds it."""
    img, obj, cap = two_tone_object(0)
    first = select_object(img, (70, 70), 64, grabcut=False)
    both = first | select_object(img, (36, 70), 64, grabcut=False)
    assert both.sum() > first.sum() and iou(both, obj) > iou(first, obj) and iou(both, obj) > 0.9


def test_the_apps_tap_falls_back_to_the_colour_range_without_opencv(monkeypatch):
    img, _, _ = two_tone_object(0)
    monkeypatch.setattr(masktools, "grabcut_available", lambda: False)
    np.testing.assert_array_equal(masktools.tap_select(img, (80, 70), 48),
                                  masktools.tap_select_colour(img, (80, 70), 48))


@pytest.mark.parametrize("args, message", [
    (((120, 0), 10), "outside"), (((0, -1), 10), "outside"), (((0, 0), -1), "tolerance"),
    (((0, 0), "x"), "tolerance"), (((0, 0), float("nan")), "tolerance"),
])
def test_bad_arguments_are_input_errors(args, message):
    img, _, _ = two_tone_object(0)
    with pytest.raises(InputError, match=message):
        select_object(img, *args, grabcut=False)


def test_reused_windows_give_the_same_selection():
    """A tap selected again at lower tolerances with the windows kept (the app's size limit)
    selects what a fresh call selects."""
    rng = np.random.default_rng(7)
    img = rng.integers(90, 130, (900, 1300, 3)).astype(np.uint8)          # wider than WORK_SIDE
    img[300:600, 400:900] = rng.integers(170, 200, (300, 500, 3))
    windows = {}
    for tol in (64, 32, 16, 8):
        for grabcut in (False,) + ((True,) if masktools.grabcut_available() else ()):
            kept = select_object(img, (450, 650), tol, grabcut=grabcut, windows=windows)
            np.testing.assert_array_equal(kept, select_object(img, (450, 650), tol, grabcut=grabcut))
    assert windows and all(w.dtype == np.float32 and max(w.shape[:2]) <= 480 for w in windows.values())
