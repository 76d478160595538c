"""Hostile input against every front end: ``inpaint``, ``inpaint resize``, ``inpaint devices``,
``inpaint bench`` and the app launcher ``inpaint app``.

Every case checks the exit status, that no traceback reaches the user, that every input file
is byte-for-byte unchanged (sha256 before and after), and that nothing is left behind (no
partial output, no temporary file) beyond the outputs the case expects.  Then: signals during
a run, full-depth results (16-bit, float, animated), a hypothesis fuzz over command-line
arguments and over random bytes as image, mask and profile, and the property that one mask
file means the same pixels in every front end.

Runs in-process through ``inpaint.cli.main`` on tiny images; the signal and launcher cases run
``python -m inpaint`` in a subprocess.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import re
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import helpers
import numpy as np
import pytest
from helpers import save_mask
from hypothesis import HealthCheck, event, given, settings, strategies as hs
from PIL import Image

from inpaint import cli, io as imageio
from inpaint.cl import runtime as rtmod
from inpaint.cli import guard
from inpaint.errors import InputError
from inpaint.io import atomic, memory

REPO = Path(__file__).resolve().parents[1]
_MESSAGE = re.compile(r"^inpaint( \w+)?: ((internal )?error: .|interrupted$|stopped by SIG)")
H, W = 20, 24
# Formats, depths, writes and progress lines are the command's, whatever the method: the good runs
# below take the Criminisi method's fill (a hundredth of a second; the default's numpy fill takes more).
QUICK = ["--method", "criminisi"]
OK, BAD, NO_DEVICE, INTERRUPTED = 0, 2, 3, 130


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------

def snapshot(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder`` (hidden files included)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def box(h: int = H, w: int = W) -> np.ndarray:
    return helpers.box_mask(h, w, slice(6, 12), slice(8, 15))


@dataclasses.dataclass
class Files:
    dir: Path

    def __truediv__(self, name: str) -> Path:
        return self.dir / name


@pytest.fixture
def files(tmp_path, monkeypatch) -> Files:
    """A folder of small inputs; the tests run with it as the working folder."""
    rng = np.random.default_rng(7)
    d = tmp_path / "work"
    d.mkdir()
    Image.fromarray(rng.integers(0, 256, (H, W, 3), dtype=np.uint8)).save(d / "a.png")
    save_mask(d / "m.png", box())
    save_mask(d / "all.png", np.ones((H, W), bool))
    other = box()
    other[6:12, 4:8] = True  # overlaps m.png and reaches beyond it
    save_mask(d / "m2.png", other)
    inner = np.zeros((H, W), bool)
    inner[7:10, 9:12] = True  # inside m.png
    save_mask(d / "inner.png", inner)
    corner = np.zeros((H, W), bool)
    corner[4:7, 5:10] = True  # over the top-left corner of m.png: 2 pixels in both
    save_mask(d / "corner.png", corner)
    Image.new("L", (W + 3, H)).save(d / "wide_mask.png")
    (d / "junk.png").write_bytes(bytes(rng.integers(0, 256, 300, dtype=np.uint8)))
    (d / "empty.png").write_bytes(b"")
    data = (d / "a.png").read_bytes()
    (d / "cut.png").write_bytes(data[: len(data) // 2])
    Image.new("RGB", (1, 1)).save(d / "one.png")
    Image.new("L", (1, 1), 255).save(d / "one_mask.png")
    Image.fromarray(rng.integers(0, 256, (4, 257, 3), dtype=np.uint8)).save(d / "long.png")
    long_mask = np.zeros((4, 257), bool)
    long_mask[1:3, 100:110] = True
    save_mask(d / "long_mask.png", long_mask)
    (d / "folder").mkdir()
    (d / "dir.png").mkdir()
    (d / "bad_utf8.toml").write_bytes(b"\xff\xfe\x00name = [")
    (d / "bad.toml").write_text("name = \n[[[", encoding="utf-8")
    grey16 = rng.integers(300, 65536, (H, W)).astype(np.uint16)
    Image.fromarray(grey16).save(d / "grey16.png")
    monkeypatch.chdir(d)
    return Files(d)


@pytest.fixture
def run(capsys):
    """``run(*argv) -> (exit status, stdout, stderr)`` through ``inpaint.cli.main`` (argparse's
    exits included)."""
    def call(*argv):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:  # --help, --version and usage errors exit through argparse
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        out, err = capsys.readouterr()
        return code, out, err
    return call


def check(files: Files, run, argv, code: int, pattern: str | None = None, creates: tuple[str, ...] = ()):
    """Run ``argv``; assert the status, no traceback, inputs unchanged, nothing left behind
    but ``creates``.  Returns stderr."""
    before = snapshot(files.dir)
    got, out, err = run(*argv)
    assert got == code, f"exit {got}, expected {code}\nstdout: {out}\nstderr: {err}"
    assert "Traceback" not in err and "Traceback" not in out, err
    if pattern is not None:
        assert re.search(pattern, err + out), f"{pattern!r} not in:\n{err}{out}"
    if code != 0 and "usage:" not in err:
        said = [line for line in err.splitlines() if _MESSAGE.search(line)]
        assert len(said) == 1 and err.rstrip().splitlines()[-1] == said[0], err  # one clear line, last
    after = snapshot(files.dir)
    for name, digest in before.items():
        assert after.get(name) == digest, f"input {name} was changed or removed"
    new = sorted(set(after) - set(before))
    assert new == sorted(creates), f"left behind: {new}, expected {sorted(creates)}"
    return err


# ---------------------------------------------------------------------------------------
# The cases: (argv, exit status, pattern, files created)
# ---------------------------------------------------------------------------------------

CASES: list[tuple[str, list, int, str | None, tuple[str, ...]]] = [
    # -- inpaint: outputs ------------------------------------------------------------------
    ("mapping-is-output", ["a.png", "--mask", "m.png", "-o", "o.png", "--save-mapping", "o.png"], BAD,
     r"output o\.png and --save-mapping o\.png are the same file", ()),
    ("mapping-is-output-other-spelling", ["a.png", "--mask", "m.png", "-o", "o.png", "--save-mapping",
                                          "folder/../o.png"], BAD, r"are the same file", ()),
    ("empty-output-name", ["a.png", "--mask", "m.png", "-o", ""], BAD, r"output file name \(-o\) is empty", ()),
    ("blank-output-name", ["a.png", "--mask", "m.png", "-o", "  "], BAD, r"is empty", ()),
    ("empty-mapping-name", ["a.png", "--mask", "m.png", "-o", "o.png", "--save-mapping", ""], BAD,
     r"--save-mapping file name is empty", ()),
    ("psd-output", ["a.png", "--mask", "m.png", "-o", "x.psd"], BAD, r"PSD is not a format the commands write", ()),
    ("fits-output", ["a.png", "--mask", "m.png", "-o", "x.fits"], BAD, r"FITS is not a format", ()),
    ("cur-output", ["a.png", "--mask", "m.png", "-o", "x.cur"], BAD, r"CUR is not a format", ()),
    ("ico-output-too-large", ["long.png", "--mask", "long_mask.png", "-o", "x.ico"], BAD,
     r"ICO icon holds at most 256x256 pixels and the 257x4 result would be shrunk", ()),
    ("mapping-psd", ["a.png", "--mask", "m.png", "-o", "o.png", "--save-mapping", "map.psd"], BAD,
     r"PSD is not a format", ()),
    ("no-extension", ["a.png", "--mask", "m.png", "-o", "result"], BAD, r"cannot tell the image format", ()),
    ("output-is-folder", ["a.png", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "dir.png", *QUICK], OK,
     r"-> dir\.png/a\.png", ("dir.png/a.png",)),   # into the folder, as a batch's -o FOLDER
    ("output-folder-missing", ["a.png", "--mask", "m.png", "-o", "nodir/o.png"], BAD,
     r"output folder nodir does not exist", ()),
    ("output-is-input", ["a.png", "--mask", "m.png", "-o", "a.png"], BAD, r"is the input image; refusing", ()),
    ("output-is-mask", ["a.png", "--mask", "m.png", "-o", "folder/../m.png"], BAD, r"is the mask; refusing", ()),
    ("mapping-is-input", ["a.png", "--mask", "m.png", "-o", "o.png", "--save-mapping", "a.png"], BAD,
     r"--save-mapping a\.png is the input image", ()),
    # -- inpaint: numbers --------------------------------------------------------------------
    ("alpha-1e308", ["a.png", "--mask", "m.png", "--alpha", "1e308", "-o", "o.png"], BAD,
     r"alpha must be a number >= 0 or 'full', got '1e308': at most", ()),
    ("alpha-inf", ["a.png", "--mask", "m.png", "--alpha", "inf", "-o", "o.png"], BAD, r"alpha must be", ()),
    ("alpha-nan", ["a.png", "--mask", "m.png", "--alpha", "nan", "-o", "o.png"], BAD, r"alpha must be", ()),
    ("alpha-negative", ["a.png", "--mask", "m.png", "--alpha=-1", "-o", "o.png"], BAD, r"alpha must be", ()),
    ("patch-huge", ["a.png", "--mask", "m.png", "-p", "99999999999999999999999", "-o", "o.png"], BAD,
     r"--patch 9+ is too large", ()),
    ("patch-float", ["a.png", "--mask", "m.png", "-p", "7.5", "-o", "o.png"], BAD, r"--patch must be", ()),
    ("patch-even", ["a.png", "--mask", "m.png", "-p", "8", "-o", "o.png"], BAD, r"odd integer >= 3, got 8", ()),
    ("candidates-zero", ["a.png", "--mask", "m.png", "--candidates", "0", "-o", "o.png"], BAD,
     r"--candidates must be an integer from 1 to 8", ()),
    ("grow-negative", ["a.png", "--mask", "m.png", "--grow=-1", "-o", "o.png"], BAD,
     r"--grow must be an integer from 0 to", ()),
    ("grow-text", ["a.png", "--mask", "m.png", "--grow", "lots", "-o", "o.png"], BAD, r"--grow must be", ()),
    ("grow-absurd", ["a.png", "--mask", "m.png", "--grow", "1e9", "-o", "o.png"], BAD, r"--grow must be", ()),
    ("max-pixels-zero", ["a.png", "--mask", "m.png", "--max-pixels", "0", "-o", "o.png"], BAD,
     r"--max-pixels must be positive", ()),
    ("max-pixels-small", ["a.png", "--mask", "m.png", "--max-pixels", "10", "-o", "o.png"], BAD,
     r"too large: 480 pixels, more than the limit of 10", ()),
    # -- inpaint: devices and profiles -------------------------------------------------------
    ("device-nosuch", ["a.png", "--mask", "m.png", "--device", "nosuch", "-o", "o.png"], NO_DEVICE,
     r"no such device: device 'nosuch' matches no OpenCL device", ()),
    ("device-nosuch-opencl", ["a.png", "--mask", "m.png", "--backend", "opencl", "--device", "9:9",
                              "-o", "o.png"], NO_DEVICE, r"matches no OpenCL device", ()),
    ("device-with-numpy", ["a.png", "--mask", "m.png", "--backend", "numpy", "--device", "cpu", "-o", "o.png"],
     BAD, r"--backend numpy runs without one", ()),
    ("device-empty", ["a.png", "--mask", "m.png", "--device", "", "-o", "o.png"], BAD, r"--device is empty", ()),
    ("profile-not-utf8", ["a.png", "--mask", "m.png", "--profile", "bad_utf8.toml", "-o", "o.png"], BAD,
     r"not UTF-8", ()),
    ("profile-not-toml", ["a.png", "--mask", "m.png", "--profile", "bad.toml", "-o", "o.png"], BAD,
     r"not valid TOML", ()),
    ("profile-missing", ["a.png", "--mask", "m.png", "--profile", "none.toml", "-o", "o.png"], BAD,
     r"does not exist", ()),
    ("profile-folder", ["a.png", "--mask", "m.png", "--profile", "folder", "-o", "o.png"], BAD, r"folder", ()),
    ("partition-unknown", ["a.png", "--mask", "m.png", "--method", "criminisi", "--partition", "grey,warp",
                           "-o", "o.png"], BAD, r"unknown stage", ()),
    ("variant-other-method", ["a.png", "--mask", "m.png", "--variant", "local", "-o", "o.png"], BAD,
     r"only appl(y|ies) to another --method", ()),
    # -- inpaint: inputs ---------------------------------------------------------------------
    ("bare-command", [], BAD, r"no image given.*--case walkingman", ()),
    ("case-nosuch", ["--case", "nosuch"], BAD, r"unknown test case 'nosuch'; valid names: walkingman", ()),
    ("case-and-image", ["a.png", "--case", "walkingman"], BAD, r"either --case or IMAGE --mask", ()),
    ("no-mask", ["a.png", "-o", "o.png"], BAD, r"--mask is required", ()),
    ("image-missing", ["nope.png", "--mask", "m.png", "-o", "o.png"], BAD, r"image nope\.png does not exist", ()),
    ("image-name-with-nul", ["a\x00.png", "--mask", "m.png", "-o", "o.png"], BAD, r"holds a NUL character", ()),
    ("output-name-with-nul", ["a.png", "--mask", "m.png", "-o", "o\x00.png"], BAD, r"holds a NUL character", ()),
    ("image-empty-name", ["", "--mask", "m.png", "-o", "o.png"], BAD, r"file name is empty", ()),
    ("image-folder-without-images", ["folder", "--mask", "m.png", "-o", "o.png"], BAD, r"no image file in folder", ()),
    ("image-empty-file", ["empty.png", "--mask", "m.png", "-o", "o.png"], BAD, r"not an image", ()),
    ("image-random-bytes", ["junk.png", "--mask", "m.png", "-o", "o.png"], BAD, r"junk\.png", ()),
    ("image-truncated", ["cut.png", "--mask", "m.png", "-o", "o.png"], BAD, r"cannot read image cut\.png", ()),
    ("image-1x1", ["one.png", "--mask", "one_mask.png", "-o", "o.png"], BAD,
     r"1x1 pixels: too small to fill \(the smallest patch is 3x3\)", ()),
    ("mask-random-bytes", ["a.png", "--mask", "junk.png", "-o", "o.png"], BAD, r"mask junk\.png", ()),
    ("mask-size", ["a.png", "--mask", "wide_mask.png", "-o", "o.png"], BAD, r"27x20 but the image is 24x20", ()),
    ("mask-everything", ["a.png", "--mask", "all.png", "-o", "o.png"], BAD, r"covers the whole image", ()),
    ("mask-is-folder", ["a.png", "--mask", "folder", "-o", "o.png"], BAD, r"mask folder is a folder", ()),
    # -- inpaint: usage errors (argparse) ----------------------------------------------------
    ("method-nosuch", ["a.png", "--mask", "m.png", "--method", "magic"], BAD, r"invalid choice: 'magic'", ()),
    ("progress-nosuch", ["a.png", "--mask", "m.png", "--progress", "fancy"], BAD, r"invalid choice", ()),
    ("unknown-option", ["a.png", "--mask", "m.png", "--frobnicate"], BAD, r"unrecognized arguments", ()),
    ("max-pixels-text", ["a.png", "--mask", "m.png", "--max-pixels", "lots"], BAD, r"invalid int value", ()),
    # -- inpaint: good runs ------------------------------------------------------------------
    ("version", ["--version"], OK, r"^inpaint \d+\.\d+", ()),
    ("help", ["--help"], OK, r"usage: inpaint IMAGE --mask MASK(.|\n)*inpaint \{resize,select,bench,devices,app\}", ()),
    ("grow", ["a.png", "--mask", "m.png", "--grow", "2", "-p", "3", "--backend", "numpy", "-o", "o.png", *QUICK], OK,
     r"removed (\d+) pixels \(the mask grown by 2 from 42\)", ("o.png",)),
    ("ico-small", ["a.png", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.ico", *QUICK], OK, None,
     ("o.ico",)),
    ("mapping", ["a.png", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.png", "--save-mapping",
                 "map.png", *QUICK], OK, None, ("o.png", "map.png")),
    # -- resize ------------------------------------------------------------------------------
    ("resize-no-size", ["resize", "a.png", "-o", "o.png"], BAD, r"give the target size with --width", ()),
    ("resize-width-zero", ["resize", "a.png", "--width", "0", "-o", "o.png"], BAD,
     r"--width must be a positive integer \(pixels\) or a percentage such as 50%, got 0", ()),
    ("resize-height-negative", ["resize", "a.png", "--height=-4", "-o", "o.png"], BAD, r"positive integer", ()),
    ("resize-width-text", ["resize", "a.png", "--width", "wide", "-o", "o.png"], BAD,
     r"--width must be a positive integer \(pixels\) or a percentage such as 50%, got wide", ()),
    ("resize-more-than-twice", ["resize", "a.png", "--width", "1000", "-o", "o.png"], BAD,
     r"more than twice the input's 24; pass --allow-large", ()),
    ("resize-folder-missing", ["resize", "a.png", "--width", "20", "-o", "/nonexistent/o.png"], BAD,
     r"output folder /nonexistent does not exist", ()),
    ("resize-psd", ["resize", "a.png", "--width", "20", "-o", "o.psd"], BAD, r"PSD is not a format", ()),
    ("resize-empty-output", ["resize", "a.png", "--width", "20", "-o", ""], BAD, r"is empty", ()),
    ("resize-output-is-input", ["resize", "a.png", "--width", "20", "-o", "a.png"], BAD, r"is the input image", ()),
    ("resize-seams-is-output", ["resize", "a.png", "--width", "20", "-o", "o.png", "--save-seams", "o.png"], BAD,
     r"are the same file", ()),
    ("resize-protect-remove-same", ["resize", "a.png", "--protect", "m.png", "--remove", "m.png", "-o", "o.png"],
     BAD, r"--protect and --remove are the same file", ()),
    ("resize-remove-inside-protect", ["resize", "a.png", "--protect", "m.png", "--remove", "inner.png",
                                      "-o", "o.png"], BAD, r"every pixel of the --remove mask is also in the --protect",
     ()),
    ("resize-grow-without-remove", ["resize", "a.png", "--width", "20", "--grow", "2", "-o", "o.png"], BAD,
     r"--grow applies to the --remove mask", ()),
    ("resize-batch-zero", ["resize", "a.png", "--width", "20", "--batch", "0", "-o", "o.png"], BAD,
     r"--batch must be a positive integer", ()),
    ("resize-device-nosuch", ["resize", "a.png", "--width", "20", "--device", "nosuch", "-o", "o.png"], NO_DEVICE,
     r"matches no OpenCL device", ()),
    ("resize-random-bytes", ["resize", "junk.png", "--width", "20", "-o", "o.png"], BAD, r"junk\.png", ()),
    ("resize-mask-size", ["resize", "a.png", "--remove", "wide_mask.png", "-o", "o.png"], BAD,
     r"27x20 but the image is 24x20", ()),
    ("resize-max-pixels", ["resize", "a.png", "--width", "20", "--max-pixels", "10", "-o", "o.png"], BAD,
     r"more than the limit of 10 pixels", ()),
    ("resize-profile-not-utf8", ["resize", "a.png", "--width", "20", "--profile", "bad_utf8.toml", "-o", "o.png"],
     BAD, r"not UTF-8", ()),
    ("resize-remove-all-protected", ["resize", "a.png", "--protect", "m2.png", "--remove", "m.png",
                                     "--backend", "numpy", "-o", "o.png"], BAD, r"every pixel", ()),
    ("resize-partial-overlap", ["resize", "a.png", "--protect", "corner.png", "--remove", "m.png",
                                "--backend", "numpy", "-o", "o.png"], OK,
     r"warning: 2 pixels are in both --protect and --remove", ("o.png",)),
    ("resize-protect-splits-object", ["resize", "a.png", "--protect", "inner.png", "--remove", "m.png",
                                      "--backend", "numpy", "-o", "o.png"], BAD,
     r"the marked object cannot be removed completely \(the --protect mask blocks", ()),
    ("resize-help", ["resize", "--help"], OK, r"Mask rule: pixels brighter than mid-grey", ()),
    # -- devices -----------------------------------------------------------------------------
    ("devices-profile-not-utf8", ["devices", "--profile", "bad_utf8.toml"], BAD, r"not UTF-8", ()),
    ("devices-profile-not-toml", ["devices", "--profile", "bad.toml"], BAD, r"not valid TOML", ()),
    ("devices-profile-nosuch", ["devices", "--profile", "nosuchgpu"], BAD, r"unknown profile 'nosuchgpu'", ()),
    ("devices-unknown-option", ["devices", "--all"], BAD, r"unrecognized arguments", ()),
    # -- bench -------------------------------------------------------------------------------
    ("bench-unknown-option", ["bench", "--fastest"], BAD, r"unrecognized arguments", ()),
    ("bench-repeat-zero", ["bench", "--repeat", "0"], BAD, r"--repeat and --numpy-repeat must be at least 1", ()),
    ("bench-case-nosuch", ["bench", "--case", "nosuch"], BAD, r"unknown case 'nosuch'", ()),
    ("bench-quick-table2", ["bench", "--quick", "--table2"], BAD, r"--quick shortens the default benchmark", ()),
    ("bench-seam-unknown-option", ["bench", "seam", "--fastest"], BAD, r"unrecognized arguments", ()),
    ("bench-sheets-without-quality", ["bench", "--sheets", "x"], BAD, r"belong to --quality", ()),
    # -- the app launcher --------------------------------------------------------------------
    ("app-unknown-option", ["app", "--fullscreen-now"], BAD, r"unrecognized arguments", ()),
    ("app-bad-backend", ["app", "--backend", "cuda"], BAD, r"invalid choice: 'cuda'", ()),
    ("app-missing-value", ["app", "--size"], BAD, r"expected one argument", ()),
    ("app-help", ["app", "--help"], OK, r"--state-dir", ()),
]


def test_at_least_sixty_cases():
    assert len(CASES) >= 60
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("name, argv, code, pattern, creates", CASES, ids=[c[0] for c in CASES])
def test_hostile_case(files, run, name, argv, code, pattern, creates):
    check(files, run, argv, code, pattern, creates)


def test_app_help_lists_the_app_options(files, run):
    check(files, run, ["app", "--help"], OK)
    code, out, _ = run("app", "--help")
    for option in ("--case", "--size", "--backend", "--mask", "--state-dir"):
        assert option in out


def test_unwritable_output_folder(files, run):
    (files / "locked").mkdir()
    os.chmod(files / "locked", 0o555)
    try:
        if os.access(files / "locked", os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        check(files, run, ["a.png", "--mask", "m.png", "-o", "locked/o.png"], BAD, r"locked is not writable")
    finally:
        os.chmod(files / "locked", 0o755)


def test_output_hard_linked_to_the_input_is_refused(files, run):
    os.link(files / "a.png", files / "alias.png")
    check(files, run, ["a.png", "--mask", "m.png", "-o", "alias.png"], BAD, r"is the input image")


def test_output_symlinked_to_the_mask_is_refused(files, run):
    os.symlink(files / "m.png", files / "link.png")
    check(files, run, ["a.png", "--mask", "m.png", "-o", "link.png"], BAD, r"is the mask")


def test_devices_without_opencl_exits_3(files, run, monkeypatch):
    def missing():
        raise rtmod.OpenCLUnavailable(f"no OpenCL platform found; {rtmod.INSTALL_HINT}")

    monkeypatch.setattr(rtmod, "all_devices", missing)
    check(files, run, ["devices"], NO_DEVICE, r"no OpenCL device")


def test_backend_opencl_without_opencl_exits_3_before_reading(files, run, monkeypatch):
    def missing():
        raise rtmod.OpenCLUnavailable(f"no OpenCL platform found; {rtmod.INSTALL_HINT}")

    monkeypatch.setattr(rtmod, "all_devices", missing)
    monkeypatch.setattr(rtmod, "_RUNTIMES", {})
    check(files, run, ["junk.png", "--mask", "m.png", "--backend", "opencl", "-o", "o.png"], NO_DEVICE,
          r"OpenCL is not available")
    check(files, run, ["resize", "a.png", "--width", "20", "--backend", "opencl", "-o", "o.png"], NO_DEVICE,
          r"OpenCL is not available")


def test_image_too_large_for_the_memory(files, run, monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: 1000)
    check(files, run, ["a.png", "--mask", "m.png", "-o", "o.png"], BAD,
          r"needs about .* of memory but only 1000 B is available")
    check(files, run, ["resize", "a.png", "--width", "20", "-o", "o.png"], BAD, r"of memory but only")


@pytest.mark.parametrize("raised, code, pattern", [
    (MemoryError, BAD, r"^inpaint: error: not enough memory for this job"),
    (KeyboardInterrupt, INTERRUPTED, r"^inpaint: interrupted\n$"),
    (RuntimeError("kernel exploded"), 1, r"^inpaint: internal error: RuntimeError: kernel exploded"),
    (guard.Terminated(signal.SIGTERM), 128 + signal.SIGTERM, r"^inpaint: stopped by SIGTERM\n$"),
], ids=["memory", "ctrl-c", "bug", "sigterm"])
def test_failures_inside_the_fill_are_one_line(files, run, monkeypatch, raised, code, pattern):
    import inpaint.api as api

    Image.new("RGB", (3, 3), (1, 2, 3)).save(files / "o.png")  # an older output: must stay as it is

    def boom(*args, **kwargs):
        raise raised

    monkeypatch.setattr(api, "inpaint", boom)
    check(files, run, ["a.png", "--mask", "m.png", "--backend", "numpy", "--overwrite", "-o", "o.png"], code, pattern)


def test_memory_running_out_under_an_address_space_limit_names_the_limit(monkeypatch):
    monkeypatch.setattr(guard, "address_space_limit", lambda: 1700 << 20)
    assert guard.error_message(MemoryError()) == ("not enough memory for this job under the address-space limit "
                                                  "(ulimit -v: 1700 MB); raise it, or use a smaller image")
    monkeypatch.setattr(guard, "address_space_limit", lambda: None)
    assert guard.error_message(MemoryError()) == "not enough memory for this job; use a smaller image"


@pytest.mark.parametrize("raised, code", [(KeyboardInterrupt, INTERRUPTED),
                                          (guard.Terminated(signal.SIGHUP), 128 + signal.SIGHUP)],
                         ids=["ctrl-c", "sighup"])
def test_interrupted_write_leaves_no_temp_file(files, run, monkeypatch, raised, code):
    """A signal in the middle of writing: the half-written temporary file goes, the old output stays."""
    Image.new("RGB", (3, 3), (1, 2, 3)).save(files / "o.png")
    real = atomic.encode

    def half(img, fh, *args, **kwargs):
        fh.write(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
        assert any(name.endswith(".tmp") for name in os.listdir(files.dir))
        raise raised

    monkeypatch.setattr(atomic, "encode", half)
    check(files, run, ["a.png", "--mask", "m.png", "-p", "3", "--backend", "numpy", "--overwrite", "-o", "o.png",
                       "--save-mapping", "map.png", *QUICK], code)
    assert real is not half


def test_one_of_two_outputs_failing_writes_neither(files, run, monkeypatch):
    real = atomic.encode
    calls = []

    def second_fails(img, fh, fmt, *args, **kwargs):
        calls.append(fmt)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(img, fh, fmt, *args, **kwargs)

    monkeypatch.setattr(atomic, "encode", second_fails)
    check(files, run, ["a.png", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.png",
                       "--save-mapping", "map.png", *QUICK], BAD,
          r"cannot write o\.png and map\.png: No space left on device$")


# ---------------------------------------------------------------------------------------
# Depth and modes: nothing lost silently
# ---------------------------------------------------------------------------------------

def test_resize_16_bit_grey_keeps_its_values(files, run):
    check(files, run, ["resize", "grey16.png", "--width", "18", "--backend", "numpy", "-o", "r.png"], OK,
          creates=("r.png",))
    with Image.open(files / "grey16.png") as a, Image.open(files / "r.png") as b:
        assert b.mode == "I;16" and b.size == (18, H)
        src, res = np.asarray(a), np.asarray(b)
    assert res.max() > 255 and len(np.unique(res)) > 100  # not all white, not 8-bit
    for y in range(H):  # seam carving only moves pixels: each row keeps its order
        row = list(src[y])
        positions = [row.index(v) for v in res[y]]
        assert positions == sorted(positions)


def test_resize_16_bit_grey_enlarge_stays_in_range(files, run):
    check(files, run, ["resize", "grey16.png", "--width", "30", "--backend", "numpy", "-o", "r.png"], OK,
          creates=("r.png",))
    with Image.open(files / "grey16.png") as a, Image.open(files / "r.png") as b:
        src, res = np.asarray(a), np.asarray(b)
    assert b.mode == "I;16" and res.shape == (H, 30)
    assert src.min() <= res.min() and res.max() <= src.max()


def test_16_bit_rgb_comes_back_at_16_bits(files, run, rng):
    wide = rng.integers(0, 65536, (H, W, 3)).astype(np.uint16)
    with open(files / "rgb16.png", "wb") as fh:
        imageio.write_png(fh, wide)
    with Image.open(files / "rgb16.png") as check_pillow:
        assert check_pillow.mode == "RGB"  # Pillow alone would read 8 bits per channel
    check(files, run, ["rgb16.png", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.png", *QUICK], OK,
          creates=("o.png",))
    pic = imageio.read_image(files / "o.png")
    assert pic.wide is not None and pic.mode == "RGB;16"
    mask = box()
    np.testing.assert_array_equal(pic.wide[~mask], wide[~mask])
    assert (pic.wide[mask] & 255).any()  # low bytes in the hole too
    check(files, run, ["resize", "rgb16.png", "--width", "20", "--backend", "numpy", "-o", "r.png"], OK,
          creates=("r.png",))
    out = imageio.read_image(files / "r.png").wide
    assert out.shape == (H, 20, 3)
    assert {tuple(p) for p in out.reshape(-1, 3)} <= {tuple(p) for p in wide.reshape(-1, 3)}


def test_16_bit_rgb_to_jpeg_says_so(files, run, rng):
    with open(files / "rgb16.png", "wb") as fh:
        imageio.write_png(fh, rng.integers(0, 65536, (H, W, 3)).astype(np.uint16))
    check(files, run, ["rgb16.png", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.jpg", *QUICK], OK,
          r"note: JPEG is written with 8 bits per channel here", creates=("o.jpg",))


def test_float_tiff_with_values_0_to_1_is_not_black(files, run, rng):
    values = rng.random((H, W)).astype(np.float32)
    Image.fromarray(values, "F").save(files / "f.tif")
    check(files, run, ["f.tif", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.png", *QUICK], OK,
          r"note: PNG cannot store floating-point pixels: written as 16-bit", creates=("o.png",))
    with Image.open(files / "o.png") as res:
        out = np.asarray(res)
    assert res.mode == "I;16"
    mask = box()
    np.testing.assert_allclose(out[~mask] / 65535, values[~mask], atol=1 / 65535)
    assert out.mean() > 20000
    check(files, run, ["f.tif", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.tif", *QUICK], OK,
          creates=("o.tif",))
    with Image.open(files / "o.tif") as res:
        assert res.mode == "F"
        kept = np.asarray(res)
    np.testing.assert_array_equal(kept[~mask], values[~mask])  # full float precision outside the hole
    assert 0 <= kept.min() and kept.max() <= 1


def test_animated_gif_names_the_frame_used(files, run, rng):
    frames = [Image.fromarray(rng.integers(0, 256, (H, W, 3), dtype=np.uint8)).convert("P") for _ in range(3)]
    frames[0].save(files / "anim.gif", save_all=True, append_images=frames[1:])
    err = check(files, run, ["anim.gif", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.gif", *QUICK], OK,
                r"warning: image anim\.gif has 3 frames: only the first is used", creates=("o.gif",))
    assert err.count("warning") == 1
    with Image.open(files / "o.gif") as res:
        assert getattr(res, "n_frames", 1) == 1


def test_multi_page_tiff_names_the_page_used(files, run, rng):
    pages = [Image.fromarray(rng.integers(0, 256, (H, W, 3), dtype=np.uint8)) for _ in range(2)]
    pages[0].save(files / "pages.tif", save_all=True, append_images=pages[1:])
    check(files, run, ["resize", "pages.tif", "--width", "20", "--backend", "numpy", "-o", "r.tif"], OK,
          r"warning: image pages\.tif has 2 pages: only the first is used", creates=("r.tif",))


# ---------------------------------------------------------------------------------------
# Progress and huge jobs
# ---------------------------------------------------------------------------------------

def test_plain_progress_prints_lines_with_the_time_left(files, run, monkeypatch):
    from inpaint.cli import progress

    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    for argv, prefix in ((["a.png", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.png", *QUICK],
                          "inpaint: filling "),
                         (["resize", "a.png", "--width", "16", "--backend", "numpy", "-o", "r.png"],
                          "inpaint resize: carving ")):
        code, _, err = run(*argv, "--progress", "plain")
        assert code == 0, err
        lines = [line for line in err.splitlines() if line.startswith(prefix)]
        assert lines and "\r" not in err, err
        assert re.search(r"\d+%  \d+:\d\d elapsed, (about \d+:\d\d left|done|estimating)", lines[-1])


def test_progress_none_and_quiet_print_no_progress(files, run, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run("a.png", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.png",
                       "--progress", "none", *QUICK)
    assert code == 0 and "filling" not in err


def test_same_progress_style_for_fill_and_resize(files, run, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    _, _, fill = run("a.png", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.png", *QUICK)
    _, _, carve = run("resize", "a.png", "--width", "16", "--backend", "numpy", "-o", "r.png")
    pattern = r"\r(inpaint(?: resize)?): (\w+) \[[#.]{24}\] +\d+%  \d+:\d\d elapsed, "
    assert re.search(pattern, fill) and re.search(pattern, carve)


def test_mask_covering_most_of_the_image_warns_with_an_estimate(files, run):
    most = np.ones((H, W), bool)
    most[:4] = False
    save_mask(files / "most.png", most)
    check(files, run, ["a.png", "--mask", "most.png", "-p", "3", "--backend", "numpy", "-o", "o.png", *QUICK], OK,
          r"warning: the mask covers 80% of the image \(white marks what to remove: is it inverted\?\): .*roughly "
          r"\d+:\d\d", creates=("o.png",))


def test_absurd_resize_warns_shows_progress_and_stops_cleanly(tmp_path):
    """``--width 100000 --allow-large`` on a small image: a warning with an estimate, progress
    lines off a terminal, and SIGTERM ends it with no file left behind."""
    Image.fromarray(np.random.default_rng(1).integers(0, 256, (8, 10, 3), dtype=np.uint8)).save(tmp_path / "s.png")
    Image.new("RGB", (2, 2)).save(tmp_path / "old.png")
    before = snapshot(tmp_path)
    proc = _spawn(["resize", "s.png", "--width", "100000", "--allow-large", "--progress", "plain",
                   "--backend", "numpy", "--overwrite", "-o", "old.png"], tmp_path)
    lines = _read_until(proc, r"carving +\d+%", timeout=60)
    proc.send_signal(signal.SIGTERM)
    rest = proc.communicate(timeout=30)[1]
    err = lines + rest
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert re.search(r"warning: 99990 seams through a 10x8 image \(numpy\) may take roughly", err)
    assert re.search(r"inpaint resize: carving +\d+%  \d+:\d\d elapsed, (about|estimating)", err)
    assert err.rstrip().endswith("inpaint resize: stopped by SIGTERM") and "Traceback" not in err
    assert snapshot(tmp_path) == before


# ---------------------------------------------------------------------------------------
# Signals in a real process
# ---------------------------------------------------------------------------------------

def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))


def _spawn(argv: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "inpaint", *argv], cwd=cwd, env=_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _read_until(proc: subprocess.Popen, pattern: str, timeout: float) -> str:
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if re.search(pattern, line):
            return "".join(seen)
    proc.kill()
    raise AssertionError("never saw " + pattern + " in:\n" + "".join(seen))


def _wait_for(proc: subprocess.Popen, seen: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    """Poll until ``seen()`` (an event of the running command), however loaded the machine is."""
    deadline = time.monotonic() + timeout
    while not seen():
        if proc.poll() is not None:
            raise AssertionError(f"the command ended (status {proc.returncode}) before {what}: "
                                 + proc.communicate()[1])
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"no sign of {what} within {timeout:.0f} s")
        time.sleep(0.001)


def _catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has its own handler for ``sig`` (Linux: ``SigCgt`` in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M)
    return bool(mask) and bool(int(mask.group(1), 16) >> (sig - 1) & 1)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="watches the process's signal handlers in /proc")
def test_signals_during_a_run(tmp_path):
    """SIGINT, SIGTERM and SIGHUP at different moments of a run (its start, carving, writing a large
    result): one line, the right status, the old output intact or the new one complete, and no
    temporary file.

    Each signal waits for an event of the run rather than a fixed time, so that a loaded machine
    (a slow start-up) still has each moment signalled: the command's own handlers in place (its
    start: imports, options, reading), a progress line (carving), its temporary output file (writing).
    """
    rng = np.random.default_rng(2)
    Image.fromarray(rng.integers(0, 256, (1200, 1600, 3), dtype=np.uint8)).save(tmp_path / "big.png",
                                                                               compress_level=1)
    Image.new("RGB", (2, 2), (5, 6, 7)).save(tmp_path / "out.png")
    inputs = {k: v for k, v in snapshot(tmp_path).items() if k != "out.png"}
    old = (tmp_path / "out.png").read_bytes()
    def started(proc: subprocess.Popen) -> None:
        _wait_for(proc, lambda: _catches(proc.pid, signal.SIGTERM), "its signal handlers")

    def carving(proc: subprocess.Popen) -> None:
        _read_until(proc, r"carving +\d+%", timeout=120)

    def writing(proc: subprocess.Popen) -> None:
        _wait_for(proc, lambda: any(n.endswith(".tmp") for n in os.listdir(tmp_path)), "its temporary file")

    # (signal, the event it waits for, the width to carve to, whether the run must have been stopped)
    for sig, wait, width, must_stop in ((signal.SIGINT, started, 1590, True), (signal.SIGTERM, carving, 1590, True),
                                        (signal.SIGHUP, writing, 1598, False), (signal.SIGTERM, writing, 1598, False)):
        code = INTERRUPTED if sig == signal.SIGINT else 128 + sig
        proc = _spawn(["resize", "big.png", "--width", str(width), "--backend", "numpy", "--overwrite",
                       "--progress", "plain", "-o", "out.png"], tmp_path)
        wait(proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        assert "Traceback" not in err, err
        names = os.listdir(tmp_path)
        assert not [n for n in names if n.endswith(".tmp")], names
        assert {k: v for k, v in snapshot(tmp_path).items() if k != "out.png"} == inputs
        if proc.returncode == 0 and not must_stop:  # the write ended before the signal: the new output is complete
            with Image.open(tmp_path / "out.png") as res:
                assert res.size == (width, 1200)
            old = (tmp_path / "out.png").read_bytes()
            continue
        assert proc.returncode == code, (wait.__name__, err)
        assert err.strip().splitlines()[-1] in ("inpaint resize: interrupted",
                                                f"inpaint resize: stopped by {signal.Signals(sig).name}")
        assert (tmp_path / "out.png").read_bytes() == old


def test_app_help_starts_no_window(tmp_path):
    env = _env()
    env.pop("DISPLAY", None)
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "inpaint", "app", "--help"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "usage: inpaint app" in proc.stdout and "--state-dir" in proc.stdout
    assert time.monotonic() - t0 < 30
    bad = subprocess.run([sys.executable, "-m", "inpaint", "app", "--no-such-option"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------
# Fuzz: command-line arguments, and random bytes as image, mask and profile
# ---------------------------------------------------------------------------------------

_VALUES = ["a.png", "m.png", "junk.png", "", "nope.png", "folder", "o.png", "o.psd", "o.ico", "-1", "0", "3", "5",
           "16", "31", "1e308", "nan", "full", "abc", "numpy", "auto", "cpu", "9:9", "adreno330", "bad_utf8.toml",
           "criminisi", "multiscale", "grey,warp", "all", "plain", "none", "\u00e9\u00e8", "--", "-", "n\x00.png"]
_OPTIONS = ["--mask", "-o", "--alpha", "--patch", "--candidates", "--grow", "--method", "--backend", "--device",
            "--profile", "--partition", "--variant", "--prune", "--source", "--save-mapping", "--max-pixels",
            "--progress", "--case", "--width", "--height", "--protect", "--remove", "--batch", "--energy",
            "--save-seams", "--quiet", "--stats", "--allow-large", "--no-restore"]
_COMMANDS = [[], ["resize"], ["devices"], ["a.png", "--mask", "m.png", "-o", "o.png"],
             ["a.png", "--mask", "m.png", "--method", "criminisi", "-p", "3"],
             ["resize", "a.png", "--width", "16", "-o", "o.png"], ["resize", "a.png", "--remove", "m.png"]]


@settings(max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(command=hs.sampled_from(_COMMANDS),
       words=hs.lists(hs.one_of(hs.sampled_from(_OPTIONS), hs.sampled_from(_VALUES),
                                hs.text(min_size=0, max_size=6)), max_size=10))
def test_fuzz_command_line(files, run, command, words):
    argv = command + words
    if "resize" in command and "--allow-large" in argv:
        argv = [w for w in argv if w != "--allow-large"]  # huge enlargements are a separate, timed case
    before = snapshot(files.dir)
    code, out, err = run(*argv)
    assert code in (OK, BAD, NO_DEVICE), (argv, code, err)
    assert "Traceback" not in err + out, (argv, err)
    event(f"exit {code}")
    after = snapshot(files.dir)
    for name, digest in before.items():
        assert after.get(name) == digest, (argv, name)
    assert not [n for n in after if n.endswith(".tmp")], argv
    for name in set(after) - set(before):  # cleanup for the next example
        (files / name).unlink()


def _png_bytes(rng: np.random.Generator) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (H, W, 3), dtype=np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=hs.one_of(hs.binary(max_size=400),
                      hs.tuples(hs.integers(0, 10 ** 6), hs.lists(hs.tuples(hs.integers(0, 4000), hs.integers(0, 255)),
                                                                  min_size=1, max_size=6))),
       role=hs.sampled_from(["image", "mask", "resize-image", "remove-mask", "profile"]))
def test_fuzz_random_bytes(files, run, data, role):
    """Random bytes, or a valid PNG with a few bytes changed, as every kind of input file."""
    if isinstance(data, tuple):  # mutate a real PNG: headers and chunks damaged in place
        seed, edits = data
        raw = bytearray(_png_bytes(np.random.default_rng(seed)))
        for pos, value in edits:
            raw[pos % len(raw)] = value
        data = bytes(raw)
    (files / "fuzz.bin").write_bytes(data)
    argv = {
        "image": ["fuzz.bin", "--mask", "m.png", "-p", "3", "--backend", "numpy", "-o", "o.png"],
        "mask": ["a.png", "--mask", "fuzz.bin", "-p", "3", "--backend", "numpy", "-o", "o.png"],
        "resize-image": ["resize", "fuzz.bin", "--width", "10", "--backend", "numpy", "-o", "o.png"],
        "remove-mask": ["resize", "a.png", "--remove", "fuzz.bin", "--backend", "numpy", "-o", "o.png"],
        "profile": ["a.png", "--mask", "m.png", "-p", "3", "--profile", "fuzz.bin", "--backend", "numpy",
                    "-o", "o.png"],
    }[role]
    if role == "profile":
        os.replace(files / "fuzz.bin", files / "fuzz.toml")
        argv[argv.index("fuzz.bin")] = "fuzz.toml"
    before = snapshot(files.dir)
    code, out, err = run(*argv)
    assert code in (OK, BAD), (role, code, err)
    assert "Traceback" not in err + out and "internal error" not in err, err
    after = snapshot(files.dir)
    assert {k: v for k, v in after.items() if k in before} == before
    assert set(after) - set(before) <= {"o.png"}
    for name in set(after) - set(before):
        (files / name).unlink()
    for name in ("fuzz.bin", "fuzz.toml"):
        if (files / name).exists():
            (files / name).unlink()


# ---------------------------------------------------------------------------------------
# One mask file, the same pixels in every front end
# ---------------------------------------------------------------------------------------

def _mask_file(path: Path, kind: str, rng: np.random.Generator, mask: np.ndarray, soft: np.ndarray) -> Path:
    """Write ``mask`` as a mask image of ``kind`` (with anti-aliased edges from ``soft``)."""
    grey = np.where(mask, 200, 40).astype(np.uint8)
    grey = np.where(soft, 128 + (grey > 127) * 40 - 40, grey).astype(np.uint8)
    if kind == "L":
        Image.fromarray(grey).save(path)
    elif kind == "1":
        Image.fromarray(mask).save(path)
    elif kind == "RGB":
        Image.fromarray(np.repeat(grey[..., None], 3, axis=2)).save(path)
    elif kind == "RGBA-opaque":  # fully opaque: brightness decides
        rgba = np.dstack([grey, grey, grey, np.full_like(grey, 255)])
        Image.fromarray(rgba, "RGBA").save(path)
    elif kind == "RGBA-alpha":  # transparency decides, whatever the colour
        colour = rng.integers(0, 256, mask.shape + (3,), dtype=np.uint8)
        Image.fromarray(np.dstack([colour, grey]), "RGBA").save(path)
    elif kind == "LA":
        Image.fromarray(np.dstack([255 - grey, grey]), "LA").save(path)
    elif kind == "I;16":
        Image.fromarray(grey.astype(np.uint16) * 257).save(path)
    elif kind == "P":
        img = Image.fromarray(np.where(mask, 1, 0).astype(np.uint8), "P")
        img.putpalette([255, 255, 255, 0, 0, 0] + [0] * 762)
        img.save(path, transparency=0)
    elif kind == "JPEG":
        path = path.with_suffix(".jpg")
        Image.fromarray(grey).save(path, quality=70)
    return path


_MASK_KINDS = ["L", "1", "RGB", "RGBA-opaque", "RGBA-alpha", "LA", "I;16", "P", "JPEG"]


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(kind=hs.sampled_from(_MASK_KINDS), seed=hs.integers(0, 10 ** 6), density=hs.floats(0.0, 0.3))
def test_one_mask_file_means_the_same_pixels_everywhere(files, run, monkeypatch, kind, seed, density):
    """The command, ``resize --remove`` and the app's mask loader read a mask file into the same
    boolean mask as :func:`inpaint.io.mask_rule.read_mask`, and the pixel counts they report agree."""
    rng = np.random.default_rng(seed)
    mask = np.zeros((H, W), bool)
    mask[4:16, 6:18] = rng.random((12, 12)) < max(density, 0.05)
    soft = rng.random((H, W)) < 0.1
    path = _mask_file(files / "mk.png", kind, rng, mask, soft)
    expected = imageio.read_mask(path, (W, H))
    seen: list[np.ndarray] = []
    real = imageio.read_mask

    def spy(p, size, *what, **how):
        out = real(p, size, *what, **how)
        seen.append(out.copy())
        return out

    monkeypatch.setattr(imageio, "read_mask", spy)
    code, _, err = run("a.png", "--mask", path.name, "-p", "3", "--method", "criminisi", "--backend", "numpy",
                       "-o", "o.png")
    if code == 0 and expected.any():
        assert removed_count(err) == int(expected.sum())
    code, _, err = run("resize", "a.png", "--remove", path.name, "--backend", "numpy", "-o", "r.png")
    if code == 0 and expected.any():
        assert re.search(rf"removed {int(expected.sum())} pixels", err), err
    from mobile_ui.masktools import load_mask  # the app's Open -> Use as mask, and --mask

    app_mask = load_mask(path, (H, W))
    assert len(seen) == 3
    for got in seen + [app_mask]:
        np.testing.assert_array_equal(got, expected)
    for name in ("o.png", "r.png"):
        if (files / name).exists():
            (files / name).unlink()


def removed_count(err: str) -> int:
    found = re.search(r"removed (\d+) pixels", err)
    assert found, err
    return int(found.group(1))


# ---------------------------------------------------------------------------------------
# Library level: the readers never raise anything but InputError
# ---------------------------------------------------------------------------------------

@settings(max_examples=60)
@given(data=hs.binary(max_size=300), header=hs.sampled_from([b"", b"\x89PNG\r\n\x1a\n", b"GIF89a", b"II*\x00",
                                                               b"\xff\xd8\xff", b"BM", b"P6\n", b"RIFF"]))
def test_readers_raise_only_input_error(tmp_path_factory, data, header):
    path = tmp_path_factory.mktemp("fuzz") / "f.img"
    path.write_bytes(header + data)
    for read in (lambda: imageio.read_image(path), lambda: imageio.read_mask(path, (W, H))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's notes on damaged files are not failures
            try:
                read()
            except InputError:
                pass


def test_progress_leaves_a_first_launchs_compile_out_of_the_pace(monkeypatch):
    """After a kernel's compile was queued, a long wait between two updates counts only up to the
    driver's last compiled file in it: the estimate then goes by the fill's own pace."""
    import io as _io

    from inpaint.cli import progress

    clock = {"mono": 100.0, "wall": 5000.0}
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock["mono"])
    monkeypatch.setattr(progress.time, "time", lambda: clock["wall"])

    def wait(seconds):
        clock["mono"] += seconds
        clock["wall"] += seconds

    def run(compiled_for):
        clock.update(mono=100.0, wall=5000.0)
        bar = progress.Progress("inpaint", "filling", "plain", stream=_io.StringIO())
        wait(0.5)
        bar(0.1)
        if compiled_for is not None:
            written = clock["wall"] + compiled_for  # the compile ends that long into the next wait
            bar.compiling(lambda since: written if written > since else None)
        wait(5.0)   # the compile, then the rest of the level
        bar(0.2)
        return bar.eta(0.2, clock["mono"])

    assert run(None) == pytest.approx(22.0)    # 5.5 s for a fifth: 22 s left
    assert run(4.5) == pytest.approx(4.0)      # 1.0 s of the fill's own for a fifth: 4 s left
    assert run(-1.0) == pytest.approx(22.0)    # the last compile ended before this wait: none left out


def test_a_heic_photo_is_told_to_be_exported_and_a_result_named_after_an_unwritable_format_asks_for_o(
        tmp_path, run, monkeypatch):
    """An iPhone's HEIC photo: one line saying to export it as JPEG, before anything about the
    result's name; a readable image whose format cannot be written: one line asking for ``-o``,
    which then works.  Nothing is written either way."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(5)
    Image.fromarray(rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)).save(tmp_path / "png_bytes.heic", "PNG")
    (tmp_path / "IMG_0001.HEIC").write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64))
    mask = np.zeros((30, 40), bool)
    mask[10:16, 12:20] = True
    save_mask(tmp_path / "m.png", mask)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, _, err = run("IMG_0001.HEIC", "--mask", "m.png")
    assert code == 2 and err.count("\n") == 1 and "HEIC photo" in err and "export it as JPEG" in err, err
    for argv, word in ((["png_bytes.heic", "--mask", "m.png"], "removed"),
                       (["resize", "png_bytes.heic", "--size", "50%"], "resized")):
        code, _, err = run(*argv)
        assert code == 2 and err.count("\n") == 1, err
        assert "cannot be written as .heic" in err and f"-o png_bytes_{word}.png" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    code, _, err = run("png_bytes.heic", "--mask", "m.png", "-o", "out.png")
    assert code == 0 and (tmp_path / "out.png").is_file(), err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_an_output_that_is_a_named_pipe_is_refused_not_replaced(files, run):
    """``-o`` naming a named pipe (or a device), even with --overwrite: refused in one line and left
    as it is, where replacing it with a file would leave its reader waiting for ever."""
    import stat

    pipe = files / "pipe.png"
    os.mkfifo(pipe)
    code, _, err = run("a.png", "--mask", "m.png", "-o", pipe, "-y", "--backend", "numpy")
    assert code == 2 and "is a named pipe, not a file" in err and len(err.strip().splitlines()) == 1, err
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)


@pytest.mark.parametrize("argv", [["a.png", "--mask", "m.png", "--backend", "numpy"],
                                  ["resize", "a.png", "--width", "20", "--backend", "numpy"],
                                  ["select", "a.png", "--box", "1,1,9,9"]])
@pytest.mark.parametrize("output, said", [("afile/x.png", "afile is a file, not a folder"),
                                          ("afile/", "-o afile/ names a folder, but afile is a file")])
def test_an_output_path_through_a_file_says_so(files, run, argv, output, said):
    (files / "afile").write_text("a file")
    code, _, err = run(*argv, "-o", output)
    assert code == 2 and said in err, err


@pytest.mark.parametrize("argv", [["a.png", "--mask", "wrong.png", "--backend", "numpy"],
                                  ["resize", "a.png", "--protect", "wrong.png", "--width", "20"],
                                  ["select", "a.png", "--box", "500,500,600,600"]])
def test_a_run_refused_leaves_no_output_folder_it_made(files, run, argv):
    save_mask(files / "wrong.png", np.zeros((5, 7), bool))
    code, _, err = run(*argv, "-o", "new/")
    assert code == 2 and not (files / "new").exists(), err
    (files / "kept").mkdir()
    assert run(*argv, "-o", "kept/")[0] == 2 and (files / "kept").is_dir()  # one that was there stays


def test_the_fills_memory_check_counts_the_hole_not_only_the_photo(tmp_path, run, monkeypatch):
    """A large photo with a small hole fits where its pixels alone are counted lightly; a hole too
    large for the memory is refused in one line before the fill, naming the hole."""
    from PIL import Image as PILImage

    h, w = 300, 400
    PILImage.fromarray(np.random.default_rng(0).integers(0, 255, (h, w, 3), dtype=np.uint8)).save(tmp_path / "p.png")
    small, large = np.zeros((h, w), bool), np.zeros((h, w), bool)
    small[140:150, 190:200] = True
    large[50:250, 100:200] = True
    save_mask(tmp_path / "small.png", small)
    save_mask(tmp_path / "large.png", large)
    monkeypatch.setattr(memory, "available_memory", lambda: 10 << 20)  # 10 MiB: the photo at 200 B a pixel did not fit
    code, _, err = run(tmp_path / "p.png", "--mask", tmp_path / "small.png", "-o", tmp_path / "a.png",
                       "--backend", "numpy", "--method", "criminisi", "-p", "3")
    assert code == 0, err
    code, _, err = run(tmp_path / "p.png", "--mask", tmp_path / "large.png", "-o", tmp_path / "b.png",
                       "--backend", "numpy")
    assert code == 2 and "filling 20000 pixels of" in err and "needs about" in err, err
    assert not (tmp_path / "b.png").exists()
