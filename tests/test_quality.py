"""``inpaint bench --quality`` (bench/inpaint_bench): metrics, truth set, configurations, peers, one run."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest
from PIL import Image

from inpaint.cli import main
from inpaint_bench import metrics, peers, quality


def _scene(h: int = 40, w: int = 48, seed: int = 5) -> np.ndarray:
    """A textured RGB picture with values in 20..235 (room for an offset either way)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.stack([(xx * 9) % 200, (yy * 7) % 200, ((xx + 2 * yy) * 5) % 200], -1)
    return (20 + (base + rng.integers(0, 16, base.shape)) % 216).astype(np.uint8)


def _hole(h: int = 40, w: int = 48) -> np.ndarray:
    mask = np.zeros((h, w), bool)
    mask[14:26, 18:32] = True
    return mask


# --- metrics ---------------------------------------------------------------------------------------
def test_psnr_identical_is_capped_and_a_constant_offset_gives_its_value():
    truth, mask = _scene(), _hole()
    assert metrics.hole_psnr(truth, truth, mask) == metrics.PSNR_CAP
    res = truth.astype(np.int16)
    res[mask] += 10  # MSE 100 over the hole
    res[~mask] = 0  # pixels outside the hole do not count
    want = 10 * math.log10(255 ** 2 / 100)  # 28.13 dB
    assert metrics.hole_psnr(res.astype(np.uint8), truth, mask) == pytest.approx(want, abs=1e-9)


def test_ssim_of_identical_images_is_one_and_of_constants_is_known():
    truth, mask = _scene(), _hole()
    assert metrics.hole_ssim(truth, truth, mask) == pytest.approx(1.0)
    # Flat images: the variances vanish, SSIM = (2ab + C1) / (a² + b² + C1) with C1 = (0.01 * 255)².
    a, b = np.full((20, 20, 3), 100, np.uint8), np.full((20, 20, 3), 140, np.uint8)
    c1 = (0.01 * 255) ** 2
    want = (2 * 100 * 140 + c1) / (100 ** 2 + 140 ** 2 + c1)
    assert metrics.ssim_numpy(a, b) == pytest.approx(want, rel=1e-12)
    assert metrics.ssim(a, b) == pytest.approx(want, rel=1e-9)
    blurred = truth.copy()
    blurred[mask] = truth[mask].mean(axis=0).astype(np.uint8)
    assert metrics.hole_ssim(blurred, truth, mask) < 0.9


def test_ssim_box_is_the_hole_grown_by_8_clipped_and_never_thinner_than_the_window():
    mask = np.zeros((50, 60), bool)
    mask[20:25, 30:41] = True
    assert metrics.ssim_box(mask) == (22, 12, 49, 33)
    mask[:] = False
    mask[0:2, 50:60] = True  # a 2-pixel strip on the top-right corner
    assert metrics.ssim_box(mask) == (42, 0, 60, 11)  # grown 8 px to 10 rows, widened to the 11-pixel window


def test_numpy_ssim_matches_scikit_image():
    sm = pytest.importorskip("skimage.metrics")
    rng = np.random.default_rng(11)
    a = _scene(23, 31, seed=1)
    b = np.clip(a.astype(int) + rng.integers(-40, 40, a.shape), 0, 255).astype(np.uint8)
    for x, y, axis in ((a, b, -1), (a[..., 0], b[..., 1], None)):
        want = sm.structural_similarity(x, y, gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
                                        channel_axis=axis, data_range=255)
        assert metrics.ssim_numpy(x, y) == pytest.approx(want, abs=1e-12)


def test_ssim_without_scikit_image_is_the_numpy_one(monkeypatch):
    a, b = _scene(seed=1), _scene(seed=2)
    monkeypatch.setitem(sys.modules, "skimage.metrics", None)
    assert metrics.ssim(a, b) == metrics.ssim_numpy(a, b)


def test_detail_ratio():
    truth, mask = _scene(), _hole()
    assert metrics.detail_ratio(truth, truth, mask) == pytest.approx(1.0)
    flat = truth.copy()
    flat[mask] = 128
    assert metrics.detail_ratio(flat, truth, mask) == 0.0  # the eroded hole sees only the flat fill
    mean = truth[mask].mean(axis=0)
    half = truth.astype(np.float64)
    half[mask] = mean + (half[mask] - mean) / 2  # half the contrast: half the gradients
    assert metrics.detail_ratio(np.rint(half).astype(np.uint8), truth, mask) == pytest.approx(0.5, abs=0.03)
    # The region: the hole eroded by 2 px, or the whole hole where that leaves fewer than 10 pixels.
    assert metrics.detail_region(mask).sum() == (12 - 4) * (14 - 4)
    thin = np.zeros_like(mask)
    thin[10:13, 5:40] = True
    assert np.array_equal(metrics.detail_region(thin), thin)


def test_swd_of_identical_images_is_zero_and_of_a_changed_hole_is_not():
    truth, mask = _scene(), _hole()
    assert metrics.swd(truth, truth, mask) == 0.0
    other = truth.copy()
    other[~mask] = 0  # pixels far from the hole do not count ...
    assert metrics.swd(other, truth, mask) == 0.0
    other[mask] = 128  # ... the hole's do
    assert metrics.swd(other, truth, mask) > 1.0


def test_swd_matches_an_oracle_of_one_dimensional_wasserstein_distances():
    stats = pytest.importorskip("scipy.stats")
    ndimage = pytest.importorskip("scipy.ndimage")
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 256, (22, 26, 3)).astype(np.uint8)
    result = rng.integers(0, 256, (22, 26, 3)).astype(np.uint8)
    mask = np.zeros((22, 26), bool)
    mask[1:15, 6:20] = True  # its eroded region's patches reach outside the hole, not outside the image
    centres = ndimage.binary_erosion(mask, np.ones((7, 7), bool), border_value=0)
    assert centres.sum() == 8 * 8

    def rows(img):  # 7x7x3 patches around each centre, rows in (dy, dx, channel) order
        return np.array([img[y - 3:y + 4, x - 3:x + 4].ravel() for y, x in zip(*np.nonzero(centres))], float)

    dirs = metrics.swd_directions(7 * 7 * 3)
    assert dirs.shape == (64, 147) and np.allclose(np.linalg.norm(dirs, axis=1), 1)
    a, b = rows(result), rows(truth)
    want = np.mean([stats.wasserstein_distance(a @ d, b @ d) for d in dirs])
    assert metrics.swd(result, truth, mask) == pytest.approx(want, rel=1e-9)


def _gravel_crop():
    found = quality.find_quality_root()
    if found is None:
        pytest.skip("datasets/quality is not in this checkout")
    case = quality.load_quality_case(found / "gravel_blob")
    x0, y0, x1, y1 = metrics.bbox(case.mask)
    box = np.s_[y0 - 12:y1 + 12, x0 - 12:x1 + 12]
    return case.image[box], case.truth[box], case.mask[box]


@pytest.mark.parametrize("texture", ["noise", "gravel"])
def test_swd_prefers_the_shifted_truth_to_the_blurred_one_where_ssim_does_not(texture):
    if texture == "noise":
        truth = np.random.default_rng(8).integers(0, 256, (64, 64, 3)).astype(np.uint8)
        mask = np.zeros((64, 64), bool)
        mask[16:48, 14:50] = True
        image = truth.copy()
        image[mask] = 0
    else:
        image, truth, mask = _gravel_crop()
    shifted = metrics.control_fill("shift", 4, image, truth, mask)
    blurred = metrics.control_fill("blur", 2.0, image, truth, mask)
    assert metrics.swd(shifted, truth, mask) < 0.5 * metrics.swd(blurred, truth, mask)
    assert metrics.hole_ssim(shifted, truth, mask) < metrics.hole_ssim(blurred, truth, mask)  # why SWD is needed


def _horizon(h: int = 64, w: int = 72, seed: int = 4) -> np.ndarray:
    """Sky over textured grass, the horizon with a small step every 12 px, with noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    sky = np.stack([90 + 0 * xx, 140 + yy // 4, 200 + 0 * xx], -1)
    grass = np.stack([50 + 0 * xx, 110 + 0 * xx, 40 + 0 * xx], -1) \
        + 25 * np.sin(xx / 2.3 + 3 * np.sin(yy / 3.1))[..., None]
    img = np.where((yy < h // 2 + (xx // 12) % 2)[..., None], sky, grass) + rng.normal(0, 8, (h, w, 3))
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def _horizon_case(wrong: str):
    truth = _horizon()
    mask = np.zeros(truth.shape[:2], bool)
    mask[20:46, 24:52] = True
    image = truth.copy()
    image[mask] = 0
    rows = {"broken line": 8, "foreign content": -20}[wrong]  # the horizon moved down, or grass only
    return image, truth, mask, np.roll(truth, rows, axis=0)


@pytest.mark.parametrize("case", ["broken line", "foreign content", "gravel"])
def test_coarse_ssim_scores_right_content_high_sharp_or_blurred_and_wrong_content_low(case):
    if case == "gravel":
        image, truth, mask = _gravel_crop()
        source = truth[::-1, ::-1]  # gravel, but its stones in other places
    else:
        image, truth, mask, source = _horizon_case(case)
    wrong = image.copy()
    wrong[mask] = source[mask]
    shifted = metrics.control_fill("shift", 4, image, truth, mask)
    blurred = metrics.control_fill("blur", 2.0, image, truth, mask)
    score = {name: metrics.coarse_ssim(fill, truth, mask)
             for name, fill in (("truth", truth), ("blurred", blurred), ("shifted", shifted), ("wrong", wrong))}
    assert score["truth"] == pytest.approx(1.0)
    assert score["blurred"] > 0.95, score            # blur keeps what the low-pass sees
    assert score["wrong"] < 0.8, score
    assert score["wrong"] < score["shifted"] < score["blurred"], score


def _naive_coarse_ssim(result, truth, mask):
    """Oracle: a per-pixel Gaussian blur of the whole image (sigma 3, radius 12, mirrored borders),
    cropped to the hole's box grown by 8 px; then per channel the mean over every whole 7x7 window
    of the box of SSIM with the windows' sample statistics, and the mean over the channels."""
    h, w = mask.shape
    g = np.exp(-0.5 * (np.arange(-12, 13) / 3.0) ** 2)
    kernel = np.outer(g, g) / g.sum() ** 2

    def reflect(i, n):  # scipy's 'reflect': d c b a | a b c d | d c b a
        i = np.abs(i + 0.5) - 0.5
        period = 2 * n
        i = i % period
        return np.where(i >= n, period - 1 - i, i).astype(int)

    def blur(img):
        out = np.empty(img.shape)
        for y in range(h):
            rows = reflect(np.arange(y - 12, y + 13), h)
            for x in range(w):
                cols = reflect(np.arange(x - 12, x + 13), w)
                out[y, x] = np.einsum("ij,ijc->c", kernel, img[np.ix_(rows, cols)].astype(float))
        return out

    ys, xs = np.nonzero(mask)
    y0, y1, x0, x1 = max(ys.min() - 8, 0), min(ys.max() + 9, h), max(xs.min() - 8, 0), min(xs.max() + 9, w)
    a, b = blur(result)[y0:y1, x0:x1], blur(truth)[y0:y1, x0:x1]
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    per_channel = []
    for c in range(3):
        values = []
        for y in range(3, a.shape[0] - 3):
            for x in range(3, a.shape[1] - 3):
                p, q = a[y - 3:y + 4, x - 3:x + 4, c].ravel(), b[y - 3:y + 4, x - 3:x + 4, c].ravel()
                cov = np.cov(p, q)  # sample (co)variances, 1/(n - 1)
                values.append((2 * p.mean() * q.mean() + c1) * (2 * cov[0, 1] + c2)
                              / ((p.mean() ** 2 + q.mean() ** 2 + c1) * (cov[0, 0] + cov[1, 1] + c2)))
        per_channel.append(np.mean(values))
    return float(np.mean(per_channel))


@pytest.mark.parametrize("scikit_image", [True, False])
def test_coarse_ssim_matches_a_naive_computation(monkeypatch, scikit_image):
    truth = _scene(40, 44, seed=9)
    mask = np.zeros((40, 44), bool)
    mask[10:17, 26:35] = True  # the blur reaches past the top and right borders from its grown box, not the others
    result = truth.copy()
    result[mask] = np.random.default_rng(2).integers(0, 256, (int(mask.sum()), 3))
    if not scikit_image:
        monkeypatch.setitem(sys.modules, "skimage.metrics", None)  # the numpy fallback
    want = _naive_coarse_ssim(result, truth, mask)
    assert 0.3 < want < 0.99
    assert metrics.coarse_ssim(result, truth, mask) == pytest.approx(want, abs=1e-9)
    assert metrics.coarse_ssim(truth, truth, mask) == pytest.approx(1.0)


def test_control_fills_keep_the_known_pixels_and_change_the_hole():
    truth, mask = _scene(), _hole()
    image = truth.copy()
    image[mask] = 0
    shifted = metrics.control_fill("shift", 4, image, truth, mask)
    assert np.array_equal(shifted[~mask], image[~mask])
    ys, xs = np.nonzero(mask)
    assert np.array_equal(shifted[ys, xs], truth[ys, xs - 4])  # the hole shows the truth 4 px to its left
    blurred = metrics.control_fill("blur", 2.0, image, truth, mask)
    assert np.array_equal(blurred[~mask], image[~mask])
    assert np.array_equal(blurred[mask], metrics.gaussian_blur(truth, 2.0)[mask])
    assert not np.array_equal(blurred[mask], truth[mask])
    assert metrics.detail_ratio(blurred, truth, mask) < 0.7
    with pytest.raises(ValueError, match="unknown control"):
        metrics.control_fill("rotate", 1, image, truth, mask)
    assert [m.name for m in quality.control_methods()] == list(metrics.CONTROLS)
    assert {m.kind for m in quality.control_methods()} == {"control"}


# --- the truth set ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def root():
    found = quality.find_quality_root()
    if found is None:
        pytest.skip("datasets/quality is not in this checkout")
    return found


def test_quality_case_loads_with_the_hole_zeroed(root):
    (entry,) = quality.select_cases("saucer_rim", quality.case_index(root))
    case = quality.load_entry(entry)
    assert (case.category, case.split) == ("structure", "holdout")
    assert case.image.shape == case.truth.shape == (360, 460, 3) and case.image.dtype == np.uint8
    assert case.mask.shape == (360, 460) and case.mask.dtype == bool
    with Image.open(root / "saucer_rim" / "mask.png") as m:
        assert np.array_equal(case.mask, np.asarray(m.convert("L")) > 127)
    assert case.hole_pixels > 0 and not case.image[case.mask].any()
    assert np.array_equal(case.image[~case.mask], case.truth[~case.mask])


def test_case_selection(root):
    index = quality.case_index(root)
    listed = json.loads((root / "index.json").read_text())["cases"]
    assert len(index) == 4 + len(listed)
    names = lambda spec: [e.name for e in quality.select_cases(spec, index)]  # noqa: E731
    assert names("paper") == ["walkingman", "river", "divingman", "hill"]
    assert names("all") == [e.name for e in index]
    assert set(names("holdout")) == {c["name"] for c in listed if c["split"] == "holdout"}
    assert set(names("tune")) == {"walkingman", "river", "divingman", "hill"} | {
        c["name"] for c in listed if c["split"] == "tune"}
    assert names("hill, thin") == ["hill"] + [c["name"] for c in listed if c["category"] == "thin"]
    with pytest.raises(ValueError, match="valid"):
        quality.select_cases("nosuchcase", index)
    walkingman = quality.load_entry(index[0])
    assert (walkingman.category, walkingman.split, walkingman.image.shape) == ("paper", "tune", (384, 512, 3))


# --- configurations and peers ----------------------------------------------------------------------
def test_configurations_are_data_and_pass_through(monkeypatch):
    configs = quality.load_configs()
    assert configs["default"] == {}
    assert configs["paper_005_9"] == {"method": "criminisi", "alpha": 0.05, "patch": 9}
    assert configs["paper_full_9"] == {"method": "criminisi", "alpha": "full", "patch": 9}
    seen = {}

    class Result:
        image, stats = _scene(), None

    def fake(image, mask, **kwargs):
        seen.update(kwargs)
        return Result()

    import inpaint.api

    monkeypatch.setattr(inpaint.api, "inpaint", fake)
    quality.ours_method("x", {"method": "criminisi", "future_option": 3}, "numpy", "cpu").fill(_scene(), _hole())
    assert seen == {"method": "criminisi", "future_option": 3, "backend": "numpy", "device": "cpu"}


def test_the_tools_fill_overrides_set_constants_and_pass_options(monkeypatch):
    import argparse

    monkeypatch.setattr(quality, "OUTLINE_RGB", quality.OUTLINE_RGB)  # put back after the test
    parser = argparse.ArgumentParser()
    quality.add_fill_overrides(parser)
    args = parser.parse_args(["--set", "inpaint_bench.quality.OUTLINE_RGB=(0, 255, 0)",
                              "--option", "alpha=full", "--option", "seed_scale=0.5", "--option", "note=a=b"])
    assert quality.fill_overrides(args) == {"alpha": "full", "seed_scale": 0.5, "note": "a=b"}
    assert quality.OUTLINE_RGB == (0, 255, 0)
    assert quality.fill_overrides(parser.parse_args([])) == {}


@pytest.mark.parametrize("flag, value", [("--set", "inpaint_bench.quality.OUTLINE_RGB"), ("--option", "=full")])
def test_a_malformed_fill_override_is_one_line(capsys, flag, value):
    import argparse

    parser = argparse.ArgumentParser(prog="tool")
    quality.add_fill_overrides(parser)
    with pytest.raises(SystemExit) as stop:
        parser.parse_args([flag, value])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == f"tool: error: argument {flag}: {value!r} is not NAME=VALUE"


def test_a_result_that_touches_known_pixels_is_rejected():
    image, mask = _scene(), _hole()
    quality.check_result("ok", image, mask, image.copy())
    bad = image.copy()
    bad[0, 0] ^= 1
    with pytest.raises(AssertionError, match="changed 1 pixels outside the hole"):
        quality.check_result("bad", image, mask, bad)


@pytest.mark.parametrize("name", list(peers.PEERS))
def test_peer_keeps_the_known_pixels(name):
    found, missing = peers.available_peers([name])
    if missing:
        pytest.skip(f"{name}: {peers.PEERS[name][1]} is not installed")
    image, mask = _scene(), _hole()
    image[mask] = 0
    out = found[0].fill(image.copy(), mask)
    assert out.shape == image.shape and out.dtype == np.uint8
    assert np.array_equal(out[~mask], image[~mask])
    assert out[mask].mean() > 20  # the hole was filled from its surroundings (all >= 20)


def test_pypatchmatch_gives_the_same_fill_each_call():
    found, missing = peers.available_peers(["pypatchmatch"])
    if missing:
        pytest.skip("pypatchmatch is not installed")
    image, mask = _scene(), _hole()
    image[mask] = 0
    first = found[0].fill(image.copy(), mask)
    peers.available_peers(["pypatchmatch"])[0][0].fill(_scene(seed=6), _hole())  # another fill between
    assert np.array_equal(found[0].fill(image.copy(), mask), first)


def test_unknown_peer_is_an_error_and_a_missing_one_is_reported(monkeypatch):
    with pytest.raises(ValueError, match="opencv_telea"):
        peers.available_peers(["gimp"])
    monkeypatch.setitem(sys.modules, "resynthesizer", None)
    found, missing = peers.available_peers(["resynthesizer"])
    assert found == [] and missing == ["resynthesizer"]


# --- wins and the acceptance rule ------------------------------------------------------------------
def _row(ssim, psnr, swd, detail, coarse):
    return {"ssim": ssim, "psnr_db": psnr, "swd": swd, "detail": detail, "coarse_ssim": coarse}


#: Our A (multiscale) and C (criminisi), peers P and Q, control K (best everywhere: it must never count).
HAND = {
    "c1": {"A": _row(0.90, 30, 1.0, 1.00, 0.95), "C": _row(0.85, 28, 1.5, 0.90, 0.90),
           "P": _row(0.88, 31, 3.0, 0.50, 0.93), "Q": _row(0.80, 25, 2.5, 1.30, 0.85),
           "K": _row(0.99, 40, 0.1, 1.00, 0.99)},
    "c2": {"A": _row(0.80, 20, 4.0, 0.70, 0.70), "C": _row(0.72, 21, 3.5, 0.95, 0.80),
           "P": _row(0.75, 22, 4.0, 1.50, 0.75), "Q": _row(0.60, 18, 5.0, 0.60, 0.60),
           "K": _row(0.99, 40, 0.1, 1.00, 0.99)},
    "c3": {"A": {"error": "RuntimeError: x"}, "C": _row(0.60, 21, 2.0, 1.10, 0.70),
           "P": _row(0.90, 30, 1.0, 1.00, 0.90), "Q": _row(0.50, 20, 6.0, 1.00, 0.95),
           "K": _row(0.99, 40, 0.1, 1.00, 0.99)},
}


def test_best_peer_per_case_and_wins_on_hand_made_numbers():
    best = quality.best_peers(HAND, ["P", "Q"])
    assert best["c1"] == {"ssim": ("P", 0.88), "psnr_db": ("P", 31), "swd": ("Q", 2.5), "detail": ("Q", 1.30),
                          "coarse_ssim": ("P", 0.93)}
    assert best["c2"] == {"ssim": ("P", 0.75), "psnr_db": ("P", 22), "swd": ("P", 4.0), "detail": ("P", 1.50),
                          "coarse_ssim": ("P", 0.75)}
    assert best["c3"]["coarse_ssim"] == ("Q", 0.95)  # each metric has its own best peer
    assert best["c3"]["detail"] == ("P", 1.00)  # a tie goes to the peer listed first
    s = quality.summarise(HAND, ["c1", "c2", "c3"], ["A", "C", "P", "Q", "K"], ["A", "C"], best)
    a = s["A"]
    assert (a["cases"], a["errors"], a["judged"]) == (2, 1, 2)
    assert a["mean_ssim"] == pytest.approx(0.85) and a["mean_psnr_db"] == pytest.approx(25)
    assert a["mean_swd"] == pytest.approx(2.5) and a["median_detail"] == pytest.approx(0.85)
    assert a["mean_coarse_ssim"] == pytest.approx(0.825)
    assert a["detail_in_band"] == 1  # 1.0 in [0.8, 1.25], 0.7 not
    # c1: SSIM .90 >= .88, PSNR 30 < 31, coarse .95 >= .93, SWD 1.0 <= 2.5, |log 1.0| <= |log 1.3|;
    # c2: SSIM .80 >= .75, PSNR 20 < 22, coarse .70 < .75, SWD 4.0 <= 4.0 (a tie wins),
    # |log 0.7| = .36 <= |log 1.5| = .41.
    assert a["wins"] == {"ssim": 2, "psnr_db": 0, "coarse_ssim": 1, "swd": 2, "detail": 2}
    # C: SWD and detail win on c1 and c2, coarse SSIM on c2 (.80 >= .75), nothing on c3 (SWD 2.0 > 1.0,
    # |log 1.1| > |log 1.0|, coarse .70 < .95).
    assert s["C"]["wins"] == {"ssim": 0, "psnr_db": 0, "coarse_ssim": 1, "swd": 2, "detail": 2}
    assert s["C"]["judged"] == 3
    assert "wins" not in s["P"] and "wins" not in s["K"] and s["K"]["median_time_s"] is None
    assert s["P"]["mean_ssim"] == pytest.approx((0.88 + 0.75 + 0.90) / 3)


def test_the_acceptance_rule_on_hand_made_numbers():
    cases = ["c1", "c2", "c3"]
    best = quality.best_peers(HAND, ["P", "Q"])
    s = quality.summarise(HAND, cases, ["A", "C", "P", "Q", "K"], ["A", "C"], best)
    # Mean SWD: A 2.5, C 2.333, P 2.667, Q 4.5 (K 0.1 is a control: never a rival).  Best single peer: P (.843).
    v = quality.verdicts(s, ["A", "C"], ["P", "Q"], rivals=["C"])
    assert v["best_peer"] == "P" and v["best_peer_mean_ssim"] == pytest.approx(0.8433, abs=1e-4)
    a, c = v["configs"]["A"], v["configs"]["C"]
    assert (a["lowest_rival"], c["lowest_rival"]) == ("C", "P")  # C is A's rival, not its own
    assert a["rules"] == {"detail_in_band": True, "lowest_mean_swd": False, "swd_wins_on_share": True,
                          "ssim_at_least_best_peer": True} and not a["accepted"]
    assert c["rules"] == {"detail_in_band": True, "lowest_mean_swd": True, "swd_wins_on_share": True,
                          "ssim_at_least_best_peer": False} and not c["accepted"]
    assert c["swd_win_share"] == pytest.approx(2 / 3)
    # Without C among the rivals A has the lowest mean SWD (2.5 < P's 2.667) and meets all four rules.
    alone = quality.verdicts(s, ["A"], ["P", "Q"])
    assert alone["configs"]["A"]["lowest_rival"] == "P" and alone["configs"]["A"]["accepted"]
    # Below half: one SWD win of three cases.
    s["C"]["wins"]["swd"] = 1
    assert quality.verdicts(s, ["C"], ["P", "Q"])["configs"]["C"]["rules"]["swd_wins_on_share"] is False
    # Without peers, (c) and (d) cannot be judged, and nothing is accepted.
    none = quality.verdicts(quality.summarise(HAND, cases, ["A", "C"], ["A", "C"], {c: {} for c in cases}),
                            ["A", "C"], [], rivals=["C"])
    assert none["best_peer"] is None
    assert none["configs"]["C"]["rules"] == {"detail_in_band": True, "lowest_mean_swd": True,
                                             "swd_wins_on_share": None, "ssim_at_least_best_peer": None}
    assert not none["configs"]["C"]["accepted"]


def test_swd_rivals_are_the_criminisi_configurations():
    rivals = quality.swd_rivals(quality.load_configs())
    assert "paper_005_9" in rivals and "paper_full_9_filled" in rivals
    assert "default" not in rivals and "multiscale_k4" not in rivals
    assert quality.swd_rivals({"x": {"method": "criminisi"}, "y": {}}) == ["x"]


# --- end to end ------------------------------------------------------------------------------------
def test_quality_run_writes_report_json_and_sheets(root, runtime, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "resynthesizer", None)  # a peer "not installed", whatever this machine has
    telea_found, _ = peers.available_peers(["opencv_telea"])
    js, sheets = tmp_path / "q.json", tmp_path / "sheets"
    rc = main(["bench", "--quality", "--cases", "saucer_rim,fur_stroke", "--configs", "paper_005_9",
               "--backend", "opencl", "--device", runtime.name.split(" (")[0],
               "--peers", "opencv_telea,resynthesizer", "--sheets", str(sheets), "--json", str(js)])
    out = capsys.readouterr().out
    assert rc == 0
    for title in ("## SSIM per case", "## SWD per case", "## Coarse SSIM per case", "## Detail per case",
                  "### Tune split (1 case)", "### Holdout split (1 case)", "#### texture (1 case)",
                  "#### structure (1 case)", "## Acceptance"):
        assert title in out
    missing = ["opencv_telea", "resynthesizer"] if not telea_found else ["resynthesizer"]
    assert [line for line in out.splitlines() if "not installed" in line] == [
        f"Peers not installed (skipped): {', '.join(missing)} ({peers.INSTALL_HINT})."]
    notes = [line for line in out.splitlines() if "OpenCL" in line and "ours ran on" not in line]
    assert "OpenCL device" in out and "ours ran on: opencl on" in out and "issue" not in out.lower(), notes
    summary_rows = [line for line in out.splitlines() if line.startswith("| truth_blur2 (control) | 2 |")]
    assert len(summary_rows) == 1 and summary_rows[0].endswith("|  |  |  |")  # no wins, no time, no errors
    data = json.loads(js.read_text())
    assert [c["name"] for c in data["cases"]] == ["fur_stroke", "saucer_rim"]  # index order
    assert data["methods"][0] == {"name": "paper_005_9", "kind": "ours", "label": data["methods"][0]["label"],
                                  "kwargs": {"method": "criminisi", "alpha": 0.05, "patch": 9, "backend": "opencl",
                                             "device": runtime.name.split(" (")[0]}}
    assert [m["name"] for m in data["methods"] if m["kind"] == "control"] == list(metrics.CONTROLS)
    for case in ("fur_stroke", "saucer_rim"):
        r = data["numbers"][case]["paper_005_9"]
        assert 0 < r["ssim"] <= 1 and 5 < r["psnr_db"] < metrics.PSNR_CAP and r["detail"] > 0 and r["time_s"] > 0
        assert 0 < r["swd"] < 50 and r["backend"] == "opencl" and 0 < r["coarse_ssim"] < 1
        for control in metrics.CONTROLS:
            assert set(data["numbers"][case][control]) == set(quality.METRICS)  # scored, not timed
        assert data["numbers"][case]["truth_shift4"]["swd"] < data["numbers"][case]["truth_blur2"]["swd"]
        coarse = {control: data["numbers"][case][control]["coarse_ssim"] for control in metrics.CONTROLS}
        assert coarse["truth_shift8"] < coarse["truth_blur2"]
        with Image.open(sheets / f"{case}.png") as img:
            assert img.mode == "RGB" and img.width <= 4 * 2 * 400 + 3 * 8
    summary = data["summary"]["all"]["paper_005_9"]
    assert summary["cases"] == 2 and summary["median_time_s"] > 0 and summary["mean_swd"] > 0
    assert data["summary"]["all"]["truth_shift4"]["median_time_s"] is None
    verdict = data["verdicts"]["all"]
    rules = verdict["configs"]["paper_005_9"]["rules"]
    assert set(rules) == set(quality.RULES) and rules["detail_in_band"] in (True, False)
    assert rules["lowest_mean_swd"] in (True, False)
    if telea_found:
        assert verdict["best_peer"] == "opencv_telea" and summary["judged"] == 2
        assert rules["swd_wins_on_share"] in (True, False) and rules["ssim_at_least_best_peer"] in (True, False)
        assert set(data["best_peer_per_case"]["fur_stroke"]) == set(quality.METRICS)
    else:
        assert "No peer was measured" in out and verdict["best_peer"] is None


# --- real object removals --------------------------------------------------------------------------
def _objects(folder):
    """Two tiny object cases: a square "object" on a textured scene, the mask over it."""
    cases = []
    for i, name in enumerate(("cup", "post")):
        image = _scene(48, 56, seed=i)
        mask = np.zeros((48, 56), bool)
        mask[14 + i:28, 18:30 + 2 * i] = True
        image[mask] = (200, 30, 30)
        (folder / name).mkdir(parents=True)
        Image.fromarray(image).save(folder / name / "image.png")
        Image.fromarray((mask * 255).astype(np.uint8)).save(folder / name / "mask.png")
        cases.append({"name": name, "description": f"a {name} on a textured wall"})
    (folder / "index.json").write_text(json.dumps({"cases": cases}))


def test_objects_write_one_sheet_per_case_and_an_index(tmp_path, capsys, monkeypatch):
    _objects(tmp_path / "objects")
    monkeypatch.setenv("INPAINT_OBJECTS_DATA", str(tmp_path / "objects"))  # the default folder, found like datasets/

    def broken(image, mask):
        out = image.copy()
        out[0, 0] ^= 1
        return out

    def flat(image, mask):
        out = image.copy()
        out[mask > 0] = image[mask == 0].mean(axis=0).astype(image.dtype)
        return out

    # Peers that need nothing installed, so the sheet's layout is tested on every machine.
    monkeypatch.setitem(peers.PEERS, "broken", ("changes a known pixel", "numpy", lambda: broken))
    monkeypatch.setitem(peers.PEERS, "flat", ("the known pixels' mean colour", "numpy", lambda: flat))
    out_dir, js = tmp_path / "sheets", tmp_path / "o.json"
    rc = main(["bench", "--objects", "--sheets", str(out_dir), "--configs", "paper_005_9", "--backend", "numpy",
               "--peers", "broken,flat", "--json", str(js)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "# inpaint bench --objects" in out and "## Time per call" in out
    assert "| cup | a cup on a textured wall |" in out
    assert "broken failed on 2 case(s)" in out and "changed 1 pixels outside the hole" in out
    index = (out_dir / "index.md").read_text()
    assert "[cup.png](cup.png)" in index and "[post.png](post.png)" in index
    data = json.loads(js.read_text())
    for case in ("cup", "post"):
        r = data["numbers"][case]["paper_005_9"]
        assert r["time_s"] > 0 and "ssim" not in r and "swd" not in r  # no truth: only times
        assert "error" in data["numbers"][case]["broken"]
        with Image.open(out_dir / f"{case}.png") as img:
            sheet = np.asarray(img.convert("RGB"))
        assert (sheet == (255, 0, 0)).all(axis=-1).sum() > 50  # the hole's outline on the input tile
        n_tiles = 1 + 1 + (len(data["methods"]) - 1)  # input, ours, the peers
        assert n_tiles == 4 and sheet.shape[1] >= 4 * 2 * 56


def test_objects_options_are_checked(tmp_path, capsys):
    _objects(tmp_path / "objects")
    for argv, msg in ((["--objects", str(tmp_path / "objects")], "give --sheets DIR"),
                      (["--objects", str(tmp_path), "--sheets", str(tmp_path / "s")], "no index.json there"),
                      (["--objects", str(tmp_path / "objects"), "--sheets", str(tmp_path / "s"), "--cases", "mug"],
                       "cup, post"),
                      (["--objects", str(tmp_path / "objects"), "--quality", "--sheets", str(tmp_path / "s")],
                       "run separately")):
        assert main(["bench", *argv]) == 2
        assert msg in capsys.readouterr().err
