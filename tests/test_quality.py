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

    import inpaint.pipeline

    monkeypatch.setattr(inpaint.pipeline, "inpaint", fake)
    quality.ours_method("x", {"method": "criminisi", "future_option": 3}, "numpy", "cpu").fill(_scene(), _hole())
    assert seen == {"method": "criminisi", "future_option": 3, "backend": "numpy", "device": "cpu"}


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


def test_unknown_peer_is_an_error_and_a_missing_one_is_reported(monkeypatch):
    with pytest.raises(ValueError, match="opencv_telea"):
        peers.available_peers(["gimp"])
    monkeypatch.setitem(sys.modules, "resynthesizer", None)
    found, missing = peers.available_peers(["resynthesizer"])
    assert found == [] and missing == ["resynthesizer"]


# --- end to end ------------------------------------------------------------------------------------
def test_quality_run_writes_report_json_and_sheets(root, runtime, tmp_path, capsys, monkeypatch):
    for module in ("resynthesizer", "cv2"):  # peers "not installed", whatever this machine has
        monkeypatch.setitem(sys.modules, module, None)
    js, sheets = tmp_path / "q.json", tmp_path / "sheets"
    rc = main(["bench", "--quality", "--cases", "saucer_rim,fur_stroke", "--configs", "paper_005_9",
               "--backend", "opencl", "--device", runtime.name.split(" (")[0],
               "--peers", "opencv_telea,opencv_ns,resynthesizer", "--sheets", str(sheets), "--json", str(js)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "## SSIM per case" in out and "### Tune split (1 case)" in out and "### Holdout split (1 case)" in out
    assert "#### texture (1 case)" in out and "#### structure (1 case)" in out
    assert [line for line in out.splitlines() if "not installed" in line] == [
        f"Peers not installed (skipped): opencv_telea, opencv_ns, resynthesizer ({peers.INSTALL_HINT})."]
    assert "OpenCL device" in out and "ours ran on: opencl on" in out and "issue" not in out.lower()
    data = json.loads(js.read_text())
    assert [c["name"] for c in data["cases"]] == ["fur_stroke", "saucer_rim"]  # index order
    assert data["methods"][0] == {"name": "paper_005_9", "kind": "ours", "label": data["methods"][0]["label"],
                                  "kwargs": {"method": "criminisi", "alpha": 0.05, "patch": 9, "backend": "opencl",
                                             "device": runtime.name.split(" (")[0]}}
    for case in ("fur_stroke", "saucer_rim"):
        r = data["numbers"][case]["paper_005_9"]
        assert 0 < r["ssim"] <= 1 and 5 < r["psnr_db"] < metrics.PSNR_CAP and r["detail"] > 0 and r["time_s"] > 0
        assert r["backend"] == "opencl"
        with Image.open(sheets / f"{case}.png") as img:
            assert img.mode == "RGB" and img.width <= 4 * 2 * 400 + 3 * 6
    summary = data["summary"]["all"]["paper_005_9"]
    assert summary["cases"] == 2 and summary["median_time_s"] > 0
    peers_run = [m["name"] for m in data["methods"] if m["kind"] == "peer"]
    verdict = data["verdicts"]["all"]
    if peers_run:  # OpenCV is installed
        assert "Best single peer over all cases" in out and verdict["best_peer"] in peers_run
        assert set(verdict["configs"]["paper_005_9"]) >= {"mean_ssim_at_least_best_peer", "within_on_share"}
        assert summary["judged"] == 2
    else:
        assert "No peer was measured" in out and verdict["best_peer"] is None

