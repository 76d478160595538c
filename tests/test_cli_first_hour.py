"""A newcomer's first hour with the command: the first run's compile note, standard input and
output, ``inpaint photos/*`` on a folder holding masks, the device settings in the environment,
and the hint for a mask drawn the other way round.

The runs are real processes with real pipes; images on standard output are decoded by Pillow
and compared with the bytes the same run writes to a file.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import box_mask, save_mask
from PIL import Image

from inpaint.methods.options import BACKEND, DEVICE, PROFILE

REPO = Path(__file__).resolve().parent.parent
H, W = 40, 48
_VARIABLES = (BACKEND.env, DEVICE.env, PROFILE.env)
# The streams, file names, settings and hints below come from the command's edge, which is the same
# for every method: the runs that only need some fill take the Criminisi method's (a hundredth of a
# second here, where the default's numpy fill takes more than one); the first run's compile note keeps
# the default method.
QUICK = ["--method", "criminisi"]


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in _VARIABLES}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def run(args: list, cwd: Path, stdin: bytes | None = None, env: dict | None = None,
        **kwargs) -> subprocess.CompletedProcess:
    """``inpaint ARGS`` in a fresh process; stdout as bytes, stderr as text."""
    p = subprocess.run([sys.executable, "-m", "inpaint", *map(str, args)], cwd=cwd, input=stdin,
                       env=env if env is not None else _env(), capture_output=True, timeout=300, **kwargs)
    return subprocess.CompletedProcess(p.args, p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))


def _photo(h: int = H, w: int = W, seed: int = 5) -> Image.Image:
    y, x = np.mgrid[:h, :w]
    rgb = np.stack([(x * 5) % 256, (y * 7) % 256, ((x + y) * 3) % 256], -1)
    rgb = rgb + np.random.default_rng(seed).integers(0, 25, (h, w, 3))
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8))


@pytest.fixture
def work(tmp_path) -> Path:
    """``photo.jpg`` (with EXIF), ``photo.png``, ``mask.png`` (a 9x7 box) and ``inverted.png``."""
    img = _photo()
    exif = Image.Exif()
    exif[0x010F] = "Test camera"  # Make
    img.save(tmp_path / "photo.jpg", quality=90, exif=exif)
    img.save(tmp_path / "photo.png")
    mask = box_mask(H, W, slice(14, 21), slice(18, 27))
    save_mask(tmp_path / "mask.png", mask)
    save_mask(tmp_path / "inverted.png", ~mask)
    return tmp_path


def _lines(err: str, text: str) -> list[str]:
    return [line for line in err.splitlines() if text in line]


# -- the first run on empty kernel caches ----------------------------------------------------------

@pytest.mark.opencl
def test_a_first_run_says_once_that_it_compiles_and_how_long_and_a_second_run_says_nothing(work):
    args = ["photo.png", "--mask", "mask.png", "--backend", "opencl", "-y"]
    cold = _env(XDG_CACHE_HOME=str(work / "cache"))
    cold.pop("POCL_CACHE_DIR", None)
    cold.pop("PYOPENCL_NO_CACHE", None)
    first = run(args + ["-o", "first.png"], work, env=cold)
    assert first.returncode == 0, first.stderr
    if not list((work / "cache" / "inpaint-cl" / "pocl").glob("*/*/program.bc")):
        pytest.skip("the OpenCL device is not PoCL: its compile may be too quick for a note")
    assert first.stdout == b""
    note = _lines(first.stderr, "compiling the OpenCL kernels")
    assert note == ["inpaint: compiling the OpenCL kernels this run needs (once for each kind of fill; later runs "
                    "reuse them)..."]
    summary = _lines(first.stderr, "removed ")
    assert len(summary) == 1
    found = re.search(r", ([\d.]+) s \(opencl on .*; the kernels for this device compiled (in ([\d.]+) s|as they "
                      r"first ran), once\) -> first\.png$", summary[0])
    assert found, summary
    assert float(found.group(1)) > 0 and (found.group(3) is None or float(found.group(3)) > 0)
    # the note and the summary: nothing else (but the progress, which a slow compile shows)
    assert len([line for line in first.stderr.splitlines() if not line.startswith("inpaint: filling")]) == 2

    second = run(args + ["-o", "second.png"], work, env=cold)
    assert second.returncode == 0, second.stderr
    assert "compiling" not in second.stderr
    assert len(second.stderr.splitlines()) == 1
    assert np.array_equal(np.asarray(Image.open(work / "first.png")), np.asarray(Image.open(work / "second.png")))

    quiet_env = dict(cold, XDG_CACHE_HOME=str(work / "cache2"))
    quiet = run(args + ["-o", "quiet.png", "--quiet", *QUICK], work, env=quiet_env)  # compiles too: says nothing
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == b""


# -- standard input and output ---------------------------------------------------------------------

def test_jpeg_through_pipes_is_the_bytes_of_the_file_based_run(work):
    base = ["--mask", "mask.png", "--backend", "numpy", *QUICK]
    filed = run(["photo.jpg", *base, "-o", "filed.jpg"], work)
    assert filed.returncode == 0, filed.stderr
    expected = (work / "filed.jpg").read_bytes()
    piped = run(["-", *base, "-o", "-"], work, stdin=(work / "photo.jpg").read_bytes())
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == expected  # the same edit: blocks outside the fill and EXIF kept
    img = Image.open(io.BytesIO(piped.stdout))
    assert img.format == "JPEG" and img.size == (W, H)
    assert img.getexif()[0x010F] == "Test camera"
    assert piped.stderr.rstrip().endswith("-> standard output")
    assert "~inpaint." not in piped.stderr  # the temporary files are not named
    # without -o, an image from standard input goes to standard output
    plain = run(["-", *base], work, stdin=(work / "photo.jpg").read_bytes())
    assert plain.returncode == 0 and plain.stdout == expected
    assert not list(work.glob("-*"))


def test_the_output_format_from_a_prefix_and_the_mask_from_standard_input(work):
    base = ["--backend", "numpy", *QUICK]
    filed = run(["photo.jpg", "--mask", "mask.png", *base, "-o", "filed.png"], work)
    assert filed.returncode == 0, filed.stderr
    piped = run(["-", "--mask", "mask.png", *base, "-o", "png:-"], work, stdin=(work / "photo.jpg").read_bytes())
    assert piped.returncode == 0, piped.stderr
    img = Image.open(io.BytesIO(piped.stdout))
    assert img.format == "PNG"
    assert np.array_equal(np.asarray(img), np.asarray(Image.open(work / "filed.png")))
    mask_in = run(["photo.jpg", "--mask", "-", *base, "-o", "-"], work, stdin=(work / "mask.png").read_bytes())
    assert mask_in.returncode == 0, mask_in.stderr
    assert mask_in.stdout == run(["photo.jpg", "--mask", "mask.png", *base, "-o", "-"], work).stdout
    assert Image.open(io.BytesIO(mask_in.stdout)).format == "JPEG"  # the input's format


def test_resize_through_pipes_is_the_bytes_of_the_file_based_run(work):
    filed = run(["resize", "photo.png", "--width", "40", "--backend", "numpy", "-o", "filed.png"], work)
    assert filed.returncode == 0, filed.stderr
    piped = run(["resize", "-", "--width", "40", "--backend", "numpy", "-o", "-"], work,
                stdin=(work / "photo.png").read_bytes())
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == (work / "filed.png").read_bytes()
    assert Image.open(io.BytesIO(piped.stdout)).size == (40, H)


def test_stats_go_to_standard_error_when_the_image_goes_to_standard_output(work):
    piped = run(["-", "--mask", "mask.png", "--backend", "numpy", "--stats", "-o", "-", *QUICK], work,
                stdin=(work / "photo.png").read_bytes())
    assert piped.returncode == 0, piped.stderr
    assert Image.open(io.BytesIO(piped.stdout)).format == "PNG"
    assert "start-up" in piped.stderr  # the phase table


@pytest.mark.parametrize("args, stdin, words", [
    (["-", "--mask", "-", "-o", "-"], "photo.png", "only one file can come from standard input"),
    (["-", "photo.png", "--mask", "mask.png"], "photo.png", "takes one image, not a batch"),
    (["photo.png", "photo.jpg", "--mask", "mask.png", "-o", "-"], None, "takes one image, not a batch"),
    (["-", "--mask", "mask.png", "-o", "-"], "empty", "standard input is empty"),
    (["-", "--mask", "mask.png", "-o", "-"], "mask_text", "is not an image this tool can read"),
    (["-", "--mask", "mask.png", "-o", "gif2:-"], "photo.png", "gif2 is not an image format"),
    (["-", "--mask", "mask.png", "-o", "-", "--save-mapping", "-"], "photo.png", "--save-mapping cannot be"),
    (["-", "--mask", "inverted_small.png", "-o", "-"], "photo.png", "must be the same size"),  # fails in the run
    (["resize", "-", "--remove", "-", "--width", "30", "-o", "-"], "photo.png", "only one file can come"),
])
def test_bad_uses_of_the_streams_are_one_line_exit_2_and_nothing_on_standard_output(work, args, stdin, words):
    save_mask(work / "inverted_small.png", np.ones((10, 10), bool))
    data = {"photo.png": (work / "photo.png").read_bytes(), "empty": b"", "mask_text": b"not an image\n",
            None: b""}[stdin]
    p = run([*args, "--backend", "numpy"], work, stdin=data)
    assert p.returncode == 2
    assert p.stdout == b""
    assert len(p.stderr.splitlines()) == 1 and words in p.stderr, p.stderr


def test_a_closed_full_or_broken_standard_output_is_exit_2(work):
    args = [sys.executable, "-m", "inpaint", "-", "--mask", "mask.png", "--backend", "numpy", "-o", "-", *QUICK]
    data = (work / "photo.png").read_bytes()
    closed = subprocess.run(["sh", "-c", '"$@" >&-', "sh", *args], cwd=work, input=data, env=_env(),
                            capture_output=True, timeout=300)
    assert closed.returncode == 2 and b"standard output is closed" in closed.stderr
    if os.path.exists("/dev/full"):
        with open("/dev/full", "wb") as full:
            p = subprocess.run(args, cwd=work, input=data, env=_env(), stdout=full, stderr=subprocess.PIPE,
                               timeout=300)
        assert p.returncode == 2 and b"cannot write to standard output" in p.stderr
    proc = subprocess.Popen(args, cwd=work, env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader goes away before the image comes
    _, err = proc.communicate(data, timeout=300)
    assert proc.returncode == 2 and b"standard output was closed" in err


# -- a folder of photos and their masks ------------------------------------------------------------

def test_a_glob_over_photos_and_their_masks_fills_each_photo_once(work):
    folder = work / "photos"
    folder.mkdir()
    _photo(seed=1).save(folder / "a.png")
    _photo(seed=2).save(folder / "b.jpg", quality=92)
    for stem in ("a", "b"):
        save_mask(folder / f"{stem}_mask.png", box_mask(H, W, slice(10, 17), slice(12, 20)))
    given = sorted(str(p) for p in folder.iterdir())  # what the shell makes of photos/*
    p = run([*given, "--backend", "numpy", *QUICK], work)
    assert p.returncode == 0, p.stderr
    assert _lines(p.stderr, "note: skipped") == ["inpaint: note: skipped 2 masks of other inputs"]
    assert sorted(f.name for f in folder.iterdir()) == ["a.png", "a_mask.png", "a_removed.png", "b.jpg",
                                                        "b_mask.png", "b_removed.jpg"]
    assert "2 images: 2 removed, 0 failed" in p.stderr
    one = run([folder / "a.png", "--mask", folder / "a_mask.png", "--backend", "numpy", "-o", "one.png", *QUICK],
              work)
    assert one.returncode == 0, one.stderr
    assert (work / "one.png").read_bytes() == (folder / "a_removed.png").read_bytes()

    resized = run(["resize", *given, "--width", "40", "--backend", "numpy", "-o", "out/"], work)
    assert resized.returncode == 0, resized.stderr
    assert sorted(f.name for f in (work / "out").iterdir()) == ["a.png", "b.jpg"]
    assert "skipped 2 masks of other inputs" in resized.stderr


# -- the device settings in the environment --------------------------------------------------------

def test_inpaint_backend_is_the_default(work):
    base = ["photo.png", "--mask", "mask.png", "-y", *QUICK]
    numpy_run = run([*base, "-o", "a.png"], work, env=_env(INPAINT_BACKEND="numpy"))
    assert numpy_run.returncode == 0, numpy_run.stderr
    assert "(numpy on " in numpy_run.stderr
    # the batch too
    batch = run(["photo.png", "photo.jpg", "--mask", "mask.png", "-o", "batch/", *QUICK], work,
                env=_env(INPAINT_BACKEND="numpy"))
    assert batch.returncode == 0, batch.stderr
    assert len(_lines(batch.stderr, "(numpy on ")) == 2


@pytest.mark.opencl
def test_a_backend_flag_wins_over_inpaint_backend(work):
    flag = run(["photo.png", "--mask", "mask.png", "-y", *QUICK, "-o", "b.png", "--backend", "opencl"], work,
               env=_env(INPAINT_BACKEND="numpy"))
    assert flag.returncode == 0, flag.stderr
    assert "(opencl on " in flag.stderr


@pytest.mark.parametrize("variables, args, status, words", [
    ({"INPAINT_BACKEND": "cuda"}, [], 2, "INPAINT_BACKEND=cuda (from the environment) is not a --backend value"),
    ({"INPAINT_DEVICE": "nosuchdevice"}, [], 3, "INPAINT_DEVICE=nosuchdevice (from the environment): no such device"),
    ({"INPAINT_PROFILE": "nosuchprofile"}, [], 2, "INPAINT_PROFILE=nosuchprofile (from the environment): unknown "
                                                  "profile"),
    ({"INPAINT_BACKEND": "opencl", "INPAINT_DEVICE": "nosuchdevice"}, ["resize"], 3, "INPAINT_DEVICE=nosuchdevice"),
    ({"INPAINT_PROFILE": "nosuchprofile"}, ["resize"], 2, "INPAINT_PROFILE=nosuchprofile"),
])
def test_a_bad_value_in_the_environment_is_one_line_naming_the_variable(work, variables, args, status, words):
    if "INPAINT_DEVICE" in variables:
        pytest.importorskip("pyopencl")
    rest = ["--width", "40", "-o", "r.png"] if args else ["--mask", "mask.png", "-o", "o.png"]
    p = run([*args, "photo.png", *rest], work, env=_env(**variables))
    assert p.returncode == status
    assert len(p.stderr.splitlines()) == 1 and words in p.stderr, p.stderr
    assert not (work / "o.png").exists() and not (work / "r.png").exists()


def test_a_flag_wins_over_a_bad_variable_and_a_device_from_the_environment_leaves_numpy_alone(work):
    p = run(["photo.png", "--mask", "mask.png", "-o", "o.png", "--backend", "numpy", *QUICK], work,
            env=_env(INPAINT_BACKEND="cuda", INPAINT_DEVICE="nosuchdevice"))
    assert p.returncode == 0, p.stderr
    r = run(["resize", "photo.png", "--width", "40", "-o", "r.png"], work,
            env=_env(INPAINT_BACKEND="numpy", INPAINT_DEVICE="nosuchdevice"))
    assert r.returncode == 0, r.stderr  # numpy from the environment: resize took it (no device is looked up)


def test_inpaint_devices_shows_the_settings_from_the_environment(work):
    pytest.importorskip("pyopencl")
    p = run(["devices", "--no-check"], work, env=_env(INPAINT_BACKEND="numpy", INPAINT_PROFILE="cpu_only"))
    assert p.returncode == 0, p.stderr
    text = p.stdout.decode()
    assert text.splitlines()[:2] == ["INPAINT_BACKEND=numpy (from the environment)",
                                     "INPAINT_PROFILE=cpu_only (from the environment): cpu_only"]
    plain = run(["devices", "--no-check"], work)
    assert "from the environment" not in plain.stdout.decode()


def test_the_app_and_the_benchmark_take_their_defaults_from_the_environment(work, monkeypatch):
    from mobile_ui import __main__ as app_main, settings

    monkeypatch.setenv("INPAINT_BACKEND", "numpy")
    monkeypatch.setenv("INPAINT_PROFILE", "cpu_only")
    d = settings.defaults()
    assert (d["backend"], d["device"], d["profile"]) == ("numpy", "auto", "cpu_only")
    assert settings.to_save(dict(d), {}, {}) == {}  # a default from the environment is not saved as a choice
    monkeypatch.setenv("INPAINT_BACKEND", "cuda")
    problem = app_main.input_problem(argparse.Namespace(case=None, image=None, mask=None, backend=None))
    assert problem and "INPAINT_BACKEND=cuda" in problem
    assert app_main.input_problem(argparse.Namespace(case=None, image=None, mask=None, backend="numpy")) is None
    monkeypatch.delenv("INPAINT_BACKEND")
    assert settings.defaults()["backend"] == "auto"

    pipeline = pytest.importorskip("inpaint_bench.pipeline")
    monkeypatch.setenv("INPAINT_BACKEND", "numpy")
    parser = argparse.ArgumentParser()
    pipeline.add_arguments(parser)
    assert parser.parse_args([]).backend == "numpy"
    assert parser.parse_args(["--backend", "opencl"]).backend == "opencl"


# -- a mask drawn the other way round --------------------------------------------------------------

def test_a_mask_covering_most_of_the_photo_gets_a_hint_and_still_runs(work):
    p = run(["photo.png", "--mask", "inverted.png", "--backend", "numpy", "-o", "o.png", "-q", *QUICK, "-p", "5"],
            work)  # (the 9x7 part left holds no 9x9 source window: the Criminisi method's default patch)
    assert p.returncode == 0, p.stderr
    (warning,) = p.stderr.splitlines()
    share = 1 - 63 / (H * W)
    assert warning.startswith(f"inpaint: warning: the mask covers {share:.0%} of the image (white marks what to "
                              "remove: is it inverted?): little is left to copy from")
    assert (work / "o.png").exists()
    r = run(["resize", "photo.png", "--remove", "inverted.png", "--backend", "numpy", "-o", "r.png", "-q",
             "--no-restore"], work)
    assert "the --remove mask covers" in r.stderr and "is it inverted?" in r.stderr


def test_no_hint_for_a_small_mask_or_one_grown_past_half(work):
    small = run(["photo.png", "--mask", "mask.png", "--backend", "numpy", "-o", "s.png", *QUICK], work)
    assert small.returncode == 0 and "warning" not in small.stderr
    grown = run(["photo.png", "--mask", "mask.png", "--grow", "14", "--backend", "numpy", "-o", "g.png", *QUICK],
                work)
    assert grown.returncode == 0, grown.stderr
    assert "warning: the mask covers" in grown.stderr and "inverted" not in grown.stderr


def test_a_mask_leaving_no_source_keeps_its_error(work):
    save_mask(work / "all.png", np.ones((H, W), bool))
    p = run(["photo.png", "--mask", "all.png", "--backend", "numpy", "-o", "o.png"], work)
    assert p.returncode == 2
    assert p.stderr.strip() == "inpaint: error: the mask covers the whole image: there is nothing to copy from"
