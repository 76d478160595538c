"""Device profiles: loading, validation, and enforcement of their caps on the built kernels."""

import re
from pathlib import Path

import numpy as np
import pytest
from helpers import first_by_default

from inpaint.api import inpaint
from inpaint.cl import runtime as rtmod
from inpaint.cl.profiles import ProfileError, available_profiles, load_profile
from inpaint.errors import InputError
from inpaint.methods.criminisi import opencl as stages_cl

ROOT = Path(__file__).resolve().parents[1]
PROFILES = available_profiles()


def test_shipped_profiles():
    assert set(PROFILES) == {"native", "adreno330", "desktop_gpu", "cpu_only"}
    a = load_profile("adreno330")
    assert (a.local_mem_size, a.compute_units, a.max_work_group_size) == (8192, 4, 256)
    assert load_profile("cpu_only").device_type == "cpu"
    native = load_profile("native")
    assert native.local_mem_size is None and native.max_work_group_size is None  # no caps


@pytest.mark.parametrize("name, partition", [("host", "none"), ("coprocess", "coprocess")])
def test_stage_splits_are_partitions_not_profiles(name, partition):
    with pytest.raises(ProfileError, match=f"is a partition, not a profile: use --partition {partition}"):
        load_profile(name)


@pytest.fixture(scope="module")
def device(runtime):
    return runtime.device


def _profile_runtime(device, name):
    return rtmod.get_runtime(device=device, profile=name)


def _all_kernels(rt, patch):
    ks = {"grey": stages_cl.Grey(rt).knl, "front": stages_cl.Front(rt).knl, "valid": stages_cl.Valid(rt).knl,
          "confidence": stages_cl.Confidence(rt).knl, "priority": stages_cl.Priority(rt).knl,
          "argmax": stages_cl.Priority(rt).argmax, "reduce": stages_cl.Reduce(rt).knl,
          "copy": stages_cl.Copy(rt).knl}
    fb = stages_cl.FindBestPatch(rt, patch)
    ks["ssd"] = fb.knl
    groups = {name: stages_cl.TILE[0] * stages_cl.TILE[1] for name in ks}
    groups["argmax"] = groups["reduce"] = stages_cl.reduce_group(rt)
    groups["ssd"] = fb.group ** 2
    return ks, groups


@pytest.mark.parametrize("name", PROFILES)
@pytest.mark.parametrize("patch", [9, 17, 25, 31])
def test_every_kernel_fits_every_profile(device, name, patch):
    rt = _profile_runtime(device, name)
    kernels, groups = _all_kernels(rt, patch)
    for kname, knl in kernels.items():
        info = rt.work_group_info(knl)
        assert info["local_mem_size"] <= rt.limits.local_mem_size, (kname, info)
        assert groups[kname] <= min(rt.limits.max_work_group_size, info["work_group_size"]), (kname, info)


@pytest.mark.parametrize("patch, label, table4", [
    (9, "local 8x8", 1672), (13, "local 8x8", 2952), (17, "local 8x8", 4616),
    (21, "local 8x8", None),   # (28^2)*4 + 8*21^2 = 6664 <= 8192
    (25, "local 4x4", None),   # 8x8: 9096 > 8192; 4x4: 8136 fits
    (27, "global 8x8", None),  # 4x4: 9432 > 8192
])
def test_adreno330_chooses_a_findbestpatch_that_fits(device, patch, label, table4):
    rt = _profile_runtime(device, "adreno330")
    fb = stages_cl.FindBestPatch(rt, patch)
    assert fb.label == label
    built = rt.work_group_info(fb.knl)["local_mem_size"]
    assert built <= 8192
    if table4:
        assert table4 <= built <= table4 + 192


def test_forcing_local_beyond_the_cap_is_refused(device, rng):
    img = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
    mask = np.zeros((64, 64), bool)
    mask[28:36, 28:36] = True
    with pytest.raises(InputError, match="8192"):
        inpaint(img, mask, method="criminisi", patch=27, profile="adreno330", variant="local", device=device)


@pytest.mark.parametrize("patch", first_by_default([9, 25, 27]))
def test_adreno330_native_and_numpy_give_the_same_image(device, rng, patch):
    yy, xx = np.mgrid[0:70, 0:90]
    img = np.clip(np.stack([xx * 3, yy * 3, (xx ^ yy) & 255], -1) + rng.integers(-9, 10, (70, 90, 3)), 0, 255)
    img = img.astype(np.uint8)
    mask = ((yy - 35) / 9.0) ** 2 + ((xx - 45) / 12.0) ** 2 <= 1
    ref = inpaint(img, mask, method="criminisi", patch=patch, alpha=0.5, backend="numpy")
    a = inpaint(img, mask, method="criminisi", patch=patch, alpha=0.5, backend="opencl", profile="adreno330",
                device=device)
    n = inpaint(img, mask, method="criminisi", patch=patch, alpha=0.5, backend="opencl", profile="native",
                device=device)
    assert a.image.tobytes() == ref.image.tobytes() == n.image.tobytes()
    assert a.stats.variant.startswith("global" if patch == 27 else "local")


def test_partition_none_needs_no_opencl(monkeypatch, rng):
    def boom(*a, **k):
        raise AssertionError("the 'none' partition must not touch OpenCL")
    monkeypatch.setattr(rtmod, "get_runtime", boom)
    img = rng.integers(0, 256, (30, 30, 3), dtype=np.uint8)
    mask = np.zeros((30, 30), bool)
    mask[10:15, 10:16] = True
    res = inpaint(img, mask, method="criminisi", patch=5, partition="none")
    assert res.stats.backend == "numpy" and res.stats.device_stages == ()


@pytest.mark.parametrize("text, field", [
    ('name = "x"\nlocal_mem_size = "big"\n', "local_mem_size"),
    ('name = "x"\nlocal_mem_size = -5\n', "local_mem_size"),
    ('name = "x"\nmax_work_item_sizes = [8, "a"]\n', "max_work_item_sizes"),
    ('name = "x"\ndevice_type = "fpga"\n', "device_type"),
    ('name = "x"\ndevice_stages = ["ssd"]\n', "--partition"),
    ('name = "x"\nlocal_memory = 8192\n', "local_memory"),
    ('name = "x"\ndouble_support = false\n', "double_support cap nothing"),
    ('name = "x\nlocal_mem_size = 1\n', "TOML"),
    ("local_mem_size = 4096\n", "field 'name' is required"),
    ("name = 123\n", "field 'name' must be a non-empty string"),
    ('name = ""\n', "field 'name' must be a non-empty string"),
])
def test_malformed_profile_names_the_field(tmp_path, text, field):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ProfileError, match=field):
        load_profile(str(path))


def test_unknown_profile_lists_the_shipped_ones():
    with pytest.raises(ProfileError, match="adreno330"):
        load_profile("pixel9000")


@pytest.mark.parametrize("text, cap", [
    ('name = "tiny"\nlocal_mem_size = 512\n', "local_mem_size"),
    ('name = "tiny"\nmax_work_group_size = 16\n', "max_work_group_size"),
    ('name = "tiny"\nmax_work_item_sizes = [4, 4, 1]\n', "max_work_item_sizes"),
])
def test_impossible_cap_fails_clearly(tmp_path, device, text, cap):
    path = tmp_path / "tiny.toml"
    path.write_text(text)
    with pytest.raises(ProfileError, match=cap):
        load_profile(str(path)).effective_limits(device)


def test_user_profile_from_a_path(tmp_path, device, rng):
    path = tmp_path / "myphone.toml"
    path.write_text('name = "myphone"\ndevice_type = "gpu"\nlocal_mem_size = 4096\nmax_work_group_size = 128\n')
    rt = rtmod.get_runtime(device=device, profile=str(path))
    assert rt.limits.local_mem_size == 4096 and rt.limits.max_work_group_size == 128
    assert stages_cl.FindBestPatch(rt, 13).label == "local 8x8"   # 2952 <= 4096
    assert stages_cl.FindBestPatch(rt, 17).label == "local 4x4"   # 8x8: 4616 > 4096; 4x4: 3912


@pytest.mark.parametrize("name", first_by_default(PROFILES))
def test_multiscale_fill_under_every_profile_equals_numpy(device, rng, name):
    """The multiscale kernels (1-D lists and the pyramid's 2-D tiles) fit every profile's caps,
    and the fill stays bit-identical to numpy."""
    img = rng.integers(0, 256, (70, 90, 3), dtype=np.uint8)
    mask = np.zeros((70, 90), bool)
    mask[25:50, 30:65] = True
    a = inpaint(img, mask, backend="numpy")
    b = inpaint(img, mask, backend="opencl", profile=name, device=device)
    assert len(b.stats.levels) > 1  # the pyramid kernels ran
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)


def test_kernels_use_no_doubles_and_switch_contraction_off():
    for cl_file in (ROOT / "kernels").rglob("*.cl"):
        text = cl_file.read_text()
        code = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
        assert not re.search(r"\bdouble\d*\b", code), cl_file.name
        assert text.startswith("#pragma OPENCL FP_CONTRACT OFF"), cl_file.name


def test_a_profile_is_read_once_until_its_file_changes(tmp_path):
    """Every fill names its profile again: the file is parsed once, and read anew once it changes."""
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\nlocal_mem_size = 4096\n')
    first = load_profile(str(path))
    assert load_profile(str(path)) is first and load_profile(path) is first
    assert load_profile(None) is load_profile("native")
    path.write_text('name = "mine"\nlocal_mem_size = 65536\n')
    assert load_profile(str(path)).local_mem_size == 65536
    path.write_text('name = "mine"\nlocal_mem_size = "a lot"\n')
    with pytest.raises(ProfileError, match="local_mem_size"):
        load_profile(str(path))


@pytest.mark.parametrize("listed", [[256], [256, 128]])
def test_work_item_sizes_cap_the_dimensions_listed_and_leave_the_others_as_the_device_has_them(
        tmp_path, device, listed):
    path = tmp_path / "partial.toml"
    path.write_text(f'name = "partial"\nmax_work_item_sizes = {listed}\n')
    real = tuple(int(s) for s in device.max_work_item_sizes)[:3]
    sizes = load_profile(str(path)).effective_limits(device).max_work_item_sizes
    assert sizes == tuple(min(listed[i], r) if i < len(listed) else r for i, r in enumerate(real))


def test_a_file_named_like_a_shipped_profile_in_the_working_folder_is_not_taken_for_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "native").write_text("not a profile")
    (tmp_path / "adreno330").mkdir()
    assert load_profile(None).name == "native" and load_profile("adreno330").name == "adreno330"
    (tmp_path / "mine.toml").write_text('name = "mine"\n')
    assert load_profile("mine.toml").name == "mine"
