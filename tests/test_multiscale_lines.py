"""The multiscale fill's straight lines (``straight_lines``): lines that cross the hole are found and
continued across it before the fill, copied from known pixels along themselves; with none found, or
the option off, the fill is the one without it, bit for bit; the kernels still equal the reference."""

import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from inpaint.api import inpaint
from inpaint.errors import InputError
from inpaint.methods.multiscale.lines import continue_lines


def edge_scene(angle, h=100, w=140, seed=3, hole=(26, 20)):
    """Two textured regions (tan below-right, blue-grey above-left) meeting along a straight line
    through the centre at ``angle`` degrees, and a box hole over the middle; also every pixel's
    signed distance from the line."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(float)
    a = np.radians(angle)
    dist = (xx - w / 2) * -np.sin(a) + (yy - h / 2) * np.cos(a)
    texture = rng.normal(0, 10, (h, w, 3)) + (10 * np.sin(xx / 3) * np.cos(yy / 4))[..., None]
    img = np.where(dist[..., None] > 0, [190, 170, 140], [70, 100, 120]) + texture
    mask = (np.abs(xx - w / 2) < hole[0]) & (np.abs(yy - h / 2) < hole[1])
    return img.clip(0, 255).astype(np.uint8), mask, dist


def edge_wander(image, mask, dist):
    """How far (pixels) from the true line the fill puts the boundary between the two regions: the
    largest distance from it of a hole pixel (within 10 px of it) that lands on the wrong side, read
    on the grey level averaged over 5 x 5 pixels (the texture's grain averaged out)."""
    g = image.astype(float).mean(axis=2)
    p = np.pad(g, 2, mode="edge")
    g = sum(p[i:i + g.shape[0], j:j + g.shape[1]] for i in range(5) for j in range(5)) / 25
    wrong = mask & (np.abs(dist) <= 10) & ((g > 130) != (dist > 0))
    return float(np.abs(dist[wrong]).max()) if wrong.any() else 0.0


@pytest.mark.parametrize("angle", [0, 8, 30, 45, 97, 160])
def test_a_line_across_the_hole_is_continued_straight_from_known_pixels(angle):
    img, mask, dist = edge_scene(angle)
    found = continue_lines(img, mask, 7)
    assert found.lines == 1
    py, px = found.pixels.T
    sy, sx = found.sources.T
    assert mask[py, px].all() and len(py) == len(set(zip(py.tolist(), px.tolist())))
    assert (~mask[sy, sx]).all()  # every copy from a known pixel
    assert (np.abs(dist[py, px]) <= 7 // 2 + 2).all()  # a band about a patch wide, along the line
    # each copy comes from a pixel about as far from the line (a translation along it, at most a
    # pixel off the fitted line's direction)
    assert np.abs(dist[py, px] - dist[sy, sx]).max() <= 1.0
    # so the copied boundary is the line itself, to within a pixel
    bright = img[sy, sx].astype(float).mean(axis=1) > 130
    assert (np.abs(dist[py, px][bright != (dist[py, px] > 0)]) <= 1.0).all()
    band = found.band(mask.shape)
    out = found.apply(img)
    assert (out[~band] == img[~band]).all() and (out[py, px] == img[sy, sx]).all()


def test_the_band_spans_the_hole_when_the_picture_ends_soon_beyond_one_side():
    """The hole comes within 22 px of the left edge: the left part of the band is copied from the
    short known stretch there, the rest from the right, and the line's core is copied throughout."""
    img, _, dist = edge_scene(4, h=100, w=220)
    yy, xx = np.mgrid[0:100, 0:220]
    mask = (xx >= 22) & (xx < 120) & (np.abs(yy - 50) < 18)
    found = continue_lines(img, mask, 7)
    assert found.lines == 1
    core = mask & (np.abs(dist) <= 2)
    assert core.sum() > 300 and not (core & ~found.band(mask.shape)).any()
    assert (~mask[found.sources[:, 0], found.sources[:, 1]]).all()


@pytest.mark.parametrize("case", ["noise", "one side", "offset", "colours", "protected"])
def test_no_qualifying_line_is_no_change(case):
    rng = np.random.default_rng(8)
    h, w = 100, 140
    yy, xx = np.mgrid[0:h, 0:w]
    mask = (np.abs(xx - 70) < 26) & (np.abs(yy - 50) < 20)
    img = np.full((h, w, 3), 100, np.uint8)
    protect = None
    if case == "noise":
        img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    elif case == "one side":  # an edge that stops at the hole
        img[50:, :70] = 200
    elif case == "offset":  # two edges, 10 px apart
        img[45:, :70] = 200
        img[55:, 70:] = 200
    elif case == "colours":  # one straight edge, between other colours on each side
        img[50:, :70], img[50:, 70:], img[:50, 70:] = 200, 30, 170
    else:  # the line's far side protected: no edge is read there, nothing copied from it
        img[50:] = 200
        protect = xx >= 90
    assert continue_lines(img, mask, 7, protect).lines == 0


@pytest.mark.parametrize("case, lines", [("siding_blob", 1), ("bristles_blob", 0)])
def test_a_line_on_a_photo_is_found_and_a_stroke_of_a_texture_is_not(case, lines):
    """The siding's board edge crosses the hole; among the brush's bristles no one stroke is a line."""
    from inpaint.io import read_image, read_mask

    folder = Path(__file__).resolve().parents[1] / "datasets" / "quality" / case
    img = read_image(folder / "truth.png").rgb.copy()
    mask = read_mask(folder / "mask.png", (img.shape[1], img.shape[0]))
    img[mask] = 0  # as the benchmark hands it over: the hole's pixels tell nothing
    found = continue_lines(img, mask, 7)
    assert found.lines == lines
    assert (~mask[found.sources[:, 0], found.sources[:, 1]]).all()


def test_the_fill_keeps_the_line_straight_and_its_map_names_every_source():
    img, mask, dist = edge_scene(30, h=120, w=170, hole=(40, 30))
    kw = dict(method="multiscale", backend="numpy", seed=0)
    on = inpaint(img, mask, straight_lines="on", **kw)
    off = inpaint(img, mask, **kw)
    assert on.stats.lines == 1
    assert edge_wander(on.image, mask, dist) <= 1.0
    assert edge_wander(off.image, mask, dist) > 1.0  # without it, this fill bends the boundary
    assert (on.image[~mask] == img[~mask]).all()
    src = on.source_map
    assert (src[~mask] == -1).all()
    sy, sx = src[mask, 0], src[mask, 1]
    assert (sy >= 0).all() and (~mask[sy, sx]).all()
    found = continue_lines(img, mask, 7)
    np.testing.assert_array_equal(src[found.pixels[:, 0], found.pixels[:, 1]], found.sources)
    np.testing.assert_array_equal(on.image[found.pixels[:, 0], found.pixels[:, 1]],
                                  img[found.sources[:, 0], found.sources[:, 1]])


def test_without_a_line_the_option_changes_nothing(rng):
    img = rng.integers(0, 256, (60, 70, 3), dtype=np.uint8)
    mask = np.zeros((60, 70), bool)
    mask[20:38, 25:41] = True
    kw = dict(method="multiscale", backend="numpy", patch=5, seed=1)
    plain, off, on = (inpaint(img, mask, **kw), inpaint(img, mask, straight_lines="off", **kw),
                      inpaint(img, mask, straight_lines="on", **kw))
    assert on.stats.lines == 0
    for other in (off, on):
        np.testing.assert_array_equal(other.image, plain.image)
        np.testing.assert_array_equal(other.source_map, plain.source_map)


def test_sources_avoid_protected_pixels():
    img, mask, dist = edge_scene(8, w=200, hole=(40, 20))
    xx = np.mgrid[0:100, 0:200][1]
    plain = continue_lines(img, mask, 7)
    protect = (xx < 30) & (np.abs(dist) < 8)  # along the line, where its left half is copied from
    assert protect[plain.sources[:, 0], plain.sources[:, 1]].any()
    found = continue_lines(img, mask, 7, protect)
    assert found.lines == 1
    assert not protect[found.sources[:, 0], found.sources[:, 1]].any()
    res = inpaint(img, mask, backend="numpy", patch=5, straight_lines="on", protect=protect)
    assert res.stats.lines == 1
    assert not protect[res.source_map[mask][:, 0], res.source_map[mask][:, 1]].any()


def test_opencl_equals_numpy_with_straight_lines(runtime):
    img, mask, _ = edge_scene(30)
    kw = dict(method="multiscale", patch=5, seed=2, straight_lines="on")
    a = inpaint(img, mask, backend="numpy", **kw)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, **kw)
    assert a.stats.lines == b.stats.lines == 1
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)


@pytest.mark.parametrize("value", ["yes", True, None])
def test_bad_values_are_refused(value):
    img, mask, _ = edge_scene(30)
    with pytest.raises(InputError, match=re.escape(f"straight_lines must be one of 'off', 'on', got {value!r}")):
        inpaint(img, mask, backend="numpy", straight_lines=value)


def test_the_command_takes_the_option(tmp_path, run, capsys):
    img, mask, _ = edge_scene(30)
    Image.fromarray(img).save(tmp_path / "in.png")
    Image.fromarray(mask.astype(np.uint8) * 255).save(tmp_path / "mask.png")
    with pytest.raises(SystemExit):
        run("--help")
    assert "--straight-lines {off,on}" in capsys.readouterr().out
    code, out, err = run(tmp_path / "in.png", "--mask", tmp_path / "mask.png", "-p", 5, "--backend", "numpy",
                         "--straight-lines", "on", "-o", tmp_path / "out.png", "--stats")
    assert code == 0, err
    assert "1 straight line continued across the hole" in out + err
    want = inpaint(img, mask, backend="numpy", patch=5, straight_lines="on").image
    with Image.open(tmp_path / "out.png") as got:
        np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(SystemExit) as stop:
        run(tmp_path / "in.png", "--mask", tmp_path / "mask.png", "--straight-lines", "yes", "-o", tmp_path / "bad.png")
    assert stop.value.code == 2 and "--straight-lines: invalid choice: 'yes'" in capsys.readouterr().err
    assert not (tmp_path / "bad.png").exists()
