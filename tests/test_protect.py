"""The ``protect`` option of both fill methods: no source patch covers a protected pixel.

The scene puts a red block right beside the hole in a green field, so an unprotected fill copies
red into the hole; protecting the block must keep every source window off it, on numpy and
OpenCL alike (bit for bit), and from the command line.
"""

import subprocess
import sys

import numpy as np
import pytest
from helpers import save_mask
from hypothesis import given, settings, strategies as hs
from PIL import Image

from inpaint import geometry
from inpaint.api import inpaint
from inpaint.errors import InputError
from inpaint.methods.multiscale import levels

H, W = 64, 96
HOLE = (slice(24, 40), slice(40, 56))
RED = (slice(18, 46), slice(56, 72))         # touches the hole's right side

CRIMINISI = [{"loop": "device"}, {"loop": "host"}, {"source": "filled"}]


def _scene():
    rng = np.random.default_rng(7)
    img = np.empty((H, W, 3), np.uint8)
    img[..., 0] = rng.integers(40, 80, (H, W))
    img[..., 1] = rng.integers(120, 170, (H, W))
    img[..., 2] = rng.integers(30, 60, (H, W))
    img[RED] = np.stack([rng.integers(200, 255, (28, 16)), rng.integers(0, 30, (28, 16)),
                         rng.integers(0, 30, (28, 16))], axis=-1)
    mask = np.zeros((H, W), bool)
    mask[HOLE] = True
    protect = np.zeros((H, W), bool)
    protect[RED] = True
    return img, mask, protect


def _windows_clear(centres, blocked, half):
    """Naive oracle: no pixel of any centre's window is ``blocked``."""
    for y, x in centres:
        if blocked[max(y - half, 0):y + half + 1, max(x - half, 0):x + half + 1].any():
            return False
    return True


def _red(image, mask):
    """Hole pixels that look red (the protected block's colour)."""
    px = image[mask].astype(int)
    return int(((px[:, 0] > 150) & (px[:, 1] < 90)).sum())


@pytest.mark.parametrize("opts", [{"method": "multiscale"}] + [dict(method="criminisi", **o) for o in CRIMINISI],
                         ids=["multiscale", "criminisi-device", "criminisi-host", "criminisi-filled"])
def test_protected_pixels_are_never_sources_and_opencl_equals_numpy(runtime, opts):
    img, mask, protect = _scene()
    host = {k: v for k, v in opts.items() if k != "loop"}   # the loop's choice is the device's
    if opts.get("source") != "filled":  # (filled pixels make green sources nearer the hole there)
        free = inpaint(img, mask, backend="numpy", **host)
        assert _red(free.image, mask) > 0, "the scene must tempt an unprotected fill to copy red"
    runs = [inpaint(img, mask, protect=protect, backend="numpy", **host),
            inpaint(img, mask, protect=protect, backend="opencl", **opts)]
    np.testing.assert_array_equal(runs[0].image, runs[1].image)
    for res in runs:
        np.testing.assert_array_equal(res.image[~mask], img[~mask])
        src = res.source_map[mask]
        assert (src >= 0).all()
        assert not protect[src[:, 0], src[:, 1]].any(), "a filled pixel copies a protected pixel"
        assert _red(res.image, mask) == 0
        if opts["method"] == "criminisi":
            half = res.stats.patch // 2
            assert _windows_clear([(sy, sx) for _, _, sy, sx in res.stats.patches], protect, half)


@settings(max_examples=25, deadline=None)
@given(seed=hs.integers(0, 2 ** 16), half=hs.integers(1, 3))
def test_a_levels_sources_avoid_the_hole_and_the_protected_pixels(seed, half):
    """Every valid source centre's window is inside the image and free of both, checked window
    by window, and no free window is lost."""
    rng = np.random.default_rng(seed)
    h, w = rng.integers(12, 30, 2)
    mask = rng.random((h, w)) < 0.05
    mask[h // 2, w // 2] = True
    protect = rng.random((h, w)) < 0.05
    lev = levels.prepare_level(mask, half, None, protect)
    for y in range(h):
        for x in range(w):
            inside = half <= y < h - half and half <= x < w - half
            window = (slice(max(y - half, 0), y + half + 1), slice(max(x - half, 0), x + half + 1))
            expect = inside and not mask[window].any() and not protect[window].any()
            assert bool(lev.valid[y, x]) == expect, (y, x)


def test_the_protected_pixels_are_halved_with_the_pyramid():
    p = np.zeros((9, 9), bool)
    p[4, 8] = True
    coarse = levels.protect_pyramid(p, 3)
    assert coarse[1].shape == (5, 5) and coarse[1][2, 4] and coarse[1].sum() == 1
    assert coarse[2].shape == (3, 3) and coarse[2][1, 2] and coarse[2].sum() == 1
    assert levels.protect_pyramid(None, 3) == [None, None, None]


def test_clear_centres_is_the_naive_window_rule():
    rng = np.random.default_rng(3)
    corner = np.zeros((20, 25), bool)  # a few pixels: only their box is dilated
    corner[15:17, 2:4] = True
    corner[18, 1] = True
    for blocked in (rng.random((20, 25)) < 0.04, corner, np.zeros((20, 25), bool)):
        for half in (0, 1, 2, 4):
            got = geometry.clear_centres(blocked, half)
            for y in range(20):
                for x in range(25):
                    assert got[y, x] == _windows_clear([(y, x)], blocked, half)


@pytest.mark.parametrize("method", ["multiscale", "criminisi"])
def test_protecting_every_source_is_refused_before_the_work(method):
    img, mask, _ = _scene()
    everything = ~mask
    with pytest.raises(InputError, match="protected"):
        inpaint(img, mask, method=method, protect=everything, backend="numpy")


@pytest.mark.parametrize("bad, match", [(np.zeros((H, W + 1), bool), "shape"),
                                        (np.zeros((H, W), np.float32), "dtype")])
def test_a_bad_protect_array_is_refused(bad, match):
    img, mask, _ = _scene()
    with pytest.raises(InputError, match=match):
        inpaint(img, mask, protect=bad, backend="numpy")


def test_an_empty_protect_array_changes_nothing():
    img, mask, _ = _scene()
    a = inpaint(img, mask, backend="numpy", method="criminisi")
    b = inpaint(img, mask, backend="numpy", method="criminisi", protect=np.zeros((H, W), np.uint8))
    np.testing.assert_array_equal(a.image, b.image)


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "inpaint", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def test_command_line_protect(tmp_path):
    img, mask, protect = _scene()
    Image.fromarray(img).save(tmp_path / "a.png")
    save_mask(tmp_path / "a_mask.png", mask)
    save_mask(tmp_path / "keep.png", protect)
    # The option's path from the command to the job, by the quicker method (both methods' protection
    # is tested above).
    r = _cli("a.png", "--mask", "a_mask.png", "--protect", "keep.png", "-o", "out.png", "--backend", "numpy",
             "--method", "criminisi", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = np.asarray(Image.open(tmp_path / "out.png").convert("RGB"))
    np.testing.assert_array_equal(out[~mask], img[~mask])
    assert _red(out, mask) == 0
    expected = inpaint(img, mask, protect=protect, backend="numpy", method="criminisi")
    np.testing.assert_array_equal(out, expected.image)

    r = _cli("a.png", "--mask", "a_mask.png", "--protect", "missing.png", "-o", "out2.png", cwd=tmp_path)
    assert r.returncode == 2 and "--protect mask missing.png" in r.stderr and r.stderr.count("\n") == 1
    assert not (tmp_path / "out2.png").exists()
    Image.new("L", (10, 10)).save(tmp_path / "small.png")
    r = _cli("a.png", "--mask", "a_mask.png", "--protect", "small.png", "-o", "out2.png", cwd=tmp_path)
    assert r.returncode == 2 and "--protect mask small.png is 10x10" in r.stderr
    r = _cli("a.png", "--mask", "a_mask.png", "--protect", "a_mask.png", "-o", "out3.png", "--backend", "numpy",
             "--method", "criminisi", cwd=tmp_path)
    assert r.returncode == 0 and "in both the mask and --protect" in r.stderr


@pytest.mark.parametrize("distance", [5, 6, 8, 10])
def test_no_tone_of_a_protected_object_near_the_sources_reaches_the_fill(runtime, distance):
    """A grey wall, an object in it, and a protected red frame around it, a few pixels beyond the
    level's work area: the split vote's tones (its low-pass map) leave the frame out there too, so
    the fill is the wall's grey alone, on numpy and OpenCL alike."""
    img = np.full((64, 80, 3), 100, np.uint8)
    mask = np.zeros((64, 80), bool)
    mask[28:36, 36:44] = True
    frame = np.zeros((64, 80), bool)
    d = distance
    frame[27 - d:37 + d, 35 - d:45 + d] = True
    frame[28 - d:36 + d, 36 - d:44 + d] = False
    img[frame] = (250, 0, 0)
    runs = [inpaint(img, mask, protect=frame, backend=b) for b in ("numpy", "opencl")]
    np.testing.assert_array_equal(runs[0].image, runs[1].image)
    assert (runs[0].image[mask] == 100).all()


def test_a_hole_filled_in_groups_takes_nothing_from_under_the_other_groups(runtime):
    """Far-apart objects are filled as groups, each with the others protected: what lies under
    the other objects (here: inverted) changes no filled pixel."""
    img = (np.random.default_rng(12).integers(0, 2, (49, 66, 3)) * 255).astype(np.uint8)
    mask = np.zeros((49, 66), bool)
    for y, x in [(2, 43), (3, 27), (9, 7), (12, 63), (24, 1), (37, 7)]:
        mask[y:y + 3, x:x + 3] = True
    other = img.copy()
    other[mask] = 255 - img[mask]
    for backend in ("numpy", "opencl"):
        first, second = (inpaint(im, mask, backend=backend, patch=3) for im in (img, other))
        assert first.stats.groups > 1
        np.testing.assert_array_equal(first.image, second.image)


def test_the_low_pass_map_leaves_out_the_protected_pixels_it_is_given():
    """``reference.low_pass`` against a naive loop: each pixel's rounded mean of the known
    pixels (not hole, not protected, inside the image) in its 7x7 box."""
    from inpaint.methods.multiscale import reference as ref

    rng = np.random.default_rng(3)
    est = rng.integers(0, 256, (30, 40, 4), dtype=np.uint8)
    hole = np.zeros((8, 10), np.uint8)  # the work area at (y, x) = (10, 12)
    hole[2:5, 3:7] = 1
    protect = rng.random((30, 40)) < 0.2
    protect[10:18, 12:22] = False  # (the work area's own are in its hole map)
    hole[6, 1] = 2
    rect = (2, 1, 37, 29)
    box = (0, 0, 40, 30)
    got = ref.low_pass(est, hole, (10, 12), rect, (box, protect.view(np.uint8)))
    unknown = protect.copy()
    unknown[10:18, 12:22] |= hole > 0
    r = ref.LOW_RADIUS
    for y in range(rect[1], rect[3]):
        for x in range(rect[0], rect[2]):
            ys, xs = slice(max(y - r, 0), y + r + 1), slice(max(x - r, 0), x + r + 1)
            known = ~unknown[ys, xs]
            count = max(int(known.sum()), 1)
            total = est[ys, xs, :3].astype(np.int64)[known].sum(axis=0)
            np.testing.assert_array_equal(got[y - rect[1], x - rect[0]], (total + count // 2) // count)


@pytest.mark.parametrize("partition", ["valid", "valid,front", "all"])
def test_filled_sources_respect_protect_whichever_side_runs_the_valid_stage(runtime, partition):
    """``source='filled'`` marks the valid centres again each step, on the device here, while the
    protected ones are cleared on the host: the device's copy holds the clears, so no source patch
    covers a protected pixel and the fill is numpy's."""
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)
    mask = np.zeros((20, 30), bool)
    mask[8:12, 12:18] = True
    protect = np.zeros((20, 30), bool)
    protect[:, :10] = True
    opts = dict(method="criminisi", protect=protect, patch=3, source="filled", alpha="full")
    host = inpaint(img, mask, backend="numpy", **opts)
    device = inpaint(img, mask, backend="opencl", partition=partition, **opts)
    np.testing.assert_array_equal(device.image, host.image)
    assert _windows_clear([(sy, sx) for _, _, sy, sx in device.stats.patches], protect, 1)
