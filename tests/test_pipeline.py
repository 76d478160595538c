"""End-to-end: invariants of the result, and OpenCL == numpy bit for bit."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from inpaint import geometry
from inpaint.api import Inpainter, inpaint
from inpaint.errors import InputError
from inpaint.methods.criminisi.job import source_map
from inpaint.methods.criminisi.opencl import FindBestPatch


def scene(rng, h, w):
    """Smooth gradients plus texture, so the priorities are not all ties."""
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([xx * 255 // max(w - 1, 1), yy * 255 // max(h - 1, 1), ((xx // 4 + yy // 4) % 2) * 120], -1)
    img = img + rng.integers(-20, 21, (h, w, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def blob(h, w, cy, cx, ry, rx):
    yy, xx = np.mgrid[0:h, 0:w]
    return ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1


def check_invariants(image, mask, res):
    out = res.image
    assert out.shape == image.shape and out.dtype == np.uint8
    # Known pixels never change.
    np.testing.assert_array_equal(out[~mask], image[~mask])
    # Every filled pixel is a copy of an original source pixel (and the map says which).
    sm = res.source_map
    rows, cols = sm[mask, 0], sm[mask, 1]
    assert (rows >= 0).all() and (cols >= 0).all()
    assert not mask[rows, cols].any()
    np.testing.assert_array_equal(out[mask], image[rows, cols])
    assert (sm[~mask] == -1).all()


@pytest.mark.parametrize("alpha", [0.05, 0.5, "full"])
@pytest.mark.parametrize("patch", [3, 5, 9])
@pytest.mark.opencl
def test_opencl_equals_numpy(rng, alpha, patch):
    img = scene(rng, 48, 61)
    mask = blob(48, 61, 22, 30, 8, 11)
    a = inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="numpy")
    b = inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="opencl")
    check_invariants(img, mask, a)
    assert a.image.tobytes() == b.image.tobytes()
    assert a.stats.patches == b.stats.patches
    assert a.stats.ssd == b.stats.ssd
    assert b.stats.backend == "opencl" and a.stats.backend == "numpy"


# Each variant and each search area and patch size once by default (each case builds its programs),
# every pair in the slow selection.
@pytest.mark.parametrize("alpha, patch, variant", [
    (0.05, 9, "local"), ("full", 5, "global"), ("full", 9, "local"),
    pytest.param(0.05, 9, "global", marks=pytest.mark.slow), pytest.param("full", 5, "local", marks=pytest.mark.slow),
    pytest.param("full", 9, "global", marks=pytest.mark.slow)])
def test_pruning_is_exact(runtime, rng, variant, alpha, patch):
    img = scene(rng, 56, 67)
    mask = blob(56, 67, 28, 30, 9, 12)
    a = inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="numpy")
    runs = {p: inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="opencl", device=runtime.device,
                       variant=variant, prune=p, timings=True) for p in (True, False)}
    for p, b in runs.items():
        assert b.stats.pruned is p and b.stats.variant == f"{variant} 8x8"
        assert a.image.tobytes() == b.image.tobytes()
        assert a.stats.patches == b.stats.patches
        assert a.stats.ssd == b.stats.ssd
    # The bound launch is timed with the stage.
    assert runs[True].stats.stage_seconds["ssd"] > 0


def test_auto_prunes_on_cpu_devices(runtime, rng):
    img = scene(rng, 30, 40)
    job = Inpainter(img, blob(30, 40, 15, 20, 5, 5), patch=5, backend="opencl", device=runtime.device)
    assert job.stats.pruned is (not runtime.is_gpu)
    assert not Inpainter(img, blob(30, 40, 15, 20, 5, 5), patch=5, backend="numpy").stats.pruned


@pytest.mark.parametrize("variant", ["local", "global"])
@pytest.mark.opencl
def test_variants_agree(rng, variant):
    img = scene(rng, 40, 52)
    mask = blob(40, 52, 20, 26, 7, 9)
    a = inpaint(img, mask, method="criminisi", alpha=0.3, patch=7, backend="numpy")
    b = inpaint(img, mask, method="criminisi", alpha=0.3, patch=7, backend="opencl", variant=variant)
    assert b.stats.variant == f"{variant} 8x8"
    assert a.image.tobytes() == b.image.tobytes()


@pytest.mark.parametrize("partition", [["ssd", "reduce"], ["grey", "front", "priority", "copy"],
                                       ["valid", "confidence", "ssd"], []])
@pytest.mark.opencl
def test_any_partition_gives_the_same_image(rng, partition):
    img = scene(rng, 36, 45)
    mask = blob(36, 45, 18, 22, 6, 8)
    a = inpaint(img, mask, method="criminisi", alpha=0.2, patch=5, backend="numpy")
    b = inpaint(img, mask, method="criminisi", alpha=0.2, patch=5, backend="opencl", partition=partition, timings=True)
    assert b.stats.device_stages == tuple(s for s in b.stats.stage_seconds if s in partition)
    assert a.image.tobytes() == b.image.tobytes()
    if partition and len(partition) < 8:
        assert b.stats.backend == "mixed" and b.stats.transfer_seconds > 0


@st.composite
def cases(draw):
    h = draw(st.integers(12, 36))
    w = draw(st.integers(12, 36))
    patch = draw(st.sampled_from([3, 5, 7]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["noise", "scene", "flat"]))
    if kind == "noise":
        img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    elif kind == "scene":
        img = scene(rng, h, w)
    else:
        img = np.full((h, w, 3), draw(st.integers(0, 255)), np.uint8)
    mask = np.zeros((h, w), bool)
    for _ in range(draw(st.integers(1, 3))):
        y0, x0 = draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))
        mask[y0:y0 + draw(st.integers(1, h // 2)), x0:x0 + draw(st.integers(1, w // 2))] = True
    if draw(st.booleans()):
        mask &= rng.random((h, w)) > 0.3
    alpha = draw(st.sampled_from([0.0, 0.05, 0.5, "full"]))
    return img, mask, patch, alpha


def _has_source_window(mask, patch):
    h, w = mask.shape
    return any(not mask[y:y + patch, x:x + patch].any()
               for y in range(h - patch + 1) for x in range(w - patch + 1))


@given(cases())
@pytest.mark.opencl
def test_property_invariants_and_bit_exactness(case):
    img, mask, patch, alpha = case
    if not mask.any():
        res = inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="opencl")
        assert res.stats.empty_mask and res.image.tobytes() == img.tobytes()
        return
    if not _has_source_window(mask, patch):
        with pytest.raises(InputError, match="whole image|no valid source patch"):
            Inpainter(img, mask, alpha=alpha, patch=patch, backend="opencl")
        return
    a = inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="numpy")
    check_invariants(img, mask, a)
    for prune in (True, False):
        b = inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="opencl", prune=prune)
        assert a.image.tobytes() == b.image.tobytes()
        assert a.stats.patches == b.stats.patches
        assert a.stats.ssd == b.stats.ssd


@pytest.mark.parametrize("loop", ["host", "device"])
@pytest.mark.opencl
def test_stepwise_equals_one_shot(rng, loop):
    img = scene(rng, 30, 40)
    mask = blob(30, 40, 15, 20, 6, 7)
    job = Inpainter(img, mask, patch=5, alpha=0.5, backend="opencl", loop=loop)
    assert job.stats.loop == loop
    fractions = []
    while not job.done:
        assert job.step() == (not job.done)
        fractions.append(job.progress)
        partial = job.image
        np.testing.assert_array_equal(partial[~mask], img[~mask])
    assert job.step() is False
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    if loop == "host":
        assert job.iterations == len(fractions)          # one patch per step
    else:
        assert len(fractions) < job.iterations           # several patches per step, queued at once
    one = inpaint(img, mask, method="criminisi", patch=5, alpha=0.5, backend="numpy")
    res = job.result()
    assert res.image.tobytes() == one.image.tobytes()
    assert res.stats.patches == one.stats.patches and res.stats.ssd == one.stats.ssd


@pytest.mark.parametrize("method, kw", [("criminisi", {"loop": "host"}), ("criminisi", {"loop": "device"}),
                                         ("multiscale", {})])
@pytest.mark.opencl
def test_untimed_runs_skip_profiling_and_give_the_same_fill(rng, method, kw):
    """timings=False: a queue without profiling, the same image, patches and source map; the
    device stages' times are marked as not measured, and --stats-style tables say so."""
    from inpaint.report import format_stats

    img = scene(rng, 40, 48)
    mask = blob(40, 48, 20, 24, 7, 8)
    timed = inpaint(img, mask, method=method, patch=5, backend="opencl", timings=True, **kw)
    plain = inpaint(img, mask, method=method, patch=5, backend="opencl", **kw)  # (not profiled unless asked)
    assert timed.stats.timed and not plain.stats.timed
    np.testing.assert_array_equal(plain.image, timed.image)
    np.testing.assert_array_equal(plain.source_map, timed.source_map)
    assert getattr(plain.stats, "patches", None) == getattr(timed.stats, "patches", None)
    assert sum(timed.stats.stage_seconds.values()) > 0 and sum(plain.stats.stage_seconds.values()) == 0
    assert "not measured" in format_stats(plain.stats) and "not measured" not in format_stats(timed.stats)


def test_empty_mask_returns_the_image():
    img = np.arange(20 * 20 * 3, dtype=np.uint8).reshape(20, 20, 3)
    res = inpaint(img, np.zeros((20, 20), bool), method="criminisi", patch=5)
    assert res.stats.empty_mask and res.stats.iterations == 0
    np.testing.assert_array_equal(res.image, img)


@pytest.mark.opencl
def test_search_area_widens_when_it_holds_no_candidate(rng):
    img = scene(rng, 40, 60)
    mask = np.zeros((40, 60), bool)
    mask[10:30, 20:40] = True  # a full rectangle: at alpha 0 no window fits beside it
    a = inpaint(img, mask, method="criminisi", alpha=0.0, patch=7, backend="numpy")
    b = inpaint(img, mask, method="criminisi", alpha=0.0, patch=7, backend="opencl")
    assert a.stats.widened > 0 and a.stats.widened == b.stats.widened
    assert a.image.tobytes() == b.image.tobytes()
    check_invariants(img, mask, a)


def test_paper_search_area_walkingman():
    # Table 5: WalkingMan 512x384, 78x126 object, alpha 0.05 -> 86x139.
    box = (200, 120, 278, 246)
    x0, y0, x1, y1 = geometry.search_area(box, 0.05, 512, 384)
    assert (x1 - x0, y1 - y0) == (86, 139)
    assert geometry.search_area(box, None, 512, 384) == (0, 0, 512, 384)


@pytest.mark.parametrize("kwargs, message", [
    ({"patch": 4}, "odd"), ({"patch": 1}, "odd"), ({"patch": 99}, "does not fit in a 40x30 image"),
    ({"alpha": -0.1}, "alpha"), ({"alpha": "wide"}, "alpha"), ({"backend": "cuda"}, "backend"),
    ({"partition": ["ssd", "blur"]}, "blur"),
    ({"partition": 5}, "partition must be a name"), ({"prune": "yes"}, "prune"), ({"timings": "no"}, "timings"),
])
def test_bad_parameters(rng, kwargs, message):
    img = scene(rng, 30, 40)
    mask = blob(30, 40, 15, 20, 5, 5)
    with pytest.raises(InputError, match=message):
        Inpainter(img, mask, **kwargs)


@pytest.mark.parametrize("shape", [(2, 2), (2, 40), (40, 1)])
def test_an_image_narrower_than_the_smallest_patch_is_refused(shape):
    mask = np.zeros(shape, bool)
    mask[0, 0] = True
    h, w = shape
    with pytest.raises(InputError, match=f"a {w}x{h} image is too small to fill: the smallest patch is 3x3"):
        Inpainter(np.zeros(shape + (3,), np.uint8), mask)


def test_full_mask_and_no_source_patch_are_refused(rng):
    img = scene(rng, 20, 20)
    with pytest.raises(InputError, match="whole image"):
        Inpainter(img, np.ones((20, 20), bool), patch=3)
    mask = np.zeros((20, 20), bool)
    mask[:, 8:12] = True
    with pytest.raises(InputError, match="no valid source patch"):
        Inpainter(img, mask, patch=11)


@pytest.mark.parametrize("prune", [True, False])
@pytest.mark.parametrize("patch, table4", [(9, 1672), (13, 2952), (17, 4616)])
def test_local_memory_matches_table_4(runtime, patch, table4, prune):
    fb = FindBestPatch(runtime, patch, "local", prune)
    assert FindBestPatch.local_bytes(patch) == table4
    built = runtime.work_group_info(fb.knl)["local_mem_size"]
    # The driver may round each __local array up to its alignment; PoCL reports it exactly.
    assert table4 <= built <= table4 + 3 * 64
    assert built <= runtime.limits.local_mem_size


@pytest.mark.parametrize("prune", [True, False])
def test_global_variant_uses_no_local_memory(runtime, prune):
    fb = FindBestPatch(runtime, 17, "global", prune)
    assert runtime.work_group_info(fb.knl)["local_mem_size"] <= 64
    if prune:   # the bound's own reduction is small and fits the limits
        info = runtime.work_group_info(fb.knl_bound)
        assert info["local_mem_size"] <= 4 * fb.bound_group + 64 <= runtime.limits.local_mem_size


@pytest.mark.opencl
def test_stage3_counts_from_the_integral_for_big_objects(rng, monkeypatch):
    import inpaint.methods.criminisi.job as pl

    monkeypatch.setattr(pl, "INTEGRAL_PROGRAM_PIXELS", 0)  # as if its program were already loaded
    img = scene(rng, 60, 70)
    mask = blob(60, 70, 30, 35, 22, 26)          # a big object: the integral pays
    job = Inpainter(img, mask, patch=9, alpha=0.2, backend="opencl")
    assert job._integral_pays()
    small = Inpainter(img, blob(60, 70, 30, 35, 2, 2), patch=3, backend="opencl")
    assert not small._integral_pays()
    a = inpaint(img, mask, method="criminisi", patch=9, alpha=0.2, backend="numpy")
    assert job.run().image.tobytes() == a.image.tobytes()


@pytest.mark.opencl
def test_transfer_time_excludes_kernel_time(rng):
    img = scene(rng, 64, 80)
    mask = blob(64, 80, 32, 40, 10, 12)
    res = inpaint(img, mask, method="criminisi", alpha="full", patch=7, backend="opencl", timings=True)
    s = res.stats
    # Device stage times plus transfers cannot exceed the wall time they all happened in.
    assert sum(s.stage_seconds.values()) + s.transfer_seconds <= s.total_seconds * 1.05 + 1e-3


@given(seed=st.integers(0, 10_000), alpha=st.sampled_from([0.0, 0.1, "full"]), patch=st.sampled_from([3, 5]))
def test_sources_come_from_the_original_known_region(runtime, seed, alpha, patch):
    """The default source rule: every copied patch's whole source window lies outside the original
    object (Criminisi's Φ), the area only widens when Eq. 6's holds too few sources, and OpenCL == numpy."""
    rng = np.random.default_rng(seed)
    img = scene(rng, 36, 44)
    mask = blob(36, 44, 18, 22, 7, 9)
    a = inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="numpy")
    b = inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="opencl", device=runtime.device)
    assert a.image.tobytes() == b.image.tobytes() and a.stats.patches == b.stats.patches
    assert a.stats.source == "original"
    half = patch // 2
    for _, _, sy, sx in a.stats.patches:
        assert not mask[sy - half:sy + half + 1, sx - half:sx + half + 1].any()
    check_invariants(img, mask, a)
    area = a.stats.search_area
    eq6 = geometry.search_area(geometry.bbox(mask), None if alpha == "full" else alpha, 44, 36)
    if a.stats.widened:
        assert area != eq6 and area[0] <= eq6[0] and area[1] <= eq6[1] and area[2] >= eq6[2] and area[3] >= eq6[3]
    else:
        assert area == eq6


def test_filled_pixels_as_sources_on_request(runtime, rng):
    """source='filled' (the earlier rule) lets already-filled pixels become sources: some copied
    windows overlap the original object, and both backends still agree."""
    img = scene(rng, 48, 56)
    mask = blob(48, 56, 24, 28, 14, 16)
    a = inpaint(img, mask, method="criminisi", alpha=0.0, patch=5, source="filled", backend="numpy")
    b = inpaint(img, mask, method="criminisi", alpha=0.0, patch=5, source="filled", backend="opencl",
                device=runtime.device)
    assert a.image.tobytes() == b.image.tobytes() and a.stats.source == "filled"
    overlaps = [not (~mask[sy - 2:sy + 3, sx - 2:sx + 3]).all() for _, _, sy, sx in a.stats.patches]
    assert any(overlaps)
    check_invariants(img, mask, a)
    with pytest.raises(InputError, match="source must be"):
        Inpainter(img, mask, source="anywhere")


def naive_source_map(mask, patches, half):
    """Replay the copies pixel by pixel, in order: the oracle for ``source_map``."""
    h, w = mask.shape
    origin = {(y, x): (y, x) for y in range(h) for x in range(w) if not mask[y, x]}
    for ty, tx, sy, sx in patches:
        for dy in range(-half, half + 1):
            for dx in range(-half, half + 1):
                y, x = ty + dy, tx + dx
                if 0 <= y < h and 0 <= x < w and (y, x) not in origin:
                    origin[(y, x)] = origin[(sy + dy, sx + dx)]
    out = np.full((h, w, 2), -1, np.int32)
    for (y, x), o in origin.items():
        if mask[y, x]:
            out[y, x] = o
    return out


@pytest.mark.parametrize("source", ["original", "filled"])
@pytest.mark.parametrize("seed", range(3))
def test_source_map_equals_a_naive_replay(source, seed):
    rng = np.random.default_rng(seed)
    img = scene(rng, 36, 44)
    mask = blob(36, 44, 18, 22, 7 + seed, 9)
    res = inpaint(img, mask, method="criminisi", alpha=0.0, patch=5, source=source, backend="numpy")
    np.testing.assert_array_equal(res.source_map, naive_source_map(mask, res.stats.patches, 2))
    part = res.stats.patches[:len(res.stats.patches) // 2]     # mid-run: only the filled pixels
    np.testing.assert_array_equal(source_map(mask, part, 2), naive_source_map(mask, part, 2))


@pytest.mark.parametrize("backend", ["numpy", pytest.param("opencl", marks=pytest.mark.opencl)])
def test_unknown_device_stages_are_refused_on_every_backend(backend):
    from inpaint.api import inpaint
    from inpaint.errors import InputError

    img = np.random.default_rng(0).integers(0, 255, (30, 30, 3), np.uint8)
    mask = np.zeros((30, 30), bool)
    mask[10:15, 10:15] = True
    with pytest.raises(InputError, match=r"unknown stage\(s\) in the device stages \(--device-stages\): bogus"):
        inpaint(img, mask, method="criminisi", partition="bogus", backend=backend, patch=5)
