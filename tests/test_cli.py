"""The ``inpaint`` command: bad input, input kinds, options, atomic writes.

Every bad input must give a non-zero exit, a message on stderr naming the problem, and
leave every file untouched (no output, no temporary file, inputs unchanged).  Every good
input must give a correct result: pixels outside the mask byte-identical to the input in
its original mode, and the hole holding exactly the library's fill (for the Criminisi
method, copies of original pixels outside the mask).

Runs in-process through ``inpaint.cli.main`` on tiny images (numpy backend unless the
test is about OpenCL); one test goes through ``python -m inpaint`` in a subprocess.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import helpers
import numpy as np
import pytest
from helpers import first_by_default, save_mask
from PIL import Image, ImageOps

from inpaint import cli, io as imageio
from inpaint.api import inpaint as run_pipeline
from inpaint.cl import build, runtime as rtmod
from inpaint.cli import guard, remove
from inpaint.io import atomic

REPO = Path(__file__).resolve().parents[1]
H, W = 40, 48  # image height and width
P = "5"  # patch side used throughout
# Runs about files, names, modes, messages and the mask's pixels need some fill, not the default one:
# they take the Criminisi method's (a hundredth of a second here, more than one second for the
# default's numpy fill) and compare the hole with the library's fill by that method.
QUICK = ("--method", "criminisi")
ORIENTATION, MAKE = 0x0112, 0x010F
STAGE_LABELS = (  # the eight stages of the paper's Table 2, as the --stats table names them
    "convert RGB to grey",
    "update border of the area to be filled",
    "mark source pixels to be used",
    "update pixel confidence in the filling area",
    "update pixel priorities in the filling area",
    "find the best matching patch",
    "best-patch reduction",
    "update RGB and grey image of the filling patch",
)


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------

def files_state(folder: Path) -> dict:
    """Every file under ``folder`` with its mtime and bytes."""
    return {p.relative_to(folder): (p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file()}


def box_mask(h: int = H, w: int = W) -> np.ndarray:
    return helpers.box_mask(h, w, slice(14, 24), slice(18, 30))


def default_fill(rgb: np.ndarray, mask: np.ndarray, method: str | None = None):
    """The library's numpy fill at patch ``P`` (by its default method unless ``method``): the oracle
    of the runs below."""
    options = {} if method is None else {"method": method}
    return helpers.library_fill(rgb, mask, patch=int(P), backend="numpy", **options)


def assert_removed(orig: np.ndarray, mask: np.ndarray, out: np.ndarray, copies: bool = False,
                   method: str | None = None) -> None:
    """Known pixels unchanged; the hole holds the library's fill of the image (an RGB view) by
    ``method`` (the default one unless given); with ``copies``, every filled pixel instead equals
    some original pixel outside the mask."""
    orig, out = np.asarray(orig), np.asarray(out)
    assert out.shape == orig.shape and out.dtype == orig.dtype
    np.testing.assert_array_equal(out[~mask], orig[~mask])
    if not copies:
        rgb = orig if orig.ndim == 3 else np.repeat(orig[..., None], 3, axis=2)
        expected = default_fill(rgb[..., :3], mask, method).image
        got = out if out.ndim == 3 else out[..., None]
        np.testing.assert_array_equal(got[mask][:, :3], expected[mask][:, :got.shape[-1]][:, :3])
        return
    known = orig[~mask].reshape(int((~mask).sum()), -1)
    filled = out[mask].reshape(int(mask.sum()), -1)
    sources = {row.tobytes() for row in known}
    missing = [row for row in filled if row.tobytes() not in sources]
    assert not missing, f"{len(missing)} filled pixels are not copies of source pixels, e.g. {missing[0]}"


def removed_count(err: str) -> int:
    found = re.search(r"removed (\d+) pixels", err)
    assert found, err
    return int(found.group(1))


@dataclasses.dataclass
class Scene:
    dir: Path
    image: Path
    mask: Path
    rgb: np.ndarray
    region: np.ndarray

    @property
    def out(self) -> Path:
        return self.dir / "out.png"


@pytest.fixture
def scene(tmp_path, rng) -> Scene:
    rgb = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    image = tmp_path / "img.png"
    Image.fromarray(rgb).save(image)
    region = box_mask()
    return Scene(tmp_path, image, save_mask(tmp_path / "mask.png", region), rgb, region)


@pytest.fixture
def no_opencl(monkeypatch):
    """Make OpenCL unavailable: no driver, no runtime cached by earlier tests, and no fallback
    warning said already by one (it is said once per process)."""
    def missing():
        raise rtmod.OpenCLUnavailable(f"no OpenCL platform found; {rtmod.INSTALL_HINT}")

    monkeypatch.setattr(rtmod, "all_devices", missing)
    monkeypatch.setattr(rtmod, "_RUNTIMES", {})
    monkeypatch.setattr(rtmod, "_WARNED", set())


# ---------------------------------------------------------------------------------------
# Bad input: exit 2, a message naming the problem, no file touched
# ---------------------------------------------------------------------------------------

def _missing_input(s):
    return [s.dir / "nope.png", "--mask", s.mask], r"image .*nope\.png does not exist"


def _missing_mask(s):
    return [s.image, "--mask", s.dir / "nomask.png"], r"mask .*nomask\.png does not exist"


def _folder_input(s):
    (s.dir / "photos").mkdir()
    return [s.dir / "photos", "--mask", s.mask, "-o", s.out], r"no image file in .*photos"


def _non_image(s):
    (s.dir / "notes.png").write_text("not a picture\n")
    return [s.dir / "notes.png", "--mask", s.mask, "-o", s.out], r"notes\.png is not an image"


def _truncated_png(s):
    data = s.image.read_bytes()
    (s.dir / "cut.png").write_bytes(data[: len(data) // 2])
    return [s.dir / "cut.png", "--mask", s.mask, "-o", s.out], r"cannot read image .*cut\.png.*truncated"


def _mask_size(s):
    Image.new("L", (W - 8, H), 255).save(s.dir / "small.png")
    return [s.image, "--mask", s.dir / "small.png"], rf"mask .*small\.png is {W - 8}x{H} but the image is {W}x{H}"


def _mask_everything(s):
    save_mask(s.dir / "all.png", np.ones((H, W), bool))
    return [s.image, "--mask", s.dir / "all.png"], r"mask covers the whole image"


def _no_valid_source(s):
    Image.fromarray(s.rgb[:9, :9]).save(s.dir / "tiny.png")
    stripe = np.zeros((9, 9), bool)
    stripe[:, 4] = True
    save_mask(s.dir / "stripe.png", stripe)
    return [s.dir / "tiny.png", "--mask", s.dir / "stripe.png", "-p", "9",
            "-o", s.out], r"no valid source patch.*smaller patch"


def _even_patch(s):
    return [s.image, "--mask", s.mask, "-p", "4"], r"--patch must be an odd integer >= 3, got 4"


def _patch_one(s):
    return [s.image, "--mask", s.mask, "-p", "1"], r"--patch must be an odd integer >= 3, got 1"


def _patch_too_large(s):
    return [s.image, "--mask", s.mask, "-p", "33"], r"patch size 33 is too large: at most 31 for this method"


def _patch_too_large_criminisi(s):
    return ([s.image, "--mask", s.mask, "-p", "41", "--method", "criminisi"],
            rf"patch size 41 does not fit in a {W}x{H} image: at most {H - 1 + H % 2}")


def _option_of_another_method(s):
    return [s.image, "--mask", s.mask, "--variant", "local"], r"--variant only applies to another --method"


def _candidates_out_of_range(s):
    return [s.image, "--mask", s.mask, "--candidates", "9"], r"candidates must be an integer from 1 to 8"


def _patch_not_a_number(s):
    return [s.image, "--mask", s.mask, "-p", "five"], r"--patch must be an odd integer.*'five'"


def _alpha_negative(s):
    return ([s.image, "--mask", s.mask, "--search-area", "-0.5"],
            r"^inpaint: error: --search-area must be a number >= 0.*'-0\.5'")


def _alpha_text(s):
    return [s.image, "--mask", s.mask, "--alpha", "abc"], r"alpha must be a number >= 0 or 'full'.*'abc'"


def _output_is_input(s):
    return [s.image, "--mask", s.mask, "-o", s.image], r"is the input image; refusing to overwrite it \(use --force\)"


def _output_is_input_other_spelling(s):
    (s.dir / "sub").mkdir()
    return ([s.image, "--mask", s.mask, "-o", s.dir / "sub" / ".." / "img.png"],
            r"is the input image; refusing")


def _output_is_mask(s):
    return [s.image, "--mask", s.mask, "-o", s.mask], r"is the mask; refusing to overwrite it"


def _mapping_is_input(s):
    return [s.image, "--mask", s.mask, "--save-mapping", s.image], r"--save-mapping .* is the input image"


def _unknown_profile(s):
    return [s.image, "--mask", s.mask, "--profile", "nosuchgpu"], r"unknown profile 'nosuchgpu'.*native"


def _unknown_stage(s):
    return ([s.image, "--mask", s.mask, "--partition", "grey,warp"],
            r"unknown stage\(s\) in the device stages \(--device-stages\): warp; stages are grey, front")


def _unknown_extension(s):
    return [s.image, "--mask", s.mask, "-o", s.dir / "out.xyz"], r"cannot write \.xyz files \(.*out\.xyz\)"


def _missing_output_folder(s):
    return [s.image, "--mask", s.mask, "-o", s.dir / "nodir" / "out.png"], r"output folder .*nodir does not exist"


def _missing_mapping_folder(s):
    return ([s.image, "--mask", s.mask, "--save-mapping", s.dir / "nodir" / "map.png"],
            r"output folder .*nodir does not exist")


def _huge_image(s):
    Image.new("RGB", (20, 20)).save(s.dir / "big.png")
    save_mask(s.dir / "bigmask.png", np.eye(20, dtype=bool))
    return ([s.dir / "big.png", "--mask", s.dir / "bigmask.png", "--max-pixels", "100"],
            r"big\.png is too large: 400 pixels, more than the limit of 100 pixels.*--max-pixels")


def _bad_max_pixels(s):
    return [s.image, "--mask", s.mask, "--max-pixels", "0"], r"--max-pixels must be positive"


def _no_mask_option(s):
    return [s.image], r"--mask is required"


def _case_with_box(s):
    return ["--case", "walkingman", "--box", "0,0,20,20", "-o", s.out], r"--case brings its own mask"


def _case_with_around(s):
    return ["--case", "walkingman", "--around", s.mask, "-o", s.out], r"--case brings its own mask"


def _empty_profile(s):
    return [s.image, "--mask", s.mask, "--profile", "", "-o", s.out], r"the profile name is empty; shipped profiles: "


BAD_INPUTS = [
    _case_with_box, _case_with_around, _empty_profile,
    _missing_input, _missing_mask, _folder_input, _non_image, _truncated_png, _mask_size, _mask_everything,
    _no_valid_source, _even_patch, _patch_one, _patch_too_large, _patch_too_large_criminisi,
    _option_of_another_method, _candidates_out_of_range, _patch_not_a_number, _alpha_negative,
    _alpha_text, _output_is_input, _output_is_input_other_spelling, _output_is_mask, _mapping_is_input,
    _unknown_profile, _unknown_stage, _unknown_extension, _missing_output_folder, _missing_mapping_folder,
    _huge_image, _bad_max_pixels, _no_mask_option,
]


@pytest.mark.parametrize("value, traceback", [("0", False), ("false", False), ("off", False), ("1", True),
                                              ("yes", True)])
def test_inpaint_debug_adds_the_traceback_and_keeps_the_line_and_status(scene, run, monkeypatch, value, traceback):
    monkeypatch.setenv("INPAINT_DEBUG", value)
    code, out, err = run(scene.image, "--mask", scene.dir / "nomask.png", "--backend", "numpy")
    assert code == 2 and err.endswith(f"inpaint: error: mask {scene.dir / 'nomask.png'} does not exist\n"), err
    assert ("Traceback (most recent call last)" in err) == traceback and (err.count("\n") == 1) != traceback


def test_a_missing_image_without_a_mask_is_one_line(tmp_path, run, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run("photo.jpg")
    assert (code, out, err) == (2, "", "inpaint: error: image photo.jpg does not exist\n")


@pytest.mark.parametrize("case", BAD_INPUTS, ids=[f.__name__.lstrip("_") for f in BAD_INPUTS])
def test_bad_input(scene, run, case):
    argv, pattern = case(scene)
    before = files_state(scene.dir)
    default_out = scene.image.with_name("img_removed.png")
    code, out, err = run(*argv, "--backend", "numpy")
    assert code == 2, err
    assert err.startswith("inpaint: error: "), err
    assert re.search(pattern, err), err
    assert err.count("\n") == 1 and "Traceback" not in err  # one clear line
    assert out == ""
    assert files_state(scene.dir) == before  # nothing created, modified or left behind
    assert not scene.out.exists() and not default_out.exists()


def test_max_pixels_does_not_leak(scene, run):
    limit = Image.MAX_IMAGE_PIXELS
    code, _, err = run(scene.image, "--mask", scene.mask, "--max-pixels", "100", "-o", scene.out)
    assert code == 2 and "limit of 100 pixels" in err
    assert Image.MAX_IMAGE_PIXELS == limit


@pytest.mark.parametrize("argv, pattern", [
    (["--backend", "cuda"], r"invalid choice: 'cuda'"),
    (["--variant", "texture"], r"invalid choice: 'texture'"),
    (["--max-pixels", "lots"], r"invalid int value: 'lots'"),
], ids=["backend", "variant", "max-pixels"])
def test_bad_option_values_are_usage_errors(scene, capsys, argv, pattern):
    before = files_state(scene.dir)
    with pytest.raises(SystemExit) as info:
        cli.main([str(scene.image), "--mask", str(scene.mask), *argv])
    assert info.value.code == 2
    assert re.search(pattern, capsys.readouterr().err)
    assert files_state(scene.dir) == before


def test_output_is_input_with_force(scene, run):
    code, _, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "numpy", "-o", scene.image, "--force",
                       *QUICK)
    assert code == 0, err
    with Image.open(scene.image) as res:
        assert_removed(scene.rgb, scene.region, np.asarray(res), method="criminisi")
    assert sorted(p.name for p in scene.dir.iterdir()) == ["img.png", "mask.png"]


# ---------------------------------------------------------------------------------------
# OpenCL unavailable
# ---------------------------------------------------------------------------------------

def test_backend_opencl_without_opencl_fails_with_advice(scene, run, no_opencl):
    before = files_state(scene.dir)
    code, out, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "opencl", "-o", scene.out)
    assert code == 3
    assert err.startswith("inpaint: error: OpenCL is not available: no OpenCL platform found")
    assert "pip install 'inpaint-cl[pocl]'" in err and "--backend numpy" in err
    assert out == "" and files_state(scene.dir) == before


def test_backend_auto_without_opencl_falls_back_to_numpy(scene, run, no_opencl):
    code, _, err = run(scene.image, "--mask", scene.mask, "-p", P, "-o", scene.out, *QUICK)
    assert code == 0, err
    warnings_ = [line for line in err.splitlines() if "warning" in line.lower()]
    assert len(warnings_) == 1, err
    assert warnings_[0].startswith("inpaint: warning: OpenCL unavailable, using the numpy backend")
    assert "(numpy on host (numpy)" in err
    with Image.open(scene.out) as res:
        assert_removed(scene.rgb, scene.region, np.asarray(res), method="criminisi")


# ---------------------------------------------------------------------------------------
# Empty mask: an unchanged copy, said so, exit 0
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["numpy", "opencl"])
@pytest.mark.opencl
def test_empty_mask_writes_unchanged_copy(scene, run, backend):
    save_mask(scene.dir / "empty.png", np.zeros((H, W), bool))
    code, out, err = run(scene.image, "--mask", scene.dir / "empty.png", "-o", scene.out, "--backend", backend)
    assert code == 0, err
    assert "selects no pixel: nothing to remove" in err and "unchanged copy" in err and str(scene.out) in err
    with Image.open(scene.out) as res:
        np.testing.assert_array_equal(np.asarray(res), scene.rgb)


# ---------------------------------------------------------------------------------------
# Input kinds: each converted correctly and written back in its original mode
# ---------------------------------------------------------------------------------------

def _grey(rng, d):
    g = rng.integers(0, 256, (H, W), dtype=np.uint8)
    Image.fromarray(g).save(d / "in.png")
    return d / "in.png", g


def _rgba(rng, d):
    a = rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
    Image.fromarray(a, "RGBA").save(d / "in.png")
    return d / "in.png", a


def _grey16(rng, d):
    v = rng.integers(0, 65536, (H, W), dtype=np.uint16)
    Image.fromarray(v).save(d / "in.png")
    with Image.open(d / "in.png") as check:
        assert check.mode == "I;16"
    return d / "in.png", v


def _palette(rng, d):
    idx = rng.integers(0, 16, (H, W), dtype=np.uint8)
    img = Image.fromarray(idx, "P")
    img.putpalette(rng.integers(0, 256, 48, dtype=np.uint8).tobytes())
    img.save(d / "in.png", transparency=2)
    return d / "in.png", idx


KINDS = {"L": _grey, "RGBA": _rgba, "I;16": _grey16, "P": _palette}


@pytest.mark.parametrize("mode", list(KINDS))
def test_input_kinds_keep_their_mode(tmp_path, rng, run, mode):
    src, orig = KINDS[mode](rng, tmp_path)
    mask = box_mask()
    save_mask(tmp_path / "mask.png", mask)
    out = tmp_path / "out.png"
    # A palette holds no blended colour, and a 16-bit image keeps the 8-bit fill's change: the
    # default method's blended fill shows both; the other modes take the quicker method's.
    method = None if mode in ("P", "I;16") else "criminisi"
    code, _, err = run(src, "--mask", tmp_path / "mask.png", "-p", P, "--backend", "numpy", "-o", out,
                       *(("--method", method) if method else ()))
    assert code == 0, err
    assert removed_count(err) == mask.sum()
    if mode == "P":  # a palette cannot hold blended colours: whole source pixels are copied, and it says so
        assert "note: palette images are filled by copying source pixels" in err
    else:
        assert "note" not in err  # PNG stores every one of these modes as it is
    with Image.open(src) as a, Image.open(out) as b:
        assert b.mode == a.mode == mode
        result = np.asarray(b)
        if mode == "P":
            assert b.getpalette() == a.getpalette()
            assert b.info.get("transparency") == 2
    np.testing.assert_array_equal(result[~mask], orig[~mask])
    # the hole holds the library's fill of the image's 8-bit RGB view
    view = imageio.read_image(src).rgb
    fill = default_fill(view, mask, method)
    if mode == "P":
        assert_removed(orig, mask, result, copies=True)
        rows, cols = fill.source_map[mask, 0], fill.source_map[mask, 1]
        np.testing.assert_array_equal(result[mask], orig[rows, cols])  # each its best match's pixel
    elif mode == "I;16":
        assert result.dtype == np.uint16 and result[~mask].max() > 255  # really 16-bit values
        # full precision kept: the copied 16-bit source moved by the fill's 8-bit change (x 257)
        diff = result[mask].astype(np.int64) - 257 * fill.image[mask, 0].astype(np.int64)
        assert np.abs(diff).max() <= 255
    else:
        np.testing.assert_array_equal(imageio.read_image(out).rgb[mask], fill.image[mask])
        if mode == "RGBA":  # alpha comes with the source pixel
            rows, cols = fill.source_map[mask, 0], fill.source_map[mask, 1]
            np.testing.assert_array_equal(result[mask, 3], orig[rows, cols, 3])


def test_rgba_to_jpeg_drops_alpha_with_a_note(tmp_path, rng, run):
    src, _ = _rgba(rng, tmp_path)
    save_mask(tmp_path / "mask.png", box_mask())
    out = tmp_path / "out.jpg"
    code, _, err = run(src, "--mask", tmp_path / "mask.png", "-p", P, "--backend", "numpy", "-o", out, *QUICK)
    assert code == 0, err
    assert "inpaint: note: JPEG has no alpha channel: transparency was dropped" in err
    with Image.open(out) as res:
        assert res.format == "JPEG" and res.mode == "RGB" and res.size == (W, H)


def _exif_jpeg(tmp_path, rng):
    """A 48x40 JPEG stored sideways (orientation 6): upright it is 40 wide, 48 high."""
    exif = Image.Exif()
    exif[ORIENTATION] = 6
    exif[MAKE] = "TestCam"
    path = tmp_path / "photo.jpg"
    Image.fromarray(rng.integers(0, 256, (H, W, 3), dtype=np.uint8)).save(path, exif=exif, quality=95)
    with Image.open(path) as raw:
        upright = np.asarray(ImageOps.exif_transpose(raw).convert("RGB"))
        stored = np.asarray(raw.convert("RGB"))
    np.testing.assert_array_equal(upright, np.rot90(stored, -1))
    assert upright.shape == (W, H, 3)
    return path, upright


@pytest.mark.parametrize("ext", ["png", "jpg"])
def test_exif_rotated_jpeg(tmp_path, rng, run, ext):
    src, upright = _exif_jpeg(tmp_path, rng)
    mask = box_mask(W, H)  # drawn on the upright view
    save_mask(tmp_path / "mask.png", mask)
    out = tmp_path / f"out.{ext}"
    code, _, err = run(src, "--mask", tmp_path / "mask.png", "-p", P, "--backend", "numpy", "-o", out, *QUICK)
    assert code == 0, err
    assert removed_count(err) == mask.sum()
    with Image.open(out) as res:
        exif = res.getexif()
        assert exif[MAKE] == "TestCam"
        if ext == "jpg":  # written back block by block: in the stored frame, with its orientation tag
            with Image.open(src) as orig:
                assert res.size == orig.size and exif.get(ORIENTATION) == orig.getexif()[ORIENTATION]
            res = ImageOps.exif_transpose(res)
        else:
            assert exif.get(ORIENTATION, 1) == 1
        assert res.size == (H, W)  # upright: width and height swapped
        pixels = np.asarray(res.convert("RGB"))
    if ext == "png":  # lossless: exact check
        assert_removed(upright, mask, pixels, method="criminisi")


def test_exif_rotated_jpeg_refuses_a_mask_of_the_stored_orientation(tmp_path, rng, run):
    src, _ = _exif_jpeg(tmp_path, rng)
    save_mask(tmp_path / "mask.png", box_mask(H, W))  # 48 wide, like the stored (sideways) pixels
    code, _, err = run(src, "--mask", tmp_path / "mask.png", "-p", P, "--backend", "numpy",
                       "-o", tmp_path / "out.png")
    assert code == 2 and f"is {W}x{H} but the image is {H}x{W}" in err
    assert not (tmp_path / "out.png").exists()


# ---------------------------------------------------------------------------------------
# Mask kinds
# ---------------------------------------------------------------------------------------

def _anti_aliased_mask(d, rng):
    region = box_mask()
    grey = np.where(region, 255, 0).astype(np.uint8)
    edge = box_mask()
    edge[15:23, 19:29] = False  # the box's one-pixel rim
    grey[edge] = 140  # soft inside the object
    halo = np.zeros((H, W), bool)
    halo[13:25, 17:31] = True
    halo &= ~region
    grey[halo] = 100  # soft outside it
    Image.fromarray(grey).save(d / "m.png")
    return d / "m.png", grey > 127


def _transparent_rgba_mask(d, rng):
    region = box_mask()
    rgba = np.zeros((H, W, 4), np.uint8)
    rgba[..., :3] = 255  # white everywhere: brightness alone would select the whole image
    rgba[region, :3] = 0  # and the object is painted black
    rgba[..., 3] = np.where(region, 255, 0)
    Image.fromarray(rgba, "RGBA").save(d / "m.png")
    return d / "m.png", region


def _jpeg_mask(d, rng):
    Image.fromarray(np.where(box_mask(), 255, 0).astype(np.uint8)).save(d / "m.jpg", quality=80)
    with Image.open(d / "m.jpg") as raw:
        assert np.unique(np.asarray(raw)).size > 2  # JPEG noise is there
    return d / "m.jpg", box_mask()


MASKS = {"anti-aliased-grey": _anti_aliased_mask, "RGBA-transparency": _transparent_rgba_mask,
         "JPEG": _jpeg_mask}


@pytest.mark.parametrize("kind", list(MASKS))
def test_mask_kinds(scene, rng, run, kind):
    path, region = MASKS[kind](scene.dir, rng)
    code, _, err = run(scene.image, "--mask", path, "-p", P, "--backend", "numpy", "-o", scene.out, *QUICK)
    assert code == 0, err
    assert removed_count(err) == region.sum()
    with Image.open(scene.out) as res:
        assert_removed(scene.rgb, region, np.asarray(res), method="criminisi")


def test_help_states_the_mask_rule(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "brighter than mid-grey (> 127) mark the object" in text
    assert "its opaque pixels" in text and "JPEG masks work" in text


# ---------------------------------------------------------------------------------------
# Options and outputs
# ---------------------------------------------------------------------------------------

def test_opencl_run_stats_and_mapping_match_numpy(scene, run, runtime):
    mapping = scene.dir / "mapping.png"
    crim = ("--method", "criminisi")
    code, out, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "opencl", "-o", scene.out,
                         "--stats", "--save-mapping", mapping, *crim)
    assert code == 0, err
    assert "(opencl on " in err
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    for label in STAGE_LABELS:
        assert any(line.startswith(f"| {label} | device |") for line in rows), out
    assert any(line.startswith("| **total** |") for line in rows)
    assert "backend opencl" in out and "iterations" in out
    assert ("pruned" in out) == (not runtime.is_gpu)  # prune='auto' prunes on CPU devices only
    for flag, pruned in (("on", True), ("off", False)):
        code, out, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "opencl",
                             "-o", scene.dir / f"prune_{flag}.png", "--stats", "--prune", flag, *crim)
        assert code == 0, err
        assert ("pruned" in out) == pruned
        with Image.open(scene.dir / f"prune_{flag}.png") as a, Image.open(scene.out) as b:
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with Image.open(scene.out) as res:
        gpu = np.asarray(res)
    assert_removed(scene.rgb, scene.region, gpu, copies=True)
    with Image.open(mapping) as m:
        assert m.size == (W, H) and m.mode == "RGB"
        drawn = np.asarray(m)
    assert (drawn != gpu).any()  # the patch pairs are drawn on it
    assert ((drawn == (255, 0, 0)).all(axis=-1)).any() and ((drawn == (0, 255, 0)).all(axis=-1)).any()

    numpy_out = scene.dir / "numpy.png"
    code, out, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "numpy", "-o", numpy_out,
                         "--stats", *crim)
    assert code == 0, err
    assert all(f"| {label} | host |" in out for label in STAGE_LABELS)
    with Image.open(numpy_out) as res:
        np.testing.assert_array_equal(np.asarray(res), gpu)  # bit-identical backends


def test_multiscale_stats_mapping_and_options(scene, run, runtime):
    mapping = scene.dir / "offsets.png"
    code, out, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "opencl", "-o", scene.out,
                         "--stats", "--save-mapping", mapping, "--candidates", "3")
    assert code == 0, err
    assert "multiscale fill, backend opencl" in out and "blend 3," in out and "rounds" in out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    for label in ("PatchMatch", "voting", "gradient-domain correction", "**total**"):
        assert any(line.startswith(f"| {label}") for line in rows), out
    expected = run_pipeline(scene.rgb, scene.region, patch=int(P), candidates=3, backend="numpy")
    with Image.open(scene.out) as res:
        got = np.asarray(res)
    np.testing.assert_array_equal(got[~scene.region], scene.rgb[~scene.region])
    np.testing.assert_array_equal(got[scene.region], expected.image[scene.region])  # bit-identical backends
    with Image.open(mapping) as m:
        drawn = np.asarray(m.convert("RGB"))
    inside = drawn[scene.region]
    assert (inside.max(axis=1) >= 64).all()  # every filled pixel is coloured by its source offset
    assert (drawn[~scene.region] == drawn[~scene.region][:, :1]).all()  # the rest is grey
    # the paper's method, with sources also from filled pixels
    code, _, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "numpy", "-o", scene.dir / "old.png",
                       "--method", "criminisi", "--source", "filled")
    assert code == 0, err
    old = run_pipeline(scene.rgb, scene.region, method="criminisi", patch=int(P), source="filled", backend="numpy")
    with Image.open(scene.dir / "old.png") as res:
        np.testing.assert_array_equal(np.asarray(res), old.image)


def test_seed_repeats_a_fill_and_varies_it(scene, run, runtime):
    patch = 3  # (the default method's fills, each in about half the numpy time of patch P)
    files = {}
    for seed, backend in ((5, "numpy"), (5, "opencl"), (6, "numpy")):
        files[seed, backend] = scene.dir / f"seed{seed}_{backend}.png"
        code, _, err = run(scene.image, "--mask", scene.mask, "-p", patch, "--seed", seed, "--backend", backend,
                           "-o", files[seed, backend])
        assert code == 0, err
    assert files[5, "numpy"].read_bytes() == files[5, "opencl"].read_bytes()
    with Image.open(files[5, "numpy"]) as a, Image.open(files[6, "numpy"]) as b:
        five, six = np.asarray(a), np.asarray(b)
    expected = run_pipeline(scene.rgb, scene.region, patch=patch, seed=5, backend="numpy").image
    np.testing.assert_array_equal(five, expected)
    np.testing.assert_array_equal(six[~scene.region], scene.rgb[~scene.region])
    assert (five[scene.region] != six[scene.region]).any()
    before = files_state(scene.dir)
    for argv, message in ((["--method", "criminisi", "--seed", "5"], "--seed only applies to another --method"),
                          (["--seed", "65536"], "--seed must be an integer from 0 to 65535, got '65536'"),
                          (["--seed", "-1"], "--seed must be an integer from 0 to 65535, got '-1'")):
        code, out, err = run(scene.image, "--mask", scene.mask, *argv, "-o", scene.dir / "x.png")
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err, err
    assert files_state(scene.dir) == before


@pytest.mark.parametrize("name, expected", [("photo.png", "photo_removed.png"), ("photo.jpg", "photo_removed.jpg"),
                                            ("shot.v2.bmp", "shot.v2_removed.bmp")])
def test_default_output_name_beside_the_input(tmp_path, rng, run, monkeypatch, name, expected):
    folder = tmp_path / "pics"
    folder.mkdir()
    Image.fromarray(rng.integers(0, 256, (H, W, 3), dtype=np.uint8)).save(folder / name)
    save_mask(folder / "mask.png", box_mask())
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, _, err = run(folder / name, "--mask", folder / "mask.png", "-p", P, "--backend", "numpy", *QUICK)
    assert code == 0, err
    assert (folder / expected).is_file() and err.rstrip().endswith(str(folder / expected))
    assert list(elsewhere.iterdir()) == []


def test_no_progress_bar_when_stderr_is_not_a_terminal(scene, run):
    code, out, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "numpy", "-o", scene.out, *QUICK)
    assert code == 0
    assert "filling [" not in err and "\r" not in err
    assert err.count("\n") == 1 and "removed" in err  # just the summary line


def test_progress_bar_on_a_terminal(scene, run, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "numpy", "-o", scene.out)
    assert code == 0
    assert "\rinpaint: filling [" in err and "100%" in err and "elapsed" in err


def _screen(text):
    """The terminal's lines after ``text``: a carriage return goes back to the line's start."""
    lines = [""]
    for part in re.split(r"(\r|\n)", text):
        if part == "\n":
            lines.append("")
        elif part == "\r":
            lines[-1] = ("\r", lines[-1])  # mark: what follows overwrites from column 0
        elif part:
            before = lines[-1]
            old = before[1] if isinstance(before, tuple) else ""
            new = part if isinstance(before, tuple) else before + part
            lines[-1] = new + old[len(new):] if isinstance(before, tuple) else new
    return [line[1] if isinstance(line, tuple) else line for line in lines]


def test_the_bar_fits_its_line_leaves_nothing_behind_and_makes_way_for_messages(monkeypatch):
    import io as _io

    from inpaint.cli import progress, shared

    monkeypatch.setenv("COLUMNS", "60")  # (a StringIO is no terminal: the width comes from COLUMNS)
    stream = _io.StringIO()
    bar = progress.Progress("inpaint", "filling", "bar", stream=stream)
    bar(0.0)   # "... estimating the time left": the longest words
    bar.last = -1
    monkeypatch.setattr(sys, "stderr", stream)
    shared.say("inpaint: note: a message meanwhile")
    bar(0.5)
    bar.last = -1
    bar(1.0)
    bar.close()
    lines = [line.rstrip() for line in _screen(stream.getvalue())]  # (spaces show as nothing)
    assert all(len(line) <= 60 for line in _screen(stream.getvalue()))  # one line each (a longer one wraps)
    assert lines[0] == "inpaint: note: a message meanwhile"   # not glued to the bar, no stale bar above
    assert lines[1].startswith("inpaint: filling [###") and lines[1].endswith("done")
    assert lines[2:] == [""]


def test_plain_progress_says_done_however_short_the_job():
    import io as _io

    from inpaint.cli import progress

    stream = _io.StringIO()
    bar = progress.Progress("inpaint", "filling", "plain", stream=stream)
    bar(0.5)
    bar(1.0)
    bar(1.0)
    assert stream.getvalue().splitlines() == [stream.getvalue().splitlines()[0]]
    assert stream.getvalue().startswith("inpaint: filling 100%") and "done" in stream.getvalue()


def test_quiet_prints_nothing(scene, run, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "numpy", "-o", scene.out, "-q",
                         *QUICK)
    assert code == 0 and out == "" and err == ""
    assert scene.out.is_file()


def test_devices_lists_pocl(run, runtime):
    code, out, err = run("devices")
    assert code == 0, err
    assert "Portable Computing Language" in out
    assert "| native |" in out


def test_devices_without_opencl(run, no_opencl):
    code, out, err = run("devices")
    assert code == 3
    assert "no OpenCL device" in err and "pocl" in err


@pytest.mark.parametrize("existing", [False, True], ids=["new-output", "existing-output"])
def test_atomic_write(scene, run, monkeypatch, existing):
    if existing:
        Image.new("RGB", (W, H), (9, 9, 9)).save(scene.out)
    before = files_state(scene.dir)

    def failing_encode(img, fh, *args):
        fh.write(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)  # half-written...
        raise OSError(28, "No space left on device")  # ...then the disk fills up

    monkeypatch.setattr(atomic, "encode", failing_encode)
    code, _, err = run(scene.image, "--mask", scene.mask, "-p", P, "--backend", "numpy", "-o", scene.out, "--overwrite",
                       *QUICK)
    assert code == 2
    assert err == f"inpaint: error: cannot write {scene.out}: No space left on device\n", err
    assert files_state(scene.dir) == before  # no output, no temp file, the old output intact
    assert scene.out.exists() == existing


# ---------------------------------------------------------------------------------------
# The console script path
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("good", [True, False], ids=["removes", "bad-patch"])
def test_python_dash_m_inpaint(scene, good):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    before = files_state(scene.dir)
    proc = subprocess.run(
        [sys.executable, "-m", "inpaint", str(scene.image), "--mask", str(scene.mask),
         "--patch", P if good else "6", "--backend", "numpy", "-o", str(scene.out), *QUICK],
        capture_output=True, text=True, cwd=scene.dir, env=env, timeout=120)
    if good:
        assert proc.returncode == 0, proc.stderr
        assert f"-> {scene.out}" in proc.stderr
        with Image.open(scene.out) as res:
            assert_removed(scene.rgb, scene.region, np.asarray(res), method="criminisi")
    else:
        assert proc.returncode == 2
        assert proc.stderr == "inpaint: error: --patch must be an odd integer >= 3, got 6\n"
        assert files_state(scene.dir) == before


# ---------------------------------------------------------------------------------------
# Command conventions: version, usage, bare command, the bundled example, --grow
# ---------------------------------------------------------------------------------------

def test_version_comes_from_the_package_metadata(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"inpaint {version('inpaint-cl')}"


def test_version_falls_back_to_the_package_version(monkeypatch):
    import importlib.metadata

    import inpaint

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert remove.version() == inpaint.__version__


def test_usage_lists_the_subcommands(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    usage = capsys.readouterr().out.split("\n\n")[0]
    assert "inpaint {resize,select,bench,devices,app}" in usage and "inpaint --case NAME" in usage


def test_bare_inpaint_prints_usage_and_writes_nothing(tmp_path, run, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run()
    assert code == 2 and out == ""
    assert err.startswith("usage: inpaint IMAGE --mask MASK")
    assert "inpaint: error: no image given" in err and "--case walkingman" in err
    assert list(tmp_path.iterdir()) == []


def test_case_walkingman_as_in_the_quick_start(tmp_path, run, monkeypatch, runtime):
    monkeypatch.chdir(tmp_path)
    code, out, err = run("--case", "walkingman", "--stats", "-o", "walkingman_removed.png")
    assert code == 0, err
    assert "multiscale fill" in out and err.rstrip().endswith("-> walkingman_removed.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walkingman_removed.png"]


def test_loop_device_and_host_write_the_same_file(scene, run, runtime, tmp_path):
    outs = {}
    for loop in ("device", "host"):
        outs[loop] = tmp_path / f"{loop}.png"
        code, out, err = run(scene.image, "--mask", scene.mask, "--method", "criminisi", "-p", P, "--loop", loop,
                             "--backend", "opencl", "--stats", "-o", outs[loop])
        assert code == 0, err
        assert ("device-resident loop" in out) == (loop == "device")
    assert outs["device"].read_bytes() == outs["host"].read_bytes()
    code, _, err = run(scene.image, "--mask", scene.mask, "--loop", "host", "-o", tmp_path / "x.png")
    assert code == 2 and "--loop only applies to another --method" in err
    code, _, err = run(scene.image, "--mask", scene.mask, "--method", "criminisi", "--loop", "device",
                       "--backend", "numpy", "-o", tmp_path / "x.png")
    assert code == 2 and "loop 'device' (--fill-loop device) needs every stage on an OpenCL device" in err


@pytest.mark.parametrize("radius", first_by_default([1, 3]))
def test_grow_dilates_the_mask_before_filling(scene, run, radius):
    from inpaint.masks import grow

    grown = grow(scene.region, radius)
    code, _, err = run(scene.image, "--mask", scene.mask, "--grow", radius, "-p", P, "--backend", "numpy",
                       "-o", scene.out, *QUICK)
    assert code == 0, err
    assert removed_count(err) == grown.sum() > scene.region.sum()
    assert f"(the mask grown by {radius} from {int(scene.region.sum())})" in err
    with Image.open(scene.out) as res:
        assert_removed(scene.rgb, grown, np.asarray(res), method="criminisi")


def test_grow_zero_changes_nothing(scene, run):
    code, _, err = run(scene.image, "--mask", scene.mask, "--grow", "0", "-p", P, "--backend", "numpy",
                       "-o", scene.out, *QUICK)
    assert code == 0 and removed_count(err) == scene.region.sum()


def test_resize_remove_with_grow_removes_the_grown_object(scene, run):
    from inpaint.masks import grow

    code, _, err = run("resize", scene.image, "--remove", scene.mask, "--grow", "2", "--backend", "numpy",
                       "-o", scene.out)
    assert code == 0, err
    assert f"removed {int(grow(scene.region, 2).sum())} pixels" in err
    with Image.open(scene.out) as res:
        assert res.size == (W, H)  # the size is restored


def test_resize_without_a_size_is_an_error(scene, run):
    before = files_state(scene.dir)
    code, _, err = run("resize", scene.image, "-o", scene.out)
    assert code == 2 and "give the target size with --width and/or --height" in err
    assert files_state(scene.dir) == before


def test_device_that_does_not_exist_is_exit_3_not_a_fallback(scene, run):
    before = files_state(scene.dir)
    code, _, err = run(scene.image, "--mask", scene.mask, "--device", "nosuch", "-o", scene.out)
    assert code == 3 and err.startswith("inpaint: error: no such device: device 'nosuch' matches no OpenCL device")
    assert files_state(scene.dir) == before


@pytest.mark.opencl
def test_bench_quick_alone_is_a_short_default_run(tmp_path, run):
    folder = tmp_path / "tiny"
    folder.mkdir()
    rng = np.random.default_rng(3)
    Image.fromarray(rng.integers(0, 256, (24, 32, 3), dtype=np.uint8)).save(folder / "image.png")
    save_mask(folder / "mask.png", box_mask(24, 32) & (np.arange(32) < 26)[None, :])
    code, out, err = run("bench", "--quick", "--case", folder, "--no-numpy", "--device", "cpu")
    assert code == 0, err
    assert "Median of 1 run(s)" in out
    rows = [line for line in out.splitlines() if line.startswith("| tiny |")]
    assert rows and not any("| full |" in r for r in rows)  # no slow full-search row


def test_a_slow_kernel_build_is_explained_once(monkeypatch, capsys):
    import time as _time

    monkeypatch.setattr(guard, "COMPILE_NOTE_AFTER", 0.05)
    monkeypatch.setattr(guard, "_COMPILE_NOTED", False)
    with guard.compile_note("inpaint"):
        for _ in range(2):  # two slow builds: one note
            for listener in list(build._BUILD_LISTENERS):
                listener("start", ("k",), 0.0)
            _time.sleep(0.2)
            for listener in list(build._BUILD_LISTENERS):
                listener("end", ("k",), 0.2)
    with guard.compile_note("inpaint"):  # a fast build: no note
        for listener in list(build._BUILD_LISTENERS):
            listener("start", ("k",), 0.0)
            listener("end", ("k",), 0.0)
    err = capsys.readouterr().err
    assert err == ("inpaint: compiling the OpenCL kernels this run needs (once for each kind of fill; later runs "
                   "reuse them)...\n")
    assert not build._BUILD_LISTENERS


def test_a_kernel_compiled_at_its_first_launch_is_explained_if_the_run_lasts(monkeypatch, capsys):
    """A 'compile' event (PoCL compiles a kernel as its first launch runs, with no end event) shows
    the note once the run has lasted a moment past it, once; a run that ends sooner says nothing.
    Its time is not known apart from the work's (its cache file comes at some later moment), so
    none is claimed for it."""
    import time as _time

    from inpaint.cl import kcache

    monkeypatch.setattr(guard, "COMPILE_NOTE_AFTER", 0.05)
    monkeypatch.setattr(guard, "_COMPILE_NOTED", False)
    monkeypatch.setattr(kcache, "written_after", lambda since: since + 2.0)
    with guard.compile_note("inpaint") as took:  # a short run
        for listener in list(build._BUILD_LISTENERS):
            listener("compile", ("vote",), 0.0)
    assert capsys.readouterr().err == "" and took.seconds is None
    with guard.compile_note("inpaint") as took:
        for name in ("vote", "compose"):
            for listener in list(build._BUILD_LISTENERS):
                listener("compile", (name,), 0.0)
        _time.sleep(0.3)
        assert capsys.readouterr().err == ("inpaint: compiling the OpenCL kernels this run needs (once for each "
                                           "kind of fill; later runs reuse them)...\n")
    assert took.seconds == 0.0 and took.during  # (the summary says "compiled as they first ran")


def test_a_run_being_stopped_does_not_announce_its_compile(monkeypatch, capsys):
    """A stop that comes as a slow build starts: the run's one line is the stop's, not the
    compile's note as well."""
    import time as _time

    from inpaint import cancel

    monkeypatch.setattr(guard, "COMPILE_NOTE_AFTER", 0.05)
    monkeypatch.setattr(guard, "_COMPILE_NOTED", False)
    with guard.compile_note("inpaint"):
        for listener in list(build._BUILD_LISTENERS):
            listener("start", ("k",), 0.0)
        cancel.request()
        try:
            _time.sleep(0.3)
        finally:
            cancel.clear()
        for listener in list(build._BUILD_LISTENERS):
            listener("end", ("k",), 0.3)
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------------------------------
# Batches
# ---------------------------------------------------------------------------------------

def _batch(tmp_path, rng, n=3, bad=None):
    folder = tmp_path / "photos"
    folder.mkdir()
    region = box_mask()
    pictures = {}
    for i in range(n):
        rgb = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
        Image.fromarray(rgb).save(folder / f"p{i}.png")
        if i == bad:
            (folder / f"p{i}_mask.png").write_bytes(b"not a png")
        else:
            save_mask(folder / f"p{i}_mask.png", region)
        pictures[f"p{i}.png"] = rgb
    return folder, region, pictures


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_batch_folder_masks_beside_and_a_bad_file(tmp_path, rng, run, jobs):
    folder, region, pictures = _batch(tmp_path, rng, n=4, bad=2)
    out = tmp_path / "out"
    out.mkdir()
    before = files_state(folder)
    # The batch machinery is under test, not the fill: the paper's quicker method does.
    code, _, err = run(folder, "-o", out, "-p", P, "--method", "criminisi", "--backend", "numpy", "--jobs", jobs)
    assert code == 2, err  # one file failed: reported, the others done
    assert "error: [3/4] p2.png: " in err and "Traceback" not in err
    assert "inpaint: 4 images: 3 removed, 1 failed (p2.png)" in err
    assert sorted(p.name for p in out.iterdir()) == ["p0.png", "p1.png", "p3.png"]
    for name in ("p0.png", "p1.png", "p3.png"):
        with Image.open(out / name) as res:
            assert_removed(pictures[name], region, np.asarray(res), copies=True)
    assert files_state(folder) == before  # inputs untouched, no leftovers


def test_batch_masks_folder_and_one_shared_mask(tmp_path, rng, run):
    folder, region, pictures = _batch(tmp_path, rng, n=2)
    masks = tmp_path / "masks"
    masks.mkdir()
    other = np.zeros((H, W), bool)
    other[5:12, 6:15] = True
    for name in pictures:
        save_mask(masks / name, other)
        (folder / name.replace(".png", "_mask.png")).unlink()
    code, _, err = run(*[folder / n for n in pictures], "--masks", masks, "-p", P, "--method", "criminisi",
                       "--backend", "numpy")
    assert code == 0, err
    for name, rgb in pictures.items():  # default outputs: beside each input
        with Image.open(folder / name.replace(".png", "_removed.png")) as res:
            assert_removed(rgb, other, np.asarray(res), copies=True)
    out = tmp_path / "shared"
    out.mkdir()
    code, _, err = run(*[folder / n for n in pictures], "--mask", masks / "p0.png", "-o", out, "-p", P,
                       "--method", "criminisi",
                       "--backend", "numpy", "-q")
    assert code == 0 and err == ""
    assert sorted(p.name for p in out.iterdir()) == sorted(pictures)


def _is_subsequence(short: np.ndarray, long: np.ndarray) -> bool:
    """Whether the pixels of ``short`` occur in ``long`` in the same order (a row after removing
    vertical seams: seam carving only deletes pixels)."""
    j = 0
    for px in short:
        while j < len(long) and not np.array_equal(long[j], px):
            j += 1
        if j == len(long):
            return False
        j += 1
    return True


def _resize_batch(tmp_path, rng, widths=(40, 44, 48)):
    folder = tmp_path / "photos"
    folder.mkdir()
    pictures = {}
    for i, w in enumerate(widths):
        rgb = rng.integers(0, 256, (H, w, 3), dtype=np.uint8)
        Image.fromarray(rgb).save(folder / f"q{i}.png")
        pictures[f"q{i}.png"] = rgb
    (folder / "q9.png").write_bytes(b"not a png")                      # a bad file: reported, skipped
    Image.fromarray(rgb).save(folder / "q0_mask.png")                  # masks and earlier results are
    Image.fromarray(rgb).save(folder / "q1_resized.png")               # not part of the batch
    return folder, pictures


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_resize_batch_folder_and_a_bad_file(tmp_path, rng, run, jobs):
    folder, pictures = _resize_batch(tmp_path, rng)
    out = tmp_path / "out"
    out.mkdir()
    before = files_state(folder)
    code, _, err = run("resize", folder, "-W", 36, "-o", out, "--backend", "numpy", "--jobs", jobs)
    assert code == 2, err
    assert "inpaint resize: error: [4/4] q9.png: " in err and "Traceback" not in err
    assert "inpaint resize: 4 images: 3 resized, 1 failed (q9.png)" in err
    assert sorted(p.name for p in out.iterdir()) == sorted(pictures)
    for name, rgb in pictures.items():
        with Image.open(out / name) as res:
            got = np.asarray(res)
        assert got.shape == (H, 36, 3)
        assert all(_is_subsequence(got[y], rgb[y]) for y in range(H))
    assert files_state(folder) == before


def test_resize_batch_protect_folder_and_results_beside(tmp_path, rng, run):
    folder, pictures = _resize_batch(tmp_path, rng)
    (folder / "q9.png").unlink()
    masks = tmp_path / "keep"
    masks.mkdir()
    for name, rgb in pictures.items():
        keep = np.zeros(rgb.shape[:2], bool)
        keep[:, 10:15] = True
        save_mask(masks / name, keep)
    code, _, err = run("resize", *[folder / n for n in pictures], "-W", 30, "--protect", masks,
                       "--backend", "numpy", "-q", "--overwrite")
    assert code == 0 and err == "", err
    for name, rgb in pictures.items():
        with Image.open(folder / name.replace(".png", "_resized.png")) as res:
            got = np.asarray(res)
        assert got.shape == (H, 30, 3)
        for y in range(H):  # no seam crossed the protected band: it is still there, whole
            band = rgb[y, 10:15]
            assert any(np.array_equal(got[y, k:k + 5], band) for k in range(26)), (name, y)


def test_resize_batch_equals_single_runs(tmp_path, rng, run):
    folder, pictures = _resize_batch(tmp_path, rng)
    (folder / "q9.png").unlink()
    out = tmp_path / "out"
    out.mkdir()
    assert run("resize", folder, "-H", 33, "-o", out, "--backend", "numpy", "-q")[0] == 0
    for name in pictures:
        single = tmp_path / f"single_{name}"
        assert run("resize", folder / name, "-H", 33, "-o", single, "--backend", "numpy", "-q")[0] == 0
        assert (out / name).read_bytes() == single.read_bytes()


@pytest.mark.parametrize("extra, pattern", [
    (["-o", "file.png"], r"-o must be an existing folder"),
    (["--save-seams", "s.png"], r"--save-seams takes one image"),
    (["--jobs", "0"], r"--jobs"),
])
def test_resize_batch_bad_options(tmp_path, rng, run, extra, pattern):
    folder, _ = _resize_batch(tmp_path, rng)
    before = files_state(tmp_path)
    code, _, err = run("resize", folder, "-W", 30, *extra, "--backend", "numpy")
    assert code == 2 and re.search(pattern, err), err
    assert files_state(tmp_path) == before


@pytest.mark.parametrize("extra, pattern", [
    (["-o", "file.png"], r"-o must be an existing folder"),
    (["--save-mapping", "m.png"], r"--save-mapping takes one image"),
    (["--mask", "m.png", "--masks", "."], r"either --mask .* or --masks"),
    (["--jobs", "0"], r"--jobs"),
])
def test_batch_bad_options(tmp_path, rng, run, extra, pattern):
    folder, _, _ = _batch(tmp_path, rng, n=2)
    before = files_state(tmp_path)
    code, _, err = run(folder, *extra, "--backend", "numpy")
    assert code == 2 and re.search(pattern, err), err
    assert files_state(tmp_path) == before


@pytest.mark.parametrize("command", ["remove", "resize"])
def test_batch_makes_a_new_output_folder_named_with_a_slash(tmp_path, rng, run, command):
    if command == "remove":
        folder, _, pictures = _batch(tmp_path, rng, n=1)
        argv, want_code = [folder, *QUICK], 0
    else:
        folder, pictures = _resize_batch(tmp_path, rng)
        argv, want_code = ["resize", folder, "-W", 30], 2  # its batch holds one bad file
    out = tmp_path / "new" / "done"
    code, _, err = run(*argv, "-o", f"{out}/", "--backend", "numpy", "-q")
    assert code == want_code, err
    assert sorted(p.name for p in out.iterdir()) == sorted(pictures)  # one result per good image
    # without the slash a missing folder is still refused, and nothing is made
    code, _, err = run(*argv, "-o", str(tmp_path / "other"), "--backend", "numpy", "-q")
    assert code == 2 and "-o must be an existing folder" in err
    assert not (tmp_path / "other").exists()


# ---------------------------------------------------------------------------------------
# Options given twice or empty, choices, integers, help that says the limits
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, said", [
    (["--protect", "{m}", "--protect", "{m}"], "--protect is given twice: give it once"),
    (["--protect", ""], "the --protect file name is empty"),
    (["--mask", "{m}"], "--mask is given twice"),
    (["--method", "criminisi", "--device-stages", ""], "the device stages (--device-stages) name no stage"),
    (["--vote", "gradient"], "argument --vote: invalid choice: 'gradient'"),
    (["--seed", "1_0"], "--seed must be"),
    (["--seed", "\u0665"], "--seed must be"),
    (["-p", "\u0667"], "--patch must be an odd integer >= 3"),
])
def test_an_option_given_twice_empty_or_not_of_its_kind_is_one_line_before_any_work(scene, run, capsys, argv, said):
    argv = [a.replace("{m}", str(scene.mask)) for a in argv]
    before = files_state(scene.dir)
    try:
        code, _, err = run(scene.image, "--mask", scene.mask, "-o", scene.out, *argv)
    except SystemExit as stop:  # argparse's own errors leave through SystemExit
        code, err = stop.code, capsys.readouterr().err
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1 and "usage:" not in err, err
    assert files_state(scene.dir) == before


def test_a_patch_written_with_a_plus_is_the_patch(scene, run):
    assert run(scene.image, "--mask", scene.mask, "-o", scene.out, "-p", "+5", "--method", "criminisi",
               "--backend", "numpy", "-q")[0] == 0


def test_an_empty_mask_says_that_mapping_and_timing_had_nothing_to_do(scene, run):
    save_mask(scene.dir / "none.png", np.zeros((H, W), bool))
    code, _, err = run(scene.image, "--mask", scene.dir / "none.png", "-o", scene.out,
                       "--save-mapping", scene.dir / "map.png", "--stats")
    assert code == 0 and "--save-mapping: no map was written" in err and "--stats: nothing was filled" in err
    assert not (scene.dir / "map.png").exists()


def test_the_help_states_the_limits_the_checks_hold(capsys):
    from inpaint import cli
    from inpaint.cli.shared import MAX_JOBS
    from inpaint.methods.criminisi.reference import MAX_PATCH as CRIMINISI
    from inpaint.methods.multiscale.job import MAX_PATCH as MULTISCALE

    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"at most {MULTISCALE} for multiscale, {CRIMINISI} for criminisi" in text
    assert f"1 to {MAX_JOBS}" in text and "3 for a selection made with --box or --around" in text


def test_the_long_fill_estimate_weighs_the_options_by_their_cost():
    """--transforms all takes about 2.7 times the default's time, --blend 4 1.26 times: the
    warning's estimate says so (it said the default's time for every option)."""
    import argparse
    import warnings

    from inpaint.cli import remove

    mask = np.zeros((300, 400), bool)
    mask[:, :260] = True  # 65 %: the warning comes with its estimate
    args = argparse.Namespace(backend="numpy", method="multiscale")

    def estimate(options):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            remove._warn_if_long(mask, args, int(mask.sum()), "", options)
        minutes, seconds = re.search(r"may take roughly (\d+):(\d+)", str(got[0].message)).groups()
        return int(minutes) * 60 + int(seconds)

    plain = estimate({})
    assert plain == estimate({"transforms": "off", "candidates": 1})  # the defaults cost nothing more
    assert estimate({"transforms": "all", "candidates": 4}) == pytest.approx(plain * 2.7 * 1.27, abs=2)
