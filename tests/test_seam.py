"""Seam carving: numpy reference rules, OpenCL == numpy exactly, API and CLI."""

from __future__ import annotations

import re

import numpy as np
import pytest

from inpaint.resources import data_dir
from inpaint.seam import api, reference as ref, resize

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _img(rng, h, w, c=3):
    return rng.integers(0, 256, (h, w, c), dtype=np.uint8)


# -- tier 1: tiny hand-checked arrays ---------------------------------------------------
def test_energy_prewitt_by_hand():
    px = ref.pack(np.array([[[0, 0, 0], [9, 0, 0], [9, 0, 0]]], dtype=np.uint8))
    assert ref.energy(px).tolist() == [[27, 27, 0]]


def test_energy_masks():
    px = ref.pack(np.zeros((3, 3, 3), np.uint8))
    mask = np.array([[0, 1, 2]] * 3, np.uint8)
    e = ref.energy(px, mask, drop=100)
    assert e[:, 1].tolist() == [ref.INF] * 3 and e[:, 2].tolist() == [-100] * 3 and e[:, 0].tolist() == [0] * 3


def _seams_for(e):
    e = np.asarray(e, np.int32)
    px = np.zeros(e.shape, np.uint32)
    m = ref.cumulative_cost(px, e)
    return m, ref.find_seams(px, m)


def test_tie_centre_beats_right_and_smallest_last_column():
    m, seams = _seams_for([[2, 1, 1], [0, 0, 0]])
    assert m.tolist() == [[2, 1, 1], [1, 1, 1]]
    assert seams.tolist() == [[1, 0]]  # last row: column 0; its parents: centre 2 > right 1


def test_tie_left_beats_centre():
    m, seams = _seams_for([[2, 1, 1], [5, 5, 0]])
    assert m[1].tolist() == [6, 6, 1]
    assert seams.tolist() == [[1, 2]]  # parents of column 2: left 1 == centre 1, left wins


def test_strips_confine_seams():
    assert ref.strip_starts(10, 3).tolist() == [0, 3, 6]
    e = np.zeros((4, 6), np.int32)
    e[:, 2] = 50
    e[:, 3] = 50
    e[1, 1] = 9
    px = np.zeros(e.shape, np.uint32)
    seams = ref.find_seams(px, ref.cumulative_cost(px, e, strips=2), strips=2)
    assert np.all(seams[0] < 3) and np.all(seams[1] >= 3)


def test_insert_mean_rounds_up_per_byte():
    a, b = 0x00000000, 0x01FF0203
    out = ref.insert_seams(np.array([[a, b]], np.uint32), np.array([[True, False]]))
    assert out.tolist() == [[a, 0x01800102, b]]


def test_protected_path_is_inf():
    e = np.zeros((3, 3), np.int32)
    e[1, :] = ref.INF
    m, seams = _seams_for(e)
    assert m[2].tolist() == [ref.INF] * 3 and seams.tolist() == [[-1, -1, -1]]


# -- tier 2: OpenCL == numpy exactly -----------------------------------------------------
@pytest.fixture
def use_dp(monkeypatch, runtime):
    """Force the OpenCL carver onto the test runtime with a chosen cost-table strategy."""
    from inpaint.seam.opencl import OpenCLCarver

    def make(mode, dp):
        carver = OpenCLCarver(runtime, mode, dp=dp.split("-")[0])
        if dp.endswith("-gpu"):  # the GPU work-group shapes, exercised on the CPU device
            carver.cpu = False
            carver.remove_wg, carver.update_wg, carver.walk_wg = 64, 32, 64
            carver.reduce_wg = 128
            carver.tile_t, carver.tile_w = 4, 8     # many row strips, a short last one
        elif dp.endswith("-odd"):
            carver.tile_t, carver.tile_w = 3, 5     # strips not a power of two, halo wider than the centre
        return carver

    def force(dp):
        monkeypatch.setattr(api, "_opencl_carver", lambda rt, mode: make(mode, dp))
    return force


SLOW = pytest.mark.slow  # each strategy, energy and batch mode stays in the default selection once

CASES = [  # (h, w, target w, target h, energy, dp, batch)
    (13, 11, 8, 13, "backward", "auto", None),
    (37, 53, 40, 37, "backward", "rows", None),
    (37, 53, 40, 37, "backward", "update", None),
    (29, 41, 30, 29, "backward", "walk", None),
    (29, 41, 30, 29, "backward", "tiled", None),
    (31, 23, 23, 25, "forward", "auto", None),
    pytest.param(31, 23, 19, 31, "forward", "update", None, marks=SLOW),
    (31, 23, 19, 31, "forward", "tiled", None),
    (41, 67, 45, 41, "backward", "auto", 6),
    pytest.param(41, 67, 45, 35, "forward", "auto", 4, marks=SLOW),
    (19, 25, 37, 23, "backward", "auto", None),   # enlarge width, shrink height
    (37, 53, 40, 33, "backward", "update-gpu", None),  # GPU group shapes (chunked removal, parallel update)
    (37, 53, 40, 37, "forward", "walk-gpu", None),
    (41, 67, 45, 41, "backward", "tiled-gpu", 6),
    pytest.param(41, 67, 45, 41, "backward", "tiled-gpu", None, marks=SLOW),
    (38, 29, 20, 38, "forward", "tiled-gpu", None),
    (38, 29, 20, 31, "forward", "tiled-odd", 3),
    pytest.param(50, 31, 22, 50, "backward", "tiled-odd", None, marks=SLOW),
]


@pytest.mark.parametrize("h, w, tw, th, energy, dp, batch", CASES)
def test_opencl_equals_numpy(h, w, tw, th, energy, dp, batch, use_dp):
    use_dp(dp)
    img = _img(np.random.default_rng(h * 1000 + w), h, w)
    a, sa = resize(img, tw, th, energy=energy, batch=batch, backend="numpy", return_seams=True)
    b, sb = resize(img, tw, th, energy=energy, batch=batch, backend="opencl", return_seams=True)
    assert a.shape == (th, tw, 3)
    np.testing.assert_array_equal(sa, sb)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dp", ["rows", "update", "update-gpu", "tiled-gpu", "tiled-odd"])
def test_opencl_equals_numpy_with_masks(dp, use_dp):
    use_dp(dp)
    rng = np.random.default_rng(7)
    img = _img(rng, 27, 45)
    keep = np.zeros((27, 45), bool)
    keep[5:20, 30:36] = True
    drop = np.zeros((27, 45), bool)
    drop[8:14, 10:13] = True
    kw = dict(keep_mask=keep, drop_mask=drop, return_seams=True)
    a, sa = resize(img, 40, 27, backend="numpy", **kw)
    b, sb = resize(img, 40, 27, backend="opencl", **kw)
    np.testing.assert_array_equal(sa, sb)
    np.testing.assert_array_equal(a, b)


# -- tier 2: invariants ------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "opencl"])
def test_protected_pixels_survive_exactly(backend, runtime):
    rng = np.random.default_rng(3)
    img = _img(rng, 23, 39)
    keep = np.zeros((23, 39), bool)
    keep[4:19, 10:16] = True
    out, seams = resize(img, 22, 23, keep_mask=keep, backend=backend, device=runtime.device, return_seams=True)
    assert out.shape == (23, 22, 3)
    assert not np.any(seams[keep])
    removed = seams > 0
    assert np.all(removed.sum(axis=1) == 17)
    expected = img[~removed].reshape(23, 22, 3)  # vertical seams: rows keep their order
    np.testing.assert_array_equal(out, expected)
    kept_cols = np.cumsum(~removed, axis=1) - 1
    r, c = np.nonzero(keep)
    np.testing.assert_array_equal(out[r, kept_cols[r, c]], img[r, c])


def test_drop_mask_removes_the_object(runtime):
    rng = np.random.default_rng(5)
    img = _img(rng, 25, 40) // 2  # no channel reaches 255
    drop = np.zeros((25, 40), bool)
    drop[6:18, 20:26] = True
    img[drop] = (255, 0, 255)
    out = resize(img, drop_mask=drop, restore=False, device=runtime.device)
    assert out.shape[0] == 25 and out.shape[1] <= 40 - 6
    assert not np.any(np.all(out == (255, 0, 255), axis=-1))
    restored = resize(img, drop_mask=drop, device=runtime.device)
    assert restored.shape == img.shape
    assert not np.any(np.all(restored == (255, 0, 255), axis=-1))


@pytest.mark.parametrize("backend", ["numpy", "opencl"])
def test_carving_an_object_out_reports_progress_seam_by_seam_and_can_be_stopped(backend, runtime):
    from inpaint import cancel

    rng = np.random.default_rng(5)
    img = _img(rng, 25, 40) // 2
    drop = np.zeros((25, 40), bool)
    drop[6:18, 20:26] = True
    calls = []
    out = resize(img, drop_mask=drop, backend=backend, device=runtime.device,
                 progress=lambda done, total: calls.append((done, total)))
    assert out.shape == img.shape
    object_part = [c for c in calls if c[1] == 12]   # the object's 6 columns, and 6 to put back: the whole job
    assert [d for d, _ in object_part][:4] == [0, 1, 2, 3], calls
    fractions = [d / t for d, t in calls]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0  # the total is the whole job's from the start
    token = cancel.Token()

    def stop(done, total):
        if done >= 2:
            token.cancel()

    with cancel.scope(token), pytest.raises(cancel.Cancelled):
        resize(img, drop_mask=drop, backend=backend, device=runtime.device, progress=stop)


@pytest.mark.parametrize("backend", ["numpy", "opencl"])
def test_enlarge_keeps_every_pixel(backend, runtime):
    rng = np.random.default_rng(11)
    img = _img(rng, 17, 21, 4)
    out, seams = resize(img, 31, 17, backend=backend, device=runtime.device, return_seams=True)
    assert out.shape == (17, 31, 4)  # one step: at most 50 % (10 seams) at once
    dup = seams < 0
    assert np.all(dup.sum(axis=1) == 10)
    pos = np.arange(21)[None, :] + np.cumsum(dup, axis=1) - dup
    rows = np.arange(17)[:, None]
    np.testing.assert_array_equal(out[rows, pos], img)


@pytest.mark.parametrize("batch", [None, 3])
def test_enlarging_past_the_seams_a_protect_mask_leaves_takes_more_steps(batch, runtime):
    # 12 columns are free of the protected band: 14 seams come in steps, and none crosses it.
    rng = np.random.default_rng(12)
    img = _img(rng, 18, 24)
    keep = np.zeros((18, 24), bool)
    keep[2:16, 3:15] = True
    keep[2:16, 16:21] = True
    outs = []
    for backend in ("numpy", "opencl"):
        out, seams = resize(img, height=32, keep_mask=keep, batch=batch, backend=backend, device=runtime.device,
                            return_seams=True)
        assert out.shape == (32, 24, 3)
        assert not np.any(seams[keep] < 0)  # no protected pixel was duplicated
        outs.append(out)
    np.testing.assert_array_equal(*outs)
    with pytest.raises(ValueError, match="every seam crosses a protected pixel, so none can be duplicated"):
        resize(img, height=20, keep_mask=np.ones((18, 24), bool), backend="numpy")


@pytest.mark.parametrize("tw, th, order", [(10, 20, "width-first"), (30, 12, "height-first"), (33, 31, "width-first")])
def test_output_sizes(tw, th, order, runtime):
    img = _img(np.random.default_rng(2), 21, 19)
    assert resize(img, tw, th, order=order, device=runtime.device).shape == (th, tw, 3)
    assert resize(img[..., 0], tw, th, order=order, backend="numpy").shape == (th, tw)


def test_batch_mode_size_and_differs_little(runtime):
    img = _img(np.random.default_rng(4), 40, 90)
    out = resize(img, 60, 40, batch=8, device=runtime.device)
    assert out.shape == (40, 60, 3)


# -- bad input ---------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    (dict(energy="gradient"), "energy must be one of 'backward', 'forward'"),
    (dict(order="sideways"), "order must be one of"),
    (dict(backend="cuda"), "backend must be one of 'auto', 'opencl', 'numpy'"),
    (dict(width=0), "width must be a positive integer"),
    (dict(height=-3), "height must be a positive integer"),
    (dict(width=100), "more than twice"),
    (dict(keep_mask=np.zeros((3, 3), bool)), "keep_mask is 3x3 but the image is"),
    (dict(batch=0), "batch must be"),
])
def test_bad_options(kwargs, message):
    img = np.zeros((10, 12, 3), np.uint8)
    with pytest.raises(ValueError, match=re.escape(message)):
        resize(img, **{"backend": "numpy", **kwargs})


def test_too_small_and_impossible_protect():
    with pytest.raises(ValueError, match="3x3 filter"):
        resize(np.zeros((2, 9, 3), np.uint8), 5, 2, backend="numpy")
    keep = np.zeros((10, 12), bool)
    keep[3, 1:11] = True
    with pytest.raises(ValueError, match="keep_mask makes width 6 impossible"):
        resize(np.zeros((10, 12, 3), np.uint8), 6, 10, keep_mask=keep, backend="numpy")


@pytest.mark.parametrize("backend", ["numpy", "opencl"])
def test_protect_blocking_every_seam_is_reported(backend, runtime):
    keep = np.zeros((10, 12), bool)  # row 0 forces a seam right of 6, row 1 left of 6: no path
    keep[0, 0:7] = True
    keep[1, 6:12] = True
    img = _img(np.random.default_rng(1), 10, 12)
    with pytest.raises(ValueError, match="every remaining seam crosses"):
        resize(img, 11, 10, keep_mask=keep, backend=backend, device=runtime.device)


@pytest.mark.parametrize("dp", ["auto", "tiled-gpu"])
def test_batch_pass_with_a_blocked_strip_still_reaches_the_target(dp, use_dp):
    """A strip whose every path crosses the protect mask removes nothing in that pass; the
    other strips go on, and the target is reached (this used to be reported as a failure)."""
    use_dp(dp)
    img = _img(np.random.default_rng(5), 20, 40)
    keep = np.zeros((20, 40), bool)
    keep[:, 10:20] = True                       # the second of 4 strips, wall to wall
    a, sa = resize(img, 32, 20, keep_mask=keep, batch=4, backend="numpy", return_seams=True)
    b, sb = resize(img, 32, 20, keep_mask=keep, batch=4, backend="opencl", return_seams=True)
    assert b.shape == (20, 32, 3) and not np.any(sb[keep])
    np.testing.assert_array_equal(sa, sb)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dp", ["tiled-gpu", "tiled-odd"])
@pytest.mark.parametrize("batch", [None, 3])
def test_protect_blocking_every_seam_is_reported_tiled(dp, batch, use_dp):
    use_dp(dp)
    keep = np.zeros((17, 12), bool)  # rows 9 and 10 leave no path
    keep[9, 0:7] = True
    keep[10, 6:12] = True
    img = _img(np.random.default_rng(1), 17, 12)
    for backend in ("numpy", "opencl"):
        with pytest.raises(ValueError, match="every remaining seam crosses"):
            resize(img, 11, 17, keep_mask=keep, batch=batch, backend=backend)


def test_every_wrapper_kernel_exists():
    src = "".join((data_dir("kernels") / "seam" / f"{n}.cl").read_text()
                  for n in ("energy", "cost", "remove", "insert"))
    for name in ("energy_full", "energy_update", "cost_rows", "cost_walk", "cost_tiled", "cost_update",
                 "argmin_backtrack", "remove_seams", "insert_seams"):
        assert re.search(rf"void\s+{name}\s*\(", src), name
    for n in ("energy", "cost", "remove", "insert"):
        assert (data_dir("kernels") / "seam" / f"{n}.cl").read_text().startswith("#pragma OPENCL FP_CONTRACT OFF")


# -- CLI ---------------------------------------------------------------------------------
def _cli(*argv):
    from inpaint import cli

    return cli.main(["resize", *map(str, argv)])


@pytest.fixture
def files(tmp_path):
    from PIL import Image

    rng = np.random.default_rng(9)
    img = tmp_path / "in.png"
    Image.fromarray(_img(rng, 20, 30)).save(img)
    small = tmp_path / "mask_small.png"
    Image.fromarray(np.zeros((5, 5), np.uint8)).save(small)
    wall = np.zeros((20, 30), np.uint8)
    wall[:, 3:27] = 255
    wallp = tmp_path / "wall.png"
    Image.fromarray(wall).save(wallp)
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not a png")
    return tmp_path, {p.name: p.read_bytes() for p in tmp_path.iterdir()}


@pytest.mark.parametrize("argv, message", [
    (["in.png", "--width", "0"], "--width must be a positive integer"),
    (["in.png", "--width", "61"], "more than twice"),
    (["in.png", "--size", "61x20!"], "--size 61x20! makes the width 61, which is more than twice the input's 30"),
    (["in.png", "--width", "20", "--protect", "mask_small.png"], "is 5x5"),
    (["in.png", "--width", "20", "--protect", "wall.png"], "the --protect mask makes width 20 impossible"),
    (["junk.png", "--width", "20"], "not an image"),
    (["missing.png", "--width", "20"], "does not exist"),
    (["in.png", "--width", "20", "-o", "in.png"], "is the input image; refusing to overwrite it"),
    (["in.png", "--width", "20", "--energy", "forward", "-o", "out.xyz"], "cannot write .xyz files"),
])
def test_cli_bad_input_touches_nothing(argv, message, files, capsys, monkeypatch):
    folder, before = files
    monkeypatch.chdir(folder)
    assert _cli(*argv, "--backend", "numpy") == 2
    assert message in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_cli_writes_output_and_seams(files, monkeypatch, runtime):
    from PIL import Image

    folder, before = files
    monkeypatch.chdir(folder)
    assert _cli("in.png", "--width", "24", "--height", "18", "-o", "out.png", "--save-seams", "seams.png",
                "--batch", "3", "--quiet") == 0
    with Image.open(folder / "out.png") as out, Image.open(folder / "seams.png") as seams:
        assert out.size == (24, 18) and seams.size == (30, 20)
    assert (folder / "in.png").read_bytes() == before["in.png"]
    assert not [p for p in folder.iterdir() if p.name.startswith(".resize-")]


def test_local_memory_fits_the_limits(runtime):
    from inpaint.seam.opencl import OpenCLCarver

    carver = OpenCLCarver(runtime)
    knl = carver._kernels(has_mask=True, track=True, shift_cost=True)
    for name in ("energy_full", "tiled", "tiled_batch", "argmin", "strips", "strips_batch"):
        info = runtime.work_group_info(knl[name])
        assert info["local_mem_size"] <= runtime.limits.local_mem_size, name
    assert (carver.tile + 2) ** 2 * 4 <= runtime.limits.local_mem_size


@pytest.mark.parametrize("backend", ["numpy", "opencl"])
@pytest.mark.parametrize("tw, th", [(24, 17), (37, 20), (30, 26)])
def test_source_map_rebuilds_the_result(backend, tw, th, runtime):
    """``return_source``: every output pixel is the input pixel the map names (inserted seams
    blend that pixel with its neighbour), so the command can rebuild any bit depth from it."""
    img = _img(np.random.default_rng(4), 20, 30)
    out, seams, source = resize(img, tw, th, backend=backend, return_seams=True, return_source=True)
    assert source.shape == (th, tw, 2) and source.dtype == np.int32
    copied = img[source[..., 0], source[..., 1]]
    if tw <= 30 and th <= 20:  # only removals: exact copies
        np.testing.assert_array_equal(copied, out)
    else:
        assert (copied == out).all(axis=-1).mean() > 0.5
    np.testing.assert_array_equal(resize(img, tw, th, backend=backend), out)  # same result without tracking


@pytest.mark.parametrize("backend", ["numpy", "opencl"])
@pytest.mark.parametrize("channels", [0, 3, 4])
@pytest.mark.parametrize("tw, th, order, remove", [
    (52, 20, "width-first", False),   # two enlarging steps of the width
    (45, 38, "height-first", False),  # both ways: the height's means take the width's
    (22, 37, "width-first", False),   # a shrink, then an enlargement
    (47, 31, "width-first", True),    # an object carved out, then both enlarged
])
def test_blends_make_the_result_again(backend, channels, tw, th, order, remove, runtime):
    """``return_blends``: made again from the input's own pixels, the copies and the rounded-up
    means give the carver's result exactly (the oracle: the carver's 8-bit output), alpha too."""
    rng = np.random.default_rng(tw * th)
    img = _img(rng, 20, 30, max(channels, 3))
    img = img[..., 0] if channels == 0 else img
    drop = None
    if remove:
        drop = np.zeros((20, 30), bool)
        drop[5:12, 8:14] = True
    out, source, blends = resize(img, tw, th, order=order, drop_mask=drop, backend=backend,
                                 device=runtime.device, return_source=True, return_blends=True)
    assert isinstance(blends, api.Blends) and blends.origin.shape == (th, tw)
    np.testing.assert_array_equal(blends.apply(img), out)
    assert (blends.pairs < blends.size + np.arange(len(blends.pairs))[:, None]).all()  # made before
    np.testing.assert_array_equal(resize(img, tw, th, order=order, drop_mask=drop, backend=backend,
                                         device=runtime.device), out)  # the same without tracking


def test_blends_at_full_depth_are_means_of_neighbours():
    """A 16-bit picture enlarged through the blends: the inserted pixel is the mean of its two
    neighbours at full depth (not the 8-bit mean's change scaled up); floats exactly."""
    img = np.tile(np.array([1000, 1020, 1040, 1060, 1080], np.uint16), (5, 1))
    keep = np.ones((5, 5), bool)
    keep[:, 1] = False  # only the second column can be duplicated
    out, blends = resize((img >> 8).astype(np.uint8), 6, 5, keep_mask=keep, backend="numpy", return_blends=True)
    assert blends.apply(img)[0].tolist() == [1000, 1020, 1030, 1040, 1060, 1080]
    assert blends.apply(img.astype(np.float32) / 7)[0, 2] == np.float32((1020 / 7 + 1040 / 7) / 2)
    with pytest.raises(ValueError, match="not the input's 25 pixels"):
        blends.apply(np.zeros((4, 5)))


def test_cli_enlarges_16_bit_and_alpha_at_full_depth(tmp_path, monkeypatch):
    """The command's inserted pixels at full depth: a 16-bit grey one is the mean of its
    neighbours; an RGBA one takes the mean alpha, as the library's result does."""
    from PIL import Image

    monkeypatch.chdir(tmp_path)
    rows = np.tile(np.array([1000, 1020, 1040, 1060], np.uint16), (4, 1))
    Image.fromarray(rows).save("g16.png")
    keep = np.full((4, 4), 255, np.uint8)
    keep[:, 1] = 0
    Image.fromarray(keep).save("keep.png")
    assert _cli("g16.png", "--width", "5", "--protect", "keep.png", "-o", "g16_out.png", "-q",
                "--backend", "numpy") == 0
    with Image.open("g16_out.png") as im:
        assert np.asarray(im)[0].tolist() == [1000, 1020, 1030, 1040, 1060]
    rgba = np.zeros((8, 8, 4), np.uint8)
    rgba[:, :4] = (255, 0, 0, 255)
    rgba[:, 4:] = (0, 0, 255, 0)
    Image.fromarray(rgba).save("ra.png")
    keep = np.full((8, 8), 255, np.uint8)
    keep[:, 3] = 0
    Image.fromarray(keep).save("keep8.png")
    assert _cli("ra.png", "--width", "9", "--protect", "keep8.png", "-o", "ra9.png", "-q", "--backend", "numpy") == 0
    expected = resize(rgba, 9, 8, keep_mask=keep > 127, backend="numpy")
    with Image.open("ra9.png") as im:
        np.testing.assert_array_equal(np.asarray(im), expected)
    assert expected[0, 4].tolist() == [128, 0, 128, 128]


def test_an_object_the_protect_mask_blocks_one_way_is_carved_the_other():
    """The object's direction is the one of fewer seams; where protected pixels block every seam
    that way, the other way removes it."""
    img = np.random.default_rng(0).integers(0, 256, (48, 64, 3), dtype=np.uint8)
    keep = np.zeros((48, 64), bool)
    keep[1:, 45] = True  # a protected line from the second row down: no vertical seam passes it
    drop = np.zeros((48, 64), bool)
    drop[20:29, 50:60] = True  # 9 rows x 10 columns right of it: 9 horizontal seams, which the line blocks
    out, seams = resize(img, keep_mask=keep, drop_mask=drop, backend="numpy", return_seams=True)
    assert out.shape == img.shape
    assert (seams[drop] > 0).all() and not (seams[keep] > 0).any()


def test_cli_mask_errors_come_alone(tmp_path, monkeypatch, capsys):
    """A bad mask is the one line said: no note about the output comes first; a mask of the
    size turned sideways on a photo without an EXIF rotation is not blamed on one."""
    from PIL import Image

    monkeypatch.chdir(tmp_path)
    Image.fromarray(np.zeros((48, 64, 4), np.uint8)).save("rgba.png")
    Image.fromarray(np.zeros((64, 48), np.uint8)).save("turned.png")
    assert _cli("rgba.png", "--width", "40", "--protect", "turned.png", "-o", "out.jpg", "--backend", "numpy") == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "turned sideways; rotate it to match" in err and "EXIF" not in err
    assert _cli("rgba.png", "--width", "40", "--no-restore", "-o", "out.png", "--backend", "numpy") == 2
    assert "--no-restore applies to the --remove mask" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rgba.png", "turned.png"]


def test_cli_resize_states_the_new_size_in_the_exif(tmp_path, monkeypatch):
    """A resized photo's EXIF gives its new width and height (PixelXDimension, PixelYDimension),
    where the input's stated them; read back by Pillow from the file."""
    from PIL import Image

    monkeypatch.chdir(tmp_path)
    exif = Image.Exif()
    exif[0x0112] = 6  # stored 64x48, shown 48x64
    exif.get_ifd(0x8769).update({0xA002: 64, 0xA003: 48})
    Image.fromarray(_img(np.random.default_rng(1), 48, 64)).save("px.jpg", exif=exif, quality=95)
    assert _cli("px.jpg", "--width", "40", "-o", "out.png", "-q", "--backend", "numpy") == 0
    with Image.open("out.png") as im:
        dims = im.getexif().get_ifd(0x8769)
        assert im.size == (40, 64) and (dims[0xA002], dims[0xA003]) == (40, 64)


def test_the_opencl_carver_checks_the_room_for_all_its_buffers_first(runtime, monkeypatch):
    """Each buffer alone may fit an address-space limit where all of them do not, and a CPU
    driver takes their memory only when it first runs them (PoCL then aborts the process): the
    carver asks for the room of the whole pass before its first buffer."""
    from inpaint.seam import opencl as scl

    asked = []
    real = scl.check_room
    monkeypatch.setattr(scl, "check_room", lambda ctx, nbytes: (asked.append(nbytes), real(ctx, nbytes)))
    img = _img(np.random.default_rng(2), 20, 30)
    resize(img, 25, 20, backend="opencl", device=runtime.device, return_source=True)
    assert asked and asked[0] >= 20 * 30 * (3 * 4 + 8 + 4)  # image, energy, cost, the index maps, the seams
