"""Selecting an object with a box, a lasso or taps (inpaint.select) and the ``inpaint select`` command."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from inpaint import select as sel_mod
from inpaint.errors import InputError
from inpaint.masks import grabcut_available, grow
from inpaint.select import select_around, select_box, select_point

needs_cv2 = pytest.mark.skipif(not grabcut_available(), reason="GrabCut needs OpenCV (optional)")
BOTH = [pytest.param(True, marks=needs_cv2, id="grabcut"), pytest.param(False, id="colour-model")]


def iou(a, b):
    return (a & b).sum() / max((a | b).sum(), 1)


def textured_scene(seed=0, size=(173, 229)):
    """A green, leafy backdrop (noise at two scales) with a reddish blob of its own texture: an
    ellipse with a bump, off centre, of an awkward size."""
    rng = np.random.default_rng(seed)
    h, w = size
    coarse = rng.normal(0, 18, (h // 8 + 2, w // 8 + 2, 3))
    back = np.array([70, 120, 60]) + np.kron(coarse, np.ones((8, 8, 1)))[:h, :w] + rng.normal(0, 10, (h, w, 3))
    yy, xx = np.mgrid[:h, :w]
    obj = ((yy - 90) / 42.0) ** 2 + ((xx - 120) / 55.0) ** 2 <= 1
    obj |= ((yy - 52) / 14.0) ** 2 + ((xx - 100) / 16.0) ** 2 <= 1
    front = np.array([200, 80, 60]) + rng.normal(0, 14, (h, w, 3))
    img = np.where(obj[..., None], front, back)
    return img.clip(0, 255).astype(np.uint8), obj


def bounding_box(obj, grow_by):
    rows, cols = np.flatnonzero(obj.any(axis=1)), np.flatnonzero(obj.any(axis=0))
    return (cols[0] - grow_by, rows[0] - grow_by, cols[-1] + 1 + grow_by, rows[-1] + 1 + grow_by)


@needs_cv2
@pytest.mark.parametrize("seed", range(3))
def test_a_box_and_a_lasso_find_the_object_on_a_textured_background(seed):
    img, obj = textured_scene(seed)
    box = select_box(img, bounding_box(obj, 10 + 3 * seed))
    lasso = select_around(img, grow(obj, 15 + 5 * seed))
    assert iou(box, obj) >= 0.9
    assert iou(lasso, obj) >= 0.9


@needs_cv2
@pytest.mark.parametrize("side", ["left", "top", "right", "bottom"])
def test_an_object_touching_a_side_of_the_box_is_still_selected(side):
    """A box drawn tight on one side (the object reaches the box's edge there) still gives the
    whole object: the rim inside the box is only probably background."""
    img, obj = textured_scene(1)
    x0, y0, x1, y1 = bounding_box(obj, 15)
    rows, cols = np.flatnonzero(obj.any(axis=1)), np.flatnonzero(obj.any(axis=0))
    if side == "left":
        x0 = cols[0]
    elif side == "top":
        y0 = rows[0]
    elif side == "right":
        x1 = cols[-1] + 1
    else:
        y1 = rows[-1] + 1
    got = select_box(img, (x0, y0, x1, y1))
    assert iou(got, obj) >= 0.9


@needs_cv2
def test_a_blob_of_the_backdrops_colour_inside_the_box_is_left_out():
    """A blue patch inside the box, apart from the object and of a colour that lies outside the
    box too, is not selected."""
    img, obj = textured_scene(2)
    x0, y0, x1, y1 = bounding_box(obj, 30)
    blob = np.zeros(obj.shape, bool)
    blob[y1 - 22:y1 - 6, x0 + 6:x0 + 22] = True
    assert not (blob & grow(obj, 3)).any()
    outside = np.zeros(obj.shape, bool)
    outside[:16, :40] = outside[-16:, -40:] = outside[:16, -40:] = True
    img = img.copy()
    img[blob | outside] = (40, 60, 210)
    got = select_box(img, (x0, y0, x1, y1))
    assert iou(got, obj) >= 0.9
    assert (got & blob).sum() <= 0.05 * blob.sum()


def _glow_scene(seed: int) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]]:
    """A sharp, textured red disc on a smooth grey backdrop that a wide orange glow lights inside
    the box and fades out past its edge (an out-of-focus light): the photo, the disc, the box."""
    rng = np.random.default_rng(seed)
    h, w = 240, 320
    yy, xx = np.mgrid[:h, :w]
    glow = np.exp(-(((yy - 150) / 45.0) ** 2 + ((xx - 215) / 45.0) ** 2))[..., None]
    back = np.array([120, 125, 130]) * (1 - glow) + np.array([250, 150, 40]) * glow + rng.normal(0, 2, (h, w, 3))
    disc = (yy - 95) ** 2 + (xx - 110) ** 2 < 38 ** 2
    front = np.array([150, 30, 40]) + rng.normal(0, 20, (h, w, 3))
    img = np.where(disc[..., None], front, back).clip(0, 255).astype(np.uint8)
    return img, disc, (50, 35, 262, 200)


@needs_cv2
@pytest.mark.parametrize("seed", range(3))
def test_an_out_of_focus_glow_inside_the_box_is_left_out(seed, monkeypatch):
    """The glow's colours are rare outside the box, so a cut alone (GrabCut or the colour model)
    takes them for object; a smooth path joins them to the outside, where the disc's outline
    bounds it, and they are left out."""
    img, disc, box = _glow_scene(seed)
    assert iou(select_box(img, box), disc) >= 0.9
    assert iou(select_box(img, box, grabcut=False), disc) >= 0.9
    monkeypatch.setattr(sel_mod, "REACH_CONTRAST", 0.0)  # the cut alone
    assert iou(select_box(img, box), disc) < 0.8
    assert iou(select_box(img, box, grabcut=False), disc) < 0.8


def _reach_oracle(small: np.ndarray, labels: np.ndarray, contrast: np.ndarray) -> np.ndarray:
    """A flood, pixel by pixel, from every smooth pixel outside the gesture through 4-neighbours
    of low contrast; the probable object it reaches becomes probable background."""
    h, w = labels.shape
    smooth = contrast < sel_mod.REACH_CONTRAST
    seen = smooth & (labels == 0)
    todo = [tuple(p) for p in np.argwhere(seen)]
    while todo:
        y, x = todo.pop()
        for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
            if 0 <= ny < h and 0 <= nx < w and smooth[ny, nx] and not seen[ny, nx]:
                seen[ny, nx] = True
                todo.append((ny, nx))
    out = labels.copy()
    out[seen & (labels == 3)] = 2
    return out


@needs_cv2
@pytest.mark.parametrize("seed", range(4))
def test_the_backdrops_reach_is_a_flood_through_low_contrast(seed):
    """Against OpenCV's blur and Sobel filters and a naive flood: smooth and textured tiles, dark
    and bright, with every label; only probable object changes."""
    import cv2

    rng = np.random.default_rng(seed)
    h, w = 48, 64
    tiles = rng.integers(0, 4, (h // 8, w // 8))
    level = rng.integers(5, 250, (h // 8, w // 8, 3))
    noise = rng.normal(0, 1, (h, w, 3)) * np.kron(np.where(tiles == 0, 40, 1.5), np.ones((8, 8)))[..., None]
    small = (np.kron(level, np.ones((8, 8, 1))) + noise).clip(0, 255).astype(np.uint8)
    labels = np.full((h, w), 3, np.uint8)
    labels[:5], labels[:, :4] = 0, 0
    labels[rng.random((h, w)) < 0.05] = 1
    labels[rng.random((h, w)) < 0.05] = 2
    img = cv2.GaussianBlur(small.astype(np.float32), (7, 7), sel_mod.REACH_BLUR)  # 3 sigmas a side
    gx, gy = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    contrast = np.sqrt((gx * gx + gy * gy).sum(axis=2)) / (img.mean(axis=2) + sel_mod.REACH_DARK)
    assert np.allclose(sel_mod._contrast(small), contrast, rtol=1e-5, atol=1e-5)
    got = sel_mod._backdrop_reach(small, labels)
    want = _reach_oracle(small, labels, contrast)
    assert (got == want).all()
    assert ((got == 2) & (labels == 3)).any() and (got == 3).any()  # both outcomes occur


def _body_and_leg(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A dark disc on noisy grass with a one-pixel dark leg running from it: the photo, the disc
    and the leg."""
    rng = np.random.default_rng(seed)
    h, w = 200, 260
    img = np.clip(np.array([70, 150, 60]) + rng.normal(0, 25, (h, w, 3)), 0, 255)
    yy, xx = np.mgrid[:h, :w]
    body = (yy - 70) ** 2 + (xx - 130) ** 2 < 30 ** 2
    leg = np.zeros((h, w), bool)
    t = np.linspace(0, 1, 400)
    leg[(90 + t * 90).astype(int), (130 - t * 60).astype(int)] = True
    leg &= ~body
    img[body | leg] = np.clip(np.array([40, 35, 30]) + rng.normal(0, 8, (int((body | leg).sum()), 3)), 0, 255)
    return img.astype(np.uint8), body, leg


@needs_cv2
@pytest.mark.parametrize("seed", range(3))
def test_a_part_a_pixel_thin_comes_back_where_the_colour_models_call_it_object(seed, monkeypatch):
    """GrabCut's smoothness drops a one-pixel leg; the cut's own colour models, which call it
    object, bring it back where it touches the object.  Nothing outside the lasso joins, and
    little of the grass."""
    img, body, leg = _body_and_leg(seed)
    lasso = np.zeros(body.shape, bool)
    lasso[20:195, 50:190] = True
    got = select_around(img, lasso)
    assert (got & body).sum() == body.sum() and (got & leg).sum() >= 0.95 * leg.sum()
    assert not (got & ~lasso).any() and (got & ~(body | leg)).sum() <= 0.05 * leg.sum()
    monkeypatch.setattr(sel_mod, "THIN_LIKELIER", np.inf)  # the cut alone
    assert (select_around(img, lasso) & leg).sum() <= 0.5 * leg.sum()


def test_the_colour_models_log_likelihood_is_that_of_their_gaussians():
    """OpenCV's model layout read right: against scipy's multivariate normal, component by
    component (weights, then means, then covariances)."""
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(4)
    weights = np.array([0.5, 0.3, 0.2, 0.0, 0.0])
    means = rng.uniform(0, 255, (5, 3))
    covs = []
    for _ in range(5):
        a = rng.normal(0, 10, (3, 3))
        covs.append(a @ a.T + np.eye(3) * 20)
    model = np.concatenate([weights, means.ravel(), np.ravel(covs)])[None, :]
    pixels = rng.uniform(0, 255, (50, 3))
    want = np.log(sum(w * stats.multivariate_normal(m, c + np.eye(3) * 1e-6).pdf(pixels)
                      for w, m, c in zip(weights[:3], means[:3], covs[:3])))
    assert np.allclose(sel_mod._log_likelihood(model, pixels), want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("grabcut", BOTH)
@pytest.mark.parametrize("seed", range(2))
def test_the_selection_lies_inside_the_box_and_the_lasso(grabcut, seed):
    """Whatever the cut decides, nothing outside the gesture is selected, and the result is a
    bool mask of the image's size."""
    img, obj = textured_scene(seed)
    rng = np.random.default_rng(seed)
    x0, y0 = int(rng.integers(0, 80)), int(rng.integers(0, 60))
    box = (x0, y0, x0 + int(rng.integers(40, 140)), y0 + int(rng.integers(40, 110)))
    got = select_box(img, box, grabcut=grabcut)
    inside = np.zeros(obj.shape, bool)
    inside[box[1]:box[3], box[0]:box[2]] = True
    assert got.shape == obj.shape and got.dtype == bool
    assert not (got & ~inside).any()
    lasso = grow(obj, 12) & (np.arange(obj.shape[1]) < 150)[None, :]   # a lasso that cuts through it
    got = select_around(img, lasso, grabcut=grabcut)
    assert not (got & ~lasso).any()


def test_the_colour_model_finds_a_distinct_object_without_opencv():
    img, obj = textured_scene(1)
    assert iou(select_box(img, bounding_box(obj, 12), grabcut=False), obj) >= 0.8
    assert iou(select_around(img, grow(obj, 20), grabcut=False), obj) >= 0.8


def test_without_opencv_a_note_names_the_install_command(monkeypatch):
    monkeypatch.setattr(sel_mod, "grabcut_available", lambda: False)
    note = sel_mod.fallback_note()
    assert "OpenCV" in note and "pip install 'inpaint-cl[select]'" in note
    img, obj = textured_scene(0)
    assert iou(select_box(img, bounding_box(obj, 12)), obj) >= 0.8     # None: the colour model


@pytest.mark.parametrize("box, message", [
    ((-1, 0, 50, 50), "outside"), ((0, 0, 230, 50), "outside"), ((0, 0, 50, 174), "outside"),
    ((0, 0, 229, 173), "whole"), ((10, 10, 11, 40), "too small"), ((1, 2, 3), "four numbers"),
    (("a", 0, 5, 5), "four numbers"), ((0, 0, float("nan"), 5), "finite"),
])
def test_bad_boxes_are_input_errors(box, message):
    img, _ = textured_scene(0)
    with pytest.raises(InputError, match=message):
        select_box(img, box, grabcut=False)


def test_a_box_may_be_given_corner_to_corner_in_any_order():
    img, obj = textured_scene(0)
    x0, y0, x1, y1 = bounding_box(obj, 10)
    np.testing.assert_array_equal(select_box(img, (x1, y1, x0, y0), grabcut=False),
                                  select_box(img, (x0, y0, x1, y1), grabcut=False))


@pytest.mark.parametrize("mask, message", [
    (np.zeros((173, 229), bool), "empty"), (np.ones((173, 229), bool), "whole"),
    (np.ones((172, 229), bool), "229x172 but the image is 229x173"),
    (np.ones((173, 229, 3), bool), r"must be an \(H, W\) array, got shape \(173, 229, 3\)"),
    (np.ones(173 * 229, bool), "got shape"), (np.full((173, 229), np.nan), "NaN"),
])
def test_bad_lassos_are_input_errors(mask, message):
    img, _ = textured_scene(0)
    with pytest.raises(InputError, match=message):
        select_around(img, mask, grabcut=False)


@pytest.mark.parametrize("shape, message", [
    ((1, 40, 3), "40x1 pixels: an object to select needs at least 2 pixels a side"),
    ((40, 1, 4), "1x40 pixels"), ((40, 40), r"\(H, W, 3\) or \(H, W, 4\), got shape \(40, 40\)"),
    ((40, 40, 5), "got shape"),
])
def test_images_of_no_room_or_another_shape_are_input_errors(shape, message):
    img = np.zeros(shape, np.uint8)
    for gesture in (lambda: select_box(img, (0, 0, 1, 1)), lambda: select_around(img, np.ones(shape[:2], bool)),
                    lambda: select_point(img, [(0, 0)])):
        with pytest.raises(InputError, match=message):
            gesture()


@pytest.mark.parametrize("args, message", [
    (([(229, 10)],), "outside"), (([(0, -1)],), "outside"), (([("x", 1)],), "two numbers"),
])
def test_bad_taps_are_input_errors(args, message):
    img, _ = textured_scene(0)
    with pytest.raises(InputError, match=message):
        select_point(img, *args, grabcut=False)
    with pytest.raises(InputError, match="tolerance"):
        select_point(img, [(5, 5)], tolerance=-1, grabcut=False)
    with pytest.raises(InputError, match="selection"):
        select_point(img, [(5, 5)], selection=np.zeros((5, 5), bool), grabcut=False)


@pytest.mark.parametrize("grabcut", BOTH)
def test_a_tap_selects_the_object_and_a_tap_inside_takes_away(grabcut):
    """A tap on the object selects it (and keeps the tapped pixel); a second tap on the
    background adds nothing of the object; a tap inside the selection subtracts its part,
    without touching the caller's array."""
    img, obj = textured_scene(2)
    one = select_point(img, [(120, 100)], grabcut=grabcut)
    assert one[100, 120] and iou(one, obj) >= (0.85 if grabcut else 0.5)
    kept = one.copy()
    less = select_point(img, [(120, 100)], selection=one, grabcut=grabcut)
    np.testing.assert_array_equal(one, kept)
    assert not less[100, 120] and less.sum() < one.sum() and not (less & ~one).any()


def test_a_second_tap_on_another_colour_adds_it():
    """Two parts of clearly different colours: without GrabCut the first tap takes one, the
    second (outside the selection) adds the other."""
    img = np.full((90, 120, 3), 30, np.uint8)
    img[20:70, 20:60] = (200, 40, 40)
    img[20:70, 60:100] = (40, 40, 200)
    first = select_point(img, [(30, 40)], grabcut=False)
    both = select_point(img, [(80, 40)], selection=first, grabcut=False)
    parts = np.zeros(first.shape, bool)
    parts[20:70, 20:100] = True
    assert first[:, 60:].sum() == 0 and first[20:70, 20:60].mean() > 0.99
    assert both[20:70, 60:100].mean() > 0.99 and not (both & ~parts).any()
    np.testing.assert_array_equal(both, select_point(img, [(30, 40), (80, 40)], grabcut=False))


@pytest.mark.parametrize("grabcut", BOTH)
def test_a_tap_on_an_object_of_a_colour_near_the_backdrops_takes_the_object_not_the_photo(grabcut):
    """An object 40 levels darker than its flat backdrop: at the default tolerance (64) the
    tapped colour reaches over the whole photo, so the tolerance is lowered until the region is
    the size of an object."""
    rng = np.random.default_rng(3)
    img = np.full((311, 397, 3), 170.0) + rng.normal(0, 3, (311, 397, 3))
    obj = np.zeros((311, 397), bool)
    obj[140:195, 150:220] = True
    img[obj] -= 40
    img = img.clip(0, 255).astype(np.uint8)
    got = select_point(img, [(185, 167)], grabcut=grabcut)
    assert got[167, 185] and iou(got, obj) >= 0.9


@needs_cv2
def test_a_tap_whose_colour_region_is_a_speck_still_takes_the_whole_object():
    """At a low tolerance the tapped colour covers a few pixels of a noisy object; the cut's box
    is still of an object's size, so GrabCut reaches the object's edge."""
    img, obj = textured_scene(2)
    got = select_point(img, [(120, 100)], tolerance=6)
    assert got[100, 120] and iou(got, obj) >= 0.8
    assert not (got & ~grow(obj, 3)).any()


@needs_cv2
def test_the_same_gesture_gives_the_same_selection():
    img, obj = textured_scene(0)
    box = bounding_box(obj, 9)
    np.testing.assert_array_equal(select_box(img, box), select_box(img, box))


@needs_cv2
def test_a_large_photo_is_cut_reduced_and_answered_at_full_size():
    """A photo far over WORK_PIXELS: the answer is per pixel of the photo and its edge follows the
    object at full resolution (no blocks of the reduction factor along it)."""
    small, obj_small = textured_scene(0)
    f = 7
    img = np.kron(small, np.ones((f, f, 1), np.uint8))
    img[1::2, ::3] = np.clip(img[1::2, ::3].astype(int) + 6, 0, 255).astype(np.uint8)   # fine texture
    box = tuple(v * f for v in bounding_box(obj_small, 10))
    got = select_box(img, box)
    truth = np.kron(obj_small, np.ones((f, f), bool))
    assert got.shape == truth.shape and iou(got, truth) >= 0.9


# ---------------------------------------------------------------------------------------
# The command: inpaint select, and inpaint IMAGE --box / --around
# ---------------------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[1]


def command(*argv, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "inpaint", *map(str, argv)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


@pytest.fixture
def photo(tmp_path):
    img, obj = textured_scene(0)
    path = tmp_path / "photo.png"
    Image.fromarray(img).save(path)
    return path, img, obj


def test_select_writes_a_white_on_black_mask_of_the_images_size_and_never_overwrites(photo):
    path, img, obj = photo
    box = ",".join(str(v) for v in bounding_box(obj, 10))
    proc = command("select", path.name, "--box", box, "-o", "mask.png", cwd=path.parent)
    assert proc.returncode == 0, proc.stderr
    with Image.open(path.parent / "mask.png") as m:
        mask = np.asarray(m)
    assert mask.shape == img.shape[:2] and set(np.unique(mask)) == {0, 255}
    np.testing.assert_array_equal(mask == 255, select_box(img, bounding_box(obj, 10)))
    before = (path.parent / "mask.png").read_bytes()
    again = command("select", path.name, "--point", "120,90", "-o", "mask.png", cwd=path.parent)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "already exists" in again.stderr
    assert (path.parent / "mask.png").read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["mask.png", "photo.png"]   # no temporary file left
    over = command("select", path.name, "--around", "mask.png", "-o", "mask.png", "--overwrite", cwd=path.parent)
    assert over.returncode == 2 and "mask.png" in over.stderr     # the output is an input: refused


@pytest.mark.parametrize("ext, lossy", [("jpg", True), ("webp", False), ("gif", False), ("tif", False)])
def test_select_to_another_format_reads_back_as_the_same_mask_and_says_when_it_is_lossy(photo, run, ext, lossy,
                                                                                      monkeypatch):
    """A mask written as JPEG reads back the same by the mask rule, and the command says its edges
    are grey; WebP is written lossless, GIF and TIFF are, each black and white only."""
    path, img, obj = photo
    monkeypatch.chdir(path.parent)
    box = bounding_box(obj, 10)
    code, out, err = run("select", path, "--box", ",".join(map(str, box)), "-o", path.parent / f"mask.{ext}")
    assert code == 0, err
    assert ("is lossy" in err and "write .png" in err) == lossy, err
    with Image.open(path.parent / f"mask.{ext}") as m:
        grey = np.asarray(m.convert("L"))
    np.testing.assert_array_equal(grey > 127, select_box(img, box))
    assert lossy or set(np.unique(grey)) <= {0, 255}


def test_a_selection_holding_nan_is_refused():
    img, _ = textured_scene(0)
    with pytest.raises(InputError, match="NaN"):
        select_point(img, [(10, 10)], selection=np.full(img.shape[:2], np.nan), grabcut=False)


def test_select_from_a_folder_or_onto_an_input_says_so_in_one_line(photo, run, monkeypatch):
    path, img, obj = photo
    monkeypatch.chdir(path.parent)
    for image in (".", "/"):
        code, out, err = run("select", image, "--box", "1,1,50,50")
        assert code == 2 and err == f"inpaint select: error: image {image} is a folder, not a file\n"
    before = path.read_bytes()
    code, out, err = run("select", path.name, "--box", "1,1,50,50", "-o", "./" + path.name)
    assert code == 2 and err.count("\n") == 1 and "is the input image" in err
    assert "--force" not in err  # the command has no such option
    assert path.read_bytes() == before


@pytest.mark.parametrize("argv, message", [
    (["--box", "0,0,500,20"], "reaches outside"), (["--box", "1,2,3"], "four numbers"),
    (["--point", "5"], "two numbers"), (["--around", "small.png"], "size"),
    (["--box", "1,1,30,30", "--tolerance", "9"], "--tolerance applies to --point"),
])
def test_select_refuses_bad_gestures_in_one_line_and_writes_nothing(photo, run, argv, message, monkeypatch):
    path, img, obj = photo
    monkeypatch.chdir(path.parent)
    Image.fromarray(np.zeros((10, 10), np.uint8)).save(path.parent / "small.png")
    code, out, err = run("select", path, *argv, "-o", path.parent / "out.png")
    assert code == 2 and err.count("\n") == 1 and message in err and err.startswith("inpaint select: error:")
    assert not (path.parent / "out.png").exists()


@pytest.mark.parametrize("gesture", ["box", "around"])
def test_inpaint_with_a_box_or_lasso_removes_the_selection_and_keeps_the_rest_exact(tmp_path, gesture):
    """``inpaint IMAGE --box ...`` selects and removes in one run: the object's pixels change,
    and every pixel outside the selection grown by its rim is the input's, exactly."""
    img, _ = textured_scene(1, size=(71, 93))
    obj_box = bounding_box(_small_object(img.shape), 6)
    img[_small_object(img.shape)] = (210, 70, 50)
    Image.fromarray(img).save(tmp_path / "x.png")
    if gesture == "box":
        argv = ["--box", ",".join(map(str, obj_box))]
        sel = select_box(img, obj_box)
    else:
        lasso = grow(_small_object(img.shape), 8)
        Image.fromarray(np.where(lasso, 255, 0).astype(np.uint8)).save(tmp_path / "rough.png")
        argv = ["--around", "rough.png"]
        sel = select_around(img, lasso)
    from inpaint.cli.select import SELECT_RIM

    proc = command("x.png", *argv, "--backend", "numpy", "-o", "out.png", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with Image.open(tmp_path / "out.png") as res:
        out = np.asarray(res)
    gone = grow(sel, SELECT_RIM)
    assert iou(sel, _small_object(img.shape)) > 0.8
    np.testing.assert_array_equal(out[~gone], img[~gone])
    assert np.abs(out[sel].astype(int) - img[sel]).mean() > 40       # the red object is gone


def _small_object(shape):
    yy, xx = np.mgrid[:shape[0], :shape[1]]
    return ((yy - 35) / 12.0) ** 2 + ((xx - 45) / 15.0) ** 2 <= 1


def test_the_app_extra_brings_opencv_and_every_extra_names_the_same_build():
    """Two OpenCV distributions (opencv-python-headless and the contrib build) both install the
    module cv2 over each other: the extras name one."""
    import re

    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    named = {name: {re.split(r"[<>=~!\[; ]", r)[0] for r in reqs if r.startswith("opencv")}
             for name, reqs in extras.items()}
    assert named["app"], "the app extra brings OpenCV (GrabCut selects with a box, a lasso or a tap)"
    assert len(set().union(*named.values())) == 1, named


def test_select_without_opencv_says_so_and_still_writes_the_mask(photo, run, monkeypatch):
    path, img, obj = photo
    monkeypatch.setattr(sel_mod, "grabcut_available", lambda: False)
    code, out, err = run("select", path, "--box", ",".join(map(str, bounding_box(obj, 10))),
                         "-o", path.parent / "m.png")
    assert code == 0, err
    assert "inpaint select: note: OpenCV is not installed" in err and "pip install 'inpaint-cl[select]'" in err
    with Image.open(path.parent / "m.png") as m:
        assert iou(np.asarray(m) == 255, obj) >= 0.8


# -- a small object in a loose gesture; the library's inputs ----------------------------------

def _red_square(seed=1):
    rng = np.random.default_rng(seed)
    img = (np.full((300, 400, 3), (60, 120, 60), np.uint8) + rng.integers(0, 10, (300, 400, 3), dtype=np.uint8))
    obj = np.zeros((300, 400), bool)
    obj[135:165, 185:215] = True
    img[obj] = (220, 40, 40)
    return img, obj


@pytest.mark.skipif(not grabcut_available(), reason="GrabCut needs OpenCV")
@pytest.mark.parametrize("box", [(150, 100, 250, 200), (100, 70, 300, 230), (60, 40, 340, 260)])
def test_a_small_object_in_a_loose_box_or_lasso_is_the_object_not_the_gestures_middle(box):
    img, obj = _red_square()
    assert iou(select_box(img, box), obj) > 0.95
    x0, y0, x1, y1 = box
    yy, xx = np.mgrid[:300, :400]
    ellipse = ((xx - (x0 + x1) / 2) / ((x1 - x0) / 2)) ** 2 + ((yy - (y0 + y1) / 2) / ((y1 - y0) / 2)) ** 2 <= 1
    assert iou(select_around(img, ellipse), obj) > 0.95


@pytest.mark.parametrize("call, message", [
    (lambda img: select_point(img, [(40, 30)], tolerance=float("inf")), "tolerance must be a finite number"),
    (lambda img: select_point(img, [(40, 30)], tolerance=True), "tolerance must be a finite number"),
    (lambda img: select_point(img, [(float("inf"), 30)]), "a tap is two numbers X,Y"),
    (lambda img: select_point(img, [(True, True)]), "a tap is two numbers X,Y"),
    (lambda img: select_point(img, ["43"]), "a tap is two numbers X,Y"),
    (lambda img: select_point(img, None), "points are taps"),
    (lambda img: select_point(img, 5), "points are taps"),
    (lambda img: select_point(img, [(-0.5, 30)]), r"the tap at -0.5,30 is outside"),
    (lambda img: select_point(img, [(1e300, 30)]), r"the tap at 1e\+300,30 is outside"),
    (lambda img: select_box(img, (20, 10, 60, True)), "a box is four numbers X0,Y0,X1,Y1"),
    (lambda img: select_box(img, "2105"), "a box is four numbers X0,Y0,X1,Y1"),
    (lambda img: select_box(img, (20, 10, 60, 50), grabcut="no"), "grabcut must be True, False or None"),
])
def test_the_gestures_refuse_what_is_not_numbers_of_the_image(call, message):
    img = np.full((60, 80, 3), 40, np.uint8)
    img[20:40, 30:50] = 220
    with pytest.raises(InputError, match=message):
        call(img)


def test_a_tap_takes_the_pixel_whose_square_holds_it():
    img = np.full((60, 80, 3), 40, np.uint8)
    img[20:40, 70:] = 220                              # an object on the right edge
    got = select_point(img, [(79.5, 30)], grabcut=False)   # the last column's square: inside the image
    assert got[30, 79] and got[22:38, 72:].all() and not got[:, :70].any() and not got[:20].any()


@pytest.mark.parametrize("seed_yx, kw, message", [
    ((float("nan"), 40), {}, "the tapped pixel is two numbers"), ((30, 40, 1), {}, "the tapped pixel is two numbers"),
    ((True, True), {}, "the tapped pixel is two numbers"), ((30, 40), {"work_side": 0}, "work_side must be"),
    ((30, 40), {"work_side": True}, "work_side must be"), ((30, 40), {"grabcut": "no"}, "grabcut must be"),
])
def test_a_taps_object_refuses_what_is_not_a_pixel(seed_yx, kw, message):
    from inpaint.tapselect import select_object

    with pytest.raises(InputError, match=message):
        select_object(np.zeros((60, 80, 3), np.uint8), seed_yx, 48, **kw)


# -- the commands' gestures ----------------------------------------------------------------------

def test_select_takes_standard_input_and_output_and_a_folder(photo, tmp_path):
    path, img, obj = photo
    box = ",".join(map(str, bounding_box(obj, 10)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    piped = subprocess.run([sys.executable, "-m", "inpaint", "select", "-", "--box", box],
                           input=path.read_bytes(), capture_output=True, env=env, timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout[:8] == b"\x89PNG\r\n\x1a\n" and b"-> standard output" in piped.stderr
    assert command("select", path.name, "--box", box, "-o", "out/", cwd=path.parent).returncode == 0
    assert (path.parent / "out" / "photo_mask.png").read_bytes() == piped.stdout
    refused = command("select", "-", "--box", box, "-o", "out/", cwd=path.parent)
    assert refused.returncode == 2 and "standard input has no name for its mask" in refused.stderr


@pytest.mark.parametrize("argv, said", [
    (["select", "photo.png", "--box", "-5,10,50,50"], "the box -5,10,50,50 reaches outside"),
    (["select", "photo.png", "--point", "-0.4,45"], "the tap at -0.4,45 is outside"),
    (["photo.png", "--box", "-5,10,50,50"], "the box -5,10,50,50 reaches outside"),
    (["select", "photo.png", "--box", ""], "--box is empty: give four numbers"),
    (["photo.png", "--box", ""], "--box is empty: give four numbers"),
    (["photo.png", "--around", ""], "--around names no file"),
    (["photo.png", "--box", "1,1,50,50", "--around", "photo.png"], "give one of --box X0,Y0,X1,Y1 or --around"),
    (["photo.png", "--box", "1,1,50,50", "--mask", "photo.png"], "--box selects the object instead of a mask"),
    (["photo.png", "photo.png", "--box", "1,1,50,50"], "not of a batch"),
])
def test_gesture_errors_name_what_each_command_takes(photo, run, monkeypatch, argv, said):
    path, _, _ = photo
    monkeypatch.chdir(path.parent)
    code, out, err = run(*argv)
    assert code == 2 and said in err and "--point" not in err.replace(said, ""), err
    assert "usage:" not in err and sorted(p.name for p in path.parent.iterdir()) == ["photo.png"]


def test_a_tap_on_the_backdrop_that_takes_the_whole_photo_is_refused(tmp_path, run):
    img, _ = _red_square()
    Image.fromarray(img).save(tmp_path / "p.png")
    code, _, err = run("select", tmp_path / "p.png", "--point", "20,20", "-o", tmp_path / "m.png")
    assert code == 2 and "the taps select (nearly) the whole image" in err and not (tmp_path / "m.png").exists()
