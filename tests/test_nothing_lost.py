"""Nothing lost: a result never replaces a file that appeared meanwhile, and a message naming a
file stays one line, whatever the name holds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import box_mask, first_by_default, save_mask
from PIL import Image

from inpaint.errors import InputError
from inpaint.io import atomic
from inpaint.io.naming import shown

# What these runs keep, refuse and say is the command's, whatever the method: the fills take the
# Criminisi method's (a hundredth of a second here; the default's numpy fill takes more than one).
QUICK = ["--method", "criminisi"]


@pytest.fixture
def photo(tmp_path):
    rng = np.random.default_rng(5)
    Image.fromarray(rng.integers(0, 255, (36, 44, 3), dtype=np.uint8)).save(tmp_path / "a.png")
    save_mask(tmp_path / "a_mask.png", box_mask(36, 44, slice(12, 20), slice(15, 24)))
    return tmp_path


# -- a file that appears while the run works is kept -----------------------------------------

@pytest.fixture
def another_run_finishes_first(monkeypatch):
    """``another_run_finishes_first(out)``: ``out`` appears while this run encodes its result."""
    def arrange(out):
        real = atomic._write

        def write(img, fh, fmt, opts, *rest):
            out.write_bytes(b"the other run's result")
            return real(img, fh, fmt, opts, *rest)

        monkeypatch.setattr(atomic, "_write", write)
        return out
    return arrange


@pytest.mark.parametrize("command", [["--mask", "{m}", *QUICK], ["resize", "--width", "40"]], ids=["remove", "resize"])
def test_an_output_that_appears_during_the_work_is_kept(photo, run, another_run_finishes_first, command):
    out = another_run_finishes_first(photo / "o.png")
    args = [a.replace("{m}", str(photo / "a_mask.png")) for a in command]
    argv = args[:1] + [photo / "a.png"] + args[1:] if args[0] == "resize" else [photo / "a.png"] + args
    code, _, err = run(*argv, "-o", out, "--backend", "numpy")
    assert code == 2 and "appeared while this run worked" in err and len(err.strip().splitlines()) == 1
    assert out.read_bytes() == b"the other run's result"
    assert not [p for p in os.listdir(photo) if p.endswith(".tmp")]


def test_overwrite_replaces_an_output_that_appears(photo, run, another_run_finishes_first):
    out = another_run_finishes_first(photo / "o.png")
    code, _, err = run(photo / "a.png", "--mask", photo / "a_mask.png", "-o", out, "--backend", "numpy", "--overwrite",
                       *QUICK)
    assert code == 0, err
    with Image.open(out) as im:
        assert im.size == (44, 36)


def test_without_hard_links_the_name_is_still_taken_only_once(photo, monkeypatch):
    def no_links(src, dst):
        raise PermissionError(1, "Operation not permitted")  # as on a FAT or SMB share

    monkeypatch.setattr(atomic.os, "link", no_links)
    img = Image.new("RGB", (8, 8), (1, 2, 3))
    out = photo / "n.png"
    atomic.save_images([(img, out, {"new": True})])
    with Image.open(out) as im:
        assert im.getpixel((0, 0)) == (1, 2, 3)
    with pytest.raises(Exception, match="appeared while this run worked"):
        atomic.save_images([(img, out, {"new": True})])
    assert not [p for p in os.listdir(photo) if p.endswith(".tmp")]


@pytest.mark.parametrize("rounds", first_by_default([1, 3]))
def test_two_runs_writing_one_new_output_never_both_succeed(photo, rounds):
    """Two real processes, started together: one writes the file, the other refuses (before its
    work or when putting its file in place); the file is one complete result."""
    cmd = [sys.executable, "-m", "inpaint.cli", str(photo / "a.png"), "--mask", str(photo / "a_mask.png"), "-o",
           str(photo / "o.png"), "--backend", "numpy", "-q", *QUICK]
    for _ in range(rounds):
        (photo / "o.png").unlink(missing_ok=True)
        procs = [subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        done = [p.communicate(timeout=120) for p in procs]
        codes = sorted(p.returncode for p in procs)
        assert codes == [0, 2], [err for _, err in done]
        with Image.open(photo / "o.png") as im:
            im.load()
            assert im.size == (44, 36)


# -- one message, one line -----------------------------------------------------------------------

def test_shown_escapes_control_characters_only():
    assert shown("a\nb.png") == "a\\nb.png"
    assert shown(Path("x\x1b[31m.jpg")) == "x\\x1b[31m.jpg"
    assert shown("Ärger über Öl.png") == "Ärger über Öl.png"
    assert shown(os.fsdecode(b"bad\xff.png")) == "bad\\udcff.png"


def test_a_newline_in_a_file_name_keeps_each_message_on_one_line(tmp_path, run):
    rng = np.random.default_rng(1)
    good = tmp_path / "two\nlines.png"
    Image.fromarray(rng.integers(0, 255, (30, 30, 3), dtype=np.uint8)).save(good)
    save_mask(tmp_path / "two\nlines_mask.png", box_mask(30, 30, slice(10, 16), slice(10, 16)))
    (tmp_path / "bad\nname.png").write_bytes(b"not an image")
    save_mask(tmp_path / "bad\nname_mask.png", box_mask(30, 30, slice(10, 16), slice(10, 16)))
    code, out, err = run(tmp_path, "-o", f"{tmp_path / 'done'}/", "--backend", "numpy", *QUICK)
    lines = err.strip().splitlines()
    assert code == 2
    assert len(lines) == 3 and all(ln.startswith("inpaint: ") for ln in lines), lines
    assert "bad\\nname.png" in lines[0] and "two\\nlines.png" in lines[1]
    assert "(bad\\nname.png)" in lines[2]
    assert (tmp_path / "done" / "two\nlines.png").is_file()


# -- a stop request ends the jobs it was meant for ---------------------------------------------

def _small():
    rng = np.random.default_rng(2)
    return rng.integers(0, 255, (30, 34, 3), dtype=np.uint8), box_mask(30, 34, slice(10, 17), slice(12, 20))


def test_a_stop_request_ends_running_jobs_not_later_ones():
    from inpaint import cancel
    from inpaint.api import inpaint, start
    from inpaint.seam import resize

    img, mask = _small()
    cancel.clear()
    try:
        running = start(img, mask, backend="numpy")
        cancel.request()
        with pytest.raises(cancel.Cancelled):
            running.run()
        # A job made after the request runs to its end (no clear() needed), as does a resize.
        assert (inpaint(img, mask, backend="numpy").image[~mask] == img[~mask]).all()
        assert resize(img, 30, 30, backend="numpy").shape == (30, 30, 3)
        assert cancel.requested()  # a batch still starts no further image until the next run
    finally:
        cancel.clear()


def test_a_stop_request_during_a_job_ends_it_at_its_next_step():
    from inpaint import cancel
    from inpaint.api import start

    img, mask = _small()
    cancel.clear()
    steps = []

    def on_step(job):
        steps.append(job.stats.iterations)
        if len(steps) == 2:
            cancel.request()

    try:
        with pytest.raises(cancel.Cancelled):
            start(img, mask, backend="numpy").run(on_step)
        assert len(steps) == 2
    finally:
        cancel.clear()


# -- closed and full standard streams --------------------------------------------------------------

@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("redirect, stats, code", [
    (">&-", False, 0),           # nothing to print there: done
    (">&-", True, 2),            # the tables cannot be printed
    (">/dev/full", True, 2),
    ("2>&-", True, 0),           # no messages wanted
    ("2>/dev/full", False, 2),   # the result line cannot be printed (and nothing can say so)
    ("2>/dev/full", "note", 2),  # a note before the work cannot be printed: the work is done all the same
])
def test_closed_or_full_standard_streams_give_the_documented_status(photo, redirect, stats, code):
    out = photo / f"o{abs(hash((redirect, stats)))}.png"
    mask = "" if stats == "note" else "--mask a_mask.png"  # (the paired mask found is said in a note)
    cmd = (f"'{sys.executable}' -m inpaint.cli a.png {mask} -o '{out.name}' --backend numpy "
           f"{' '.join(QUICK)}{' --stats' if stats is True else ''} {redirect}")
    proc = subprocess.run(["bash", "-c", cmd], cwd=photo, capture_output=True, text=True, timeout=120)
    assert proc.returncode == code, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    if redirect.startswith(">") and code == 2:  # (the tables come after the result: it is written)
        assert proc.stderr.strip().splitlines()[-1].startswith(
            "inpaint: error: the result is written, but standard output failed")
    with Image.open(out) as im:  # the result itself is whole in every case
        im.load()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", ["", "resize --width 30 "])
@pytest.mark.parametrize("redirect, said", [
    (">/dev/full", "cannot write to standard output: No space left on device"),
    ("| true", "standard output was closed before everything was written"),
])
def test_a_result_to_a_full_or_closed_standard_output_is_an_error_alone(photo, command, redirect, said):
    # The result was copied out after the line saying it was written: both lines came.
    prog = "inpaint resize" if command else "inpaint"
    args = "a.png" if command else f"a.png --mask a_mask.png {' '.join(QUICK)}"
    cmd = (f"set -o pipefail; '{sys.executable}' -m inpaint.cli {command}{args} -o - "
           f"--backend numpy {redirect}")
    proc = subprocess.run(["bash", "-c", cmd], cwd=photo, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr == f"{prog}: error: {said}\n", proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", ["", "resize ", "select ", "devices ", "app "])
@pytest.mark.parametrize("redirect, said", [
    (">/dev/full", "cannot write to standard output: No space left on device"),
    (">&-", "cannot write to standard output: Bad file descriptor"),
])
def test_help_to_a_full_or_closed_standard_output_is_an_error(tmp_path, command, redirect, said):
    # argparse drops a failed write of its help: the run said nothing and exited 0
    prog = f"inpaint {command}".strip()
    cmd = f"'{sys.executable}' -m inpaint.cli {command}--help {redirect}"
    proc = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr == f"{prog}: error: {said}\n", proc.stderr
    ok = subprocess.run(["bash", "-c", f"'{sys.executable}' -m inpaint.cli {command}--help"], cwd=tmp_path,
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and ok.stdout.startswith("usage: ") and ok.stderr == ""


# -- libjpeg's own warnings ----------------------------------------------------------------------

def test_libjpegs_warnings_are_told_once_as_ours(tmp_path):
    pytest.importorskip("jpeglib")
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 255, (64, 80, 3), dtype=np.uint8)).save(tmp_path / "w.jpg", quality=90)
    data = bytearray((tmp_path / "w.jpg").read_bytes())
    sos = data.index(b"\xff\xda")
    for k in range(sos + 40, sos + 60):  # damaged scan data: libjpeg warns, and still decodes
        data[k] = 0xFF if data[k - 1] != 0xFF else 0x00
    (tmp_path / "bad.jpg").write_bytes(bytes(data))
    save_mask(tmp_path / "m.png", box_mask(64, 80, slice(20, 30), slice(20, 40)))
    proc = subprocess.run([sys.executable, "-m", "inpaint.cli", "bad.jpg", "--mask", "m.png", "-o", "o.jpg",
                           "--backend", "numpy", *QUICK], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    told = [ln for ln in lines if "Corrupt JPEG data" in ln]
    assert len(told) == 1 and told[0].startswith("inpaint: warning: image bad.jpg: libjpeg: "), lines
    assert all(ln.startswith("inpaint: ") for ln in lines), lines


def _jpeg_with_object(path):
    y, x = np.mgrid[0:120, 0:160]
    a = np.dstack([(x * 1.5) % 256, (y * 2) % 256, np.full_like(x, 90)]).astype(np.uint8)
    a[40:70, 60:80] = (255, 0, 0)
    Image.fromarray(a).save(path / "photo.jpg", quality=90)
    m = np.zeros((120, 160), bool)
    m[38:72, 58:82] = True
    save_mask(path / "mask.png", m)


@pytest.mark.parametrize("restore", [True, False])
def test_a_jpeg_resized_with_remove_is_the_result_not_the_photo(tmp_path, run, restore):
    _jpeg_with_object(tmp_path)
    flags = [] if restore else ["--no-restore"]
    for ext in ("jpg", "png"):
        code, _, err = run("resize", tmp_path / "photo.jpg", "--remove", tmp_path / "mask.png", *flags,
                           "-o", tmp_path / f"out.{ext}", "--backend", "numpy")
        assert code == 0, err
    with Image.open(tmp_path / "out.jpg") as j, Image.open(tmp_path / "out.png") as p, \
            Image.open(tmp_path / "photo.jpg") as src:
        got, want, before = (np.asarray(im).astype(int) for im in (j, p, src))
    assert got.shape == want.shape == ((120, 160, 3) if restore else (120, 136, 3))
    assert np.abs(got - want).mean() < 2 and np.abs(got - want).max() < 40   # the same, less the JPEG's loss
    if restore:
        assert np.abs(got - before).mean() > 3                               # not the photo written back


def test_a_shrink_keeps_a_float_images_infinities(tmp_path, run):
    a = np.tile(np.linspace(0, 1, 8, dtype=np.float32), (8, 1))
    a[2, 7], a[3, 7], a[4, 2] = np.inf, -np.inf, np.nan
    Image.fromarray(a).save(tmp_path / "f.tif")
    code, _, err = run("resize", tmp_path / "f.tif", "--width", "7", "-o", tmp_path / "o.tif", "--backend", "numpy")
    assert code == 0, err
    with Image.open(tmp_path / "o.tif") as o:
        b = np.asarray(o)
    assert np.isposinf(b).sum() == 1 and np.isneginf(b).sum() == 1 and np.isnan(b).sum() == 1


def test_a_batch_takes_gif_photos_and_resizing_a_jpeg_says_it_is_encoded_again(tmp_path, run):
    rgb = np.random.default_rng(2).integers(0, 256, (30, 40, 3), dtype=np.uint8)
    (tmp_path / "in").mkdir()
    Image.fromarray(rgb).save(tmp_path / "in" / "a.gif")
    Image.fromarray(rgb).save(tmp_path / "in" / "b.jpg")
    code, _, err = run("resize", tmp_path / "in", "--width", "35", "-o", f"{tmp_path / 'out'}/", "--backend", "numpy")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.gif", "b.jpg"]
    assert "the JPEG is encoded again at its new size" in err
    code, _, err = run("resize", tmp_path / "in" / "b.jpg", "--width", "35", "-o", tmp_path / "s.png",
                       "--save-seams", tmp_path / "seams.gif", "--backend", "numpy")
    assert code == 0 and "--save-seams" in err and "256 colours" in err, err


def test_an_output_that_appears_keeps_the_others_of_the_run_from_being_written(tmp_path):
    """A result and its --save-mapping file are written together or not at all: where the map's
    name appeared while the run worked, the result put in place first is taken back."""
    img = Image.fromarray(np.zeros((8, 8, 3), np.uint8))
    result, mapping = tmp_path / "out.png", tmp_path / "map.png"
    real = atomic._publish

    def publish(tmp, path, new):
        if path == mapping:
            mapping.write_bytes(b"the other run's map")
        return real(tmp, path, new)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(atomic, "_publish", publish)
        with pytest.raises(InputError, match="map.png appeared while this run worked"):
            atomic.save_images([(img, result, {"new": True}), (img, mapping, {"new": True})])
    assert not result.exists() and mapping.read_bytes() == b"the other run's map"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map.png"]
